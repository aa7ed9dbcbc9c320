"""The ``audit`` subcommand: refute a DP claim on data, or say what the run could have detected.

``python3 -m refdp audit --algorithm NAME ...`` audits

* a registry algorithm (``NAME`` as in ``python3 -m refdp algorithms``):
  ``D`` is ``--rows`` rows of ``--data`` drawn with ``--seed``; ``D'`` is the
  neighbour given by ``--neighbour`` or, by default, the most promising of
  a handful found by a pilot run on separate seeds; the trained model is
  reduced by ``--output`` and audited by :func:`refdp.audit.monte_carlo_audit`;
* a planted case, ``planted:CASE`` (the faulty mechanism) or
  ``correct:CASE`` (its fix), on the case's own pair: exactly when the
  case has exact laws (``--method auto``, the default), else -- or with
  ``--method monte-carlo`` -- by the Monte-Carlo audit.

The verdict is REFUTED with the certified lower bound (or the exact
log-ratio, or the differing supports), or NOT REFUTED with the violation the
run could have detected.  Bad input raises a refdp error, which the CLI
prints as one line.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import random
import secrets
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple

from refdp.algorithms import Param, get_algorithm
from refdp.audit.montecarlo import AuditResult, monte_carlo_audit
from refdp.audit.neighbours import (
    Record,
    add_record,
    random_neighbour,
    record_of,
    remove_row,
    replace_row,
)
from refdp.audit.planted import (
    PlantedCase,
    exact_check,
    get_case,
    monte_carlo_check,
    monte_carlo_plan,
    planted_names,
)
from refdp.audit.planted.case import ExactVerdict
from refdp.audit.planted.outcomes import ModelPredictions, ModelProbeCount, ModelStructure
from refdp.audit.sample_size import detectable_epsilon, required_trials
from refdp.data import Dataset, load, read_schema
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation, as_delta, as_epsilon, parse_relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = [
    "add_audit_parser",
    "run_audit",
    "RegistryMechanism",
    "OUTPUTS",
    "DEFAULT_ROWS",
    "monte_carlo_fields",
    "render_report",
]

OUTPUTS = ("counts", "structure", "predictions")
"""How a trained model is reduced: the probe's released count, the tree shapes, the leaf classes."""

DEFAULT_ROWS = 40
"""Rows of ``D`` for a registry algorithm, unless ``--rows`` says otherwise."""

# The default run's target: detect a true epsilon of twice the claim on an event of
# probability min(0.1, e^{-2 epsilon}/2) with power 0.999 ...
_POWER = 0.999
# ... within about this many seconds of mechanism runs (a pilot gets a third of it).
_BUDGET_SECONDS = 30.0
_MIN_TRIALS = 50
_MIN_PILOT = 20
_CANDIDATES = 6
_PROGRESS_AFTER = 2.0  # seconds before the progress line appears


