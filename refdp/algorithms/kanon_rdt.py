"""k-AnonToRdt: random decision trees made private by sampling and suppression (Waseda, Nojima & Wang 2024).

Algorithm 3 of the paper.  For each of the N_t trees: draw a structure from
the public schema (:mod:`refdp.algorithms.rdt`), keep every training row
independently with probability beta (a fresh sample per tree, drawn exactly
as the gaps between kept rows, claim ``exact-bernoulli-positions``), count
the kept rows in every (leaf, label) cell, and set every count n_i(leaf(y))
below k to 0.  No noise is added.
Prediction adds the released counts of the reached leaves over all trees
(``voting="sum-counts"``, the paper's) or combines their log-odds
(``"log-odds"``, the default; see :mod:`refdp.algorithms.private_rdt`);
the structure options are private-rdt's.

A noisy class histogram (``size_share`` of epsilon, discrete Laplace) is
released with the trees as a member of weight 0: the prior that log-odds
voting starts from and that breaks ties, so a leaf, a tree or a whole
forest whose counts were all suppressed predicts the noisy majority class,
never the class listed first; its noise is drawn in the order of the class
names, so listing the classes in another order changes no prediction.

Plans (claim ``noisy-size-plan``): the number of trees, beta and k, when
not given (the defaults), and the depth (up to ``max_depth``) follow from
epsilon and the histogram's total N~ by a public rule.  For each N_t of 1,
2, 4, ..., 32, beta and k are the pair with the fewest rows k / beta a cell
needs to be released among a fixed list of betas, k the smallest that
certifies the forest within ``max_delta`` (:func:`candidate_plans`); the
noisy size then picks the plan with the most attribute tests N_t d whose
sample fills its cells (:func:`choose_plan`; one tree of one level when
only that one comes close), or, when none does, a second noisy histogram
with the rest of epsilon.  Every plan is certified before
anything is read and the receipt states the largest delta, so the defaults
train at every epsilon.  With ``n_trees``, ``beta`` and ``k`` all given the
forest is Algorithm 3's at depth ``max_depth`` (with ``size_share=0``,
nothing else).

Guarantee (claims ``lqs-sampling-suppression``, ``kanon-rdt-privacy``).
Given its structure, a tree releases the counts of the data-independent map
g(x, y) = (leaf(x), y) with counts below k suppressed: a strongly safe
k-anonymisation after Bernoulli(beta) sampling, (epsilon_t, delta_t)-DP under
add-remove for epsilon_t >= -ln(1 - beta) with delta_t = lqs_delta(k,
beta, epsilon_t) (:mod:`refdp.privacy.lqs`).  The trees use independent
samples and structures, so basic composition gives (N_t epsilon_t,
N_t delta_t).

How ``epsilon`` maps to the theorem: the user gives the *total* epsilon.
Under add-remove each tree's epsilon_t = epsilon / N_t; under substitute
epsilon_t = epsilon / (2 N_t) and each tree is charged (2 epsilon_t,
(1 + e^epsilon_t) delta_t) by group privacy (a substitution is a removal
then an addition), with e^epsilon_t rounded up.  The receipt's epsilon is
the requested epsilon exactly; its delta is N_t times the per-tree charge.
Settings with epsilon_t < -ln(1 - beta) are refused (the theorem does not
apply): the message gives the smallest total epsilon that works.

k = 0 reproduces the paper's unpruned baseline (Table 6's k = 0 rows): a
count is never below 0, and suppressing below 1 changes nothing either, so
both get the k = 1 guarantee, whose delta is at least beta -- sampling alone
protects nobody whose record is alone in its cell.

The receipt's delta is checked before any row is read (claim
``kanon-rdt-privacy``, "Refusal"): a delta of 1 or more promises nothing
and is always refused, and a delta above ``max_delta`` (default 1e-5) is
refused unless the caller raises ``max_delta``.  Every refusal names
settings that would pass (:func:`advise`), each one checked with the same
certified delta.

Lazy structure: only the nodes that kept rows reach are drawn (Adult's
multiway trees of depth 7 and more would have millions of leaves), and every
subtree whose released counts are all 0 is shown as one zero leaf.  That is
a function of the counts a fully drawn tree would release, and the drawn
nodes have the full tree's distribution (:mod:`refdp.algorithms.rdt`), so
the guarantee is unchanged.

A fault the audits must catch (suppression on a leaf's total) is another
variant, which the registry adds from its own package
(:data:`~refdp.algorithms.registry.VARIANT_MODULES`): :class:`Suppression`
is the step it changes.
"""

from __future__ import annotations

