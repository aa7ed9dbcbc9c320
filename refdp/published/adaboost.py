"""CART-DPsAdaBoost as published: Jia and Qiu (IEEE Access 8, 2020), Algorithm 3 as printed.

Variant ``published`` of ``dp-adaboost`` (the sound learner is
:mod:`refdp.algorithms.adaboost`; claim ``adaboost-published-unsound``):
per-round budget eps_c = eps_p / T - ln(alpha_{t-1}), bootstrap of size n
drawn with the normalised weights D_t, noiseless Gini-minimising categorical
partitions and choice of attribute, continuous split points by the
exponential mechanism with eps_c / (2 (d + 1)(n_c + 1)) over the intervals
between the node's values (a float threshold inside), exact tau_t and
alpha_t, weights D_t(i) > theta / n set to 0, leaf noise
Laplace(max_i D_t(i) T ln(alpha_t) / eps_c) (none when that is <= 0); the
loop also stops at alpha_t = 0, where ln(alpha_t) is undefined.  The
receipt states the paper's eps_p, marked unsound, with its leaks.

``theta`` is in units of the initial weight, here 1/n (D_1(i) = 1/n).
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.adaboost import SPEC, check_attributes, fit_boosted, random_subspace, tree_weight
from refdp.algorithms.registry import Param, Variant, register_variant
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset
from refdp.engine import REFERENCE, Engine, TrainingView
from refdp.mechanisms import laplace_noise, sample_index
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource
from refdp.tree import Leaf, Node, ThresholdSplit, TreeModel, ValueSplit, route

__all__ = ["VARIANT", "fit_published", "published_partition"]


def _float_gini(table: Sequence[Sequence[float]]) -> float:
    """The unnormalised Gini of a float table (the published variant's arithmetic)."""
    total = 0.0
    for row in table:
        size = math.fsum(row)
        if size > 0:
            total += size - math.fsum(c * c for c in row) / size
    return -total


def _float_class_totals(view: TrainingView, rows: Sequence[int], weights: Sequence[float]) -> List[float]:
    totals = [0.0] * view.n_classes
    for i in rows:
        totals[view.labels[i]] += weights[i]
    return totals


_Interval = Tuple[int, int, float, float]
"""(attribute, value code, interval start, interval end); a categorical candidate has start = end = 0."""


def _interval_candidates(
    view: TrainingView, rows: Sequence[int], weights: Sequence[float], attributes: Sequence[int]
) -> Tuple[List[_Interval], List[float], List[float]]:
    """The published variant's splits: value-vs-rest pairs, and the intervals between the node's values.

    Categorical attribute a: one candidate per value v, base weight 1.
    Continuous attribute a with public range [lower, upper]: one candidate
    per interval between consecutive distinct values of the node (and the
    bounds), base weight ``length / (upper - lower)``; a threshold in
    ``(start, end]`` makes its split.  Its float threshold leaks the data
    values around it (claim ``float-threshold-leaks``).
    """
    total = _float_class_totals(view, rows, weights)
    candidates: List[_Interval] = []
    utilities: List[float] = []
    base: List[float] = []
    for a in attributes:
        attribute = view.schema.attributes[a]
        column = view.columns[a]
        if isinstance(attribute, CategoricalAttribute):
            table = [[0.0] * view.n_classes for _ in range(attribute.n_values)]
            for i in rows:
                table[int(column[i])][view.labels[i]] += weights[i]
            for v, row in enumerate(table):
                candidates.append((a, v, 0.0, 0.0))
                utilities.append(_float_gini([row, [t - r for t, r in zip(total, row)]]))
                base.append(1.0)
            continue
        assert isinstance(attribute, ContinuousAttribute)
        width = attribute.upper - attribute.lower
        order = sorted(rows, key=column.__getitem__)
        below = [0.0] * view.n_classes
        previous, position = attribute.lower, 0
        while True:
            value = float(column[order[position]]) if position < len(order) else attribute.upper
            if value > previous:
                above = [t - b for t, b in zip(total, below)]
                candidates.append((a, -1, previous, value))
                utilities.append(_float_gini([below, above]))
                base.append((value - previous) / width)
            if position >= len(order):
                break
            while position < len(order) and column[order[position]] == value:
                below[view.labels[order[position]]] += weights[order[position]]
                position += 1
            previous = value
    return candidates, utilities, base


def published_partition(table: Sequence[Sequence[float]]) -> int:
    """The paper's noiseless categorical partition: the value v whose ``a = v`` vs rest has least Gini.

    ``table[v]`` is the class counts of value v; ties go to the first value.
    A deterministic function of the data: not differentially private.
    """
    total = [math.fsum(column) for column in zip(*table)]
    scores = [_float_gini([row, [t - r for t, r in zip(total, row)]]) for row in table]
    return max(range(len(scores)), key=lambda v: (scores[v], -v))


def _threshold_in(start: float, end: float, rng: RandomSource) -> float:
    """A threshold uniform on (start, end] (a draw that rounds to ``start`` is redrawn)."""
    while True:
        t = min(start + rng.random() * (end - start), end)
        if t > start:
            return t


def _weighted_choice(utilities: Sequence[float], base: Sequence[float], coefficient: float, rng: RandomSource) -> int:
    """P[r] proportional to base_r exp(coefficient u_r), for any real coefficient (the paper's eps may be <= 0)."""
    logs = [math.log(b) + coefficient * u if b > 0 else -math.inf for u, b in zip(utilities, base)]
    top = max(logs)
    mass = [math.exp(x - top) for x in logs]
    total = math.fsum(mass)
    return sample_index([m / total for m in mass], rng)


class _PublishedRound:
    """Algorithm 1 on one bootstrap sample, as printed (unweighted counts of the sample)."""

    def __init__(self, view: TrainingView, k: int, eps_c: float, depth: int, rng: RandomSource) -> None:
        self.view = view
        self.k = k
        self.eps_bar = eps_c / (depth + 1)
        self.rng = rng
        self.unit = [1.0] * len(view.labels)

    def build(self, rows: List[int], depth: int) -> Node:
        schema = self.view.schema
        if depth == 0:
            return Leaf(tuple(_float_class_totals(self.view, rows, self.unit)))
        attributes = random_subspace(schema.n_attributes, self.k, self.rng)
        n_continuous = sum(1 for a in attributes if isinstance(schema.attributes[a], ContinuousAttribute))
        coefficient = self.eps_bar / (2 * (n_continuous + 1)) / (2 * 2)
        best: Optional[Tuple[float, _Interval]] = None
        for a in attributes:
            candidates, utilities, base = _interval_candidates(self.view, rows, self.unit, (a,))
            if isinstance(schema.attributes[a], CategoricalAttribute):
                table = [[0.0] * self.view.n_classes for _ in candidates]
                for i in rows:
                    table[int(self.view.columns[a][i])][self.view.labels[i]] += 1.0
                position = published_partition(table)
            else:
                position = _weighted_choice(utilities, base, coefficient, self.rng)
            if best is None or utilities[position] > best[0]:
                best = (utilities[position], candidates[position])
        assert best is not None
        a, v, start, end = best[1]
        column = self.view.columns[a]
        if v >= 0:
            return ValueSplit(
                a, v,
                self.build([i for i in rows if column[i] == v], depth - 1),
                self.build([i for i in rows if column[i] != v], depth - 1),
            )
        threshold = _threshold_in(start, end, self.rng)
        return ThresholdSplit(
            a, threshold,
            self.build([i for i in rows if column[i] < threshold], depth - 1),
            self.build([i for i in rows if column[i] >= threshold], depth - 1),
        )


def _add_leaf_noise(node: Node, scale: float, rng: RandomSource) -> Node:
    if isinstance(node, Leaf):
        if scale <= 0:
            return node
        return Leaf(tuple(float(c) + laplace_noise(scale, rng) for c in node.counts))
    if isinstance(node, ValueSplit):
        return ValueSplit(node.attribute, node.value, _add_leaf_noise(node.equal, scale, rng),
                          _add_leaf_noise(node.rest, scale, rng))
    assert isinstance(node, ThresholdSplit)
    return ThresholdSplit(node.attribute, node.threshold, _add_leaf_noise(node.below, scale, rng),
                          _add_leaf_noise(node.at_or_above, scale, rng))


_PUBLISHED_LEAKS = (
    "CART-DPsAdaBoost as published: the categorical partition and the choice of attribute minimise the "
    "Gini index without noise",
    "CART-DPsAdaBoost as published: the per-round budget eps_p/T - ln(alpha_t) and the leaf noise scale "
    "max(D_t(i)) T ln(alpha_t) / eps_c depend on the data (no noise at all when alpha_t <= 1)",
    "CART-DPsAdaBoost as published: tau_t and alpha_t are computed from the exact data and released; the "
    "normalised weights D_t(i) depend on every record",
)


def _published_rounds(
    data: Dataset, view: TrainingView, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource,
    ledger: Ledger, engine: Engine,
) -> Tuple[List[Node], List[float], Optional[int]]:
    """Algorithm 3's loop as printed (on the reference loops under either engine; no noisy size)."""
    T, depth, k = int(params["n_estimators"]), int(params["max_depth"]), int(params["n_features"])
    rows = list(view.rows)
    n = len(rows)
    theta = float(params["theta"]) / n if n else math.inf
    for leak in _PUBLISHED_LEAKS:
        ledger.record_leak(leak)
    D: Dict[int, float] = {i: 1.0 / n for i in rows}
    trees: List[Node] = []
    alphas: List[float] = []
    alpha_previous = 1.0
    for t in range(T):
        eps_c = float(epsilon) / T - math.log(alpha_previous)
        ledger.charge(
            label=f"round {t} (Algorithm 1, eps_c = eps_p/T - ln alpha)", mechanism="published-round",
            epsilon=epsilon / T, sensitivity=None, claims=("adaboost-published-unsound",),
            partition=(f"round {t}",), sound=False,
            note=f"the paper's eps_c was {eps_c!r}; its split, tau_t, alpha_t and leaf noise are not DP",
        )
        if n == 0:
            break
        cumulative: List[float] = []
        running = 0.0
        for i in rows:
            running += D[i]
            cumulative.append(running)
        sample = [rows[min(bisect.bisect_right(cumulative, rng.random() * running), n - 1)] for _ in range(n)]
        tree = _PublishedRound(view, k, eps_c, depth, rng).build(sample, depth)
        right = {i: route(tree, view.columns, i).prediction == view.labels[i] for i in rows}
        tau = math.fsum(D[i] for i in rows if not right[i]) / math.fsum(D.values())
        alpha = tree_weight(tau)
        if tau > 0.5 or alpha <= 0:
            # The paper breaks at tau_t > 1/2; at tau_t = 1/2, ln(alpha_t) (next round's budget) is undefined.
            break
        scale = max(D.values()) * T * math.log(alpha) / eps_c if eps_c != 0 else 0.0
        trees.append(_add_leaf_noise(tree, scale, rng))
        alphas.append(alpha)
        updated = {i: (D[i] * math.exp(-alpha if right[i] else alpha) if D[i] <= theta else 0.0) for i in rows}
        z = math.fsum(updated.values())
        if z <= 0:
            break
        D = {i: w / z for i, w in updated.items()}
        alpha_previous = alpha
    return trees, alphas, None


def fit_published(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train Algorithm 3 as printed with the paper's total budget ``epsilon`` (eps_p), marked unsound."""
    check_attributes(data.schema.n_attributes)
    return fit_boosted(data, epsilon, params, rng, relation, engine, _published_rounds)


VARIANT = Variant(
    "published", False,
    "Algorithm 3 as printed: noiseless categorical partition, budget eps_p/T - ln(alpha_t), "
    "leaf noise scale max(w) T ln(alpha_t)/eps_c, exact alpha_t",
    claims=("adaboost-published-unsound", "adaboost-sound", "tree-budget-plan"),
)

# The budget depends on the data: no re-derivation.
register_variant(SPEC.name, VARIANT, fit_published, None, ("adaboost-published-unsound",))
