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

Variant ``leaf-total`` (UNSOUND, a planted fault for the audits): suppress a
leaf's counts only when the leaf's *total* is below k.  One minority record
in a large leaf is then released with probability beta, so no delta below
beta holds (claim ``leaf-total-suppression-not-private``); its receipt
states the per-cell guarantee and is marked unsound.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.engine import REFERENCE, Engine
from refdp.algorithms.binning import PublicBins
from refdp.algorithms.rdt import (
    CATEGORICAL_SPLITS,
    CONTINUOUS_SPLITS,
    RDT_VOTING,
    STRUCTURES,
    RandomTreeBuilder,
    base_columns,
    check_structure,
    forest_levels,
    forest_weights,
    resolve_max_depth,
)
from refdp.algorithms.derivation import (
    model_budget,
    check_plan_inputs,
    NOISY_SIZE,
    check_trees,
    check_voting,
    check_weights,
    fresh_ledger,
    integer_counts,
    refuse,
)
from refdp.algorithms.noisy_depth import mean_branching
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import Dataset, Schema
from refdp.errors import InvalidParameterError, PrivacyError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import bernoulli_positions, cell_epsilon, histogram_charges
from refdp.privacy import Charge, Ledger, Relation, as_fraction
from refdp.privacy.ledger import data_independent_charge, new_charge
from refdp.privacy.lqs import (
    MAX_EPSILON,
    LqsResult,
    exp_bounds,
    float_up,
    largest_beta,
    lqs_delta,
    lqs_min_epsilon,
    smallest_k,
)
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
    "SPEC",
]

SOUND_CLAIMS = (
    "lqs-sampling-suppression", "lqs-delta-certified", "kanon-rdt-privacy", "exact-bernoulli-positions",
    "sequential-composition",
)
SIZE_CLAIMS = ("noisy-size-plan", "discrete-laplace-mechanism", "sequential-composition")
CLAIMS = SOUND_CLAIMS + SIZE_CLAIMS[:2] + ("parallel-composition", "leaf-total-suppression-not-private")

VARIANTS = ("sound", "leaf-total")

DEFAULT_MAX_DELTA = 1e-5
"""The largest receipt delta kanon-rdt certifies unless told otherwise (below 1/n for every built-in data set)."""

AUTO_K = -1
"""``k`` when it is chosen with the plan (``n_trees`` 0 and ``beta`` 0 mean the same)."""

# Evidence for the defaults: docs/results.md, "Defaults on data nobody tuned them on (issue 28)".
DEFAULT_MAX_DEPTH = 3
DEFAULT_SIZE_SHARE = 0.05
DEFAULT_MIN_FILL = 1.0
DEFAULT_BINS = 5


@dataclass(frozen=True)
class TreeGuarantee:
    """The (epsilon, delta) charged per tree and the Li-Qardaji-Su result behind it."""

    epsilon: Fraction
    delta: Fraction
    lqs: LqsResult


def tree_guarantee(
    epsilon: Fraction, n_trees: int, k: int, beta: Fraction, relation: Relation, size_share: Fraction = Fraction(0)
) -> TreeGuarantee:
    """The per-tree charge for a total ``epsilon`` over ``n_trees`` trees (see the module notes).

    The trees share ``(1 - size_share) epsilon``; the rest pays for the noisy size (:func:`fit_kanon_rdt`).
    """
    factor = n_trees if relation is Relation.ADD_REMOVE else 2 * n_trees
    share = (1 - size_share) * epsilon / factor
    try:
        result = lqs_delta(max(k, 1), beta, share)
    except InvalidParameterError as exc:
        kept = "" if size_share == 0 else f"(1 - size_share {size_share}) x "
        limit = (
            f"at most {factor * MAX_EPSILON / float(1 - size_share):.6g}" if share > MAX_EPSILON
            else f"at least {factor * lqs_min_epsilon(beta) / float(1 - size_share):.6g}"
        )
        raise InvalidParameterError(
            f"kanon-rdt gives each of its {n_trees} trees {kept}epsilon/{factor} = {float(share):.6g} "
            f"under {relation.value}: {exc}. With beta={beta} the total epsilon must be {limit}"
        ) from None
    if relation is Relation.ADD_REMOVE:
        return TreeGuarantee(share, Fraction(result.delta), result)
    exact = (1 + exp_bounds(share, 64)[1]) * Fraction(result.delta)
    # compared before rounding: at a large epsilon_t, e^epsilon_t does not fit in a float
    if exact >= 1 or Fraction(float_up(exact)) >= 1:
        raise InvalidParameterError(
            f"under substitute each tree's delta (1 + e^{float(share):.4g}) * {result.delta:.4g} "
            "is at least 1, which promises nothing; raise k or epsilon, or lower beta"
        )
    return TreeGuarantee(2 * share, Fraction(float_up(exact)), result)


