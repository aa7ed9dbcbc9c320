"""What loads: ``import refdp`` and the light subcommands import no algorithm and no audit module (issue 18).

Each check runs in a fresh interpreter, as a user's process would, and
lists the refdp modules it ended up with.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent

HEAVY = ("refdp.algorithms", "refdp.audit", "refdp.engine", "refdp.fast", "refdp.evaluation", "refdp.estimators")


def _loaded(code: str) -> List[str]:
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('refdp'))))"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def _heavy(modules: List[str]) -> List[str]:
    return [m for m in modules if m.startswith(HEAVY)]


def test_import_refdp_loads_no_algorithm_and_no_audit() -> None:
    assert _loaded("import refdp") == ["refdp"]


def test_the_public_names_still_resolve() -> None:
    modules = _loaded("import refdp\nassert callable(refdp.train) and refdp.Dataset.__name__ == 'Dataset'"
                      "\nassert refdp.data.load is refdp.load\nfrom refdp import *")
    assert "refdp.algorithms" in modules


def test_a_missing_name_is_an_attribute_error() -> None:
    import refdp

    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        getattr(refdp, "no_such_name")


@pytest.mark.parametrize(
    "argv",
    [
        ["delta", "--k", "5", "--beta", "0.1", "--epsilon", "0.2"],
        ["delta", "--table", "--epsilon", "1"],
        ["datasets"],
        ["--help"],
        ["delta", "--help"],
    ],
)
def test_light_subcommands_load_no_algorithm_and_no_audit(argv: List[str]) -> None:
    code = (
        "import contextlib, io\nfrom refdp.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass"
    )
    assert _heavy(_loaded(code)) == []


def test_the_audit_subcommand_loads_the_audit_package() -> None:
    code = (
        "import contextlib, io\nfrom refdp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['audit', '--list-planted'])"
    )
    assert "refdp.audit.planted" in _loaded(code)


def test_training_one_learner_loads_no_other() -> None:
    code = (
        "from refdp.algorithms import train\nfrom refdp.data import load\n"
        "train('diffpid3', load('vote'), 1, rng=1)"
    )
    learners = [m for m in _loaded(code) if m in set(_learner_modules())]
    assert learners == ["refdp.algorithms.diffpid3"]


def _learner_modules() -> List[str]:
    from refdp.algorithms.registry import MODULES

    return list(MODULES.values())


def test_each_listed_module_registers_the_name_it_is_listed_under() -> None:
    from refdp.algorithms.registry import MODULES

    code = (
        "import importlib, json\nfrom refdp.algorithms import registry\n"
        "found = {}\n"
        "for module in sorted(set(registry.MODULES.values())):\n"
        "    before = set(registry._REGISTRY)\n"
        "    importlib.import_module(module)\n"
        "    found[module] = sorted(set(registry._REGISTRY) - before)\n"
        "print(json.dumps(found))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found == {module: [name for name, m in MODULES.items() if m == module] for module in found}
    # and no module of the package registers an algorithm that is not listed
    registering = sorted(
        "refdp.algorithms." + path.stem for path in (ROOT / "refdp" / "algorithms").glob("*.py")
        if "= register(" in path.read_text(encoding="utf-8")
    )
    assert registering == sorted(set(MODULES.values()))
