"""How ``audit-cmd`` and ``crosscheck-cmd`` run another program: one process per run, per batch, or workers.

Four protocols (:data:`PROTOCOLS`), each a callable ``program(data_path,
seed) -> output text`` that raises :class:`~refdp.audit.external.RunFailed`
for a failed run:

* ``run`` (:class:`CommandProgram`): one process per run; in each word of
  the command ``{data}`` becomes the CSV file's path, ``{seed}`` the run's
  seed, ``{out}`` a fresh file the program writes (without it, its
  standard output is read) and ``{schema}`` the schema's path.  The time
  limit is per run.
* ``batch`` (:class:`BatchProgram`, a command with ``{seeds}``): one
  process per batch of runs; ``{seeds}`` becomes a file with one seed per
  line, and the program writes one output per line, in the same order, to
  ``{out}`` (or its standard output).  An empty or unreadable line is a
  failed run; a batch that exits non-zero, runs over its time limit (per
  batch) or writes another number of lines fails with all its runs.
  ``run_batch(data_path, seeds)`` runs one batch.
* ``worker`` (:class:`WorkerProgram`): long-running processes started with
  ``{data}`` and ``{schema}`` (no ``{seed}``, ``{seeds}`` or ``{out}``);
  refdp writes one seed per line to a worker's standard input and reads one
  output line from its standard output per seed.  The time limit is per
  run; a worker that exits, or runs over the limit, fails the run it was
  on, and a fresh one takes the next.
* ``python`` (:func:`python_program`): the worker protocol with a small
  interpreter of refdp's own as the worker, which imports ``MODULE`` (a
  module name, or the path of a ``.py`` file) and calls
  ``FUNCTION(data, seed, schema, *args)`` once per run -- ``data`` and
  ``schema`` the paths, ``seed`` an int, ``args`` the strings given after
  ``MODULE:FUNCTION`` (the budget and parameters, as a program gets them
  on its command line) -- in the worker process.  It returns the
  output: a string (one line), or any JSON value, which is written as JSON.
  An exception ends the worker: the run fails with the exception's last
  line, and a fresh worker takes the next run.  What the function prints
  goes to standard error, never into the outputs.

Every process is started through :class:`RunningPrograms`, in a process
group of its own, so that leaving ``with program.running:`` (normally, on
an error, on Ctrl-C or SIGTERM) kills every program still running, workers
included, with their children; nothing starts after that.  ``close()`` then
reaps the workers.
"""

from __future__ import annotations

import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Dict, List, Optional, Sequence, Set, Tuple, Type, Union

from refdp.audit.external import RunFailed
from refdp.errors import InvalidParameterError

__all__ = [
    "PROTOCOLS",
    "MAX_BATCH",
    "RunningPrograms",
    "CommandProgram",
    "BatchProgram",
    "WorkerProgram",
    "Program",
    "chunk_size",
    "default_batch",
    "make_program",
    "python_program",
    "python_target",
]

PROTOCOLS = ("run", "batch", "worker", "python")
"""One process per run, one per batch of runs (``{seeds}``), long-running workers, or a Python function."""

MAX_BATCH = 1000
"""The default batch holds at most this many runs (``--batch`` may ask for more)."""

_BATCHES_PER_JOB = 4  # so that the batches of a check spread over the jobs, and a failed batch is a small part
_STDERR_TAIL = 4096  # bytes of a worker's standard error read back for a failure's message


class RunningPrograms:
    """The programs of one audit, each started in a process group of its own; ``stop`` ends them all.

    Used as a context manager around the runs: leaving it (normally, on an
    error or on Ctrl-C) kills every process group still running and makes
    any later start fail at once, so the threads that wait on the programs
    return and the audit's temporary files can go.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: Set["subprocess.Popen[bytes]"] = set()
        self._stopped = False

    def start(
        self, argv: Sequence[str], *, stdin: Union[int, IO[bytes]] = subprocess.DEVNULL,
        stderr: Union[int, IO[bytes]] = subprocess.PIPE,
    ) -> "subprocess.Popen[bytes]":
        """Start ``argv`` in a new session (standard output a pipe); RunFailed once the audit is stopping."""
        with self._lock:
            if self._stopped:
                raise RunFailed("stopped", "the audit is stopping")
            try:
                proc = subprocess.Popen(
                    list(argv), stdin=stdin, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True,
                )
            except OSError as exc:
                raise RunFailed("error", f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
            self._running.add(proc)
            return proc

    def finished(self, proc: "subprocess.Popen[bytes]") -> None:
        """Forget ``proc``, which has been waited for."""
        with self._lock:
            self._running.discard(proc)

    def stop(self) -> None:
        """Kill every running program's process group; no program starts after this."""
        with self._lock:
            self._stopped = True
            for proc in self._running:
                signal_group(proc)

    def __enter__(self) -> RunningPrograms:
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.stop()