def add_audit_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """Add the ``audit`` subparser to the CLI's subcommands."""
    p = sub.add_parser(
        "audit",
        help="audit a DP claim on a data set and a neighbour: refuted (with a certified bound) or not",
        description=(
            "Audit the claim that an algorithm is (epsilon, delta)-DP on a data set and a neighbour. "
            "NAME is a registry algorithm, or planted:CASE / correct:CASE from the catalogue of "
            "planted faults (--list-planted)."
        ),
    )
    p.add_argument("--algorithm", default=None, help="registry algorithm, planted:CASE or correct:CASE")
    p.add_argument("--list-planted", action="store_true", help="list the planted cases and exit")
    p.add_argument("--data", default=None, help="a built-in data set name or a .csv/.arff path")
    p.add_argument("--label", default=None, help="class column of a file (default: the last)")
    p.add_argument("--schema", default=None, help="schema JSON file for a CSV file")
    p.add_argument("--epsilon", default=None, help="the claimed epsilon, e.g. 1 or 1/2")
    p.add_argument("--delta", default=None, help="the claimed delta (default 0)")
    p.add_argument("--relation", default=None, help="add-remove (default) or substitute")
    p.add_argument("--param", action="append", default=None, metavar="KEY=VALUE", help="algorithm parameter (repeatable)")
    p.add_argument("--rows", type=int, default=None, help=f"rows of D drawn from the data (default {DEFAULT_ROWS})")
    p.add_argument(
        "--neighbour",
        default=None,
        help="search (default), remove:I, add:V1,...,CLASS or replace:I:V1,...,CLASS (I a row of D, from 0)",
    )
    p.add_argument("--output", default=None, choices=OUTPUTS, help="how a model is reduced (default counts)")
    p.add_argument(
        "--method", default="auto", choices=("auto", "exact", "monte-carlo"),
        help="planted cases: exact laws when they exist (auto), or the Monte-Carlo audit",
    )
    p.add_argument("--trials", type=int, default=None, help="test runs per side (default: sized for power)")
    p.add_argument("--alpha", default="1e-6", help="false-alarm probability of the audit (default 1e-6)")
    p.add_argument("--seed", type=int, default=None, help="seed (default: drawn, and printed for replay)")
    p.add_argument("--workers", type=int, default=1, help="processes for the runs (default 1: inline)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_audit)


@dataclass(frozen=True)
class RegistryMechanism:
    """Train registry algorithm ``name`` (picklable, for process pools)."""

    name: str
    epsilon: Fraction
    params: Tuple[Tuple[str, Param], ...]
    relation: Relation

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        return get_algorithm(self.name).fit(data, self.epsilon, dict(self.params), rng, self.relation)


class _Progress:
    """A carriage-return progress line on stderr, once a run has taken a few seconds."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = time.perf_counter()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.started
        if elapsed < _PROGRESS_AFTER and not self.shown:
            return
        self.shown = True
        sys.stderr.write(f"\r{self.label}: {done}/{total} runs ({100 * done // total}%), {elapsed:.1f} s ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidParameterError(f"--alpha must be a number in (0, 1) such as 1e-6, got {text!r}") from None
    if not 0 < value < 1:
        raise InvalidParameterError(f"--alpha must be in (0, 1), got {text!r}")
    return value


def _positive(value: Optional[int], flag: str) -> None:
    if value is not None and value < 1:
        raise InvalidParameterError(f"{flag} must be >= 1, got {value}")


def _params(pairs: Sequence[str]) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidParameterError(f"--param takes KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def run_audit(args: argparse.Namespace) -> int:
    """Run the ``audit`` subcommand; returns the exit status (0 whatever the verdict)."""
    if args.list_planted:
        return _list_planted(args)
    if not args.algorithm:
        raise InvalidParameterError("--algorithm is required (or --list-planted); see `audit --help`")
    alpha = _alpha(args.alpha)
    _positive(args.trials, "--trials")
    _positive(args.rows, "--rows")
    _positive(args.workers, "--workers")
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    kind, sep, name = args.algorithm.partition(":")
    if sep:
        if kind not in ("planted", "correct"):
            raise InvalidParameterError(
                f"--algorithm {args.algorithm!r}: the prefix must be planted: or correct:, got {kind!r}:"
            )
        report = _audit_case(args, get_case(name), "faulty" if kind == "planted" else "correct", alpha, seed)
    else:
        report = _audit_registry(args, alpha, seed)
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(render_report(report))
    return 0


def _list_planted(args: argparse.Namespace) -> int:
    if args.json:
        rows = []
        for name in planted_names():
            case = get_case(name)
            rows.append({
                "name": name, "description": case.description, "correction": case.correction,
                "data": case.data, "epsilon": str(case.epsilon), "relation": case.relation.value,
                "exact": case.exact_faulty is not None,
            })
        print(json.dumps(rows, indent=1))
        return 0
    for name in planted_names():
        case = get_case(name)
        print(f"{name}: {case.description}")
        print(f"  fix: {case.correction}")
        print(f"  claim: epsilon={case.epsilon} under {case.relation.value}; data: {case.data}; "
              f"check: {'exact' if case.exact_faulty is not None else 'Monte-Carlo'}")
    return 0


def _executor(workers: int) -> Optional[concurrent.futures.Executor]:
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers) if workers > 1 else None


def _time_runs(mechanism: Callable[[Dataset, RandomSource], Any], data: Dataset, seed: int) -> Tuple[float, Any]:
    """Seconds per run (one run, or the mean of three when runs are quick) and the first output.

    The timing runs use seeds unrelated to the audit's; their outputs are
    not part of the audit.
    """
    outputs, started = [], time.perf_counter()
    for i in range(3):
        outputs.append(mechanism(data, random.Random(f"refdp-audit-timing-{seed}-{i}")))
        if time.perf_counter() - started > 0.5:
            break
    return (time.perf_counter() - started) / len(outputs), outputs[0]


def _chunk(seconds: float) -> int:
    """About one second of runs per chunk, so that progress moves and pools balance."""
    return max(10, min(1000, int(1.0 / max(seconds, 1e-6))))


# --- planted cases ----------------------------------------------------------------------------


def _audit_case(args: argparse.Namespace, case: PlantedCase, version: str, alpha: float, seed: int) -> Dict[str, Any]:
    for flag, value in (("--rows", args.rows), ("--param", args.param), ("--output", args.output),
                        ("--neighbour", args.neighbour), ("--label", args.label), ("--schema", args.schema)):
        if value is not None:
            raise InvalidParameterError(
                f"{flag} does not apply to planted cases, which bring their own pair and reduction; drop it"
            )
    if args.data is not None and args.data != case.data:
        raise InvalidParameterError(f"planted case {case.name!r} runs on {case.data!r}; drop --data or pass {case.data}")
    if args.epsilon is not None and as_epsilon(args.epsilon) != case.epsilon:
        raise InvalidParameterError(
            f"planted case {case.name!r} claims epsilon={case.epsilon}; drop --epsilon or pass {case.epsilon}"
        )
    if args.delta is not None and as_delta(args.delta) != case.delta:
        raise InvalidParameterError(f"planted case {case.name!r} claims delta={case.delta}; drop --delta")
    if args.relation is not None and parse_relation(args.relation) is not case.relation:
        raise InvalidParameterError(
            f"planted case {case.name!r} is stated under {case.relation.value}; drop --relation"
        )
    method = args.method
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
        "seed": seed,
    }
    if method == "exact":
        if args.trials is not None:
            raise InvalidParameterError("--trials applies to the Monte-Carlo audit; add --method monte-carlo")
        return {**base, **_exact_fields(exact_check(case, version))}
    if args.trials is not None:
        trials, selection, sizing = args.trials, args.trials, "given by --trials"
    elif case.exact_faulty is not None:
        plan = monte_carlo_plan(case, power=_POWER, alpha=alpha)
        trials, selection = plan.trials, plan.selection_trials
        sizing = (
            f"sized to catch the faulty version: an event of {plan.size} outcome(s) with p1={plan.p1:.4g}, "
            f"p2={plan.p2:.4g} in the exact laws, power {plan.power} at alpha={alpha:g}"
        )
    else:
        trials, sizing = _default_trials(case.epsilon, case.delta, alpha)
        selection = trials
    seconds, _ = _time_runs(case.mechanism(version), case.d, seed)
    progress = _Progress("audit")
    executor = _executor(args.workers)
    try:
        result = monte_carlo_check(
            case, version, seed=seed, trials=trials, selection_trials=selection, alpha=alpha,
            executor=executor, chunk=_chunk(seconds), progress=progress,
        )
    finally:
        progress.close()
        if executor is not None:
            executor.shutdown()
    return {**base, **monte_carlo_fields(result, sizing, seconds)}


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


def _number(x: float) -> Any:
    """Floats for JSON: infinities as strings, since JSON has none."""
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def monte_carlo_fields(result: AuditResult, sizing: str, seconds_per_run: float) -> Dict[str, Any]:
    """The report fields of a Monte-Carlo audit, shared by `audit` and `audit-cmd`."""
    p_design = _target_event(Fraction(result.epsilon))
    design = detectable_epsilon(
        result.trials, Fraction(result.epsilon), p_design, power=_POWER, alpha=result.alpha, delta=result.delta
    )
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
        "sizing": sizing,
        "seconds_per_run": seconds_per_run,
        "wall_time": result.wall_time,
    }


# --- registry algorithms ------------------------------------------------------------------------


def _parse_record(data: Dataset, text: str, flag: str) -> Record:
    """A record given as ``V1,...,CLASS`` raw values, validated against the schema."""
    cells = [cell.strip() for cell in text.split(",")]
    width = data.schema.n_attributes + 1
    if len(cells) != width:
        raise InvalidParameterError(
            f"{flag}: a record needs {width} comma-separated values (the attributes "
            f"{', '.join(data.schema.names)} and the class), got {len(cells)}"
        )
    row = Dataset.from_rows(data.schema, [cells[:-1]], [cells[-1]])
    return record_of(row, 0)


def _row_index(d: Dataset, text: str, flag: str) -> int:
    try:
        i = int(text)
    except ValueError:
        raise InvalidParameterError(f"{flag}: the row must be an integer, got {text!r}") from None
    if not 0 <= i < len(d):
        raise InvalidParameterError(f"{flag}: D has rows 0..{len(d) - 1}, got {i}")
    return i


@dataclass(frozen=True)
class _Neighbour:
    description: str
    d_prime: Dataset
    probe: Record


def _given_neighbour(d: Dataset, relation: Relation, text: str) -> _Neighbour:
    flag = f"--neighbour {text}"
    kind, _, rest = text.partition(":")
    schema = d.schema
    if kind == "remove" and relation is Relation.ADD_REMOVE:
        i = _row_index(d, rest, flag)
        record = record_of(d, i)
        return _Neighbour(f"remove row {i} {record.describe(schema)}", remove_row(d, i), record)
    if kind == "add" and relation is Relation.ADD_REMOVE:
        record = _parse_record(d, rest, flag)
        return _Neighbour(f"add {record.describe(schema)}", add_record(d, record), record)
    if kind == "replace" and relation is Relation.SUBSTITUTE:
        index, _, values = rest.partition(":")
        i = _row_index(d, index, flag)
        record = _parse_record(d, values, flag)
        old = record_of(d, i)
        if record == old:
            raise InvalidParameterError(f"{flag}: the new record equals row {i}; that is D itself")
        return _Neighbour(
            f"replace row {i} {old.describe(schema)} by {record.describe(schema)}", replace_row(d, i, record), record
        )
    allowed = "remove:I or add:V1,...,CLASS" if relation is Relation.ADD_REMOVE else "replace:I:V1,...,CLASS"
    raise InvalidParameterError(f"{flag}: under {relation.value} give search, {allowed}")


def _candidates(data: Dataset, d: Dataset, rows: Sequence[int], relation: Relation, seed: int) -> List[_Neighbour]:
    """A handful of neighbours of ``D``, drawn with their own stream of ``seed``.

    Under add-remove: removals of rows of ``D`` and additions of rows of the
    data outside ``D``; under substitute: rows of ``D`` replaced by such rows.
    The last two come from the whole record universe
    (:func:`refdp.audit.random_neighbour`), where outliers live.
    """
    rng = random.Random(f"refdp-audit-neighbours-{seed}")
    taken = set(rows)
    outside = [i for i in range(len(data)) if i not in taken]
    schema = d.schema
    found: List[_Neighbour] = []
    for k in range(_CANDIDATES):
        if k >= _CANDIDATES - 2 or not outside:
            description, d_prime = random_neighbour(d, relation, rng)
            found.append(_Neighbour(description, d_prime, _changed(d, d_prime)))
        elif relation is Relation.ADD_REMOVE and k % 2 == 0:
            i = rng.randrange(len(d))
            record = record_of(d, i)
            found.append(_Neighbour(f"remove row {i} {record.describe(schema)}", remove_row(d, i), record))
        elif relation is Relation.ADD_REMOVE:
            record = record_of(data, rng.choice(outside))
            found.append(_Neighbour(f"add {record.describe(schema)}", add_record(d, record), record))
        else:
            i = rng.randrange(len(d))
            record, old = record_of(data, rng.choice(outside)), record_of(d, i)
            if record != old:
                found.append(_Neighbour(
                    f"replace row {i} {old.describe(schema)} by {record.describe(schema)}",
                    replace_row(d, i, record),
                    record,
                ))
    return found


def _changed(d: Dataset, d_prime: Dataset) -> Record:
    """The probe: the record added or substituted in ``d_prime``, or the one removed from ``d``."""
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


def _target_event(epsilon: Fraction) -> float:
    """The design event probability: 0.1, or less where e^{2 epsilon} p would exceed 1/2."""
    return min(0.1, math.exp(-2 * float(epsilon)) / 2)


def _default_trials(epsilon: Fraction, delta: Fraction, alpha: float) -> Tuple[int, str]:
    true = 2 * float(epsilon)
    p_event = _target_event(epsilon)
    n = required_trials(true, epsilon, p_event, power=_POWER, alpha=alpha, delta=delta)
    return n, f"detect a true epsilon of {true:g} at event probability {p_event:.4g}, power {_POWER}"


def _audit_registry(args: argparse.Namespace, alpha: float, seed: int) -> Dict[str, Any]:
    spec = get_algorithm(args.algorithm)
    if args.method == "exact":
        raise InvalidParameterError(
            "--method exact is for planted cases; a registry algorithm is audited by the Monte-Carlo audit"
        )
    if args.data is None:
        raise InvalidParameterError("--data is required for a registry algorithm (a built-in name or a file)")
    if args.epsilon is None:
        raise InvalidParameterError("--epsilon is required for a registry algorithm: the claim to audit")
    epsilon = as_epsilon(args.epsilon)
    delta = as_delta(args.delta if args.delta is not None else 0)
    relation = parse_relation(args.relation if args.relation is not None else "add-remove")
    params = spec.resolve(_params(args.param or []))
    schema = read_schema(args.schema) if args.schema else None
    data = load(args.data, label=args.label, schema=schema)
    n_rows = args.rows if args.rows is not None else min(DEFAULT_ROWS, len(data))
    if n_rows > len(data):
        raise InvalidParameterError(f"--rows {n_rows}: {args.data} has only {len(data)} rows")
    rows = sorted(random.Random(seed).sample(range(len(data)), n_rows))
    d = data.subset(rows)
    output = args.output or "counts"
    given = None if args.neighbour in (None, "search") else _given_neighbour(d, relation, args.neighbour)
    mechanism = RegistryMechanism(spec.name, epsilon, tuple(sorted(params.items())), relation)
    seconds, model = _time_runs(mechanism, d, seed)
    receipt = model.receipt

    if args.trials is not None:
        trials, sizing = args.trials, "given by --trials"
    else:
        trials, sizing = _default_trials(epsilon, delta, alpha)
        affordable = int(_BUDGET_SECONDS / (4 * max(seconds, 1e-9)))
        if affordable < _MIN_TRIALS:
            raise InvalidParameterError(
                f"one run of {spec.name} on {n_rows} rows takes {seconds:.2f} s, so even {_MIN_TRIALS} runs per "
                f"side would take about {4 * _MIN_TRIALS * seconds / 60:.0f} min; pass --trials N to run it "
                "anyway, or audit a smaller model (--rows, --param)"
            )
        if affordable < trials:
            sizing += f"; capped from {trials} to {affordable} runs per side by the time budget (use --trials)"
            trials = affordable
    chunk = _chunk(seconds)
    executor = _executor(args.workers)
    try:
        if given is not None:
            chosen, search_note = given, "given by --neighbour"
        else:
            chosen, search_note = _search(data, d, rows, relation, seed, mechanism, output, epsilon, delta,
                                          alpha, trials, seconds, chunk, executor)
        reduce, thresholds = _reduction(output, chosen.probe)
        progress = _Progress("audit")
        try:
            result = monte_carlo_audit(
                mechanism, d, chosen.d_prime, epsilon=epsilon, delta=delta, trials=trials, alpha=alpha,
                seed=seed, reduce=reduce, threshold_events=thresholds, executor=executor, chunk=chunk,
                progress=progress,
            )
        finally:
            progress.close()
    finally:
        if executor is not None:
            executor.shutdown()
    return {
        "algorithm": spec.name,
        "description": spec.summary,
        "params": {k: v for k, v in sorted(params.items())},
        "data": args.data,
        "rows": n_rows,
        "epsilon": str(epsilon),
        "delta": str(delta),
        "relation": relation.value,
        "seed": seed,
        "neighbour": chosen.description,
        "neighbour_choice": search_note,
        "output": output,
        "receipt": f"epsilon={receipt.epsilon} delta={receipt.delta} (level {receipt.level})",
        **monte_carlo_fields(result, sizing, seconds),
    }


def _search(
    data: Dataset, d: Dataset, rows: Sequence[int], relation: Relation, seed: int,
    mechanism: RegistryMechanism, output: str, epsilon: Fraction, delta: Fraction, alpha: float,
    trials: int, seconds: float, chunk: int, executor: Optional[concurrent.futures.Executor],
) -> Tuple[_Neighbour, str]:
    """The candidate whose pilot audit gives the largest bound (then point estimate).

    The pilot runs use seeds drawn from a stream separate from the audit's,
    so the final test batch is fresh and the final bound stays valid.
    """
    candidates = _candidates(data, d, rows, relation, seed)
    per_side = min(trials // 5, int(_BUDGET_SECONDS / 3 / (4 * len(candidates) * max(seconds, 1e-9))))
    if per_side < _MIN_PILOT:
        return candidates[0], (
            f"the first of {len(candidates)} candidates, without a pilot: {_MIN_PILOT} pilot runs per side "
            f"would not fit the time budget at {seconds:.2f} s per run (pass --neighbour to choose)"
        )
    pilot_seeds = random.Random(f"refdp-audit-pilot-{seed}")
    progress = _Progress("pilot")
    best: Optional[Tuple[Tuple[float, float], _Neighbour]] = None
    total = len(candidates) * 4 * per_side
    try:
        for k, candidate in enumerate(candidates):
            reduce, thresholds = _reduction(output, candidate.probe)

            def step(done: int, _: int, before: int = k * 4 * per_side) -> None:
                progress(before + done, total)

            result = monte_carlo_audit(
                mechanism, d, candidate.d_prime, epsilon=epsilon, delta=delta, trials=per_side, alpha=alpha,
                seed=pilot_seeds.getrandbits(64), reduce=reduce, threshold_events=thresholds,
                executor=executor, chunk=chunk, progress=step,
            )
            score = (result.lower_bound, result.point_estimate)
            if best is None or score > best[0]:
                best = (score, candidate)
    finally:
        progress.close()
    assert best is not None  # _CANDIDATES > 0 and every candidate is audited
    note = (
        f"searched: the best of {len(candidates)} candidates by a pilot audit of {per_side} runs per side and "
        f"batch each, on seeds separate from the audit's (the test batch is fresh, so the bound stays valid)"
    )
    return best[1], note


# --- rendering ------------------------------------------------------------------------------------


def _fmt(x: Any) -> str:
    return f"{x:.4f}" if isinstance(x, float) else str(x)


def render_report(r: Dict[str, Any]) -> str:
    """The text form of an audit report (the `--json` fields, for a reader)."""
    lines = [f"audit of {r['algorithm']}: {r.get('description', '')}".rstrip(": ")]
    if "params" in r:
        params = ", ".join(f"{k}={v}" for k, v in r["params"].items())
        lines.append(f"data: {r['rows']} rows of {r['data']} drawn with seed {r['seed']}; params: {params}")
        lines.append(f"receipt of one model on D: {r['receipt']}")
    else:
        lines.append(f"data: {r['data']}")
    lines.append(f"claim: epsilon={r['epsilon']} delta={r['delta']} under {r['relation']}")
    lines.append(f"pair: {r['neighbour']}")
    if "neighbour_choice" in r:
        lines.append(f"neighbour: {r['neighbour_choice']}")
    if "output" in r:
        lines.append(f"outcome: {r['output']}")
    if r["method"] == "exact":
        lines.append(
            f"check: exact (every outcome enumerated: {r['outcomes'][0]} on D, {r['outcomes'][1]} on D'; no runs)"
        )
        if r["only_in"] is not None:
            lines.append(
                f"verdict: REFUTED: the supports differ; outcome {r['outcome']} is possible on {r['only_in']} "
                "only, so no finite epsilon holds"
            )
        elif r["verdict"] == "refuted":
            lines.append(
                f"verdict: REFUTED: exact max log-ratio {_fmt(r['max_log_ratio'])} > claimed epsilon "
                f"{r['epsilon']} at outcome {r['outcome']}"
            )
        else:
            lines.append(
                f"verdict: NOT REFUTED: exact max log-ratio {_fmt(r['max_log_ratio'])} <= claimed epsilon "
                f"{r['epsilon']} (at outcome {r['outcome']}): the claim holds on this pair"
            )
        lines.append(f"seed: {r['seed']} (not used); wall time {r['wall_time']:.3f} s")
        return "\n".join(lines)
    lines.append(
        f"check: Monte-Carlo, {r['selection_trials']} selection + {r['trials']} test runs per side "
        f"({r['runs']} runs, {r['seconds_per_run'] * 1000:.2f} ms each), alpha={r['alpha']:g}; {r['sizing']}"
    )
    lines.append(f"event: {r['event']}")
    lines.append(f"counts: {r['direction']}: k1={r['k1']}/{r['n1']}, k2={r['k2']}/{r['n2']}")
    if r["verdict"] == "refuted":
        lines.append(
            f"verdict: REFUTED: certified lower bound {_fmt(r['lower_bound'])} > claimed epsilon {r['epsilon']} "
            f"(point estimate {_fmt(r['point_estimate'])}; wrong with probability <= {r['alpha']:g})"
        )
    else:
        observed = (
            f"; at the chosen event's probability, {_fmt(r['detectable_epsilon'])} or more"
            if r["detectable_epsilon"] != "inf" else ""
        )
        lines.append(
            f"verdict: NOT REFUTED: certified lower bound {_fmt(r['lower_bound'])} <= claimed epsilon "
            f"{r['epsilon']} (point estimate {_fmt(r['point_estimate'])})"
        )
        lines.append(
            f"power: these runs detect, with probability {_POWER}, a true epsilon of "
            f"{_fmt(r['detectable_epsilon_design'])} or more on an event of probability "
            f"{r['design_event_probability']:.4g}{observed}"
        )
    lines.append(f"seed: {r['seed']} (replay with --seed {r['seed']}); wall time {r['wall_time']:.2f} s")
    return "\n".join(lines)
