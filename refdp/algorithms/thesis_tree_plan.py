"""The thesis tree's budget plan: the levels' epsilons, the depth a noisy size allows, the candidate splits.

:func:`depth_plan` lets a noisy size of the data cap the depth (claim
``noisy-size-plan``); :func:`tree_plan` turns it into a :class:`TreePlan`
(a frozen value: the per-query epsilon of each level and the quality) that
the builder (:mod:`refdp.algorithms.thesis_tree`) and the re-derivation
(:mod:`refdp.algorithms.thesis_tree_derive`) follow; :class:`Candidates` are
a node's candidate splits with their utilities and calibration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import repeat
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.greedy import (
    NodeCost, plan_levels, plan_units
)
from refdp.algorithms.noisy_depth import DepthRule, DepthPlan, laplace_variance, plan_depth, size_share
from refdp.engine import Engine, NodeCounts, Rows
from refdp.scoring.kernels import exact_ratio_function, exact_threshold_ratios
from refdp.algorithms.registry import Param
from refdp.data import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.data.grid import ThresholdGrid
from refdp.mechanisms.ratios import Ratio, Ratios
from refdp.privacy import Ledger, Relation, as_fraction
from refdp.rng import RandomSource
from refdp.scoring import get_quality, monotone_under
from refdp.tree import Count
__all__ = [
    "SOUND_INTERNAL",
    "SOUND_LEAF",
    "SPLIT_ONLY",
    "NODE_COUNTS",
    "SPLIT_LABEL",
    "COUNTS_LABEL",
    "AUTO_GINI_SCALE",
    "BUDGET_CLAIMS",
    "per_query_epsilon",
    "level_epsilons",
    "stops",
    "auto_quality",
    "auto_split_weights",
    "TreePlan",
    "tree_plan",
    "value_vs_rest",
    "SPLIT_WEIGHTS",
    "base_weights",
    "Candidates",
    "depth_plan",
    "signal_depth",
]

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


def auto_split_weights(noisy_size: int, epsilon: Fraction) -> str:
    """The base measure ``split_weights=auto`` uses: ``attribute`` on large N~ epsilon (where auto takes the Gini), else ``pair``.

    Where N~ epsilon is large the utilities rank the candidates and the base
    measure weighs the many weak ones against the few good: weighing every
    attribute alike keeps an attribute of many values (adult's 42 countries)
    from drawing the splits of nodes whose signal is elsewhere.  Where N~
    epsilon is small the draws stay close to the base measure, and there
    neither measure was better on the small sets (5-fold CV on the built-in
    and tuning sets at epsilon 0.1, 1 and 10, docs/results.md, issue 31).
    A function of the released noisy size and epsilon only (claim
    ``noisy-size-plan``).

    >>> auto_split_weights(26000, Fraction(1, 10)), auto_split_weights(300, Fraction(1))
    ('attribute', 'pair')
    """
    return "attribute" if auto_quality(noisy_size, epsilon) == "gini" else "pair"


@dataclass(frozen=True)
class TreePlan:
    """The sound variants' budget and quality once the depth plan is made (claims ``tree-budget-plan``, ``noisy-size-plan``)."""

    level_eps: Tuple[Fraction, ...]
    """The per-query epsilon of each level, root first (:func:`level_epsilons`)."""
    quality: str
    """The quality, ``auto`` resolved (:func:`auto_quality`)."""
    split_weights: str
    """The split mechanism's base measure, ``auto`` resolved (:func:`auto_split_weights`, :func:`base_weights`)."""

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
    weights = str(params["split_weights"])
    if weights == "auto":
        # As for the quality: without a noisy size the public choice is the thesis's own measure, pair.
        weights = "pair" if plan.noisy_size is None else auto_split_weights(plan.noisy_size, epsilon)
    return TreePlan(level_eps, quality, weights)


def value_vs_rest(
    counts: NodeCounts, schema: Schema, rows: Rows, attributes: Tuple[int, ...], total: Sequence[int]
) -> Iterator[Tuple[int, int, List[Sequence[int]]]]:
    """(a, v, [class counts of value v, of the rest]) for every value of each categorical attribute a of ``attributes``."""
    for a in attributes:
        attribute = schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            for v, row in enumerate(counts.value_table(rows, a, attribute.n_values)):
                yield a, v, [row, [t - r for t, r in zip(total, row)]]


SPLIT_WEIGHTS = ("auto", "pair", "attribute")
"""The split mechanism's base measure: chosen from N~ epsilon (:func:`auto_split_weights`), every categorical pair
weighing a whole grid, or every attribute weighing alike (:func:`base_weights`)."""


def base_weights(schema: Schema, cells: int, split_weights: str) -> Tuple[Dict[int, int], int]:
    """(weight of each pair of categorical attribute a, weight of a grid point): the split mechanism's base measure.

    ``pair``: a categorical (attribute, value) pair weighs as much as a
    continuous attribute's whole grid (``cells`` - 1 points of weight 1),
    so an attribute of m values weighs m grids.  ``attribute``: every
    attribute weighs alike, L (``cells`` - 1) shared among its m values or
    its grid points, L the least common multiple of the categorical
    attributes' sizes (the weights stay integers).  A function of the
    public schema only, so either is an exponential mechanism with a public
    base measure (claim ``exponential-mechanism``).

    >>> from refdp.data import CategoricalAttribute, ContinuousAttribute, Schema
    >>> schema = Schema((CategoricalAttribute("a", ("x", "y", "z")), ContinuousAttribute("b", 0.0, 1.0)), "class",
    ...                 ("no", "yes"))
    >>> base_weights(schema, 4, "pair"), base_weights(schema, 4, "attribute")
    (({0: 3}, 1), ({0: 3}, 3))
    """
    sizes = {
        a: attribute.n_values for a, attribute in enumerate(schema.attributes) if isinstance(attribute, CategoricalAttribute)
    }
    if split_weights == "pair":
        return {a: cells - 1 for a in sizes}, 1
    shared = math.lcm(*sizes.values()) if sizes else 1
    return {a: shared * (cells - 1) // m for a, m in sizes.items()}, shared


class Candidates:
    """The sound variant's candidate splits at a node, with their utilities, base weights and calibration.

    Every (attribute, value) pair of the public domain of each categorical
    attribute (value vs rest), then every point of the public grid of each
    continuous one, as ``(attribute, value code)`` and ``(attribute, k)``
    for grid point ``g_k``, weighted by :func:`base_weights`.
    ``sensitivity`` is the quality's under the
    relation; ``monotone`` says the exponential mechanism drops its factor 2
    (under add-remove the max operator's and the Gini's utilities of every
    candidate move one way when a record joins the node: claim
    ``split-quality-monotone``).
    """

    def __init__(
        self, counts: Optional[NodeCounts], schema: Schema, plan: TreePlan, cells: int, relation: Relation
    ) -> None:
        quality = plan.quality
        self.counts = counts
        self.schema = schema
        scoring = get_quality(quality)
        self.quality = scoring.name
        self.claim = scoring.claim
        self.sensitivity = scoring.sensitivity(relation)
        self.monotone = monotone_under(quality, relation)
        self.score = exact_ratio_function(quality)
        self.threshold_scores = exact_threshold_ratios(quality)
        self.pair_weights, self.point_weight = base_weights(schema, cells, plan.split_weights)
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
        for a, v, table in value_vs_rest(self.counts, self.schema, rows, attributes, total):
            pairs.append((a, v))
            utilities.append(self.score(table))
            weights.append(self.pair_weights[a])
        for a in attributes:
            grid = self.grids.get(a)
            if grid is not None:
                scores = self.threshold_scores(self.counts.grid_table(rows, a, grid))
                pairs.extend(zip(repeat(a), range(1, len(scores) + 1)))
                utilities.extend(scores)
                weights.extend([self.point_weight] * len(scores))
        return pairs, Ratios(tuple(utilities)), weights


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
    >>> from refdp.engine import REFERENCE
    >>> params = get_algorithm("thesis-tree").resolve({"size_share": 0})
    >>> depth_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...            Ledger()).depth
    6
    """
    node_counts = str(params["node_counts"])
    ratio = as_fraction(params["level_ratio"], "level_ratio")
    share, sigmas = size_share(params)
    plan = plan_depth(
        size, epsilon, share,
        DepthRule(
            sigmas, int(params["max_depth"]), schema.n_classes,
            leaves=lambda d: Fraction(2) ** d,
            variance=lambda d, left: laplace_variance(level_epsilons(left, d, relation, node_counts, ratio)[-1]),
        ),
        engine, rng, ledger,
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
