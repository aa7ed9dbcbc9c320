"""The audit of a learner's DP claim on rows of a data set and a neighbour (what ``audit --algorithm NAME`` runs).

:func:`audit_learner` trains the learner on ``D`` and on a neighbour ``D'``
many times and audits the reduced models with
:func:`refdp.audit.monte_carlo_audit` (claims ``conditional-ratio-test`` and
``empirical-epsilon-lower-bound``).  When the neighbour or the reduction is
not given, a pilot on separate seeds searches shaped pairs and views
(:func:`refdp.audit.search.search`) and the test runs are sized from the
pilot's estimate; otherwise the default run count
(:func:`refdp.audit.default_trials`) is capped so that the runs take about
half a minute.  The report is a JSON-ready ``dict``; its notes name the
``audit`` command's flags, since that is where reports are read.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, Hashable, Mapping, Optional, Tuple

from refdp.audit.montecarlo import monte_carlo_audit
from refdp.audit.neighbours import Record, record_of
from refdp.audit.pair import Neighbour
from refdp.audit.reductions import ModelPredictions, ModelProbeCount, ModelStructure
from refdp.audit.report import monte_carlo_fields
from refdp.audit.conditional import conditional_required_runs
from refdp.audit.sample_size import default_trials
from refdp.audit.search import Choice, Pair, candidate_pairs, search, size_thresholds
from refdp.audit.views import VIEWS, view
from refdp.audit.executors import audit_executor
from refdp.audit.timing import PhaseProgress, chunk_for, time_runs
from refdp.data import Dataset
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = ["OUTPUTS", "LearnerAudit", "audit_learner", "check_request"]

OUTPUTS = ("counts", "structure", "predictions")
"""How a trained model is reduced: the probe's released count, the tree shapes, the leaf classes."""

# The default run count must fit about this many seconds of runs (a pilot gets a third of it).
_BUDGET_SECONDS = 30.0
_MIN_TRIALS = 50
_MIN_PILOT = 20
_CANDIDATES = 6


@dataclass(frozen=True)
class LearnerAudit:
    """What to audit: ``learner`` on ``D = data.subset(rows)`` and a neighbour, against (``epsilon``, ``delta``).

    ``learner(data, rng)`` trains a model (it must pickle when ``workers`` >
    1); ``name``, ``description`` and ``params`` name it in the report, as
    ``data_name`` names ``data``.  ``neighbour`` is ``D'`` under
    ``relation``; None searches: removals and additions of rows
    (add-remove) or replacements by rows of ``data`` outside ``D``
    (substitute), and two neighbours from the whole record universe, drawn
    with ``seed``.  ``delta`` None audits the delta a model's receipt states
    (0 for every learner but kanon-rdt).  ``output`` (one of :data:`OUTPUTS`) reduces a model.
    When ``neighbour`` or ``output`` is None the audit searches
    (:mod:`refdp.audit.search`): shaped pairs (or the given one) and every
    view (or the given one) on a pilot, then tests the best event on fresh
    runs.  ``trials`` test runs per side (None: from the pilot's estimate,
    capped by the time budget); they run where ``executor`` says
    (:func:`~refdp.audit.executors.audit_executor`: ``"process"`` with
    ``workers`` local processes, 1 inline; or a ``dask:`` spec), which
    changes the time taken and nothing else.  ``pilot_runs`` is the search's
    first-round runs per side and pair (None: sized from one run's time).
    Run counts sized from time depend on the machine's speed; the report's
    ``replay`` gives the ones used, so that the same seed replays the audit
    exactly on any machine.
    """

    learner: Callable[[Dataset, RandomSource], TreeModel]
    name: str
    description: str
    params: Mapping[str, object]
    data: Dataset
    data_name: str
    rows: Tuple[int, ...]
    epsilon: Fraction
    delta: Optional[Fraction]
    relation: Relation
    seed: int
    neighbour: Optional[Neighbour] = None
    output: Optional[str] = None
    trials: Optional[int] = None
    alpha: float = 1e-6
    workers: int = 1
    executor: str = "process"
    pilot_runs: Optional[int] = None


def _probe(d: Dataset, d_prime: Dataset) -> Record:
    """The record added or substituted in ``d_prime``, or the one removed from ``d``."""
    if len(d_prime) > len(d):
        return record_of(d_prime, len(d_prime) - 1)  # add_record appends
    for i in range(len(d_prime)):
        if record_of(d, i) != record_of(d_prime, i):
            return record_of(d_prime, i) if len(d_prime) == len(d) else record_of(d, i)
    return record_of(d, len(d) - 1)  # the last row was removed


def _reduction(output: str, probe: Record) -> Tuple[Callable[[Any], Hashable], bool]:
    if output == "structure":
        return ModelStructure(), False
    if output == "predictions":
        return ModelPredictions(), False
    return ModelProbeCount(probe), True


