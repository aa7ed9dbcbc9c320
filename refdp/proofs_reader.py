"""Reading the claims in ``proofs/``.

Each claim lives in ``proofs/<ID>.md``.  The file starts with ``# <ID>: <one-line
statement>`` and has a ``Status:`` line whose value is one of :data:`STATUSES`
and a ``Relation:`` line.  Tests name the claims they check with
``@pytest.mark.claim("<ID>", ...)``; ``tests/test_proofs.py`` fails when a claim
has no test or a test names an unknown claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Tuple

__all__ = ["STATUSES", "Claim", "read_claims", "proofs_dir"]

STATUSES: Tuple[str, ...] = ("proved", "published-but-unsound", "needs-idealised-numerics")

_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Claim:
    """One claim file: its ID, statement, status and relation."""

    id: str
    statement: str
    status: str
    relation: str


def proofs_dir() -> Path:
    """The ``proofs/`` folder next to the package (present in a source checkout only).

    The statuses a receipt needs at run time come from :mod:`refdp.proofs_index`,
    a module, so they are there wherever the package is (a wheel, a zip file).
    """
    return Path(__file__).resolve().parent.parent / "proofs"


def _field(text: str, name: str, path: Path) -> str:
    match = re.search(rf"^{name}:\s*(.+?)\s*$", text, flags=re.MULTILINE)
    if match is None:
        raise ValueError(f"{path}: missing a '{name}:' line")
    return match.group(1)


def read_claims(folder: Path) -> Dict[str, Claim]:
    """Parse every claim file in ``folder`` (README.md excluded).

    FileNotFoundError when ``folder`` is not a folder: an installed or zipped
    refdp has no ``proofs/``, and an empty answer would read as "no claims".
    """
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{folder} is not a folder: the claim files ship with a source checkout of refdp, not "
            "with the package (refdp.proofs_index.STATUS holds their statuses)"
        )
    claims: Dict[str, Claim] = {}
    for path in sorted(folder.glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        text = path.read_text(encoding="utf-8")
        first = text.splitlines()[0] if text else ""
        match = re.match(r"^# ([a-z0-9-]+): (.+)$", first)
        if match is None or match.group(1) != path.stem or not _ID.match(path.stem):
            raise ValueError(f"{path}: first line must be '# {path.stem}: <statement>'")
        status = _field(text, "Status", path)
        if status not in STATUSES:
            raise ValueError(f"{path}: Status must be one of {STATUSES}, got {status!r}")
        claims[path.stem] = Claim(path.stem, match.group(2), status, _field(text, "Relation", path))
    return claims
