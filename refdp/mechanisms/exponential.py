"""The exponential mechanism (McSherry and Talwar, FOCS 2007).

Given utilities u(D, r) of candidates r = 0..m-1, optional data-independent
base weights w_r >= 0 and a bound Delta_u on how much any single u(., r) can
change between neighbouring datasets, the mechanism returns r with

    P[r] = w_r exp(epsilon u(D, r) / (2 Delta_u)) / sum_j w_j exp(epsilon u(D, j) / (2 Delta_u)),

which is epsilon-DP (claim ``exponential-mechanism``).  Base weights are how
DiffP-C4.5 picks a split point of a continuous attribute: the candidates
are the intervals between consecutive values, weighted by their length, and
the weighted mechanism is the exponential mechanism over the continuous
domain with the (data-independent) Lebesgue base measure.

Two samplers realise the distribution:

* the default, :func:`sample_index` over :func:`exponential_probabilities`:
  float probabilities computed in log space and ONE ``rng.random()`` draw,
  inverted through the cumulative sums.  It is fast, and a future array
  implementation can replay it exactly by drawing the same single number.
  Its distribution equals the mechanism's only up to rounding (claim
  ``exponential-mechanism-float-sampler``);
* :func:`exponential_sample_exact`: the index of integer enclosures of the
  weights and a lazily drawn uniform (:mod:`refdp.mechanisms.inversion`;
  floats with proven error bounds only find that index, and it is
  computed in integers when they cannot prove it); its distribution is
  exactly the mechanism's (claim ``exponential-mechanism-exact-sampler``).

Algorithms choose one with the ``exact`` flag of :func:`exponential_mechanism`
and say in their documentation which they use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import compress, repeat
from operator import itemgetter, mul
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union, cast

from refdp.errors import InvalidParameterError
from refdp.mechanisms._params import (
    Exact,
    SensitivityLike,
    exact_fraction,
    finite_floats,
    sensitivity_value,
)
from refdp.mechanisms.inversion import (
    certified_first,
    draw_first,
    exp_neg_fixed,
    exp_neg_float,
    sample_by_inversion,
)
from refdp.mechanisms.ratios import Ratio, Ratios
from refdp.mechanisms.recording import Call, ExponentialLaw, FloatInversionLaw, Utilities, mechanism_call
from refdp.privacy import Charge, Ledger, Number, as_epsilon, check_partition
from refdp.privacy.ledger import new_charge
from refdp.rng import RandomSource

__all__ = [
    "FloatProbabilities",
    "IndexDraw",
    "float_probabilities",
    "exponential_log_probabilities",
    "exponential_probabilities",
    "sample_index",
    "exponential_sample_exact",
    "exponential_mechanism",
    "exponential_charge",
]

Real = Union[float, Exact]
"""A utility or base weight: a float, or an exact int or Fraction."""

# The float sampler accepts probabilities whose sum is this close to 1.
_SUM_TOLERANCE = 1e-9


def _float_weights(base_weights: Optional[Sequence[Real]], m: int) -> Tuple[float, ...]:
    if base_weights is None:
        return (1.0,) * m
    weights = finite_floats(base_weights, "base_weights")
    if len(weights) != m:
        raise InvalidParameterError(
            f"base_weights has {len(weights)} entries but there are {m} utilities; give one per candidate"
        )
    if any(w < 0 for w in weights) or not any(w > 0 for w in weights):
        raise InvalidParameterError(
            "base_weights must be >= 0 with at least one > 0 (a zero weight excludes a candidate)"
        )
    return weights


def _calibration(delta_u: Fraction, monotone: bool) -> Fraction:
    """c with weights exp(epsilon u / (2 c)): Delta_u, or Delta_u / 2 for monotone utilities.

    Monotone utilities (every candidate's moving one way between
    neighbours) need no factor 2 (claim ``exponential-mechanism-monotone``);
    the sampler and the laws of :func:`exponential_probabilities` both take
    c from here.
    """
    return delta_u / 2 if monotone else delta_u


def _coefficient(epsilon: Number, sensitivity: SensitivityLike, monotone: bool = False) -> float:
    """epsilon / (2 c) for c the :func:`_calibration` of Delta_u, rounded once from the exact quotient."""
    eps = as_epsilon(epsilon)
    _, exact = sensitivity_value(sensitivity)
    delta_u = _calibration(exact, monotone)
    try:
        return float(eps / (2 * delta_u))
    except OverflowError:
        raise InvalidParameterError(
            f"epsilon / (2 sensitivity) = {eps} / (2 * {delta_u}) overflows a float; "
            f"rescale the utilities and the sensitivity together"
        ) from None


FloatProbabilities = Callable[[Tuple[float, ...], Tuple[float, ...], float], List[float]]
"""The float arithmetic of the mechanism: (utilities, base weights, c = epsilon / (2 Delta_u)) -> probabilities."""

IndexDraw = Callable[[Sequence[float], RandomSource], int]
"""How an index is drawn from float probabilities (:func:`sample_index`, or an engine's equal draw)."""


def _log_probabilities(u: Tuple[float, ...], weights: Tuple[float, ...], c: float) -> List[float]:
    u_max = max(ur for ur, w in zip(u, weights) if w > 0)
    a = [
        math.log(w) + 2.0 * (c * (0.5 * ur - 0.5 * u_max)) if w > 0 else -math.inf
        for ur, w in zip(u, weights)
    ]
    a_max = max(a)
    log_sum = math.log(math.fsum(math.exp(ar - a_max) for ar in a))
    return [(ar - a_max) - log_sum for ar in a]


def float_probabilities(u: Tuple[float, ...], weights: Tuple[float, ...], c: float) -> List[float]:
    """P[r] from validated floats: exp of the log-probabilities of :func:`exponential_log_probabilities`.

    The reference arithmetic; an engine may compute the same floats its own
    way (:class:`refdp.engine.Engine`), never anything else.
    """
    return [math.exp(lp) for lp in _log_probabilities(u, weights, c)]


def exponential_log_probabilities(
    utilities: Sequence[Real],
    *,
    epsilon: Number,
    sensitivity: SensitivityLike,
    base_weights: Optional[Sequence[Real]] = None,
    monotone: bool = False,
) -> List[float]:
    """log P[r] of the exponential mechanism, for each candidate r (-inf for zero weight).

    Computed as a_r - logsumexp(a) with a_r = log w_r + c (u_r - u_max),
    c = epsilon / (2 Delta_u) and u_max the largest utility of a candidate of
    positive weight, so no exponential overflows.  The difference u_r - u_max
    is formed from halves (then doubled after the multiplication by c), which
    is the same float whenever the direct difference does not overflow, and
    stays finite for utilities near +-1.8e308.  A log-probability below about
    -1.8e308 comes back as -inf.  ``monotone=True`` takes c = epsilon / Delta_u
    (claim ``exponential-mechanism-monotone``).
    """
    u = finite_floats(utilities, "utilities")
    return _log_probabilities(u, _float_weights(base_weights, len(u)), _coefficient(epsilon, sensitivity, monotone))


def exponential_probabilities(
    utilities: Sequence[Real],
    *,
    epsilon: Number,
    sensitivity: SensitivityLike,
    base_weights: Optional[Sequence[Real]] = None,
    monotone: bool = False,
) -> List[float]:
    """P[r] of the exponential mechanism: exp of :func:`exponential_log_probabilities`.

    ``monotone=True``: the law of :func:`exponential_mechanism` with
    ``monotone=True``, weights exp(epsilon u / Delta_u).
    """
    u = finite_floats(utilities, "utilities")
    return float_probabilities(u, _float_weights(base_weights, len(u)), _coefficient(epsilon, sensitivity, monotone))


def sample_index(probabilities: Sequence[float], rng: RandomSource) -> int:
    """Draw an index with the given probabilities, using exactly ONE ``rng.random()`` call.

    With U = rng.random(), the result is the smallest i with
    U < p_0 + ... + p_i, the partial sums accumulated left to right one
    float addition at a time (not ``math.fsum``, nor the compensated
    ``sum()`` of Python 3.12+, whose last bits differ).
    If rounding leaves U at or above the full sum, the result is the last
    index of positive probability.  An index of probability 0 is never
    returned.  A faster implementation reproduces this by drawing the same
    single number and inverting the same cumulative sums.
    """
    probs = finite_floats(probabilities, "probabilities")
    if any(p < 0 for p in probs):
        raise InvalidParameterError("probabilities must be >= 0")
    if abs(math.fsum(probs) - 1.0) > _SUM_TOLERANCE:
        raise InvalidParameterError(
            f"probabilities must sum to 1 (within {_SUM_TOLERANCE}), got {math.fsum(probs)!r}; "
            f"normalise them first"
        )
    u = rng.random()
    cumulative = 0.0
    last_positive = 0
    for i, p in enumerate(probs):
        if p > 0:
            cumulative += p
            last_positive = i
            if u < cumulative:
                return i
    return last_positive


@dataclass(frozen=True)
class _ExactPlan:
    """Validated inputs of the exact sampler: integer base weights and exact exponents."""

    scaled_weights: Tuple[int, ...]  # W_r = w_r * (common denominator)
    gammas: Tuple[Ratio, ...]  # the distinct (numerator, denominator) of epsilon (u_max - u_r) / (2 Delta_u), W_r > 0
    slots: Tuple[int, ...]  # candidate r's gamma: an index into gammas, or -1 for a utility only of weight 0

    def enclosures(self, bits: int) -> Tuple[List[int], List[int]]:
        """Integer enclosures of W_r exp(-gamma_r) * 2**bits (one exp per distinct gamma of positive weight)."""
        ends = [exp_neg_fixed(n, d, bits) for n, d in self.gammas]
        ends.append((0, 0))  # slot -1
        chosen = list(map(ends.__getitem__, self.slots))
        lower = list(map(mul, self.scaled_weights, map(itemgetter(0), chosen)))
        upper = list(map(mul, self.scaled_weights, map(itemgetter(1), chosen)))
        return lower, upper

    def sample(self, rng: RandomSource) -> int:
        """``sample_by_inversion(self.enclosures, rng)``: the same index from the same words.

        The uniform's first bits are drawn first; float estimates of the
        weights (:func:`~refdp.mechanisms.inversion.exp_neg_float`) then
        usually prove which index the integer enclosures give
        (:func:`~refdp.mechanisms.inversion.certified_first`: each enclosure
        is W_r times an :func:`exp_neg_fixed` pair, within 2 of
        W_r e^{-gamma_r} 2**bits); otherwise the integer sampler continues
        from those bits.  Claim ``exact-inversion-sampler``.
        """
        drawn = draw_first(rng)
        found = [exp_neg_float(n, d) for n, d in self.gammas]
        estimates = [e for e in found if e is not None]
        if len(estimates) == len(found):
            estimates.append(0.0)  # slot -1: weight 0
            chosen = certified_first(list(map(estimates.__getitem__, self.slots)), self.scaled_weights, 2, drawn)
            if chosen is not None:
                return chosen
        return sample_by_inversion(self.enclosures, rng, drawn)


def _ratios(values: Sequence[Real], name: str, floats: bool = False) -> Sequence[Ratio]:
    """``values`` as (numerator, denominator > 0) pairs; finite floats by their exact value only when ``floats``.

    Pairs rather than Fractions: a node scores hundreds of candidates, and
    the exponents below need no reduction to lowest terms.  :class:`Ratios`
    are taken as they are (their pairs were checked when they were made).
    """
    if isinstance(values, Ratios):
        return values.pairs
    if set(map(type, values)) <= {int, Fraction}:
        # Exact scores (the max operator's ints, the Gini's Fractions), the common case: no bool among them.
        return [(value.numerator, value.denominator) for value in values]  # type: ignore[union-attr]
    out: List[Ratio] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, Fraction, float)):
            raise InvalidParameterError(f"{name} must hold numbers, got {value!r}")
        if isinstance(value, int):
            out.append((value, 1))
        elif isinstance(value, Fraction):
            out.append((value.numerator, value.denominator))
        elif floats and math.isfinite(value):
            out.append(value.as_integer_ratio())
        else:
            raise InvalidParameterError(
                f"{name} must be {'finite' if floats else 'exact (ints or Fractions)'}, got {value!r}"
            )
    return out


