"""refdp vendored as a zip file (zipimport, a zipapp, a PEX, a cloud function layer).

The package is zipped from this checkout and run by a fresh interpreter in
isolated mode (``-I -S``: no current folder, no site-packages), so the
checkout itself cannot be imported: every built-in data set must load, a
model must train (the same model, byte for byte, as here), and the zip run
as a program must train from the command line.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path
from typing import List

import pytest

import refdp
from refdp.algorithms import read_model, train
from refdp.data import BUILTIN_NAMES, load_builtin
from refdp.tree import dumps_model

PACKAGE = Path(refdp.__file__).resolve().parent

# Run in the child with the zip's path as argv[1]; prints one line per check.
CHILD = """
import importlib.util, sys
assert importlib.util.find_spec("refdp") is None, "the checkout is importable; the test would prove nothing"
sys.path.insert(0, sys.argv[1])
import refdp
assert refdp.__file__.startswith(sys.argv[1]), refdp.__file__
from refdp.algorithms import train
from refdp.proofs_reader import proofs_dir, read_claims
from refdp.data import BUILTIN_NAMES, load_builtin
from refdp.tree import dumps_model
for name in BUILTIN_NAMES:
    print(name, len(load_builtin(name)))
try:
    read_claims(proofs_dir())
except FileNotFoundError:
    print("no proofs/ folder: FileNotFoundError")
model = train("thesis-tree", load_builtin("vote"), 1, {"max_depth": 2}, rng=7)
print("level", model.receipt.level)
sys.stdout.write(dumps_model(model))
"""


def _zip_package(target: Path, *, main: bool) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(PACKAGE.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, (Path("refdp") / path.relative_to(PACKAGE)).as_posix())
        if main:
            archive.writestr("__main__.py", "import runpy\nrunpy.run_module('refdp', run_name='__main__')\n")
    return target


def _run(args: List[str], cwd: Path) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [sys.executable, "-I", "-S", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.mark.smoke
def test_a_zip_of_the_package_loads_every_builtin_and_trains(tmp_path: Path) -> None:
    archive = _zip_package(tmp_path / "refdp.zip", main=False)
    done = _run(["-c", CHILD, str(archive)], tmp_path)
    assert done.returncode == 0, done.stderr
    here = train("thesis-tree", load_builtin("vote"), 1, {"max_depth": 2}, rng=7)
    expected = [f"{name} {len(load_builtin(name))}" for name in BUILTIN_NAMES] + [
        "no proofs/ folder: FileNotFoundError",
        f"level {here.receipt.level}",
    ]
    assert done.stdout == "".join(line + "\n" for line in expected) + dumps_model(here)


def test_a_zipapp_of_the_package_trains_from_the_command_line(tmp_path: Path) -> None:
    archive = _zip_package(tmp_path / "refdp.pyz", main=True)
    out = tmp_path / "model.json"
    args = ["train", "--data", "credit-g", "--algorithm", "diffpid3", "--epsilon", "1", "--seed", "3"]
    done = _run([str(archive), *args, "--out", str(out)], tmp_path)
    assert done.returncode == 0, done.stderr
    here = train("diffpid3", load_builtin("credit-g"), 1, rng=3)
    assert dumps_model(read_model(out)) == dumps_model(here)
