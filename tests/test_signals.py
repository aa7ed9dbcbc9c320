"""Ctrl-C and SIGTERM stop ``audit-cmd`` and ``crosscheck-cmd`` while the external program runs.

The program is a shell script that records its process id and its child's
(a ``sleep 600`` in the background) and waits: without the signal handling
the command would wait ten minutes per run.  It runs by every protocol: a
process per run, per batch of runs (``{seeds}``), as a worker (which never
answers), and as a Python function (``--python``, which records its worker
and a ``sleep 600`` it starts).  Each test starts ``python3 -m
refdp`` in a session of its own, waits until two runs have started, sends
the signal to the session's process group (as a terminal does for Ctrl-C),
and checks: exit status 130 (SIGINT) or 143 (SIGTERM), the one line
``refdp: interrupted`` / ``refdp: terminated`` at the end of stderr and no
traceback, every recorded process gone, no run started after the signal, and
no ``refdp-audit-cmd-*`` / ``refdp-crosscheck-cmd-*`` directory left in
``TMPDIR``.  The 120 s limit on the wait only keeps a regression from hanging
the suite; the tests assert no time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent

SLOW = """#!/bin/sh
echo $$ > "$REFDP_TEST_MARKS/run-$$"
sleep 600 &
echo $! > "$REFDP_TEST_MARKS/child-$!"
wait
"""

COMMANDS = {
    "audit-cmd": ["audit-cmd", "--data", "vote", "--rows", "5", "--epsilon", "1", "--neighbours", "index:0",
                  "--trials", "20", "--seed", "1"],
    "crosscheck-cmd": ["crosscheck-cmd", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                       "--output", "leaf-counts", "--runs", "20", "--seed", "1"],
}

SIGNALS = [(signal.SIGINT, 130, "refdp: interrupted"), (signal.SIGTERM, 143, "refdp: terminated")]

# The same slow program as a Python function for --python: its worker records itself and its child.
SLOW_PYTHON = """
import os, subprocess

def slow(data, seed, schema):
    marks = os.environ["REFDP_TEST_MARKS"]
    with open(os.path.join(marks, f"run-{os.getpid()}"), "w") as f:
        f.write(str(os.getpid()))
    child = subprocess.Popen(["sleep", "600"])
    with open(os.path.join(marks, f"child-{child.pid}"), "w") as f:
        f.write(str(child.pid))
    child.wait()
"""


def _program(protocol: str, script: Path, module: Path) -> List[str]:
    """The flags that run the slow program by ``protocol``: every run (batch, worker) waits ten minutes."""
    return {
        "run": ["--cmd", f"sh {script} {{data}} {{seed}}"],
        "batch": ["--cmd", f"sh {script} {{data}} {{seeds}}", "--batch", "3"],
        "worker": ["--worker", "--cmd", f"sh {script} {{data}}"],
        "python": ["--python", f"{module}:slow"],
    }[protocol]


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return fields[0] != "Z"


def _pids(marks: Path) -> List[int]:
    return [int(p.read_text()) for p in marks.iterdir() if p.read_text().strip()]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("protocol", ["run", "batch", "worker", "python"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("sig, status, line", SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_command_its_programs_and_its_files(
    command: str, sig: signal.Signals, status: int, line: str, protocol: str, tmp_path: Path
) -> None:
    script = tmp_path / "slow.sh"
    script.write_text(SLOW, encoding="utf-8")
    module = tmp_path / "slow.py"
    module.write_text(SLOW_PYTHON, encoding="utf-8")
    marks, tmp = tmp_path / "marks", tmp_path / "tmp"
    marks.mkdir()
    tmp.mkdir()
    env = {**os.environ, "REFDP_TEST_MARKS": str(marks), "TMPDIR": str(tmp)}
    argv = [sys.executable, "-m", "refdp", *COMMANDS[command], *_program(protocol, script, module),
            "--jobs", "2", "--timeout", "1000"]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        while len(list(marks.glob("run-*"))) < 2 or len(list(marks.glob("child-*"))) < 2:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        started = set(_pids(marks))
        os.killpg(proc.pid, sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = err.decode()
    assert proc.returncode == status, text
    assert text.endswith(f"{line}\n") and "Traceback" not in text, text
    assert out == b""
    assert set(_pids(marks)) == started and len(started) == 4, "a run started after the signal"
    deadline = time.monotonic() + 30  # SIGKILL is prompt; this only bounds the wait for the grandchildren
    while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in started if _alive(pid)], "a program outlived the command"
    assert list(tmp.iterdir()) == [], "a temporary directory was left"
