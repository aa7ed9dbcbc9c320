"""The thesis tree: Novakovic (MSc thesis, Novi Sad 2019), Algorithm 2 and Listings 1-2.

Algorithm 2 (DiffPDTree), with total budget epsilon (the thesis's
varepsilon), maximal depth d, minimal sample threshold m_s and quality q
(max operator or Gini):

    eps = epsilon / (2(d+1) - 1)                           per query
    BuildDiffPDTree(D, A, d):
        N_{c_l} = noisy count of class c_l in D, l = 1..k  (one query, parallel over classes)
        N_c = the classes with N_{c_l} > 0;  N_n = sum_l N_{c_l}
        if A is empty or d = 0 or |N_c| <= 1 or N_n <= m_s:
            return a leaf with the counts N_{c_l}
        (A_opt, v_opt) = exponential mechanism over q, eps (one query)
        split D on A_opt = v_opt (categorical) or A_opt >= v_opt (continuous)
        recurse on both sides with d - 1 (a categorical A_opt removed from A)

Each node spends two queries and a leaf one, so a root-to-leaf path of a
full tree spends (2d + 1) eps = epsilon (claim ``thesis-tree-budget``).

Variants:

* ``sound`` (default): the text, soundly.  The noisy counts cover every
  class of the schema (discrete Laplace, exact); ``|N_c|`` counts the
  classes with a *positive* noisy count (the text's ``N_{c_l} != 0`` would
  never fail for continuous noise).  ONE exponential mechanism chooses the
  pair (attribute, split) among every value of every categorical attribute's
  public domain (value vs rest) and every threshold of every continuous
  attribute's public range ``[lower, upper]``: a base measure gives each
  categorical pair weight 1 and spreads weight 1 uniformly over each
  continuous range, so the range's intervals between the node's values
  weigh ``length / (upper - lower)`` and the threshold is then uniform in
  the chosen interval (claim ``continuous-split-exponential-mechanism``).
  A categorical attribute is removed on the ``equal`` side of its split,
  where it is constant, and stays on the ``rest`` side, whose other values
  it may still tell apart (Algorithm 2 removes it on both sides; keeping it
  lets the tree approach the non-private CART tree of tree-baseline's
  ``split=binary`` as epsilon grows, docs/results.md, issue 31); continuous
  ones stay, as in the thesis code, so that a range can be cut again.
* ``published``: Listings 1 (max operator) and 2 (Gini) as coded, marked
  unsound in the receipt (claims ``thesis-code-errata`` and
  ``thesis-gini-exp2-sensitivity``): attribute types read off the data (a
  continuous attribute with more than 20 distinct values is numeric,
  otherwise it is split by equality); for each attribute the best value
  among the values present in the node is chosen *without noise*; the
  exponential mechanism then picks among the attributes' best scores, and a
  score shared by two attributes always goes to the first; a split that
  leaves a side empty scores 0; the Gini uses ``exp2(m/n)`` where the text
  squares; class counts get Laplace noise only for the classes present in
  the node (an absent class is released as an exact 0); the stopping rule
  counts the classes present; and a leaf draws its counts a second time
  (the listing's ``Leaf`` calls ``class_count`` twice), which the budget
  never accounted for.

refdp's options of the sound variant: ``node_counts="leaves"`` (the
default) releases class counts at the leaves only (Algorithm 2's internal
counts only feed its stopping rule), so every split gets more budget;
``quality="auto"`` (the default) takes the Gini when the noisy size times
epsilon is at least 2000 and the max operator below; ``level_ratio``
reweights the levels; ``size_share`` buys a noisy size that caps the depth
(claim ``noisy-size-plan``); under add-remove the split's exponential
mechanism has no factor 2, the max operator's and the Gini's utilities
being monotone (claims ``split-quality-monotone``,
``exponential-mechanism-monotone``).

Under ``substitute`` a changed record moves between two classes and two
branches; the sound variant's per-query epsilon is epsilon / K with K the
substitute cost of a full tree (claim ``thesis-tree-budget``), so that the
receipt's total is epsilon under either relation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import repeat
from operator import truediv
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.derivation import (
    model_budget,
    check_plan_inputs,
    NO_RANDOMNESS,
    NOISY_SIZE,
    check_trees,
    check_voting,
    check_weights,
    fresh_ledger,
    grid_index,
    integer_counts,
    refuse,
    replay_size,
)
from refdp.algorithms.greedy import (
    grid_parameter,
    NodeCost,
    child_path,
    close_budget,
    plan_levels,
    plan_units,
    sample_threshold,
    threshold_conditions,
)
from refdp.algorithms.noisy_depth import DepthPlan, laplace_variance, plan_depth, size_parameters, size_share
from refdp.engine import REFERENCE, Engine, NodeCounts, Rows, ThresholdCandidates, TrainingView, class_counts
from refdp.scoring.kernels import exact_ratio_function, exact_threshold_ratios, score_function
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.algorithms.root_law import (
    TAIL,
    CountsLaw,
    PlanBranch,
    RootCountsLaw,
    RootSplitLaw,
    SplitCandidate,
    SplitLaw,
    mixed_counts,
    noisy_size_plans,
)
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import Threshold, ThresholdGrid, ceil_float
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import (
    discrete_laplace_cdf,
    discrete_laplace_pmf,
    exponential_charge,
    exponential_mechanism,
    histogram_charges,
    histogram_scale,
    laplace_mechanism,
)
from refdp.mechanisms.ratios import Ratio, Ratios
from refdp.privacy import Ledger, Partition, Relation, as_fraction, cell
from refdp.rng import RandomSource
from refdp.scoring import get_quality, monotone_under
from refdp.tree import Count, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit

__all__ = [
    "SPEC",
    "fit_thesis_tree",
    "derive_thesis_tree",
    "depth_plan",
    "stops",
    "root_split_law",
    "root_counts_law",

    "per_query_epsilon",
    "SOUND_INTERNAL",
    "SOUND_LEAF",
    "PUBLISHED_INTERNAL",
    "PUBLISHED_LEAF",
    "NUMERIC_DISTINCT_VALUES",
    "published_score",
    "published_best_value",
]

CLAIMS = (
    "noisy-size-plan",
    "exponential-mechanism-monotone",
    "split-quality-monotone",
    "float-threshold-leaks",
    "exact-inversion-sampler",
    "exponential-mechanism-exact-sampler",
    "exponential-mechanism-float-sampler",
    "thesis-tree-budget",
    "tree-budget-plan",
    "continuous-split-exponential-mechanism",
    "exponential-mechanism",
    "discrete-laplace-mechanism",
    "parallel-composition",
    "sequential-composition",
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "thesis-code-errata",
    "thesis-gini-exp2-sensitivity",
    "laplace-mechanism",
)

SOUND_INTERNAL = NodeCost(Fraction(2), Fraction(3))
"""A split node of the sound variant: class counts (1 unit; 2 for a record changing class) and the split (1)."""

SOUND_LEAF = NodeCost(Fraction(1), Fraction(2))
"""A leaf of the sound variant: its class counts only."""

SPLIT_ONLY = NodeCost(Fraction(1), Fraction(1))
"""A split node that releases no counts (``node_counts="leaves"``): the split only."""

NODE_COUNTS = ("every-node", "leaves")
"""Where the sound variant releases class counts: at every node (Algorithm 2) or at the leaves only."""

PUBLISHED_INTERNAL = SOUND_INTERNAL
"""A split node as coded: the first draw of the counts and the split."""

PUBLISHED_LEAF = NodeCost(Fraction(2), Fraction(4))
"""A leaf as coded: two independent draws of the class counts, both released."""

NUMERIC_DISTINCT_VALUES = 20
"""Listing 1, ``fit``: an attribute with more distinct values than this in the data is numeric."""


def per_query_epsilon(
    epsilon: Fraction, depth: int, relation: Relation, variant: str = "sound", node_counts: str = "every-node"
) -> Fraction:
    """The budget of one query: epsilon / (2(d+1) - 1) as published, or epsilon / K under substitute.

    The published variant uses the thesis's formula under both relations
    (the code knows no relation); the sound variant divides by the cost of a
    full tree under the relation in force (:func:`plan_units`), which is
    2d + 1 under add-remove and 4d + 1 (2 for d = 0) under substitute; with
    ``node_counts="leaves"`` a split node costs its split only: d + 1 under
    add-remove, 2d + 1 (2 for d = 0) under substitute, where a record moved
    between two children costs a removal in one subtree and an addition in
    the other.
    """
    if variant == "published":
        return epsilon / (2 * (depth + 1) - 1)
    internal = SPLIT_ONLY if node_counts == "leaves" else SOUND_INTERNAL
    return epsilon / plan_units(internal, SOUND_LEAF, depth, relation)


def _scaled(cost: NodeCost, factor: Fraction) -> NodeCost:
    return NodeCost(cost.one * factor, cost.two * factor)


def level_epsilons(
    budget: Fraction, depth: int, relation: Relation, node_counts: str, ratio: Fraction
) -> Tuple[Fraction, ...]:
    """The per-query epsilon of each level 0 (root) .. depth: u r^l, with u such that a full tree costs ``budget``.

    With r = 1 every level gets :func:`per_query_epsilon`.  With r > 1 the
    deeper levels, whose nodes hold fewer rows, get more; with r < 1 the
    upper levels, whose splits matter to more rows.  The plan is
    :func:`~refdp.algorithms.greedy.plan_levels` (claim ``tree-budget-plan``).
    Every realised tree costs at most the plan for any r > 0: a leaf that
    stops for a public reason (no attribute left) releases its counts with
    the leaf level's epsilon, which the full subtree reserved for it also
    spends at its leaves; a node that stops on its own noisy counts has
    spent only part of its level's reservation.
    """
    weights = [ratio**level for level in range(depth + 1)]
    internal = SPLIT_ONLY if node_counts == "leaves" else SOUND_INTERNAL
    unit = budget / plan_levels([_scaled(internal, w) for w in weights[:-1]], _scaled(SOUND_LEAF, weights[-1]), relation)
    return tuple(unit * w for w in weights)


SPLIT_LABEL = "split (A_opt, v_opt)"
PLANTED_LABEL = "split (A_opt, v_opt), threshold interpolated between data values"
PLANTED_NOTE = "planted fault: the released float threshold is computed from data values"
COUNTS_LABEL = "class counts N_c"


def stops(noisy: Sequence[Count], min_samples: int) -> bool:
    """Algorithm 2's stopping rule on a node's noisy class counts: |N_c| <= 1 positive class, or N_n <= m_s.

    >>> stops([3, 0], 5), stops([30, 2], 5)
    (True, False)
    """
    return sum(1 for c in noisy if c > 0) <= 1 or sum(noisy) <= min_samples


AUTO_GINI_SCALE = 2000
"""``quality=auto`` takes the Gini when N~ epsilon is at least this, else the max operator (docs/results.md)."""


def auto_quality(noisy_size: int, epsilon: Fraction) -> str:
    """The quality ``quality=auto`` uses: Gini on large N~ epsilon, the max operator on small.

    The max operator's sensitivity is half the Gini's, which decides on
    nodes of a few hundred records against noise of scale 1/epsilon; on
    large nodes the Gini's finer ranking of splits wins (5-fold CV on the
    built-in data at epsilon 0.1, 1 and 10, docs/results.md).  A function
    of the released noisy size and epsilon only (claim ``noisy-size-plan``).
    """
    return "gini" if noisy_size * epsilon >= AUTO_GINI_SCALE else "max"


@dataclass(frozen=True)
class _TreePlan:
    """The sound variants' budget and quality once the depth plan is made (claims ``tree-budget-plan``, ``noisy-size-plan``)."""

    level_eps: Tuple[Fraction, ...]
    """The per-query epsilon of each level, root first (:func:`level_epsilons`)."""
    quality: str
    """The quality, ``auto`` resolved (:func:`auto_quality`)."""

    @property
    def depth(self) -> int:
        return len(self.level_eps) - 1

    def at(self, remaining: int) -> Fraction:
        """The per-query epsilon of a node with ``remaining`` levels below it."""
        return self.level_eps[self.depth - remaining]

    def counts_epsilon(self, remaining: int, leaf: bool) -> Fraction:
        """The epsilon of a node's class counts: its level's, or the deepest level's at a leaf.

        A leaf's counts get the deepest level's epsilon wherever the leaf is,
        so that no leaf costs more than the full subtree the plan reserved
        for it (claim ``tree-budget-plan``).
        """
        return self.level_eps[-1] if leaf else self.at(remaining)


