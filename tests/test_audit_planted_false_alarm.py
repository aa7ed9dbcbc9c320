"""The false-alarm rate of the Monte-Carlo audit on correct mechanisms is consistent with alpha.

``scripts/false_alarm_rate.py`` measures it at scale; the slow test here
runs a reduced version on the two counts that sit exactly at their claim
(discrete Laplace, worst log-ratio = epsilon) and fails only if the
Clopper-Pearson lower limit of the rate, at 1e-6, exceeds alpha.
"""

from __future__ import annotations

import pytest

from refdp.audit.planted import PLANTED, false_alarm_rate
from refdp.errors import InvalidParameterError
from refdp.stats import clopper_pearson_lower

SEED = 77
ALPHA = 0.05


def test_false_alarm_rate_reports_its_numbers() -> None:
    case = PLANTED["exact-score-released"]
    result = false_alarm_rate(case, repetitions=3, trials=40, alpha=ALPHA, seed=SEED)
    assert result.repetitions == 3 and 0 <= result.refuted <= 3 and result.trials == 40
    lo, hi = result.interval
    assert 0.0 <= lo <= result.rate <= hi <= 1.0
    assert "false alarms" in result.summary() and f"seed={SEED}" in result.summary()
    with pytest.raises(InvalidParameterError, match="repetitions must be an int >= 1"):
        false_alarm_rate(case, repetitions=0, trials=40, alpha=ALPHA, seed=SEED)
    with pytest.raises(InvalidParameterError, match="confidence"):
        false_alarm_rate(case, repetitions=1, trials=40, alpha=ALPHA, seed=SEED, confidence=1.0)


@pytest.mark.slow
@pytest.mark.claim("empirical-epsilon-lower-bound", "discrete-laplace-mechanism")
@pytest.mark.parametrize("name", ["float-laplace-inverse-cdf", "noise-on-present-classes"])
def test_measured_false_alarm_rate_is_consistent_with_alpha(name: str) -> None:
    result = false_alarm_rate(PLANTED[name], repetitions=300, trials=300, alpha=ALPHA, seed=SEED)
    lower = clopper_pearson_lower(result.refuted, result.repetitions, 1e-6)
    assert lower <= ALPHA, f"{result.summary()}; CP lower limit at 1e-6: {lower:.4f} > alpha"
