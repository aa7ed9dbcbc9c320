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

This module is the sound learner: the stopping condition reads public information only
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
The paper's own stopping rule on true counts, and its MCMC without the
Hastings correction, are another variant, which the registry adds from its
own package (:data:`~refdp.algorithms.registry.VARIANT_MODULES`):
:class:`~refdp.algorithms.dpea_plan.Rules` is what it changes.

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
* ``mcmc``: Algorithm 3, the Hastings-corrected chain for exactly ``steps``
  steps (the paper's chain in the paper's variant) -- its charge is
  recorded as unsound, because a finite chain has no proved distance from
  the mechanism (claim ``dpea-mcmc``);
* ``paper``: Algorithm 1's rule, exhaustive for subtrees of at most 2
  levels and MCMC for deeper ones.

Every search replays from a seed byte for byte: ``exact`` draws
``rng.getrandbits(32)`` words, the others one ``rng.random()`` per draw.
"""

from __future__ import annotations

from fractions import Fraction
from typing import List, Mapping, Tuple

from refdp.algorithms.binning import PublicBins
from refdp.algorithms.derivation import NOISY_SIZE
from refdp.algorithms.dpea_derive import derive_dpea, derive_with
from refdp.algorithms.dpea_mcmc import Chain, run_chain
from refdp.algorithms.dpea_plan import (
    BUDGET_CLAIMS, DEFAULT_MAX_SUBTREES, LEAF, LEAF_LABEL, MONOTONE_CLAIMS, SEARCHES, SELECTION, SELECTION_CLAIMS,
    SOUND, Rules, Selections, embedding_depth, per_query_epsilon, search_of, selection_charge, selections,
    selections_of, tree_plan
)
from refdp.algorithms.dpea_subtrees import (
    QUALITY_SENSITIVITY, FactorisedSampler, Shape, domain_sizes, exhaustive_subtrees
)
from refdp.algorithms.dpea_qualities import SubtreeQualities
from refdp.algorithms.greedy import child_path, close_budget
from refdp.algorithms.noisy_depth import DepthPlan, size_parameters
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.data import CategoricalAttribute, Dataset
from refdp.engine import REFERENCE, Engine, TrainingView
from refdp.errors import InvalidParameterError
from refdp.mechanisms import exponential_mechanism
from refdp.params import MAX_DEPTH
from refdp.mechanisms.recording import Call, mechanism_call
from refdp.privacy import Charge, Ledger, Partition, Relation
from refdp.rng import RandomSource
from refdp.tree import CategoricalSplit, Leaf, Node, TreeModel

__all__ = [
    "SPEC",
    "SELECTION",
    "LEAF",
    "SEARCHES",
    "Rules",
    "SOUND",
    "Selections",
    "TreeBuilder",
    "fit_dpea",
    "grow",
    "derive_dpea",
    "derive_with",
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
    "tree-budget-plan",
    "exponential-mechanism",
    "exponential-mechanism-float-sampler",
    "exact-inversion-sampler",
    "discrete-laplace-mechanism",
    "parallel-composition",
    "sequential-composition",
)


class TreeBuilder:
    """Algorithm 1: grow the tree one selected subtree at a time (depth first), under ``rules``.

    ``binned`` is the data with its continuous columns replaced by their
    public bins; every count goes through the engine's counts of it.
    """

    def __init__(
        self,
        binned: Dataset,
        params: Mapping[str, Param],
        plan: Selections,
        rng: RandomSource,
        ledger: Ledger,
        engine: Engine,
        rules: Rules,
    ) -> None:
        self.engine = engine
        self.view = TrainingView.of(binned)
        self.counts = engine.counts(binned)
        self.schema = self.view.schema
        self.plan = plan
        self.eps = plan.eps
        self.monotone = plan.monotone
        self.c_exact = plan.eps / (QUALITY_SENSITIVITY if plan.monotone else 2 * QUALITY_SENSITIVITY)
        self.c = float(plan.eps / (2 * QUALITY_SENSITIVITY))
        self.rng = rng
        self.ledger = ledger
        self.rules = rules
        self.search = str(params["search"])
        self.steps = int(params["steps"])
        self.buffer = int(params["buffer"])
        self.threshold = rules.threshold(params)
        self.min_size = int(params["min_size"])
        self.max_subtrees = int(params["max_subtrees"])
        if self.search in ("mcmc", "paper") and self.threshold is not None and self.buffer < 2:
            raise InvalidParameterError(f"parameter buffer must be >= 2 to have a variance, got {self.buffer}")

    def grow(self, rows: List[int], attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        """The tree below an element of innerNodes at ``depth`` (Algorithm 1, lines 5-25)."""
        levels = min(self.plan.embed, self.plan.max_depth - depth)
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
        if depth >= self.plan.max_depth or not attributes:
            return True
        return self.rules.stops(len(rows), self.counts.class_counts(rows), self.min_size)

    def _leaf(self, rows: List[int], path: Partition) -> Leaf:
        counts = self.engine.histogram(
            self.counts.class_counts(rows), epsilon=self.eps, rng=self.rng, ledger=self.ledger,
            label=LEAF_LABEL, partition=path, names=self.schema.classes,
        )
        return Leaf(tuple(counts))

    def _select(self, rows: List[int], attributes: Tuple[int, ...], levels: int, path: Partition) -> Shape:
        search = search_of(self.search, levels)
        charge = selection_charge(search, levels, self.eps, self.monotone, self.rules.mcmc_note(self.steps), path)
        if search == "exhaustive":
            candidates = exhaustive_subtrees(self.view, rows, attributes, levels, self.max_subtrees, self.counts)
            index = exponential_mechanism(
                [score for _, score in candidates], epsilon=self.eps, sensitivity=QUALITY_SENSITIVITY,
                rng=self.rng, ledger=self.ledger, label=charge.label, partition=path,
                claims=SELECTION_CLAIMS + (MONOTONE_CLAIMS[1:] if self.monotone else ()), monotone=self.monotone,
            )
            return candidates[index][0]
        if search == "exact":
            sampler = FactorisedSampler(self.view, rows, attributes, levels, self.c_exact, self.counts)
            self.ledger.record(charge)
            return mechanism_call(
                lambda: self._call(charge, rows, attributes, levels, self.monotone),
                self.rng,
                lambda: sampler.sample(self.rng),
            )
        self.ledger.record(charge)
        chain = Chain(self.steps, self.rules.hastings, self.buffer, self.threshold)
        return mechanism_call(
            lambda: self._call(charge, rows, attributes, levels, False),
            self.rng,
            lambda: run_chain(self.view, rows, attributes, levels, self.c, self.rng, chain, self.counts).shape,
        )

    def _call(
        self, charge: Charge, rows: List[int], attributes: Tuple[int, ...], levels: int, monotone_input: bool
    ) -> Call:
        """How an audit sees a subtree selection that is not an explicit list (:mod:`refdp.mechanisms.recording`)."""
        return Call(
            "exponential (subtrees)", charge.label, charge.partition, self.eps, Fraction(0),
            Fraction(QUALITY_SENSITIVITY), self.ledger.relation, ("dpea-subtree-quality-sensitivity",),
            (("attributes", attributes), ("levels", levels), ("monotone", monotone_input)),
            SubtreeQualities(self.view, tuple(rows), attributes, levels, domain_sizes(self.schema), monotone_input),
            None,
        )


def fit_dpea(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train DPEA (Algorithm 1) with total budget ``epsilon``."""
    return grow(data, epsilon, params, rng, relation, engine, SOUND)


