"""Continuous Laplace noise: the inverse-CDF sampler, its fit, and why floats are not DP."""

from __future__ import annotations

import math
import random
from typing import List, Optional, Sequence

import pytest

from refdp.errors import InvalidParameterError
from refdp.mechanisms import laplace_cdf, laplace_noise, laplace_pdf
from refdp.stats import dkw_bound, dkw_power_sample_size, ks_statistic

FALSE_ALARM = 1e-6
MISS = 1e-3
WRONG = 1.3


class _Counting:
    """A seeded source that counts its ``random()`` calls (and serves nothing else)."""

    def __init__(self, seed: int, script: Optional[Sequence[float]] = None) -> None:
        self._rng = random.Random(seed)
        self._script = list(script) if script is not None else None
        self.calls = 0

    def random(self) -> float:
        self.calls += 1
        if self._script is not None:
            return self._script.pop(0)
        return self._rng.random()

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        raise AssertionError("laplace_noise uses random() only")

    def getrandbits(self, k: int) -> int:
        raise AssertionError("laplace_noise uses random() only")


def _laplace_distance(b: float, wrong: float) -> float:
    """sup_x |F_b(x) - F_wrong(x)|: by symmetry and calculus, at x* = ln(r) / (1/b - 1/wrong), r = wrong/b."""
    x = math.log(wrong / b) / (1 / b - 1 / wrong)
    return abs(laplace_cdf(x, b) - laplace_cdf(x, wrong))


@pytest.mark.claim("laplace-mechanism", "dkw-goodness-of-fit")
@pytest.mark.parametrize("scale", [1.0, 2.5])
def test_laplace_noise_fits_dkw_and_rejects_a_wrong_scale(scale: float) -> None:
    distance = _laplace_distance(scale, WRONG * scale)
    n = dkw_power_sample_size(distance, FALSE_ALARM, MISS)
    bound = dkw_bound(n, FALSE_ALARM)
    assert bound + dkw_bound(n, MISS) < distance
    seed = 5000 + int(scale * 10)

    def cdf(x: float) -> float:
        return laplace_cdf(x, scale)

    rng = _Counting(seed)
    right = ks_statistic([laplace_noise(scale, rng) for _ in range(n)], cdf)
    assert rng.calls == n  # one random() per sample
    assert right <= bound, f"seed={seed} scale={scale} n={n}: KS {right:.4f} > {bound:.4f}"
    rng = _Counting(seed + 1)
    off = ks_statistic([laplace_noise(WRONG * scale, rng) for _ in range(n)], cdf)
    assert off > bound, f"1.3x scale not rejected: seed={seed + 1} n={n}: KS {off:.4f} <= {bound:.4f}"


@pytest.mark.smoke
@pytest.mark.claim("laplace-mechanism")
def test_laplace_noise_is_numpys_inverse_cdf_and_redraws_zero() -> None:
    b = 2.0
    assert laplace_noise(b, _Counting(0, [0.25])) == b * math.log(0.5)
    assert laplace_noise(b, _Counting(0, [0.5])) == 0.0
    assert laplace_noise(b, _Counting(0, [0.875])) == -b * math.log(2.0 - 0.875 - 0.875)
    rng = _Counting(0, [0.0, 0.75])  # U = 0 would be log(0): redrawn
    assert laplace_noise(b, rng) == -b * math.log(0.5) and rng.calls == 2
    assert laplace_noise(b, _Counting(0, [2.0**-53])) == b * math.log(2.0**-52)  # the extreme


def test_laplace_pdf_is_the_derivative_of_the_cdf() -> None:
    b, h = 1.7, 1e-6
    for x in (-5.0, -1.0, -0.1, 0.3, 2.0, 9.0):
        slope = (laplace_cdf(x + h, b) - laplace_cdf(x - h, b)) / (2 * h)
        assert slope == pytest.approx(laplace_pdf(x, b), rel=1e-6)
    assert laplace_cdf(0.0, b) == 0.5


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan, True, "1"])
def test_bad_scales_raise(bad: object) -> None:
    with pytest.raises(InvalidParameterError):
        laplace_noise(bad, _Counting(0))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        laplace_cdf(0.0, bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        laplace_pdf(0.0, bad)  # type: ignore[arg-type]


@pytest.mark.claim("laplace-mechanism")
def test_float_laplace_outputs_depend_on_the_value_mironov() -> None:
    """An output of 0 + L that 1 + L can never produce: the likelihood ratio is infinite."""
    rng = random.Random(6000)
    witnesses: List[float] = []
    while len(witnesses) < 3:
        x = 0.0 + laplace_noise(1.0, rng)
        # In [0.25, 0.5) floats are multiples of 2^-54; look for an odd one.
        if 0.25 <= x < 0.5 and int(x * 2.0**54) % 2 == 1:
            witnesses.append(x)
    # 1 + L lands in [0.25, 0.5) only for L in [-0.75, -0.5), where every
    # float is a multiple of 2^-53, so 1 + L is an exact multiple of 2^-53:
    # never an odd multiple of 2^-54.
    for _ in range(20000):
        noise = laplace_noise(1.0, rng)
        y = 1.0 + noise
        if 0.25 <= y < 0.5:
            assert (noise * 2.0**53).is_integer() and (y * 2.0**53).is_integer()
            assert y not in witnesses
    assert all((x * 2.0**54) % 2 == 1 for x in witnesses), witnesses
