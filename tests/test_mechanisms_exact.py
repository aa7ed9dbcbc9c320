"""The exact samplers of Canonne, Kamath and Steinke: exact enumeration and goodness of fit.

Two kinds of evidence.  Exact: every path of a sampler's random choices is
enumerated (with Fractions), which gives its output distribution up to a
known, tiny unexplored mass; the paths branch at the source's ``randrange``,
whose draw the samplers only compare with ``<`` (a Bernoulli draw), or at
Algorithm 1 as a whole where Algorithm 2 is enumerated.  The samplers work
on integer numerators and denominators; a rational (Fraction) transcription
of the algorithms is the oracle they must replay draw for draw.  Statistical: the samplers are run with fixed
seeds and tested against the exact distribution at false-alarm probability
1e-6; the sample size comes from the power needed to reject a sampler with a
1.3x wrong parameter (>= 0.999), and that wrong sampler is run and rejected.
"""

from __future__ import annotations

import ast
import inspect
import math
import random
from fractions import Fraction
from typing import Any, Callable, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

import refdp.mechanisms.exact as exact_module
from refdp.errors import InvalidParameterError
from refdp.mechanisms import (
    bernoulli,
    bernoulli_exp,
    bernoulli_positions,
    discrete_laplace,
    discrete_laplace_cdf,
    discrete_laplace_pmf,
)
from refdp.stats import (
    binomial_cdf,
    binomial_sf,
    clopper_pearson,
    clopper_pearson_lower,
    clopper_pearson_upper,
    dkw_bound,
    dkw_power_sample_size,
    ks_statistic,
)

FALSE_ALARM = 1e-6  # per test
MISS = 1e-3  # 1 - the power required against the wrong sampler
WRONG = Fraction(13, 10)  # the wrong sampler's parameter is 1.3x the right one


# --- scripted and enumerating random sources ----------------------------------


class _Scripted:
    """A source whose ``randrange`` returns the given values and that refuses floats."""

    def __init__(self, values: Sequence[int]) -> None:
        self._values: Iterator[int] = iter(values)

    def random(self) -> float:
        raise AssertionError("a float draw on an exact sampling path")

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        assert stop is None and step == 1
        value = next(self._values)
        assert 0 <= value < start
        return value

    def getrandbits(self, k: int) -> int:
        raise AssertionError("getrandbits is not used by the exact samplers")


class _IntegerOnly(_Scripted):
    """A seeded source that offers only ``randrange`` (so no float is ever drawn)."""

    def __init__(self, seed: int) -> None:
        super().__init__(())
        self._rng = random.Random(seed)

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        assert stop is None and step == 1
        return self._rng.randrange(start)


Options = List[Tuple[object, Fraction]]


class _Branch(Exception):
    def __init__(self, options: Options) -> None:
        super().__init__()
        self.options = options


class _Path:
    """Replays a prefix of choices, then asks the explorer to branch."""

    def __init__(self, prefix: Tuple[int, ...]) -> None:
        self.prefix = prefix
        self.position = 0

    def choose(self, options: Options) -> object:
        if self.position < len(self.prefix):
            value = options[self.prefix[self.position]][0]
            self.position += 1
            return value
        raise _Branch(options)


