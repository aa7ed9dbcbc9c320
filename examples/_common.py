"""Shared plumbing of the example scripts: options, one evaluation, the report.

Every example reproduces one paper's experiment through refdp's public API
(:func:`refdp.evaluation.cross_validate`, :func:`refdp.evaluation.train_test_evaluate`
or :func:`refdp.algorithms.train`) with algorithms named as in the registry,
and writes ``<name>.md`` (a Markdown table) and ``<name>.json`` (every number,
the command line and the seed) into ``--out``.  ``--plot`` adds SVG
accuracy-privacy curves: with matplotlib when it is installed, otherwise with
the standard-library writer in ``_svg.py`` (and a message saying so).

Seeds: evaluation ``i`` of a run (in the order the grid is walked) uses
``seed + i``, so ``--seed S`` replays every number exactly.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python3 examples/NAME.py` from a clone, no install needed
    sys.path.insert(0, str(ROOT))

from refdp.data import Dataset  # noqa: E402
from refdp.evaluation import CVResult, cross_validate, stratified_split, train_test_evaluate  # noqa: E402
from refdp.privacy import worst_level  # noqa: E402
from refdp.rng import as_rng  # noqa: E402

import _svg  # noqa: E402

__all__ = ["BASELINE", "repeats", "Setting", "Row", "options", "cv_row", "holdout_row", "markdown_table", "write_report", "plot"]

FULL_OUT = ROOT / "examples" / "out"
"""Where full runs write by default: the committed results that docs/results.md quotes."""
QUICK_OUT = ROOT / "examples" / "out-quick"
"""Where ``--quick`` runs write by default (not committed), so they never overwrite the full results."""

BASELINE = "tree-baseline"
"""The non-private tree: it ignores epsilon, so its rows say ``-`` and plots draw it flat."""
BASELINE_EPSILON = "-"


AS_PUBLISHED: Mapping[str, Mapping[str, str]] = {
    "private-rdt": {"structure": "per-node", "continuous": "threshold", "voting": "sum-counts", "size_share": "0"},
    "kanon-rdt": {"structure": "per-node", "continuous": "threshold", "voting": "sum-counts", "size_share": "0"},
    "thesis-tree": {"node_counts": "every-node", "grid": "64", "size_share": "0"},
    "diffpid3": {"size_share": "0"},
    "dpdf": {"quality": "gini-weighted", "size_share": "0"},
    "dpea": {"size_share": "0"},
    "dp-adaboost": {"theta": "3", "size_share": "0"},
}
"""The papers' settings of the options refdp added later (issue 19): the scripts replicate the papers, so
every setting starts from these; a setting's own parameters override them."""


@dataclass(frozen=True)
class Setting:
    """One curve of a figure: an algorithm (registry name) with fixed parameters (over :data:`AS_PUBLISHED`)."""

    label: str
    algorithm: str
    params: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", {**AS_PUBLISHED.get(self.algorithm, {}), **self.params})


@dataclass(frozen=True)
class Row:
    """One measured cell: a setting on a data set at one epsilon.

    ``paper`` is the paper's number for the same cell, when it prints one
    (``paper_source`` says where: table or figure).  ``extra`` holds other
    metrics (precision, recall, F1, AUC) as means over the runs.
    """

    dataset: str
    setting: str
    algorithm: str
    params: Mapping[str, str]
    epsilon: str
    accuracies: Tuple[float, ...]
    receipt_epsilon: str
    receipt_delta: str
    level: str
    seconds: float
    paper: Optional[float] = None
    paper_source: str = ""
    extra: Mapping[str, float] = field(default_factory=dict)
    f1: Optional[float] = None
    """The mean macro F1 over the runs."""
    auc: Optional[float] = None
    """The mean macro AUC over the runs where it is defined (None where it is nowhere)."""

    @property
    def mean(self) -> float:
        return math.fsum(self.accuracies) / len(self.accuracies)

    @property
    def std(self) -> float:
        if len(self.accuracies) < 2:
            return 0.0
        m = self.mean
        return math.sqrt(math.fsum((a - m) ** 2 for a in self.accuracies) / (len(self.accuracies) - 1))

    def interval(self) -> Optional[Tuple[float, float]]:
        from refdp.metrics import mean_confidence_interval

        if len(self.accuracies) < 2:
            return None
        return mean_confidence_interval(self.accuracies, 0.95)

    def to_json(self) -> Dict[str, Any]:
        interval = self.interval()
        return {
            "dataset": self.dataset,
            "setting": self.setting,
            "algorithm": self.algorithm,
            "params": dict(self.params),
            "epsilon": self.epsilon,
            "accuracy_mean": self.mean,
            "accuracy_std": self.std,
            "accuracy_ci95": list(interval) if interval else None,
            "accuracies": list(self.accuracies),
            "f1_macro_mean": self.f1,
            "auc_macro_mean": self.auc,
            "runs": len(self.accuracies),
            "receipt_epsilon": self.receipt_epsilon,
            "receipt_delta": self.receipt_delta,
            "level": self.level,
            "sound": self.level == "proved",
            "train_seconds": self.seconds,
            "paper": self.paper,
            "paper_source": self.paper_source,
            "extra": dict(self.extra),
        }


