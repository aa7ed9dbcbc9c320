"""``audit``: refute a DP claim on data, or say what the run could have detected.

``python3 -m refdp audit --algorithm NAME ...`` audits

* a registry algorithm (``NAME`` as in ``python3 -m refdp algorithms``):
  ``D`` is ``--rows`` rows of ``--data`` drawn with ``--seed`` and ``D'``
  the neighbour given by ``--neighbour``, the model reduced by ``--output``;
  without them a pilot on separate seeds searches shaped pairs and views
  (:mod:`refdp.audit.search`) and the best one is tested on fresh runs
  (:func:`refdp.audit.learner.audit_learner`; ``docs/audit.md``);
* a planted case, ``planted:CASE`` (the faulty mechanism) or
  ``correct:CASE`` (its fix), on the case's own pair: exactly when the
  case has exact laws (``--method auto``, the default), else -- or with
  ``--method monte-carlo`` -- by the Monte-Carlo audit
  (:func:`refdp.audit.planted.audit_planted`).

The verdict is REFUTED with the certified lower bound (or the exact
log-ratio, or the differing supports), or NOT REFUTED with the violation the
run could have detected.  Bad input raises a refdp error, which the CLI
prints as one line.
"""

from __future__ import annotations

import argparse
import json
import secrets
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Dict, Tuple

from refdp.cli._args import (
    MAX_JOBS,
    MAX_RUNS,
    RELATIONS,
    add_data_arguments,
    add_param_argument,
    check_positive,
    integer,
    load_data,
    number,
    parse_params,
)
from refdp.cli._command import Command
from refdp.cli._progress import Phases
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation, as_budget, as_delta, as_epsilon, parse_relation

if TYPE_CHECKING:
    # The audit package loads only when the audit runs (or shows its options): see refdp.cli.
    from refdp.algorithms import Param
    from refdp.audit.learner import LearnerAudit
    from refdp.audit.neighbours import Record
    from refdp.audit.pair import Neighbour
    from refdp.audit.planted import PlantedAudit
    from refdp.data import Dataset
    from refdp.rng import RandomSource
    from refdp.tree import TreeModel

__all__ = ["COMMAND", "DEFAULT_ROWS", "RegistryMechanism", "render_report"]

DEFAULT_ROWS = 40
"""Rows of ``D`` for a registry algorithm, unless ``--rows`` says otherwise."""


