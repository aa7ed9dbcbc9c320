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
  A categorical attribute is removed on the ``equal`` side of its split,
  where it is constant, and stays on the ``rest`` side, whose other values
  it may still tell apart (Algorithm 2 removes it on both sides; keeping it
  lets the tree approach the non-private CART tree of tree-baseline's
  ``split=binary`` as epsilon grows, docs/results.md, issue 31); continuous
  ones stay, as in the thesis code, so that a range can be cut again.
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

from fractions import Fraction
from typing import List, Mapping, Optional, Sequence, Tuple, Type

from refdp.algorithms.derivation import (
    NOISY_SIZE
)
from refdp.algorithms.thesis_tree_derive import Rederivation, derive_thesis_tree, walk_charges
from refdp.algorithms.thesis_tree_plan import (
    SOUND_INTERNAL, SOUND_LEAF, NODE_COUNTS, SPLIT_LABEL, COUNTS_LABEL, BUDGET_CLAIMS, per_query_epsilon,
    level_epsilons, stops, TreePlan, tree_plan, value_vs_rest, SPLIT_WEIGHTS, Candidates, depth_plan, signal_depth,
)
from refdp.algorithms.greedy import (
    grid_parameter, child_path, close_budget, threshold_conditions
)
from refdp.algorithms.noisy_depth import size_parameters
from refdp.engine import REFERENCE, Engine, NodeCounts, Rows
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import Threshold, ceil_float
from refdp.params import MAX_DEPTH
from refdp.mechanisms import (
    exponential_mechanism
)
from refdp.privacy import Ledger, Partition, Relation
from refdp.rng import RandomSource
from refdp.tree import Count, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit
__all__ = [
    "SPEC",
    "fit_thesis_tree",
    "derive_thesis_tree",
    "depth_plan",
    "signal_depth",
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
        self.candidates = Candidates(counts, schema, plan, int(params["grid"]), ledger.relation)
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
        # Only the equal side has learnt all of a; the rest side may still tell its other values apart.
        remaining = tuple(b for b in attributes if b != a)
        name, value = attribute.name, attribute.values[v]
        return ValueSplit(
            a, v,
            self.build(equal, remaining, depth - 1, child_path(path, f"{name}={value}")),
            self.build(rest, attributes, depth - 1, child_path(path, f"{name}!={value}")),
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
            *size_parameters(0.05, 3.0),
            Parameter(
                "split_weights", str, "auto",
                "base measure of the split mechanism: pair (every categorical value-vs-rest pair weighs as much as a "
                "continuous attribute's whole grid, as in the thesis), attribute (every attribute weighs alike, "
                "shared among its values or grid points), or auto (sound variants: attribute when N~ epsilon >= "
                "2000 for the noisy size N~, else pair; pair when size_share=0; 5-fold CV on the built-in and "
                "tuning sets at epsilon 0.1, 1 and 10, docs/results.md)",
                SPLIT_WEIGHTS,
            ),
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