@dataclass(frozen=True)
class Settings:
    """The inputs the receipt's (epsilon, delta) depends on: nothing here reads the data."""

    epsilon: Fraction
    n_trees: int
    k: int
    beta: Fraction
    relation: Relation
    size_share: Fraction = Fraction(0)

    def guarantee(self) -> TreeGuarantee:
        return tree_guarantee(self.epsilon, self.n_trees, self.k, self.beta, self.relation, self.size_share)

    @property
    def lqs_epsilon(self) -> Fraction:
        """The epsilon at which each tree's Li-Qardaji-Su delta is taken."""
        factor = self.n_trees if self.relation is Relation.ADD_REMOVE else 2 * self.n_trees
        return (1 - self.size_share) * self.epsilon / factor


def receipt_delta(settings: Settings) -> Fraction:
    """The receipt's total delta, N_t times the per-tree charge (the ledger composes the trees' scopes so)."""
    return settings.n_trees * settings.guarantee().delta


def _passes(settings: Settings, max_delta: Fraction) -> bool:
    try:
        total = receipt_delta(settings)
    except InvalidParameterError:
        return False
    return total < 1 and total <= max_delta


def _decimal(value: Fraction, digits: int, rounding: str) -> Fraction:
    """``value`` rounded to ``digits`` significant decimal digits in the direction ``rounding``."""
    with localcontext() as ctx:
        ctx.prec, ctx.rounding = digits, rounding
        return Fraction(+(Decimal(value.numerator) / Decimal(value.denominator)))


def _show(value: Fraction) -> str:
    """A number the CLI reads back as exactly ``value`` when ``value`` has a short decimal expansion."""
    if value.denominator == 1:
        return str(value.numerator)
    short = repr(float(value))
    return short if Fraction(short) == value else str(value)


def _lqs_target(settings: Settings, max_delta: Fraction) -> Fraction:
    """A per-tree Li-Qardaji-Su delta that keeps the receipt within ``max_delta`` (see tree_guarantee)."""
    target = max_delta / settings.n_trees
    if settings.relation is Relation.SUBSTITUTE:
        target /= 1 + exp_bounds(settings.lqs_epsilon, 64)[1]
    return min(target, Fraction(1, 2))


def _advise_k(settings: Settings, max_delta: Fraction) -> Optional[int]:
    try:
        k = smallest_k(settings.beta, settings.lqs_epsilon, _lqs_target(settings, max_delta))
    except InvalidParameterError:
        return None
    # the substitute charge rounds (1 + e^epsilon_t) delta_t up, which can cost a step of k
    for candidate in range(k, k + 4):
        if _passes(replace(settings, k=candidate), max_delta):
            return candidate
    return None


def _advise_beta(settings: Settings, max_delta: Fraction) -> Optional[Fraction]:
    target = _lqs_target(settings, max_delta)
    for digits in range(2, 10):
        denominator = 10**digits
        try:
            beta = largest_beta(max(settings.k, 1), settings.lqs_epsilon, target, denominator=denominator)
        except InvalidParameterError:
            continue
        # two significant digits at least, so the advice is neither 0.01 nor 0.0123456
        if beta * denominator >= 10 and _passes(replace(settings, beta=beta), max_delta):
            return beta
    return None


