"""``datasets``: the built-in data sets, one line each."""

from __future__ import annotations

import argparse

from refdp.cli._command import Command

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    """``datasets`` takes no options."""


def _run(args: argparse.Namespace) -> int:
    from refdp.data import BUILTIN_NAMES, describe_builtin

    for name in BUILTIN_NAMES:
        # describe_builtin's line starts with the name
        print(describe_builtin(name))
    return 0


COMMAND = Command("datasets", "list the built-in data sets", _add_arguments, _run)
