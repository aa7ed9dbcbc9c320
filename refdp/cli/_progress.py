"""Progress on stderr for runs that take a while: nothing for the first seconds, then one updated line.

:class:`Line` counts units of work (``audit: 120/400 runs (30%), 4.2 s``);
:class:`Phases` chains lines, one per phase of an audit; :class:`Ticker`
shows the elapsed time of one long step (training a model), from a
background thread since the step reports nothing until it ends.  On a
terminal every line is rewritten in place with a carriage return and ended
by a newline when the work ends; elsewhere (a log file, a pipe, CI) each
update is a line of its own, at most one every :data:`EVERY` seconds (and
the last), so a log holds no carriage returns.  stdout stays clean for
results.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Callable, Optional, Type

__all__ = ["AFTER", "EVERY", "Line", "Phases", "Ticker"]

AFTER = 2.0
"""Seconds of work before a progress line appears."""

EVERY = 10.0
"""Seconds between two progress lines where stderr is not a terminal."""


def _terminal() -> bool:
    """Whether stderr is a terminal, where a line can be rewritten in place."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


class Line:
    """A progress line on stderr, once the work has taken :data:`AFTER` seconds (see the module notes)."""

    def __init__(self, label: str, unit: str = "runs") -> None:
        self.label = label
        self.unit = unit
        self.started = time.perf_counter()
        self.shown = False
        self.terminal = _terminal()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.started
        if elapsed < AFTER and not self.shown:
            return
        text = f"{self.label}: {done}/{total} {self.unit} ({100 * done // max(total, 1)}%), {elapsed:.1f} s"
        if self.terminal:
            sys.stderr.write(f"\r{text} ")
        elif not self.shown or elapsed - self.last >= EVERY or done >= total:
            sys.stderr.write(f"{text}\n")
            self.last = elapsed
        self.shown = True
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown and self.terminal:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self.shown = False


_UNITS = {"replay": "pairs", "exact": "pairs"}
"""What a phase counts, when not runs."""


class Phases:
    """Progress lines one after the other: a phase's line ends when the next phase, or the work, does."""

    def __init__(self) -> None:
        self.line: Optional[Line] = None

    def __call__(self, label: str) -> Callable[[int, int], None]:
        self.close()
        self.line = Line(label, _UNITS.get(label, "runs"))
        return self.line

    def close(self) -> None:
        if self.line is not None:
            self.line.close()
            self.line = None


class Ticker:
    """While its ``with`` block runs longer than :data:`AFTER` seconds, ``label: 12 s`` on stderr.

    Each second on a terminal, each :data:`EVERY` seconds elsewhere.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._shown = False

    def _tick(self) -> None:
        started = time.perf_counter()
        terminal = _terminal()
        if self._done.wait(AFTER):
            return
        while True:
            self._shown = terminal
            text = f"{self.label}: {time.perf_counter() - started:.0f} s"
            sys.stderr.write(f"\r{text} " if terminal else f"{text}\n")
            sys.stderr.flush()
            if self._done.wait(1.0 if terminal else EVERY):
                return

    def __enter__(self) -> Ticker:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self._done.set()
        self._thread.join()
        if self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
