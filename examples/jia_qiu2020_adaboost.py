"""Jia & Qiu (IEEE Access 2020), section V: CART-DPsAdaBoost on Adult.

The paper's grid: epsilon in {0.05, 0.1, 0.25, 0.5, 0.75, 1}, T = 10 boosting
rounds of CART stumps, k = 5 attributes per node (random subspace); Adult with
70% of adult.data for training and 30% for testing; each configuration run
5 times and averaged.  Reported: precision, recall and F1 (Table 4), ROC AUC
(Table 5), and a peak accuracy of 0.8157 at epsilon = 1, T = 51 (section
V.C.1, Fig. 5(a)); baseline a non-private Gini stump.

What runs here:

* Adult is vendored (``adult``, the 32,561 rows of adult.data).  The split is
  a seeded stratified 70/30 split, drawn anew for every run.
* Census Income (KDD, 199,523 rows) and Digit Recognizer (Kaggle, 784 pixel
  attributes) are not available offline and nothing vendored resembles them;
  their columns of Tables 4-5 are quoted in docs/results.md but not rerun.
* Both variants of refdp's ``dp-adaboost``: ``sound`` (the default) and
  ``published`` (Algorithm 3 as printed; unsound, see
  ``proofs/adaboost-published-unsound.md``).
* The positive class of precision, recall, F1 and AUC is ``>50K`` (the paper
  does not say which class it used; its precision and recall near 0.8 at
  epsilon = 1 fit ``<=50K`` better, so both are reported in the JSON).
* Baseline: refdp's non-private ``tree-baseline`` with depth 1, Gini, binary
  splits (a CART stump), as in the paper.

``--quick``: epsilon in {0.1, 1}, one run, on a stratified 20% sample of
Adult (so it takes seconds; the full run uses all rows).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import _common
from _common import Row, Setting, options, plot, write_report

from refdp.algorithms import train
from refdp.data import Dataset, load
from refdp.evaluation import accuracy, stratified_split
from refdp.metrics import f1_score, macro_auc, macro_f1, precision, recall, roc_auc
from refdp.privacy import worst_level
from refdp.rng import as_rng

NAME = "jia_qiu2020_adaboost"
EPSILONS = ("0.05", "0.1", "0.25", "0.5", "0.75", "1")
POSITIVE = ">50K"
STUMPS = {"n_estimators": "10", "max_depth": "1", "n_features": "5"}
SETTINGS = (
    Setting("CART-DPsAdaBoost T=10", "dp-adaboost", STUMPS),
    Setting("CART-DPsAdaBoost T=10 published (unsound)", "dp-adaboost", {**STUMPS, "variant": "published"}),
    Setting("non-private CART stump", _common.BASELINE, {"max_depth": "1", "quality": "gini", "split": "binary", "min_samples": "1"}),
)
PEAK = Setting("CART-DPsAdaBoost T=51", "dp-adaboost", {**STUMPS, "n_estimators": "51"})

# Table 4 (Adult columns: precision, recall, F1) and Table 5 (Adult AUC), by epsilon.
TABLE4_ADULT = {
    "0.05": (0.62938, 0.62628, 0.62783),
    "0.1": (0.69987, 0.71540, 0.70755),
    "0.25": (0.79039, 0.76344, 0.77668),
    "0.5": (0.82904, 0.78069, 0.80414),
    "0.75": (0.83610, 0.78357, 0.80898),
    "1": (0.84182, 0.78685, 0.81341),
}
TABLE5_ADULT = {"0.05": 0.64267, "0.1": 0.72996, "0.25": 0.84343, "0.5": 0.86289, "0.75": 0.87287, "1": 0.89058}
PEAK_ACCURACY = 0.8156953503050705


def _metrics(model_predict: List[str], scores: List[float], actual: List[str], positive: str) -> Dict[str, float]:
    return {
        "precision": precision(model_predict, actual, positive),
        "recall": recall(model_predict, actual, positive),
        "f1": f1_score(model_predict, actual, positive),
        "auc": roc_auc(scores, actual, positive),
    }


def run(data: Dataset, setting: Setting, epsilon: str, runs: int, seed: int) -> Row:
    """``runs`` fresh 70/30 splits; a model per split; accuracy, P/R/F1/AUC for both classes."""
    rng = as_rng(seed)
    accuracies: List[float] = []
    f1s: List[float] = []
    aucs: List[float] = []
    sums: Dict[str, float] = {}
    receipts: List[Tuple[str, str, str]] = []
    seconds = 0.0
    for _ in range(runs):
        train_rows, test_rows = stratified_split(data.labels, 0.3, rng)
        train_part, test_part = data.subset(train_rows), data.subset(test_rows)
        start = time.perf_counter()
        model = train(setting.algorithm, train_part, epsilon, params=setting.params, rng=rng)
        seconds += time.perf_counter() - start
        predicted = model.predict(test_part)
        actual = [data.schema.classes[c] for c in test_part.labels]
        proba = model.predict_proba(test_part)
        accuracies.append(accuracy(predicted, actual))
        f1s.append(macro_f1(predicted, actual, data.schema.classes))
        auc = macro_auc(proba, actual, data.schema.classes)
        if auc is not None:
            aucs.append(auc)
        for column, cls in enumerate(model.classes_):
            tag = "" if cls == POSITIVE else f" ({cls})"
            for key, value in _metrics(predicted, [p[column] for p in proba], actual, cls).items():
                sums[key + tag] = sums.get(key + tag, 0.0) + value
        receipts.append((str(model.receipt.epsilon), f"{float(model.receipt.delta):.4g}", model.receipt.level))
    baseline = setting.algorithm == _common.BASELINE
    paper = PEAK_ACCURACY if setting is PEAK else None
    return Row(
        dataset="adult",
        setting=setting.label,
        algorithm=setting.algorithm,
        params=dict(setting.params),
        epsilon=_common.BASELINE_EPSILON if baseline else epsilon,
        accuracies=tuple(accuracies),
        receipt_epsilon=max(r[0] for r in receipts),
        receipt_delta=max(r[1] for r in receipts),
        level=worst_level(r[2] for r in receipts),
        seconds=seconds,
        paper=paper,
        paper_source="sec. V.C.1 peak, T=51" if paper else "",
        extra={k: v / runs for k, v in sums.items()},
        f1=sum(f1s) / len(f1s),
        auc=sum(aucs) / len(aucs) if aucs else None,
    )


def comparison(rows: Sequence[Row]) -> str:
    """Table 4/5 (Adult) next to refdp's sound variant."""
    lines = [
        f"Tables 4 and 5, Adult columns: paper / refdp sound T=10 with positive class {POSITIVE} / "
        "refdp macro average over both classes (the paper does not say which it reports)",
        "",
        "| epsilon | precision | recall | F1 | AUC |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        if row.setting != SETTINGS[0].label or row.epsilon not in TABLE4_ADULT:
            continue
        p, r, f = TABLE4_ADULT[row.epsilon]
        e = row.extra

        def both(key: str) -> str:
            return f"{e[key]:.3f} / {(e[key] + e[key + ' (<=50K)']) / 2:.3f}"

        lines.append(
            f"| {row.epsilon} | {p:.3f} / {both('precision')} | {r:.3f} / {both('recall')} | "
            f"{f:.3f} / {both('f1')} | {TABLE5_ADULT[row.epsilon]:.3f} / {e['auc']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = options(NAME, __doc__.splitlines()[0], argv)
    data = load("adult")
    if args.quick:
        data = data.subset(stratified_split(data.labels, 0.2, as_rng(args.seed))[1])
    epsilons = ("0.1", "1") if args.quick else EPSILONS
    runs = _common.repeats(args, 5)
    rows: List[Row] = []
    seed = args.seed
    for setting in SETTINGS:
        grid = ("1",) if setting.algorithm == _common.BASELINE else epsilons
        for epsilon in grid:
            rows.append(run(data, setting, epsilon, runs, seed))
            seed += 1
    if not args.quick:
        rows.append(run(data, PEAK, "1", runs, seed))
    notes = [
        f"Protocol: {runs} run(s), each a fresh stratified 70/30 split of "
        + ("a 20% sample of adult.data (--quick)" if args.quick else "adult.data (32,561 rows)")
        + "; every model gets the whole budget.",
        "Census Income and Digit Recognizer are not available offline and have no vendored counterpart.",
        f"precision/recall/f1/auc: positive class {POSITIVE}; the JSON also has them for <=50K.",
        "Baseline: refdp's non-private CART stump (tree-baseline, depth 1, Gini, binary).",
    ]
    out = Path(args.out)
    write_report(
        out, NAME, "Jia & Qiu 2020: CART-DPsAdaBoost on Adult", notes, rows, args,
        extra_columns=("precision", "recall", "f1", "auc"), extra_markdown=comparison(rows),
    )
    if args.plot:
        plot(out, NAME, rows)
    print((out / f"{NAME}.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
