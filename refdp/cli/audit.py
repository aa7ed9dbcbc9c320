"""``audit``: refute a DP claim on data, or say what the run could have detected.

``python3 -m refdp audit --algorithm NAME ...`` audits

* a registry algorithm (``NAME`` as in ``python3 -m refdp algorithms``),
  by up to three methods in turn (``--method auto``, the default), or the
  one ``--method`` names:

  - ``replay``: record every mechanism call on ``D``, replay on ``D'`` with
    the outputs frozen, for ``--pairs`` pairs (shaped, random, small;
    :func:`refdp.audit.replay_audit.audit_replay`);
  - ``exact``: enumerate the learner's law on small data sets
    (:func:`refdp.audit.exact_audit.audit_exact`);
  - ``monte-carlo``: ``D`` is ``--rows`` rows of ``--data`` drawn with
    ``--seed`` and ``D'`` the neighbour given by ``--neighbour``, the model
    reduced by ``--output``; without them a pilot on separate seeds
    searches shaped pairs and views (:mod:`refdp.audit.search`) and the
    best one is tested on fresh runs
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
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

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
    from refdp.audit.exact_audit import ExactAudit
    from refdp.audit.learner import LearnerAudit
    from refdp.audit.neighbours import Record
    from refdp.audit.pair import Neighbour
    from refdp.audit.planted import PlantedAudit
    from refdp.audit.replay_audit import ReplayAudit
    from refdp.data import Dataset
    from refdp.rng import RandomSource
    from refdp.tree import TreeModel

__all__ = ["AUTO_PAIRS", "COMMAND", "DEFAULT_ROWS", "METHODS", "RegistryMechanism", "render_report"]

DEFAULT_ROWS = 40
"""Rows of ``D`` for a registry algorithm, unless ``--rows`` says otherwise."""

METHODS = ("auto", "replay", "exact", "monte-carlo")
"""``--method``: ``auto`` runs replay, then exact enumeration where it applies, then Monte Carlo."""

AUTO_PAIRS = 1000
"""Pairs the replay of ``--method auto`` checks before the other methods (``--pairs`` overrides)."""

AUTO_EXACT_BUDGET = 5000
"""Runs ``--method auto`` gives exact enumeration: it applies when the whole law fits in them."""


def _add_arguments(p: argparse.ArgumentParser) -> None:
    from refdp.audit.executors import EXECUTOR_HELP
    from refdp.audit.learner import OUTPUTS
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
        help="auto (default): registry algorithms by replay, then exact enumeration where it applies, then "
        "Monte Carlo; planted cases by their exact laws when they exist, else Monte Carlo",
    )
    p.add_argument(
        "--pairs", type=integer, default=None,
        help=f"replay: pairs of neighbouring data sets to replay (default {AUTO_PAIRS} under auto; "
        "see docs/audit.md for --method replay)",
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
    from refdp.audit.planted import audit_planted

    if args.list_planted:
        return _list_planted(args)
    if not args.algorithm:
        raise InvalidParameterError("--algorithm is required (or --list-planted); see `audit --help`")
    alpha = _alpha(args.alpha)
    check_positive(args.trials, "--trials", MAX_RUNS)
    check_positive(args.pilot_runs, "--pilot-runs", MAX_RUNS)
    check_positive(args.pairs, "--pairs", MAX_RUNS)
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
            report = _audit_registry(args, alpha, seed, progress)
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
    if args.method == "replay" or args.pairs is not None:
        raise InvalidParameterError(
            "--method replay and --pairs apply to registry algorithms (planted cases do not call refdp.mechanisms); "
            "drop them"
        )
    version = "faulty" if kind == "planted" else "correct"
    return PlantedAudit(case, version, seed, args.method, args.trials, alpha, args.workers, args.executor)


# --- registry algorithms ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Registry:
    """What every method of a registry audit shares: the learner, the data, the claim and the pair."""

    learner: RegistryMechanism
    name: str
    description: str
    params: Dict[str, "Param"]
    data: "Dataset"
    data_name: str
    epsilon: Fraction
    delta: Optional[Fraction]
    relation: Relation


def _registry(args: argparse.Namespace) -> _Registry:
    from refdp.algorithms import get_algorithm

    spec = get_algorithm(args.algorithm)
    if args.data is None:
        raise InvalidParameterError("--data is required for a registry algorithm (a built-in name or a file)")
    if args.epsilon is None:
        raise InvalidParameterError("--epsilon is required for a registry algorithm: the claim to audit")
    epsilon = as_budget(args.epsilon)
    delta = None if args.delta is None else as_delta(args.delta)
    relation = parse_relation(args.relation if args.relation is not None else "add-remove")
    params = spec.resolve(parse_params(args.param))
    data = load_data(args)
    return _Registry(
        RegistryMechanism(spec.name, epsilon, tuple(sorted(params.items())), relation), spec.name, spec.summary,
        params, data, args.data, epsilon, delta, relation,
    )


def _rows(args: argparse.Namespace, data: "Dataset", default: int, seed: int) -> Tuple[int, ...]:
    from refdp.audit.pair import draw_rows

    n_rows = args.rows if args.rows is not None else min(default, len(data))
    if n_rows > len(data):
        raise InvalidParameterError(f"--rows {n_rows}: {args.data} has only {len(data)} rows")
    return tuple(draw_rows(len(data), n_rows, seed))


def _given(args: argparse.Namespace, registry: _Registry, rows: Tuple[int, ...]) -> Optional["Neighbour"]:
    if args.neighbour in (None, "search"):
        return None
    return _given_neighbour(registry.data.subset(list(rows)), registry.relation, args.neighbour)


def _audit_registry(args: argparse.Namespace, alpha: float, seed: int, progress: Phases) -> Dict[str, Any]:
    """The methods ``--method`` asks for, in turn: the first refutation ends the audit."""
    from refdp.audit.exact_audit import audit_exact
    from refdp.audit.learner import audit_learner, check_request
    from refdp.audit.replay_audit import audit_replay

    registry = _registry(args)
    method = args.method
    only_monte_carlo = ("--trials", args.trials), ("--pilot-runs", args.pilot_runs), ("--output", args.output)
    if method in ("replay", "exact"):
        for flag, value in only_monte_carlo + (("--alpha", None if args.alpha == "1e-6" else args.alpha),):
            if value is not None:
                raise InvalidParameterError(f"{flag} applies to the Monte-Carlo audit; drop it or use --method monte-carlo")
    if method == "exact" and args.pairs is not None:
        raise InvalidParameterError("--pairs applies to the replay; drop it or use --method replay")
    if method == "monte-carlo" and args.pairs is not None:
        raise InvalidParameterError("--pairs applies to the replay; drop it or use --method replay or auto")
    if method == "replay":
        return audit_replay(_replay_request(args, registry, seed, args.pairs), progress)
    if method == "exact":
        return audit_exact(_exact_request(args, registry, seed), progress)
    if method == "monte-carlo":
        return audit_learner(_registry_request(args, registry, alpha, seed), progress)
    monte_carlo = _registry_request(args, registry, alpha, seed)
    check_request(monte_carlo)  # its flags are checked before the replay runs
    replay = audit_replay(_replay_request(args, registry, seed, args.pairs or AUTO_PAIRS), progress)
    if replay["verdict"] == "refuted":
        return replay
    exact = _auto_exact(args, registry, seed, progress)
    if exact is not None and exact["verdict"] == "refuted":
        return exact
    report = audit_learner(monte_carlo, progress)
    report["replay_pairs"] = replay["pairs"]
    report["replay_calls"] = replay["calls"]
    report["exact"] = "did not apply" if exact is None else (
        f"not refuted: the law of the released model on {exact['neighbour']} has certified loss "
        f"{_fmt(exact['loss'])}"
    )
    return report


def _auto_exact(args: argparse.Namespace, registry: _Registry, seed: int, progress: Phases) -> Optional[Dict[str, Any]]:
    """The exact audit when the learner's whole law on one small pair fits :data:`AUTO_EXACT_BUDGET` runs, else None."""
    import dataclasses

    from refdp.audit.exact_audit import audit_exact

    request = dataclasses.replace(
        _exact_request(args, registry, seed, flags=False), budget=AUTO_EXACT_BUDGET, candidates=1
    )
    try:
        report = audit_exact(request, progress)
    except InvalidParameterError:
        return None  # a mechanism with no finite law (continuous Laplace noise, an MCMC chain)
    return report if report["complete"] else None


