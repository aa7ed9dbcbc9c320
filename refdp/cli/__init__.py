"""The command line: ``python3 -m refdp SUBCOMMAND`` (and the ``refdp`` console script).

One module per subcommand, each defining ``COMMAND`` (a :class:`Command`):
``demo``, ``train``, ``predict``, ``receipt``, ``evaluate``, ``algorithms``,
``datasets``, ``schema``, ``delta``, ``vectors``, ``audit``, ``audit-cmd``
(:mod:`refdp.cli.audit_cmd`) and ``crosscheck-cmd`` (:mod:`refdp.cli.crosscheck_cmd`).
:data:`COMMANDS` lists them in the order of the help.  Errors in the input
print one line on stderr, in the words of the command line
(:mod:`refdp.cli._wording`), and exit with status 2; Ctrl-C (SIGINT) prints
one line and exits with status 130, SIGTERM likewise with status 143: both
unwind the command as an exception would, so the programs of ``audit-cmd``
and ``crosscheck-cmd`` are killed and temporary files removed; none of
these shows a traceback.  The subcommand modules
import what they run inside their functions, and only the chosen
subcommand's options are built, so ``delta``, ``datasets`` or ``--help``
load no algorithm and no audit module.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import FrameType
from typing import Any, List, NoReturn, Optional, Tuple

from refdp.cli import (
    algorithms,
    audit,
    audit_cmd,
    crosscheck_cmd,
    datasets,
    delta,
    demo,
    evaluate,
    predict,
    receipt,
    schema,
    train,
    vectors,
)
from refdp import __version__
from refdp.cli._command import Command
from refdp.cli._wording import for_cli
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
    schema.COMMAND,
    delta.COMMAND,
    vectors.COMMAND,
    audit.COMMAND,
    audit_cmd.COMMAND,
    crosscheck_cmd.COMMAND,
)


class _UsageError(Exception):
    pass


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the main thread is, to unwind the command as Ctrl-C does."""


def _terminate(signum: int, frame: Optional[FrameType]) -> NoReturn:
    raise _Terminated


def _on_sigterm(handler: Any) -> Any:
    """Set SIGTERM's handler where this is the main thread; the handler it had (None: unchanged)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message} (see --help)")


def _fail(message: str) -> int:
    # one line whatever the message holds (a file name, a value pasted with a newline)
    print(f"refdp: error: {' '.join(message.splitlines())}", file=sys.stderr)
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
    parser.add_argument("--version", action="version", version=f"refdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", parser_class=_Parser)
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.description)
        if command.name == chosen:
            command.add_arguments(p)
        p.set_defaults(run=command.run)
    return parser


def _parameter_names() -> List[str]:
    from refdp.algorithms import algorithm_names, get_algorithm

    return sorted({p.name for name in algorithm_names() for p in get_algorithm(name).parameters})


def _run(parser: argparse.ArgumentParser, argv: Optional[List[str]]) -> int:
    args = parser.parse_args(argv)
    if args.command is None:
        names = ", ".join(c.name for c in COMMANDS)
        raise _UsageError(f"{parser.prog}: give a SUBCOMMAND ({names}); see --help")
    try:
        status: int = args.run(args)
    except RefdpError as exc:
        # --param NAME=VALUE only where the subcommand takes it (delta has --k and --beta)
        raise _UsageError(for_cli(str(exc), _parameter_names() if hasattr(args, "param") else ())) from None
    return status


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); return the exit status.

    Bad input prints one line on stderr and returns 2; Ctrl-C prints one line
    and returns 130, SIGTERM one line and 143.  None shows a traceback.
    """
    if argv is None:
        argv = sys.argv[1:]
    previous = _on_sigterm(_terminate)
    try:
        return _main(argv)
    except _Terminated:  # between _main's handlers and here
        print("refdp: terminated", file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            _on_sigterm(previous)


def _main(argv: List[str]) -> int:
    parser = _parser(_chosen(argv))
    try:
        return _run(parser, argv)
    except SystemExit as exc:  # --help and --version print and exit 0
        return exc.code if isinstance(exc.code, int) else 0
    except _UsageError as exc:
        return _fail(str(exc))
    except _Terminated:
        print("refdp: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("refdp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) has gone: not an error of ours; keep the
        # interpreter from complaining again when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        return _fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
    except RecursionError:
        return _fail("the input is nested too deeply to process")
    except Exception as exc:
        if os.environ.get("REFDP_TRACEBACK"):
            raise
        return _fail(
            f"internal error ({type(exc).__name__}: {exc}); this is a bug in refdp: please report it with "
            "the command line (REFDP_TRACEBACK=1 shows the traceback)"
        )
