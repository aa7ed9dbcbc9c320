"""The ``audit-cmd`` subcommand: audit a DP claim about a program written in any language.

``python3 -m refdp audit-cmd --cmd 'PROGRAM ARGS {data} {seed} {out}' --data NAME_OR_PATH --epsilon E``

1. ``D`` (``--data``, all rows unless ``--rows N`` draws ``N`` with the seed)
   and each candidate neighbour ``D'`` are written to temporary CSV files:
   a header line with the attribute names and the class column's name, then
   one row per record (categorical values as declared, continuous values
   as Python prints floats, the class last).  The public schema is written
   next to them as ``schema.json`` (``Schema.to_json``).
2. ``--cmd`` is split like a shell line (no shell runs it), and in each word
   ``{data}`` becomes the CSV's path, ``{seed}`` the run's seed (an integer
   below 2**63), ``{out}`` a fresh file the program must write its output
   to (without ``{out}`` its standard output is read) and ``{schema}`` the
   schema's path.  The program must be a function of the data and the seed.
3. Runs go ``--jobs`` at a time, each with ``--timeout`` seconds; a run that
   exits non-zero, times out or writes an unreadable output is a failure:
   it is counted, reported, and kept as an outcome of its own (see
   :mod:`refdp.audit.external`); more than ``--max-failure-rate`` failures
   on either data set, or 8 failures in the first 8 runs, stop the audit.
4. ``--output-kind`` reduces an output to an outcome: ``label`` (the text,
   stripped), ``json-field:PATH`` (the value at a dotted PATH of a JSON
   output, such as ``count`` or ``model.trees.0``; numbers give threshold
   events) or ``tree-structure`` (a JSON tree without its leaf payloads:
   a refdp model is reduced to its trees' shapes; any other JSON loses the
   members named in :data:`LEAF_PAYLOAD_KEYS`).
5. ``--neighbours``: ``auto`` (default) picks among four candidates -- four
   rows of ``D`` drawn with the seed, removed (add-remove) or with their
   class changed to the next class (substitute) -- the one whose pilot
   audit, on seeds separate from the audit's, gives the largest bound;
   ``index:I`` takes row ``I``; ``FILE`` is a neighbour ``.csv`` or a
   ``.json`` list of such paths (relative to the JSON file), each checked
   to be a neighbour of ``D`` under ``--relation``.

The verdict and numbers are printed as ``audit`` prints them (claim
``empirical-epsilon-lower-bound``), followed by the run and failure counts.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import json
import math
import os
import random
import secrets
import shlex
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Hashable, List, Optional, Sequence, Tuple

from refdp.audit.command import monte_carlo_fields, render_report
from refdp.audit.external import ProgramAuditResult, RunFailed, audit_program
from refdp.audit.neighbours import Record, are_neighbours, record_of, remove_row, replace_row
from refdp.audit.planted.outcomes import ModelStructure
from refdp.audit.sample_size import required_trials
from refdp.data import Dataset, load, read_schema
from refdp.data.readers import read_csv
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation, as_delta, as_epsilon, parse_relation
from refdp.tree import model_from_json

__all__ = [
    "LEAF_PAYLOAD_KEYS",
    "CommandProgram",
    "OutputReader",
    "write_csv",
    "add_audit_cmd_parser",
    "run_audit_cmd",
]

LEAF_PAYLOAD_KEYS = frozenset({
    "counts", "count", "prediction", "label", "class", "probabilities", "distribution",
    "n_samples", "samples", "weight", "leaf_value",
})
"""JSON members dropped by ``--output-kind tree-structure``: what a leaf releases, not the shape."""

_PLACEHOLDERS = ("{data}", "{seed}", "{out}", "{schema}")
_POWER = 0.999
_CANDIDATES = 4
_MIN_PILOT = 30


def write_csv(data: Dataset, path: Path) -> None:
    """Write ``data`` as a CSV file with a header (attribute names, then the class column)."""
    schema = data.schema
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow([*schema.names, schema.label])
        for i in range(len(data)):
            cells = [v if isinstance(v, str) else repr(float(v)) for v in data.row(i)]
            writer.writerow([*cells, data.label(i)])


@dataclass(frozen=True)
class CommandProgram:
    """One run of an external command on a CSV file, as ``program(data_path, seed) -> output text``."""

    words: Tuple[str, ...]
    schema_path: str
    workdir: str
    timeout: float

    def __call__(self, data_path: str, seed: int) -> str:
        uses_out = any("{out}" in w for w in self.words)
        out_path = os.path.join(self.workdir, f"out-{seed}-{secrets.token_hex(4)}")
        argv = [
            w.replace("{data}", data_path).replace("{seed}", str(seed)).replace("{out}", out_path)
            .replace("{schema}", self.schema_path)
            for w in self.words
        ]
        try:
            # A session of its own, so that a timeout ends the program's children too.
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise RunFailed("error", f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        try:
            try:
                stdout, stderr = proc.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                raise RunFailed("timeout", f"no result after {self.timeout:g} s (seed {seed})") from None
            if proc.returncode != 0:
                lines = stderr.decode("utf-8", "replace").strip().splitlines()
                last = lines[-1] if lines else "(no stderr)"
                raise RunFailed("error", f"exit status {proc.returncode} (seed {seed}): {last}")
            if not uses_out:
                return stdout.decode("utf-8", "replace")
            try:
                return Path(out_path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise RunFailed("output", f"cannot read the output file (seed {seed}): {exc}") from None
        finally:
            if uses_out and os.path.exists(out_path):
                os.remove(out_path)


def _kill(proc: "subprocess.Popen[bytes]") -> None:
    """End a program that ran out of time, with its process group where there are groups."""
    killpg = getattr(os, "killpg", None)
    try:
        if killpg is not None:
            killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:
        pass  # it ended on its own in the meantime
    proc.communicate()


def _structure(obj: Any) -> Hashable:
    if isinstance(obj, dict):
        return tuple(sorted((k, _structure(v)) for k, v in obj.items() if k not in LEAF_PAYLOAD_KEYS))
    if isinstance(obj, list):
        return tuple(_structure(v) for v in obj)
    return obj if isinstance(obj, (str, int, float, bool)) or obj is None else repr(obj)


def _field(obj: Any, path: str) -> Any:
    for part in path.split(".") if path else ():
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.lstrip("-").isdigit() and -len(obj) <= int(part) < len(obj):
            obj = obj[int(part)]
        else:
            raise ValueError(f"the output has no field {path!r} (stopped at {part!r})")
    return obj


@dataclass(frozen=True)
class OutputReader:
    """Reduce an output text to an outcome (``kind`` is ``label``, ``json-field:PATH`` or ``tree-structure``)."""

    kind: str

    def __call__(self, text: str) -> Hashable:
        if self.kind == "label":
            label = text.strip()
            if not label:
                raise ValueError("the output is empty")
            return label
        obj = json.loads(text)
        if self.kind == "tree-structure":
            if isinstance(obj, dict) and obj.get("format") == "refdp-model":
                return ModelStructure()(model_from_json(obj))
            return _structure(obj)
        value = _field(obj, self.kind[len("json-field:"):])
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ValueError(f"the field is {value!r}, not a finite number")
            return float(value)
        return value if isinstance(value, (str, bool)) or value is None else json.dumps(value, sort_keys=True)


def _output_kind(text: str) -> str:
    if text in ("label", "tree-structure") or text.startswith("json-field:"):
        return text
    raise InvalidParameterError(
        f"--output-kind {text!r}: use label, json-field:PATH (for example json-field:count) or tree-structure"
    )


def add_audit_cmd_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """Add the ``audit-cmd`` subparser to the CLI's subcommands."""
    p = sub.add_parser(
        "audit-cmd",
        help="audit a DP claim about an external program (any language) on a data set and a neighbour",
        description=(
            "Run PROGRAM many times on a data set D and a neighbour D' (temporary CSV files) and refute its "
            "(epsilon, delta)-DP claim with a certified lower bound, or say what the runs could have detected. "
            "Placeholders in --cmd: {data} (CSV path), {seed} (integer), {out} (output file), {schema} (schema JSON)."
        ),
    )
    p.add_argument("--cmd", required=True, help="the command line, e.g. 'python3 prog.py {data} {seed} {out}'")
    p.add_argument("--data", required=True, help="a built-in data set name or a .csv/.arff path")
    p.add_argument("--label", default=None, help="class column of a file (default: the last)")
    p.add_argument("--schema", default=None, help="schema JSON file for a CSV file")
    p.add_argument("--rows", type=int, default=None, help="rows of D drawn from the data with the seed (default: all)")
    p.add_argument("--epsilon", required=True, help="the claimed epsilon, e.g. 1 or 1/2")
    p.add_argument("--delta", default="0", help="the claimed delta (default 0)")
    p.add_argument("--relation", default="add-remove", help="add-remove (default) or substitute")
    p.add_argument("--neighbours", default="auto", help="auto (default), index:I, or a .csv / .json file of neighbours")
    p.add_argument("--trials", type=int, default=None, help="test runs per side (default: sized for power)")
    p.add_argument(
        "--output-kind", default="label", help="label (default), json-field:PATH or tree-structure"
    )
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs at a time (default: the cores)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per run before it counts as failed (default 60)")
    p.add_argument("--max-failure-rate", type=float, default=0.1, help="stop when more runs fail (default 0.1)")
    p.add_argument("--alpha", type=float, default=1e-6, help="false-alarm probability (default 1e-6)")
    p.add_argument("--seed", type=int, default=None, help="seed (default: drawn, and printed for replay)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_audit_cmd)


@dataclass(frozen=True)
class _Candidate:
    description: str
    d_prime: Dataset


def _auto_candidates(d: Dataset, relation: Relation, seed: int) -> List[_Candidate]:
    rng = random.Random(f"refdp-audit-cmd-neighbours-{seed}")
    rows = sorted(rng.sample(range(len(d)), min(_CANDIDATES, len(d))))
    return [_at_index(d, relation, i) for i in rows]


def _at_index(d: Dataset, relation: Relation, i: int) -> _Candidate:
    schema = d.schema
    if not 0 <= i < len(d):
        raise InvalidParameterError(f"--neighbours index:{i}: D has rows 0..{len(d) - 1}")
    record = record_of(d, i)
    if relation is Relation.ADD_REMOVE:
        return _Candidate(f"remove row {i} {record.describe(schema)}", remove_row(d, i))
    if schema.n_classes < 2:
        raise InvalidParameterError("a substitute neighbour by a class change needs two classes; give a FILE")
    changed = Record(record.values, (record.label + 1) % schema.n_classes)
    return _Candidate(
        f"replace row {i} {record.describe(schema)} by {changed.describe(schema)}", replace_row(d, i, changed)
    )


def _from_file(d: Dataset, relation: Relation, text: str) -> List[_Candidate]:
    path = Path(text)
    if path.suffix.lower() == ".json":
        try:
            listed = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidParameterError(f"--neighbours {text}: cannot read a JSON list of CSV paths ({exc})") from None
        if not isinstance(listed, list) or not listed or not all(isinstance(p, str) for p in listed):
            raise InvalidParameterError(f"--neighbours {text}: expected a non-empty JSON list of CSV paths")
        paths = [path.parent / p for p in listed]
    elif path.suffix.lower() == ".csv":
        paths = [path]
    else:
        raise InvalidParameterError(f"--neighbours {text!r}: use auto, index:I, a .csv file or a .json list of them")
    found = []
    for p in paths:
        d_prime = read_csv(p, schema=d.schema)
        if not are_neighbours(d, d_prime, relation):
            raise InvalidParameterError(
                f"--neighbours: {p} is not a neighbour of D under {relation.value} (it must differ in exactly "
                "one record: one added or removed, or one substituted)"
            )
        found.append(_Candidate(f"the data in {p}", d_prime))
    return found


def _candidates(d: Dataset, relation: Relation, text: str, seed: int) -> List[_Candidate]:
    if text == "auto":
        return _auto_candidates(d, relation, seed)
    if text.startswith("index:"):
        try:
            i = int(text[len("index:"):])
        except ValueError:
            raise InvalidParameterError(f"--neighbours {text!r}: index:I needs an integer row I") from None
        return [_at_index(d, relation, i)]
    return _from_file(d, relation, text)


def _default_trials(epsilon: Fraction, delta: Fraction, alpha: float) -> Tuple[int, str]:
    true = 2 * float(epsilon)
    p_event = min(0.1, math.exp(-true) / 2)
    n = required_trials(true, epsilon, p_event, power=_POWER, alpha=alpha, delta=delta)
    return n, f"detect a true epsilon of {true:g} at event probability {p_event:.4g}, power {_POWER}"


def _check_args(args: argparse.Namespace) -> None:
    for flag, value in (("--trials", args.trials), ("--rows", args.rows), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            raise InvalidParameterError(f"{flag} must be >= 1, got {value}")
    if not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise InvalidParameterError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if not 0 <= args.max_failure_rate <= 1:
        raise InvalidParameterError(f"--max-failure-rate must be in [0, 1], got {args.max_failure_rate}")
    if not 0 < args.alpha < 1:
        raise InvalidParameterError(f"--alpha must be in (0, 1), got {args.alpha}")


def _words(cmd: str) -> Tuple[str, ...]:
    try:
        words = tuple(shlex.split(cmd))
    except ValueError as exc:
        raise InvalidParameterError(f"--cmd cannot be split into words: {exc}") from None
    if not words:
        raise InvalidParameterError("--cmd is empty")
    if not any("{data}" in w for w in words):
        raise InvalidParameterError("--cmd must pass the data to the program: put {data} where its path goes")
    if not any("{seed}" in w for w in words):
        raise InvalidParameterError(
            "--cmd must pass the seed to the program ({seed}): runs must be replayable and independent"
        )
    return words


def run_audit_cmd(args: argparse.Namespace) -> int:
    """Run the ``audit-cmd`` subcommand; returns the exit status (0 whatever the verdict)."""
    started = time.perf_counter()
    _check_args(args)
    words = _words(args.cmd)
    kind = _output_kind(args.output_kind)
    epsilon = as_epsilon(args.epsilon)
    delta = as_delta(args.delta)
    relation = parse_relation(args.relation)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    schema = read_schema(args.schema) if args.schema else None
    data = load(args.data, label=args.label, schema=schema)
    if args.rows is not None:
        if args.rows > len(data):
            raise InvalidParameterError(f"--rows {args.rows}: {args.data} has only {len(data)} rows")
        d = data.subset(sorted(random.Random(seed).sample(range(len(data)), args.rows)))
    else:
        d = data
    candidates = _candidates(d, relation, args.neighbours, seed)
    if args.trials is not None:
        trials, sizing = args.trials, "given by --trials"
    else:
        trials, sizing = _default_trials(epsilon, delta, args.alpha)

    with tempfile.TemporaryDirectory(prefix="refdp-audit-cmd-") as tmp:
        work = Path(tmp)
        schema_path = work / "schema.json"
        schema_path.write_text(json.dumps(d.schema.to_json(), indent=1), encoding="utf-8")
        d_path = work / "D.csv"
        write_csv(d, d_path)
        program = CommandProgram(words, str(schema_path), tmp, float(args.timeout))
        reader = OutputReader(kind)
        paths = []
        for k, candidate in enumerate(candidates):
            path = work / f"D-prime-{k}.csv"
            write_csv(candidate.d_prime, path)
            paths.append(str(path))
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            chosen, note, pilot_runs = _choose(program, reader, str(d_path), paths, candidates, epsilon, delta, args,
                                   trials, seed, pool)
            result = audit_program(
                program, str(d_path), paths[chosen], epsilon=epsilon, delta=delta, trials=trials,
                alpha=args.alpha, seed=seed, reduce=reader, executor=pool, chunk=2,
                max_failure_rate=args.max_failure_rate,
            )
    wall = time.perf_counter() - started
    report = _report(args, result, candidates[chosen].description, note, pilot_runs, sizing, seed, epsilon,
                     delta, relation, len(d), wall)
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(render_report(report))
        print(
            f"program: {args.cmd!r}; {report['program_runs']} runs in all ({report['pilot_runs']} pilot), "
            f"{args.jobs} at a time, time limit {args.timeout:g} s; failures: {report['failures_d']} on D, "
            f"{report['failures_d_prime']} on D'"
            + (f"; first: {report['first_failure']}" if report["first_failure"] else "")
        )
    return 0


def _choose(
    program: CommandProgram, reader: OutputReader, d_path: str, paths: Sequence[str],
    candidates: Sequence[_Candidate], epsilon: Fraction, delta: Fraction, args: argparse.Namespace,
    trials: int, seed: int, pool: concurrent.futures.Executor,
) -> Tuple[int, str, int]:
    """The candidate whose pilot audit gives the largest bound (then point estimate).

    The pilot's seeds come from a stream separate from the audit's, so the
    audit's test batch is fresh and its bound stays valid.
    """
    if len(candidates) == 1:
        return 0, "given by --neighbours", 0
    per_side = max(_MIN_PILOT, trials // 10)
    pilot_seeds = random.Random(f"refdp-audit-cmd-pilot-{seed}")
    best: Optional[Tuple[Tuple[float, float], int]] = None
    for k, path in enumerate(paths):
        pilot = audit_program(
            program, d_path, path, epsilon=epsilon, delta=delta, trials=per_side, alpha=args.alpha,
            seed=pilot_seeds.getrandbits(64), reduce=reader, executor=pool, chunk=2,
            max_failure_rate=args.max_failure_rate,
        )
        score = (pilot.audit.lower_bound, pilot.audit.point_estimate)
        if best is None or score > best[0]:
            best = (score, k)
    assert best is not None  # there are candidates: D has rows
    return best[1], (
        f"searched: the best of {len(candidates)} candidates by a pilot audit of {per_side} runs per side and "
        "batch each, on seeds separate from the audit's (the test batch is fresh, so the bound stays valid)"
    ), 4 * per_side * len(paths)


def _report(
    args: argparse.Namespace, result: ProgramAuditResult, neighbour: str, note: str, pilot: int, sizing: str,
    seed: int,
    epsilon: Fraction, delta: Fraction, relation: Relation, rows: int, wall: float,
) -> Dict[str, Any]:
    audit = result.audit
    fields = monte_carlo_fields(audit, sizing, audit.wall_time / max(1, result.runs))
    return {
        "algorithm": "external program",
        "description": args.cmd,
        "data": f"{rows} rows of {args.data}",
        "epsilon": str(epsilon),
        "delta": str(delta),
        "relation": relation.value,
        "seed": seed,
        "neighbour": neighbour,
        "neighbour_choice": note,
        "output": args.output_kind + (" (threshold events)" if result.threshold_events else ""),
        **fields,
        "wall_time": wall,
        "program_runs": result.runs + pilot,
        "pilot_runs": pilot,
        "jobs": args.jobs,
        "timeout": args.timeout,
        "failures_d": result.failures[0],
        "failures_d_prime": result.failures[1],
        "failure_kinds": dict(result.failure_kinds),
        "first_failure": result.first_failure,
    }
