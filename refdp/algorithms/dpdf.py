"""DPDF: the differentially private decision forest of Fletcher & Islam (2015), Algorithm 1.

    DPDF(D, C, A, beta, tau, delta):
        eps = beta / (tau (2 delta - 1)); A_root = {}
        tau times: T = PRUNETREE(BUILDTREE(D, C, A, eps, delta, 1, root=True))

    BUILDTREE(D, C, A, eps, delta, d, root):
        N = {|D_c| + noise(1/eps) for every c in C}       (Q1, the noisy class histogram)
        |D| = sum of N
        if d < delta and |D| >= 100 and f_c / |D| < 1 for all f_c in N and |A| > 0:
            a = SPLITTINGATTRIBUTE(D, C, A, eps, root)      (Q2, the exponential mechanism on
                                                             the weighted Gini index G_{D,C}(a))
            one child BUILDTREE(D_{a_v}, C, A - {a}, eps, delta, d + 1, False) per value v of a
        return the node with its histogram N

At the root, SPLITTINGATTRIBUTE leaves out A_root, the root attributes of the
trees built before, and adds its choice to A_root: the roots of the tau trees
are pairwise distinct.  A_root is a function of earlier outputs of the
mechanism, so excluding it is adaptive sequential composition and costs
nothing extra.  Because of this, ``n_trees`` (tau) may not exceed max(1, |A|).

Depth: the budget eps = beta / (tau (2 delta - 1)) counts 2 delta - 1 queries
on a root-to-leaf path, that is delta histograms and delta - 1 splits: delta
counts node levels.  The pseudocode's test ``d <= delta`` (with d = 1 at the
root) would allow delta splits and 2 delta + 1 queries, more than the budget;
we split while ``d < delta``, which is the reading under which the paper's
eps spends beta exactly (``proofs/dpdf-budget.md``).  ``max_depth`` is delta
(>= 1; delta = 1 is a single histogram per tree).

The sensitivity Delta of the weighted Gini index in Q2: with
``quality="gini"`` (the default) the unnormalised Gini (the weighted index
times the node size) with its global sensitivity 2 (claim
``gini-unnormalised-sensitivity``), without the exponential mechanism's
factor 2 under add-remove (claims ``split-quality-monotone``,
``exponential-mechanism-monotone``); with ``quality="gini-weighted"`` the
paper's index with its global sensitivity 1/2 (claim
``gini-weighted-sensitivity``), whose range of at most 1 makes the choice
nearly uniform.  A noisy size (``size_share``, claim ``noisy-size-plan``)
caps delta.  The paper's Theorem 1 calibration, which is not DP, is another
variant, which the registry adds from its own package
(:data:`~refdp.algorithms.registry.VARIANT_MODULES`); :class:`ForestBuilder`
is what it changes.

PRUNETREE and the rules read only the released histograms: post-processing
(claim ``dpdf-budget``).  The trees vote weighted by the confidence of the
leaf each reaches (``voting="confidence"``).  Counts use the exact discrete
Laplace mechanism.  Under ``substitute`` a histogram costs 2 eps, so the
per-query eps is beta / (tau K) with K the substitute cost of a full tree
(:func:`~refdp.algorithms.greedy.plan_units`), and the receipt's total is
beta under either relation.

Continuous attributes (the paper's experiments use categorical ones only):
each is cut into ``bins`` equal-width intervals of its public bounds
[lower, upper] (:func:`refdp.algorithms.binning.equal_width_thresholds`, a function of the schema
alone).  A continuous attribute is then a candidate of Q2 exactly like a
categorical one with ``bins`` values: its G_{D,C}(a) is the weighted Gini of
the binned table, with the same sensitivity, it is used at most once per
path, and its node is an :class:`~refdp.tree.IntervalSplit`.  The partition
is fixed before any data is read, so the privacy argument is unchanged.
"""

from __future__ import annotations

