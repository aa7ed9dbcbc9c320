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
  Categorical attributes are removed once used (value vs rest leaves
  nothing more to learn from them on the ``equal`` side); continuous ones
  stay, as in the thesis code, so that a range can be cut again.
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

Under ``substitute`` a changed record moves between two classes and two
branches; the sound variant's per-query epsilon is epsilon / K with K the
substitute cost of a full tree (claim ``thesis-tree-budget``), so that the
receipt's total is epsilon under either relation.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import repeat
from operator import truediv
from typing import Dict, List, Mapping, Sequence, Tuple, Union

from refdp.algorithms.greedy import (
    GRID_PARAMETER,
    NodeCost,
    child_path,
    close_budget,
    grid_threshold_tables,
    plan_units,
    sample_threshold,
    threshold_conditions,
)
from refdp.engine import REFERENCE, Engine, NodeCounts, Rows, ThresholdCandidates, TrainingView, class_counts
from refdp.scoring.kernels import exact_score_function, score_function
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.algorithms.root_law import CountsLaw, SplitCandidate, SplitLaw
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import Threshold, ThresholdGrid, ceil_float
from refdp.errors import InvalidParameterError
from refdp.mechanisms import exponential_mechanism, laplace_mechanism
from refdp.privacy import Ledger, Partition, Relation, cell
from refdp.rng import RandomSource
from refdp.scoring import get_quality
from refdp.tree import Count, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit

__all__ = [
    "SPEC",
    "fit_thesis_tree",
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

PUBLISHED_INTERNAL = SOUND_INTERNAL
"""A split node as coded: the first draw of the counts and the split."""

PUBLISHED_LEAF = NodeCost(Fraction(2), Fraction(4))
"""A leaf as coded: two independent draws of the class counts, both released."""

NUMERIC_DISTINCT_VALUES = 20
"""Listing 1, ``fit``: an attribute with more distinct values than this in the data is numeric."""


def per_query_epsilon(epsilon: Fraction, depth: int, relation: Relation, variant: str = "sound") -> Fraction:
    """The budget of one query: epsilon / (2(d+1) - 1) as published, or epsilon / K under substitute.

    The published variant uses the thesis's formula under both relations
    (the code knows no relation); the sound variant divides by the cost of a
    full tree under the relation in force (:func:`plan_units`), which is
    2d + 1 under add-remove and 4d + 1 (2 for d = 0) under substitute.
    """
    if variant == "published":
        return epsilon / (2 * (depth + 1) - 1)
    return epsilon / plan_units(SOUND_INTERNAL, SOUND_LEAF, depth, relation)


def _planned_total(epsilon: Fraction, depth: int, relation: Relation, variant: str) -> Fraction:
    eps = per_query_epsilon(epsilon, depth, relation, variant)
    if variant == "published":
        return eps * plan_units(PUBLISHED_INTERNAL, PUBLISHED_LEAF, depth, relation)
    return eps * plan_units(SOUND_INTERNAL, SOUND_LEAF, depth, relation)


class _Candidates:
    """The sound variant's candidate splits at a node, with their utilities and base weights.

    Every (attribute, value) pair of the public domain of each categorical
    attribute (value vs rest), then every point of the public grid of each
    continuous one, as ``(attribute, value code)`` and ``(attribute, k)``
    for grid point ``g_k``.
    """

    def __init__(self, counts: NodeCounts, schema: Schema, quality: str, cells: int) -> None:
        self.counts = counts
        self.schema = schema
        self.score = exact_score_function(quality)
        self.cells = cells
        self.grids: Dict[int, ThresholdGrid] = {
            a: ThresholdGrid.of(attribute, cells)
            for a, attribute in enumerate(schema.attributes)
            if isinstance(attribute, ContinuousAttribute)
        }

    @staticmethod
    def of(counts: NodeCounts, schema: Schema, params: Mapping[str, Param]) -> "_Candidates":
        return _Candidates(counts, schema, str(params["quality"]), int(params["grid"]))

    def __call__(
        self, rows: Rows, attributes: Tuple[int, ...], total: Sequence[int]
    ) -> Tuple[List[Tuple[int, int]], List[Union[int, Fraction]], List[int]]:
        """(pairs, utilities, base weights) at the node holding ``rows`` (class counts ``total``)."""
        pairs: List[Tuple[int, int]] = []
        utilities: List[Union[int, Fraction]] = []
        weights: List[int] = []
        # A categorical pair weighs as much as a whole continuous range: (cells - 1) grid points of weight 1.
        pair_weight = self.cells - 1
        for a in attributes:
            attribute = self.schema.attributes[a]
            if isinstance(attribute, CategoricalAttribute):
                table = self.counts.value_table(rows, a, attribute.n_values)
                for v, row in enumerate(table):
                    pairs.append((a, v))
                    utilities.append(self.score([row, [t - r for t, r in zip(total, row)]]))
                    weights.append(pair_weight)
        for a in attributes:
            grid = self.grids.get(a)
            if grid is not None:
                for k, table in enumerate(grid_threshold_tables(self.counts.grid_table(rows, a, grid)), 1):
                    pairs.append((a, k))
                    utilities.append(self.score(table))
                    weights.append(1)
        return pairs, utilities, weights


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
        epsilon: Fraction,
        rng: RandomSource,
        ledger: Ledger,
        planted: bool = False,
    ) -> None:
        self.counts = counts
        self.exponential = engine.exponential
        self.histogram = engine.histogram
        self.schema = schema
        self.eps = epsilon
        self.rng = rng
        self.ledger = ledger
        self.planted = planted
        self.min_samples = int(params["min_samples"])
        quality = get_quality(str(params["quality"]))
        self.quality = quality.name
        self.quality_claim = quality.claim
        self.sensitivity = quality.sensitivity(ledger.relation)
        self.candidates = _Candidates.of(counts, schema, params)
        self.grids = self.candidates.grids

    def build(self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        total = self.counts.class_counts(rows)
        noisy = self.histogram(
            total, epsilon=self.eps, rng=self.rng, ledger=self.ledger,
            label="class counts N_c", partition=path, names=self.schema.classes,
        )
        positive = sum(1 for c in noisy if c > 0)
        if not attributes or depth == 0 or positive <= 1 or sum(noisy) <= self.min_samples:
            return Leaf(tuple(noisy))
        if self.planted:
            return self._planted_split(rows, attributes, depth, path, total, noisy)
        pairs, utilities, weights = self.candidates(rows, attributes, total)
        choice = exponential_mechanism(
            utilities, epsilon=self.eps, sensitivity=self.sensitivity, rng=self.rng, ledger=self.ledger,
            label="split (A_opt, v_opt)", partition=path,
            claims=("exponential-mechanism", self.quality_claim)
            + (("continuous-split-exponential-mechanism",) if self.grids else ()),
            base_weights=weights, exact=True,
        )
        a, v = pairs[choice]
        grid = self.grids.get(a)
        if grid is None:
            return self._value_split(rows, attributes, depth, path, a, v, noisy)
        return self._threshold_split(rows, attributes, depth, path, a, grid.point(v), noisy)

    def _planted_split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        total: Sequence[int], noisy: Sequence[Count],
    ) -> Node:
        pairs: List[Tuple[int, int]] = []
        intervals: List[Tuple[int, ThresholdCandidates]] = []
        utilities: List[float] = []
        weights: List[float] = []
        score = score_function(self.quality)
        for a in attributes:
            attribute = self.schema.attributes[a]
            if isinstance(attribute, CategoricalAttribute):
                table = self.counts.value_table(rows, a, attribute.n_values)
                for v, row in enumerate(table):
                    pairs.append((a, v))
                    utilities.append(score([row, [t - r for t, r in zip(total, row)]]))
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
            label="split (A_opt, v_opt), threshold interpolated between data values", partition=path,
            claims=("exponential-mechanism", self.quality_claim, "float-threshold-leaks"),
            base_weights=weights, sound=False,
            note="planted fault: the released float threshold is computed from data values",
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
        a: int, v: int, noisy: Sequence[Count],
    ) -> Node:
        attribute = self.schema.attributes[a]
        assert isinstance(attribute, CategoricalAttribute)
        equal, rest = self.counts.split_value(rows, a, v)
        remaining = tuple(b for b in attributes if b != a)
        name, value = attribute.name, attribute.values[v]
        return ValueSplit(
            a, v,
            self.build(equal, remaining, depth - 1, child_path(path, f"{name}={value}")),
            self.build(rest, remaining, depth - 1, child_path(path, f"{name}!={value}")),
            counts=tuple(noisy),
        )

    def _threshold_split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        a: int, threshold: Threshold, noisy: Sequence[Count],
    ) -> Node:
        attribute = self.schema.attributes[a]
        assert isinstance(attribute, ContinuousAttribute)
        below, above = self.counts.split_threshold(rows, a, ceil_float(threshold))
        low, high = threshold_conditions(attribute, threshold)
        return ThresholdSplit(
            a, threshold,
            self.build(below, attributes, depth - 1, child_path(path, low)),
            self.build(above, attributes, depth - 1, child_path(path, high)),
            counts=tuple(noisy),
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
        self.quality = str(params["quality"])
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
    """Train the thesis tree (Algorithm 2) with total budget ``epsilon``."""
    depth = int(params["max_depth"])
    variant = str(params["variant"])
    ledger = start_ledger(data, relation)
    eps = per_query_epsilon(epsilon, depth, relation, variant)
    attributes = tuple(range(data.schema.n_attributes))
    root: Node
    if variant == "published":
        # The listings' per-value scans stay on the reference loops under either engine.
        view = TrainingView.of(data)
        root = _PublishedBuilder(view, params, eps, depth, rng, ledger).build(list(view.rows), attributes, 0, ())
    else:
        planted = variant == "float-threshold"
        # The planted fault's interval candidates are the reference engine's only.
        counts = (REFERENCE if planted else engine).counts(data)
        builder = _SoundBuilder(counts, engine, data.schema, params, eps, rng, ledger, planted)
        root = builder.build(counts.root(), attributes, depth, ())
    close_budget(ledger, _planned_total(epsilon, depth, relation, variant), ("tree-budget-plan", "thesis-tree-budget"))
    return finish_model(SPEC.name, data, params, [root], ledger)


def _sound_only(params: Mapping[str, Param], what: str) -> None:
    if params["variant"] != "sound":
        raise InvalidParameterError(
            f"the law of thesis-tree's {what} is known for variant=sound only, got variant={params['variant']}"
        )


def root_split_law(data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation) -> SplitLaw:
    """The law of the sound variant's root split, given that the root splits (its stopping rule uses other noise)."""
    _sound_only(params, "root split")
    depth = int(params["max_depth"])
    if depth == 0:
        raise InvalidParameterError("thesis-tree with max_depth=0 never splits its root; give max_depth=1 or more")
    quality = get_quality(str(params["quality"]))
    counts = REFERENCE.counts(data)
    candidates = _Candidates.of(counts, data.schema, params)
    rows = counts.root()
    pairs, utilities, weights = candidates(rows, tuple(range(data.schema.n_attributes)), counts.class_counts(rows))
    named = []
    for a, v in pairs:
        attribute = data.schema.attributes[a]
        grid = candidates.grids.get(a)
        if grid is None:
            assert isinstance(attribute, CategoricalAttribute)
            named.append(SplitCandidate(attribute.name, value=attribute.values[v]))
        else:
            named.append(SplitCandidate(attribute.name, threshold=grid.point(v)))
    return SplitLaw(
        tuple(named), tuple(utilities), tuple(weights), per_query_epsilon(epsilon, depth, relation),
        quality.sensitivity(relation), quality.name,
    )


def root_counts_law(data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation) -> CountsLaw:
    """The law of the class counts the sound variant releases at the root (a leaf or a split node)."""
    _sound_only(params, "root counts")
    counts = REFERENCE.counts(data)
    return CountsLaw(
        data.schema.classes, tuple(counts.class_counts(counts.root())),
        per_query_epsilon(epsilon, int(params["max_depth"]), relation), "discrete-laplace",
    )


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
                    "max-operator-sensitivity", "parallel-composition",
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
                    "float-threshold-leaks", "max-operator-sensitivity", "parallel-composition",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound", "published", "float-threshold")),
            Parameter("quality", str, "max", "quality function q: max operator or Gini", ("max", "gini")),
            GRID_PARAMETER,
            Parameter(
                "max_depth", int, 3,
                "maximal depth d (levels of splits; 3: the best in 5-fold CV on the built-in data, docs/results.md)",
                minimum=0,
            ),
            Parameter("min_samples", int, 5, "m_s: a node whose noisy size N_n <= m_s becomes a leaf"),
        ),
        claims=CLAIMS,
        fit=fit_thesis_tree,
        engines=("reference", "array"),
    )
)