def _advise_n_trees(settings: Settings, max_delta: Fraction) -> Optional[int]:
    if settings.n_trees == 1 or not _passes(replace(settings, n_trees=1), max_delta):
        return None
    good, bad = 1, settings.n_trees
    while bad - good > 1:  # bisection; every answer returned has passed the check
        mid = (good + bad) // 2
        if _passes(replace(settings, n_trees=mid), max_delta):
            good = mid
        else:
            bad = mid
    return good


def _advise_epsilon(settings: Settings, max_delta: Fraction) -> Optional[Fraction]:
    factor = settings.epsilon / settings.lqs_epsilon
    ceiling = MAX_EPSILON * factor
    bad, good = settings.epsilon, settings.epsilon * 2
    while not _passes(replace(settings, epsilon=good), max_delta):
        if good >= ceiling:
            return None
        bad, good = good, min(good * 2, ceiling)
    while good - bad > good / 200:
        mid = (good + bad) / 2
        if _passes(replace(settings, epsilon=mid), max_delta):
            good = mid
        else:
            bad = mid
    for digits in (2, 3, 4, 6):
        rounded = _decimal(good, digits, ROUND_CEILING)
        if _passes(replace(settings, epsilon=rounded), max_delta):
            return rounded
    return None


@dataclass(frozen=True)
class Advice:
    """Settings that pass the delta check, each changing one of the caller's values (None: none found).

    ``defaults`` says that leaving k, beta and n_trees unset passes (it
    always does: the plans are certified); ``command`` is the ``delta``
    subcommand that answers the per-tree question behind ``k`` (or ``beta``).
    """

    k: Optional[int]
    beta: Optional[Fraction]
    n_trees: Optional[int]
    epsilon: Optional[Fraction]
    defaults: bool
    command: str

    def text(self) -> str:
        options = []
        if self.k is not None:
            options.append(f"--param k={self.k}")
        if self.beta is not None:
            options.append(f"--param beta={_show(self.beta)}")
        if self.n_trees is not None:
            options.append(f"--param n_trees={self.n_trees}")
        if self.epsilon is not None:
            options.append(f"--epsilon {_show(self.epsilon)}")
        if self.defaults:
            options.append("the defaults (n_trees, beta, k and size_share not given: chosen from epsilon, certified)")
        found = "; ".join(options)
        return f"settings that pass, each changing one value: {found}. {self.command}"


def advise(settings: Settings, max_delta: Fraction) -> Advice:
    """Settings near ``settings`` whose receipt delta is below 1 and at most ``max_delta``."""
    k = _advise_k(settings, max_delta)
    beta = _advise_beta(settings, max_delta)
    target = _show(_decimal(_lqs_target(settings, max_delta), 3, ROUND_FLOOR))
    per_tree = "max_delta/n_trees" + (" / (1 + e^epsilon_t)" if settings.relation is Relation.SUBSTITUTE else "")
    question = f"--beta {_show(settings.beta)}" if k is not None else f"--k {max(settings.k, 1)}"
    command = (
        f"`python3 -m refdp delta {question} --epsilon {settings.lqs_epsilon} --target-delta {target}` "
        f"gives the {'smallest k' if k is not None else 'largest beta'} for one tree "
        f"(epsilon_t = {settings.lqs_epsilon}, target {per_tree})"
    )
    return Advice(
        k=k,
        beta=beta,
        n_trees=_advise_n_trees(settings, max_delta),
        epsilon=_advise_epsilon(settings, max_delta),
        defaults=True,
        command=command,
    )


