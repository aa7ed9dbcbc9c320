"""The audit of a learner's DP claim on rows of a data set and a neighbour (what ``audit --algorithm NAME`` runs).

:func:`audit_learner` trains the learner on ``D`` and on a neighbour ``D'``
many times and audits the reduced models with
:func:`refdp.audit.monte_carlo_audit` (claim
``empirical-epsilon-lower-bound``).  ``D'`` is given, or chosen among a
handful of candidates by pilot audits on separate seeds
(:func:`refdp.audit.pair.choose_by_pilot`).  Without a run count, the
default (:func:`refdp.audit.default_trials`) is capped so that the runs take
about half a minute.  The report is a JSON-ready ``dict``; its notes name the
``audit`` command's flags, since that is where reports are read.
"""

from __future__ import annotations

import concurrent.futures
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, Hashable, List, Mapping, Optional, Tuple

from refdp.audit.montecarlo import AuditResult, monte_carlo_audit
from refdp.audit.neighbours import Record, random_neighbour, record_of
from refdp.audit.pair import Neighbour, addition, choose_by_pilot, removal, substitution
from refdp.audit.planted.outcomes import ModelPredictions, ModelProbeCount, ModelStructure
from refdp.audit.report import monte_carlo_fields
from refdp.audit.sample_size import default_trials
from refdp.audit.timing import PhaseProgress, chunk_for, time_runs, worker_pool
from refdp.data import Dataset
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = ["OUTPUTS", "LearnerAudit", "audit_learner"]

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
    with ``seed``.  ``output`` (one of :data:`OUTPUTS`) reduces a model.
    ``trials`` runs per side (None: the default, capped by the time budget);
    ``workers`` processes run them (1: inline).
    """

    learner: Callable[[Dataset, RandomSource], TreeModel]
    name: str
    description: str
    params: Mapping[str, object]
    data: Dataset
    data_name: str
    rows: Tuple[int, ...]
    epsilon: Fraction
    delta: Fraction
    relation: Relation
    seed: int
    neighbour: Optional[Neighbour] = None
    output: str = "counts"
    trials: Optional[int] = None
    alpha: float = 1e-6
    workers: int = 1


def _candidates(data: Dataset, d: Dataset, rows: Tuple[int, ...], relation: Relation, seed: int) -> List[Neighbour]:
    """A handful of neighbours of ``D``, drawn with their own stream of ``seed``.

    Under add-remove: removals of rows of ``D`` and additions of rows of the
    data outside ``D``; under substitute: rows of ``D`` replaced by such rows.
    The last two come from the whole record universe
    (:func:`refdp.audit.random_neighbour`), where outliers live.
    """
    rng = random.Random(f"refdp-audit-neighbours-{seed}")
    taken = set(rows)
    outside = [i for i in range(len(data)) if i not in taken]
    found: List[Neighbour] = []
    for k in range(_CANDIDATES):
        if k >= _CANDIDATES - 2 or not outside:
            found.append(Neighbour(*random_neighbour(d, relation, rng)))
        elif relation is Relation.ADD_REMOVE and k % 2 == 0:
            found.append(removal(d, rng.randrange(len(d))))
        elif relation is Relation.ADD_REMOVE:
            found.append(addition(d, record_of(data, rng.choice(outside))))
        else:
            i = rng.randrange(len(d))
            record = record_of(data, rng.choice(outside))
            if record != record_of(d, i):
                found.append(substitution(d, i, record))
    return found


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


def _trials(request: LearnerAudit, n_rows: int, seconds: float) -> Tuple[int, str]:
    if request.trials is not None:
        return request.trials, "given by --trials"
    trials, sizing = default_trials(request.epsilon, request.delta, request.alpha)
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


def audit_learner(request: LearnerAudit, progress: Optional[PhaseProgress] = None) -> Dict[str, Any]:
    """Audit ``request``; the report (the fields ``audit --json`` prints), whatever the verdict.

    ``progress`` hears of the ``"pilot"`` runs (when there is a search) and
    the ``"audit"`` runs.
    """
    if request.output not in OUTPUTS:
        raise InvalidParameterError(f"output must be one of {', '.join(OUTPUTS)}, got {request.output!r}")
    d = request.data.subset(list(request.rows))
    seconds, model = time_runs(request.learner, d, request.seed)
    trials, sizing = _trials(request, len(d), seconds)
    chunk = chunk_for(seconds)
    executor = worker_pool(request.workers)
    try:
        if request.neighbour is not None:
            chosen, note = request.neighbour, "given by --neighbour"
        else:
            candidates = _candidates(request.data, d, request.rows, request.relation, request.seed)
            chosen, note = _search(request, d, candidates, trials, seconds, chunk, executor, progress)
        reduce, thresholds = _reduction(request.output, _probe(d, chosen.d_prime))
        result = monte_carlo_audit(
            request.learner, d, chosen.d_prime, epsilon=request.epsilon, delta=request.delta, trials=trials,
            alpha=request.alpha, seed=request.seed, reduce=reduce, threshold_events=thresholds,
            executor=executor, chunk=chunk, progress=progress("audit") if progress is not None else None,
        )
    finally:
        if executor is not None:
            executor.shutdown()
    receipt = model.receipt
    return {
        "algorithm": request.name,
        "description": request.description,
        "params": {k: v for k, v in sorted(request.params.items())},
        "data": request.data_name,
        "rows": len(d),
        "epsilon": str(request.epsilon),
        "delta": str(request.delta),
        "relation": request.relation.value,
        "seed": request.seed,
        "neighbour": chosen.description,
        "neighbour_choice": note,
        "output": request.output,
        "receipt": f"epsilon={receipt.epsilon} delta={receipt.delta} (level {receipt.level})",
        **monte_carlo_fields(result, sizing, seconds),
    }


def _search(
    request: LearnerAudit, d: Dataset, candidates: List[Neighbour], trials: int, seconds: float, chunk: int,
    executor: Optional[concurrent.futures.Executor], progress: Optional[PhaseProgress],
) -> Tuple[Neighbour, str]:
    """The candidate the pilot audits choose, within a third of the time budget."""
    per_side = min(trials // 5, int(_BUDGET_SECONDS / 3 / (4 * len(candidates) * max(seconds, 1e-9))))
    if per_side < _MIN_PILOT:
        return candidates[0], (
            f"the first of {len(candidates)} candidates, without a pilot: {_MIN_PILOT} pilot runs per side "
            f"would not fit the time budget at {seconds:.2f} s per run (pass --neighbour to choose)"
        )
    report = progress("pilot") if progress is not None else None
    total = len(candidates) * 4 * per_side

    def pilot(k: int, seed: int) -> AuditResult:
        def step(done: int, _: int) -> None:
            if report is not None:
                report(k * 4 * per_side + done, total)

        candidate = candidates[k]
        reduce, thresholds = _reduction(request.output, _probe(d, candidate.d_prime))
        return monte_carlo_audit(
            request.learner, d, candidate.d_prime, epsilon=request.epsilon, delta=request.delta, trials=per_side,
            alpha=request.alpha, seed=seed, reduce=reduce, threshold_events=thresholds,
            executor=executor, chunk=chunk, progress=step,
        )

    choice = choose_by_pilot(len(candidates), per_side, f"refdp-audit-pilot-{request.seed}", pilot)
    return candidates[choice.index], choice.note