def signal_group(proc: "subprocess.Popen[bytes]") -> None:
    """SIGKILL the process group of ``proc`` (the process alone where there are no groups)."""
    killpg = getattr(os, "killpg", None)
    try:
        if killpg is not None:
            killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:
        pass  # it ended on its own in the meantime


def _kill(proc: "subprocess.Popen[bytes]") -> None:
    """End a program that ran out of time, with its process group where there are groups."""
    signal_group(proc)
    proc.communicate()


def _last_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else "(no stderr)"


def _fill(word: str, values: Dict[str, str]) -> str:
    for placeholder, value in values.items():
        word = word.replace(placeholder, value)
    return word


def _communicate(
    running: RunningPrograms, argv: Sequence[str], timeout: float, what: str
) -> bytes:
    """Run ``argv`` to its end within ``timeout``: its standard output, or RunFailed."""
    proc = running.start(argv)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise RunFailed("timeout", f"no result after {timeout:g} s ({what})") from None
    finally:
        running.finished(proc)
    if proc.returncode != 0:
        raise RunFailed("error", f"exit status {proc.returncode} ({what}): {_last_line(stderr)}")
    return stdout


def _read_output(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFailed("output", f"cannot read the output file ({what}): {exc}") from None


@dataclass(frozen=True)
class CommandProgram:
    """One run of an external command on a CSV file, as ``program(data_path, seed) -> output text``.

    The runs are started through ``running``; leave ``with program.running:``
    to end those still going (see :class:`RunningPrograms`).
    """

    words: Tuple[str, ...]
    schema_path: str
    workdir: str
    timeout: float
    running: RunningPrograms = field(default_factory=RunningPrograms, compare=False, repr=False)

    def __call__(self, data_path: str, seed: int) -> str:
        uses_out = any("{out}" in w for w in self.words)
        out_path = os.path.join(self.workdir, f"out-{seed}-{secrets.token_hex(4)}")
        values = {"{data}": data_path, "{seed}": str(seed), "{out}": out_path, "{schema}": self.schema_path}
        try:
            stdout = _communicate(self.running, [_fill(w, values) for w in self.words], self.timeout, f"seed {seed}")
            if not uses_out:
                return stdout.decode("utf-8", "replace")
            return _read_output(out_path, f"seed {seed}")
        finally:
            if uses_out and os.path.exists(out_path):
                os.remove(out_path)

    def close(self) -> None:
        """Nothing to do: every run's process has been waited for."""


@dataclass(frozen=True)
class BatchProgram:
    """Batches of runs of an external command: ``{seeds}`` is a file of seeds, one output line per seed.

    ``run_batch(data_path, seeds)`` gives each run's output text, or the
    :class:`RunFailed` of a failed run; ``timeout`` is the batch's limit.
    """

    words: Tuple[str, ...]
    schema_path: str
    workdir: str
    timeout: float
    running: RunningPrograms = field(default_factory=RunningPrograms, compare=False, repr=False)

    def __call__(self, data_path: str, seed: int) -> str:
        (result,) = self.run_batch(data_path, [seed])
        if isinstance(result, RunFailed):
            raise result
        return result

    def run_batch(self, data_path: str, seeds: Sequence[int]) -> List[Union[str, RunFailed]]:
        token = secrets.token_hex(4)
        seeds_path = os.path.join(self.workdir, f"seeds-{token}")
        out_path = os.path.join(self.workdir, f"out-{token}")
        uses_out = any("{out}" in w for w in self.words)
        what = f"the batch of {len(seeds)} runs from seed {seeds[0]}"
        values = {"{data}": data_path, "{seeds}": seeds_path, "{out}": out_path, "{schema}": self.schema_path}
        try:
            Path(seeds_path).write_text("".join(f"{s}\n" for s in seeds), encoding="utf-8")
            try:
                stdout = _communicate(self.running, [_fill(w, values) for w in self.words], self.timeout, what)
                text = _read_output(out_path, what) if uses_out else stdout.decode("utf-8", "replace")
            except RunFailed as failed:
                return [failed] * len(seeds)
        finally:
            for path in (seeds_path, out_path):
                if os.path.exists(path):
                    os.remove(path)
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the newline that ends the last line
        if len(lines) != len(seeds):
            return [RunFailed("output", f"{what} wrote {len(lines)} lines for {len(seeds)} seeds")] * len(seeds)
        return [line.rstrip("\r") for line in lines]

    def close(self) -> None:
        """Nothing to do: every batch's process has been waited for."""


class _Worker:
    """One long-running worker process: a seed line in, an output line out."""

    def __init__(self, proc: "subprocess.Popen[bytes]", stderr_path: str) -> None:
        self.proc = proc
        self.stderr_path = stderr_path
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        for line in iter(stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(None)  # the worker closed its output: it has ended

    def ask(self, seed: int, timeout: float) -> str:
        """The worker's output line for ``seed``; RunFailed when it ends or runs over ``timeout``."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(f"{seed}\n".encode("ascii"))
            stdin.flush()
        except OSError:
            raise self._ended(seed) from None
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            signal_group(self.proc)
            raise RunFailed("timeout", f"no result after {timeout:g} s (seed {seed})") from None
        if line is None:
            raise self._ended(seed)
        return line.decode("utf-8", "replace").rstrip("\r\n")

    def _ended(self, seed: int) -> RunFailed:
        signal_group(self.proc)
        status = self.proc.wait()
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(max(0, os.path.getsize(self.stderr_path) - _STDERR_TAIL))
                tail = f.read()
        except OSError:
            tail = b""
        return RunFailed("error", f"the worker ended with exit status {status} (seed {seed}): {_last_line(tail)}")

    def close(self) -> None:
        """End the worker (its process group) and reap it."""
        signal_group(self.proc)
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        self.reader.join(timeout=5)


@dataclass(frozen=True)
class WorkerProgram:
    """Runs answered by long-running worker processes of the command ``words`` (see the module notes).

    At most ``jobs`` workers live at once; a worker serves one data file
    (``{data}`` is filled in when it starts) and is reused for every run on
    it.  ``timeout`` is per run.
    """

    words: Tuple[str, ...]
    schema_path: str
    workdir: str
    timeout: float
    jobs: int
    running: RunningPrograms = field(default_factory=RunningPrograms, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)
    _idle: Dict[str, List[_Worker]] = field(default_factory=dict, compare=False, repr=False)
    _all: List[_Worker] = field(default_factory=list, compare=False, repr=False)

    def __call__(self, data_path: str, seed: int) -> str:
        worker = self._acquire(data_path)
        try:
            line = worker.ask(seed, self.timeout)
        except RunFailed:
            self._retire(worker)
            raise
        with self._lock:
            self._idle.setdefault(data_path, []).append(worker)
        return line

    def _acquire(self, data_path: str) -> _Worker:
        with self._lock:
            idle = self._idle.get(data_path)
            if idle:
                return idle.pop()
            # one worker per job: make room by ending an idle worker of another data file
            victim: Optional[_Worker] = None
            if len(self._all) >= self.jobs:
                victim = next((ws.pop() for path, ws in self._idle.items() if path != data_path and ws), None)
                if victim is not None:
                    self._all.remove(victim)
        if victim is not None:
            self._close(victim)
        return self._start(data_path)

    def _start(self, data_path: str) -> _Worker:
        values = {"{data}": data_path, "{schema}": self.schema_path}
        stderr_path = os.path.join(self.workdir, f"worker-{secrets.token_hex(4)}.err")
        with open(stderr_path, "wb") as stderr:
            proc = self.running.start([_fill(w, values) for w in self.words], stdin=subprocess.PIPE, stderr=stderr)
        worker = _Worker(proc, stderr_path)
        with self._lock:
            self._all.append(worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
        self._close(worker)

    def _close(self, worker: _Worker) -> None:
        worker.close()
        self.running.finished(worker.proc)

    def close(self) -> None:
        """End and reap every worker (after the runs; leaving ``running`` has already killed them)."""
        with self._lock:
            workers, self._all[:] = list(self._all), []
            self._idle.clear()
        for worker in workers:
            self._close(worker)


Program = Union[CommandProgram, BatchProgram, WorkerProgram]

_PYTHON_WORKER = r"""
import importlib, importlib.util, json, os, sys
def target(spec):
    module, _, name = spec.rpartition(":")
    if module.endswith(".py") or "/" in module or os.sep in module:
        found = importlib.util.spec_from_file_location("refdp_python_target", module)
        if found is None or found.loader is None:
            raise ImportError(f"cannot load {module!r} as a Python file")
        loaded = importlib.util.module_from_spec(found)
        sys.modules["refdp_python_target"] = loaded
        found.loader.exec_module(loaded)
    else:
        loaded = importlib.import_module(module)
    function = getattr(loaded, name, None)
    if not callable(function):
        raise AttributeError(f"{module} has no function {name!r}")
    return function
def main():
    spec, data, schema, *args = sys.argv[1:]
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the function prints goes to standard error, not among the outputs
    sys.stdout = sys.stderr
    function = target(spec)
    for line in sys.stdin:
        output = function(data, int(line), schema, *args)
        text = output if isinstance(output, str) else json.dumps(output)
        text = text.rstrip("\r\n")
        if "\n" in text:
            raise ValueError("the output of one run must be one line")
        replies.write(text + "\n")
        replies.flush()
main()
"""


def python_target(text: str) -> str:
    """``MODULE:FUNCTION`` checked for its form (the import happens in the workers); the text itself.

    >>> python_target("examples/crosscheck_external/root_split.py:root_split")
    'examples/crosscheck_external/root_split.py:root_split'
    """
    module, colon, name = text.rpartition(":")
    if not colon or not module or not name.isidentifier():
        raise InvalidParameterError(
            f"--python {text!r}: give MODULE:FUNCTION, a module name or the path of a .py file, a colon and the "
            "name of a function in it (for example mypkg.check:root_split or ./root_split.py:root_split)"
        )
    return text


def python_program(
    target: str, args: Tuple[str, ...], schema_path: str, workdir: str, timeout: float, jobs: int
) -> WorkerProgram:
    """The ``python`` protocol: workers of this interpreter that call ``target`` (``MODULE:FUNCTION``) with
    the data, the seed, the schema and ``args``."""
    words = (sys.executable, "-c", _PYTHON_WORKER, python_target(target), "{data}", "{schema}", *args)
    return WorkerProgram(words, schema_path, workdir, timeout, jobs)


def make_program(
    protocol: str, words: Tuple[str, ...], schema_path: str, workdir: str, timeout: float, jobs: int
) -> Program:
    """The program of ``protocol`` (:data:`PROTOCOLS`); for ``python``, ``words`` is ``(MODULE:FUNCTION, ARG, ...)``."""
    if protocol == "run":
        return CommandProgram(words, schema_path, workdir, timeout)
    if protocol == "batch":
        return BatchProgram(words, schema_path, workdir, timeout)
    if protocol == "worker":
        return WorkerProgram(words, schema_path, workdir, timeout, jobs)
    if protocol == "python":
        return python_program(words[0], words[1:], schema_path, workdir, timeout, jobs)
    raise InvalidParameterError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")


def default_batch(runs: int, jobs: int) -> int:
    """Runs per batch when not given: about four batches per job, at most :data:`MAX_BATCH`.

    >>> default_batch(19316, 2), default_batch(40, 2), default_batch(1, 8)
    (1000, 5, 1)
    """
    return max(1, min(MAX_BATCH, -(-runs // (_BATCHES_PER_JOB * jobs))))


def chunk_size(protocol: str, batch: Optional[int], runs: int, jobs: int) -> int:
    """The runs handed to one thread at a time: a batch, or a few runs of the other protocols."""
    if protocol == "batch":
        return batch if batch is not None else default_batch(runs, jobs)
    return 2 if protocol == "run" else 16
