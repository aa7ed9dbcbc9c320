"""The command line: ``python3 -m refdp SUBCOMMAND`` (and the ``refdp`` console script).

One module per subcommand, each defining ``COMMAND`` (a :class:`Command`):
``demo``, ``train``, ``predict``, ``receipt``, ``evaluate``, ``algorithms``,
``datasets``, ``delta``, ``vectors``, ``audit`` and ``audit-cmd``
(:mod:`refdp.cli.audit_cmd`).  :data:`COMMANDS` lists them in the order of
the help.  Errors in the input print one line on stderr and exit with status
2, never a traceback.  The subcommand modules import what they run inside
their functions, and only the chosen subcommand's options are built, so
``delta``, ``datasets`` or ``--help`` load no algorithm and no audit module.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, NoReturn, Optional, Tuple

from refdp.cli import (
    algorithms,
    audit,
    audit_cmd,
    datasets,
    delta,
    demo,
    evaluate,
    predict,
    receipt,
    train,
    vectors,
)
from refdp.cli._command import Command
from refdp.errors import RefdpError

__all__ = ["COMMANDS", "Command", "main"]

COMMANDS: Tuple[Command, ...] = (
    demo.COMMAND,
    train.COMMAND,
    predict.COMMAND,
    receipt.COMMAND,
    evaluate.COMMAND,
    algorithms.COMMAND,
    datasets.COMMAND,
    delta.COMMAND,
    vectors.COMMAND,
    audit.COMMAND,
    audit_cmd.COMMAND,
)


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message} (see --help)")


def _fail(message: str) -> int:
    print(f"refdp: error: {message}", file=sys.stderr)
    return 2


def _chosen(argv: List[str]) -> Optional[str]:
    """The subcommand ``argv`` names: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def _parser(chosen: Optional[str]) -> argparse.ArgumentParser:
    """The parser; only the ``chosen`` subcommand gets its options, so that only its module's imports load."""
    parser = _Parser(
        prog="python3 -m refdp",
        description="refdp: a reference implementation of differentially private decision-tree learning.",
    )
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", parser_class=_Parser)
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.description)
        if command.name == chosen:
            command.add_arguments(p)
        p.set_defaults(run=command.run)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    if argv is None:
        argv = sys.argv[1:]
    parser = _parser(_chosen(argv))
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        status: int = args.run(args)
        return status
    except _UsageError as exc:
        return _fail(str(exc))
    except RefdpError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        # the reader (e.g. `| head`) has gone: not an error of ours; keep the
        # interpreter from complaining again when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        return _fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