from refdp.algorithms.dpdf_plan import (
    INTERNAL, LEAF, per_query_epsilon, splits, Q1_LABEL, Q2_LABEL, BUDGET_CLAIMS, split_claims, tree_plan
)
from refdp.algorithms.dpdf_derive import (
    derive_dpdf
)

import dataclasses
from fractions import Fraction
from typing import List, Mapping, Sequence, Set, Tuple, Type, cast

from refdp.algorithms.binning import PublicBins
from refdp.algorithms.derivation import (
    NOISY_SIZE
)
from refdp.algorithms.greedy import child_path, close_budget
from refdp.algorithms.noisy_depth import (
    DepthPlan, size_parameters
)
from refdp.engine import REFERENCE, Engine, Rows
from refdp.scoring.kernels import exact_score_function, score_function
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.data import Dataset
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import exponential_mechanism
from refdp.privacy import Ledger, Partition, Relation
from refdp.rng import RandomSource
from refdp.scoring import get_quality, monotone_under
from refdp.tree import CategoricalSplit, IntervalSplit, Leaf, Node, TreeModel

__all__ = [
    "SPEC",
    "fit_dpdf",
    "derive_dpdf",
    "tree_plan",
    "per_query_epsilon",
    "ForestBuilder",
    "grow_forest",
    "Q1_LABEL",
    "Q2_LABEL",
    "weighted_gini",
    "weighted_gini_exact",
    "splits",
    "prune",
    "INTERNAL",
    "LEAF",
]

CLAIMS = (
    "noisy-size-plan",
    "exponential-mechanism-monotone",
    "split-quality-monotone",
    "gini-unnormalised-sensitivity",
    "dpdf-budget",
    "tree-budget-plan",
    "gini-weighted-sensitivity",
    "gini-weighted-local-sensitivity",
    "exponential-mechanism",
    "exponential-mechanism-exact-sampler",
    "exact-inversion-sampler",
    "exponential-mechanism-float-sampler",
    "discrete-laplace-mechanism",
    "parallel-composition",
    "sequential-composition",
)

_GINI = score_function("gini")


def weighted_gini(table: Sequence[Sequence[int]]) -> float:
    """G_{D,C}(a) = -sum_v |D_v|/|D| (1 - sum_c (|D_vc|/|D_v|)^2) as a float (0 for an empty node).

    Same value, to rounding, as :func:`refdp.scoring.gini_weighted` (the
    tests check it).  The paper's calibration (another variant) samples it with the float
    sampler, as the paper does; the sound one uses :func:`weighted_gini_exact`.
    """
    size = sum(sum(row) for row in table)
    return _GINI(table) / size if size else 0.0


_GINI_EXACT = exact_score_function("gini")


def weighted_gini_exact(table: Sequence[Sequence[int]]) -> Fraction:
    """G_{D,C}(a) as an exact Fraction (0 for an empty node): :func:`refdp.scoring.gini_weighted` without validation."""
    size = sum(sum(row) for row in table)
    return Fraction(_GINI_EXACT(table)) / size if size else Fraction(0)


def _clipped(counts: Sequence[float]) -> List[float]:
    return [max(0.0, float(c)) for c in counts]


def _node_gini(counts: Sequence[float]) -> float:
    clipped = _clipped(counts)
    size = sum(clipped)
    return -(1.0 - sum((c / size) ** 2 for c in clipped)) if size > 0 else 0.0


def prune(node: Node) -> Node:
    """PRUNETREE: bottom up, a split whose children are all leaves becomes a leaf when
    sum_i |H_i|/|P| G(H_i) < G(P), all from the released histograms.

    G of a node is -(1 - sum_c p_c^2) of its histogram and |H_i| the sum of a
    child's counts, negative noisy counts clipped to 0 (the paper does not say
    how it treats them); a split whose children sum to 0 is pruned.  It reads
    released values only: post-processing.
    """
    if not isinstance(node, (CategoricalSplit, IntervalSplit)) or node.counts is None:
        return node
    children = tuple(prune(child) for child in node.children)
    leaf_children = [child for child in children if isinstance(child, Leaf)]
    if len(leaf_children) == len(children):
        sizes = [sum(_clipped(leaf.counts)) for leaf in leaf_children]
        total = sum(sizes)
        if total <= 0 or sum(
            size / total * _node_gini(leaf.counts) for size, leaf in zip(sizes, leaf_children)
        ) < _node_gini(node.counts):
            return Leaf(node.counts)
    return dataclasses.replace(node, children=children)


