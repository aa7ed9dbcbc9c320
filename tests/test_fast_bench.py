"""bench/run.py runs without NumPy, scikit-learn or diffprivlib and writes its Markdown table.

No test here looks at a measured time: only at the bookkeeping around the timings.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import List

import pytest

from refdp.data import load

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "run.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("refdp_bench_run", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _run(args: List[str], tmp_path: Path) -> str:
    output = tmp_path / "bench.md"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--output", str(output)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        # the bench imports refdp from the checkout, as `pip install -e .` would provide
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return output.read_text(encoding="utf-8")


def _check_table(text: str) -> None:
    assert text.startswith("# Benchmarks")
    assert "| algorithm | parameters | contender |" in text
    assert "## Ratios (per-round, interleaved)" in text
    for module in ("numpy", "sklearn", "diffprivlib"):
        assert f"- {module}" in text  # a version, or "not installed"


def test_bench_smoke_runs_with_the_standard_library_only(tmp_path: Path) -> None:
    text = _run(["--quick", "--algorithms", "noisy-majority"], tmp_path)
    _check_table(text)
    assert "| noisy-majority | defaults | refdp noisy-majority, reference engine |" in text
    assert "| noisy-majority | defaults | refdp noisy-majority, array engine |" in text
    assert "| noisy-majority: array / reference |" in text
    # issue 33's sections: default fits, predictions (the plain loop predicts what the model does, or the
    # run fails), the whole process
    assert "## Default fits against scikit-learn (issue 33)" in text and "| noisy-majority | array |" in text
    assert "## Prediction on adult-test (issue 33)" in text and "| private-rdt | 10 |" in text
    assert "| train (array, default) |" in text and "## Targets (issue 33" in text


def test_rounds_rotate_the_order_and_drop_the_warm_up() -> None:
    calls: List[str] = []
    contenders = [bench.Contender(key, (lambda key=key: calls.append(key))) for key in "abc"]
    bench.run_rounds(contenders, 3)
    assert calls == list("abc" "bca" "cab" "abc")
    assert all(len(c.cpu) == len(c.wall) == 3 for c in contenders)


def test_a_failing_contender_is_reported_and_left_out() -> None:
    def boom() -> None:
        raise ValueError("no")

    good, bad = bench.Contender("good", lambda: 1), bench.Contender("bad", boom)
    bench.run_rounds([good, bad], 2)
    assert bad.error == "ValueError: no" and bad.cpu == []
    assert len(good.cpu) == 2 and good.model == 1


def test_ratios_are_per_round_medians_and_minima() -> None:
    num = bench.Contender("array", None, cpu=[1.0, 2.0, 9.0], wall=[2.0, 2.0, 2.0])
    den = bench.Contender("reference", None, cpu=[2.0, 2.0, 3.0], wall=[4.0, 1.0, 2.0])
    s = bench.ratio(num, den)
    assert (s.cpu_median, s.cpu_min, s.wall_median, s.wall_min, s.rounds) == (1.0, 0.5, 1.0, 0.5, 3)
    assert s.spread == 6.0  # 3 / 0.5 (CPU), more than wall's 2 / 0.5
    assert bench.ratio(num, bench.Contender("peer", None, error="not installed")) is None


def test_missing_peers_say_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("numpy", "sklearn", "sklearn.tree", "diffprivlib", "diffprivlib.models"):
        monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    vote = load("vote")
    groups = bench.comparisons(["thesis-tree", "private-rdt"], vote, vote)
    peers = [c for g in groups for c in g.contenders if c.key in bench.PEER_NAMES]
    # every algorithm meets scikit-learn's tree and diffprivlib's tree (a single tree) or forest (an ensemble)
    assert [(c.key, c.fit, c.error) for c in peers] == [
        (bench.SKLEARN, None, "not installed"), (bench.DIFFPRIVLIB_TREE, None, "not installed"),
        (bench.SKLEARN, None, "not installed"), (bench.DIFFPRIVLIB, None, "not installed")]
    rows = [r for g in groups for r in bench.ratio_rows(g)]
    table = "\n".join(bench.ratio_table(rows))
    assert "| thesis-tree (array) / scikit-learn | not installed |" in table
    assert "| thesis-tree (array) / diffprivlib-tree | not installed |" in table
    assert "| private-rdt (array) / diffprivlib | not installed |" in table


def test_scaling_parts_are_materialised_without_replacement() -> None:
    vote = load("vote")
    part = bench.fraction_of(vote, 1, 4, 7)
    assert len(part) == len(vote) // 4
    assert part.indices == range(len(part))  # a base data set, as a loaded one
    assert bench.fraction_of(vote, 1, 1, 7) is vote


@pytest.mark.slow
def test_bench_quick_run(tmp_path: Path) -> None:
    text = _run(["--quick"], tmp_path)
    _check_table(text)
    for name in ("diffpid3", "thesis-tree", "tree-baseline", "private-rdt", "kanon-rdt"):
        assert f"| {name}: array / reference |" in text
    assert "## Scaling" in text