def _tree_plan(plan: DepthPlan, epsilon: Fraction, params: Mapping[str, Param], relation: Relation) -> _TreePlan:
    """The levels' epsilons and the quality of a sound tree grown to ``plan``'s depth with its budget."""
    ratio = as_fraction(params["level_ratio"], "level_ratio")
    level_eps = level_epsilons(plan.epsilon, plan.depth, relation, str(params["node_counts"]), ratio)
    quality = str(params["quality"])
    if quality == "auto":
        # Without a noisy size (size_share=0) the data's size is private: the public choice is max.
        quality = "max" if plan.noisy_size is None else auto_quality(plan.noisy_size, epsilon)
    return _TreePlan(level_eps, quality)


def _planned_total(epsilon: Fraction, depth: int, relation: Relation) -> Fraction:
    """The published variant's plan: its per-query epsilon times the cost of a full tree as coded."""
    return per_query_epsilon(epsilon, depth, relation, "published") * plan_units(
        PUBLISHED_INTERNAL, PUBLISHED_LEAF, depth, relation
    )


def _value_vs_rest(
    counts: NodeCounts, schema: Schema, rows: Rows, attributes: Tuple[int, ...], total: Sequence[int]
) -> Iterator[Tuple[int, int, List[Sequence[int]]]]:
    """(a, v, [class counts of value v, of the rest]) for every value of each categorical attribute a of ``attributes``."""
    for a in attributes:
        attribute = schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            for v, row in enumerate(counts.value_table(rows, a, attribute.n_values)):
                yield a, v, [row, [t - r for t, r in zip(total, row)]]


