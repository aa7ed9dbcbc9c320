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
from refdp.algorithms.rdt_check import check_structure
from refdp.algorithms.rdt import (
    RandomTreeBuilder,
    forest_levels, forest_weights, resolve_max_depth, worst_case_leaves
)
from refdp.algorithms.binning import PublicBins
from refdp.algorithms.noisy_depth import (
    DepthRule,
    choose_depth, laplace_variance, mean_branching, noisy_size, size_parameters, size_share, tree_budget
)
from refdp.algorithms.derivation import (
    model_budget, check_plan_inputs, NO_RANDOMNESS, NOISY_SIZE, check_trees, check_voting, check_weights,
    fresh_ledger, integer_counts, n_leaves, refuse, replay_size
)
from refdp.algorithms.rdt_parameters import AUTO, structure_parameters
from refdp.algorithms.models import finish_model, start_ledger
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.data import CategoricalAttribute, Dataset, Schema
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import NoiseKind, cells_charge
from refdp.privacy import Charge, Ledger, Relation
from refdp.privacy.ledger import data_independent_charge
from refdp.rng import RandomSource
from refdp.tree import Count, Node, TreeModel

__all__ = ["fit_private_rdt", "derive_private_rdt", "forest_plan", "split_kinds", "ForestPlan", "SPEC"]

CLAIMS = (
    "private-rdt-budget",
    "noisy-size-plan",
    "discrete-laplace-mechanism",
    "laplace-mechanism",
    "parallel-composition",
    "sequential-composition",
)


WIDE = ("multiway", "bins")
"""The split kinds ``auto`` means on data that can fill their leaves: one child per value or public bin."""

NARROW = ("binary", "threshold")
"""... and on data too small for them: value-vs-rest and random thresholds, two children per split."""


@dataclass(frozen=True)
class ForestPlan:
    """What the noisy size leaves of the forest: split kinds, depth, number of trees and the epsilon of each cell."""

    categorical: str
    continuous: str
    depth: int
    n_trees: int
    per_cell: Fraction
    noisy_size: Optional[int]


