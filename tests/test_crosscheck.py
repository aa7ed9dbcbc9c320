"""Cross-checks: a correct sampler fits refdp's exact law, a planted wrong one is rejected.

Each check runs at false-alarm probability alpha = 1e-6 with the sample size
that the module computes for power 0.999 against the planted deviation (or a
smaller one), from fixed seeds; the messages carry every number.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from fractions import Fraction
from typing import List, Sequence

import pytest

from refdp.audit.goodness_of_fit import (
    NoiseMixture,
    crosscheck_noise_mixture,
    noise_mixture_detectable_scale_error,
    noise_mixture_runs,
    DEFAULT_ALPHA,
    crosscheck_discrete_laplace,
    crosscheck_exponential_mechanism,
    crosscheck_finite,
    crosscheck_laplace,
    crosscheck_split_choice,
    discrete_laplace_sample_size,
    discrete_laplace_scale_distance,
    laplace_sample_size,
    laplace_scale_distance,
    permute_and_flip_probabilities,
    split_choice_probabilities,
    tv_sample_size,
    tv_threshold,
)
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace, exponential_probabilities, laplace_noise, sample_index
from refdp.scoring import get_quality
from refdp.stats import dkw_bound

UTILITIES = [3.0, 1.0, 0.0, 2.0]


def _tv(p: Sequence[float], q: Sequence[float]) -> float:
    return 0.5 * math.fsum(abs(a - b) for a, b in zip(p, q))


def _draws(probabilities: Sequence[float], n: int, seed: int) -> List[int]:
    rng = random.Random(seed)
    return [sample_index(probabilities, rng) for _ in range(n)]


@pytest.mark.smoke
@pytest.mark.claim("crosscheck-finite-tv", "exponential-mechanism-float-sampler")
def test_exponential_mechanism_correct_fits_and_doubled_coefficient_is_rejected() -> None:
    exact = exponential_probabilities(UTILITIES, epsilon=1, sensitivity=1)
    wrong = exponential_probabilities(UTILITIES, epsilon=1, sensitivity=Fraction(1, 2))  # exp(eps u / Delta)
    assert _tv(exact, wrong) > 0.05
    n = tv_sample_size(exact, 0.05)
    assert n == 15193
    good = crosscheck_exponential_mechanism(_draws(exact, n, 1), UTILITIES, epsilon=1, sensitivity=1)
    assert not good.rejected and good.n == n, good.summary()
    bad = crosscheck_exponential_mechanism(_draws(wrong, n, 2), UTILITIES, epsilon=1, sensitivity=1)
    assert bad.rejected and bad.statistic > 0.15, bad.summary()


# A node with 12 records and two classes; three candidate binary splits.
TABLES = [((5, 1), (1, 5)), ((3, 3), (3, 3)), ((4, 2), (2, 4))]


@pytest.mark.claim("crosscheck-split-choice", "gini-unnormalised-sensitivity")
def test_split_choice_correct_fits_and_understated_sensitivity_is_rejected() -> None:
    exact = split_choice_probabilities(TABLES, quality="gini", epsilon=2)
    # A learner that uses the Gini quality with sensitivity 1 instead of the proved 2.
    from refdp.scoring import get_quality

    gini = get_quality("gini")
    wrong = exponential_probabilities([float(gini(t)) for t in TABLES], epsilon=2, sensitivity=1)
    deviation = _tv(exact, wrong)
    assert deviation > 0.1, (exact, wrong)
    n = tv_sample_size(exact, 0.1)
    good = crosscheck_split_choice(_draws(exact, n, 3), TABLES, quality="gini", epsilon=2)
    assert not good.rejected, good.summary()
    bad = crosscheck_split_choice(_draws(wrong, n, 4), TABLES, quality="gini", epsilon=2)
    assert bad.rejected and bad.claim == "crosscheck-split-choice", bad.summary()


@pytest.mark.claim("crosscheck-split-choice", "exponential-mechanism-monotone")
def test_split_choice_without_the_factor_two_rejects_a_learner_that_keeps_it() -> None:
    monotone = split_choice_probabilities(TABLES, quality="gini", epsilon=2, monotone=True)
    gini = get_quality("gini")
    utilities = [float(gini(t)) for t in TABLES]
    # exp(epsilon q / Delta q): the textbook formula at half the sensitivity
    assert monotone == exponential_probabilities(utilities, epsilon=2, sensitivity=1)
    kept = split_choice_probabilities(TABLES, quality="gini", epsilon=2)
    assert _tv(monotone, kept) > 0.1, (monotone, kept)
    n = tv_sample_size(monotone, 0.1)
    good = crosscheck_split_choice(_draws(monotone, n, 5), TABLES, quality="gini", epsilon=2, monotone=True)
    assert not good.rejected, good.summary()
    bad = crosscheck_split_choice(_draws(kept, n, 6), TABLES, quality="gini", epsilon=2, monotone=True)
    assert bad.rejected, bad.summary()


def _permute_and_flip(utilities: Sequence[float], c: float, rng: random.Random) -> int:
    top = max(utilities)
    order = list(range(len(utilities)))
    rng.shuffle(order)
    for r in order:
        if rng.random() < math.exp(c * (utilities[r] - top)):
            return r
    raise AssertionError("the best candidate is always accepted")


@pytest.mark.claim("crosscheck-finite-tv")
def test_permute_and_flip_law_is_exact_and_fits_a_sampler() -> None:
    for utilities in (UTILITIES, [0.0], [1.0, 1.0, 0.0, 5.0, 2.5]):
        law = permute_and_flip_probabilities(utilities, epsilon=1, sensitivity=1)
        m = len(utilities)
        accept = [math.exp((u - max(utilities)) / 2) for u in utilities]
        brute = [0.0] * m
        for order in itertools.permutations(range(m)):
            rejected = 1.0
            for r in order:
                brute[r] += rejected * accept[r] / math.factorial(m)
                rejected *= 1 - accept[r]
        assert all(abs(a - b) < 1e-12 for a, b in zip(law, brute)), (law, brute)
    law = permute_and_flip_probabilities(UTILITIES, epsilon=1, sensitivity=1)
    em = exponential_probabilities(UTILITIES, epsilon=1, sensitivity=1)
    assert _tv(law, em) > 0.05
    n = tv_sample_size(law, 0.05)
    rng = random.Random(5)
    samples = [_permute_and_flip(UTILITIES, 0.5, rng) for _ in range(n)]
    assert not crosscheck_finite(samples, law).rejected
    assert crosscheck_exponential_mechanism(samples, UTILITIES, epsilon=1, sensitivity=1).rejected


@pytest.mark.claim("crosscheck-laplace-ks", "dkw-goodness-of-fit")
def test_laplace_correct_fits_and_scale_off_by_ten_percent_is_rejected() -> None:
    n = laplace_sample_size(0.1)
    assert n == 70190 and abs(laplace_scale_distance(0.1) - 0.0175247) < 1e-6
    rng = random.Random(6)
    good = crosscheck_laplace([3.0 + laplace_noise(2.0, rng) for _ in range(n)], scale=2.0, location=3.0)
    assert not good.rejected, good.summary()
    bad = crosscheck_laplace([3.0 + laplace_noise(2.2, rng) for _ in range(n)], scale=2.0, location=3.0)
    assert bad.rejected, bad.summary()


def _discrete_laplace_check(scale_error: float, seed: int) -> None:
    scale = Fraction(2)
    n = discrete_laplace_sample_size(scale, scale_error)
    rng = random.Random(seed)
    good = crosscheck_discrete_laplace([5 + discrete_laplace(scale, rng) for _ in range(n)], scale=scale, location=5)
    assert not good.rejected, good.summary()
    off = scale * (1 + Fraction(scale_error).limit_denominator(100))
    bad = crosscheck_discrete_laplace([5 + discrete_laplace(off, rng) for _ in range(n)], scale=scale, location=5)
    assert bad.rejected, bad.summary()


@pytest.mark.claim("crosscheck-discrete-laplace-ks", "dkw-goodness-of-fit", "cks-discrete-laplace")
def test_discrete_laplace_correct_fits_and_scale_off_by_half_is_rejected() -> None:
    assert 3_000 < discrete_laplace_sample_size(2, 0.5) < 4_000
    _discrete_laplace_check(0.5, 7)


@pytest.mark.slow
@pytest.mark.claim("crosscheck-discrete-laplace-ks", "dkw-goodness-of-fit", "cks-discrete-laplace")
def test_discrete_laplace_scale_off_by_ten_percent_is_rejected() -> None:
    assert discrete_laplace_sample_size(2, 0.1) == 70027
    _discrete_laplace_check(0.1, 8)


MIXTURE = NoiseMixture(((0.7, Fraction(2)), (0.3, Fraction(6))), True, 2)


def _mixture_runs(mixture: NoiseMixture, n: int, ratio: Fraction, seed: int) -> List[List[int]]:
    """``n`` runs of ``mixture`` (every scale times ``ratio``): one scale per run, shared by its noises."""
    rng = random.Random(seed)
    runs = []
    for _ in range(n):
        scale = mixture.components[sample_index([p for p, _ in mixture.components], rng)][1] * ratio
        runs.append([discrete_laplace(scale, rng) for _ in range(mixture.per_run)])
    return runs


@pytest.mark.claim("crosscheck-noisy-size-mixture", "dkw-goodness-of-fit", "cks-discrete-laplace")
def test_noise_mixture_correct_fits_and_scales_off_by_half_are_rejected() -> None:
    n = noise_mixture_runs(MIXTURE, 0.5, beta=1e-6)
    assert 1_000 < n < 20_000
    good = crosscheck_noise_mixture(_mixture_runs(MIXTURE, n, Fraction(1), 11), MIXTURE)
    assert not good.rejected and good.threshold == dkw_bound(n, 1e-6 / 2), good.summary()
    for ratio in (Fraction(3, 2), Fraction(2, 3)):
        bad = crosscheck_noise_mixture(_mixture_runs(MIXTURE, n, ratio, 12), MIXTURE)
        assert bad.rejected, bad.summary()
    # what n runs detect is what noise_mixture_runs sizes for
    assert noise_mixture_detectable_scale_error(MIXTURE, n, beta=1e-6) <= 0.5 * 1.001


def test_a_mixture_of_one_scale_is_that_scale() -> None:
    one = NoiseMixture(((1.0, Fraction(2)),), True, 1)
    assert one.scale_distance(0.1) == pytest.approx(discrete_laplace_scale_distance(2, 0.1))
    assert one.cdf(0.0) == pytest.approx(0.5 + 0.5 * math.tanh(0.25))


def test_distances_grow_with_the_scale_error_and_are_symmetric() -> None:
    assert laplace_scale_distance(0.1) < laplace_scale_distance(0.2) < laplace_scale_distance(1.0)
    assert discrete_laplace_scale_distance(100, 0.1) == pytest.approx(laplace_scale_distance(0.1), abs=2e-4)
    assert discrete_laplace_scale_distance(1, 0.1) > 0


def test_tv_threshold_and_sample_size_formulas() -> None:
    p = [0.5, 0.5]
    spread = 1.0  # sqrt(1/4) + sqrt(1/4)
    assert tv_threshold(p, 100) == pytest.approx((spread + math.sqrt(2 * math.log(1e6))) / 20)
    n = tv_sample_size(p, 0.1)
    total = spread + 1 + math.sqrt(2 * math.log(1e6)) + math.sqrt(2 * math.log(1e3))
    assert n == math.ceil((total / 0.2) ** 2)
    # at that n, the threshold under p plus the deviation bound under q is below 2 tv
    assert 2 * tv_threshold(p, n) + (1 + math.sqrt(2 * math.log(1e3))) / math.sqrt(n) <= 0.2 + 1e-12


def test_impossible_samples_are_rejected_outright() -> None:
    law = [0.5, 0.0, 0.5]
    result = crosscheck_finite([0, 2, 1, 0], law)
    assert result.rejected and math.isinf(result.statistic) and "outcome(s) 1" in result.detail
    assert crosscheck_finite([0, 2, 7], law).rejected
    ok = crosscheck_finite([0, 2], law)
    assert not ok.rejected and ok.threshold == tv_threshold(law, 2) and ok.alpha == DEFAULT_ALPHA


def test_ks_threshold_is_the_dkw_bound() -> None:
    result = crosscheck_laplace([0.0, 1.0, -1.0], scale=1.0)
    assert result.threshold == dkw_bound(3, 1e-6) and result.n == 3


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: crosscheck_finite([], [1.0]), "at least one sample"),
        (lambda: crosscheck_finite([0.5], [1.0]), "candidate indices"),  # type: ignore[list-item]
        (lambda: crosscheck_finite([0], [0.5, 0.6]), "summing to 1"),
        (lambda: crosscheck_finite([0], [1.0], alpha=0), "alpha must be a probability"),
        (lambda: tv_sample_size([1.0], 0), "tv (the deviation to detect)"),
        (lambda: tv_threshold([1.0], 0), "n (the number of samples)"),
        (lambda: crosscheck_laplace([1.0], scale=0), "scale must be finite and > 0"),
        (lambda: crosscheck_laplace([math.nan], scale=1), "finite numbers"),
        (lambda: crosscheck_laplace([1.0], scale=1, location=math.inf), "location must be a finite number"),
        (lambda: crosscheck_discrete_laplace([1.5], scale=1), "must be ints"),  # type: ignore[list-item]
        (lambda: crosscheck_discrete_laplace([1], scale=1, location=0.5), "location must be an int"),  # type: ignore[arg-type]
        (lambda: laplace_sample_size(0), "scale_error must be in"),
        (lambda: permute_and_flip_probabilities([], epsilon=1, sensitivity=1), "non-empty list"),
        (lambda: permute_and_flip_probabilities([1.0], epsilon=1, sensitivity=0), "sensitivity must be"),
        (lambda: split_choice_probabilities([], quality="gini", epsilon=1), "one count table per candidate"),
        (lambda: split_choice_probabilities(TABLES, quality="info-gain", epsilon=1), "max_size"),
    ],
)
def test_bad_input(call: "object", message: str) -> None:
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        call()  # type: ignore[operator]


def test_inputs_are_not_changed() -> None:
    samples = [0, 1, 0]
    law = [0.5, 0.5]
    crosscheck_finite(samples, law)
    with pytest.raises(InvalidParameterError):
        crosscheck_finite(samples, law, alpha=2)
    assert samples == [0, 1, 0] and law == [0.5, 0.5]