def certify(settings: Settings, max_delta: Fraction) -> TreeGuarantee:
    """The per-tree guarantee, or InvalidParameterError with :func:`advise`'s settings.

    Refused: settings the theorem does not cover, a receipt delta of 1 or
    more (it promises nothing, whatever ``max_delta`` says), and a receipt
    delta above ``max_delta``.
    """
    try:
        guarantee = settings.guarantee()
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            f"{exc}; under --param max_delta={_show(max_delta)} as well, "
            f"{advise(settings, max_delta).text()}"
        ) from None
    total = settings.n_trees * guarantee.delta
    if total <= max_delta and total < 1:
        return guarantee
    shape = (
        f"{settings.n_trees} tree(s) x {float(guarantee.delta):.4g} = {float(total):.4g} "
        f"(k={settings.k}, beta={_show(settings.beta)}, epsilon={settings.epsilon} under "
        f"{settings.relation.value})"
    )
    if total >= 1:
        reason = "which is 1 or more and promises nothing (refused whatever max_delta says)"
    else:
        reason = (
            f"above --param max_delta={_show(max_delta)}; raise that only if a delta this large "
            "is acceptable (delta bounds the chance that the epsilon guarantee fails outright)"
        )
    raise InvalidParameterError(
        f"kanon-rdt's receipt would state delta = {shape}, {reason}; "
        f"{advise(settings, max_delta).text()}"
    )


def _suppress(counts: List[int], k: int, leaf_total: bool) -> Tuple[Count, ...]:
    if leaf_total:
        return tuple(counts) if sum(counts) >= k else (0,) * len(counts)
    return tuple(c if c >= k else 0 for c in counts)


@dataclass(frozen=True)
class Plan:
    """One forest kanon-rdt may train: its settings, depth and certified per-tree guarantee."""

    settings: Settings
    depth: int
    guarantee: TreeGuarantee

    @property
    def delta(self) -> Fraction:
        return self.settings.n_trees * self.guarantee.delta


PLAN_TREES = (1, 2, 4, 8, 16, 32)
"""The numbers of trees a plan chooses from when ``n_trees`` is not given."""

PLAN_BETAS = tuple(Fraction(b) for b in ("0.01", "0.02", "0.03", "0.05", "0.07", "0.1", "0.15", "0.2", "0.3", "0.4", "0.5"))
"""The sampling probabilities a plan chooses from when ``beta`` is not given."""


@dataclass(frozen=True)
class Given:
    """The forest settings the caller fixed (None: chosen by :func:`candidate_plans`)."""

    n_trees: Optional[int]
    beta: Optional[Fraction]
    k: Optional[int]

    @property
    def fixed(self) -> bool:
        """All three given: the forest of Algorithm 3, at depth ``max_depth`` exactly."""
        return self.n_trees is not None and self.beta is not None and self.k is not None

    @staticmethod
    def of(params: Mapping[str, Param]) -> "Given":
        n_trees, beta, k = int(params["n_trees"]), as_fraction(params["beta"], "beta"), int(params["k"])
        return Given(n_trees or None, beta or None, None if k == AUTO_K else k)


def _cheapest(
    epsilon: Fraction, n_trees: int, relation: Relation, share: Fraction, max_delta: Fraction, given: Given
) -> Optional[Tuple[Fraction, int]]:
    """(beta, k) with the fewest rows k / beta that a (leaf, label) cell needs to be released: beta from
    :data:`PLAN_BETAS` (or the given one), k the smallest that certifies ``n_trees`` trees within
    ``max_delta`` (or the given one, if it certifies)."""
    best: Optional[Tuple[Fraction, int]] = None
    for beta in (given.beta,) if given.beta is not None else PLAN_BETAS:
        settings = Settings(epsilon, n_trees, given.k or 0, beta, relation, share)
        k = _advise_k(settings, max_delta) if given.k is None else given.k if _passes(settings, max_delta) else None
        if k is not None and (best is None or Fraction(max(k, 1)) / beta <= Fraction(max(best[1], 1)) / best[0]):
            best = (beta, k)
    return best


