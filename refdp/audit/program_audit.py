"""Auditing a DP claim about a program written in any language, run as a command (what ``audit-cmd`` runs).

:func:`audit_command` audits a :class:`CommandAudit`:

1. ``D`` and each candidate neighbour ``D'`` are written to temporary CSV
   files (:func:`write_csv`): a header line with the attribute names and
   the class column's name, then one row per record (categorical values as
   declared, continuous values as Python prints floats, the class last).
   The public schema is written next to them as ``schema.json``
   (``Schema.to_json``).
2. The command's words are run with no shell, by the ``protocol`` of
   :mod:`refdp.audit.programs`: one process per run (``run``: in each word
   ``{data}`` becomes the CSV's path, ``{seed}`` the run's seed, an integer
   below 2**63, ``{out}`` a fresh file the program must write its output to
   -- without ``{out}`` its standard output is read -- and ``{schema}`` the
   schema's path), one per batch of runs (``batch``: ``{seeds}`` is a file
   of seeds, one output line per seed), long-running workers (``worker``:
   a seed per line on standard input, an output line back) or a Python
   function called in worker processes (``python``).  The program must be a
   function of the data and the seed.
3. Runs go ``jobs`` at a time, each with ``timeout`` seconds (a batch: the
   whole batch); a run that exits non-zero, times out or writes an
   unreadable output is a failure (every run of a batch that fails as a
   whole): it is counted, reported, and kept as an outcome of its own (see
   :mod:`refdp.audit.external`); more than ``max_failure_rate`` failures
   on either data set, or 8 failures in the first 8 runs, stop the audit.
4. :class:`OutputReader` reduces an output to an outcome: ``label`` (the
   text, stripped), ``json-field:PATH`` (the value at a dotted PATH of a
   JSON output, such as ``count`` or ``model.trees.0``; numbers give
   threshold events) or ``tree-structure`` (a JSON tree without its leaf
   payloads: a refdp model is reduced to its trees' shapes; any other JSON
   loses the members named in :data:`LEAF_PAYLOAD_KEYS`).
5. Given several candidate neighbours, the one whose pilot audit, on seeds
   separate from the audit's, gives the largest bound is audited
   (:func:`refdp.audit.pair.choose_by_pilot`); by default the candidates
   are four rows of ``D`` drawn with the seed, removed (add-remove) or with
   their class changed to the next class (substitute).

Each process (a run, a batch or a worker) is a process group of its own
(:class:`~refdp.audit.programs.RunningPrograms`), so that an audit that
ends for any reason -- Ctrl-C, SIGTERM, an error -- ends every program
still running, with its children, before it removes its temporary
directory, and starts no other.

The statistics are :func:`refdp.audit.audit_program`'s (claim
``empirical-epsilon-lower-bound``).  The report is a JSON-ready ``dict``
with the run and failure counts; its notes name the ``audit-cmd`` command's
flags, since that is where reports are read.
"""

from __future__ import annotations

import concurrent.futures
import csv
import json
import math
import random
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Hashable, List, Optional, Tuple

from refdp.audit.external import ProgramAuditResult, audit_program
from refdp.audit.pair import Neighbour, choose_by_pilot, row_neighbour
from refdp.audit.reductions import ModelStructure
from refdp.audit.programs import CommandProgram, RunningPrograms, chunk_size, make_program
from refdp.audit.report import monte_carlo_fields
from refdp.audit.sample_size import default_trials
from refdp.data import Dataset
from refdp.privacy import Relation
from refdp.tree import decode_model

__all__ = [
    "LEAF_PAYLOAD_KEYS",
    "CommandAudit",
    "CommandProgram",
    "OutputReader",
    "RunningPrograms",
    "audit_command",
    "write_csv",
    "write_inputs",
]

LEAF_PAYLOAD_KEYS = frozenset({
    "counts", "count", "prediction", "label", "class", "probabilities", "distribution",
    "n_samples", "samples", "weight", "leaf_value",
})
"""JSON members dropped by ``--output-kind tree-structure``: what a leaf releases, not the shape."""

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