def _add_arguments(p: argparse.ArgumentParser) -> None:
    from refdp.audit.executors import EXECUTOR_HELP
    from refdp.audit.learner import OUTPUTS
    from refdp.audit.planted import METHODS
    from refdp.audit.views import VIEWS

    p.add_argument("--algorithm", default=None, help="registry algorithm, planted:CASE or correct:CASE")
    p.add_argument("--list-planted", action="store_true", help="list the planted cases and exit")
    add_data_arguments(p, required=False)
    p.add_argument("--epsilon", default=None, help="the claimed epsilon, e.g. 1 or 1/2")
    p.add_argument("--delta", default=None, help="the claimed delta (default: the delta the model's receipt states)")
    p.add_argument("--relation", default=None, choices=RELATIONS, help="add-remove (default) or substitute")
    add_param_argument(p)
    p.add_argument("--rows", type=integer, default=None, help=f"rows of D drawn from the data (default {DEFAULT_ROWS})")
    p.add_argument(
        "--neighbour",
        default=None,
        help="search (default), remove:I, add:V1,...,CLASS or replace:I:V1,...,CLASS (I a row of D, from 0)",
    )
    p.add_argument(
        "--output", default=None, choices=OUTPUTS + tuple(v for v in VIEWS if v not in OUTPUTS),
        help="how a model is reduced (default: the search tries every view)",
    )
    p.add_argument(
        "--method", default="auto", choices=METHODS,
        help="planted cases: exact laws when they exist (auto), or the Monte-Carlo audit",
    )
    p.add_argument("--trials", type=integer, default=None, help="test runs per side (default: sized for power)")
    p.add_argument(
        "--pilot-runs", type=integer, default=None,
        help="the search's first-round runs per side and pair (default: sized from one run's time; "
        "the report's replay line gives the value used)",
    )
    p.add_argument("--alpha", default="1e-6", help="false-alarm probability of the audit (default 1e-6)")
    p.add_argument("--seed", type=integer, default=None, help="seed (default: drawn, and printed for replay)")
    p.add_argument("--workers", type=integer, default=1, help="processes for the runs (default 1: inline)")
    p.add_argument("--executor", default="process", metavar="SPEC", help=EXECUTOR_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")


@dataclass(frozen=True)
class RegistryMechanism:
    """Train registry algorithm ``name`` (picklable, for process pools)."""

    name: str
    epsilon: Fraction
    params: Tuple[Tuple[str, Param], ...]
    relation: Relation

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        from refdp.algorithms import get_algorithm

        return get_algorithm(self.name).fit(data, self.epsilon, dict(self.params), rng, self.relation)


def _alpha(text: str) -> float:
    try:
        value = number(text)
    except ValueError:
        raise InvalidParameterError(f"--alpha must be a number in (0, 1) such as 1e-6, got {text!r}") from None
    if not 0 < value < 1:
        raise InvalidParameterError(f"--alpha must be in (0, 1), got {text!r}")
    return value


def _run(args: argparse.Namespace) -> int:
    """Run the ``audit`` subcommand; the exit status is 0 (not refuted), 1 (refuted) or 2 (bad input)."""
    from refdp.audit.executors import check_executor_spec
    from refdp.audit.learner import audit_learner
    from refdp.audit.planted import audit_planted

    if args.list_planted:
        return _list_planted(args)
    if not args.algorithm:
        raise InvalidParameterError("--algorithm is required (or --list-planted); see `audit --help`")
    alpha = _alpha(args.alpha)
    check_positive(args.trials, "--trials", MAX_RUNS)
    check_positive(args.pilot_runs, "--pilot-runs", MAX_RUNS)
    check_positive(args.rows, "--rows")
    check_positive(args.workers, "--workers", MAX_JOBS)
    check_executor_spec(args.executor)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    kind, sep, name = args.algorithm.partition(":")
    progress = Phases()
    try:
        if sep:
            if kind not in ("planted", "correct"):
                raise InvalidParameterError(
                    f"--algorithm {args.algorithm!r}: the prefix must be planted: or correct:, got {kind!r}:"
                )
            report = audit_planted(_planted_request(args, name, kind, alpha, seed), progress)
        else:
            report = audit_learner(_registry_request(args, alpha, seed), progress)
    finally:
        progress.close()
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(render_report(report))
    return 1 if report["verdict"] == "refuted" else 0


def _list_planted(args: argparse.Namespace) -> int:
    from refdp.audit.planted import get_case, planted_names

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


# --- planted cases ----------------------------------------------------------------------------


def _planted_request(args: argparse.Namespace, name: str, kind: str, alpha: float, seed: int) -> PlantedAudit:
    from refdp.audit.planted import PlantedAudit, get_case

    case = get_case(name)
    for flag, value in (("--rows", args.rows), ("--param", args.param or None), ("--output", args.output),
                        ("--pilot-runs", args.pilot_runs),
                        ("--neighbour", args.neighbour), ("--label", args.label), ("--schema", args.schema),
                        ("--bounds", args.bounds or None), ("--missing", args.missing)):
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
    version = "faulty" if kind == "planted" else "correct"
    return PlantedAudit(case, version, seed, args.method, args.trials, alpha, args.workers, args.executor)


# --- registry algorithms ------------------------------------------------------------------------


def _registry_request(args: argparse.Namespace, alpha: float, seed: int) -> LearnerAudit:
    from refdp.algorithms import get_algorithm
    from refdp.audit.learner import LearnerAudit
    from refdp.audit.pair import draw_rows

    spec = get_algorithm(args.algorithm)
    if args.method == "exact":
        raise InvalidParameterError(
            "--method exact is for planted cases; a registry algorithm is audited by the Monte-Carlo audit"
        )
    if args.data is None:
        raise InvalidParameterError("--data is required for a registry algorithm (a built-in name or a file)")
    if args.epsilon is None:
        raise InvalidParameterError("--epsilon is required for a registry algorithm: the claim to audit")
    epsilon = as_budget(args.epsilon)
    delta = None if args.delta is None else as_delta(args.delta)
    relation = parse_relation(args.relation if args.relation is not None else "add-remove")
    params = spec.resolve(parse_params(args.param))
    data = load_data(args)
    n_rows = args.rows if args.rows is not None else min(DEFAULT_ROWS, len(data))
    if n_rows > len(data):
        raise InvalidParameterError(f"--rows {n_rows}: {args.data} has only {len(data)} rows")
    rows = tuple(draw_rows(len(data), n_rows, seed))
    given = None
    if args.neighbour not in (None, "search"):
        given = _given_neighbour(data.subset(list(rows)), relation, args.neighbour)
    return LearnerAudit(
        learner=RegistryMechanism(spec.name, epsilon, tuple(sorted(params.items())), relation),
        name=spec.name,
        description=spec.summary,
        params=params,
        data=data,
        data_name=args.data,
        rows=rows,
        epsilon=epsilon,
        delta=delta,
        relation=relation,
        seed=seed,
        neighbour=given,
        output=args.output,
        trials=args.trials,
        alpha=alpha,
        workers=args.workers,
        executor=args.executor,
        pilot_runs=args.pilot_runs,
    )


def _parse_record(data: Dataset, text: str, flag: str) -> Record:
    """A record given as ``V1,...,CLASS`` raw values, validated against the schema."""
    from refdp.audit.neighbours import record_of
    from refdp.data import Dataset

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
        i = integer(text)
    except ValueError:
        raise InvalidParameterError(f"{flag}: the row must be an integer, got {text!r}") from None
    if not 0 <= i < len(d):
        raise InvalidParameterError(f"{flag}: D has rows 0..{len(d) - 1}, got {i}")
    return i


def _given_neighbour(d: Dataset, relation: Relation, text: str) -> Neighbour:
    from refdp.audit.neighbours import record_of
    from refdp.audit.pair import addition, removal, substitution

    flag = f"--neighbour {text}"
    kind, _, rest = text.partition(":")
    if kind == "remove" and relation is Relation.ADD_REMOVE:
        return removal(d, _row_index(d, rest, flag))
    if kind == "add" and relation is Relation.ADD_REMOVE:
        return addition(d, _parse_record(d, rest, flag))
    if kind == "replace" and relation is Relation.SUBSTITUTE:
        index, _, values = rest.partition(":")
        i = _row_index(d, index, flag)
        record = _parse_record(d, values, flag)
        if record == record_of(d, i):
            raise InvalidParameterError(f"{flag}: the new record equals row {i}; that is D itself")
        return substitution(d, i, record)
    allowed = "remove:I or add:V1,...,CLASS" if relation is Relation.ADD_REMOVE else "replace:I:V1,...,CLASS"
    raise InvalidParameterError(f"{flag}: under {relation.value} give search, {allowed}")


# --- rendering ------------------------------------------------------------------------------------


def _fmt(x: Any) -> str:
    return f"{x:.4f}" if isinstance(x, float) else str(x)


def render_report(r: Dict[str, Any]) -> str:
    """The text form of an audit report (the `--json` fields, for a reader)."""
    from refdp.audit.sample_size import DEFAULT_POWER

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
    # Outside the two-limit test the test runs' sides are fair coins, so a side holds about, not exactly, trials.
    sides = "" if r["test"] == "clopper-pearson" else f", sides by fair coins: {r['n1']} + {r['n2']}"
    lines.append(
        f"check: Monte-Carlo ({r['test']} test), {r['selection_trials']} selection + {r['trials']} test runs "
        f"per side{sides} ({r['runs']} runs, {r['seconds_per_run'] * 1000:.2f} ms each), alpha={r['alpha']:g}; "
        f"{r['sizing']}"
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
            f"power: these runs detect, with probability {DEFAULT_POWER}, a true epsilon of "
            f"{_fmt(r['detectable_epsilon_design'])} or more on an event of probability "
            f"{r['design_event_probability']:.4g}{observed}"
        )
    replay = r.get("replay", f"--seed {r['seed']}")
    # wall_time is the test's runs; a search's pilot ran before them.
    timing = (
        f"wall time {r['pilot_seconds'] + r['wall_time']:.2f} s (search {r['pilot_seconds']:.2f} s, "
        f"test {r['wall_time']:.2f} s)" if "pilot_seconds" in r else f"wall time {r['wall_time']:.2f} s"
    )
    lines.append(f"seed: {r['seed']} (replay exactly with {replay}); {timing}")
    return "\n".join(lines)


COMMAND = Command(
    "audit",
    "audit a DP claim on a data set and a neighbour: refuted (with a certified bound) or not",
    _add_arguments,
    _run,
    description=(
        "Audit the claim that an algorithm is (epsilon, delta)-DP on a data set and a neighbour. "
        "NAME is a registry algorithm, or planted:CASE / correct:CASE from the catalogue of "
        "planted faults (--list-planted). Without --neighbour and --output the audit searches shaped data sets, "
        "neighbours and views of the model on a pilot, then tests the best event on fresh runs. "
        "Exit status: 0 not refuted, 1 refuted, 2 bad input."
    ),
)