@lru_cache(maxsize=64)
def candidate_plans(
    epsilon: Fraction, relation: Relation, max_delta: Fraction, share: Fraction, max_depth: int, given: Given
) -> Tuple[Plan, ...]:
    """The forests a fit may train, all certified: public, computed before anything is read.

    With ``n_trees``, ``beta`` and ``k`` all given, the one forest of
    Algorithm 3 at depth ``max_depth`` (refused with advice when it does not
    certify).  Otherwise, for every N_t of :data:`PLAN_TREES` (or the given
    one): the (beta, k) of :func:`_cheapest`, at every depth 1 ..
    ``max_depth``; N_t without a certified (beta, k) are left out.  The
    receipt states the largest delta of them all, whichever runs (claim
    ``noisy-size-plan``).

    >>> auto = Given(None, None, None)
    >>> plans = candidate_plans(Fraction(1, 10), Relation.ADD_REMOVE, Fraction(1, 10**5), Fraction(1, 20), 1, auto)
    >>> [(p.settings.n_trees, p.settings.beta, p.settings.k) for p in plans]
    [(1, Fraction(1, 20), 24), (2, Fraction(1, 50), 20), (4, Fraction(1, 100), 22), (8, Fraction(1, 100), 48)]
    """
    if given.fixed:
        assert given.n_trees is not None and given.beta is not None and given.k is not None
        forest = Settings(epsilon, given.n_trees, given.k, given.beta, relation, share)
        return (Plan(forest, max_depth, certify(forest, max_delta)),)
    plans: List[Plan] = []
    for n_trees in (given.n_trees,) if given.n_trees is not None else PLAN_TREES:
        found = _cheapest(epsilon, n_trees, relation, share, max_delta, given)
        if found is None:
            continue
        settings = Settings(epsilon, n_trees, found[1], found[0], relation, share)
        guarantee = certify(settings, max_delta)
        plans += [Plan(settings, depth, guarantee) for depth in range(1, max_depth + 1)]
    if not plans and given != Given(None, None, None):
        raise InvalidParameterError(
            f"no kanon-rdt forest with {_given_text(given)} is certified at epsilon {_show(epsilon)} within "
            f"--param max_delta={_show(max_delta)}; leave n_trees, beta and k unset (chosen from epsilon) or "
            "raise epsilon"
        )
    return tuple(plans)


def _given_text(given: Given) -> str:
    parts = [f"n_trees={given.n_trees}"] if given.n_trees is not None else []
    parts += [f"beta={_show(given.beta)}"] if given.beta is not None else []
    parts += [f"k={given.k}"] if given.k is not None else []
    return " and ".join(parts)


def fills(noisy_size: int, plan: Plan, n_classes: int, branching: Fraction, min_fill: Fraction) -> bool:
    """N~ beta >= m k |C| B^d: a tree's expected sample fills its (leaf, class) cells with m k rows each.

    B is the mean number of children of a split and d the plan's depth; a
    sample that cannot fill the cells with about k rows loses nearly all its
    counts to suppression, and a forest of such trees says nothing.
    """
    settings = plan.settings
    cells = n_classes * branching**plan.depth
    return noisy_size * settings.beta >= min_fill * max(settings.k, 1) * cells


def choose_plan(
    noisy_size: int, plans: Sequence[Plan], n_classes: int, branching: Fraction, min_fill: Fraction
) -> Optional[Plan]:
    """The plan to train, a function of N~ and public values only.

    The plan with the most attribute tests N_t d (then the deepest) among
    those whose sample :func:`fills` its cells with ``min_fill`` k rows; when
    none does, the one-tree, one-level plan if its sample fills them with
    half as many (one random attribute still says something on small data);
    else None: the model is then a noisy class histogram.

    >>> auto = Given(None, None, None)
    >>> plans = candidate_plans(Fraction(1), Relation.ADD_REMOVE, Fraction(1, 10**5), Fraction(1, 20), 2, auto)
    >>> chosen = choose_plan(30000, plans, 2, Fraction(5), Fraction(1))
    >>> chosen.settings.n_trees, chosen.depth
    (32, 1)
    >>> single = choose_plan(400, plans, 2, Fraction(3), Fraction(1))
    >>> single.settings.n_trees, single.depth, single.settings.beta, single.settings.k
    (1, 1, Fraction(3, 10), 18)
    >>> choose_plan(100, plans, 2, Fraction(5), Fraction(1)) is None
    True
    """
    for need, plan in _ladder(tuple(plans), n_classes, branching, min_fill):
        if noisy_size >= need:
            return plan
    return None