def split_kinds(params: Mapping[str, Param]) -> Tuple[Tuple[str, str], ...]:
    """The (categorical, continuous) split kinds the plan may use, the wide ones first.

    ``auto`` is multiway or binary for categorical attributes and bins or
    threshold for continuous ones; a kind that is given stays in both.

    >>> split_kinds({"categorical": "auto", "continuous": "auto"})
    (('multiway', 'bins'), ('binary', 'threshold'))
    >>> split_kinds({"categorical": "binary", "continuous": "auto"})
    (('binary', 'bins'), ('binary', 'threshold'))
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


def check_leaves(schema: Schema, params: Mapping[str, Param]) -> None:
    """Refuse, before anything is drawn, split kinds the caller gave whose trees could exceed ``max_leaves``."""
    if AUTO in (params["categorical"], params["continuous"]):
        return  # forest_plan leaves out the kinds it chose that are too wide
    max_depth = resolve_max_depth(schema, int(params["max_depth"]))
    for kind in split_kinds(params):
        if _leaves_bound(schema, kind, max_depth, int(params["bins"])) > int(params["max_leaves"]):
            _refuse_leaves(schema, kind, max_depth, params)


def forest_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> ForestPlan:
    """The forest's plan: a noisy size of the ``size`` rows (charged to ``ledger``) chooses the kinds and depth.

    For each allowed pair of split kinds (:func:`split_kinds`), the deepest
    d <= ``max_depth`` whose average leaf stands out of the forest's noise
    (:func:`~refdp.algorithms.noisy_depth.choose_depth`, with
    ceil(N_t max_depth / d) trees at depth d); the plan is the pair whose
    trees then have the most leaves (B^d for a mean branching B; a tie goes
    to the wider kinds).  Kinds whose trees could have more than
    ``max_leaves`` leaves are left out when ``auto`` chose them.  Without a
    noisy size (``size_share=0``) the trees are the first kinds' at
    ``max_depth``.  A function of public values and the released noisy size
    only: a verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> from refdp.engine import REFERENCE
    >>> from refdp.privacy import Ledger
    >>> plan = forest_plan(load("vote").schema, Fraction(1), {"n_trees": 10, "max_depth": 3, "continuous": "bins",
    ...                    "bins": 10, "categorical": "multiway", "size_share": 0.0, "leaf_sigmas": 2.5,
    ...                    "max_leaves": 16384}, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS, Ledger())
    >>> plan.categorical, plan.depth, plan.n_trees, plan.per_cell
    ('multiway', 3, 10, Fraction(1, 10))
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
    noisy = noisy_size(size, epsilon, share, engine, rng, ledger)

    def trees_at(d: int) -> int:
        # A shallower forest keeps its number of attribute tests (N_t D) with more trees; no test, one leaf.
        return -(-n_trees * max_depth // d) if d > 0 else 1

    best: Optional[Tuple[Fraction, Tuple[str, str], int]] = None
    for kind in allowed:
        branching = mean_branching(schema, bins if kind[1] == "bins" else 2, binary=kind[0] == "binary")
        if noisy is None:
            depth = max_depth
        else:
            depth = choose_depth(noisy, left, DepthRule(
                sigmas, max_depth, schema.n_classes, leaves=lambda d: branching**d,
                variance=lambda d, budget: laplace_variance(budget / (relation_factor * trees_at(d))) / trees_at(d),
            ))
        if best is None or branching**depth > best[0]:
            best = (branching**depth, kind, depth)
        if noisy is None:
            break
    assert best is not None
    _, (categorical, continuous), depth = best
    n_trees = trees_at(depth) if depth < max_depth else n_trees
    return ForestPlan(categorical, continuous, depth, n_trees, left / (relation_factor * n_trees), noisy)


def _structure_charge(t: int, n_leaves: int) -> Charge:
    return data_independent_charge(
        label=f"tree {t}: random structure ({n_leaves} leaves)",
        partition=(f"tree{t}",),
        note="Fan et al. structure drawn from the public schema before reading any row",
    )


def _counts_label(t: int, n_leaves: int, n_classes: int) -> str:
    return f"tree {t}: class counts of every leaf ({n_leaves} leaves x {n_classes} classes)"


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
    check_leaves(schema, params)
    noise = str(params["noise"])
    voting = str(params["voting"])
    ledger = start_ledger(data, relation)
    plan = forest_plan(schema, epsilon, params, relation, len(data), engine, rng, ledger)
    depth, n_trees, per_cell = plan.depth, plan.n_trees, plan.per_cell
    categorical = plan.categorical
    bins = PublicBins.of(schema, int(params["bins"])) if plan.continuous == "bins" else None
    train = bins.binned_by(engine, data) if bins is not None else data
    multiway = frozenset(bins.thresholds) if bins is not None else frozenset()
    counts = engine.counts(train)
    rows = counts.root()
    classes = schema.classes
    trees: List[Node] = []
    levels = forest_levels(schema.n_attributes, n_trees, depth, rng) if params["structure"] == "per-level" else None
    for t in range(n_trees):
        scope = f"tree{t}"
        builder = RandomTreeBuilder(train.schema, depth, categorical, rng, multiway, None if levels is None else levels[t])
        n_leaves = builder.expand()
        ledger.record(_structure_charge(t, n_leaves))
        histograms = builder.leaf_class_counts(counts, rows)
        noisy = engine.cells(
            [c for histogram in histograms for c in histogram], shape=(("leaf", n_leaves), ("class", len(classes))),
            epsilon=per_cell, rng=rng, ledger=ledger, partition=(scope,), noise=noise,
            label=_counts_label(t, n_leaves, len(classes)),
        )
        k = len(classes)
        released: List[Tuple[Count, ...]] = [tuple(noisy[j * k : j * k + k]) for j in range(n_leaves)]
        tree = builder.build(released.__getitem__, collapse_zeros=False)
        trees.append(bins.unbin(tree) if bins is not None else tree)
    weights = forest_weights(schema.n_attributes, n_trees, depth) if voting == "log-odds" else ()
    return finish_model(
        SPEC.name, data, params, trees, ledger, budget=epsilon, weights=weights, voting=voting,
        plan_inputs={NOISY_SIZE: plan.noisy_size},
    )


def derive_private_rdt(model: TreeModel) -> Optional[Ledger]:
    """The charges of the forest's plan, from the public parts of ``model`` (:mod:`refdp.algorithms.derivation`).

    The plan (:func:`forest_plan`) is replayed with the released noisy
    size; each tree's leaves, counted in the model, give its structure and
    counts charges.  The trees must be structures the plan can draw, their
    counts whole numbers under discrete Laplace noise, and their weights the
    voting rule's.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("private-rdt", load("vote"), 1, rng=1)
    >>> derive_private_rdt(model).charges == model.receipt.charges
    True
    """
    schema, params = model.schema, model.params
    ledger = fresh_ledger(model)
    plan = forest_plan(
        schema, model_budget(model), params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger,
    )
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    check_trees(model, plan.n_trees)
    voting = str(params["voting"])
    check_voting(model, voting)
    weights = forest_weights(schema.n_attributes, plan.n_trees, plan.depth) if voting == "log-odds" else ()
    check_weights(model, weights or [1.0] * plan.n_trees)
    noise: NoiseKind = "laplace" if params["noise"] == "laplace" else "discrete-laplace"
    if noise == "discrete-laplace":
        integer_counts(model, "discrete Laplace counts")
    bins = PublicBins.of(schema, int(params["bins"])).thresholds if plan.continuous == "bins" else None
    for t, tree in enumerate(model.trees):
        check_structure(
            tree, schema, plan.depth, plan.categorical, bins, params["structure"] == "per-level",
            collapsed=False, where=f"tree {t}",
        )
        leaves = n_leaves(tree)
        if leaves > int(params["max_leaves"]):
            refuse(f"tree {t} has {leaves} leaves, more than max_leaves={params['max_leaves']}")
        ledger.record(_structure_charge(t, leaves))
        ledger.record(cells_charge(
            shape=(("leaf", leaves), ("class", schema.n_classes)), epsilon=plan.per_cell, label=_counts_label(
                t, leaves, schema.n_classes), partition=(f"tree{t}",), noise=noise,
        ))
    return ledger


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
            Parameter("n_trees", int, 10, "number of trees N_t (the budget is split evenly)", minimum=1,
                      maximum=1000),
            Parameter(
                "max_depth", int, 3,
                "depth of every tree (at most; see size_share); -1 means half the number of attributes "
                "(Fan et al.)",
                minimum=-1, maximum=MAX_DEPTH,
            ),
            *structure_parameters(10, auto=True),
            *size_parameters(0.05, 1.5),
            Parameter(
                "max_leaves", int, 16384,
                "refuse settings whose trees could have more leaves than this (each leaf gets noise)",
                minimum=1, maximum=2**20,
            ),
            Parameter(
                "noise", str, "discrete-laplace", "noise distribution of the counts",
                ("discrete-laplace", "laplace"),
            ),
        ),
        claims=CLAIMS,
        fit=fit_private_rdt,
        engines=("reference", "array"),
        derive=derive_private_rdt,
    )
)
