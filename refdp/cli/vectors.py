"""``vectors``: write the known-answer vectors (:mod:`refdp.vectors`), or check a directory of them."""

from __future__ import annotations

import argparse
from pathlib import Path

from refdp.cli._command import Command
from refdp.errors import InvalidParameterError

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=None, help="directory to write the JSON files into")
    p.add_argument("--check", default=None, metavar="DIR", help="recompute the cases in DIR with refdp and report mismatches")


def _run(args: argparse.Namespace) -> int:
    from refdp.vectors import check_vectors, write_vectors

    if args.out is None and args.check is None:
        raise InvalidParameterError("vectors needs --out DIR (write) or --check DIR (verify)")
    if args.check is not None and not Path(args.check).is_dir():
        raise InvalidParameterError(f"--check {args.check}: no such directory; give the directory of the vector files")
    if args.out is not None:
        for path in write_vectors(Path(args.out)):
            print(f"wrote {path}")
    if args.check is not None:
        problems = check_vectors(Path(args.check))
        for problem in problems:
            print(problem)
        print(f"{len(problems)} mismatch(es)" if problems else "all vectors reproduced")
        return 1 if problems else 0
    return 0


COMMAND = Command(
    "vectors",
    "write known-answer JSON vectors (quality scores, sensitivities, exponential mechanism, budgets, LQS delta)",
    _add_arguments,
    _run,
    description="Write the known-answer vectors (format: docs/vectors.md) into --out, or check a directory.",
)
