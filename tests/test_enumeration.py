"""Exact enumeration (``refdp.audit.enumeration``): the laws it lists, their remainders, and its verdicts."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Sequence

import pytest

from refdp.algorithms import get_algorithm
from refdp.audit.enumeration import _float_interval_law, _tail, enumerate_pair, law_outcomes
from refdp.audit.exact import LOG_SLACK
from refdp.audit.neighbours import add_record, record_of
from refdp.cli import main
from refdp.data import load
from refdp.mechanisms import discrete_laplace_mechanism, discrete_laplace_pmf, exponential_mechanism, sample_index
from refdp.mechanisms.recording import DiscreteLaplaceLaw
from refdp.mechanisms.sampling import bernoulli_sample
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource


@pytest.mark.claim("exact-enumeration", "exponential-mechanism-float-sampler")
def test_the_float_samplers_exact_law_is_its_inversion_of_one_uniform() -> None:
    chances = [0.1, 0.2, 0.3, 0.4]
    law = dict(_float_interval_law(chances))
    assert sum(law.values()) == 1
    for i, p in enumerate(chances):
        assert abs(law[i] - Fraction(p)) <= Fraction(2, 2**53)
    # every uniform k / 2**53 at an interval's ends lands where the law says
    for i in law:
        below: Fraction = sum((q for j, q in law.items() if j < i), Fraction(0))
        first = math.ceil(below * 2**53)

        class Fixed:
            def random(self) -> float:
                return first / 2**53

        assert sample_index(chances, Fixed()) == i  # type: ignore[arg-type]


@pytest.mark.claim("exact-enumeration", "discrete-laplace-mechanism")
def test_a_windowed_discrete_laplace_with_its_certified_tail() -> None:
    scale = Fraction(3)
    outcomes = law_outcomes(DiscreteLaplaceLaw((2,), scale, False), ((2 - 10, 2 + 10),))
    assert [x for x, _ in outcomes] == list(range(-8, 13))
    for x, lp in outcomes:
        assert abs(math.exp(lp) - discrete_laplace_pmf(x - 2, scale)) < 1e-15
    listed = math.fsum(math.exp(lp) for _, lp in outcomes)
    missing = 1 - listed
    assert 0 < missing <= float(_tail(scale, 10)) <= missing * (1 + 1e-6)


def noisy_count(data: Sequence[int], rng: RandomSource, ledger: Ledger) -> int:
    return discrete_laplace_mechanism(len(data), epsilon=Fraction(1, 2), rng=rng, ledger=ledger, label="size")


@pytest.mark.claim("exact-enumeration", "exact-max-log-ratio")
def test_a_complete_law_with_certified_bounds() -> None:
    result = enumerate_pair(lambda d, r: noisy_count(d, r, Ledger()), [1, 2], [1, 2, 3], seed=1, to_key=repr)
    assert result.complete and result.depth == 1 and result.outcomes_d == result.outcomes_d_prime
    assert 0 < result.remainder_d <= 1e-3 and result.unexplored_d == 0
    for outcome in result.outcomes:
        x = int(outcome.key)  # type: ignore[call-overload]
        assert abs(outcome.log_d - math.log(discrete_laplace_pmf(x - 2, 2))) < 1e-12
        assert outcome.low <= outcome.log_d - outcome.log_d_prime <= outcome.high
    # the loss is epsilon = 1/2 at every count; the certified bounds bracket it within the tails' mass
    assert result.worst is not None and 0.49 < result.certified_loss <= 0.5 + LOG_SLACK <= result.worst.high < 0.51


@pytest.mark.claim("exact-enumeration", "exponential-mechanism")
def test_an_understated_sensitivity_is_refuted_exactly() -> None:
    def top(data: Sequence[int], rng: RandomSource, ledger: Ledger) -> int:
        # a count of values in 0..10 claimed to move by 1
        return exponential_mechanism([sum(data), 10], epsilon=1, sensitivity=1, rng=rng, ledger=ledger, label="top",
                                     exact=True)

    result = enumerate_pair(lambda d, r: top(d, r, Ledger()), [0], [0, 10], seed=1, to_key=repr)
    assert result.complete and result.worst is not None
    # P_D(0) = 1/(1 + e^5), P_D'(0) = 1/2: the loss at 0 is ln((1 + e^5) / 2)
    assert abs(result.certified_loss - math.log((1 + math.exp(5)) / 2)) < 1e-9


def _size_then_top(sensitivity: int) -> object:
    def fn(data: Sequence[int], rng: RandomSource) -> int:
        ledger = Ledger()
        n = discrete_laplace_mechanism(len(data), epsilon=Fraction(1, 10), rng=rng, ledger=ledger, label="size")
        # each record moves the second utility by 5
        top = exponential_mechanism([0, 5 * len(data)], epsilon=1, sensitivity=sensitivity, rng=rng, ledger=ledger,
                                    label=f"top after {n}", exact=True)
        return top + discrete_laplace_mechanism(len(data), epsilon=Fraction(1, 10), rng=rng, ledger=ledger, label="again")
    return fn


@pytest.mark.claim("exact-enumeration", "exponential-mechanism")
def test_past_the_budget_only_calls_that_break_their_sensitivity_are_expanded() -> None:
    """A level that does not fit is expanded where the next call's input moves beyond its declared
    sensitivity (most first): each outcome is still exact, what the first calls released."""
    breaking = enumerate_pair(_size_then_top(1), [1], [1, 1], seed=1, to_key=repr, budget=300)  # type: ignore[arg-type]
    assert not breaking.complete and breaking.depth == 2, breaking
    assert breaking.calls > 1 + 70 and breaking.runs <= 300
    # ln((1 + e^5) / (1 + e^2.5)) for the top candidate 0, and 1/10 for the size
    assert breaking.certified_loss > 2.5, breaking.worst
    assert breaking.worst is not None and "top after" in breaking.worst.description
    sound = enumerate_pair(_size_then_top(5), [1], [1, 1], seed=1, to_key=repr, budget=300)  # type: ignore[arg-type]
    assert not sound.complete and sound.depth == 1 and sound.calls == 1
    assert sound.certified_loss <= Fraction(1, 10) + 1e-9


@pytest.mark.claim("exact-enumeration", "exact-bernoulli-positions")
def test_a_row_sample_is_summed_over() -> None:
    def sampled(data: Sequence[int], rng: RandomSource, ledger: Ledger) -> int:
        kept = bernoulli_sample(len(data), Fraction(1, 3), rng, ledger=ledger, label="sample")
        return discrete_laplace_mechanism(sum(data[i] for i in kept), epsilon=1, rng=rng, ledger=ledger, label="sum")

    result = enumerate_pair(lambda d, r: sampled(d, r, Ledger()), [1, 0, 1], [1, 0, 1, 1], seed=2, to_key=repr)
    assert result.complete
    total = math.fsum(math.exp(o.log_d) for o in result.outcomes if o.log_d > -math.inf)
    assert abs(total + result.remainder_d - 1) < 1e-9
    # amplification by sampling: the loss is below the count's epsilon of 1
    assert result.worst is not None and result.worst.high < 1


@pytest.mark.slow
@pytest.mark.claim("exact-enumeration", "dpdf-published-unsound")
def test_dpdf_published_is_refuted_exactly_on_one_record() -> None:
    vote = load("vote")
    spec = get_algorithm("dpdf")
    params = spec.resolve({"variant": "published"})
    d = vote.subset([0])
    other = next(i for i in range(len(vote)) if vote.labels[i] != vote.labels[0])
    d_prime = add_record(d, record_of(vote, other))
    result = enumerate_pair(
        lambda data, rng: spec.fit(data, Fraction(1), params, rng, Relation.ADD_REMOVE), d, d_prime, seed=1,
        to_key=lambda m: json.dumps(m.to_json(), sort_keys=True),
    )
    assert not result.complete and result.depth == 2 and result.worst is not None
    assert result.certified_loss > 1, result.worst
    assert "split attribute Q2" in result.worst.description


@pytest.mark.claim("exact-enumeration")
def test_the_command_reports_an_exact_law(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["audit", "--method", "exact", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                   "--seed", "4"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "check: exact enumeration of the whole law of the released model" in out
    assert "verdict: NOT REFUTED: certified loss" in out
    status = main(["audit", "--method", "exact", "--algorithm", "noisy-majority", "--param", "noise=laplace",
                   "--data", "vote", "--epsilon", "1", "--seed", "4"])
    err = capsys.readouterr().err
    assert status == 2 and "has no finite law" in err

