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

Plans from a noisy size (claim ``noisy-size-plan``, ``size_share`` > 0, the
default): a 12-tree forest needs samples that fill its cells with k rows,
which only large data sets have; a noisy size of the data chooses between
the forest and one tree of one level (``small_beta``, ``small_k``).  Both
are certified before anything is read and the receipt states the larger
delta.

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

from refdp.algorithms.kanon_plan import (
    SIZE_CLAIMS,
    Plan,
    fills,
    ChosenPlan,
    choose_plan,
)

from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.engine import REFERENCE, Engine
from refdp.algorithms.binning import PublicBins
from refdp.algorithms.rdt import (
    RandomTreeBuilder,
    base_columns,
    check_structure,
    forest_levels,
    forest_weights,
)
from refdp.algorithms.derivation import (
    model_budget,
    check_plan_inputs,
    NO_RANDOMNESS,
    NOISY_SIZE,
    check_trees,
    check_voting,
    check_weights,
    fresh_ledger,
    integer_counts,
    refuse,
    replay_size,
)
from refdp.algorithms.kanon_plan import (
    DEFAULT_MAX_DELTA,
    DEFAULT_N_TREES,
    DEFAULT_K,
    DEFAULT_BETA,
    DEFAULT_MAX_DEPTH,
    DEFAULT_SMALL_K,
    DEFAULT_SMALL_BETA,
    DEFAULT_SIZE_SHARE,
    DEFAULT_BINS,
    TreeGuarantee,
    tree_guarantee,
    Settings,
    receipt_delta,
    Advice,
    advise,
    certify,
)
from refdp.algorithms.rdt_parameters import structure_parameters
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.data import Dataset
from refdp.errors import PrivacyError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import bernoulli_positions
from refdp.privacy import Charge, Ledger, Relation
from refdp.privacy.ledger import data_independent_charge, new_charge
from refdp.rng import RandomSource
from refdp.tree import Count, Node, TreeModel, leaves

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
    "fills",
    "ChosenPlan",
    "choose_plan",
    "Suppression",
    "PER_CELL",
    "SOUND_CLAIMS",
    "SIZE_CLAIMS",
    "fit_kanon_rdt",
    "grow_forest",
    "derive_kanon_rdt",
    "derive_forest",
    "SPEC",
]

SOUND_CLAIMS = (
    "lqs-sampling-suppression", "lqs-delta-certified", "kanon-rdt-privacy", "exact-bernoulli-positions",
    "sequential-composition",
)
CLAIMS = SOUND_CLAIMS + SIZE_CLAIMS[:2]

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


def _tree_charges(t: int, chosen: ChosenPlan, suppression: Suppression, max_delta: Param) -> Tuple[Charge, Charge]:
    """Tree ``t``'s two charges: its data-independent structure, and its sample and suppression."""
    settings, guarantee = chosen.plan.settings, chosen.plan.guarantee
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
    """The delta of the plan this run did not choose, reserved on the whole data set."""
    if chosen.plan.delta < chosen.total_delta:
        ledger.charge(
            label="reserved: the delta of the plan this run did not choose",
            mechanism="reserved", epsilon=0, delta=chosen.total_delta - chosen.plan.delta, sensitivity=None,
            claims=SIZE_CLAIMS,
            note="the guarantee is the larger delta of the two plans, whichever the noisy size chose",
        )