class _Candidates:
    """The sound variant's candidate splits at a node, with their utilities, base weights and calibration.

    Every (attribute, value) pair of the public domain of each categorical
    attribute (value vs rest), then every point of the public grid of each
    continuous one, as ``(attribute, value code)`` and ``(attribute, k)``
    for grid point ``g_k``.  ``sensitivity`` is the quality's under the
    relation; ``monotone`` says the exponential mechanism drops its factor 2
    (under add-remove the max operator's and the Gini's utilities of every
    candidate move one way when a record joins the node: claim
    ``split-quality-monotone``).
    """

    def __init__(
        self, counts: Optional[NodeCounts], schema: Schema, quality: str, cells: int, relation: Relation
    ) -> None:
        self.counts = counts
        self.schema = schema
        scoring = get_quality(quality)
        self.quality = scoring.name
        self.claim = scoring.claim
        self.sensitivity = scoring.sensitivity(relation)
        self.monotone = monotone_under(quality, relation)
        self.score = exact_ratio_function(quality)
        self.threshold_scores = exact_threshold_ratios(quality)
        self.cells = cells
        self.grids: Dict[int, ThresholdGrid] = {
            a: ThresholdGrid.of(attribute, cells)
            for a, attribute in enumerate(schema.attributes)
            if isinstance(attribute, ContinuousAttribute)
        }
        self.split_claims: Tuple[str, ...] = (
            ("exponential-mechanism", self.claim)
            + (("continuous-split-exponential-mechanism",) if self.grids else ())
            + (("split-quality-monotone",) if self.monotone else ())
        )
        self.planted_claims = ("exponential-mechanism", self.claim, "float-threshold-leaks")

    def __call__(
        self, rows: Rows, attributes: Tuple[int, ...], total: Sequence[int]
    ) -> Tuple[List[Tuple[int, int]], Ratios, List[int]]:
        """(pairs, utilities, base weights) at the node holding ``rows`` (class counts ``total``)."""
        assert self.counts is not None, "candidates without counts describe the calibration only"
        pairs: List[Tuple[int, int]] = []
        utilities: List[Ratio] = []
        weights: List[int] = []
        # A categorical pair weighs as much as a whole continuous range: (cells - 1) grid points of weight 1.
        pair_weight = self.cells - 1
        for a, v, table in _value_vs_rest(self.counts, self.schema, rows, attributes, total):
            pairs.append((a, v))
            utilities.append(self.score(table))
            weights.append(pair_weight)
        for a in attributes:
            grid = self.grids.get(a)
            if grid is not None:
                scores = self.threshold_scores(self.counts.grid_table(rows, a, grid))
                pairs.extend(zip(repeat(a), range(1, len(scores) + 1)))
                utilities.extend(scores)
                weights.extend([1] * len(scores))
        return pairs, Ratios(tuple(utilities)), weights


