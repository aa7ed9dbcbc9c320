"""The test toolchain is locked: every package pinned with hashes, the venv holds nothing else.

A new release of a transitive package (packaging 26.4) once reached a fresh
``.venv`` and failed ``mypy --strict``; these tests keep that from recurring.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ("requirements-test", "requirements-smoke")


def _toolchain() -> ModuleType:
    spec = importlib.util.spec_from_file_location("toolchain", ROOT / "scripts" / "toolchain.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["toolchain"] = module
    spec.loader.exec_module(module)
    return module


def _requirements(text: str) -> list[str]:
    """The requirement entries of a pip requirements file, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_toolchain_examples() -> None:
    assert doctest.testmod(_toolchain()).failed == 0


@pytest.mark.parametrize("name", LOCKS)
def test_every_locked_package_is_pinned_with_hashes(name: str) -> None:
    entries = _requirements((ROOT / f"{name}.txt").read_text(encoding="utf-8"))
    assert entries
    for entry in entries:
        assert re.match(r"^[A-Za-z0-9._-]+==\S+", entry), f"{name}.txt: not pinned with ==: {entry}"
        assert "--hash=sha256:" in entry, f"{name}.txt: no hash: {entry}"


@pytest.mark.parametrize("name", LOCKS)
def test_every_top_level_tool_is_in_its_lock(name: str) -> None:
    tool = _toolchain()
    pins = tool.lock_pins((ROOT / f"{name}.txt").read_text(encoding="utf-8"))
    for entry in _requirements((ROOT / f"{name}.in").read_text(encoding="utf-8")):
        top = tool.normalise(re.split(r"[=<>; ]", entry, maxsplit=1)[0])
        assert top in pins, f"{name}.in names {top}, which {name}.txt lacks: run ./scripts/lock"


def test_the_check_installs_from_the_lock_with_hashes() -> None:
    script = (ROOT / "scripts" / "venv_from_lock").read_text(encoding="utf-8")
    assert "--require-hashes" in script
    assert "requirements-test.txt" in (ROOT / "scripts" / "check").read_text(encoding="utf-8")
    assert "requirements-smoke.txt" in (ROOT / "scripts" / "smoke").read_text(encoding="utf-8")


def test_mypy_reads_no_third_party_source_it_does_not_import() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^follow_imports = "skip"$', pyproject, re.MULTILINE)


@pytest.mark.smoke
def test_this_venv_holds_only_what_its_lock_names() -> None:
    """``pip freeze`` of the environment running the tests is covered by the lock it was built from."""
    prefix = Path(sys.prefix).resolve()
    locks = {ROOT / ".venv": "requirements-test.txt"}
    locks.update({venv: "requirements-smoke.txt" for venv in ROOT.glob(".venv-smoke-*")})
    lock = locks.get(prefix)
    if lock is None:
        pytest.skip(f"not running in a venv made by ./scripts/check ({prefix})")
    tool = _toolchain()
    found = tool.differences(tool.installed_in(sys.executable), tool.lock_pins((ROOT / lock).read_text("utf-8")))
    assert not found, found