def _trials(request: LearnerAudit, delta: Fraction, n_rows: int, seconds: float) -> Tuple[int, str]:
    if request.trials is not None:
        return request.trials, "given by --trials"
    trials, sizing = default_trials(request.epsilon, delta, request.alpha)
    affordable = int(_BUDGET_SECONDS / (4 * max(seconds, 1e-9)))
    if affordable < _MIN_TRIALS:
        raise InvalidParameterError(
            f"one run of {request.name} on {n_rows} rows takes {seconds:.2f} s, so even {_MIN_TRIALS} runs per "
            f"side would take about {4 * _MIN_TRIALS * seconds / 60:.0f} min; pass --trials N to run it "
            "anyway, or audit a smaller model (--rows, --param)"
        )
    if affordable < trials:
        return affordable, sizing + f"; capped from {trials} to {affordable} runs per side by the time budget (use --trials)"
    return trials, sizing


def _replay(seed: int, pilot: Optional[int], trials: int) -> str:
    """The ``audit`` flags that fix every run count, so that the audit replays exactly wherever it runs."""
    pilot_flag = "" if pilot is None else f" --pilot-runs {pilot}"
    return f"--seed {seed}{pilot_flag} --trials {trials}"


def check_request(request: LearnerAudit) -> None:
    """InvalidParameterError when ``request`` asks for what the audit cannot do (before any run)."""
    if request.output is not None and request.output not in OUTPUTS + VIEWS:
        raise InvalidParameterError(
            f"output must be one of {', '.join(OUTPUTS + VIEWS)}, got {request.output!r}"
        )
    searched = request.neighbour is None or request.output is None or request.output not in OUTPUTS
    if request.pilot_runs is not None and not searched:
        raise InvalidParameterError("--pilot-runs applies to a search; it has none when --neighbour and --output are given")


def audit_learner(request: LearnerAudit, progress: Optional[PhaseProgress] = None) -> Dict[str, Any]:
    """Audit ``request``; the report (the fields ``audit --json`` prints), whatever the verdict.

    ``progress`` hears of the ``"pilot"`` runs (when there is a search) and
    the ``"audit"`` runs.
    """
    check_request(request)
    d = request.data.subset(list(request.rows))
    seconds, model = time_runs(request.learner, d, request.seed)
    delta = model.receipt.delta if request.delta is None else request.delta
    request = dataclasses.replace(request, delta=delta)
    if request.neighbour is None or request.output is None or request.output not in OUTPUTS:
        return _audit_by_search(request, delta, d, progress, seconds, model)
    trials, sizing = _trials(request, delta, len(d), seconds)
    chunk = chunk_for(seconds)
    assert request.neighbour is not None and request.output is not None
    chosen, note = request.neighbour, "given by --neighbour"
    with audit_executor(request.executor, request.workers) as executor:
        reduce, thresholds = _reduction(request.output, _probe(d, chosen.d_prime))
        result = monte_carlo_audit(
            request.learner, d, chosen.d_prime, epsilon=request.epsilon, delta=delta, trials=trials,
            alpha=request.alpha, seed=request.seed, reduce=reduce, threshold_events=thresholds,
            executor=executor, chunk=chunk, progress=progress("audit") if progress is not None else None,
        )
    receipt = model.receipt
    return {
        "algorithm": request.name,
        "description": request.description,
        "params": {k: v for k, v in sorted(request.params.items())},
        "data": request.data_name,
        "rows": len(d),
        "epsilon": str(request.epsilon),
        "delta": str(delta),
        "relation": request.relation.value,
        "seed": request.seed,
        "neighbour": chosen.description,
        "neighbour_choice": note,
        "replay": _replay(request.seed, None, trials),
        "output": request.output,
        "receipt": f"epsilon={receipt.epsilon} delta={receipt.delta} (level {receipt.level})",
        **monte_carlo_fields(result, sizing, seconds),
    }


# --- the search (refdp.audit.search): shaped pairs and views on a pilot, then one test ---------------

# Pilot and test each get at most about this many seconds of runs by default.
_SEARCH_SECONDS = 60.0
_MIN_PILOT_RUNS = 10
_MAX_PILOT_RUNS = 40
_MIN_TEST_RUNS = 100


def _scaled(seconds: float, rows: int, timed_rows: int) -> float:
    """The time of one run on ``rows`` rows, from one on ``timed_rows`` (never less: small sets have fixed costs)."""
    return seconds * max(1.0, rows / max(timed_rows, 1))


