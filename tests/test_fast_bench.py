"""bench/run.py runs without NumPy, scikit-learn or diffprivlib and writes its Markdown table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "run.py"


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
    assert "| algorithm | parameters | engine |" in text
    for module in ("numpy", "sklearn", "diffprivlib"):
        assert f"- {module}" in text  # a version, or "not installed"


def test_bench_smoke_runs_with_the_standard_library_only(tmp_path: Path) -> None:
    text = _run(["--quick", "--algorithms", "noisy-majority"], tmp_path)
    _check_table(text)
    assert "| noisy-majority | defaults | reference |" in text
    assert "| noisy-majority | defaults | array |" in text


@pytest.mark.slow
def test_bench_quick_run(tmp_path: Path) -> None:
    text = _run(["--quick"], tmp_path)
    _check_table(text)
    for name in ("diffpid3", "thesis-tree", "tree-baseline", "private-rdt", "kanon-rdt"):
        assert f"- {name}: array is" in text
    assert "## Scaling" in text
