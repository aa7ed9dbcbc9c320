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

This module is the sound learner: the text, soundly.  The noisy counts cover every
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
The thesis's code as it is, and a fault the audits must catch (float
thresholds between data values), are other variants, which the registry
adds from their own packages (:data:`~refdp.algorithms.registry.VARIANT_MODULES`).

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

from dataclasses import dataclass
from fractions import Fraction
from itertools import repeat
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Type

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
    threshold_conditions,
)
from refdp.algorithms.noisy_depth import DepthPlan, laplace_variance, plan_depth, size_parameters, size_share
from refdp.engine import REFERENCE, Engine, NodeCounts, Rows
from refdp.scoring.kernels import exact_ratio_function, exact_threshold_ratios
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import Threshold, ThresholdGrid, ceil_float
from refdp.params import MAX_DEPTH
from refdp.mechanisms import (
    exponential_charge,
    exponential_mechanism,
    histogram_charges,
)
from refdp.mechanisms.ratios import Ratio, Ratios
from refdp.privacy import Ledger, Partition, Relation, as_fraction
from refdp.rng import RandomSource
from refdp.scoring import get_quality, monotone_under
from refdp.tree import Count, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit

__all__ = [
    "SPEC",
    "fit_thesis_tree",
    "derive_thesis_tree",
    "depth_plan",
    "stops",
    "per_query_epsilon",
    "level_epsilons",
    "SOUND_INTERNAL",
    "SOUND_LEAF",
    "BUDGET_CLAIMS",
    "TreePlan",
    "tree_plan",
    "value_vs_rest",
    "Candidates",
    "SoundBuilder",
    "Rederivation",
    "grow",
    "walk_charges",
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


def per_query_epsilon(epsilon: Fraction, depth: int, relation: Relation, node_counts: str = "every-node") -> Fraction:
    """The budget of one query: epsilon / K, K the cost of a full tree, which is 2(d+1) - 1 under add-remove.

    The sound variant divides by the cost of a full tree under the relation in force (:func:`plan_units`), which is
    2d + 1 under add-remove and 4d + 1 (2 for d = 0) under substitute; with
    ``node_counts="leaves"`` a split node costs its split only: d + 1 under
    add-remove, 2d + 1 (2 for d = 0) under substitute, where a record moved
    between two children costs a removal in one subtree and an addition in
    the other.
    """
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
class TreePlan:
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


def tree_plan(plan: DepthPlan, epsilon: Fraction, params: Mapping[str, Param], relation: Relation) -> TreePlan:
    """The levels' epsilons and the quality of a sound tree grown to ``plan``'s depth with its budget."""
    ratio = as_fraction(params["level_ratio"], "level_ratio")
    level_eps = level_epsilons(plan.epsilon, plan.depth, relation, str(params["node_counts"]), ratio)
    quality = str(params["quality"])
    if quality == "auto":
        # Without a noisy size (size_share=0) the data's size is private: the public choice is max.
        quality = "max" if plan.noisy_size is None else auto_quality(plan.noisy_size, epsilon)
    return TreePlan(level_eps, quality)


def value_vs_rest(
    counts: NodeCounts, schema: Schema, rows: Rows, attributes: Tuple[int, ...], total: Sequence[int]
) -> Iterator[Tuple[int, int, List[Sequence[int]]]]:
    """(a, v, [class counts of value v, of the rest]) for every value of each categorical attribute a of ``attributes``."""
    for a in attributes:
        attribute = schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            for v, row in enumerate(counts.value_table(rows, a, attribute.n_values)):
                yield a, v, [row, [t - r for t, r in zip(total, row)]]


class Candidates:
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
        for a, v, table in value_vs_rest(self.counts, self.schema, rows, attributes, total):
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


class SoundBuilder:
    """Algorithm 2 with noise on every class and one exponential mechanism over the public domain.

    :meth:`split` chooses a node's split; :meth:`value_split` and
    :meth:`threshold_split` make it and grow its children.
    """

    counts_engine: Optional[Engine] = None
    """The engine that counts (None: the fit's engine)."""

    def __init__(
        self,
        counts: NodeCounts,
        engine: Engine,
        schema: Schema,
        params: Mapping[str, Param],
        plan: TreePlan,
        rng: RandomSource,
        ledger: Ledger,
    ) -> None:
        self.counts = counts
        self.exponential = engine.exponential
        self.histogram = engine.histogram
        self.schema = schema
        self.plan = plan
        self.eps = plan.at(plan.depth)
        self.rng = rng
        self.ledger = ledger
        self.leaves_only = params["node_counts"] == "leaves"
        self.min_samples = int(params["min_samples"])
        self.candidates = Candidates(counts, schema, plan.quality, int(params["grid"]), ledger.relation)
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
        return self.split(rows, attributes, depth, path, total, noisy)

    def split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        total: Sequence[int], noisy: Optional[Sequence[Count]],
    ) -> Node:
        """The node's split: one exponential mechanism over the public domain's pairs, at its level's epsilon."""
        pairs, utilities, weights = self.candidates(rows, attributes, total)
        choice = exponential_mechanism(
            utilities, epsilon=self.eps, sensitivity=self.sensitivity, rng=self.rng, ledger=self.ledger,
            label=SPLIT_LABEL, partition=path, claims=self.candidates.split_claims,
            base_weights=weights, exact=True, monotone=self.monotone,
        )
        a, v = pairs[choice]
        grid = self.grids.get(a)
        if grid is None:
            return self.value_split(rows, attributes, depth, path, a, v, noisy)
        return self.threshold_split(rows, attributes, depth, path, a, grid.point(v), noisy)

    def value_split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        a: int, v: int, noisy: Optional[Sequence[Count]],
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
            counts=None if noisy is None else tuple(noisy),
        )

    def threshold_split(
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
    return grow(data, epsilon, params, rng, relation, engine, SoundBuilder)


def grow(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
    engine: Engine, builder_type: Type[SoundBuilder],
) -> TreeModel:
    """The depth plan, then a tree grown by ``builder_type`` (:class:`SoundBuilder` or a subclass) to its depth."""
    ledger = start_ledger(data, relation)
    plan = depth_plan(data.schema, epsilon, params, relation, len(data), engine, rng, ledger)
    counts = (builder_type.counts_engine or engine).counts(data)
    tree = tree_plan(plan, epsilon, params, relation)
    builder = builder_type(counts, engine, data.schema, params, tree, rng, ledger)
    root = builder.build(counts.root(), tuple(range(data.schema.n_attributes)), plan.depth, ())
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
    return plan_depth(
        size, epsilon, share, sigmas, int(params["max_depth"]), schema.n_classes,
        leaves=lambda d: Fraction(2) ** d,
        variance=lambda d, left: laplace_variance(level_epsilons(left, d, relation, node_counts, ratio)[-1]),
        engine=engine, rng=rng, ledger=ledger,
    )


def derive_thesis_tree(model: TreeModel) -> Optional[Ledger]:
    """The charges of a sound tree's plan, node by node from the released tree.

    The depth plan is replayed with the released noisy size; each node of
    the released tree gets the charges its builder makes at its level: the
    class counts of a leaf (the deepest level's epsilon, or its own level's
    where it stopped on them), the counts of an inner node under
    ``node_counts=every-node``, the split's exponential mechanism; then the
    reserve of the levels not built.  The tree must be one the builder can
    release: value-vs-rest splits on categorical attributes not yet used on
    the path, thresholds on the public grid, a leaf only where the plan
    stops, discrete Laplace counts (whole numbers), one tree of weight 1.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("thesis-tree", load("vote"), 1, rng=1)
    >>> derive_thesis_tree(model).charges == model.receipt.charges
    True
    """
    return walk_charges(model, Rederivation)


def walk_charges(model: TreeModel, rederivation_type: Type[Rederivation]) -> Ledger:
    """The depth plan replayed, then the charges ``rederivation_type`` re-issues along the released tree."""
    params, schema = model.params, model.schema
    check_trees(model, 1)
    check_weights(model, (1.0,))
    check_voting(model, "vote")
    integer_counts(model, "discrete Laplace class counts")
    epsilon, ledger = model_budget(model), fresh_ledger(model)
    plan = depth_plan(schema, epsilon, params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    tree = tree_plan(plan, epsilon, params, ledger.relation)
    candidates = Candidates(None, schema, tree.quality, int(params["grid"]), ledger.relation)
    rederivation_type(schema, params, tree, candidates, ledger).walk(
        model.root, tuple(range(schema.n_attributes)), tree.depth, ()
    )
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


class Rederivation:
    """:class:`SoundBuilder`'s charges re-issued along a released tree (see :func:`derive_thesis_tree`)."""

    def __init__(
        self, schema: Schema, params: Mapping[str, Param], plan: TreePlan, candidates: Candidates, ledger: Ledger,
    ) -> None:
        self.schema = schema
        self.plan = plan
        self.candidates = candidates
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
        self.split_charge(self.plan.at(depth), path)
        if isinstance(node, ValueSplit) and node.attribute in attributes:
            attribute = self.schema.attributes[node.attribute]
            assert isinstance(attribute, CategoricalAttribute)
            name, value = attribute.name, attribute.values[node.value]
            remaining = tuple(b for b in attributes if b != node.attribute)
            self.walk(node.equal, remaining, depth - 1, child_path(path, f"{name}={value}"))
            self.walk(node.rest, remaining, depth - 1, child_path(path, f"{name}!={value}"))
            return
        if not isinstance(node, ThresholdSplit):
            refuse(
                f"the node at {where} is a {type(node).__name__} on an attribute its path has used; the thesis tree "
                "splits value vs rest on a categorical attribute not yet used, or at a threshold"
            )
        attribute = self.schema.attributes[node.attribute]
        assert isinstance(attribute, ContinuousAttribute)
        threshold = node.threshold
        self.check_threshold(node.attribute, threshold, where)
        low, high = threshold_conditions(attribute, threshold)
        self.walk(node.below, attributes, depth - 1, child_path(path, low))
        self.walk(node.at_or_above, attributes, depth - 1, child_path(path, high))

    def split_charge(self, epsilon: Fraction, path: Partition) -> None:
        """The charge of the split at ``path``: the exponential mechanism over the public domain."""
        rule = self.candidates
        self.ledger.record(exponential_charge(
            epsilon=epsilon, sensitivity=rule.sensitivity, label=SPLIT_LABEL, partition=path,
            claims=rule.split_claims, exact=True, monotone=rule.monotone,
        ))

    def check_threshold(self, a: int, threshold: Threshold, where: str) -> None:
        """ModelError unless ``threshold`` on attribute ``a`` is a point of its public grid."""
        attribute = self.schema.attributes[a]
        grid_index(self.candidates.grids[a], threshold, f"the split on {attribute.name!r} at {where}")



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
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter(
                "quality", str, "auto",
                "quality function q: max operator, Gini, or auto (sound variants: Gini when N~ epsilon >= 2000 "
                "for the noisy size N~, else max; max when size_share=0 and in the thesis's code)",
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
            *size_parameters(0.05, 4.0),
        ),
        claims=CLAIMS,
        fit=fit_thesis_tree,
        engines=("reference", "array"),
        derive=derive_thesis_tree,
    )
)
