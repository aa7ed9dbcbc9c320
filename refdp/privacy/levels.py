"""Soundness levels: how far a receipt's privacy claim is backed by ``proofs/``.

A level is computed from the ``Status:`` lines of the claims the charges cite
(:data:`refdp.proofs_index.STATUS`, generated from ``proofs/``), never typed by
hand:

* ``proved``: every charge is sound, nothing leaked, and every claim behind
  every charge is ``proved``;
* ``idealised``: every charge is sound and nothing leaked, but some claim is
  ``needs-idealised-numerics``: the guarantee holds in exact real arithmetic,
  and floating point may break it (see that claim's file);
* ``unsound``: some charge is unsound, something leaked, or some claim is
  ``published-but-unsound`` (or unknown to this refdp, which then cannot vouch
  for it).
"""

from __future__ import annotations

from typing import Dict, Iterable, Optional

from refdp.proofs_index import STATUS

__all__ = [
    "PROVED",
    "IDEALISED",
    "UNSOUND",
    "LEVELS",
    "MEANING",
    "UNKNOWN_STATUS",
    "claim_status",
    "level_of",
    "worst_level",
]

PROVED = "proved"
IDEALISED = "idealised"
UNSOUND = "unsound"
LEVELS = (PROVED, IDEALISED, UNSOUND)
"""From best to worst."""

MEANING: Dict[str, str] = {
    PROVED: "every step is sound and every claim behind it is proved",
    IDEALISED: "every step is sound, but some claim holds only in exact real arithmetic (needs-idealised-numerics)",
    UNSOUND: "NOT differentially private as stated: an unsound step, a leak or a published-but-unsound claim",
}

UNKNOWN_STATUS = "unknown"
"""The status reported for a claim ID that has no file in ``proofs/``."""


def claim_status(claim_id: str) -> Optional[str]:
    """The ``Status:`` of ``claim_id`` in ``proofs/``, or None when there is no such claim."""
    return STATUS.get(claim_id)


def level_of(claims: Iterable[str], *, unsound_step: bool) -> str:
    """The level of steps citing ``claims``; ``unsound_step`` is an unsound charge or a leak."""
    if unsound_step:
        return UNSOUND
    statuses = {claim_status(c) for c in claims}
    if None in statuses or "published-but-unsound" in statuses:
        return UNSOUND
    if "needs-idealised-numerics" in statuses:
        return IDEALISED
    return PROVED


def worst_level(levels: Iterable[str]) -> str:
    """The worst of ``levels`` (``proved`` for none)."""
    return max(levels, key=LEVELS.index, default=PROVED)