class ForestBuilder:
    """BUILDTREE: the trees of a forest, grown with the per-query ``epsilon`` to ``max_depth`` node levels.

    :meth:`choose` is Q2 (the split attribute); :meth:`plan` and
    :meth:`finish` are the forest's budget plan and what it charges after
    the trees.
    """

    def __init__(
        self,
        data: Dataset,
        engine: Engine,
        epsilon: Fraction,
        max_depth: int,
        params: Mapping[str, Param],
        rng: RandomSource,
        ledger: Ledger,
    ) -> None:
        self.schema = data.schema
        self.bins = PublicBins.of(self.schema, int(params["bins"]))
        self.conditions = self.bins.conditions
        # A continuous column is replaced by its bin codes, a public per-record map, so
        # the binned attribute is a categorical one with ``bins`` values.
        self.counts = engine.counts(self.bins.binned_by(engine, data))
        self.exponential = engine.exponential
        self.histogram = engine.histogram
        self.eps = epsilon
        self.max_depth = max_depth
        self.min_size = int(params["min_size"])
        self.rng = rng
        self.ledger = ledger
        self.quality = quality = self.quality_of(params)
        self.global_sensitivity = get_quality(quality).sensitivity(ledger.relation)
        # The unnormalised Gini of every candidate moves one way when a record joins the node (add-remove);
        # the weighted index divides by the node size, which moves too, so it is not monotone.
        self.monotone = monotone_under(quality, ledger.relation)
        self.roots: Set[int] = set()

    def build(self, rows: Rows, attributes: Tuple[int, ...], d: int, path: Partition) -> Node:
        counts = cast(List[int], self.histogram(  # discrete Laplace noise: ints
            self.counts.class_counts(rows), epsilon=self.eps, rng=self.rng, ledger=self.ledger,
            label=Q1_LABEL, partition=path, names=self.schema.classes,
        ))
        root = d == 1
        candidates = tuple(a for a in attributes if not (root and a in self.roots))
        if d >= self.max_depth or not candidates or not splits(counts, self.min_size):
            return Leaf(tuple(counts))
        tables = [self.counts.value_table(rows, a, len(self.conditions[a])) for a in candidates]
        a = candidates[self.choose(tables, counts, path)]
        if root:
            self.roots.add(a)
        conditions = self.conditions[a]
        buckets = self.counts.split_values(rows, a, len(conditions))
        remaining = tuple(b for b in attributes if b != a)
        children = tuple(
            self.build(bucket, remaining, d + 1, child_path(path, condition))
            for bucket, condition in zip(buckets, conditions)
        )
        return self.bins.split(a, children, tuple(counts))

    def choose(self, tables: Sequence[Sequence[Sequence[int]]], counts: Sequence[int], path: Partition) -> int:
        """Q2: the position of the split attribute among the candidates whose value tables are ``tables``."""
        # The exact sampler is the same function under every engine, so engines stay byte-identical.
        score = weighted_gini_exact if self.quality == "gini-weighted" else _GINI_EXACT
        return exponential_mechanism(
            [score(table) for table in tables], epsilon=self.eps,
            sensitivity=self.global_sensitivity, rng=self.rng,
            ledger=self.ledger, label=Q2_LABEL, partition=path,
            claims=split_claims(self.quality, self.monotone), exact=True, monotone=self.monotone,
        )

    @staticmethod
    def quality_of(params: Mapping[str, Param]) -> str:
        """The Q2 quality: the ``quality`` parameter."""
        return str(params["quality"])

    @staticmethod
    def plan(
        data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, engine: Engine,
        rng: RandomSource, ledger: Ledger,
    ) -> DepthPlan:
        """The forest's budget and depth: :func:`tree_plan`."""
        return tree_plan(data.schema, epsilon, params, relation, len(data), engine, rng, ledger)

    def finish(self, epsilon: Fraction) -> None:
        """What the forest charges after its trees, before the plan's reserve: nothing."""


