"""Progress on stderr for runs that take a while: nothing for the first seconds, then one updated line.

:class:`Line` counts units of work (``audit: 120/400 runs (30%), 4.2 s``);
:class:`Phases` chains lines, one per phase of an audit; :class:`Ticker`
shows the elapsed time of one long step (training a model), from a
background thread since the step reports nothing until it ends.  Every line
is rewritten in place with a carriage return and ended by a newline when the
work ends, so stdout stays clean for results.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Callable, Optional, Type

__all__ = ["AFTER", "Line", "Phases", "Ticker"]

AFTER = 2.0
"""Seconds of work before a progress line appears."""


class Line:
    """A carriage-return progress line on stderr, once the work has taken :data:`AFTER` seconds."""

    def __init__(self, label: str, unit: str = "runs") -> None:
        self.label = label
        self.unit = unit
        self.started = time.perf_counter()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.started
        if elapsed < AFTER and not self.shown:
            return
        self.shown = True
        sys.stderr.write(f"\r{self.label}: {done}/{total} {self.unit} ({100 * done // max(total, 1)}%), {elapsed:.1f} s ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
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
    """While its ``with`` block runs longer than :data:`AFTER` seconds, ``label: 12 s`` on stderr, each second."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._shown = False

    def _tick(self) -> None:
        started = time.perf_counter()
        if self._done.wait(AFTER):
            return
        while True:
            self._shown = True
            sys.stderr.write(f"\r{self.label}: {time.perf_counter() - started:.0f} s ")
            sys.stderr.flush()
            if self._done.wait(1.0):
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