def _fill_size(plan: Plan, n_classes: int, branching: Fraction, min_fill: Fraction) -> Fraction:
    """The least N~ for which ``plan``'s sample :func:`fills` its cells with ``min_fill`` k rows."""
    settings = plan.settings
    return min_fill * max(settings.k, 1) * n_classes * branching**plan.depth / settings.beta


@lru_cache(maxsize=256)
def _ladder(
    plans: Tuple[Plan, ...], n_classes: int, branching: Fraction, min_fill: Fraction
) -> Tuple[Tuple[Fraction, Plan], ...]:
    """(the least N~ that takes it, plan) in the order :func:`choose_plan` prefers the plans (computed once)."""
    ranked = sorted(plans, key=lambda p: (p.settings.n_trees * p.depth, p.depth), reverse=True)
    ladder = [(_fill_size(p, n_classes, branching, min_fill), p) for p in ranked]
    single = [p for p in plans if p.settings.n_trees == 1 and p.depth == 1]
    ladder += [(_fill_size(p, n_classes, branching, min_fill / 2), p) for p in single[:1]]
    return tuple(ladder)


PRIOR_LABEL = "noisy class histogram (the prior)"
SIZE_LABEL = "noisy class histogram (the prior; its total chooses the plan)"
SECOND_LABEL = "class histogram"


def _histogram_order(classes: Sequence[str]) -> List[int]:
    """The class indices in the order of their names: the order a class histogram's noise is drawn in."""
    return sorted(range(len(classes)), key=classes.__getitem__)


def class_histogram(
    data: Dataset, epsilon: Fraction, relation: Relation, engine: Engine, rng: RandomSource, ledger: Ledger,
    label: str,
) -> Tuple[int, ...]:
    """The class histogram with discrete Laplace noise of budget ``epsilon`` (add-remove; each cell
    ``epsilon / 2`` under substitute), its noise drawn in the order of the class names, not of their
    listing: listing the classes in another order permutes the released counts and nothing else."""
    classes = data.schema.classes
    true = [0] * len(classes)
    for label_code in data.labels:
        true[label_code] += 1
    order = _histogram_order(classes)
    noisy = engine.histogram(
        [true[c] for c in order], epsilon=cell_epsilon(epsilon, relation), rng=rng, ledger=ledger, label=label,
        names=[classes[c] for c in order],
    )
    out = [0] * len(classes)
    for position, c in enumerate(order):
        out[c] = int(noisy[position])
    return tuple(out)


def _histogram_charges(classes: Sequence[str], epsilon: Fraction, relation: Relation, label: str) -> Tuple[Charge, ...]:
    """The charges :func:`class_histogram` records."""
    return histogram_charges(
        epsilon=cell_epsilon(epsilon, relation), label=label, names=[classes[c] for c in _histogram_order(classes)],
    )


@dataclass(frozen=True)
class ChosenPlan:
    """The forest a run trains (None: the second histogram), the delta the receipt states, and the N~ that chose."""

    plan: Optional[Plan]
    total_delta: Fraction
    noisy_size: Optional[int]

    @property
    def delta(self) -> Fraction:
        return self.plan.delta if self.plan is not None else Fraction(0)


def _candidates(schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation) -> Tuple[Plan, ...]:
    """:func:`candidate_plans` for these parameters, refusing a plan to choose without a noisy histogram."""
    given = Given.of(params)
    share = as_fraction(params["size_share"], "size_share")
    if not given.fixed and share == 0:
        raise InvalidParameterError(
            "kanon-rdt chooses the forest settings left unset (n_trees, beta, k) from a noisy class histogram, "
            "which needs size_share > 0: give --param size_share=0.05, or all of --param n_trees, beta and k"
        )
    max_delta = as_fraction(params["max_delta"], "max_delta")
    return candidate_plans(epsilon, relation, max_delta, share, resolve_max_depth(schema, int(params["max_depth"])), given)