def _explore(
    run: Callable[[_Path], Hashable], cutoff: Fraction
) -> Tuple[Dict[Hashable, Fraction], Fraction]:
    """The exact distribution of ``run``'s result over every path of its choices.

    Paths less likely than ``cutoff`` are not followed; their total
    probability is returned as the second value.
    """
    outcomes: Dict[Hashable, Fraction] = {}
    unexplored = Fraction(0)
    stack: List[Tuple[Tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, probability = stack.pop()
        try:
            result = run(_Path(prefix))
        except _Branch as branch:
            for i, (_, p) in enumerate(branch.options):
                if p == 0:
                    continue
                if probability * p < cutoff:
                    unexplored += probability * p
                else:
                    stack.append((prefix + (i,), probability * p))
            continue
        outcomes[result] = outcomes.get(result, Fraction(0)) + probability
    return outcomes, unexplored


def _two_way(p: Fraction) -> Options:
    return [(True, p), (False, 1 - p)]


class _Restarted(Exception):
    pass


class _Below:
    """A uniform draw from ``range(n)`` that the sampler may only compare with ``<``: the comparison branches.

    ``randrange(n) < p`` is a Bernoulli(p/n) draw; using the draw as a number
    (``math.gcd`` calls ``__index__``) means it was the uniform U of a new
    round of Algorithm 2, and the round before it was rejected.
    """

    def __init__(self, n: int, current: List[_Path]) -> None:
        self.n, self.current = n, current

    def __lt__(self, p: int) -> bool:
        assert isinstance(p, int) and 0 <= p <= self.n
        return bool(self.current[0].choose(_two_way(Fraction(p, self.n))))

    def __index__(self) -> int:
        raise _Restarted


class _Comparing(_Scripted):
    """A source whose ``randrange(n)`` is a :class:`_Below` on the current path (and that refuses floats)."""

    def __init__(self, current: List[_Path]) -> None:
        super().__init__(())
        self.current = current

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> Any:
        assert stop is None and step == 1 and start >= 1
        return _Below(start, self.current)


# --- Bernoulli(p) ---------------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("cks-bernoulli-exp")
@pytest.mark.parametrize("p", [Fraction(0), Fraction(1), Fraction(1, 3), Fraction(2, 7), Fraction(5, 12)])
def test_bernoulli_is_true_for_exactly_numerator_of_the_draws(p: Fraction) -> None:
    hits = sum(bernoulli(p, _Scripted([v])) for v in range(p.denominator))
    assert hits == p.numerator


@pytest.mark.parametrize("bad", [Fraction(-1, 3), Fraction(4, 3), 0.5, True, "1/2"])
def test_bernoulli_rejects_bad_probabilities(bad: object) -> None:
    with pytest.raises(InvalidParameterError):
        bernoulli(bad, _Scripted([]))  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [Fraction(-1, 3), -2, 0.5, float("nan"), True])
def test_bernoulli_exp_and_discrete_laplace_reject_bad_parameters(bad: object) -> None:
    with pytest.raises(InvalidParameterError):
        bernoulli_exp(bad, _Scripted([]))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        discrete_laplace(bad, _Scripted([]))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        discrete_laplace(0, _Scripted([]))


# --- Bernoulli(exp(-gamma)), exactly --------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("cks-bernoulli-exp")
@pytest.mark.parametrize(
    "gamma", [Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(5, 2), Fraction(4)]
)
def test_bernoulli_exp_is_exact_by_enumeration(gamma: Fraction) -> None:
    current: List[_Path] = []

    def run(path: _Path) -> Hashable:
        current[:] = [path]
        return bernoulli_exp(gamma, _Comparing(current))

    outcomes, unexplored = _explore(run, cutoff=Fraction(1, 10**19))
    assert outcomes.get(True, Fraction(0)) + outcomes.get(False, Fraction(0)) + unexplored == 1
    p_true = outcomes.get(True, Fraction(0))
    target = math.exp(-gamma)
    # P[True] lies in [p_true, p_true + unexplored]; exp is rounded to 1 ulp.
    assert unexplored < Fraction(1, 10**15), f"gamma={gamma}: unexplored mass {float(unexplored):.3g}"
    assert float(p_true) <= target * (1 + 1e-15), f"gamma={gamma}: {float(p_true)!r} > {target!r}"
    assert target <= float(p_true + unexplored) * (1 + 1e-15), f"gamma={gamma}: {float(p_true)!r}"


# --- Bernoulli samplers, statistically ---------------------------------------------


def _first(lo: int, hi: int, predicate: Callable[[int], bool]) -> int:
    """The smallest k in [lo, hi] with predicate(k) true (predicate monotone; hi if none)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if predicate(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _clopper_pearson_power(n: int, p: float, p_wrong: float) -> float:
    """P[p is outside clopper_pearson(K, n, FALSE_ALARM)] for K ~ Binomial(n, p_wrong), exactly.

    The interval contains p exactly for k in [k_lo, k_hi] (its ends grow with k).
    """
    k_lo = _first(0, n, lambda k: clopper_pearson_upper(k, n, FALSE_ALARM / 2) >= p)
    k_hi = _first(0, n + 1, lambda k: clopper_pearson_lower(k, n, FALSE_ALARM / 2) > p) - 1
    return binomial_cdf(k_lo - 1, n, p_wrong) + binomial_sf(k_hi, n, p_wrong)


def _clopper_pearson_sample_size(p: float, p_wrong: float) -> int:
    """A number of trials (a multiple of 250) with power >= 1 - MISS against p_wrong.

    Doubling, then bisection between the last two sizes; power is not exactly
    monotone in n (k is discrete), so the caller checks the power of the n returned.
    """
    def enough(blocks: int) -> bool:
        return _clopper_pearson_power(250 * blocks, p, p_wrong) >= 1 - MISS

    high = 1
    while not enough(high):
        high *= 2
    low = high // 2  # not enough (or 0)
    while high - low > 1:
        mid = (low + high) // 2
        if enough(mid):
            high = mid
        else:
            low = mid
    return 250 * high


def _check_proportion(
    draw: Callable[[random.Random], bool], p: float, p_wrong: float, seed: int
) -> Tuple[int, int, Tuple[float, float]]:
    n = _clopper_pearson_sample_size(p, p_wrong)
    power = _clopper_pearson_power(n, p, p_wrong)
    assert power >= 1 - MISS
    rng = random.Random(seed)
    k = sum(draw(rng) for _ in range(n))
    return n, k, clopper_pearson(k, n, FALSE_ALARM)


@pytest.mark.claim("cks-bernoulli-exp")
@pytest.mark.parametrize("p", [Fraction(1, 3), Fraction(7, 10)])
def test_bernoulli_fits_clopper_pearson(p: Fraction) -> None:
    seed = 1000 + p.denominator
    wrong = p * WRONG
    n, k, (lo, hi) = _check_proportion(lambda rng: bernoulli(p, rng), float(p), float(wrong), seed)
    assert lo <= p <= hi, f"seed={seed} n={n} k={k}: {float(p)} not in [{lo}, {hi}]"
    n, k, (lo, hi) = _check_proportion(lambda rng: bernoulli(wrong, rng), float(p), float(wrong), seed + 1)
    assert not lo <= p <= hi, f"wrong sampler not rejected: seed={seed + 1} n={n} k={k} [{lo}, {hi}]"


@pytest.mark.claim("cks-bernoulli-exp")
@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_fits_clopper_pearson(gamma: Fraction) -> None:
    _check_bernoulli_exp(gamma)


@pytest.mark.slow
@pytest.mark.claim("cks-bernoulli-exp")
@pytest.mark.parametrize("gamma", [Fraction(1, 100), Fraction(7, 3), Fraction(6), Fraction(123, 17)])
def test_bernoulli_exp_fits_clopper_pearson_slow(gamma: Fraction) -> None:
    _check_bernoulli_exp(gamma)


def _check_bernoulli_exp(gamma: Fraction) -> None:
    seed = 2000 + gamma.numerator
    p, p_wrong = math.exp(-gamma), math.exp(-gamma * WRONG)
    n, k, (lo, hi) = _check_proportion(lambda rng: bernoulli_exp(gamma, rng), p, p_wrong, seed)
    assert lo <= p <= hi, f"seed={seed} gamma={gamma} n={n} k={k}: {p} not in [{lo}, {hi}]"
    n, k, (lo, hi) = _check_proportion(
        lambda rng: bernoulli_exp(gamma * WRONG, rng), p, p_wrong, seed + 1
    )
    assert not lo <= p <= hi, f"wrong sampler not rejected: seed={seed + 1} n={n} k={k} [{lo}, {hi}]"


def test_bernoulli_exp_of_zero_is_always_true() -> None:
    rng = random.Random(5)
    assert all(bernoulli_exp(0, rng) for _ in range(100))


# --- discrete Laplace, exactly -----------------------------------------------------


@pytest.mark.claim("cks-discrete-laplace")
@pytest.mark.parametrize("scale", [Fraction(1), Fraction(3, 2), Fraction(1, 3), Fraction(2, 5), Fraction(7)])
def test_discrete_laplace_is_exact_by_enumeration(
    scale: Fraction, monkeypatch: pytest.MonkeyPatch
) -> None:
    current: List[_Path] = []

    def branching_bernoulli_exp(numerator: int, denominator: int, randrange: object) -> bool:
        # Claim cks-bernoulli-exp (Algorithm 1, enumerated above): True with probability exp(-gamma)
        # (here the float's exact value).
        return bool(current[0].choose(_two_way(Fraction(math.exp(-numerator / denominator)))))

    class OneRound(_Comparing):
        """The first randrange branches over U; later ones are Bernoulli draws, or the U of a new round."""

        def __init__(self) -> None:
            super().__init__(current)
            self.calls = 0

        def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> Any:
            self.calls += 1
            if self.calls > 1:
                return super().randrange(start, stop, step)
            value = current[0].choose([(u, Fraction(1, start)) for u in range(start)])
            assert isinstance(value, int)
            return value

    monkeypatch.setattr(exact_module, "_bernoulli_exp_unit", branching_bernoulli_exp)

    def run(path: _Path) -> Hashable:
        current[:] = [path]
        try:
            return discrete_laplace(scale, OneRound())
        except _Restarted:
            return "rejected"

    outcomes, unexplored = _explore(run, cutoff=Fraction(1, 10**18))
    assert sum(outcomes.values()) + unexplored == 1
    accepted = sum(p for x, p in outcomes.items() if x != "rejected")
    # The output is one round conditioned on acceptance.
    tolerance = float(unexplored / accepted) + 1e-13
    worst = 0.0
    for x, p in outcomes.items():
        if isinstance(x, int):
            worst = max(worst, abs(float(p / accepted) - discrete_laplace_pmf(x, scale)))
    assert worst <= tolerance, f"scale={scale}: max |P - pmf| = {worst:.3g} > {tolerance:.3g}"
    assert float(accepted) >= math.exp(-1) / 2  # the acceptance bound in the claim


@pytest.mark.claim("cks-discrete-laplace")
@pytest.mark.parametrize("scale", [Fraction(1, 3), Fraction(1), Fraction(10), 2.5])
def test_discrete_laplace_pmf_and_cdf_agree(scale: object) -> None:
    assert isinstance(scale, (Fraction, float))
    b = float(scale)
    window = int(60 * b) + 60
    total = math.fsum(discrete_laplace_pmf(x, scale) for x in range(-window, window + 1))
    assert total == pytest.approx(1.0, abs=1e-13)
    running = 0.0
    for x in range(-window, window + 1):
        running += discrete_laplace_pmf(x, scale)
        assert discrete_laplace_cdf(x, scale) == pytest.approx(running, abs=1e-13)
        assert discrete_laplace_cdf(x + 0.5, scale) == discrete_laplace_cdf(x, scale)
    assert discrete_laplace_cdf(math.inf, scale) == 1.0 and discrete_laplace_cdf(-math.inf, scale) == 0.0


# --- discrete Laplace, statistically ---------------------------------------------------


def _dlap_distance(scale: Fraction, wrong: Fraction) -> float:
    """sup_x |F(x) - G(x)| over the integers (where both step functions jump)."""
    window = int(80 * float(wrong)) + 80
    return max(
        abs(discrete_laplace_cdf(x, scale) - discrete_laplace_cdf(x, wrong))
        for x in range(-window, window + 1)
    )


def _check_discrete_laplace(scale: Fraction, factor: Fraction, seed: int) -> None:
    wrong = scale * factor
    distance = _dlap_distance(scale, wrong)
    n = dkw_power_sample_size(distance, FALSE_ALARM, MISS)
    bound = dkw_bound(n, FALSE_ALARM)
    assert bound + dkw_bound(n, MISS) < distance

    def cdf(x: float) -> float:
        return discrete_laplace_cdf(x, scale)

    rng = random.Random(seed)
    right = ks_statistic([discrete_laplace(scale, rng) for _ in range(n)], cdf)
    assert right <= bound, f"seed={seed} scale={scale} n={n}: KS {right:.4f} > DKW bound {bound:.4f}"
    rng = random.Random(seed + 1)
    off = ks_statistic([discrete_laplace(wrong, rng) for _ in range(n)], cdf)
    assert off > bound, (
        f"{factor}x scale not rejected: seed={seed + 1} scale={scale} n={n}: KS {off:.4f} <= {bound:.4f} "
        f"(distance {distance:.4f})"
    )


@pytest.mark.claim("cks-discrete-laplace", "dkw-goodness-of-fit")
@pytest.mark.parametrize("scale", [Fraction(1), Fraction(3, 2)])
def test_discrete_laplace_fits_dkw(scale: Fraction) -> None:
    _check_discrete_laplace(scale, WRONG, seed=3000 + scale.numerator)


@pytest.mark.slow
@pytest.mark.claim("cks-discrete-laplace", "dkw-goodness-of-fit")
@pytest.mark.parametrize(
    "scale", [Fraction(1, 3), Fraction(2, 5), Fraction(10), Fraction(1000000000, 123456789)]
)
@pytest.mark.parametrize("factor", [WRONG, Fraction(11, 10)])
def test_discrete_laplace_fits_dkw_slow(scale: Fraction, factor: Fraction) -> None:
    _check_discrete_laplace(scale, factor, seed=4000 + scale.denominator % 1000)


# --- the successes of n Bernoulli trials (gap sampler), exactly ------------------------


def _product_law(p: Fraction, n: int) -> Dict[Hashable, Fraction]:
    """P[the kept positions are S] = p^|S| (1 - p)^(n - |S|) for every subset S of range(n)."""
    law: Dict[Hashable, Fraction] = {}
    for mask in range(1 << n):
        kept = tuple(i for i in range(n) if mask >> i & 1)
        law[kept] = p ** len(kept) * (1 - p) ** (n - len(kept))
    return law


class _Branching(_Scripted):
    """A source whose ``randrange(k)`` returns ``draw(k, path)``: a value that branches the path."""

    def __init__(self, path: _Path, draw: Callable[[int, _Path], Any]) -> None:
        super().__init__(())
        self.path, self.draw, self.calls = path, draw, 0

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> Any:
        assert stop is None and step == 1 and start >= 1
        self.calls += 1
        return self.draw(start, self.path)


def _every_value(path: _Path) -> _Branching:
    """``randrange(k)`` branches over every value 0..k-1, each with weight 1/k."""
    return _Branching(path, lambda k, p: p.choose([(v, Fraction(1, k)) for v in range(k)]))


class _Uniform:
    """A uniform draw from [lo, hi) that the sampler may only compare with ``<``: each comparison branches.

    The gap sampler only bisects its draw against thresholds, so the
    comparisons' outcomes, narrowed interval by interval, carry its whole law
    (a huge ``b**m`` is enumerated in about m branches, not b**m).
    """

    def __init__(self, hi: int, path: _Path) -> None:
        self.lo, self.hi, self.path = 0, hi, path

    def __lt__(self, t: int) -> bool:
        assert isinstance(t, int)
        if t <= self.lo or t >= self.hi:
            return t > self.lo
        below = Fraction(t - self.lo, self.hi - self.lo)
        if self.path.choose(_two_way(below)):
            self.hi = t
            return True
        self.lo = t
        return False

    def __index__(self) -> int:
        raise AssertionError("the gap sampler used its draw as a number, not only in comparisons")


def _comparing_uniform(path: _Path) -> _Branching:
    """``randrange(k)`` is a :class:`_Uniform` on [0, k) whose comparisons branch."""
    return _Branching(path, _Uniform)


def _positions_law(
    p: Fraction, n: int, chunk: Optional[int], source: Callable[[_Path], _Branching]
) -> Tuple[Dict[Hashable, Fraction], int]:
    """The exact law of the kept positions over every path of the draws, and the draws when none is kept."""
    draws_if_none = [0]

    def run(path: _Path) -> Hashable:
        rng = source(path)
        kept = tuple(bernoulli_positions(p, n, rng, chunk=chunk))
        if not kept:
            draws_if_none[0] = rng.calls
        return kept

    outcomes, unexplored = _explore(run, cutoff=Fraction(0))
    assert unexplored == 0  # every draw moves past at least one trial: at most n draws a path
    return outcomes, draws_if_none[0]


@pytest.mark.smoke
@pytest.mark.claim("exact-bernoulli-positions")
@pytest.mark.parametrize(
    "p, n, chunk",
    [
        (Fraction(1, 3), 4, 1), (Fraction(1, 3), 4, 2), (Fraction(1, 3), 3, 3), (Fraction(2, 5), 3, 1),
        (Fraction(2, 5), 3, 2), (Fraction(2, 3), 4, 1), (Fraction(1, 20), 3, 1), (Fraction(1, 2), 4, 3),
    ],
)
def test_bernoulli_positions_is_exact_over_every_value_of_the_draws(p: Fraction, n: int, chunk: int) -> None:
    # Every value of b**m: small m only (the automatic m's b**m is enumerated by comparisons below).
    law, draws_if_none = _positions_law(p, n, chunk, _every_value)
    assert law == _product_law(p, n), f"p={p} n={n} chunk={chunk}"
    assert draws_if_none == -(-n // chunk)  # n failures: a draw and its continuations, chunk trials each


@pytest.mark.claim("exact-bernoulli-positions")
@pytest.mark.parametrize("p", [Fraction(1, 20), Fraction(2, 5), Fraction(999, 1000), Fraction(1, 10**6)])
@pytest.mark.parametrize("n, chunk", [(5, 1), (5, 2), (6, 4), (6, None)])
def test_bernoulli_positions_is_exact_by_enumerating_comparisons(p: Fraction, n: int, chunk: Optional[int]) -> None:
    law, draws_if_none = _positions_law(p, n, chunk, _comparing_uniform)
    assert law == _product_law(p, n), f"p={p} n={n} chunk={chunk}"
    if chunk is not None:
        assert draws_if_none == -(-n // chunk)  # n failures: a draw and its continuations, chunk trials each


@pytest.mark.claim("exact-bernoulli-positions")
def test_bernoulli_positions_draws_nothing_at_zero_and_one() -> None:
    assert bernoulli_positions(Fraction(0), 7, _Scripted([])) == []
    assert bernoulli_positions(Fraction(1), 7, _Scripted([])) == list(range(7))
    assert bernoulli_positions(Fraction(1, 3), 0, _Scripted([])) == []


@pytest.mark.parametrize(
    "p, n, chunk",
    [(Fraction(4, 3), 3, None), (0.5, 3, None), (Fraction(1, 2), -1, None), (Fraction(1, 2), True, None),
     (Fraction(1, 2), 3, 0), (Fraction(1, 2), 3, True)],
)
def test_bernoulli_positions_rejects_bad_arguments(p: object, n: object, chunk: object) -> None:
    with pytest.raises(InvalidParameterError):
        bernoulli_positions(p, n, _Scripted([]), chunk=chunk)  # type: ignore[arg-type]


@pytest.mark.claim("exact-bernoulli-positions")
@given(
    numerator=st.integers(1, 60), extra=st.integers(1, 60), scale=st.sampled_from([1, 7, 10**40]),
    n=st.integers(0, 300), chunk=st.one_of(st.none(), st.integers(1, 6)), seed=st.integers(0, 2**32),
)
def test_bernoulli_positions_are_ascending_in_range_and_replay(
    numerator: int, extra: int, scale: int, n: int, chunk: Optional[int], seed: int
) -> None:
    p = Fraction(numerator * scale, (numerator + extra) * scale + 1) if scale > 1 else Fraction(numerator, numerator + extra)
    first = bernoulli_positions(p, n, random.Random(seed), chunk=chunk)
    assert all(0 <= a < b < n for a, b in zip(first, first[1:])) and all(0 <= i < n for i in first)
    assert first == bernoulli_positions(p, n, random.Random(seed), chunk=chunk), f"seed={seed}"


def _rational_positions(p: Fraction, n: int, m: int, rng: random.Random) -> List[int]:
    # The gap sampler written with Fractions: G = the largest g <= m with V / b^m < (1 - p)^g.
    span, kept, position = p.denominator**m, [], 0
    while position < n:
        u = Fraction(rng.randrange(span), span)
        gap = max(g for g in range(m + 1) if u < (1 - p) ** g)
        position += gap
        if gap < m:
            if position < n:
                kept.append(position)
            position += 1
    return kept


@pytest.mark.claim("exact-bernoulli-positions")
@pytest.mark.parametrize("seed", range(20))
def test_bernoulli_positions_replays_the_rational_gaps(seed: int) -> None:
    draw = random.Random(seed)
    p = Fraction(draw.randrange(1, 50), 50)
    n, chunk = draw.randrange(0, 400), draw.choice([None, 1, 3, 17])
    m = exact_module._chunk(p.numerator, p.denominator) if chunk is None else chunk
    a, b = random.Random(seed + 1000), random.Random(seed + 1000)
    assert bernoulli_positions(p, n, a, chunk=chunk) == _rational_positions(p, n, m, b), f"seed={seed} p={p}"
    assert a.random() == b.random(), f"seed={seed}: the samplers used the source differently"


@pytest.mark.claim("exact-bernoulli-positions")
@pytest.mark.parametrize("p, chunk", [(Fraction(1, 3), 2), (Fraction(1, 20), None)])
def test_bernoulli_positions_fit_clopper_pearson(p: Fraction, chunk: Optional[int]) -> None:
    # The last of 7 trials, reached through earlier gaps and (chunk 2) continuations.
    seed = 5000 + p.denominator
    wrong = p * WRONG

    def last(q: Fraction) -> Callable[[random.Random], bool]:
        return lambda rng: 6 in bernoulli_positions(q, 7, rng, chunk=chunk)

    n, k, (lo, hi) = _check_proportion(last(p), float(p), float(wrong), seed)
    assert lo <= p <= hi, f"seed={seed} n={n} k={k}: {float(p)} not in [{lo}, {hi}]"
    n, k, (lo, hi) = _check_proportion(last(wrong), float(p), float(wrong), seed + 1)
    assert not lo <= p <= hi, f"wrong sampler not rejected: seed={seed + 1} n={n} k={k} [{lo}, {hi}]"


# --- no floating point, replay ------------------------------------------------------


_EXACT_PATH = (
    "bernoulli", "bernoulli_positions", "_chunk", "_probability", "_bernoulli_exp_unit", "_bernoulli_exp", "bernoulli_exp",
    "discrete_laplace",
)


@pytest.mark.smoke
@pytest.mark.claim("discrete-laplace-mechanism", "cks-discrete-laplace")
@pytest.mark.parametrize("name", _EXACT_PATH)
def test_sampling_path_has_no_floating_point(name: str) -> None:
    tree = ast.parse(inspect.getsource(getattr(exact_module, name)))
    for node in ast.walk(tree):
        assert not (isinstance(node, ast.Constant) and isinstance(node.value, float)), name
        if isinstance(node, ast.Attribute):
            assert node.attr not in ("exp", "log", "random", "sqrt", "tanh"), f"{name}: {node.attr}"
        if isinstance(node, ast.Name):
            assert node.id != "float", name


@pytest.mark.claim("discrete-laplace-mechanism", "cks-discrete-laplace")
def test_samplers_run_on_integers_alone_and_replay() -> None:
    first = [discrete_laplace(Fraction(7, 3), _IntegerOnly(11)) for _ in range(3)]
    rng_a, rng_b = _IntegerOnly(12), _IntegerOnly(12)
    a = [discrete_laplace(Fraction(7, 3), rng_a) for _ in range(200)]
    b = [discrete_laplace(Fraction(7, 3), rng_b) for _ in range(200)]
    assert a == b and all(type(x) is int for x in a + first)
    assert all(type(bernoulli_exp(Fraction(9, 4), rng_a)) is bool for _ in range(50))


# --- the integer samplers replay the rational definitions ------------------------------------


def _rational_bernoulli(p: Fraction, rng: random.Random) -> bool:
    return rng.randrange(p.denominator) < p.numerator


def _rational_bernoulli_exp(gamma: Fraction, rng: random.Random) -> bool:
    # CKS Algorithm 1 written with Fractions, as refdp wrote it before its samplers moved to integers.
    def unit(g: Fraction) -> bool:
        k = 1
        while _rational_bernoulli(g / k, rng):
            k += 1
        return k % 2 == 1

    if gamma <= 1:
        return unit(gamma)
    whole = math.floor(gamma)
    for _ in range(whole):
        if not unit(Fraction(1)):
            return False
    return unit(gamma - whole)


def _rational_discrete_laplace(scale: Fraction, rng: random.Random) -> int:
    t, s = scale.numerator, scale.denominator
    while True:
        u = rng.randrange(t)
        if not _rational_bernoulli_exp(Fraction(u, t), rng):
            continue
        v = 0
        while _rational_bernoulli_exp(Fraction(1), rng):
            v += 1
        y = (u + t * v) // s
        negative = _rational_bernoulli(Fraction(1, 2), rng)
        if negative and y == 0:
            continue
        return -y if negative else y


@pytest.mark.claim("cks-discrete-laplace", "cks-bernoulli-exp")
@pytest.mark.parametrize("seed", range(40))
def test_integer_samplers_replay_the_rational_algorithms(seed: int) -> None:
    draw = random.Random(seed)
    scale = Fraction(draw.randrange(1, 400), draw.randrange(1, 60))
    gamma = Fraction(draw.randrange(0, 300), draw.randrange(1, 40))
    p = Fraction(draw.randrange(0, 50), 50)
    a, b = random.Random(seed + 1000), random.Random(seed + 1000)
    assert [discrete_laplace(scale, a) for _ in range(30)] == [_rational_discrete_laplace(scale, b) for _ in range(30)]
    assert [bernoulli_exp(gamma, a) for _ in range(30)] == [_rational_bernoulli_exp(gamma, b) for _ in range(30)]
    assert [bernoulli(p, a) for _ in range(30)] == [_rational_bernoulli(p, b) for _ in range(30)]
    assert a.random() == b.random(), f"seed={seed}: the samplers used the source differently"
