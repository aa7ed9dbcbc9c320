"""Arguments several subcommands share: the data, ``--param KEY=VALUE``, the seed, counts >= 1, outputs."""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple

from refdp.errors import InvalidParameterError
from refdp.numbers import is_plain_decimal, is_plain_int
from refdp.privacy import Relation

if TYPE_CHECKING:
    # The data package loads only when a subcommand reads data: see refdp.cli.
    from refdp.data import Dataset

__all__ = [
    "MAX_JOBS",
    "MAX_RUNS",
    "PLACEHOLDERS",
    "RELATIONS",
    "add_data_arguments",
    "add_key_argument",
    "add_missing_argument",
    "add_param_argument",
    "add_program_arguments",
    "add_program_run_arguments",
    "add_seed_argument",
    "add_training_arguments",
    "chosen_engine",
    "check_missing_policy",
    "check_positive",
    "check_program_run_arguments",
    "how_programs_ran",
    "command_words",
    "integer",
    "load_data",
    "number",
    "parse_params",
    "program_of",
    "read_key_argument",
]


RELATIONS = tuple(r.value for r in Relation)
"""The values of ``--relation``."""


def integer(text: str) -> int:
    """The ``type`` of an integer flag: ASCII digits only (argparse names the flag when this refuses).

    ``int`` would also read ``1_000`` and other scripts' digits.
    """
    if len(text) > 100 or not is_plain_int(text):
        raise ValueError(text)
    return int(text)


def number(text: str) -> float:
    """The ``type`` of a real-number flag: a plain decimal in ASCII digits, such as ``0.5`` or ``1e-6``."""
    if len(text) > 100 or not is_plain_decimal(text):
        raise ValueError(text)
    return float(text)


def add_data_arguments(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """``--data`` and how to read a file: ``--label``, ``--schema``, ``--bounds``, ``--missing``; see :func:`load_data`."""
    p.add_argument("--data", required=required, help="a built-in data set name or a .csv/.arff path")
    p.add_argument("--label", default=None, help="class column of a file (default: the schema's, or the last)")
    p.add_argument(
        "--schema", default=None, metavar="FILE",
        help="public schema JSON of a .csv or .arff file (format: docs/schema.md; `schema` writes one)",
    )
    p.add_argument(
        "--bounds", action="append", default=[], metavar="ATTR=LO:HI",
        help="public bounds of a numeric ARFF attribute, chosen without looking at the data (repeatable)",
    )
    add_missing_argument(p)


def add_missing_argument(p: argparse.ArgumentParser) -> None:
    """``--missing``: what a missing value (``?``) in a file does."""
    from refdp.cli._data import MISSING

    p.add_argument(
        "--missing", default=None, choices=sorted(MISSING),
        help="a missing value (?) is the category '?' of a categorical attribute (every domain gets it) and the "
        "midpoint of a continuous one's public bounds (category, the default), "
        "drops its row (drop; compatible with add-remove DP), or is an error (error)",
    )


def load_data(args: argparse.Namespace) -> Dataset:
    """The data set that ``--data``, ``--label``, ``--schema``, ``--bounds`` and ``--missing`` name."""
    from refdp.cli._data import parse_bounds, read_data
    from refdp.data import read_schema

    schema = read_schema(args.schema) if args.schema else None
    return read_data(
        args.data, label=args.label, schema=schema, bounds=parse_bounds(args.bounds), missing=args.missing
    )


def check_missing_policy(algorithm: str, params: Dict[str, str], relation: Relation, missing: Optional[str]) -> None:
    """Refuse ``--missing drop`` with ``--relation substitute`` where the plan reads the row count as public.

    Dropping a row depends on that row alone, so a substitution can turn a
    kept row into a dropped one: the filtered data sets then differ in size,
    and a row count the plan treats as public is not (claim
    ``diffpid3-info-gain-size-bound``).
    """
    from refdp.algorithms import get_algorithm

    if missing != "drop" or relation is not Relation.SUBSTITUTE:
        return
    spec = get_algorithm(algorithm)
    resolved = spec.resolve(params)
    if spec.row_count_is_public(resolved, relation):
        raise InvalidParameterError(
            f"--missing drop with --relation substitute: {algorithm} with these parameters reads the number of "
            "rows as public, and dropping the rows with a missing value makes that number depend on a "
            "substituted record; use --relation add-remove or --missing category, or declare the bound "
            "(--param max_size=N, chosen without looking at the data)"
        )


def add_key_argument(p: argparse.ArgumentParser, help: str) -> None:
    """``--key-file FILE``: the secret key of a model's HMAC-SHA256 signature (:mod:`refdp.tree.integrity`)."""
    p.add_argument("--key-file", default=None, metavar="FILE", help=help)


def read_key_argument(args: argparse.Namespace) -> Optional[bytes]:
    """The key in ``--key-file``, or None when it was not given."""
    from refdp.tree.integrity import read_key

    if args.key_file is None:
        return None
    try:
        return read_key(args.key_file)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"--key-file: {exc}") from None


