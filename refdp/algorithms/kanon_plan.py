"""k-AnonToRdt's plans: the certified (epsilon, delta) of each, advice when one is refused, and the choice.

:func:`tree_guarantee` is the per-tree charge of the Li-Qardaji-Su theorem
for a total epsilon (:mod:`refdp.algorithms.kanon_rdt`, claims
``lqs-sampling-suppression``, ``kanon-rdt-privacy``); :func:`certify`
refuses a plan whose receipt delta is 1 or more, or above ``max_delta``,
with :func:`advise`'s settings that pass; :func:`choose_plan` certifies the
plans before anything is read, then lets a noisy size choose one (claim
``noisy-size-plan``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Mapping, Optional

from refdp.algorithms.noisy_depth import mean_branching
from refdp.algorithms.rdt import resolve_max_depth
from refdp.algorithms.registry import Param
from refdp.data import Schema
from refdp.engine import Engine
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace_mechanism
from refdp.privacy import Ledger, Relation, as_fraction
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

__all__ = [
    "DEFAULT_MAX_DELTA",
    "DEFAULT_N_TREES",
    "DEFAULT_K",
    "DEFAULT_BETA",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_SMALL_K",
    "DEFAULT_SMALL_BETA",
    "DEFAULT_SIZE_SHARE",
    "DEFAULT_BINS",
    "TreeGuarantee",
    "tree_guarantee",
    "Settings",
    "receipt_delta",
    "show",
    "Advice",
    "advise",
    "certify",
    "SIZE_CLAIMS",
    "Plan",
    "fills",
    "ChosenPlan",
    "choose_plan",
]

DEFAULT_MAX_DELTA = 1e-5
"""The largest receipt delta kanon-rdt certifies unless told otherwise (below 1/n for every built-in data set)."""

# The forest: 12 per-level trees of depth 3 on 3% samples; k = 23 (the smallest passing at epsilon 1
# with size_share 0.05 is 22) lets the defaults pass a little below epsilon 1.  The one-tree plan for
# small data is the previous default (1 tree of depth 1, beta 0.3, k 19).  Evidence: docs/results.md,
# "kanon-rdt and private-rdt defaults (issue 19)".
DEFAULT_N_TREES = 12
DEFAULT_K = 23
DEFAULT_BETA = 0.03
DEFAULT_MAX_DEPTH = 3
DEFAULT_SMALL_K = 19
DEFAULT_SMALL_BETA = 0.3
DEFAULT_SIZE_SHARE = 0.05
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


def show(value: Fraction) -> str:
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

    ``defaults`` says whether the registered defaults of k, beta and n_trees
    pass at the caller's epsilon and relation; ``command`` is the ``delta``
    subcommand that answers the per-tree question behind ``k`` (or ``beta``).
    """

    k: Optional[int]
    beta: Optional[Fraction]
    n_trees: Optional[int]
    epsilon: Optional[Fraction]
    defaults: bool
    command: str
    prefix: str = ""
    """``small_`` when the advice is about the one-tree plan's ``small_k`` and ``small_beta``."""

    def text(self) -> str:
        options = []
        p = self.prefix
        if self.k is not None:
            options.append(f"--param {p}k={self.k}")
        if self.beta is not None:
            options.append(f"--param {p}beta={show(self.beta)}")
        if self.n_trees is not None:
            options.append(f"--param n_trees={self.n_trees}")
        if self.epsilon is not None:
            options.append(f"--epsilon {show(self.epsilon)}")
        if self.defaults and p:
            options.append(f"the defaults (--param {p}k={DEFAULT_SMALL_K} --param {p}beta={DEFAULT_SMALL_BETA})")
        elif self.defaults:
            options.append(
                f"the defaults (--param k={DEFAULT_K} --param beta={DEFAULT_BETA} --param n_trees={DEFAULT_N_TREES})"
            )
        found = "; ".join(options) if options else f"none found by changing one of {p}k, {p}beta, n_trees, epsilon"
        return f"settings that pass, each changing one value: {found}. {self.command}"


def advise(settings: Settings, max_delta: Fraction, prefix: str = "") -> Advice:
    """Settings near ``settings`` whose receipt delta is below 1 and at most ``max_delta``.

    ``prefix`` is ``small_`` for the one-tree plan (its parameters are ``small_k`` and ``small_beta``).
    """
    k = _advise_k(settings, max_delta)
    beta = _advise_beta(settings, max_delta)
    if prefix:
        defaults = replace(settings, k=DEFAULT_SMALL_K, beta=as_fraction(DEFAULT_SMALL_BETA, "small_beta"))
    else:
        defaults = replace(settings, k=DEFAULT_K, beta=as_fraction(DEFAULT_BETA, "beta"), n_trees=DEFAULT_N_TREES)
    target = show(_decimal(_lqs_target(settings, max_delta), 3, ROUND_FLOOR))
    per_tree = "max_delta/n_trees" + (" / (1 + e^epsilon_t)" if settings.relation is Relation.SUBSTITUTE else "")
    question = f"--beta {show(settings.beta)}" if k is not None else f"--k {max(settings.k, 1)}"
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
        defaults=defaults != settings and _passes(defaults, max_delta),
        command=command,
        prefix=prefix,
    )


