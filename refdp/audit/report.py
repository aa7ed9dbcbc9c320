"""The report fields of a Monte-Carlo audit, as the ``audit`` and ``audit-cmd`` reports carry them.

A report is a JSON-ready ``dict`` (what ``--json`` prints); the command line
renders it as text.  Infinite bounds are the strings ``"inf"`` and
``"-inf"``, since JSON has no infinities.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Dict

from refdp.audit.montecarlo import AuditResult, detectable
from refdp.audit.sample_size import design_event_probability

__all__ = ["monte_carlo_fields"]


def _number(x: float) -> Any:
    """``x``, or ``"inf"`` / ``"-inf"`` for an infinity."""
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def monte_carlo_fields(result: AuditResult, sizing: str, seconds_per_run: float) -> Dict[str, Any]:
    """The fields of ``result``, with ``sizing`` (why this many runs) and the seconds one run took.

    ``detectable_epsilon_design`` is the true epsilon these runs detect with
    probability :data:`~refdp.audit.sample_size.DEFAULT_POWER` on an event of
    the design probability (:func:`~refdp.audit.sample_size.design_event_probability`);
    ``detectable_epsilon`` the same at the chosen event's observed probability.
    """
    p_design = design_event_probability(Fraction(result.epsilon))
    design = detectable(result.test, result.trials, Fraction(result.epsilon), p_design, result.alpha, result.delta)
    return {
        "detectable_epsilon_design": _number(design),
        "design_event_probability": p_design,
        "method": "monte-carlo",
        "verdict": "refuted" if result.refuted else "not refuted",
        "lower_bound": _number(result.lower_bound),
        "point_estimate": _number(result.point_estimate),
        "detectable_epsilon": _number(result.detectable_epsilon),
        "event": result.event,
        "direction": result.direction,
        "k1": result.k1,
        "n1": result.n1,
        "k2": result.k2,
        "n2": result.n2,
        "trials": result.trials,
        "selection_trials": result.selection_trials,
        "runs": 2 * (result.trials + result.selection_trials),
        "alpha": result.alpha,
        "test": result.test,
        "sizing": sizing,
        "seconds_per_run": seconds_per_run,
        "wall_time": result.wall_time,
    }
