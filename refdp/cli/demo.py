"""``demo``: a sound DP tree on the voting records next to a non-private tree, with its rules and receipt."""

from __future__ import annotations

import argparse
import sys

from refdp.cli._args import add_seed_argument
from refdp.cli._command import Command

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--epsilon", default="1", help="privacy budget (default 1)")
    add_seed_argument(p)


def _run(args: argparse.Namespace) -> int:
    from refdp.demo import demo

    sys.stdout.write(demo(args.epsilon, args.seed))
    return 0


COMMAND = Command(
    "demo",
    "train a sound DP tree on the voting records next to a non-private tree; show its rules and receipt",
    _add_arguments,
    _run,
)