class _SoundBuilder:
    """Algorithm 2 with noise on every class and one exponential mechanism over the public domain.

    ``planted`` runs the float-threshold fault instead of the public grid:
    intervals between the node's values weighted by their length, the float
    sampler, and a float threshold drawn inside the chosen interval.
    """

    def __init__(
        self,
        counts: NodeCounts,
        engine: Engine,
        schema: Schema,
        params: Mapping[str, Param],
        plan: _TreePlan,
        rng: RandomSource,
        ledger: Ledger,
        planted: bool = False,
    ) -> None:
        self.counts = counts
        self.exponential = engine.exponential
        self.histogram = engine.histogram
        self.schema = schema
        self.plan = plan
        self.eps = plan.at(plan.depth)
        self.rng = rng
        self.ledger = ledger
        self.planted = planted
        self.leaves_only = params["node_counts"] == "leaves"
        self.min_samples = int(params["min_samples"])
        self.candidates = _Candidates(counts, schema, plan.quality, int(params["grid"]), ledger.relation)
        self.quality = self.candidates.quality
        self.quality_claim = self.candidates.claim
        self.sensitivity = self.candidates.sensitivity
        self.monotone = self.candidates.monotone
        self.grids = self.candidates.grids

    def _counts(self, total: Sequence[int], path: Partition, depth: int, leaf: bool) -> List[Count]:
        return list(self.histogram(
            total, epsilon=self.plan.counts_epsilon(depth, leaf), rng=self.rng, ledger=self.ledger,
            label=COUNTS_LABEL, partition=path, names=self.schema.classes,
        ))

    def build(self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        # ``depth`` levels remain below this node; its queries get its level's epsilon.
        self.eps = self.plan.at(depth)
        total = self.counts.class_counts(rows)
        noisy: Optional[List[Count]] = None
        if not attributes or depth == 0:
            return Leaf(tuple(self._counts(total, path, depth, leaf=True)))
        if not self.leaves_only:
            noisy = self._counts(total, path, depth, leaf=False)
            if stops(noisy, self.min_samples):
                return Leaf(tuple(noisy))
        if self.planted:
            return self._planted_split(rows, attributes, depth, path, total, noisy)
        pairs, utilities, weights = self.candidates(rows, attributes, total)
        choice = exponential_mechanism(
            utilities, epsilon=self.eps, sensitivity=self.sensitivity, rng=self.rng, ledger=self.ledger,
            label=SPLIT_LABEL, partition=path, claims=self.candidates.split_claims,
            base_weights=weights, exact=True, monotone=self.monotone,
        )
        a, v = pairs[choice]
        grid = self.grids.get(a)
        if grid is None:
            return self._value_split(rows, attributes, depth, path, a, v, noisy)
        return self._threshold_split(rows, attributes, depth, path, a, grid.point(v), noisy)

    def _planted_split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        total: Sequence[int], noisy: Optional[Sequence[Count]],
    ) -> Node:
        pairs: List[Tuple[int, int]] = []
        intervals: List[Tuple[int, ThresholdCandidates]] = []
        utilities: List[float] = []
        weights: List[float] = []
        score = score_function(self.quality)
        for a, v, table in _value_vs_rest(self.counts, self.schema, rows, attributes, total):
            pairs.append((a, v))
            utilities.append(score(table))
            weights.append(1.0)
        for a in attributes:
            attribute = self.schema.attributes[a]
            if isinstance(attribute, ContinuousAttribute):
                width = attribute.upper - attribute.lower
                candidates = self.counts.thresholds(rows, a, attribute.lower, attribute.upper)
                intervals.append((a, candidates))
                utilities.extend(candidates.scores(self.quality))
                weights.extend(map(truediv, candidates.lengths(), repeat(width)))
        choice = self.exponential(
            utilities, epsilon=self.eps, sensitivity=self.sensitivity, rng=self.rng, ledger=self.ledger,
            label=PLANTED_LABEL, partition=path, claims=self.candidates.planted_claims,
            base_weights=weights, sound=False, note=PLANTED_NOTE,
        )
        if choice < len(pairs):
            a, v = pairs[choice]
            return self._value_split(rows, attributes, depth, path, a, v, noisy)
        choice -= len(pairs)
        for a, candidates in intervals:
            if choice < len(candidates):
                threshold = sample_threshold(candidates.interval(choice), self.rng)
                return self._threshold_split(rows, attributes, depth, path, a, threshold, noisy)
            choice -= len(candidates)
        raise AssertionError("the exponential mechanism returned an index past the candidates")

    def _value_split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        a: int, v: int, noisy: Optional[Sequence[Count]],
    ) -> Node:
        attribute = self.schema.attributes[a]
        assert isinstance(attribute, CategoricalAttribute)
        equal, rest = self.counts.split_value(rows, a, v)
        # Only the equal side has learnt all of a; the rest side may still tell its other values apart.
        remaining = tuple(b for b in attributes if b != a)
        name, value = attribute.name, attribute.values[v]
        return ValueSplit(
            a, v,
            self.build(equal, remaining, depth - 1, child_path(path, f"{name}={value}")),
            self.build(rest, attributes, depth - 1, child_path(path, f"{name}!={value}")),
            counts=None if noisy is None else tuple(noisy),
        )

    def _threshold_split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        a: int, threshold: Threshold, noisy: Optional[Sequence[Count]],
    ) -> Node:
        attribute = self.schema.attributes[a]
        assert isinstance(attribute, ContinuousAttribute)
        below, above = self.counts.split_threshold(rows, a, ceil_float(threshold))
        low, high = threshold_conditions(attribute, threshold)
        return ThresholdSplit(
            a, threshold,
            self.build(below, attributes, depth - 1, child_path(path, low)),
            self.build(above, attributes, depth - 1, child_path(path, high)),
            counts=None if noisy is None else tuple(noisy),
        )


def published_score(quality: str, match: Sequence[int], rest: Sequence[int]) -> float:
    """The listings' quality of a binary split (``match`` = rows meeting the question).

    ``max_operator_value`` (Listing 1): ``max_l n_{1_l} + max_l n_{2_l}``;
    ``gini_index_value`` (Listing 2): ``-(n_1 gini_ent(D_1) + n_2 gini_ent(D_2))``
    with ``gini_ent(X) = 1 - sum over the classes present in X of exp2(m/n)``.
    Both return 0 when a side is empty.  Neither has the sensitivity the
    thesis claims (claims ``thesis-code-errata``, ``thesis-gini-exp2-sensitivity``).
    """
    n1, n2 = sum(match), sum(rest)
    if n1 == 0 or n2 == 0:
        return 0.0
    if quality == "max":
        return float(max(match) + max(rest))

    def gini_ent(counts: Sequence[int], n: int) -> float:
        return 1.0 - sum(math.pow(2.0, m / n) for m in counts if m != 0)

    return -(n1 * gini_ent(match, n1) + n2 * gini_ent(rest, n2))


def published_best_value(
    quality: str, candidates: Sequence[Tuple[float, Sequence[int]]], total: Sequence[int]
) -> Tuple[int, float]:
    """The listings' ``max_operator`` / ``gini_index``: the first candidate of highest score, no noise.

    ``candidates`` are (value, counts of the rows matching the question) in
    the order of ``np.unique`` (ascending); returns (position, score).
    """
    best, best_score = 0, -math.inf
    for position, (_, match) in enumerate(candidates):
        score = published_score(quality, match, [t - m for t, m in zip(total, match)])
        if score > best_score:
            best, best_score = position, score
    return best, best_score


