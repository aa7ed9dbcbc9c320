"""Where an audit's runs execute: inline, a local process pool, or a Dask cluster.

The verdict and every count depend on the audit's seed only: each chunk of
runs draws from its own seeded stream and the results are gathered in seed
order, so an executor changes the wall-clock time and nothing else (the
test ``test_audit_executors`` checks this on a Dask ``LocalCluster``).

Dask is optional.  ``distributed`` is imported only when a ``dask:`` spec
is given, and its absence is reported with the extra to install
(``pip install 'refdp[distributed]'``); nothing else in refdp imports it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import importlib
import signal
from typing import Any, Iterator, Optional

from refdp.errors import InvalidParameterError

__all__ = ["EXECUTOR_HELP", "audit_executor", "check_executor_spec"]

EXECUTOR_HELP = (
    "where the runs execute: 'process' (default: --workers local processes; 1 runs inline), "
    "'dask:ADDRESS' (a running Dask scheduler, e.g. dask:tcp://10.0.0.5:8786), "
    "'dask:scheduler-file=PATH' or 'dask:local' (a Dask LocalCluster of --workers processes); "
    "dask needs pip install 'refdp[distributed]'.  The verdict does not depend on it"
)

_LOCAL = "local"
_SCHEDULER_FILE = "scheduler-file="


def check_executor_spec(spec: str) -> None:
    """Refuse a malformed ``--executor`` value before any run (the cluster is reached later)."""
    if spec == "process":
        return
    kind, sep, where = spec.partition(":")
    if kind != "dask" or not sep or not where.strip():
        raise InvalidParameterError(
            f"--executor must be process, dask:ADDRESS, dask:scheduler-file=PATH or dask:local, got {spec!r}"
        )
    if where.startswith(_SCHEDULER_FILE) and not where[len(_SCHEDULER_FILE):].strip():
        raise InvalidParameterError("--executor dask:scheduler-file=PATH needs a path")


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise InvalidParameterError(
            "--executor dask:... needs Dask's distributed package, which refdp does not install by itself: "
            "pip install 'refdp[distributed]' (or pip install distributed)"
        ) from None


@contextlib.contextmanager
def _dask(where: str, workers: int) -> Iterator[concurrent.futures.Executor]:
    distributed = _distributed()
    with contextlib.ExitStack() as stack:
        if where == _LOCAL:
            cluster = stack.enter_context(
                distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            )
            client = stack.enter_context(distributed.Client(cluster))
        elif where.startswith(_SCHEDULER_FILE):
            client = stack.enter_context(distributed.Client(scheduler_file=where[len(_SCHEDULER_FILE):]))
        else:
            client = stack.enter_context(distributed.Client(where))
        # pure=False: two chunks never share a result, even when Dask would hash them alike.
        yield client.get_executor(pure=False)


def _leave_interrupts_to_the_parent() -> None:
    # Ctrl-C reaches every process of the terminal's group; the parent alone reports it
    # (one line) and stops the pool, instead of each worker printing a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def audit_executor(spec: str, workers: int) -> Iterator[Optional[concurrent.futures.Executor]]:
    """The executor ``spec`` names, shut down on exit; None means run inline.

    ``spec`` is ``"process"`` (``workers`` local processes, inline for one),
    ``"dask:ADDRESS"``, ``"dask:scheduler-file=PATH"`` or ``"dask:local"``
    (a ``LocalCluster`` of ``workers`` single-threaded processes).
    """
    check_executor_spec(spec)
    if spec == "process":
        if workers <= 1:
            yield None
            return
        pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=_leave_interrupts_to_the_parent)
        try:
            yield pool
        except BaseException:
            # Ctrl-C or an error: the queued chunks are not wanted any more
            pool.shutdown(cancel_futures=True)
            raise
        pool.shutdown()
        return
    with _dask(spec.partition(":")[2], workers) as executor:
        yield executor
