"""k-AnonToRdt's guarantee: the certified (epsilon, delta) of a forest's settings, and advice when it is refused.

:func:`tree_guarantee` is the per-tree charge of the Li-Qardaji-Su theorem
for a total epsilon (:mod:`refdp.algorithms.kanon_rdt`, claims
``lqs-sampling-suppression``, ``kanon-rdt-privacy``); :func:`certify`
refuses settings whose receipt delta is 1 or more, or above ``max_delta``,
with :func:`advise`'s settings that pass.  Nothing here reads the data.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Optional

from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.privacy.lqs import (
    MAX_EPSILON, LqsResult, exp_bounds, float_up, largest_beta, lqs_delta, lqs_min_epsilon, smallest_k
)

__all__ = [
    "DEFAULT_MAX_DELTA",
    "AUTO_K",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_SIZE_SHARE",
    "DEFAULT_MIN_FILL",
    "DEFAULT_BINS",
    "TreeGuarantee",
    "tree_guarantee",
    "Settings",
    "receipt_delta",
    "show",
    "Advice",
    "advise",
    "certify",
]


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
            options.append(f"--param beta={show(self.beta)}")
        if self.n_trees is not None:
            options.append(f"--param n_trees={self.n_trees}")
        if self.epsilon is not None:
            options.append(f"--epsilon {show(self.epsilon)}")
        if self.defaults:
            options.append("the defaults (n_trees, beta, k and size_share not given: chosen from epsilon, certified)")
        found = "; ".join(options)
        return f"settings that pass, each changing one value: {found}. {self.command}"


def advise(settings: Settings, max_delta: Fraction) -> Advice:
    """Settings near ``settings`` whose receipt delta is below 1 and at most ``max_delta``."""
    k = _advise_k(settings, max_delta)
    beta = _advise_beta(settings, max_delta)
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
            f"{exc}; under --param max_delta={show(max_delta)} as well, "
            f"{advise(settings, max_delta).text()}"
        ) from None
    total = settings.n_trees * guarantee.delta
    if total <= max_delta and total < 1:
        return guarantee
    shape = (
        f"{settings.n_trees} tree(s) x {float(guarantee.delta):.4g} = {float(total):.4g} "
        f"(k={settings.k}, beta={show(settings.beta)}, epsilon={settings.epsilon} under "
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
        f"kanon-rdt's receipt would state delta = {shape}, {reason}; "
        f"{advise(settings, max_delta).text()}"
    )