from refdp.algorithms.kanon_guarantee import (
    DEFAULT_MAX_DELTA, AUTO_K, DEFAULT_MAX_DEPTH, DEFAULT_SIZE_SHARE, DEFAULT_MIN_FILL, DEFAULT_BINS, TreeGuarantee,
    tree_guarantee, Settings, receipt_delta, Advice, advise, certify
)
from refdp.algorithms.kanon_plans import (
    Plan, PLAN_TREES, PLAN_BETAS, Given, candidate_plans, fills, choose_plan, PRIOR_LABEL, SIZE_LABEL, SECOND_LABEL,
    class_histogram, class_histogram_charges, ChosenPlan, plans_of, kanon_plan
)

from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.engine import REFERENCE, Engine
from refdp.algorithms.binning import PublicBins
from refdp.algorithms.rdt_check import check_structure
from refdp.algorithms.rdt import (
    RandomTreeBuilder, base_columns, forest_levels, forest_weights
)
from refdp.algorithms.derivation import (
    model_budget, check_plan_inputs, NOISY_SIZE, check_trees, check_voting, check_weights, fresh_ledger,
    integer_counts, refuse
)
from refdp.algorithms.rdt_parameters import structure_parameters
from refdp.algorithms.models import finish_model, start_ledger
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.data import Dataset, Schema
from refdp.errors import PrivacyError
from refdp.params import MAX_DEPTH
from refdp.mechanisms.sampling import bernoulli_sample, suppressed_release
from refdp.privacy import Charge, Ledger, Relation, as_fraction
from refdp.privacy.ledger import data_independent_charge, new_charge
from refdp.rng import RandomSource
from refdp.tree import Count, Leaf, Node, TreeModel, leaves

__all__ = [
    "DEFAULT_MAX_DELTA",
    "TreeGuarantee",
    "tree_guarantee",
    "Settings",
    "receipt_delta",
    "Advice",
    "advise",
    "certify",
    "Plan",
    "PLAN_TREES",
    "PLAN_BETAS",
    "AUTO_K",
    "Given",
    "candidate_plans",
    "fills",
    "choose_plan",
    "ChosenPlan",
    "kanon_plan",
    "class_histogram",
    "fit_kanon_rdt",
    "derive_kanon_rdt",
    "Suppression",
    "PER_CELL",
    "SOUND_CLAIMS",
    "SIZE_CLAIMS",
    "grow_forest",
    "derive_forest",
    "SPEC",
]

SOUND_CLAIMS = (
    "lqs-sampling-suppression", "lqs-delta-certified", "kanon-rdt-privacy", "exact-bernoulli-positions",
    "sequential-composition",
)
SIZE_CLAIMS = ("noisy-size-plan", "discrete-laplace-mechanism", "sequential-composition")
CLAIMS = SOUND_CLAIMS + SIZE_CLAIMS[:2] + ("parallel-composition",)

@dataclass(frozen=True)
class Suppression:
    """Which of a leaf's sampled counts are released: here each (leaf, label) count of k or more (the paper's).

    ``what`` ends the sample charge's label; ``claims`` and ``sound`` are the charge's.
    """

    what: str = "per (leaf, label)"
    claims: Tuple[str, ...] = SOUND_CLAIMS
    sound: bool = True

    def compared(self, counts: Sequence[int]) -> List[int]:
        """The values compared with k: each count."""
        return list(counts)

    def suppress(self, counts: Sequence[int], k: int) -> Tuple[Count, ...]:
        """The released counts: each count below k set to 0.

        >>> Suppression().suppress([30, 2], 5)
        (30, 0)
        """
        return tuple(c if c >= k else 0 for c in counts)


PER_CELL = Suppression()
"""The paper's suppression, per (leaf, label) cell."""


def _tree_charges(t: int, plan: Plan, suppression: Suppression, max_delta: Param) -> Tuple[Charge, Charge]:
    """Tree ``t``'s two charges: its data-independent structure, and its sample and suppression."""
    settings, guarantee = plan.settings, plan.guarantee
    scope = f"tree{t}"
    structure = data_independent_charge(
        label=f"tree {t}: random structure",
        partition=(scope,),
        note="Fan et al. structure from the public schema; nodes drawn when first reached",
    )
    sample = new_charge(
        label=f"tree {t}: Bernoulli({settings.beta}) sample, counts below {settings.k} set to 0 " + suppression.what,
        mechanism="sample-and-suppress",
        epsilon=guarantee.epsilon,
        delta=guarantee.delta,
        sensitivity=None,
        claims=suppression.claims,
        partition=(scope,),
        sound=suppression.sound,
        note=(
            f"Li-Qardaji-Su: k={guarantee.lqs.k}, beta={settings.beta}, epsilon_t={guarantee.lqs.epsilon}, "
            f"delta_t<={guarantee.lqs.delta!r} (max at n={guarantee.lqs.n_at_max}); "
            f"receipt delta checked <= max_delta={max_delta!r} before training"
        ),
    )
    return structure, sample