def kanon_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, noisy_size: Optional[int]
) -> ChosenPlan:
    """The plan a run follows: a function of public values and the histogram's total N~ only.

    With ``n_trees``, ``beta`` and ``k`` all given, their forest (N~ is not
    read); otherwise :func:`choose_plan` among :func:`candidate_plans` by
    ``noisy_size``.  A verifier calls it with the model's plan input.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.data import load
    >>> params = get_algorithm("kanon-rdt").resolve({})
    >>> chosen = kanon_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435)
    >>> chosen.plan.settings.n_trees, chosen.plan.depth, chosen.noisy_size
    (1, 1, 435)
    """
    plans = _candidates(schema, epsilon, params, relation)
    total_delta = max((plan.delta for plan in plans), default=Fraction(0))
    if Given.of(params).fixed:
        return ChosenPlan(plans[0], total_delta, None)
    if noisy_size is None:
        raise InvalidParameterError("kanon-rdt's plan reads the noisy histogram's total; none was given")
    categorical = str(params["categorical"])
    binned = params["continuous"] == "bins"
    branching = mean_branching(schema, int(params["bins"]) if binned else 2, categorical == "binary")
    min_fill = as_fraction(params["min_fill"], "min_fill")
    return ChosenPlan(choose_plan(noisy_size, plans, schema.n_classes, branching, min_fill), total_delta, noisy_size)


def _tree_charges(t: int, plan: Plan, leaf_total: bool, max_delta: Param) -> Tuple[Charge, Charge]:
    """Tree ``t``'s two charges: its data-independent structure, and its sample and suppression."""
    settings, guarantee = plan.settings, plan.guarantee
    scope = f"tree{t}"
    structure = data_independent_charge(
        label=f"tree {t}: random structure",
        partition=(scope,),
        note="Fan et al. structure from the public schema; nodes drawn when first reached",
    )
    sample = new_charge(
        label=f"tree {t}: Bernoulli({settings.beta}) sample, counts below {settings.k} set to 0 "
        + ("on the leaf total (UNSOUND)" if leaf_total else "per (leaf, label)"),
        mechanism="sample-and-suppress",
        epsilon=guarantee.epsilon,
        delta=guarantee.delta,
        sensitivity=None,
        claims=CLAIMS if leaf_total else SOUND_CLAIMS,
        partition=(scope,),
        sound=not leaf_total,
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
    schema = data.schema
    variant = str(params["variant"])
    if variant not in VARIANTS:
        raise InvalidParameterError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    _candidates(schema, epsilon, params, relation)  # certified, or refused, before anything is drawn
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
        trees, weights = _forest(data, chosen.plan, params, engine, rng, ledger)
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
) -> Tuple[List[Node], List[float]]:
    """The plan's trees (Algorithm 3) and their voting weights."""
    schema = data.schema
    leaf_total = params["variant"] == "leaf-total"
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
        structure, sample = _tree_charges(t, plan, leaf_total, params["max_delta"])
        ledger.record(structure)
        counts: Dict[int, List[int]] = {}
        for position in bernoulli_positions(beta, len(rows), rng):
            row = rows[position]
            leaf = builder.leaf_index(columns, row)
            tally = counts.get(leaf)
            if tally is None:
                tally = counts[leaf] = [0] * n_classes
            tally[labels[row]] += 1
        released = {leaf: _suppress(c, k, leaf_total) for leaf, c in counts.items()}
        ledger.record(sample)
        tree = builder.build(lambda leaf: released.get(leaf, zeros), collapse_zeros=True)
        trees.append(bins.unbin(tree) if bins is not None else tree)
    return trees, _forest_weights(schema, plan, params)