def add_param_argument(p: argparse.ArgumentParser) -> None:
    """``--param KEY=VALUE``, repeatable; :func:`parse_params` reads it."""
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="algorithm parameter (repeatable)")


def parse_params(pairs: Sequence[str]) -> Dict[str, str]:
    """``["max_depth=3", ...]`` as ``{"max_depth": "3", ...}``; the algorithm converts the values."""
    out: Dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidParameterError(f"--param takes KEY=VALUE, got {pair!r}")
        if key.strip() in out:
            raise InvalidParameterError(f"--param names {key.strip()!r} twice; give each parameter once")
        out[key.strip()] = value.strip()
    return out


def add_training_arguments(p: argparse.ArgumentParser) -> None:
    """The data and what training needs besides the algorithm: budget, parameters, relation, engine."""
    from refdp.algorithms.registry import ENGINES

    add_data_arguments(p)
    p.add_argument("--epsilon", required=True, help="total privacy budget, e.g. 1 or 0.5 or 1/3")
    add_param_argument(p)
    p.add_argument(
        "--relation", default="add-remove", choices=RELATIONS, help="neighbouring relation: add-remove (default) or substitute"
    )
    p.add_argument(
        "--engine", default=None, choices=sorted(ENGINES),
        help="reference or array: the same model; default: array where the algorithm has it (faster), else reference",
    )


def chosen_engine(engine: Optional[str], algorithm: str) -> str:
    """``--engine`` as given, or else the array engine where ``algorithm`` has one.

    Both engines give the same model byte for byte (tests/test_fast_equivalence.py), so the command
    line takes the faster where it exists; ``--engine reference`` runs the code that reads like the paper.
    """
    if engine is not None:
        return engine
    from refdp.algorithms import get_algorithm

    return "array" if get_algorithm(algorithm).has_array_engine else "reference"


def add_seed_argument(p: argparse.ArgumentParser) -> None:
    """``--seed`` for replay; without it, secure randomness."""
    p.add_argument("--seed", type=integer, default=None, help="seed for replay (default: secure randomness)")


def check_positive(value: Optional[int], flag: str, maximum: Optional[int] = None) -> None:
    """Refuse a count below 1 or above ``maximum`` (None means the flag was not given)."""
    if value is not None and value < 1:
        raise InvalidParameterError(f"{flag} must be >= 1, got {value}")
    if value is not None and maximum is not None and value > maximum:
        raise InvalidParameterError(f"{flag} must be at most {maximum}, got {value}")


MAX_JOBS = 1024
"""The most runs (``--jobs``) or worker processes (``--workers``) at a time."""

MAX_RUNS = 10**7
"""The most runs of a program or test runs per side an audit or cross-check takes (``--trials``, ``--runs``)."""


def add_program_run_arguments(p: argparse.ArgumentParser, *, max_failure_rate: float, failure_note: str = "") -> None:
    """``--jobs``, ``--timeout``, ``--max-failure-rate`` and ``--alpha`` of the commands that run a ``--cmd`` program."""
    p.add_argument("--jobs", type=integer, default=os.cpu_count() or 1, help="runs at a time (default: the cores)")
    p.add_argument(
        "--timeout", type=number, default=60.0,
        help="seconds per run (per batch with {seeds}) before it counts as failed (default 60)",
    )
    p.add_argument(
        "--max-failure-rate", type=number, default=max_failure_rate,
        help=f"stop when more runs fail (default {max_failure_rate:g}{failure_note})",
    )
    p.add_argument("--alpha", type=number, default=1e-6, help="false-alarm probability (default 1e-6)")


def check_program_run_arguments(args: argparse.Namespace) -> None:
    """Refuse what :func:`add_program_run_arguments` adds when it is out of range."""
    check_positive(args.jobs, "--jobs", MAX_JOBS)
    if not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise InvalidParameterError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if not 0 <= args.max_failure_rate <= 1:
        raise InvalidParameterError(f"--max-failure-rate must be in [0, 1], got {args.max_failure_rate}")
    if not 0 < args.alpha < 1:
        raise InvalidParameterError(f"--alpha must be in (0, 1), got {args.alpha}")


PLACEHOLDERS = ("{data}", "{seed}", "{seeds}", "{out}", "{schema}")
"""What ``--cmd`` may contain in braces: the data's path, the seed or a file of seeds, the output file, the schema."""

_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")  # {name}; other braces (JSON) are the program's