def _reserve(ledger: Ledger, chosen: ChosenPlan) -> None:
    """The delta of the plans this run did not choose, reserved on the whole data set."""
    if chosen.delta < chosen.total_delta:
        ledger.charge(
            label="reserved: the delta of the plans this run did not choose",
            mechanism="reserved", epsilon=0, delta=chosen.total_delta - chosen.delta, sensitivity=None,
            claims=SIZE_CLAIMS,
            note="the guarantee is the largest delta of the plans, whichever the noisy size chose",
        )


def _mean_histogram(prior: Sequence[int], second: Sequence[int], share: Fraction) -> Tuple[float, ...]:
    """The inverse-variance mean of the two histograms (their Laplace variances go as 1 / epsilon^2)."""
    a, b = share**2, (1 - share) ** 2
    return tuple(float((a * x + b * y) / (a + b)) for x, y in zip(prior, second))


def fit_kanon_rdt(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train N_t random decision trees on Bernoulli(beta) samples with counts below k set to 0.

    ``size_share`` of epsilon buys a noisy class histogram, released as a
    last member of weight 0 (the prior that log-odds voting starts from and
    that breaks ties, so a fully suppressed forest predicts the noisy
    majority class, not the class listed first).  Unless ``n_trees``,
    ``beta`` and ``k`` are all given, its total N~ chooses the forest among
    :func:`candidate_plans` (:func:`kanon_plan`), or, when no forest's
    sample fills its cells, a second noisy histogram with the rest of
    epsilon (the model is then one leaf, the two histograms' inverse-variance
    mean); with all three given the forest is theirs at ``max_depth``.  Every
    plan is certified before anything is read, and the receipt states the
    largest delta (claim ``noisy-size-plan``).

    ``engine`` supplies the noisy counts' sampler and may keep the binned
    columns with the data set (:meth:`PublicBins.binned_by`); the sample is drawn
    (:func:`~refdp.mechanisms.exact.bernoulli_positions`) and its rows are
    routed one by one on both engines, the lazily drawn structure's nodes
    drawn when a kept row first reaches them.
    """
    return grow_forest(data, epsilon, params, rng, relation, engine, PER_CELL)


def grow_forest(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
    engine: Engine, suppression: Suppression,
) -> TreeModel:
    """:func:`fit_kanon_rdt` with the leaves' counts released by ``suppression``."""
    schema = data.schema
    plans_of(schema, epsilon, params, relation)  # certified, or refused, before anything is drawn
    share = as_fraction(params["size_share"], "size_share")
    auto = not Given.of(params).fixed
    ledger = start_ledger(data, relation)
    prior: Optional[Tuple[int, ...]] = None
    if share > 0:
        prior = class_histogram(data, share * epsilon, relation, engine, rng, ledger, SIZE_LABEL if auto else PRIOR_LABEL)
    chosen = kanon_plan(schema, epsilon, params, relation, sum(prior) if auto and prior is not None else None)
    if chosen.plan is None:
        # No forest's sample fills its cells: the rest of epsilon buys one more noisy histogram.
        assert prior is not None
        second = class_histogram(data, (1 - share) * epsilon, relation, engine, rng, ledger, SECOND_LABEL)
        trees: List[Node] = [Leaf(_mean_histogram(prior, second, share))]
        weights = [1.0]
    else:
        trees, weights = _forest(data, chosen.plan, params, engine, rng, ledger, suppression)
        if prior is not None:
            trees.append(Leaf(prior))
            weights.append(0.0)
    _reserve(ledger, chosen)
    model = finish_model(
        SPEC.name, data, params, trees, ledger, budget=epsilon, weights=weights, voting=str(params["voting"]),
        plan_inputs={NOISY_SIZE: chosen.noisy_size},
    )
    if model.receipt.delta != chosen.total_delta:
        raise PrivacyError(
            f"kanon-rdt checked delta {chosen.total_delta} but its ledger composed {model.receipt.delta}"
        )
    return model


def _forest_weights(schema: Schema, plan: Plan, params: Mapping[str, Param]) -> List[float]:
    if params["voting"] == "log-odds":
        return forest_weights(schema.n_attributes, plan.settings.n_trees, plan.depth)
    return [1.0] * plan.settings.n_trees


def _forest(
    data: Dataset, plan: Plan, params: Mapping[str, Param], engine: Engine, rng: RandomSource, ledger: Ledger,
    suppression: Suppression,
) -> Tuple[List[Node], List[float]]:
    """The plan's trees (Algorithm 3) and their voting weights."""
    schema = data.schema
    bins = PublicBins.of(schema, int(params["bins"])) if params["continuous"] == "bins" else None
    settings, depth = plan.settings, plan.depth
    n_trees, k, beta = settings.n_trees, settings.k, settings.beta
    multiway = frozenset(bins.thresholds) if bins is not None else frozenset()
    train = bins.binned_by(engine, data) if bins is not None else data
    columns, labels, rows = base_columns(train)
    n_classes = schema.n_classes
    zeros: Tuple[Count, ...] = (0,) * n_classes
    trees: List[Node] = []
    levels = forest_levels(schema.n_attributes, n_trees, depth, rng) if params["structure"] == "per-level" else None
    for t in range(n_trees):
        builder = RandomTreeBuilder(
            train.schema, depth, str(params["categorical"]), rng, multiway, None if levels is None else levels[t]
        )
        structure, sample_charge = _tree_charges(t, plan, suppression, params["max_delta"])
        ledger.record(structure)
        counts: Dict[int, List[int]] = {}
        sample = bernoulli_sample(len(rows), beta, rng, ledger=ledger, label=f"tree {t}: Bernoulli({beta}) sample",
                                  partition=structure.partition)
        for position in sample:
            row = rows[position]
            leaf = builder.leaf_index(columns, row)
            tally = counts.get(leaf)
            if tally is None:
                tally = counts[leaf] = [0] * n_classes
            tally[labels[row]] += 1
        ledger.record(sample_charge)
        # Leaves are numbered in the order sampled rows reach them; their paths name them whatever the sample.
        paths = builder.leaf_paths()
        released = suppressed_release(
            {paths[leaf]: c for leaf, c in counts.items()},
            {paths[leaf]: suppression.suppress(c, k) for leaf, c in counts.items()},
            k, epsilon=sample_charge.epsilon, delta=sample_charge.delta, rng=rng, ledger=ledger,
            label=sample_charge.label, partition=sample_charge.partition,
        )
        tree = builder.build(lambda leaf: released.get(paths[leaf], zeros), collapse_zeros=True)
        trees.append(bins.unbin(tree) if bins is not None else tree)
    return trees, _forest_weights(schema, plan, params)


def derive_kanon_rdt(model: TreeModel) -> Optional[Ledger]:
    """The charges of the plan :func:`kanon_plan` certifies and the released histogram's total chooses.

    The noisy histogram's charges come first (when ``size_share`` > 0); the
    plan is :func:`kanon_plan` of the model's plan input N~.  A forest's
    trees must be structures the plan can draw (subtrees whose counts are
    all suppressed shown as one zero leaf), with counts that are sampled
    tallies after suppression: whole numbers, each 0 or at least k; then
    comes the prior, one leaf of weight 0 whose counts total N~.  The histogram plan's model is one leaf.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("kanon-rdt", load("vote"), 1, rng=1)
    >>> derive_kanon_rdt(model).charges == model.receipt.charges
    True
    >>> small = train("kanon-rdt", load("vote").subset(range(40)), 1, rng=1)
    >>> derive_kanon_rdt(small).charges == small.receipt.charges
    True
    """
    return derive_forest(model, PER_CELL)


def derive_forest(model: TreeModel, suppression: Suppression) -> Ledger:
    """:func:`derive_kanon_rdt` with the leaves' counts released by ``suppression``."""
    schema, params = model.schema, model.params
    ledger = fresh_ledger(model)
    budget = model_budget(model)
    share = as_fraction(params["size_share"], "size_share")
    auto = not Given.of(params).fixed
    if share > 0:
        for charge in class_histogram_charges(schema.classes, share * budget, ledger.relation, SIZE_LABEL if auto else PRIOR_LABEL):
            ledger.record(charge)
    noisy = model.plan_inputs.get(NOISY_SIZE)
    if auto and not isinstance(noisy, int):
        refuse(f"kanon-rdt's plan reads the noisy histogram's total, but the model states no plan input {NOISY_SIZE!r}")
    chosen = kanon_plan(schema, budget, params, ledger.relation, noisy if auto else None)
    check_plan_inputs(model, {NOISY_SIZE: chosen.noisy_size})
    check_voting(model, str(params["voting"]))
    if chosen.plan is None:
        check_trees(model, 1)
        check_weights(model, [1.0])
        if not isinstance(model.trees[0], Leaf):
            refuse("kanon-rdt's histogram plan releases one leaf, but the model's tree splits")
        for charge in class_histogram_charges(schema.classes, (1 - share) * budget, ledger.relation, SECOND_LABEL):
            ledger.record(charge)
        _reserve(ledger, chosen)
        return ledger
    plan = chosen.plan
    settings = plan.settings
    check_trees(model, settings.n_trees + (1 if share > 0 else 0))
    check_weights(model, _forest_weights(schema, plan, params) + ([0.0] if share > 0 else []))
    integer_counts(model, "sampled counts and the noisy histogram")
    if share > 0:
        last = model.trees[-1]
        if not isinstance(last, Leaf):
            refuse("kanon-rdt's last member is the noisy class histogram, one leaf, but the model's splits")
        if auto and sum(int(c) for c in last.counts) != noisy:
            refuse(f"the noisy class histogram totals {sum(int(c) for c in last.counts)}, not the plan input {noisy}")
    bins = PublicBins.of(schema, int(params["bins"])).thresholds if params["continuous"] == "bins" else None
    for t, tree in enumerate(model.trees[: settings.n_trees]):
        check_structure(
            tree, schema, plan.depth, str(params["categorical"]), bins, params["structure"] == "per-level",
            collapsed=True, where=f"tree {t}",
        )
        for leaf in leaves(tree):
            counts = [int(c) for c in leaf.counts]
            shown = suppression.compared(counts)
            if any(c < 0 or 0 < c < settings.k for c in shown):
                refuse(
                    f"tree {t} has a leaf with counts {counts}, which suppression below k={settings.k} cannot "
                    "release (each is 0 or at least k)"
                )
        for charge in _tree_charges(t, plan, suppression, params["max_delta"]):
            ledger.record(charge)
    _reserve(ledger, chosen)
    return ledger


SPEC = register(
    AlgorithmSpec(
        name="kanon-rdt",
        summary="random decision trees on Bernoulli(beta) samples; (leaf, label) counts below k set to 0; no noise",
        source="Waseda, Nojima & Wang, Appl. Sci. 2024 (Algorithm 3); Li, Qardaji & Su, ASIACCS 2012",
        variants=(
            Variant(
                "sound", True, "suppression per (leaf, label) cell, as in the paper",
                claims=(
                    "discrete-laplace-mechanism", "exact-bernoulli-positions", "kanon-rdt-privacy",
                    "lqs-delta-certified", "lqs-sampling-suppression", "noisy-size-plan", "parallel-composition",
                    "sequential-composition",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter(
                "n_trees", int, 0,
                "number of trees N_t, each on its own sample; 0: chosen from epsilon and a noisy size (a power of "
                "2 up to 32)",
                minimum=0, maximum=1000,
            ),
            Parameter(
                "max_depth", int, DEFAULT_MAX_DEPTH,
                "depth of every tree (at most, unless n_trees, beta and k are all given); -1 means half the "
                "number of attributes",
                minimum=-1, maximum=MAX_DEPTH,
            ),
            Parameter(
                "k", int, AUTO_K,
                "suppression threshold: counts below k are set to 0 (0 = none); -1: the smallest k that certifies "
                "the forest within max_delta",
                minimum=-1, maximum=10**9,
            ),
            Parameter(
                "beta", float, 0.0,
                "sampling probability beta in (0, 1); 0: chosen with k, the fewest rows k / beta a cell needs",
                minimum=0.0, maximum=1.0, maximum_open=True,
            ),
            Parameter(
                "max_delta", float, DEFAULT_MAX_DELTA,
                "largest receipt delta to certify, in (0, 1]; settings above it are refused before training",
                minimum=0.0, maximum=1.0, minimum_open=True,
            ),
            Parameter(
                "size_share", float, DEFAULT_SIZE_SHARE,
                "share of epsilon spent on a noisy class histogram: the prior every prediction starts from (a "
                "suppressed forest predicts its largest class) and the noisy size that chooses the settings not "
                "given; 0: none (then give n_trees, beta and k)",
                minimum=0.0, maximum=1.0, maximum_open=True,
            ),
            Parameter(
                "min_fill", float, DEFAULT_MIN_FILL,
                "m: a chosen forest needs N~ beta >= m k |C| B^d (a tree's sample fills its "
                "(leaf, class) cells, B children per split, d levels, with m k rows each); else one tree of one "
                "level if its sample fills m k / 2",
                minimum=0.0, minimum_open=True, maximum=1e6,
            ),
            *structure_parameters(DEFAULT_BINS),
        ),
        claims=CLAIMS,
        fit=fit_kanon_rdt,
        engines=("reference", "array"),
        derive=derive_kanon_rdt,
    )
)