def write_inputs(data: Dataset, workdir: Path, name: str) -> Tuple[Path, Path]:
    """Write ``data`` to ``workdir/name`` (:func:`write_csv`) and its public schema to ``workdir/schema.json``.

    Returns (the CSV's path, the schema's path): what ``{data}`` and ``{schema}`` become.
    """
    schema_path = workdir / "schema.json"
    schema_path.write_text(json.dumps(data.schema.to_json(), indent=1), encoding="utf-8")
    data_path = workdir / name
    write_csv(data, data_path)
    return data_path, schema_path


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
                return ModelStructure()(decode_model(obj))
            return _structure(obj)
        value = _field(obj, self.kind[len("json-field:"):])
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ValueError(f"the field is {value!r}, not a finite number")
            return float(value)
        return value if isinstance(value, (str, bool)) or value is None else json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class CommandAudit:
    """What to audit: the command ``words`` on ``d`` and a neighbour, against (``epsilon``, ``delta``).

    ``words`` is the command line split into words, placeholders included;
    ``cmd`` is the line as given and ``data_name`` the data ``d`` came from,
    both for the report.  ``neighbours`` are the candidates for ``D'`` under
    ``relation`` (one: that one; None: the default four).
    ``output_kind`` configures the :class:`OutputReader`; ``trials`` runs
    per side (None: :func:`~refdp.audit.sample_size.default_trials`) go
    ``jobs`` at a time with ``timeout`` seconds each (per batch with the
    ``batch`` protocol).  ``protocol`` is one of
    :data:`~refdp.audit.programs.PROTOCOLS`; for ``python``, ``words`` is
    ``("MODULE:FUNCTION", ARG, ...)``.  ``batch``: runs per batch (None:
    :func:`~refdp.audit.programs.default_batch`).
    """

    cmd: str
    words: Tuple[str, ...]
    d: Dataset
    data_name: str
    epsilon: Fraction
    delta: Fraction
    relation: Relation
    seed: int
    neighbours: Optional[Tuple[Neighbour, ...]] = None
    output_kind: str = "label"
    trials: Optional[int] = None
    jobs: int = 1
    timeout: float = 60.0
    max_failure_rate: float = 0.1
    alpha: float = 1e-6
    protocol: str = "run"
    batch: Optional[int] = None


def _auto_candidates(d: Dataset, relation: Relation, seed: int) -> List[Neighbour]:
    rng = random.Random(f"refdp-audit-cmd-neighbours-{seed}")
    rows = sorted(rng.sample(range(len(d)), min(_CANDIDATES, len(d))))
    return [row_neighbour(d, relation, i) for i in rows]


def audit_command(request: CommandAudit) -> Dict[str, Any]:
    """Audit ``request``; the report (the fields ``audit-cmd --json`` prints), whatever the verdict."""
    started = time.perf_counter()
    d = request.d
    if request.neighbours is None:
        candidates = _auto_candidates(d, request.relation, request.seed)
    else:
        candidates = list(request.neighbours)
    if request.trials is not None:
        trials, sizing = request.trials, "given by --trials"
    else:
        trials, sizing = default_trials(request.epsilon, request.delta, request.alpha)

    with tempfile.TemporaryDirectory(prefix="refdp-audit-cmd-") as tmp:
        work = Path(tmp)
        d_path, schema_path = write_inputs(d, work, "D.csv")
        program = make_program(
            request.protocol, request.words, str(schema_path), tmp, float(request.timeout), request.jobs
        )
        chunk = chunk_size(request.protocol, request.batch, trials, request.jobs)
        reader = OutputReader(request.output_kind)
        paths = []
        for k, candidate in enumerate(candidates):
            path = work / f"D-prime-{k}.csv"
            write_csv(candidate.d_prime, path)
            paths.append(str(path))
        # leaving the pool waits for its threads: end the programs they wait on first
        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=request.jobs) as pool, program.running:

                def run(path: str, per_side: int, seed: int) -> ProgramAuditResult:
                    return audit_program(
                        program, str(d_path), path, epsilon=request.epsilon, delta=request.delta, trials=per_side,
                        alpha=request.alpha, seed=seed, reduce=reader, executor=pool, chunk=chunk,
                        max_failure_rate=request.max_failure_rate,
                    )

                if len(candidates) == 1:
                    chosen, note, pilot_runs = 0, "given by --neighbours", 0
                else:
                    per_side = max(_MIN_PILOT, trials // 10)
                    choice = choose_by_pilot(
                        len(paths), per_side, f"refdp-audit-cmd-pilot-{request.seed}",
                        lambda k, seed: run(paths[k], per_side, seed).audit,
                    )
                    chosen, note, pilot_runs = choice.index, choice.note, 4 * per_side * len(paths)
                result = run(paths[chosen], trials, request.seed)
        finally:
            program.close()
    audit = result.audit
    return {
        "algorithm": "external program",
        "description": request.cmd,
        "data": f"{len(d)} rows of {request.data_name}",
        "epsilon": str(request.epsilon),
        "delta": str(request.delta),
        "relation": request.relation.value,
        "seed": request.seed,
        "neighbour": candidates[chosen].description,
        "neighbour_choice": note,
        "output": request.output_kind + (" (threshold events)" if result.threshold_events else ""),
        **monte_carlo_fields(audit, sizing, audit.wall_time / max(1, result.runs)),
        "wall_time": time.perf_counter() - started,
        "program_runs": result.runs + pilot_runs,
        "pilot_runs": pilot_runs,
        "jobs": request.jobs,
        "timeout": request.timeout,
        "protocol": request.protocol,
        "batch": chunk if request.protocol == "batch" else None,
        "failures_d": result.failures[0],
        "failures_d_prime": result.failures[1],
        "failure_kinds": dict(result.failure_kinds),
        "first_failure": result.first_failure,
    }
