"""Private-RDT: random decision trees with noisy leaf counts (Jagannathan, Pillaipakkamnatt & Wright 2012).

Each of the N_t trees gets a structure drawn from the public schema alone
(:mod:`refdp.algorithms.rdt`, Fan et al. 2003), drawn in full *before* any
row is read; then the training rows are split down the tree so that each reaches its
leaf (:meth:`~refdp.algorithms.rdt.RandomTreeBuilder.leaf_class_counts`), and the
class count n_i(leaf(y)) of every (leaf, class) cell -- empty leaves and
zero classes included -- is released with noise.  Prediction either adds
the released counts of the leaves a row reaches over all trees
(``voting="sum-counts"``, Algorithm 2 of Waseda, Nojima & Wang 2024), or
(``"log-odds"``, the default) lets each tree move a class's log-odds by its
leaf's share of the class against the tree's, with weight
min(1, A / (N_t d)) (:class:`refdp.tree.TreeModel`): on data with a rare
class the many uninformative trees of a random forest then stop voting for
the majority with the whole weight of their leaves.

Structure options (all data-independent): ``structure="per-level"`` (the
default) tests one attribute per level, dealt so that every attribute is
tested about equally often across the forest, ``"per-node"`` is Fan et
al.'s; ``continuous="bins"`` (the default) cuts a continuous attribute into
``bins`` public equal-width bins and splits it one child per bin, once per
path, ``"threshold"`` draws Fan et al.'s thresholds.

Plan from a noisy size (claim ``noisy-size-plan``, :func:`plan_forest`):
``size_share`` of epsilon buys a noisy count of the rows, which caps the
depth at the deepest d whose average leaf (over sqrt(|C|)) stands
``leaf_sigmas`` standard deviations out of the forest's noise
(:mod:`refdp.algorithms.noisy_depth`); a forest made shallower keeps its
N_t max_depth attribute tests with ceil(N_t max_depth / d) trees, and
d = 0 is one noisy histogram.  With ``categorical`` and ``continuous`` at
``auto`` (the defaults) the rule is applied to wide splits (one child per
value or public bin) and to narrow ones (value-vs-rest, random thresholds),
and the forest whose trees get the more leaves is grown: small data sets
get binary trees that can go deeper.  The trees then share the rest of
epsilon.

Budget (claim ``private-rdt-budget``).  The trees are released one after
another on the same rows: sequential composition, each tree is a scope
``tree<i>`` of the ledger.  Inside a tree the (leaf, class) cells partition
the rows (cells ``leaf=<j>`` then ``class=<c>``): parallel composition.  A
count has sensitivity 1; under add-remove a record touches one cell, so a
tree costs its per-cell epsilon and each cell gets epsilon / N_t; under
substitute a record may leave one cell and join another (another leaf, or
another class), the ledger charges a tree twice its per-cell epsilon, and
each cell gets epsilon / (2 N_t).  The receipt's total is the requested
epsilon exactly under both relations.

Noise: discrete Laplace (exact sampler) by default, continuous Laplace on
request.  Every leaf gets noise, so the number of leaves is bounded before
anything is drawn: ``max_leaves`` caps :func:`~refdp.algorithms.rdt.worst_case_leaves`
(multiway splits on wide domains such as Adult's grow as the product of the
domain sizes; ``categorical=binary`` keeps a tree at 2^depth leaves).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Mapping, Optional, Tuple

from refdp.engine import REFERENCE, Engine
from refdp.algorithms.rdt import (
    CATEGORICAL_SPLITS,
    CONTINUOUS_SPLITS,
    RDT_VOTING,
    STRUCTURES,
    RandomTreeBuilder,
    forest_levels,
    forest_weights,
    resolve_max_depth,
    worst_case_leaves,
)
from refdp.algorithms.binning import PublicBins
from refdp.algorithms.noisy_depth import (
    choose_depth,
    laplace_variance,
    mean_branching,
    noisy_size,
    size_parameters,
    size_share,
    tree_budget,
)
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import CategoricalAttribute, Dataset, Schema
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import Count, Node, TreeModel

__all__ = ["ForestPlan", "split_kinds", "plan_forest", "fit_private_rdt", "SPEC"]

CLAIMS = (
    "private-rdt-budget",
    "noisy-size-plan",
    "discrete-laplace-mechanism",
    "laplace-mechanism",
    "parallel-composition",
    "sequential-composition",
)


AUTO = "auto"

WIDE = ("multiway", "bins")
"""The split kinds ``auto`` means on data that can fill their leaves: one child per value or public bin."""

NARROW = ("binary", "threshold")
"""... and on data too small for them: value-vs-rest and random thresholds, two children per split."""


@dataclass(frozen=True)
class ForestPlan:
    """What a Private-RDT fit grows: split kinds, depth, number of trees and the trees' budget.

    A function of public values and the released noisy size only (:func:`plan_forest`).
    """

    categorical: str
    continuous: str
    depth: int
    n_trees: int
    epsilon: Fraction
    noisy_size: Optional[int]


def split_kinds(params: Mapping[str, Param]) -> Tuple[Tuple[str, str], ...]:
    """The (categorical, continuous) split kinds the plan may use, the wide ones first.

    ``auto`` is multiway or binary for categorical attributes and bins or
    threshold for continuous ones; a kind that is given stays in both.
    """
    categorical, continuous = str(params["categorical"]), str(params["continuous"])
    kinds = [
        (categorical if categorical != AUTO else wide[0], continuous if continuous != AUTO else wide[1])
        for wide in (WIDE, NARROW)
    ]
    return tuple(dict.fromkeys(kinds))


def _leaves_bound(schema: Schema, kinds: Tuple[str, str], max_depth: int, bins: int) -> int:
    """The most leaves a tree with these split kinds can have (:func:`~refdp.algorithms.rdt.worst_case_leaves`)."""
    if kinds[1] != "bins":
        return worst_case_leaves(schema, max_depth, kinds[0])
    binned = PublicBins.of(schema, bins)
    return worst_case_leaves(binned.binned_schema(), max_depth, kinds[0], frozenset(binned.thresholds))


def plan_forest(
    noisy_size: Optional[int], epsilon: Fraction, params: Mapping[str, Param], schema: Schema, relation: Relation
) -> ForestPlan:
    """The forest to grow, from the public schema, parameters, epsilon and the noisy size N~.

    For each allowed pair of split kinds (:func:`split_kinds`), the deepest
    d <= ``max_depth`` whose average leaf stands out of the
    forest's noise (:func:`~refdp.algorithms.noisy_depth.choose_depth`, with
    ceil(N_t max_depth / d) trees at depth d); the plan is the pair whose
    trees then have the most leaves (B^d for a mean branching B; a tie goes
    to the wider kinds).  Kinds whose trees could have more than
    ``max_leaves`` leaves are left out when ``auto`` chose them, and refused
    when they were given.  Without a noisy size (``size_share=0``) the
    trees are the first kinds' at ``max_depth``.
    """
    n_trees = int(params["n_trees"])
    max_depth = resolve_max_depth(schema, int(params["max_depth"]))
    bins = int(params["bins"])
    share, sigmas = size_share(params)
    left = tree_budget(epsilon, share)
    relation_factor = 1 if relation is Relation.ADD_REMOVE else 2
    kinds = list(split_kinds(params))
    allowed = [k for k in kinds if _leaves_bound(schema, k, max_depth, bins) <= int(params["max_leaves"])]
    if not allowed:
        _refuse_leaves(schema, kinds[-1], max_depth, params)

    def trees_at(d: int) -> int:
        # A shallower forest keeps its number of attribute tests (N_t D) with more trees; no test, one leaf.
        return -(-n_trees * max_depth // d) if d > 0 else 1

    best: Optional[Tuple[Fraction, Tuple[str, str], int]] = None
    for kind in allowed:
        branching = mean_branching(schema, bins if kind[1] == "bins" else 2, binary=kind[0] == "binary")
        if noisy_size is None:
            depth = max_depth
        else:
            depth = choose_depth(
                noisy_size, left, sigmas, max_depth, schema.n_classes, leaves=lambda d: branching**d,
                variance=lambda d, budget: laplace_variance(budget / (relation_factor * trees_at(d))) / trees_at(d),
            )
        if best is None or branching**depth > best[0]:
            best = (branching**depth, kind, depth)
        if noisy_size is None:
            break
    assert best is not None
    _, (categorical, continuous), depth = best
    return ForestPlan(
        categorical, continuous, depth, trees_at(depth) if depth < max_depth else n_trees, left, noisy_size
    )


def _refuse_leaves(schema: Schema, kind: Tuple[str, str], max_depth: int, params: Mapping[str, Param]) -> None:
    categorical, continuous = kind
    binned_attributes = continuous == "bins" and any(not isinstance(a, CategoricalAttribute) for a in schema.attributes)
    shape = f"{categorical} categorical splits"
    shape += f" and {int(params['bins'])} bins per continuous attribute" if binned_attributes else ""
    remedies = ["lower max_depth"]
    remedies += ["use categorical=binary"] if categorical != "binary" else []
    remedies += ["use fewer bins or continuous=threshold"] if binned_attributes else []
    bound = _leaves_bound(schema, kind, max_depth, int(params["bins"]))
    raise InvalidParameterError(
        f"a private-rdt tree of depth {max_depth} with {shape} can have {bound} leaves, "
        f"more than max_leaves={int(params['max_leaves'])}; every leaf gets noise, so {', '.join(remedies)}, "
        "or raise max_leaves"
    )


def fit_private_rdt(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train N_t random decision trees and release every leaf's class counts with noise."""
    schema = data.schema
    max_depth = resolve_max_depth(schema, int(params["max_depth"]))
    for kind in split_kinds(params):  # settings given by the caller are refused before anything is drawn
        if AUTO not in (params["categorical"], params["continuous"]) and (
            _leaves_bound(schema, kind, max_depth, int(params["bins"])) > int(params["max_leaves"])
        ):
            _refuse_leaves(schema, kind, max_depth, params)
    ledger = start_ledger(data, relation)
    share, _ = size_share(params)
    plan = plan_forest(noisy_size(len(data), epsilon, share, engine, rng, ledger), epsilon, params, schema, relation)
    noise = str(params["noise"])
    voting = str(params["voting"])
    bins = PublicBins.of(schema, int(params["bins"])) if plan.continuous == "bins" else None
    train = bins.binned_by(engine, data) if bins is not None else data
    multiway = frozenset(bins.thresholds) if bins is not None else frozenset()
    relation_factor = 1 if relation is Relation.ADD_REMOVE else 2
    depth, n_trees = plan.depth, plan.n_trees
    per_cell = plan.epsilon / (relation_factor * n_trees)
    counts = engine.counts(train)
    rows = counts.root()
    classes = schema.classes
    trees: List[Node] = []
    levels = forest_levels(schema.n_attributes, n_trees, depth, rng) if params["structure"] == "per-level" else None
    for t in range(n_trees):
        scope = f"tree{t}"
        builder = RandomTreeBuilder(
            train.schema, depth, plan.categorical, rng, multiway, None if levels is None else levels[t]
        )
        n_leaves = builder.expand()
        ledger.record_data_independent(
            label=f"tree {t}: random structure ({n_leaves} leaves)",
            partition=(scope,),
            note="Fan et al. structure drawn from the public schema before reading any row",
        )
        histograms = builder.leaf_class_counts(counts, rows)
        noisy = engine.cells(
            [c for histogram in histograms for c in histogram], shape=(("leaf", n_leaves), ("class", len(classes))),
            epsilon=per_cell, rng=rng, ledger=ledger, partition=(scope,), noise=noise,
            label=f"tree {t}: class counts of every leaf ({n_leaves} leaves x {len(classes)} classes)",
        )
        k = len(classes)
        released: List[Tuple[Count, ...]] = [tuple(noisy[j * k : j * k + k]) for j in range(n_leaves)]
        tree = builder.build(released.__getitem__, collapse_zeros=False)
        trees.append(bins.unbin(tree) if bins is not None else tree)
    weights = forest_weights(schema.n_attributes, n_trees, depth) if voting == "log-odds" else ()
    return finish_model(SPEC.name, data, params, trees, ledger, weights=weights, voting=voting)