def grow(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
    engine: Engine, rules: Rules,
) -> TreeModel:
    """:func:`fit_dpea` under ``rules``."""
    # Continuous attributes are cut into public equal-width bins, a public per-record map: DPEA then
    # splits them like categorical attributes, and the released node is an interval split.
    bins = PublicBins.of(data.schema, int(params["bins"]))
    binned = bins.binned_by(engine, data)
    ledger = start_ledger(data, relation)
    if rules.sized_plan:
        plan = tree_plan(data.schema, epsilon, params, relation, len(data), engine, rng, ledger)
    else:
        plan = DepthPlan(int(params["max_depth"]), epsilon, None)
    builder = TreeBuilder(binned, params, selections_of(plan, params, relation, rules), rng, ledger, engine, rules)
    leak = rules.leak(builder.min_size)
    if leak is not None:
        ledger.record_leak(leak)
    root = bins.unbin(builder.grow(builder.counts.root(), tuple(range(data.schema.n_attributes)), 0, ()))
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
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
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
            Parameter("steps", int, 1000, "MCMC: number of steps (the paper's chain's step limit)", minimum=0,
                      maximum=10**6),
            Parameter("buffer", int, 50, "MCMC, the paper's variant: number of latest scores whose variance is tested",
                      minimum=1, maximum=10**6),
            Parameter(
                "threshold", float, 1.0,
                "MCMC, the paper's variant: stop when the variance of the latest buffer scores is below this "
                "(the paper gives no value)",
                minimum=0.0, maximum=1e15,
            ),
            Parameter(
                "min_size", int, 20,
                "the paper's variant: a subtree leaf with fewer training rows becomes a leaf (its vote setting)",
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