def options(name: str, description: str, argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """The options every example takes."""
    parser = argparse.ArgumentParser(prog=f"python3 examples/{name}.py", description=description)
    parser.add_argument("--seed", type=int, default=1, help="base seed; evaluation i uses seed + i (default 1)")
    parser.add_argument("--quick", action="store_true", help="a reduced grid that runs in well under a minute")
    parser.add_argument(
        "--out", default=None,
        help="output directory (default: examples/out, which holds the committed full runs; examples/out-quick "
        "with --quick, so that a quick run never overwrites them)",
    )
    parser.add_argument("--plot", action="store_true", help="also write SVG accuracy-privacy curves")
    parser.add_argument(
        "--repeats", type=int, default=None,
        help="repeats of the protocol (default: the paper's; fewer is faster, and the report says so)",
    )
    args = parser.parse_args(argv)
    if args.repeats is not None and args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
    if args.out is None:
        args.out = str(QUICK_OUT if args.quick else FULL_OUT)
    return args


def repeats(args: argparse.Namespace, paper: int, quick: int = 1) -> int:
    """The number of repeats: ``--repeats`` if given, else ``quick`` under --quick, else the paper's."""
    if args.repeats is not None:
        return int(args.repeats)
    return quick if args.quick else paper


def _result_row(dataset: str, setting: Setting, result: CVResult, paper: Optional[float], source: str) -> Row:
    return Row(
        dataset=dataset,
        setting=setting.label,
        algorithm=setting.algorithm,
        params=dict(setting.params),
        epsilon=BASELINE_EPSILON if setting.algorithm == BASELINE else str(result.epsilon),
        accuracies=result.accuracies,
        receipt_epsilon=str(result.receipt_epsilon),
        receipt_delta=f"{float(result.receipt_delta):.4g}",
        level=result.level,
        seconds=sum(result.train_seconds),
        paper=paper,
        paper_source=source,
        f1=result.f1_mean,
        auc=result.auc_mean,
    )


def cv_row(
    dataset: str,
    data: Dataset,
    setting: Setting,
    epsilon: str,
    *,
    folds: int,
    repeats: int,
    seed: int,
    paper: Optional[float] = None,
    source: str = "",
) -> Row:
    """Repeated stratified k-fold cross-validation of one setting at one epsilon."""
    result = cross_validate(
        setting.algorithm, data, epsilon, folds=folds, repeats=repeats, params=setting.params, seed=seed
    )
    return _result_row(dataset, setting, result, paper, source)


def holdout_row(
    dataset: str,
    data: Dataset,
    setting: Setting,
    epsilon: str,
    *,
    test_fraction: float,
    repeats: int,
    seed: int,
    paper: Optional[float] = None,
    source: str = "",
) -> Row:
    """``repeats`` fresh stratified hold-out splits, one model trained on each."""
    rng = as_rng(seed)
    results = []
    for _ in range(repeats):
        train_rows, test_rows = stratified_split(data.labels, test_fraction, rng)
        results.append(
            train_test_evaluate(
                setting.algorithm, data.subset(train_rows), data.subset(test_rows), epsilon,
                params=setting.params, rng=rng,
            )
        )
    first = results[0]
    merged = CVResult(
        algorithm=first.algorithm,
        params=first.params,
        epsilon=first.epsilon,
        folds=1,
        repeats=repeats,
        seed=seed,
        accuracies=tuple(a for r in results for a in r.accuracies),
        receipt_epsilon=max(r.receipt_epsilon for r in results),
        receipt_delta=max(r.receipt_delta for r in results),
        level=worst_level(r.level for r in results),
        train_seconds=tuple(t for r in results for t in r.train_seconds),
        f1s=tuple(f for r in results for f in r.f1s),
        aucs=tuple(a for r in results for a in r.aucs),
    )
    return _result_row(dataset, setting, merged, paper, source)


def _fmt_paper(row: Row) -> str:
    return f"{row.paper:.3f} ({row.paper_source})" if row.paper is not None else ""


def markdown_table(rows: Sequence[Row], extra_columns: Sequence[str] = ()) -> str:
    """The rows as a Markdown table (accuracy mean +- sd, 95% t interval, macro AUC and F1, receipt)."""
    head = ["data set", "setting", "epsilon", "accuracy", "95% CI", "macro AUC", "macro F1", "runs"]
    head += list(extra_columns)
    head += ["receipt epsilon", "receipt delta", "level", "paper"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        interval = row.interval()
        cells = [
            row.dataset,
            row.setting,
            row.epsilon,
            f"{row.mean:.3f} +- {row.std:.3f}",
            f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "",
            "" if row.auc is None else f"{row.auc:.3f}",
            "" if row.f1 is None else f"{row.f1:.3f}",
            str(len(row.accuracies)),
        ]
        cells += [f"{row.extra[c]:.3f}" if c in row.extra else "" for c in extra_columns]
        cells += [row.receipt_epsilon, row.receipt_delta, row.level if row.level != "unsound" else "UNSOUND", _fmt_paper(row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_report(
    out: Path,
    name: str,
    title: str,
    notes: Sequence[str],
    rows: Sequence[Row],
    args: argparse.Namespace,
    *,
    extra_columns: Sequence[str] = (),
    extra_json: Optional[Mapping[str, Any]] = None,
    extra_markdown: str = "",
) -> Tuple[Path, Path]:
    """Write ``<name>.md`` and ``<name>.json`` into ``out`` and return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    command = f"python3 examples/{name}.py --seed {args.seed}" + (" --quick" if args.quick else "")
    command += f" --repeats {args.repeats}" if args.repeats is not None else ""
    body = [f"# {title}", "", f"Command: `{command}`", ""]
    body += [f"- {note}" for note in notes]
    body += ["", markdown_table(rows, extra_columns)]
    if extra_markdown:
        body += [extra_markdown]
    md = out / f"{name}.md"
    md.write_text("\n".join(body), encoding="utf-8")
    document: Dict[str, Any] = {
        "example": name,
        "title": title,
        "command": command,
        "seed": args.seed,
        "quick": bool(args.quick),
        "notes": list(notes),
        "rows": [r.to_json() for r in rows],
    }
    if extra_json:
        document.update(extra_json)
    js = out / f"{name}.json"
    js.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    note = " (a quick run: the committed full results in examples/out/ are untouched)" if args.quick else ""
    print(f"wrote {md} and {js}{note}")
    return md, js


def plot(out: Path, name: str, rows: Sequence[Row], x_label: str = "epsilon") -> List[Path]:
    """One SVG per data set: mean accuracy against epsilon, one line per setting.

    The non-private baseline is a flat dashed line; the paper's numbers are
    dashed too.
    """
    out.mkdir(parents=True, exist_ok=True)
    written: List[Path] = []
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        plt = None
        print("--plot: matplotlib is not installed; writing plain SVG with examples/_svg.py instead")
    for dataset in sorted({r.dataset for r in rows}):
        series: List[_svg.Series] = []
        private = [r for r in rows if r.dataset == dataset and r.epsilon != BASELINE_EPSILON]
        if not private:
            continue
        span = (min(_eps(r.epsilon) for r in private), max(_eps(r.epsilon) for r in private))
        for label in dict.fromkeys(r.setting for r in rows if r.dataset == dataset):
            cell = [r for r in rows if r.dataset == dataset and r.setting == label]
            if cell[0].epsilon == BASELINE_EPSILON:
                series.append(_svg.Series(label, ((span[0], cell[0].mean), (span[1], cell[0].mean)), True))
                continue
            series.append(_svg.Series(label, tuple((_eps(r.epsilon), r.mean) for r in cell)))
            reported = tuple((float(_eps(r.epsilon)), r.paper) for r in cell if r.paper is not None)
            if reported:
                series.append(_svg.Series(f"paper: {label}", reported, True))
        path = out / f"{name}-{dataset}.svg"
        title = f"{name}: {dataset}"
        if plt is None:
            _svg.line_plot(path, title, series, x_label, "accuracy")
        else:
            fig, ax = plt.subplots(figsize=(7.2, 4.4))
            for s in series:
                xs, ys = zip(*sorted(s.points))
                ax.plot(xs, ys, "--" if s.dashed else "-", marker="o", label=s.label)
            ax.set_xscale("log")
            ax.set_xlabel(x_label)
            ax.set_ylabel("accuracy")
            ax.set_title(title)
            ax.legend(fontsize=8)
            fig.savefig(path, format="svg", bbox_inches="tight")
            plt.close(fig)
        written.append(path)
    return written


def _eps(text: str) -> float:
    return float(Fraction(text))
