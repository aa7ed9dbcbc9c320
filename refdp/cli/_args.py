"""Arguments several subcommands share: the data, ``--param KEY=VALUE``, the seed, counts >= 1, outputs."""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
from typing import TYPE_CHECKING, Dict, Optional, Sequence, Tuple

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
    "add_program_run_arguments",
    "add_seed_argument",
    "add_training_arguments",
    "check_missing_policy",
    "check_positive",
    "check_program_run_arguments",
    "command_words",
    "integer",
    "load_data",
    "number",
    "parse_params",
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
        "--engine", default="reference", choices=sorted(ENGINES), help="reference (default) or array: same model, faster"
    )


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
    p.add_argument("--timeout", type=number, default=60.0, help="seconds per run before it counts as failed (default 60)")
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


PLACEHOLDERS = ("{data}", "{seed}", "{out}", "{schema}")
"""What ``--cmd`` may contain in braces: the data's path, the seed, the output file, the schema's path."""

_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")  # {name}; other braces (JSON) are the program's


def command_words(cmd: str) -> Tuple[str, ...]:
    """``--cmd`` split into words like a shell line; it must pass the data ``{data}`` and the seed ``{seed}``."""
    try:
        words = tuple(shlex.split(cmd))
    except ValueError as exc:
        raise InvalidParameterError(f"--cmd cannot be split into words: {exc}") from None
    if not words:
        raise InvalidParameterError("--cmd is empty")
    unknown = sorted({p for w in words for p in _PLACEHOLDER.findall(w)} - set(PLACEHOLDERS))
    if unknown:
        raise InvalidParameterError(
            f"--cmd has the unknown placeholder(s) {', '.join(unknown)}; the placeholders are "
            f"{', '.join(PLACEHOLDERS)}"
        )
    if not any("{data}" in w for w in words):
        raise InvalidParameterError("--cmd must pass the data to the program: put {data} where its path goes")
    if not any("{seed}" in w for w in words):
        raise InvalidParameterError(
            "--cmd must pass the seed to the program ({seed}): runs must be replayable and independent"
        )
    return words
