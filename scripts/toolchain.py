"""Does a virtual environment hold exactly what a lock names?

``./scripts/check`` and ``scripts/smoke`` reuse a virtual environment only when
every distribution installed in it (as ``pip freeze`` lists them: pip,
setuptools, wheel and distribute are the installer's own and not counted) is
named in the lock at the same version; otherwise they rebuild it. A package the
lock does not name is how an unpinned release would reach the check.

    python3 scripts/toolchain.py --lock requirements-test.txt --python .venv/bin/python

exits 0 when the environment matches, 1 (with the differences) when it does not.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Mapping, Set

INSTALLER_OWN = frozenset({"pip", "setuptools", "wheel", "distribute"})
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
_LIST_INSTALLED = (
    "import importlib.metadata as m, json; "
    "print(json.dumps(sorted({(d.metadata['Name'], d.version) for d in m.distributions()})))"
)


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares it.

    >>> normalise("Typing_Extensions")
    'typing-extensions'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins(text: str) -> Dict[str, Set[str]]:
    """Every (name, version) a lock pins, whatever its marker.

    >>> lock_pins("pytest==8.4.2 \\\\\\n    --hash=sha256:00\\nhypothesis==6.1 ; python_version < '3.10'\\n")
    {'pytest': {'8.4.2'}, 'hypothesis': {'6.1'}}
    """
    pins: Dict[str, Set[str]] = {}
    for line in text.splitlines():
        match = _PIN.match(line)
        if match:
            pins.setdefault(normalise(match.group(1)), set()).add(match.group(2))
    return pins


def differences(installed: Mapping[str, str], pins: Mapping[str, Set[str]]) -> List[str]:
    """What an environment holds that the lock does not name, one line each.

    >>> differences({"pytest": "8.4.2", "packaging": "26.4"}, {"pytest": {"8.4.2"}, "packaging": {"26.3"}})
    ['packaging 26.4 is installed; the lock pins 26.3']
    >>> differences({"six": "1.16.0"}, {})
    ['six 1.16.0 is installed; the lock does not name it']
    """
    found = []
    for name, version in sorted(installed.items()):
        key = normalise(name)
        if key in INSTALLER_OWN:
            continue
        if key not in pins:
            found.append(f"{name} {version} is installed; the lock does not name it")
        elif version not in pins[key]:
            found.append(f"{name} {version} is installed; the lock pins {' or '.join(sorted(pins[key]))}")
    return found


def installed_in(python: str) -> Dict[str, str]:
    """The distributions installed for an interpreter, name to version."""
    out = subprocess.run([python, "-c", _LIST_INSTALLED], check=True, capture_output=True, text=True).stdout
    return {name: version for name, version in json.loads(out)}


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lock", required=True, type=Path)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args(argv)
    found = differences(installed_in(args.python), lock_pins(args.lock.read_text(encoding="utf-8")))
    for line in found:
        print(f"toolchain: {line} ({args.lock})", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