def _replay_request(args: argparse.Namespace, registry: _Registry, seed: int, pairs: Optional[int]) -> "ReplayAudit":
    from refdp.audit.replay_audit import DEFAULT_PAIRS, ReplayAudit
    from refdp.audit.search import size_thresholds

    rows = _rows(args, registry.data, DEFAULT_ROWS, seed)
    return ReplayAudit(
        learner=registry.learner, name=registry.name, description=registry.description, params=registry.params,
        data=registry.data, data_name=registry.data_name, rows=rows, epsilon=registry.epsilon,
        relation=registry.relation, seed=seed, pairs=pairs if pairs is not None else DEFAULT_PAIRS,
        sizes=size_thresholds(registry.params), neighbour=_given(args, registry, rows),
    )


def _exact_request(args: argparse.Namespace, registry: _Registry, seed: int, flags: bool = True) -> "ExactAudit":
    """The exact audit; with ``flags`` False (under auto) --rows and --neighbour, meant for the others, are not used."""
    from refdp.audit.exact_audit import DEFAULT_EXACT_ROWS, ExactAudit
    from refdp.audit.pair import draw_rows

    rows = _rows(args, registry.data, DEFAULT_EXACT_ROWS, seed) if flags else tuple(
        draw_rows(len(registry.data), min(DEFAULT_EXACT_ROWS, len(registry.data)), seed)
    )
    delta = registry.delta
    if delta is None:
        import random

        delta = registry.learner(registry.data.subset(list(rows)), random.Random(seed)).receipt.delta
    return ExactAudit(
        learner=registry.learner, name=registry.name, description=registry.description, params=registry.params,
        data=registry.data, data_name=registry.data_name, rows=rows, epsilon=registry.epsilon, delta=delta,
        relation=registry.relation, seed=seed, neighbour=_given(args, registry, rows) if flags else None,
    )