class _PublishedBuilder:
    """Listings 1-2 as coded; every data-dependent step is marked unsound in the ledger."""

    def __init__(
        self,
        view: TrainingView,
        params: Mapping[str, Param],
        epsilon: Fraction,
        max_depth: int,
        rng: RandomSource,
        ledger: Ledger,
    ) -> None:
        self.view = view
        self.schema = view.schema
        self.eps = epsilon
        self.max_depth = max_depth
        self.rng = rng
        self.ledger = ledger
        self.min_samples = int(params["min_samples"])
        self.quality = "gini" if params["quality"] == "gini" else "max"
        # The listings' constants: epsilon/2 "sensitivity of max operator is 1", epsilon/4 for Gini.
        self.claimed_sensitivity = 1 if self.quality == "max" else 2
        self.class_order = sorted(range(view.n_classes), key=lambda c: self.schema.classes[c])
        self.numeric = self._attribute_types()

    def _attribute_types(self) -> Dict[int, bool]:
        numeric: Dict[int, bool] = {}
        for a, attribute in enumerate(self.schema.attributes):
            if isinstance(attribute, ContinuousAttribute):
                column = self.view.columns[a]
                distinct = {column[i] for i in self.view.rows}
                numeric[a] = len(distinct) > NUMERIC_DISTINCT_VALUES
            else:
                numeric[a] = False
        self.ledger.record_leak(
            "thesis code: attribute types read off the training data (a continuous attribute with "
            f"more than {NUMERIC_DISTINCT_VALUES} distinct values is split by threshold, otherwise by equality)"
        )
        self.ledger.record_leak(
            "thesis code: the split value of every attribute is the argmax of the quality over the "
            "values present in the node, chosen without noise and released as the split (a threshold "
            "is a training value, released exactly)"
        )
        self.ledger.record_leak(
            "thesis code: class counts are noised only for the classes present in a node; an absent "
            "class is released as an exact 0 and the stopping rule |N_c| = 1 counts the classes present"
        )
        return numeric

    def _draw(self, rows: Sequence[int], path: Partition, label: str) -> List[float]:
        """``class_count``: Laplace(1/eps) on the count of every class present in ``rows``."""
        counts = class_counts(self.view, rows)
        released = [0.0] * self.view.n_classes
        for c in self.class_order:
            if counts[c] > 0:
                released[c] = laplace_mechanism(
                    counts[c], sensitivity=1, epsilon=self.eps, rng=self.rng, ledger=self.ledger,
                    label=label, partition=path + (cell("class", self.schema.classes[c]),),
                    claims=("laplace-mechanism", "parallel-composition", "thesis-code-errata"),
                    sound=False,
                )
        return released

    def build(self, rows: List[int], attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        if not rows:
            # The listing crashes here (max() of an empty class dict); refdp returns an empty leaf.
            return Leaf((0.0,) * self.view.n_classes)
        present = sum(1 for c in class_counts(self.view, rows) if c > 0)
        first = self._draw(rows, path, "class_count (stopping rule)")
        if depth == self.max_depth or not attributes or sum(first) <= self.min_samples or present == 1:
            return Leaf(tuple(self._draw(rows, path, "class_count (leaf, second draw)")))
        values: List[Tuple[float, bool]] = []
        evals: List[float] = []
        for a in attributes:
            value, score, is_threshold = self._best_split_of(rows, a)
            values.append((value, is_threshold))
            evals.append(score)
        drawn = exponential_mechanism(
            evals, epsilon=self.eps, sensitivity=self.claimed_sensitivity, rng=self.rng,
            ledger=self.ledger, label="Best_split", partition=path,
            claims=("exponential-mechanism", "thesis-code-errata", "thesis-gini-exp2-sensitivity"),
            sound=False,
            note="noiseless best value per attribute; equal scores go to the first attribute; "
            "degenerate splits score 0 (and exp2 Gini): the claimed sensitivity does not hold",
        )
        chosen = evals.index(evals[drawn])  # Listing 1: att = evals.index(max_choise)
        a = attributes[chosen]
        value, is_threshold = values[chosen]
        column = self.view.columns[a]
        attribute = self.schema.attributes[a]
        if is_threshold:
            match = [i for i in rows if column[i] >= value]
            rest = [i for i in rows if column[i] < value]
        else:
            match = [i for i in rows if column[i] == value]
            rest = [i for i in rows if column[i] != value]
        # Listing 1, build_tree: a categorical ('cat') attribute's column is deleted after use.
        remaining = attributes if is_threshold else tuple(b for b in attributes if b != a)
        if isinstance(attribute, CategoricalAttribute):
            code = int(value)
            name, shown = attribute.name, attribute.values[code]
            left = self.build(match, remaining, depth + 1, child_path(path, f"{name}={shown}"))
            right = self.build(rest, remaining, depth + 1, child_path(path, f"{name}!={shown}"))
            return ValueSplit(a, code, left, right)
        if is_threshold:
            low, high = threshold_conditions(attribute, value)
            left = self.build(match, remaining, depth + 1, child_path(path, high))
            right = self.build(rest, remaining, depth + 1, child_path(path, low))
            return ThresholdSplit(a, value, right, left)
        # Equality on a continuous value: x < v or x >= nextafter(v) is the rest, v <= x < nextafter(v) is v.
        left = self.build(match, remaining, depth + 1, child_path(path, f"{attribute.name}=={value!r}"))
        right = self.build(rest, remaining, depth + 1, child_path(path, f"{attribute.name}!={value!r}"))
        upper = math.nextafter(value, math.inf)
        return ThresholdSplit(a, value, right, ThresholdSplit(a, upper, left, right))

    def _best_split_of(self, rows: Sequence[int], a: int) -> Tuple[float, float, bool]:
        """(value, score, is_threshold) of ``max_operator`` / ``gini_index`` for attribute ``a``."""
        column = self.view.columns[a]
        labels = self.view.labels
        total = class_counts(self.view, rows)
        by_value: Dict[float, List[int]] = {}
        for i in rows:
            counts = by_value.get(column[i])
            if counts is None:
                counts = by_value[column[i]] = [0] * self.view.n_classes
            counts[labels[i]] += 1
        attribute = self.schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            # np.unique on the raw strings: the present values in lexicographic order.
            ordered = sorted(by_value, key=lambda code: attribute.values[int(code)])
        else:
            ordered = sorted(by_value)
        if self.numeric[a]:
            # Question: x >= v, so the matching rows are those at v or above.
            candidates: List[Tuple[float, Sequence[int]]] = []
            above = list(total)
            for v in ordered:
                candidates.append((v, list(above)))
                above = [x - y for x, y in zip(above, by_value[v])]
        else:
            candidates = [(v, by_value[v]) for v in ordered]
        position, score = published_best_value(self.quality, candidates, total)
        return candidates[position][0], score, self.numeric[a]


def fit_thesis_tree(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train the thesis tree (Algorithm 2) with total budget ``epsilon``.

    The sound variants first spend ``size_share`` of epsilon on a noisy size
    of the data that caps the depth (:mod:`refdp.algorithms.noisy_depth`,
    claim ``noisy-size-plan``); the tree gets the rest.
    """
    depth = int(params["max_depth"])
    variant = str(params["variant"])
    attributes = tuple(range(data.schema.n_attributes))
    ledger = start_ledger(data, relation)
    root: Node
    if variant == "published":
        eps = per_query_epsilon(epsilon, depth, relation, variant)
        # The listings' per-value scans stay on the reference loops under either engine.
        view = TrainingView.of(data)
        root = _PublishedBuilder(view, params, eps, depth, rng, ledger).build(list(view.rows), attributes, 0, ())
        close_budget(ledger, _planned_total(epsilon, depth, relation), BUDGET_CLAIMS)
        return finish_model(SPEC.name, data, params, [root], ledger, budget=epsilon)
    plan = depth_plan(data.schema, epsilon, params, relation, len(data), engine, rng, ledger)
    planted = variant == "float-threshold"
    # The planted fault's interval candidates are the reference engine's only.
    counts = (REFERENCE if planted else engine).counts(data)
    tree = _tree_plan(plan, epsilon, params, relation)
    builder = _SoundBuilder(counts, engine, data.schema, params, tree, rng, ledger, planted)
    root = builder.build(counts.root(), attributes, plan.depth, ())
    # The noisy size and a full tree of the chosen depth together cost epsilon exactly.
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return finish_model(
        SPEC.name, data, params, [root], ledger, budget=epsilon, plan_inputs={NOISY_SIZE: plan.noisy_size}
    )


BUDGET_CLAIMS = ("tree-budget-plan", "thesis-tree-budget")


def depth_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The sound variants' depth: a noisy size of the ``size`` rows (charged to ``ledger``) caps max_depth.

    A function of public values and the released noisy size only: a
    verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> params = get_algorithm("thesis-tree").resolve({"size_share": 0})
    >>> depth_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...            Ledger()).depth
    6
    """
    node_counts = str(params["node_counts"])
    ratio = as_fraction(params["level_ratio"], "level_ratio")
    share, sigmas = size_share(params)
    plan = plan_depth(
        size, epsilon, share, sigmas, int(params["max_depth"]), schema.n_classes,
        leaves=lambda d: Fraction(2) ** d,
        variance=lambda d, left: laplace_variance(level_epsilons(left, d, relation, node_counts, ratio)[-1]),
        engine=engine, rng=rng, ledger=ledger,
    )
    if plan.noisy_size is None:
        return plan
    scale = as_fraction(params["split_scale"], "split_scale")
    depth = signal_depth(
        plan.noisy_size, plan.epsilon, scale, plan.depth, schema.n_classes, relation, node_counts, ratio
    )
    return DepthPlan(depth, plan.epsilon, plan.noisy_size)


def signal_depth(
    noisy_size: int, budget: Fraction, scale: Fraction, depth: int, n_classes: int, relation: Relation,
    node_counts: str, ratio: Fraction,
) -> int:
    """The deepest d <= ``depth`` whose deepest splits still see their data: eps_{d-1} N~ / 2^(d-1) >= K.

    A split's Gini or max-operator utilities differ by about the rows of its
    node times a share; the exponential mechanism tells them apart only when
    its epsilon times that many rows is large.  Nodes of level l (root 0)
    hold N~ / 2^l rows on average, so below the depth where the level's
    epsilon times N~ / 2^l falls under K (``split_scale``) the splits are
    close to uniform draws that only spend budget and cut the leaves.  The
    cap never goes below the depth that can give each of the |C| classes a
    leaf, ceil(log2 |C|) (at least 1), nor above ``depth``.  A function of
    the released N~ and public values (claim ``noisy-size-plan``); K = 0
    caps nothing.

    >>> signal_depth(26000, Fraction(95, 1000), Fraction(100), 6, 2, Relation.ADD_REMOVE, "leaves", Fraction(1))
    3
    >>> signal_depth(26000, Fraction(95, 100), Fraction(100), 6, 2, Relation.ADD_REMOVE, "leaves", Fraction(1))
    6
    >>> signal_depth(300, Fraction(1), Fraction(100), 6, 3, Relation.ADD_REMOVE, "leaves", Fraction(1))
    2
    """
    floor = min(depth, max(1, (n_classes - 1).bit_length()))
    if scale == 0:
        return depth
    for d in range(depth, floor, -1):
        if level_epsilons(budget, d, relation, node_counts, ratio)[d - 1] * noisy_size >= scale * 2 ** (d - 1):
            return d
    return floor


def derive_thesis_tree(model: TreeModel) -> Optional[Ledger]:
    """The charges of a sound (or float-threshold) tree's plan, node by node from the released tree.

    The depth plan is replayed with the released noisy size; each node of
    the released tree gets the charges its builder makes at its level: the
    class counts of a leaf (the deepest level's epsilon, or its own level's
    where it stopped on them), the counts of an inner node under
    ``node_counts=every-node``, the split's exponential mechanism; then the
    reserve of the levels not built.  The tree must be one the builder can
    release: value-vs-rest splits on categorical attributes that no equal
    side of the path has used, thresholds on the public grid (inside the public range for the
    planted fault), a leaf only where the plan stops, discrete Laplace
    counts (whole numbers), one tree of weight 1.  The published variant's
    charges depend on the data (noise only on the classes present): None.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("thesis-tree", load("vote"), 1, rng=1)
    >>> derive_thesis_tree(model).charges == model.receipt.charges
    True
    """
    params, schema = model.params, model.schema
    variant = str(params["variant"])
    if variant == "published":
        return None
    check_trees(model, 1)
    check_weights(model, (1.0,))
    check_voting(model, "vote")
    integer_counts(model, "discrete Laplace class counts")
    epsilon, ledger = model_budget(model), fresh_ledger(model)
    plan = depth_plan(schema, epsilon, params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    tree = _tree_plan(plan, epsilon, params, ledger.relation)
    candidates = _Candidates(None, schema, tree.quality, int(params["grid"]), ledger.relation)
    _Rederivation(schema, params, tree, candidates, variant == "float-threshold", ledger).walk(
        model.root, tuple(range(schema.n_attributes)), tree.depth, ()
    )
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


class _Rederivation:
    """:class:`_SoundBuilder`'s charges re-issued along a released tree (see :func:`derive_thesis_tree`)."""

    def __init__(
        self, schema: Schema, params: Mapping[str, Param], plan: _TreePlan, candidates: _Candidates, planted: bool,
        ledger: Ledger,
    ) -> None:
        self.schema = schema
        self.plan = plan
        self.candidates = candidates
        self.planted = planted
        self.ledger = ledger
        self.leaves_only = params["node_counts"] == "leaves"
        self.min_samples = int(params["min_samples"])

    def _counts(self, path: Partition, depth: int, leaf: bool) -> None:
        for charge in histogram_charges(
            epsilon=self.plan.counts_epsilon(depth, leaf), label=COUNTS_LABEL, partition=path,
            names=self.schema.classes,
        ):
            self.ledger.record(charge)

    def walk(self, node: Node, attributes: Tuple[int, ...], depth: int, path: Partition) -> None:
        where = "/".join(path) or "the root"
        if not attributes or depth == 0:
            if not isinstance(node, Leaf):
                refuse(f"the tree splits at {where}, where its plan of depth {self.plan.depth} has a leaf")
            self._counts(path, depth, leaf=True)
            return
        if self.leaves_only:
            if isinstance(node, Leaf) or node.counts is not None:
                refuse(
                    f"the tree has {'a leaf' if isinstance(node, Leaf) else 'inner counts'} at {where}; with "
                    "node_counts=leaves every node above the planned depth splits and releases no counts"
                )
        else:
            counts = node.counts
            if counts is None:
                refuse(f"the split at {where} releases no counts, which node_counts=every-node releases at every node")
            self._counts(path, depth, leaf=False)
            if isinstance(node, Leaf) != stops(counts, self.min_samples):
                refuse(
                    f"the node at {where} {'stops' if isinstance(node, Leaf) else 'splits'} on the counts "
                    f"{list(counts)}, where the stopping rule (min_samples={self.min_samples}) "
                    f"{'splits' if isinstance(node, Leaf) else 'stops'}"
                )
            if isinstance(node, Leaf):
                return
        eps = self.plan.at(depth)
        rule = self.candidates
        if self.planted:
            self.ledger.record(exponential_charge(
                epsilon=eps, sensitivity=rule.sensitivity, label=PLANTED_LABEL, partition=path,
                claims=rule.planted_claims, sound=False, note=PLANTED_NOTE,
            ))
        else:
            self.ledger.record(exponential_charge(
                epsilon=eps, sensitivity=rule.sensitivity, label=SPLIT_LABEL, partition=path,
                claims=rule.split_claims, exact=True, monotone=rule.monotone,
            ))
        if isinstance(node, ValueSplit) and node.attribute in attributes:
            attribute = self.schema.attributes[node.attribute]
            assert isinstance(attribute, CategoricalAttribute)
            name, value = attribute.name, attribute.values[node.value]
            remaining = tuple(b for b in attributes if b != node.attribute)
            self.walk(node.equal, remaining, depth - 1, child_path(path, f"{name}={value}"))
            self.walk(node.rest, attributes, depth - 1, child_path(path, f"{name}!={value}"))
            return
        if not isinstance(node, ThresholdSplit):
            refuse(
                f"the node at {where} is a {type(node).__name__} on an attribute its path has used; the thesis tree "
                "splits value vs rest on a categorical attribute no equal side of its path has used, or at a "
                "threshold"
            )
        attribute = self.schema.attributes[node.attribute]
        assert isinstance(attribute, ContinuousAttribute)
        threshold = node.threshold
        if self.planted:
            if not (isinstance(threshold, float) and attribute.lower < threshold <= attribute.upper):
                refuse(f"the threshold {threshold} at {where} lies outside the public range of {attribute.name!r}")
        else:
            grid_index(self.candidates.grids[node.attribute], threshold, f"the split on {attribute.name!r} at {where}")
        low, high = threshold_conditions(attribute, threshold)
        self.walk(node.below, attributes, depth - 1, child_path(path, low))
        self.walk(node.at_or_above, attributes, depth - 1, child_path(path, high))


def _plans(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, what: str
) -> Tuple[List[Tuple[_TreePlan, float]], Optional[Fraction]]:
    """The sound variant's tree plans (levels' epsilons and quality) with their probabilities over N~."""
    if params["variant"] != "sound":
        raise InvalidParameterError(
            f"the law of thesis-tree's {what} is known for variant=sound only, got variant={params['variant']}"
        )

    def plan(engine: Engine) -> _TreePlan:
        made = depth_plan(data.schema, epsilon, params, relation, 0, engine, NO_RANDOMNESS, Ledger(relation))
        return _tree_plan(made, epsilon, params, relation)

    return noisy_size_plans(len(data), plan)


def _stopped_split(counts: Sequence[int], scale: Fraction, min_samples: int) -> float:
    """P[the root splits] when its noisy class counts (two classes, noise ``DLap(scale)``) decide by :func:`stops`.

    For each first count x1, the rule lets the node split exactly when the
    second count x2 is at least some t(x1) (a larger count never stops a
    node that a smaller one splits), found by bisection; the probability is
    the sum over x1 of P[x1] P[x2 >= t(x1)].
    """
    s = float(scale)
    reach = math.ceil(TAIL * s) + 1
    c1, c2 = counts
    lowest, highest = c2 - reach, c2 + reach + 1  # x2 = highest stands for "beyond the range"

    def threshold(x1: int) -> int:
        low, high = lowest, highest
        if not stops([x1, lowest], min_samples):
            return lowest
        while high - low > 1:
            middle = (low + high) // 2
            if stops([x1, middle], min_samples):
                low = middle
            else:
                high = middle
        return high

    total = []
    for x1 in range(c1 - reach, c1 + reach + 1):
        t = threshold(x1)
        if t < highest:
            total.append(discrete_laplace_pmf(x1 - c1, s) * (1 - discrete_laplace_cdf(t - 1 - c2, s)))
    return math.fsum(total)


def _root_split(data: Dataset, params: Mapping[str, Param], plan: _TreePlan) -> Optional[float]:
    """The probability that the root splits under ``plan`` (None: not computed, for more than two classes)."""
    if plan.depth == 0 or data.schema.n_attributes == 0:
        return 0.0
    if params["node_counts"] == "leaves":
        return 1.0
    if data.schema.n_classes != 2:
        return None
    counts = REFERENCE.counts(data)
    true = counts.class_counts(counts.root())
    return _stopped_split(true, histogram_scale(plan.counts_epsilon(plan.depth, False)), int(params["min_samples"]))


def _describe(plan: _TreePlan, params: Mapping[str, Param]) -> str:
    quality = f", quality {plan.quality}" if params["quality"] == "auto" else ""
    return f"depth {plan.depth}{quality}"


def root_split_law(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> RootSplitLaw:
    """The law of the sound variant's root outcome: a pair (attribute, value or threshold), or a leaf.

    Under each plan :func:`depth_plan` may make (one, or one per value of
    the noisy size N~ that chooses it, which also picks ``quality=auto``'s
    quality), the root is a leaf when the plan has depth 0; with
    ``node_counts="every-node"`` also when its noisy class counts stop it,
    a probability computed for two classes (with more, leaves are left out
    of the law and the plan must not depend on N~).

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.data import load
    >>> params = get_algorithm("thesis-tree").resolve({"size_share": 0.05, "leaf_sigmas": 3, "max_depth": 6})
    >>> law = root_split_law(load("vote"), Fraction(1, 5), params, Relation.ADD_REMOVE)
    >>> [(b.plan, round(b.weight, 3)) for b in law.branches if b.weight > 1e-6]
    [('depth 0, quality max', 0.023), ('depth 1, quality max', 0.907), ('depth 2, quality max', 0.07), ('depth 3, quality max', 0.0)]
    """
    if int(params["max_depth"]) == 0 or data.schema.n_attributes == 0:
        raise InvalidParameterError(
            "thesis-tree never splits its root with max_depth=0 or without attributes; give max_depth=1 or more"
        )
    plans, noisy_size = _plans(data, epsilon, params, relation, "root split")
    counts = REFERENCE.counts(data)
    rows = counts.root()
    attributes = tuple(range(data.schema.n_attributes))
    by_quality: Dict[str, _Candidates] = {}
    named: List[SplitCandidate] = []
    branches = []
    for plan, weight in plans:
        candidates = by_quality.get(plan.quality)
        if candidates is None:
            candidates = by_quality[plan.quality] = _Candidates(
                counts, data.schema, plan.quality, int(params["grid"]), relation
            )
        pairs, utilities, weights = candidates(rows, attributes, counts.class_counts(rows))
        named = [_named(data.schema, candidates, a, v) for a, v in pairs]
        law = None if plan.depth == 0 else SplitLaw(
            tuple(named), tuple(utilities), tuple(weights), plan.at(plan.depth), candidates.sensitivity,
            candidates.quality, candidates.monotone,
        )
        branches.append(PlanBranch(_describe(plan, params), weight, _root_split(data, params, plan), law))
    law_of = RootSplitLaw(tuple(named), tuple(branches), noisy_size)
    if not law_of.leaf_is_outcome and len(branches) > 1:
        raise InvalidParameterError(
            "with node_counts=every-node on data of more than two classes, the probability that thesis-tree's "
            "root stops on its noisy counts is not computed, so its law is known only where one plan is made for "
            "sure: give size_share=0, or node_counts=leaves"
        )
    return law_of


def _named(schema: Schema, candidates: _Candidates, a: int, v: int) -> SplitCandidate:
    attribute = schema.attributes[a]
    grid = candidates.grids.get(a)
    if grid is None:
        assert isinstance(attribute, CategoricalAttribute)
        return SplitCandidate(attribute.name, value=attribute.values[v])
    return SplitCandidate(attribute.name, threshold=grid.point(v))


def root_counts_law(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> RootCountsLaw:
    """The law of the class counts the sound variant releases at the root, given that it releases them.

    With ``node_counts="every-node"`` the root releases them under every
    plan (its level's epsilon, the deepest level's at depth 0); with
    ``"leaves"`` only under a plan of depth 0.
    """
    plans, noisy_size = _plans(data, epsilon, params, relation, "root counts")
    counts = REFERENCE.counts(data)
    true = tuple(counts.class_counts(counts.root()))
    every = params["node_counts"] != "leaves"
    branches = []
    for plan, weight in plans:
        leaf = plan.depth == 0 or data.schema.n_attributes == 0
        law = CountsLaw(data.schema.classes, true, plan.counts_epsilon(plan.depth, leaf), "discrete-laplace")
        branches.append((weight, 1.0 if leaf or every else 0.0, law))
    if not any(released for _, released, _ in branches):
        raise InvalidParameterError(
            "thesis-tree with node_counts=leaves releases class counts at the leaves only, and its root is a leaf "
            "only under a plan of depth 0, which these parameters never make; give max_depth=0 or "
            "node_counts=every-node"
        )
    return mixed_counts(branches, noisy_size)


SPEC = register(
    AlgorithmSpec(
        name="thesis-tree",
        summary="binary greedy DP tree: one exponential mechanism over (attribute, value) pairs, "
        "noisy class counts at every node (Novakovic 2019, Algorithm 2)",
        source="J. Novakovic, Differentially private decision trees, MSc thesis, Univ. Novi Sad, 2019",
        variants=(
            Variant(
                "sound", True,
                "Algorithm 2 soundly: one exponential mechanism over the public domain's "
                "(attribute, value) pairs and ranges, noise on every class",
                claims=(
                    "continuous-split-exponential-mechanism", "discrete-laplace-mechanism",
                    "exact-inversion-sampler", "exponential-mechanism", "exponential-mechanism-exact-sampler",
                    "exponential-mechanism-monotone", "max-operator-sensitivity", "noisy-size-plan",
                    "parallel-composition", "sequential-composition", "split-quality-monotone",
                ),
            ),
            Variant(
                "published", False,
                "Listings 1-2 as coded: noiseless split values, noise only on present classes, "
                "types and candidates from the data, exp2 Gini, two draws per leaf",
                claims=(
                    "exponential-mechanism", "exponential-mechanism-float-sampler", "laplace-mechanism",
                    "parallel-composition", "thesis-code-errata", "thesis-gini-exp2-sensitivity",
                    "thesis-tree-budget", "tree-budget-plan",
                ),
            ),
            Variant(
                "float-threshold", False,
                "UNSOUND, a planted fault for the audits: the sound variant with thresholds drawn "
                "uniformly between data values in floating point (the float's bits are data)",
                claims=(
                    "discrete-laplace-mechanism", "exponential-mechanism", "exponential-mechanism-float-sampler",
                    "float-threshold-leaks", "max-operator-sensitivity", "noisy-size-plan", "parallel-composition",
                    "sequential-composition",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound", "published", "float-threshold")),
            Parameter(
                "quality", str, "auto",
                "quality function q: max operator, Gini, or auto (sound variants: Gini when N~ epsilon >= 2000 "
                "for the noisy size N~, else max; max when size_share=0 and in the published variant)",
                ("auto", "max", "gini"),
            ),
            grid_parameter(256),
            Parameter(
                "max_depth", int, 6,
                "maximal depth d (levels of splits; the noisy size may cap it; 6: 5-fold CV on the built-in data at "
                "epsilon 0.1, 1 and 10, docs/results.md)",
                minimum=0, maximum=MAX_DEPTH,
            ),
            Parameter(
                "min_samples", int, 5,
                "m_s: a node whose noisy size N_n <= m_s becomes a leaf (noisy sizes can be negative, and so can m_s)",
                minimum=-10**9, maximum=10**9,
            ),
            Parameter(
                "node_counts", str, "leaves",
                "sound variants: noisy class counts at every node (Algorithm 2; they stop a node early) or at the "
                "leaves only (every split gets more budget; a path stops at max_depth)",
                NODE_COUNTS,
            ),
            Parameter(
                "level_ratio", float, 1.0,
                "r > 0: the sound variants give level l (root 0) r^l times the root's per-query epsilon; 1: every "
                "level alike, as in the thesis",
                minimum=0.001, maximum=1000.0,
            ),
            *size_parameters(0.05, 3.0),
            Parameter(
                "split_scale", float, 20.0,
                "K: the noisy size also caps the depth at the deepest d whose deepest splits' epsilon times their "
                "nodes' average size N~ / 2^(d-1) is at least K (with size_share > 0; 0: no such cap; 20: 5-fold "
                "CV on the built-in and tuning sets at epsilon 0.1, 1 and 10, docs/results.md)",
                minimum=0.0, maximum=1e9,
            ),
        ),
        claims=CLAIMS,
        fit=fit_thesis_tree,
        engines=("reference", "array"),
        derive=derive_thesis_tree,
    )
)