def _largest(ratios: Iterable[Ratio]) -> Ratio:
    """The largest of (numerator, denominator > 0) pairs, the first of equal ones, compared by cross-multiplication."""
    iterator = iter(ratios)
    top_n, top_d = next(iterator)
    for n, d in iterator:
        if n * top_d > top_n * d:
            top_n, top_d = n, d
    return top_n, top_d


def _plan_exact(
    utilities: Sequence[Real],
    epsilon: Exact,
    sensitivity: Exact,
    base_weights: Optional[Sequence[Real]],
    floats: bool = False,
) -> _ExactPlan:
    u = _ratios(utilities, "utilities", floats)
    if not u:
        raise InvalidParameterError("utilities must not be empty")
    eps = exact_fraction(epsilon, "epsilon")
    if eps <= 0:
        raise InvalidParameterError(f"epsilon must be > 0, got {eps}")
    delta_u = exact_fraction(sensitivity, "sensitivity")
    if delta_u <= 0:
        raise InvalidParameterError(f"sensitivity must be > 0, got {delta_u}")
    scaled: Tuple[int, ...]
    if base_weights is None:
        scaled = (1,) * len(u)
    elif set(map(type, base_weights)) <= {int}:
        # Integer weights (thesis-tree's), the common case: no bool among them, nothing to scale.
        scaled = tuple(cast(Sequence[int], base_weights))
    else:
        weights = _ratios(base_weights, "base_weights", floats)
        denominator = math.lcm(*set(map(itemgetter(1), weights)))
        scaled = tuple(n * (denominator // d) for n, d in weights)
    if len(scaled) != len(u):
        raise InvalidParameterError(
            f"base_weights has {len(scaled)} entries but there are {len(u)} utilities; give one per candidate"
        )
    if min(scaled) < 0 or max(scaled) <= 0:
        raise InvalidParameterError(
            "base_weights must be >= 0 with at least one > 0 (a zero weight excludes a candidate)"
        )
    positive = dict.fromkeys(u if min(scaled) > 0 else compress(u, scaled))
    top_n, top_d = _largest(positive)
    g = math.gcd(top_n, top_d)
    top_n, top_d = top_n // g, top_d // g
    c = eps / (2 * delta_u)
    c_n, c_d = c.numerator, c.denominator
    # Equal values share one exponent: each distinct utility pair of positive weight is reduced (one
    # gcd) and gamma_r = c (u_max - u_r) = c_n (top_n d_r - n_r top_d) / (c_d top_d d_r) is formed
    # from lowest terms, so equal values give equal gammas however they were written.
    slot_of_gamma: Dict[Ratio, int] = {}
    slot_of: Dict[Ratio, int] = {}
    for pair in positive:
        n, d = pair
        g = math.gcd(n, d)
        n, d = n // g, d // g
        slot_of[pair] = slot_of_gamma.setdefault((c_n * (top_n * d - n * top_d), c_d * top_d * d), len(slot_of_gamma))
    slots = tuple(map(slot_of.get, u, repeat(-1)))
    return _ExactPlan(scaled, tuple(slot_of_gamma), slots)


def exponential_sample_exact(
    utilities: Sequence[Exact],
    *,
    epsilon: Exact,
    sensitivity: Exact,
    rng: RandomSource,
    base_weights: Optional[Sequence[Exact]] = None,
) -> int:
    """Sample the exponential mechanism exactly: the index is that of integer enclosures of the weights.

    The weights W_r exp(-gamma_r), with W_r the base weights scaled to
    integers by their common denominator and
    gamma_r = epsilon (u_max - u_r) / (2 Delta_u) >= 0 (u_max the largest
    utility of positive weight), are enclosed in integer fixed point
    (:func:`refdp.mechanisms.inversion.exp_neg_fixed`) and the index is
    drawn by inversion of a lazily drawn uniform
    (:func:`refdp.mechanisms.inversion.sample_by_inversion`), so the output
    has exactly the mechanism's distribution (claim
    ``exponential-mechanism-exact-sampler``); float estimates of the
    weights only prove, in most calls, which index the integers give
    (:meth:`_ExactPlan.sample`).  Random draws:
    ``rng.getrandbits(32)`` only, three of them in all but a vanishing
    fraction of calls.
    """
    return _plan_exact(utilities, epsilon, sensitivity, base_weights).sample(rng)


def exponential_mechanism(
    utilities: Sequence[Real],
    *,
    epsilon: Number,
    sensitivity: SensitivityLike,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
    claims: Sequence[str] = ("exponential-mechanism",),
    base_weights: Optional[Sequence[Real]] = None,
    exact: bool = False,
    sound: bool = True,
    note: str = "",
    probabilities: FloatProbabilities = float_probabilities,
    draw: IndexDraw = sample_index,
    monotone: bool = False,
) -> int:
    """Run the exponential mechanism and record one charge of ``epsilon`` on ``partition``.

    ``monotone=True`` is the caller's promise that between any two
    neighbours the utilities of all candidates move in one direction (all
    up or all down, each by at most Delta_u); the weights are then
    exp(epsilon u / Delta_u), without the factor 2 (claim
    ``exponential-mechanism-monotone``), and the charge says so.

    ``sensitivity`` is Delta_u: the largest change of any single utility
    u(., r) between neighbouring datasets under the ledger's relation (in a
    substitute ledger it must also bound an addition or removal inside
    ``partition``).  The charge is recorded before sampling, after every
    argument is validated, so a bad call records nothing and draws nothing.

    The default sampler (``exact=False``) is float probabilities with one
    ``rng.random()`` draw (:func:`sample_index`): fast, and replayable by a
    faster engine that draws the same number.  ``exact=True`` samples the
    exact value of each utility and base weight (ints and Fractions as
    given, a float by its exact binary value) as
    :func:`exponential_sample_exact` does (the index of integer enclosures).  The claim
    of the sampler used (``exponential-mechanism-float-sampler``, or
    ``exponential-mechanism-exact-sampler`` with the ``exact-inversion-sampler``
    it rests on) is added to ``claims`` in the charge.

    ``probabilities`` and ``draw`` are the float sampler's arithmetic and
    draw: an engine may pass its own, which must compute the very floats of
    :func:`float_probabilities` and draw the index :func:`sample_index`
    would; validation and the charge stay here.

    Why 15 parameters: besides the mechanism's inputs (utilities, epsilon, sensitivity,
    rng, ledger), every keyword-only one is a field of the charge it records (label,
    partition, claims, sound, note, exactness) or the engine's arithmetic; a charge
    description value that bundles the charge's fields is planned (issue 32).
    """
    eps = as_epsilon(epsilon)
    _, delta_u = sensitivity_value(sensitivity)
    charge = exponential_charge(
        epsilon=eps, sensitivity=sensitivity, label=label, partition=partition, claims=claims, exact=exact,
        sound=sound, note=note, monotone=monotone,
    )
    calibration = _calibration(delta_u, monotone)
    if exact:
        plan = _plan_exact(utilities, eps, calibration, base_weights, floats=True)
        ledger.record(charge)
        return mechanism_call(
            lambda: _call(utilities, base_weights, monotone, True, ledger, charge, _exact_law(plan)),
            rng,
            lambda: plan.sample(rng),
        )
    u = finite_floats(utilities, "utilities")
    chances = probabilities(u, _float_weights(base_weights, len(u)), _coefficient(eps, calibration))
    ledger.record(charge)
    return mechanism_call(
        lambda: _call(utilities, base_weights, monotone, False, ledger, charge, FloatInversionLaw(tuple(chances))),
        rng,
        lambda: draw(chances, rng),
    )


def exponential_charge(
    *,
    epsilon: Number,
    sensitivity: SensitivityLike,
    label: str,
    partition: Sequence[str] = (),
    claims: Sequence[str] = ("exponential-mechanism",),
    exact: bool = False,
    sound: bool = True,
    note: str = "",
    monotone: bool = False,
) -> Charge:
    """The charge :func:`exponential_mechanism` records for these arguments: the sampler's claims added
    to ``claims``, and with ``monotone`` its claim and a note.

    >>> exponential_charge(epsilon=1, sensitivity=1, label="split", exact=True).claims
    ('exponential-mechanism', 'exponential-mechanism-exact-sampler', 'exact-inversion-sampler')

    Why 9 parameters: one per field of the charge it returns, keyword-only (the
    charge :func:`exponential_mechanism` records, re-issued by a model's re-derivation).
    """
    recorded_sensitivity, _ = sensitivity_value(sensitivity)
    sampler_claims: Tuple[str, ...] = (
        ("exponential-mechanism-exact-sampler", "exact-inversion-sampler")
        if exact
        else ("exponential-mechanism-float-sampler",)
    )
    if monotone:
        sampler_claims = ("exponential-mechanism-monotone",) + sampler_claims
        note = (note + "; " if note else "") + "monotone utilities: weights exp(epsilon u / Delta_u)"
    return new_charge(
        label=label,
        mechanism="exponential",
        epsilon=as_epsilon(epsilon),
        sensitivity=recorded_sensitivity,
        claims=tuple(claims) + tuple(c for c in sampler_claims if c not in claims),
        partition=check_partition(partition),
        sound=sound,
        note=note,
    )


def _values(values: Sequence[Real]) -> Tuple[Union[Real, Ratio], ...]:
    """Utilities or weights for a recorder: numbers, or a :class:`Ratios`' (numerator, denominator) pairs."""
    if isinstance(values, Ratios):
        return tuple(values.pairs)
    return tuple(values)


def _exact_law(plan: _ExactPlan) -> ExponentialLaw:
    """The exact sampler's law: integer weights W_r and the distinct exponents gamma with each candidate's slot."""
    return ExponentialLaw(plan.scaled_weights, plan.gammas, plan.slots)


def _call(
    utilities: Sequence[Real], base_weights: Optional[Sequence[Real]], monotone: bool, exact: bool,
    ledger: Ledger, charge: Charge, law: Union[ExponentialLaw, FloatInversionLaw],
) -> Call:
    """How an audit sees one run of :func:`exponential_mechanism` (:mod:`refdp.mechanisms.recording`)."""
    values = _values(utilities)
    public = (
        ("candidates", len(values)),
        ("base_weights", None if base_weights is None else _values(base_weights)),
        ("monotone", monotone),
        ("exact", exact),
        ("sound", charge.sound),
        ("note", charge.note),
    )
    return Call(
        "exponential", charge.label, charge.partition, charge.epsilon, Fraction(0), charge.sensitivity,
        ledger.relation, charge.claims, public, Utilities(values, monotone), law,
    )