SPEC = register(
    AlgorithmSpec(
        name="private-rdt",
        summary="random decision trees from the public schema; noisy class counts in every leaf; summed votes",
        source="Jagannathan, Pillaipakkamnatt & Wright, Trans. Data Privacy 2012; Fan et al., ICDM 2003",
        variants=(
            Variant(
                "sound", True, "noise on every (leaf, class) cell, empty leaves included",
                claims=("discrete-laplace-mechanism", "noisy-size-plan", "parallel-composition", "sequential-composition"),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter("n_trees", int, 10, "number of trees N_t (the budget is split evenly)", minimum=1),
            Parameter(
                "max_depth", int, 3,
                "depth of every tree (at most; see size_share); -1 means half the number of attributes "
                "(Fan et al.)",
                minimum=-1,
            ),
            Parameter(
                "structure", str, "per-level",
                "where the attributes are drawn: at every node (Fan et al.), or once per level of a tree, "
                "dealt so that every attribute appears about equally often in the forest",
                STRUCTURES,
            ),
            Parameter(
                "categorical", str, AUTO,
                "categorical splits: one child per value (Fan et al.) or value-vs-rest; auto: multiway when the "
                "noisy size fills such trees' leaves better than binary ones (with continuous=auto: bins then)",
                (AUTO,) + CATEGORICAL_SPLITS,
            ),
            Parameter(
                "continuous", str, AUTO,
                "continuous attributes: one child per public equal-width bin (used once per path), or a "
                "threshold drawn uniformly from the remaining public range (Fan et al.); auto: as categorical",
                (AUTO,) + CONTINUOUS_SPLITS,
            ),
            Parameter("bins", int, 10, "bins of a continuous attribute when continuous=bins", minimum=2),
            Parameter(
                "voting", str, "log-odds",
                "how the trees vote: log-odds (each tree moves a class's odds by its leaf's share against the "
                "tree's) or sum-counts (the leaves' counts added, Waseda et al.'s Algorithm 2)",
                RDT_VOTING,
            ),
            *size_parameters(0.05, 1.5),
            Parameter(
                "max_leaves", int, 16384,
                "refuse settings whose trees could have more leaves than this (each leaf gets noise)",
                minimum=1,
            ),
            Parameter(
                "noise", str, "discrete-laplace", "noise distribution of the counts",
                ("discrete-laplace", "laplace"),
            ),
        ),
        claims=CLAIMS,
        fit=fit_private_rdt,
        engines=("reference", "array"),
    )
)