def fit_dpdf(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train DPDF with total budget ``epsilon`` (beta): ``n_trees`` (tau) pruned trees, confidence vote."""
    return grow_forest(data, epsilon, params, rng, relation, engine, ForestBuilder)


def grow_forest(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
    engine: Engine, builder_type: Type[ForestBuilder],
) -> TreeModel:
    """The forest ``builder_type`` (:class:`ForestBuilder` or a subclass) grows, pruned, with its receipt."""
    n_trees = int(params["n_trees"])
    most = max(1, data.schema.n_attributes)
    if n_trees > most:
        raise InvalidParameterError(
            f"n_trees={n_trees} but the schema has {data.schema.n_attributes} attributes, and the "
            f"roots of the trees must differ; use n_trees <= {most}"
        )
    ledger = start_ledger(data, relation)
    plan = builder_type.plan(data, epsilon, params, relation, engine, rng, ledger)
    budget, max_depth = plan.epsilon, plan.depth
    eps = per_query_epsilon(budget, n_trees, max_depth, relation)
    builder = builder_type(data, engine, eps, max_depth, params, rng, ledger)
    attributes = tuple(range(data.schema.n_attributes))
    trees = tuple(
        prune(builder.build(builder.counts.root(), attributes, 1, (f"tree-{t}",))) for t in range(n_trees)
    )
    builder.finish(epsilon)
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return finish_model(
        SPEC.name, data, params, trees, ledger, budget=epsilon, voting="confidence", plan_inputs={NOISY_SIZE: plan.noisy_size}
    )


SPEC = register(
    AlgorithmSpec(
        name="dpdf",
        summary="DPDF: a forest of greedy multiway DP trees with distinct roots, noisy class "
        "histograms at every node, weighted Gini by the exponential mechanism, pruning, "
        "confidence voting",
        source="S. Fletcher, M. Z. Islam, A differentially private decision forest, AusDM 2015",
        variants=(
            Variant(
                "sound", True,
                "the unnormalised Gini with its global sensitivity 2 (default; no factor 2 under add-remove) or "
                "the weighted Gini index with its global sensitivity 1/2",
                claims=(
                    "discrete-laplace-mechanism", "dpdf-budget", "exact-inversion-sampler", "exponential-mechanism",
                    "exponential-mechanism-exact-sampler", "exponential-mechanism-monotone",
                    "gini-unnormalised-sensitivity", "gini-weighted-sensitivity", "noisy-size-plan",
                    "parallel-composition", "sequential-composition", "split-quality-monotone", "tree-budget-plan",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter("n_trees", int, 1, "number of trees tau (at most the number of attributes)", minimum=1,
                      maximum=1000),
            Parameter("max_depth", int, 5, "maximal depth delta in node levels (delta - 1 splits)", minimum=1,
                      maximum=MAX_DEPTH),
            Parameter(
                "min_size", int, 30,
                "a node splits only if its noisy size |D| >= min_size (30: CV on the tuning corpus, docs/results.md; "
                "100 cut 150-row sets at the root)",
                minimum=1, maximum=10**9,
            ),
            Parameter(
                "bins", int, 5,
                "equal-width intervals of each continuous attribute's public bounds (>= 2)",
                minimum=2, maximum=1024,
            ),
            Parameter(
                "quality", str, "gini",
                "Q2: the weighted Gini index with sensitivity 1/2 (the paper's index) or the "
                "unnormalised Gini with sensitivity 2 (no factor 2 under add-remove: its utilities are monotone)",
                ("gini-weighted", "gini"),
            ),
            *size_parameters(0.05, 2.0),
        ),
        claims=CLAIMS,
        fit=fit_dpdf,
        engines=("reference", "array"),
        derive=derive_dpdf,
    )
)