def fit_kanon_rdt(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train N_t random decision trees on Bernoulli(beta) samples with counts below k suppressed.

    With ``size_share`` > 0, a noisy size of the data first chooses between
    the forest (``n_trees``, ``beta``, ``k``, ``max_depth``) and one tree of
    one level (``small_beta``, ``small_k``): both plans are certified
    before anything is read, and the receipt states the larger delta
    (claim ``noisy-size-plan``, :func:`choose_plan`).

    ``engine`` supplies the noisy size's sampler and may keep the binned
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
    categorical = str(params["categorical"])
    voting = str(params["voting"])
    bins = PublicBins.of(schema, int(params["bins"])) if params["continuous"] == "bins" else None
    multiway = frozenset(bins.thresholds) if bins is not None else frozenset()
    ledger = start_ledger(data, relation)
    chosen = choose_plan(schema, epsilon, params, relation, len(data), engine, rng, ledger)
    plan = chosen.plan
    settings, depth = plan.settings, plan.depth
    n_trees, k, beta = settings.n_trees, settings.k, settings.beta
    train = bins.binned_by(engine, data) if bins is not None else data
    columns, labels, rows = base_columns(train)
    n_classes = schema.n_classes
    zeros: Tuple[Count, ...] = (0,) * n_classes
    trees: List[Node] = []
    levels = forest_levels(schema.n_attributes, n_trees, depth, rng) if params["structure"] == "per-level" else None
    for t in range(n_trees):
        builder = RandomTreeBuilder(train.schema, depth, categorical, rng, multiway, None if levels is None else levels[t])
        structure, sample = _tree_charges(t, chosen, suppression, params["max_delta"])
        ledger.record(structure)
        counts: Dict[int, List[int]] = {}
        for position in bernoulli_positions(beta, len(rows), rng):
            row = rows[position]
            leaf = builder.leaf_index(columns, row)
            tally = counts.get(leaf)
            if tally is None:
                tally = counts[leaf] = [0] * n_classes
            tally[labels[row]] += 1
        released = {leaf: suppression.suppress(c, k) for leaf, c in counts.items()}
        ledger.record(sample)
        tree = builder.build(lambda leaf: released.get(leaf, zeros), collapse_zeros=True)
        trees.append(bins.unbin(tree) if bins is not None else tree)
    _reserve(ledger, chosen)
    weights = forest_weights(schema.n_attributes, n_trees, depth) if voting == "log-odds" else ()
    model = finish_model(
        SPEC.name, data, params, trees, ledger, budget=epsilon, weights=weights, voting=voting,
        plan_inputs={NOISY_SIZE: chosen.noisy_size},
    )
    if model.receipt.delta != chosen.total_delta:
        raise PrivacyError(
            f"kanon-rdt checked delta {chosen.total_delta} but its ledger composed {model.receipt.delta}"
        )
    return model


def derive_kanon_rdt(model: TreeModel) -> Optional[Ledger]:
    """The charges of the plan :func:`choose_plan` certifies and the released noisy size chooses.

    Each tree must be a structure the plan can draw (subtrees whose counts
    are all suppressed shown as one zero leaf), with counts that are
    sampled tallies after suppression: whole numbers, each 0 or at least k;
    the weights and voting rule as the parameters say.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("kanon-rdt", load("vote"), 1, rng=1)
    >>> derive_kanon_rdt(model).charges == model.receipt.charges
    True
    """
    return derive_forest(model, PER_CELL)


def derive_forest(model: TreeModel, suppression: Suppression) -> Ledger:
    """:func:`derive_kanon_rdt` with the leaves' counts released by ``suppression``."""
    schema, params = model.schema, model.params
    ledger = fresh_ledger(model)
    chosen = choose_plan(
        schema, model_budget(model), params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger,
    )
    settings, depth = chosen.plan.settings, chosen.plan.depth
    check_plan_inputs(model, {NOISY_SIZE: chosen.noisy_size})
    check_trees(model, settings.n_trees)
    voting = str(params["voting"])
    check_voting(model, voting)
    weights = forest_weights(schema.n_attributes, settings.n_trees, depth) if voting == "log-odds" else ()
    check_weights(model, weights or [1.0] * settings.n_trees)
    integer_counts(model, "sampled counts")
    bins = PublicBins.of(schema, int(params["bins"])).thresholds if params["continuous"] == "bins" else None
    for t, tree in enumerate(model.trees):
        check_structure(
            tree, schema, depth, str(params["categorical"]), bins, params["structure"] == "per-level",
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
        for charge in _tree_charges(t, chosen, suppression, params["max_delta"]):
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
                    "lqs-delta-certified", "lqs-sampling-suppression", "noisy-size-plan", "sequential-composition",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter("n_trees", int, DEFAULT_N_TREES, "number of trees N_t, each on its own sample", minimum=1,
                      maximum=1000),
            Parameter(
                "max_depth", int, DEFAULT_MAX_DEPTH, "depth of every tree; -1 means half the number of attributes",
                minimum=-1, maximum=MAX_DEPTH,
            ),
            Parameter("k", int, DEFAULT_K, "suppression threshold: counts below k are set to 0 (0 = none)",
                      minimum=0, maximum=10**9),
            Parameter(
                "beta", float, DEFAULT_BETA, "sampling probability beta in (0, 1)",
                minimum=0.0, maximum=1.0, minimum_open=True, maximum_open=True,
            ),
            Parameter(
                "max_delta", float, DEFAULT_MAX_DELTA,
                "largest receipt delta to certify, in (0, 1]; settings above it are refused before training",
                minimum=0.0, maximum=1.0, minimum_open=True,
            ),
            Parameter(
                "size_share", float, DEFAULT_SIZE_SHARE,
                "share of epsilon spent on a noisy size that chooses between the forest and one tree of one "
                "level (small_beta, small_k); 0: always the forest, nothing spent",
                minimum=0.0, maximum=1.0, maximum_open=True,
            ),
            Parameter(
                "min_fill", float, 1.0,
                "m: the forest is chosen when N~ beta >= m k |C| B (a tree's sample fills the cells of an "
                "average split, B children, with m k rows each)",
                minimum=0.0, maximum=1e6,
            ),
            Parameter(
                "small_beta", float, DEFAULT_SMALL_BETA, "sampling probability of the one-tree plan",
                minimum=0.0, maximum=1.0, minimum_open=True, maximum_open=True,
            ),
            Parameter("small_k", int, DEFAULT_SMALL_K, "suppression threshold of the one-tree plan", minimum=0,
                      maximum=10**9),
            *structure_parameters(DEFAULT_BINS),
        ),
        claims=CLAIMS,
        fit=fit_kanon_rdt,
        engines=("reference", "array"),
        derive=derive_kanon_rdt,
    )
)
