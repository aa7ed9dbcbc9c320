"""``audit-cmd``: audit a DP claim about a program written in any language.

``python3 -m refdp audit-cmd --cmd 'PROGRAM ARGS {data} {seed} {out}' --data NAME_OR_PATH --epsilon E``

``D`` is ``--data`` (all rows unless ``--rows N`` draws ``N`` with the
seed).  ``--cmd`` is split like a shell line (no shell runs it); its
placeholders, the CSV files the program reads, how runs fail and how an
output becomes an outcome (``--output-kind``) are those of
:mod:`refdp.audit.program_audit`, which runs the audit; the protocols
(a process per run or per ``{seeds}`` batch, ``--worker``, ``--python``)
are :mod:`refdp.audit.programs`'.  ``--jobs``
runs go at a time, each with ``--timeout`` seconds, and more than
``--max-failure-rate`` failures on either data set stop the audit.

``--neighbours``: ``auto`` (default) picks among four candidates -- four
rows of ``D`` drawn with the seed, removed (add-remove) or with their class
changed to the next class (substitute) -- the one whose pilot audit, on
seeds separate from the audit's, gives the largest bound; ``index:I`` takes
row ``I``; ``FILE`` is a neighbour ``.csv`` or a ``.json`` list of such
paths (relative to the JSON file), each checked to be a neighbour of ``D``
under ``--relation``.

The verdict and numbers are printed as ``audit`` prints them (claim
``empirical-epsilon-lower-bound``), followed by the run and failure counts.
"""

from __future__ import annotations

import argparse
import json
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Tuple

from refdp.cli._args import (
    MAX_RUNS,
    RELATIONS,
    add_data_arguments,
    add_program_arguments,
    add_program_run_arguments,
    check_positive,
    check_program_run_arguments,
    how_programs_ran,
    integer,
    load_data,
    program_of,
)
from refdp.cli._command import Command
from refdp.cli.audit import render_report
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation, as_budget, as_delta, parse_relation

if TYPE_CHECKING:
    from refdp.audit.pair import Neighbour
    from refdp.data import Dataset

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    add_program_arguments(p)
    add_data_arguments(p)
    p.add_argument("--rows", type=integer, default=None, help="rows of D drawn from the data with the seed (default: all)")
    p.add_argument("--epsilon", required=True, help="the claimed epsilon, e.g. 1 or 1/2")
    p.add_argument("--delta", default="0", help="the claimed delta (default 0)")
    p.add_argument("--relation", default="add-remove", choices=RELATIONS, help="add-remove (default) or substitute")
    p.add_argument("--neighbours", default="auto", help="auto (default), index:I, or a .csv / .json file of neighbours")
    p.add_argument("--trials", type=integer, default=None, help="test runs per side (default: sized for power)")
    p.add_argument(
        "--output-kind", default="label", help="label (default), json-field:PATH or tree-structure"
    )
    add_program_run_arguments(p, max_failure_rate=0.1)
    p.add_argument("--seed", type=integer, default=None, help="seed (default: drawn, and printed for replay)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _check_args(args: argparse.Namespace) -> None:
    check_positive(args.trials, "--trials", MAX_RUNS)
    check_positive(args.rows, "--rows")
    check_program_run_arguments(args)


def _output_kind(text: str) -> str:
    if text in ("label", "tree-structure") or text.startswith("json-field:"):
        return text
    raise InvalidParameterError(
        f"--output-kind {text!r}: use label, json-field:PATH (for example json-field:count) or tree-structure"
    )


def _from_file(d: Dataset, relation: Relation, text: str) -> List[Neighbour]:
    from refdp.audit.neighbours import are_neighbours
    from refdp.audit.pair import Neighbour
    from refdp.data.readers import read_csv

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
        found.append(Neighbour(f"the data in {p}", d_prime))
    return found


def _neighbours(d: Dataset, relation: Relation, text: str) -> Optional[Tuple[Neighbour, ...]]:
    """The candidates ``--neighbours`` gives, or None for ``auto``."""
    from refdp.audit.pair import row_neighbour

    if text == "auto":
        return None
    if text.startswith("index:"):
        try:
            i = integer(text[len("index:"):])
        except ValueError:
            raise InvalidParameterError(f"--neighbours {text!r}: index:I needs an integer row I") from None
        if not 0 <= i < len(d):
            raise InvalidParameterError(f"--neighbours index:{i}: D has rows 0..{len(d) - 1}")
        return (row_neighbour(d, relation, i),)
    return tuple(_from_file(d, relation, text))


def _run(args: argparse.Namespace) -> int:
    from refdp.audit.program_audit import CommandAudit, audit_command
    from refdp.audit.pair import draw_rows

    """Run the ``audit-cmd`` subcommand; the exit status is 0 (not refuted), 1 (refuted) or 2 (bad input)."""
    _check_args(args)
    cmd, words, protocol = program_of(args)
    kind = _output_kind(args.output_kind)
    epsilon = as_budget(args.epsilon)
    delta = as_delta(args.delta)
    relation = parse_relation(args.relation)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    data = load_data(args)
    if args.rows is not None:
        if args.rows > len(data):
            raise InvalidParameterError(f"--rows {args.rows}: {args.data} has only {len(data)} rows")
        d = data.subset(draw_rows(len(data), args.rows, seed))
    else:
        d = data
    report = audit_command(CommandAudit(
        cmd=cmd,
        words=words,
        d=d,
        data_name=args.data,
        epsilon=epsilon,
        delta=delta,
        relation=relation,
        seed=seed,
        neighbours=_neighbours(d, relation, args.neighbours),
        output_kind=kind,
        trials=args.trials,
        jobs=args.jobs,
        timeout=args.timeout,
        max_failure_rate=args.max_failure_rate,
        alpha=args.alpha,
        protocol=protocol,
        batch=args.batch,
    ))
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(render_report(report))
        print(
            f"program: {cmd!r}; {report['program_runs']} runs in all ({report['pilot_runs']} pilot), "
            f"{how_programs_ran(report)}; failures: {report['failures_d']} on D, {report['failures_d_prime']} on D'"
            + (f"; first: {report['first_failure']}" if report["first_failure"] else "")
        )
    return 1 if report["verdict"] == "refuted" else 0


COMMAND = Command(
    "audit-cmd",
    "audit a DP claim about an external program (any language) on a data set and a neighbour",
    _add_arguments,
    _run,
    description=(
        "Run PROGRAM many times on a data set D and a neighbour D' (temporary CSV files) and refute its "
        "(epsilon, delta)-DP claim with a certified lower bound, or say what the runs could have detected. "
        "Exit status: 0 not refuted, 1 refuted, 2 bad input. "
        "Placeholders in --cmd: {data} (CSV path), {seed} (integer) or {seeds} (a file of seeds, one output line "
        "per seed), {out} (output file), {schema} (schema JSON); --worker: a seed per line on stdin, an output "
        "line back; --python 'MODULE:FUNCTION [ARG ...]' calls FUNCTION(data, seed, schema, *ARGS) in workers."
    ),
)
