"""Arguments several subcommands share: the data, ``--param KEY=VALUE``, the seed, counts >= 1."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Dict, Optional, Sequence

from refdp.errors import InvalidParameterError

if TYPE_CHECKING:
    from refdp.data import Dataset

__all__ = [
    "add_data_arguments",
    "add_param_argument",
    "add_seed_argument",
    "add_training_arguments",
    "check_positive",
    "load_data",
    "parse_params",
]


def add_data_arguments(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """``--data`` (a built-in name or a file), ``--label`` and ``--schema``; :func:`load_data` reads them."""
    p.add_argument("--data", required=required, help="a built-in data set name or a .csv/.arff path")
    p.add_argument("--label", default=None, help="class column of a file (default: the last)")
    p.add_argument("--schema", default=None, help="schema JSON file for a CSV file")


def load_data(args: argparse.Namespace) -> Dataset:
    """The data set that ``--data``, ``--label`` and ``--schema`` name."""
    from refdp.data import load, read_schema

    schema = read_schema(args.schema) if args.schema else None
    return load(args.data, label=args.label, schema=schema)


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
        out[key.strip()] = value.strip()
    return out


def add_training_arguments(p: argparse.ArgumentParser) -> None:
    """The data and what training needs besides the algorithm: budget, parameters, relation, engine."""
    add_data_arguments(p)
    p.add_argument("--epsilon", required=True, help="total privacy budget, e.g. 1 or 0.5 or 1/3")
    add_param_argument(p)
    p.add_argument("--relation", default="add-remove", help="neighbouring relation: add-remove (default) or substitute")
    p.add_argument("--engine", default="reference", help="reference (default) or array: same model, faster")


def add_seed_argument(p: argparse.ArgumentParser) -> None:
    """``--seed`` for replay; without it, secure randomness."""
    p.add_argument("--seed", type=int, default=None, help="seed for replay (default: secure randomness)")


def check_positive(value: Optional[int], flag: str) -> None:
    """Refuse a count below 1 (None means the flag was not given)."""
    if value is not None and value < 1:
        raise InvalidParameterError(f"{flag} must be >= 1, got {value}")