def _test_runs(request: LearnerAudit, delta: Fraction, choice: Choice, seconds: float) -> Tuple[int, str]:
    """Test runs per side: enough for the pilot's estimate to refute with probability 0.99, within the budget."""
    affordable = max(_MIN_TEST_RUNS, int(_SEARCH_SECONDS / (2 * max(seconds, 1e-9))))
    if request.trials is not None:
        return request.trials, "given by --trials"
    runs = choice.pilot_runs_per_side
    p1, p2 = ((h + 0.5) / (runs + 1) for h in choice.pilot_hits)
    true = math.log(max(p1 - float(delta), 1e-12)) - math.log(p2)
    if true > float(request.epsilon) * 1.02 and p1 < 1:
        try:
            needed = (conditional_required_runs(
                math.log(p1 / p2), request.epsilon, p2, power=0.99, alpha=request.alpha / 2, delta=delta,
                at_most=2 * affordable,
            ) + 1) // 2
            aim = f"the pilot's estimate (p1~{p1:.3g}, p2~{p2:.3g}) refuted with probability 0.99"
            if needed <= affordable:
                return max(needed, _MIN_TEST_RUNS), aim
            return affordable, aim + f" needs more than the {affordable} runs per side of the time budget (use --trials)"
        except InvalidParameterError:
            pass
    trials, sizing = default_trials(request.epsilon, delta, request.alpha)
    if trials > affordable:
        return affordable, sizing + f"; capped from {trials} to {affordable} runs per side by the time budget"
    return trials, sizing


def _audit_by_search(
    request: LearnerAudit, delta: Fraction, d: Dataset, progress: Optional[PhaseProgress], seconds: float,
    model: TreeModel,
) -> Dict[str, Any]:
    if request.neighbour is not None:
        pairs = [Pair("given", d, request.neighbour, _probe(d, request.neighbour.d_prime))]
    else:
        pairs = candidate_pairs(request.data, request.rows, request.relation, size_thresholds(request.params), request.seed)
    views = VIEWS if request.output is None else (request.output,)
    # One run was timed on D; a shaped pair may hold more rows (a pure node of 200), and a fit's time
    # grows about linearly with its rows, so each pair's runs are budgeted at the time scaled to its size.
    pair_seconds = [_scaled(seconds, len(pair.d), len(d)) for pair in pairs]
    # Round r (of 3) runs the pairs still alive 2^(r-1) * pilot times per side, and halving the
    # (pair, view) choices may keep every pair alive: at most 2 * (1 + 2 + 4) * pilot runs per pair.
    if request.pilot_runs is not None:
        pilot = request.pilot_runs
    else:
        pilot = int(_SEARCH_SECONDS / (14 * max(sum(pair_seconds), 1e-9)))
        pilot = min(_MAX_PILOT_RUNS, max(_MIN_PILOT_RUNS, pilot))
    with audit_executor(request.executor, request.workers) as executor:
        choice = search(
            request.learner, pairs, views=views, test_runs=1000, alpha=request.alpha, delta=float(delta),
            seed=request.seed, pilot_runs=pilot, executor=executor, chunk=chunk_for(seconds),
            progress=progress("pilot") if progress is not None else None,
        )
        seconds = _scaled(seconds, len(choice.pair.d), len(d))
        trials, sizing = _test_runs(request, delta, choice, seconds)
        result = monte_carlo_audit(
            request.learner, choice.pair.d, choice.pair.neighbour.d_prime, epsilon=request.epsilon,
            delta=delta, trials=trials, alpha=request.alpha, seed=request.seed,
            reduce=view(choice.view, choice.pair.probe), event=choice.event, direction=choice.direction,
            executor=executor, chunk=chunk_for(seconds), progress=progress("audit") if progress is not None else None,
        )
    receipt = model.receipt
    fields = monte_carlo_fields(result, sizing, seconds)
    fields["runs"] = fields["runs"] + choice.pilot_runs
    return {
        "algorithm": request.name,
        "description": request.description,
        "params": {k: v for k, v in sorted(request.params.items())},
        "data": request.data_name,
        "rows": len(choice.pair.d),
        "epsilon": str(request.epsilon),
        "delta": str(delta),
        "relation": request.relation.value,
        "seed": request.seed,
        "neighbour": choice.pair.describe(),
        "neighbour_choice": (
            f"searched: {len(pairs)} pair(s) x {len(views)} view(s) on a pilot of {choice.pilot_runs} runs "
            f"(successive halving, seeds separate from the test's, so the bound stays valid); projected bound "
            f"{choice.projected_bound:.3g}"
        ),
        "output": choice.view,
        "pilot_runs": choice.pilot_runs,
        "pilot_seconds": choice.pilot_seconds,
        "replay": _replay(request.seed, pilot, trials),
        "receipt": f"epsilon={receipt.epsilon} delta={receipt.delta} (level {receipt.level})",
        **fields,
    }