def certify(settings: Settings, max_delta: Fraction, prefix: str = "") -> TreeGuarantee:
    """The per-tree guarantee, or InvalidParameterError with :func:`advise`'s settings.

    Refused: settings the theorem does not cover, a receipt delta of 1 or
    more (it promises nothing, whatever ``max_delta`` says), and a receipt
    delta above ``max_delta``.
    """
    try:
        guarantee = settings.guarantee()
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            f"{exc}; under --param max_delta={show(max_delta)} as well, "
            f"{advise(settings, max_delta, prefix).text()}"
        ) from None
    total = settings.n_trees * guarantee.delta
    if total <= max_delta and total < 1:
        return guarantee
    shape = (
        f"{settings.n_trees} tree(s) x {float(guarantee.delta):.4g} = {float(total):.4g} "
        f"({prefix}k={settings.k}, {prefix}beta={show(settings.beta)}, epsilon={settings.epsilon} under "
        f"{settings.relation.value})"
    )
    if total >= 1:
        reason = "which is 1 or more and promises nothing (refused whatever max_delta says)"
    else:
        reason = (
            f"above --param max_delta={show(max_delta)}; raise that only if a delta this large "
            "is acceptable (delta bounds the chance that the epsilon guarantee fails outright)"
        )
    raise InvalidParameterError(
        f"kanon-rdt's {'one-tree plan' if prefix else 'receipt'} would state delta = {shape}, {reason}; "
        f"{advise(settings, max_delta, prefix).text()}"
    )


SIZE_CLAIMS = ("noisy-size-plan", "discrete-laplace-mechanism", "sequential-composition")


@dataclass(frozen=True)
class Plan:
    """One forest kanon-rdt may train: its settings, depth and certified per-tree guarantee."""

    settings: Settings
    depth: int
    guarantee: TreeGuarantee

    @property
    def delta(self) -> Fraction:
        return self.settings.n_trees * self.guarantee.delta


def fills(noisy_size: int, plan: Plan, n_classes: int, branching: Fraction, min_fill: Fraction) -> bool:
    """N~ beta >= m k |C| B: a tree's expected sample fills the (value, class) cells of an average split with m k rows.

    B is the mean number of children of a split; a sample that cannot fill
    the cells of one split with k rows each loses nearly all its counts to
    suppression, and a forest of such trees says nothing.
    """
    settings = plan.settings
    return noisy_size * settings.beta >= min_fill * max(settings.k, 1) * n_classes * branching


@dataclass(frozen=True)
class ChosenPlan:
    """The plan a run follows (chosen by the noisy size when there are two) and the delta the receipt states."""

    plan: Plan
    total_delta: Fraction
    noisy_size: Optional[int]


def choose_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> ChosenPlan:
    """Certify the plans before anything is read, then let a noisy size of the ``size`` rows choose one.

    A function of public values and the released noisy size only: a
    verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> from refdp.engine import REFERENCE
    >>> params = get_algorithm("kanon-rdt").resolve({"size_share": 0})
    >>> chosen = choose_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE,
    ...                      NO_RANDOMNESS, Ledger())
    >>> chosen.plan.settings.n_trees, chosen.noisy_size
    (12, None)
    """
    categorical = str(params["categorical"])
    binned = params["continuous"] == "bins"
    max_delta = as_fraction(params["max_delta"], "max_delta")
    share, min_fill = as_fraction(params["size_share"], "size_share"), as_fraction(params["min_fill"], "min_fill")
    forest = Settings(
        epsilon, int(params["n_trees"]), int(params["k"]), as_fraction(params["beta"], "beta"), relation, share
    )
    plans = [Plan(forest, resolve_max_depth(schema, int(params["max_depth"])), certify(forest, max_delta))]
    if share > 0:
        single = Settings(
            epsilon, 1, int(params["small_k"]), as_fraction(params["small_beta"], "small_beta"), relation, share
        )
        plans.insert(0, Plan(single, min(1, plans[0].depth), certify(single, max_delta, "small_")))
    # The receipt's delta is the largest of the plans' (which one runs depends on the data).
    total_delta = max(plan.delta for plan in plans)
    if total_delta >= 1 or total_delta > max_delta:
        raise InvalidParameterError(
            f"kanon-rdt's plans together would state delta = {float(total_delta):.4g}, above "
            f"--param max_delta={show(max_delta)} or 1; lower size_share or change the plans"
        )
    if share == 0:
        return ChosenPlan(plans[-1], total_delta, None)
    branching = mean_branching(schema, int(params["bins"]) if binned else 2, categorical == "binary")
    noisy = discrete_laplace_mechanism(
        size, epsilon=share * epsilon, rng=rng, ledger=ledger,
        label="noisy size N~ of the data (chooses the plan)", claims=SIZE_CLAIMS,
        sampler=engine.discrete_laplace,
    )
    plan = plans[-1] if fills(noisy, plans[-1], schema.n_classes, branching, min_fill) else plans[0]
    return ChosenPlan(plan, total_delta, noisy)
