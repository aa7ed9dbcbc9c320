"""DPEA: Bai, Yao, Yuan, Deng, Xie & Guan, "Embedding differential privacy in decision tree
algorithm with different depths", Sci China Inf Sci 60(8) 082104, 2017.

Algorithm 1, with total budget eps, maximal depth D (levels of splits on a
root-to-leaf path; depth 0 is a single leaf) and embedding depth d:

    eps' = eps / (ceil(D/d) + 1)
    innerNodes = {root}
    while innerNodes is not empty:
        n = pop(innerNodes);  k = min(d, D - depth(n))
        st = a subtree of k split levels under n, chosen by the exponential
             mechanism with quality q' (eq. 2, Delta q' = 2) and budget eps'
             (Algorithm 2: over the explicit list; Algorithm 3: by MCMC)
        for each leaf l of st:
            if l meets the stopping condition: label l from noisy class counts (eps')
            else: innerNodes += {l}

A root-to-leaf path meets at most ceil(D/d) selections and one leaf
release, hence eps' (claim ``dpea-budget``).  The paper's "(d+1)-layer
subtree" has d levels of splits; ``embed_depth="whole"`` is d = D, one
selection of the whole tree and eps' = eps/2 (the paper's section 3.5).

Variants:

* ``sound`` (default): the stopping condition reads public information only
  (depth D reached, no attribute left), so every path has the same number
  of selections; D is capped first by a noisy size of the data
  (``size_share``, claim ``noisy-size-plan``), the budgeted stopping rule
  of issue 19; under add-remove the exact and exhaustive samplers drop the
  exponential mechanism's factor 2 (q' is monotone: claims
  ``split-quality-monotone``, ``exponential-mechanism-monotone``); every leaf releases noisy counts of every class (discrete
  Laplace, exact).  Under ``substitute`` eps' = eps / K with K the
  substitute cost of the plan (2 ceil(D/d) + 1), and the receipt totals eps
  under either relation; a tree that runs out of attributes before depth D
  reserves the unspent part (claim ``tree-budget-plan``).
* ``published`` (unsound): also stops on TRUE counts -- a subtree leaf with
  fewer than ``min_size`` rows, or with a single class, becomes a leaf
  (section 4.1) -- which releases those counts through the tree's shape
  (claim ``dpea-structure-leak``); its MCMC has no Hastings correction and
  stops when the scores' variance falls below ``threshold``.

Searches (``search``):

* ``exact`` (default): the factorised perfect sampler of the exponential
  mechanism (:class:`~refdp.algorithms.dpea_subtrees.FactorisedSampler`,
  claim ``dpea-factorised-sampler``), practical for whole trees because
  empty and pure nodes have a closed form; it samples exactly, with
  integer enclosures of the partition functions and inversion of lazily
  drawn bits (claim ``exact-inversion-sampler``), no float;
* ``exhaustive``: Algorithm 2 over the explicit list (at most
  ``max_subtrees`` subtrees), one draw of the float exponential mechanism
  (claim ``exponential-mechanism-float-sampler``: exact only up to rounding);
* ``mcmc``: Algorithm 3.  In ``published``, as published; in ``sound``, the
  Hastings-corrected chain for exactly ``steps`` steps -- its charge is
  recorded as unsound, because a finite chain has no proved distance from
  the mechanism (claim ``dpea-mcmc``);
* ``paper``: Algorithm 1's rule, exhaustive for subtrees of at most 2
  levels and MCMC for deeper ones.

Every search replays from a seed byte for byte: ``exact`` draws
``rng.getrandbits(32)`` words, the others one ``rng.random()`` per draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Mapping, Optional, Tuple

from refdp.algorithms.dpea_mcmc import run_chain
from refdp.algorithms.dpea_subtrees import (
    QUALITY_SENSITIVITY,
    FactorisedSampler,
    Shape,
    domain_sizes,
    exhaustive_subtrees,
)
from refdp.algorithms.binning import PublicBins
from refdp.algorithms.derivation import (
    model_budget,
    NO_RANDOMNESS,
    NOISY_SIZE,
    check_plan_inputs,
    check_trees,
    check_voting,
    check_weights,
    fresh_ledger,
    integer_counts,
    refuse,
    replay_size,
)
from refdp.algorithms.greedy import NodeCost, child_path, close_budget, plan_units
from refdp.algorithms.noisy_depth import (
    DepthPlan,
    laplace_variance,
    mean_branching,
    plan_depth,
    size_parameters,
    size_share,
)
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import CategoricalAttribute, Dataset, Schema
from refdp.engine import REFERENCE, Engine, NodeCounts, TrainingView
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import exponential_charge, exponential_mechanism, histogram_charges
from refdp.privacy import Charge, Ledger, Partition, Relation
from refdp.privacy.ledger import new_charge
from refdp.rng import RandomSource
from refdp.tree import CategoricalSplit, IntervalSplit, Leaf, Node, TreeModel

__all__ = [
    "SPEC",
    "SELECTION",
    "LEAF",
    "SEARCHES",
    "fit_dpea",
    "derive_dpea",
    "tree_plan",
    "selection_charge",
    "search_of",
    "embedding_depth",
    "selections",
    "per_query_epsilon",
    "DEFAULT_MAX_SUBTREES",
]

CLAIMS = (
    "noisy-size-plan",
    "exponential-mechanism-monotone",
    "split-quality-monotone",
    "dpea-budget",
    "dpea-subtree-quality-sensitivity",
    "dpea-factorised-sampler",
    "dpea-mcmc",
    "dpea-structure-leak",
    "tree-budget-plan",
    "exponential-mechanism",
    "exponential-mechanism-float-sampler",
    "exact-inversion-sampler",
    "discrete-laplace-mechanism",
    "parallel-composition",
    "sequential-composition",
)

SELECTION = NodeCost(Fraction(1), Fraction(1))
"""A subtree selection: one exponential mechanism (Delta q' = 2 covers a replaced record too)."""

LEAF = NodeCost(Fraction(1), Fraction(2))
"""A leaf: noisy counts of every class (2 units for a record that changes class)."""

SEARCHES: Tuple[str, ...] = ("exact", "exhaustive", "mcmc", "paper")

DEFAULT_MAX_SUBTREES = 1_000_000
"""The largest list exhaustive search builds unless told otherwise."""


def embedding_depth(value: Param, max_depth: int) -> int:
    """d from the ``embed_depth`` parameter: a positive integer, or "whole" for d = D (at least 1)."""
    text = str(value).strip()
    if text == "whole":
        return max(1, max_depth)
    # ASCII digits only: str.isdigit also accepts full-width and other scripts' digits
    digits = text.isascii() and text.isdigit() and len(text) <= 20
    if isinstance(value, bool) or not digits or not 1 <= int(text) <= MAX_DEPTH:
        raise InvalidParameterError(
            f"parameter embed_depth must be an integer in [1, {MAX_DEPTH}] (split levels per "
            f"selection) or 'whole' (one selection of the whole tree), got {str(value)[:40]!r}"
        )
    return int(text)


def selections(max_depth: int, embed: int) -> int:
    """ceil(D/d): the selections on a root-to-leaf path of a tree of depth D."""
    return -(-max_depth // embed)


def per_query_epsilon(budget: Fraction, max_depth: int, embed: int, relation: Relation) -> Fraction:
    """eps' = eps / K, K = ceil(D/d) + 1 under add-remove and 2 ceil(D/d) + 1 (2 for D = 0) under substitute."""
    return budget / plan_units(SELECTION, LEAF, selections(max_depth, embed), relation)


class _Builder:
    """Algorithm 1: grow the tree one selected subtree at a time (depth first)."""

    def __init__(
        self,
        view: TrainingView,
        counts: NodeCounts,
        params: Mapping[str, Param],
        epsilon: Fraction,
        max_depth: int,
        embed: int,
        rng: RandomSource,
        ledger: Ledger,
        engine: Engine = REFERENCE,
    ) -> None:
        self.engine = engine
        self.view = view
        # Every count goes through the engine's counts, whose rows the builder holds.
        self.counts = counts
        self.schema = view.schema
        self.sizes = domain_sizes(view.schema)
        self.eps = epsilon
        self.published = params["variant"] == "published"
        # Under add-remove every candidate subtree's q' moves one way when a record joins the rows: the
        # exact and exhaustive samplers drop the factor 2 (claims split-quality-monotone,
        # exponential-mechanism-monotone).  The MCMC keeps the published calibration.
        self.monotone = ledger.relation is Relation.ADD_REMOVE and not self.published
        self.c_exact = epsilon / (QUALITY_SENSITIVITY if self.monotone else 2 * QUALITY_SENSITIVITY)
        self.c = float(epsilon / (2 * QUALITY_SENSITIVITY))
        self.max_depth = max_depth
        self.embed = embed
        self.rng = rng
        self.ledger = ledger
        self.search = str(params["search"])
        self.steps = int(params["steps"])
        self.buffer = int(params["buffer"])
        self.threshold = float(params["threshold"])
        self.min_size = int(params["min_size"])
        self.max_subtrees = int(params["max_subtrees"])
        if self.search in ("mcmc", "paper") and self.published and self.buffer < 2:
            raise InvalidParameterError(f"parameter buffer must be >= 2 to have a variance, got {self.buffer}")

    def grow(self, rows: List[int], attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        """The tree below an element of innerNodes at ``depth`` (Algorithm 1, lines 5-25)."""
        levels = min(self.embed, self.max_depth - depth)
        if levels == 0 or not attributes:
            return self._leaf(rows, path)
        shape = self._select(rows, attributes, levels, path)
        return self._attach(shape, rows, attributes, depth, path)

    def _attach(self, shape: Shape, rows: List[int], attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        if shape is None:
            if self._stops(rows, attributes, depth):
                return self._leaf(rows, path)
            return self.grow(rows, attributes, depth, path)
        a = shape.attribute
        attribute = self.schema.attributes[a]
        assert isinstance(attribute, CategoricalAttribute)
        rest = tuple(b for b in attributes if b != a)
        buckets = self.counts.split_values(rows, a, attribute.n_values)
        return CategoricalSplit(
            a,
            tuple(
                self._attach(child, bucket, rest, depth + 1, child_path(path, f"{attribute.name}={value}"))
                for child, bucket, value in zip(shape.children, buckets, attribute.values)
            ),
        )

    def _stops(self, rows: List[int], attributes: Tuple[int, ...], depth: int) -> bool:
        """The stopping condition of a subtree's leaf (Algorithm 2, line 13)."""
        if depth >= self.max_depth or not attributes:
            return True
        if not self.published:
            return False
        counts = self.counts.class_counts(rows)
        return len(rows) < self.min_size or sum(1 for n in counts if n) <= 1

    def _leaf(self, rows: List[int], path: Partition) -> Leaf:
        counts = self.engine.histogram(
            self.counts.class_counts(rows), epsilon=self.eps, rng=self.rng, ledger=self.ledger,
            label=LEAF_LABEL, partition=path, names=self.schema.classes,
        )
        return Leaf(tuple(counts))

    def _select(self, rows: List[int], attributes: Tuple[int, ...], levels: int, path: Partition) -> Shape:
        search = search_of(self.search, levels)
        charge = selection_charge(search, levels, self.eps, self.monotone, self.published, self.steps, path)
        if search == "exhaustive":
            candidates = exhaustive_subtrees(self.view, rows, attributes, levels, self.max_subtrees, self.counts)
            index = exponential_mechanism(
                [score for _, score in candidates], epsilon=self.eps, sensitivity=QUALITY_SENSITIVITY,
                rng=self.rng, ledger=self.ledger, label=charge.label, partition=path,
                claims=_CLAIMS + (_MONOTONE[1:] if self.monotone else ()), monotone=self.monotone,
            )
            return candidates[index][0]
        if search == "exact":
            sampler = FactorisedSampler(self.view, rows, attributes, levels, self.c_exact, self.counts)
            self.ledger.record(charge)
            return sampler.sample(self.rng)
        self.ledger.record(charge)
        return run_chain(
            self.view, rows, attributes, levels, self.c, self.rng, steps=self.steps,
            hastings=not self.published, buffer=self.buffer,
            threshold=self.threshold if self.published else None, counts=self.counts,
        ).shape


_CLAIMS = ("exponential-mechanism", "dpea-subtree-quality-sensitivity")
_MONOTONE = ("exponential-mechanism-monotone", "split-quality-monotone")
LEAF_LABEL = "NoiseCount N_c (leaf)"
BUDGET_CLAIMS = ("tree-budget-plan", "dpea-budget")


def search_of(search: str, levels: int) -> str:
    """The search a selection of ``levels`` levels runs: ``paper`` is exhaustive up to 2 levels, MCMC deeper.

    >>> search_of("paper", 2), search_of("paper", 3), search_of("exact", 3)
    ('exhaustive', 'mcmc', 'exact')
    """
    if search == "paper":
        return "exhaustive" if levels <= 2 else "mcmc"
    return search


def selection_charge(
    search: str, levels: int, epsilon: Fraction, monotone: bool, published: bool, steps: int, path: Partition
) -> Charge:
    """The charge of one subtree selection of ``levels`` levels at ``path`` by ``search`` (see :func:`search_of`).

    >>> selection_charge("exact", 2, Fraction(1, 3), True, False, 1000, ()).label
    "subtree of 2 level(s), exponential mechanism on q' (factorised exact sampler)"
    """
    label = f"subtree of {levels} level(s), exponential mechanism on q'"
    if search == "exhaustive":
        return exponential_charge(
            epsilon=epsilon, sensitivity=QUALITY_SENSITIVITY, label=label + " (exhaustive list, Algorithm 2)",
            partition=path, claims=_CLAIMS + (_MONOTONE[1:] if monotone else ()), monotone=monotone,
        )
    if search == "exact":
        return new_charge(
            label=label + " (factorised exact sampler)", mechanism="exponential", epsilon=epsilon,
            sensitivity=Fraction(QUALITY_SENSITIVITY),
            claims=_CLAIMS + ("dpea-factorised-sampler", "exact-inversion-sampler") + (_MONOTONE if monotone else ()),
            partition=path,
            note="monotone utilities: weights exp(epsilon q' / Delta)" if monotone else "",
        )
    if published:
        note = (
            "Algorithm 3 as published: no Hastings correction for an asymmetric proposal and a "
            "data-dependent stop (score variance below threshold); not the exponential mechanism"
        )
    else:
        note = (
            f"Metropolis-Hastings run for {steps} steps: a finite chain at total-variation "
            f"distance TV from the mechanism is at best (eps', (1 + e^eps') TV)-DP, and no bound "
            f"on TV is proved"
        )
    return new_charge(
        label=label + " (MCMC, Algorithm 3)", mechanism="exponential (MCMC)", epsilon=epsilon,
        sensitivity=Fraction(QUALITY_SENSITIVITY), claims=_CLAIMS + ("dpea-mcmc",), partition=path,
        sound=False, note=note,
    )


def _published_leak(min_size: int) -> str:
    return (
        f"DPEA published: a subtree leaf with fewer than min_size={min_size} training rows, "
        f"or with one class only, becomes a leaf; the decision reads the true counts and the "
        f"tree's shape releases it"
    )


def tree_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The tree's budget and depth D; in the sound variant a noisy size of the ``size`` rows (charged to
    ``ledger``) caps D.  The embedding depth is then ``embedding_depth(embed_depth, D)``.

    A function of public values and the released noisy size only: a
    verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> params = get_algorithm("dpea").resolve({"size_share": 0})
    >>> tree_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...           Ledger()).depth
    2
    """
    max_depth = int(params["max_depth"])
    if params["variant"] == "published":
        return DepthPlan(max_depth, epsilon, None)
    share, sigmas = size_share(params)
    branching = mean_branching(schema, int(params["bins"]))
    plan = plan_depth(
        size, epsilon, share, sigmas, max_depth, schema.n_classes,
        leaves=lambda d: branching**d,
        variance=lambda d, left: laplace_variance(
            per_query_epsilon(left, d, embedding_depth(params["embed_depth"], d), relation)
        ),
        engine=engine, rng=rng, ledger=ledger,
    )
    return DepthPlan(min(plan.depth, max_depth), plan.epsilon, plan.noisy_size)


def derive_dpea(model: TreeModel) -> Optional[Ledger]:
    """The charges of the plan along the released tree: a selection where a subtree of d levels starts,
    the noisy counts of every leaf, and the reserve.

    Selections start at the root and wherever a selected subtree ends above
    depth D with attributes left: the sound variant grows there; the
    published one may stop on true counts (its leak), so a leaf there is its
    stop.  Every split is one attribute's public cells (its domain, or public
    bins), not yet used on the path; counts are whole numbers.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("dpea", load("vote"), 1, rng=1)
    >>> derive_dpea(model).charges == model.receipt.charges
    True
    """
    params, schema = model.params, model.schema
    check_trees(model, 1)
    check_weights(model, (1.0,))
    check_voting(model, "vote")
    integer_counts(model, "discrete Laplace class counts")
    epsilon, ledger = model_budget(model), fresh_ledger(model)
    relation = ledger.relation
    published = params["variant"] == "published"
    plan = tree_plan(schema, epsilon, params, relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    if published:
        ledger.record_leak(_published_leak(int(params["min_size"])))
    max_depth, embed = plan.depth, embedding_depth(params["embed_depth"], plan.depth)
    eps = per_query_epsilon(plan.epsilon, max_depth, embed, relation)
    monotone = relation is Relation.ADD_REMOVE and not published
    bins = PublicBins.of(schema, int(params["bins"]))
    search, steps = str(params["search"]), int(params["steps"])

    _Rederivation(schema, ledger, bins, eps, max_depth, embed, search, steps, monotone, published).grow(
        model.root, tuple(range(schema.n_attributes)), 0, ()
    )
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


@dataclass
class _Rederivation:
    """:class:`_Builder`'s charges re-issued along a released tree (see :func:`derive_dpea`)."""

    schema: Schema
    ledger: Ledger
    bins: PublicBins
    eps: Fraction
    max_depth: int
    embed: int
    search: str
    steps: int
    monotone: bool
    published: bool

    def leaf(self, node: Node, path: Partition) -> None:
        if not isinstance(node, Leaf):
            refuse(f"the tree splits at {'/'.join(path) or 'the root'}, where its plan has a leaf")
        for charge in histogram_charges(epsilon=self.eps, label=LEAF_LABEL, partition=path, names=self.schema.classes):
            self.ledger.record(charge)

    def grow(self, node: Node, attributes: Tuple[int, ...], depth: int, path: Partition) -> None:
        levels = min(self.embed, self.max_depth - depth)
        if levels == 0 or not attributes:
            self.leaf(node, path)
            return
        search = search_of(self.search, levels)
        self.ledger.record(selection_charge(search, levels, self.eps, self.monotone, self.published, self.steps, path))
        self.attach(node, attributes, depth, path, levels)

    def attach(self, node: Node, attributes: Tuple[int, ...], depth: int, path: Partition, levels: int) -> None:
        if levels == 0 or not attributes:
            if depth >= self.max_depth or not attributes or (self.published and isinstance(node, Leaf)):
                self.leaf(node, path)
            else:
                self.grow(node, attributes, depth, path)
            return
        a = node.attribute if isinstance(node, (CategoricalSplit, IntervalSplit)) else -1
        if a not in attributes or (isinstance(node, IntervalSplit) and node.thresholds != self.bins.thresholds.get(a)):
            refuse(
                f"the node at {'/'.join(path) or 'the root'} is not a split of the selected subtree on an "
                "attribute's public cells not yet used on its path"
            )
        assert isinstance(node, (CategoricalSplit, IntervalSplit))
        rest = tuple(b for b in attributes if b != a)
        attribute = self.schema.attributes[a]
        # the builder splits a continuous attribute binned: its values are the public cells' conditions
        values = attribute.values if isinstance(attribute, CategoricalAttribute) else self.bins.conditions[a]
        for child, value in zip(node.children, values):
            self.attach(child, rest, depth + 1, child_path(path, f"{attribute.name}={value}"), levels - 1)


def fit_dpea(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train DPEA (Algorithm 1) with total budget ``epsilon``."""
    max_depth = int(params["max_depth"])
    embed = embedding_depth(params["embed_depth"], max_depth)
    # Continuous attributes are cut into public equal-width bins, a public per-record map: DPEA then
    # splits them like categorical attributes, and the released node is an interval split.
    bins = PublicBins.of(data.schema, int(params["bins"]))
    binned = bins.binned_by(engine, data)
    view, counts = TrainingView.of(binned), engine.counts(binned)
    ledger = start_ledger(data, relation)
    plan = tree_plan(data.schema, epsilon, params, relation, len(data), engine, rng, ledger)
    if plan.depth < max_depth:
        max_depth, embed = plan.depth, embedding_depth(params["embed_depth"], plan.depth)
    eps = per_query_epsilon(plan.epsilon, max_depth, embed, relation)
    builder = _Builder(view, counts, params, eps, max_depth, embed, rng, ledger, engine)
    if builder.published:
        ledger.record_leak(_published_leak(builder.min_size))
    root = bins.unbin(builder.grow(counts.root(), tuple(range(data.schema.n_attributes)), 0, ()))
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return finish_model(
        SPEC.name, data, params, [root], ledger, budget=epsilon, plan_inputs={NOISY_SIZE: plan.noisy_size}
    )


SPEC = register(
    AlgorithmSpec(
        name="dpea",
        summary="DPEA: the exponential mechanism selects whole subtrees of d split levels (q' = "
        "unnormalised Gini of the subtree's leaves); exact factorised sampler, exhaustive list or MCMC",
        source="X. Bai, J. Yao, M. Yuan, K. Deng, X. Xie, H. Guan, Embedding differential privacy in "
        "decision tree algorithm with different depths, Sci China Inf Sci 60(8) 082104, 2017",
        variants=(
            Variant(
                "sound", True,
                "stops on public information only (depth D, capped by a noisy size of the data, no attribute "
                "left); exact sampler of the exponential mechanism by default; noisy counts of every class at "
                "every leaf",
                claims=(
                    "discrete-laplace-mechanism", "dpea-budget", "dpea-factorised-sampler",
                    "dpea-subtree-quality-sensitivity", "exact-inversion-sampler", "exponential-mechanism",
                    "exponential-mechanism-monotone", "noisy-size-plan", "parallel-composition",
                    "sequential-composition", "split-quality-monotone", "tree-budget-plan",
                ),
            ),
            Variant(
                "published", False,
                "the paper's stopping rule on true counts (fewer than min_size rows or one class) and "
                "its MCMC without Hastings correction, stopped when the scores' variance is small",
                claims=(
                    "discrete-laplace-mechanism", "dpea-budget", "dpea-factorised-sampler",
                    "dpea-subtree-quality-sensitivity", "exact-inversion-sampler", "exponential-mechanism",
                    "parallel-composition", "tree-budget-plan",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound", "published")),
            Parameter("max_depth", int, 2, "D: maximal number of splits on a root-to-leaf path", minimum=0,
                      maximum=MAX_DEPTH),
            Parameter(
                "embed_depth", str, "2",
                "d: split levels chosen per exponential mechanism, a positive integer or 'whole' (d = D)",
            ),
            Parameter(
                "search", str, "exact",
                "exact (factorised perfect sampler), exhaustive (Algorithm 2), mcmc (Algorithm 3), "
                "paper (exhaustive up to 2 levels, mcmc deeper)",
                SEARCHES,
            ),
            Parameter("steps", int, 1000, "MCMC: number of steps (the published chain's step limit)", minimum=0,
                      maximum=10**6),
            Parameter("buffer", int, 50, "MCMC, published: number of latest scores whose variance is tested",
                      minimum=1, maximum=10**6),
            Parameter(
                "threshold", float, 1.0,
                "MCMC, published: stop when the variance of the latest buffer scores is below this "
                "(the paper gives no value)",
                minimum=0.0, maximum=1e15,
            ),
            Parameter(
                "min_size", int, 20,
                "published: a subtree leaf with fewer training rows becomes a leaf (the paper's vote setting)",
                minimum=0, maximum=10**9,
            ),
            Parameter(
                "max_subtrees", int, DEFAULT_MAX_SUBTREES,
                "exhaustive: refuse to list more subtrees than this",
                minimum=1, maximum=10**7,
            ),
            Parameter(
                "bins", int, 5,
                "equal-width intervals of each continuous attribute's public bounds (as in dpdf)",
                minimum=2, maximum=1024,
            ),
            *size_parameters(0.05, 3.0),
        ),
        claims=CLAIMS,
        fit=fit_dpea,
        engines=("reference", "array"),
        derive=derive_dpea,
    )
)