def derive_kanon_rdt(model: TreeModel) -> Optional[Ledger]:
    """The charges of the plan :func:`kanon_plan` certifies and the released histogram's total chooses.

    The noisy histogram's charges come first (when ``size_share`` > 0); the
    plan is :func:`kanon_plan` of the model's plan input N~.  A forest's
    trees must be structures the plan can draw (subtrees whose counts are
    all suppressed shown as one zero leaf), with counts that are sampled
    tallies after suppression: whole numbers, each 0 or at least k (the
    leaf total, under ``leaf-total``); then comes the prior, one leaf of
    weight 0 whose counts total N~.  The histogram plan's model is one leaf.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("kanon-rdt", load("vote"), 1, rng=1)
    >>> derive_kanon_rdt(model).charges == model.receipt.charges
    True
    >>> small = train("kanon-rdt", load("vote").subset(range(40)), 1, rng=1)
    >>> derive_kanon_rdt(small).charges == small.receipt.charges
    True
    """
    schema, params = model.schema, model.params
    ledger = fresh_ledger(model)
    budget = model_budget(model)
    share = as_fraction(params["size_share"], "size_share")
    auto = not Given.of(params).fixed
    if share > 0:
        for charge in _histogram_charges(schema.classes, share * budget, ledger.relation, SIZE_LABEL if auto else PRIOR_LABEL):
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
        for charge in _histogram_charges(schema.classes, (1 - share) * budget, ledger.relation, SECOND_LABEL):
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
    leaf_total = params["variant"] == "leaf-total"
    bins = PublicBins.of(schema, int(params["bins"])).thresholds if params["continuous"] == "bins" else None
    for t, tree in enumerate(model.trees[: settings.n_trees]):
        check_structure(
            tree, schema, plan.depth, str(params["categorical"]), bins, params["structure"] == "per-level",
            collapsed=True, where=f"tree {t}",
        )
        for leaf in leaves(tree):
            counts = [int(c) for c in leaf.counts]
            shown = [sum(counts)] if leaf_total else counts
            if any(c < 0 or 0 < c < settings.k for c in shown):
                refuse(
                    f"tree {t} has a leaf with counts {counts}, which suppression below k={settings.k} cannot "
                    "release (each is 0 or at least k)"
                )
        for charge in _tree_charges(t, plan, leaf_total, params["max_delta"]):
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
            Variant(
                "leaf-total", False, "suppression on the leaf total only (planted fault: delta >= beta)",
                claims=(
                    "discrete-laplace-mechanism", "exact-bernoulli-positions", "kanon-rdt-privacy",
                    "leaf-total-suppression-not-private", "lqs-delta-certified", "lqs-sampling-suppression",
                    "noisy-size-plan", "parallel-composition", "sequential-composition",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", VARIANTS),
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
            Parameter(
                "structure", str, "per-level",
                "where the attributes are drawn: at every node (Fan et al.), or once per level of a tree, "
                "dealt so that every attribute appears about equally often in the forest",
                STRUCTURES,
            ),
            Parameter(
                "categorical", str, "multiway",
                "categorical splits: one child per value (Fan et al.) or value-vs-rest",
                CATEGORICAL_SPLITS,
            ),
            Parameter(
                "continuous", str, "bins",
                "continuous attributes: one child per public equal-width bin (used once per path), or a "
                "threshold drawn uniformly from the remaining public range (Fan et al.)",
                CONTINUOUS_SPLITS,
            ),
            Parameter("bins", int, DEFAULT_BINS, "bins of a continuous attribute when continuous=bins", minimum=2,
                      maximum=1024),
            Parameter(
                "voting", str, "log-odds",
                "how the trees vote: log-odds (each tree moves a class's odds by its leaf's share against the "
                "tree's) or sum-counts (the leaves' counts added, the paper's Algorithm 2)",
                RDT_VOTING,
            ),
        ),
        claims=CLAIMS,
        fit=fit_kanon_rdt,
        engines=("reference", "array"),
        derive=derive_kanon_rdt,
    )
)
