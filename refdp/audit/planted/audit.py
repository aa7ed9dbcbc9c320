"""The audit of a planted case as a report (what ``audit --algorithm planted:CASE`` runs).

:func:`audit_planted` checks the faulty or the correct mechanism of a
:class:`PlantedCase` on the case's own pair: exactly when the case has exact
laws (:func:`exact_check`, method ``auto``), else -- or with method
``monte-carlo`` -- by the Monte-Carlo audit, sized to catch the faulty
version.  The report is a JSON-ready ``dict``; its notes name the ``audit``
command's flags, since that is where reports are read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from refdp.audit.planted.case import ExactVerdict, PlantedCase, exact_check, monte_carlo_check, monte_carlo_plan
from refdp.audit.report import monte_carlo_fields
from refdp.audit.sample_size import DEFAULT_POWER, default_trials
from refdp.audit.executors import audit_executor
from refdp.audit.timing import PhaseProgress, chunk_for, time_runs
from refdp.errors import InvalidParameterError

__all__ = ["METHODS", "PlantedAudit", "audit_planted"]

METHODS = ("auto", "exact", "monte-carlo")
"""``auto``: exact when the version has an exact law, else Monte-Carlo."""


@dataclass(frozen=True)
class PlantedAudit:
    """What to audit: ``version`` (``faulty`` or ``correct``) of ``case``, by ``method`` (one of :data:`METHODS`).

    ``trials`` (Monte-Carlo only) are runs per side; None sizes them to
    catch the faulty version (:func:`monte_carlo_plan`) where the case has
    exact laws, else by :func:`~refdp.audit.sample_size.default_trials`.
    ``executor`` and ``workers`` say where they run, as for
    :class:`~refdp.audit.learner.LearnerAudit`.
    """

    case: PlantedCase
    version: str
    seed: int
    method: str = "auto"
    trials: Optional[int] = None
    alpha: float = 1e-6
    workers: int = 1
    executor: str = "process"


def _exact_fields(verdict: ExactVerdict) -> Dict[str, Any]:
    return {
        "method": "exact",
        "verdict": "refuted" if verdict.refuted else "not refuted",
        "max_log_ratio": verdict.max_log_ratio if math.isfinite(verdict.max_log_ratio) else "inf",
        "outcome": repr(verdict.outcome),
        "only_in": verdict.only_in,
        "log_p": verdict.log_p if math.isfinite(verdict.log_p) else "-inf",
        "log_q": verdict.log_q if math.isfinite(verdict.log_q) else "-inf",
        "outcomes": list(verdict.outcomes),
        "runs": 0,
        "wall_time": verdict.wall_time,
    }


def _sizing(request: PlantedAudit) -> Tuple[int, int, str]:
    """Test runs and selection runs per side, and why that many."""
    case = request.case
    if request.trials is not None:
        return request.trials, request.trials, "given by --trials"
    if case.exact_faulty is not None:
        plan = monte_carlo_plan(case, power=DEFAULT_POWER, alpha=request.alpha)
        return plan.trials, plan.selection_trials, (
            f"sized to catch the faulty version: an event of {plan.size} outcome(s) with p1={plan.p1:.4g}, "
            f"p2={plan.p2:.4g} in the exact laws, power {plan.power} at alpha={request.alpha:g}"
        )
    trials, sizing = default_trials(case.epsilon, case.delta, request.alpha)
    return trials, trials, sizing


def audit_planted(request: PlantedAudit, progress: Optional[PhaseProgress] = None) -> Dict[str, Any]:
    """Audit ``request``; the report (the fields ``audit --json`` prints), whatever the verdict.

    ``progress`` hears of the ``"audit"`` runs of a Monte-Carlo audit.
    """
    case, version = request.case, request.version
    if request.method not in METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(METHODS)}, got {request.method!r}")
    method = request.method
    if method == "auto":
        method = "exact" if case.law(version) is not None else "monte-carlo"
    base: Dict[str, Any] = {
        "algorithm": f"{'planted' if version == 'faulty' else 'correct'}:{case.name}",
        "description": case.description if version == "faulty" else case.correction,
        "data": case.data,
        "neighbour": case.neighbour,
        "epsilon": str(case.epsilon),
        "delta": str(case.delta),
        "relation": case.relation.value,
        "seed": request.seed,
    }
    if method == "exact":
        if request.trials is not None:
            raise InvalidParameterError("--trials applies to the Monte-Carlo audit; add --method monte-carlo")
        return {**base, **_exact_fields(exact_check(case, version))}
    trials, selection, sizing = _sizing(request)
    seconds, _ = time_runs(case.mechanism(version), case.d, request.seed)
    with audit_executor(request.executor, request.workers) as executor:
        result = monte_carlo_check(
            case, version, seed=request.seed, trials=trials, selection_trials=selection, alpha=request.alpha,
            executor=executor, chunk=chunk_for(seconds), progress=progress("audit") if progress is not None else None,
        )
    return {**base, **monte_carlo_fields(result, sizing, seconds)}