def _registry_request(args: argparse.Namespace, registry: _Registry, alpha: float, seed: int) -> "LearnerAudit":
    from refdp.audit.learner import LearnerAudit

    rows = _rows(args, registry.data, DEFAULT_ROWS, seed)
    return LearnerAudit(
        learner=registry.learner,
        name=registry.name,
        description=registry.description,
        params=registry.params,
        data=registry.data,
        data_name=registry.data_name,
        rows=rows,
        epsilon=registry.epsilon,
        delta=registry.delta,
        relation=registry.relation,
        seed=seed,
        neighbour=_given(args, registry, rows),
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
        rows = f"{r['rows']} row{'s' if r['rows'] != 1 else ''}"
        lines.append(f"data: {rows} of {r['data']} drawn with seed {r['seed']}; params: {params}")
        lines.append(f"receipt of one model on D: {r['receipt']}")
    else:
        lines.append(f"data: {r['data']}")
    lines.append(f"claim: epsilon={r['epsilon']} delta={r['delta']} under {r['relation']}")
    if r["method"] == "replay":
        return "\n".join(lines + _render_replay(r))
    if r.get("enumeration"):
        return "\n".join(lines + _render_enumeration(r))
    lines.append(f"pair: {r['neighbour']}")
    if "replay_pairs" in r:
        lines.append(f"replay: NOT REFUTED on {r['replay_pairs']} pairs ({r['replay_calls']} mechanism calls checked)")
        lines.append(f"exact: {r['exact']}")
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


def _render_replay(r: Dict[str, Any]) -> List[str]:
    from refdp.audit.replay_audit import describe_kinds

    lines = [
        f"check: replay (each mechanism call recorded on D and replayed on D' with its output frozen and the "
        f"random state restored): {r['pairs']} pairs ({describe_kinds(r['pair_kinds'])}), "
        f"{r['calls']} mechanism calls checked",
    ]
    again = f"--method replay --seed {r['seed']} --pairs {r['pairs']}"
    if r["verdict"] == "refuted" and r["violation_kind"] == "budget":
        lines.append(f"violation: {r['violation']}")
        lines.append(f"verdict: REFUTED: {_KIND_WORDS['budget']}")
    elif r["verdict"] == "refuted":
        lines.append(f"pair: {r['neighbour']} (pair {r['pairs']}, seed {r['pair_seed']})")
        lines.append(f"violation: {r['violation']}")
        lines.append(
            "verdict: REFUTED: the run on D' breaks what the run on D declared "
            f"({r['violation_kind']}: {_KIND_WORDS[r['violation_kind']]})"
        )
    else:
        lines.append(
            f"verdict: NOT REFUTED: {r['pairs']} pairs replayed as declared (one path per pair, its seed's; "
            "this is no proof of privacy, see docs/audit.md)"
        )
    lines.append(f"seed: {r['seed']} (replay exactly with {again}); wall time {r['wall_time']:.2f} s")
    return lines


_KIND_WORDS = {
    "sequence": "a different mechanism call: control flow or a parameter depends on the data",
    "sensitivity": "an input moved further than its declared sensitivity",
    "release": "a release the mechanism's rule does not allow",
    "calibration": "the mechanism draws from another law than the one it declares",
    "cells": "one record changed two cells of a disjoint split",
    "output": "the released model is not a function of the mechanisms' outputs",
    "failure": "the learner fails on D' only",
    "budget": "the learner spends more than the claimed epsilon",
}


def _render_enumeration(r: Dict[str, Any]) -> List[str]:
    lines = [f"pair: {r['neighbour']} ({r['pairs']} pair(s) enumerated)"]
    if r["complete"]:
        what = (
            f"the whole law of the released model ({r['outcomes'][0]} models on D, {r['outcomes'][1]} on D'; "
            f"discrete Laplace tails left out: {r['remainder'][0]:.3g} and {r['remainder'][1]:.3g} of the mass)"
        )
    else:
        what = (
            f"the first {r['depth']} levels of mechanism calls"
            + (f" (the last {r['partial']} only where a call's input breaks its declared sensitivity)"
               if r.get("partial") else "")
            + ": what they release "
            f"({r['outcomes'][0]} outcomes on D, {r['outcomes'][1]} on D'; the whole law needs more than "
            f"{r['runs']} runs)"
        )
    lines.append(f"check: exact enumeration of {what}, {r['runs']} runs")
    if r["diverged"]:
        lines.append(f"branch: {r['diverged']}")
    lines.append(f"outcome: {r['outcome']}")
    loss, upper = r["loss"], r["loss_upper"]
    if r["delta"] != "0":
        lines.append(f"delta: certified max_E P(E) - e^epsilon Q(E) >= {r['delta_lower_bound']:.4g}")
    if r["verdict"] == "refuted":
        lines.append(
            f"verdict: REFUTED: exact privacy loss {_fmt(loss)}"
            + ("" if loss == upper else f" (certified; at most {_fmt(upper)})")
            + f" > claimed epsilon {r['epsilon']}"
            + ("" if r["complete"] else " for what the first mechanism calls release")
        )
    else:
        lines.append(
            f"verdict: NOT REFUTED: certified loss {_fmt(loss)} <= claimed epsilon {r['epsilon']} on this pair"
            + ("" if r["complete"] else " (for what the first mechanism calls release)")
        )
    lines.append(f"seed: {r['seed']}; wall time {r['wall_time']:.2f} s")
    return lines


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
