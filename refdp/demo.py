"""``python3 -m refdp demo``: a sound DP tree next to the non-private baseline, with its receipt.

The demo holds out a stratified quarter of the UCI congressional voting
records, trains the thesis tree (sound variant, max operator, depth
:data:`DEPTH`) with the requested epsilon and the non-private baseline tree
on the rest, and reports both test accuracies, a few rules of the DP tree
(computed from its released noisy counts only) and its privacy receipt.
Everything random comes from one source: a seed replays the run exactly.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, List, Optional, Tuple

from refdp.algorithms import Param, get_algorithm
from refdp.data import describe_builtin, load_builtin
from refdp.evaluation import accuracy, stratified_folds
from refdp.privacy import Number, Receipt, Relation, as_budget
from refdp.rng import as_rng
from refdp.tree import TreeModel

__all__ = ["DATA", "DEPTH", "RULES_SHOWN", "demo"]

DATA = "vote"
DEPTH = 3
RULES_SHOWN = 4


def _receipt_lines(receipt: Receipt) -> List[str]:
    groups: Counter[Tuple[str, str, str, str]] = Counter(
        (c.label, c.mechanism, str(c.epsilon), str(c.sensitivity)) for c in receipt.charges
    )
    lines = [f"receipt: {receipt.summary()}"]
    for (label, mechanism, epsilon, sensitivity), count in groups.items():
        lines.append(
            f"  {count:>3} x {label}: {mechanism}, epsilon={epsilon} each, sensitivity={sensitivity}"
        )
    lines.append("  claims: " + ", ".join(f"{cid} [{status}]" for cid, status in receipt.claim_statuses.items()))
    return lines


def demo(epsilon: Number, seed: Optional[int]) -> str:
    """The demo's report as text (the CLI prints it)."""
    eps = as_budget(epsilon)
    rng = as_rng(seed)
    data = load_builtin(DATA)
    test = stratified_folds(data.labels, 4, rng)[0]
    held = set(test)
    train = data.subset([i for i in range(len(data)) if i not in held])
    test_data = data.subset(test)
    actual = [test_data.label(i) for i in range(len(test_data))]

    def fit(name: str, params: Dict[str, Param]) -> TreeModel:
        spec = get_algorithm(name)
        return spec.fit(train, eps, spec.resolve(params), rng, Relation.ADD_REMOVE)

    private = fit("thesis-tree", {"quality": "max", "max_depth": DEPTH})
    baseline = fit("tree-baseline", {"max_depth": DEPTH})
    lines = [
        f"refdp demo: {describe_builtin(DATA)}",
        f"held out a stratified quarter: {len(train)} training rows, {len(test_data)} test rows",
        f"thesis-tree (sound, max operator, depth {DEPTH}), epsilon={eps}: "
        f"test accuracy {accuracy(private.predict(test_data), actual):.3f}",
        f"tree-baseline (NOT private, gini, depth {DEPTH}): "
        f"test accuracy {accuracy(baseline.predict(test_data), actual):.3f}",
        "some rules of the DP tree (from its released noisy counts only):",
    ]
    leaf_rules = [rule for rule in private.rules() if rule.is_leaf]
    lines.extend(f"  {rule}" for rule in leaf_rules[:RULES_SHOWN])
    if len(leaf_rules) > RULES_SHOWN:
        lines.append(f"  ... and {len(leaf_rules) - RULES_SHOWN} more leaves")
    lines.extend(_receipt_lines(private.receipt))
    lines.append(
        f"randomness: seed {seed} (replayable)"
        if seed is not None
        else "randomness: secure (pass --seed N to replay)"
    )
    return "\n".join(lines) + "\n"
