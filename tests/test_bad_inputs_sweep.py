"""``scripts/bad_inputs.py``: over a thousand bad inputs, no traceback, no foreign exception, no special file replaced.

The quick sweep (every case but the few that start programs) runs by
default; the whole sweep is marked slow.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bad_inputs", ROOT / "scripts" / "bad_inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _check(tmp_path: Path, quick: bool) -> None:
    script = _script()
    tally = script.sweep(script.all_cases(tmp_path, quick))
    text = script.report(tally)
    assert tally.tried >= 150 and set(tally.by_kind) == {"command line", "Python API", "special file"}, text
    assert tally.failures == 0, text
    assert not tally.tracebacks and not tally.foreign and not tally.replaced and not tally.malformed, text


def test_the_quick_sweep_finds_nothing(tmp_path: Path) -> None:
    _check(tmp_path, quick=True)


@pytest.mark.slow
def test_the_whole_sweep_finds_nothing(tmp_path: Path) -> None:
    _check(tmp_path, quick=False)


def test_the_sweep_counts_what_it_should() -> None:
    """The counters work: an API call that raises TypeError counts, a usage error does not."""
    script = _script()

    def foreign() -> None:
        raise TypeError("not a RefdpError")

    cases = [script.Case("Python API", "foreign", call=foreign),
             script.Case("command line", "usage", ("frobnicate",))]
    tally = script.sweep(cases)
    assert len(tally.foreign) == 1 and tally.tried == 2 and tally.failures == 1