def command_words(cmd: str, worker: bool = False) -> Tuple[str, ...]:
    """``--cmd`` split into words like a shell line, its placeholders checked for its protocol.

    One process per run needs the data ``{data}`` and the seed ``{seed}``;
    one per batch (``{seeds}``) the data and the file of seeds; a worker
    (``worker``) the data only, the seeds coming on its standard input.
    """
    try:
        words = tuple(shlex.split(cmd))
    except ValueError as exc:
        raise InvalidParameterError(f"--cmd cannot be split into words: {exc}") from None
    if not words:
        raise InvalidParameterError("--cmd is empty")
    found = {p for w in words for p in _PLACEHOLDER.findall(w)}
    unknown = sorted(found - set(PLACEHOLDERS))
    if unknown:
        raise InvalidParameterError(
            f"--cmd has the unknown placeholder(s) {', '.join(unknown)}; the placeholders are "
            f"{', '.join(PLACEHOLDERS)}"
        )
    if "{data}" not in found:
        raise InvalidParameterError("--cmd must pass the data to the program: put {data} where its path goes")
    if worker:
        extra = sorted(found & {"{seed}", "{seeds}", "{out}"})
        if extra:
            raise InvalidParameterError(
                f"--worker: --cmd starts a worker, which reads the seeds on its standard input and writes its outputs "
                f"on its standard output; remove {', '.join(extra)}"
            )
    elif "{seeds}" in found:
        if "{seed}" in found:
            raise InvalidParameterError(
                "--cmd has both {seed} (one process per run) and {seeds} (one process per batch of runs); keep one"
            )
    elif "{seed}" not in found:
        raise InvalidParameterError(
            "--cmd must pass the seed to the program ({seed}, or {seeds} for a file of seeds): runs must be "
            "replayable and independent"
        )
    return words


def add_program_arguments(p: argparse.ArgumentParser) -> None:
    """``--cmd`` or ``--python``, with ``--worker`` and ``--batch``: the program that ``audit-cmd`` or
    ``crosscheck-cmd`` runs, and how."""
    p.add_argument(
        "--cmd", default=None,
        help="the program's command line, e.g. './prog {data} {seed} {out}' (one process per run), "
        "'./prog {data} {seeds} {out}' (one per batch) or './prog {data}' with --worker",
    )
    p.add_argument(
        "--python", default=None, metavar="'MODULE:FUNCTION [ARG ...]'",
        help="call FUNCTION(data, seed, schema, *ARGS) of MODULE (a module or a .py file) in worker processes",
    )
    p.add_argument("--worker", action="store_true", help="--cmd starts workers: a seed per line in, an output line out")
    p.add_argument("--batch", type=integer, default=None, help="runs per batch with {seeds} (default: computed)")


def how_programs_ran(report: Mapping[str, Any]) -> str:
    """How a report's runs went: at a time, in batches or by workers, and the time limit.

    >>> how_programs_ran({"protocol": "batch", "batch": 500, "jobs": 2, "timeout": 60.0})
    'in batches of 500 runs, 2 batches at a time, time limit 60 s per batch'
    """
    jobs, limit = report["jobs"], f"{report['timeout']:g} s"
    if report["protocol"] == "batch":
        return f"in batches of {report['batch']} runs, {jobs} batches at a time, time limit {limit} per batch"
    if report["protocol"] in ("worker", "python"):
        return f"by {jobs} {'Python ' if report['protocol'] == 'python' else ''}workers, time limit {limit} per run"
    return f"{jobs} at a time, time limit {limit}"


def program_of(args: argparse.Namespace) -> Tuple[str, Tuple[str, ...], str]:
    """(the program as reports show it, its words, its protocol) from :func:`add_program_arguments`'s flags."""
    if (args.cmd is None) == (args.python is None):
        raise InvalidParameterError("give the program to run: --cmd COMMAND or --python MODULE:FUNCTION (one of them)")
    check_positive(args.batch, "--batch", MAX_RUNS)
    if args.python is not None:
        from refdp.audit.programs import python_target

        if args.worker or args.batch is not None:
            raise InvalidParameterError(
                "--python runs the function in worker processes: --worker and --batch go with --cmd"
            )
        try:
            words = tuple(shlex.split(args.python))
        except ValueError as exc:
            raise InvalidParameterError(f"--python cannot be split into words: {exc}") from None
        if not words:
            raise InvalidParameterError("--python is empty: give MODULE:FUNCTION")
        return f"--python {args.python}", (python_target(words[0]), *words[1:]), "python"
    words = command_words(args.cmd, args.worker)
    protocol = "worker" if args.worker else ("batch" if any("{seeds}" in w for w in words) else "run")
    if args.batch is not None and protocol != "batch":
        raise InvalidParameterError("--batch N: runs per batch of a --cmd with {seeds}; this --cmd has no {seeds}")
    return args.cmd, words, protocol
