"""DPEA's subtree qualities as an input the replay audit compares (:mod:`refdp.mechanisms.recording`).

A subtree selection draws from a factorised law and never lists its
candidates; :class:`SubtreeQualities` bounds how much every candidate's
quality q'(st) moves between two data sets, exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

from refdp.algorithms.dpea_subtrees import leaf_exponent
from refdp.engine import TrainingView, class_counts
from refdp.mechanisms.recording import Call, CallInput, Finding

__all__ = ["SubtreeQualities"]


def _exact_leaf_quality(counts: Sequence[int]) -> Fraction:
    n, d = leaf_exponent(counts)
    return Fraction(-n, d)


@dataclass(frozen=True)
class SubtreeQualities:
    """q'(st) of every candidate subtree of a selection, as an input an audit compares (never listed).

    Between a node's rows on two data sets, q'(st) changes only in the
    leaves whose rows differ, and the candidates are a root attribute times
    independent children, so the largest and smallest change over all
    candidates follow the same recursion as the sampler's normalising
    constant, descending only where the rows differ.  The change is exact
    (Fractions); the bound it is held to is the mechanism's Delta q'
    (claim ``dpea-subtree-quality-sensitivity``), and with ``monotone`` all
    candidates must move one way.
    """

    view: TrainingView
    rows: Tuple[int, ...]
    attributes: Tuple[int, ...]
    levels: int
    sizes: Tuple[int, ...]
    monotone: bool

    def _record(self, i: int) -> Tuple[int, ...]:
        columns = self.view.columns
        return tuple(int(columns[a][i]) for a in range(len(self.sizes))) + (self.view.labels[i],)

    def _extremes(
        self, other: "SubtreeQualities", changed: List[Tuple[int, ...]], mine: List[int], theirs: List[int],
        attributes: Tuple[int, ...], levels: int,
    ) -> Tuple[Fraction, Fraction]:
        # Only the nodes that hold a changed record see a change; the others contribute 0 to every candidate.
        if not changed:
            return Fraction(0), Fraction(0)
        if levels == 0 or not attributes:
            change = _exact_leaf_quality(class_counts(other.view, theirs)) - _exact_leaf_quality(class_counts(self.view, mine))
            return change, change
        best: Optional[Tuple[Fraction, Fraction]] = None
        for a in attributes:
            rest = tuple(b for b in attributes if b != a)
            high = low = Fraction(0)
            for v in sorted({record[a] for record in changed}):
                h, lo = self._extremes(
                    other, [r for r in changed if r[a] == v],
                    [i for i in mine if int(self.view.columns[a][i]) == v],
                    [i for i in theirs if int(other.view.columns[a][i]) == v], rest, levels - 1,
                )
                high, low = high + h, low + lo
            best = (high, low) if best is None else (max(best[0], high), min(best[1], low))
        assert best is not None
        return best

    def finding(self, other: "CallInput", call: "Call") -> Optional["Finding"]:
        assert isinstance(other, SubtreeQualities)
        if call.sensitivity is None:
            return None
        counts: Dict[Tuple[int, ...], int] = {}
        for i in self.rows:
            counts[self._record(i)] = counts.get(self._record(i), 0) + 1
        for i in other.rows:
            counts[other._record(i)] = counts.get(other._record(i), 0) - 1
        changed = [record for record, n in counts.items() if n != 0]
        high, low = self._extremes(other, changed, list(self.rows), list(other.rows), self.attributes, self.levels)
        declared = Fraction(call.sensitivity) if not isinstance(call.sensitivity, float) else Fraction(
            *call.sensitivity.as_integer_ratio()
        )
        if max(high, -low) > declared:
            return Finding(
                "q'(st) over the candidate subtrees", f"changes by <= sensitivity {declared}",
                f"{float(max(high, -low)):.6g} (q' moves between {float(low):.6g} and {float(high):.6g})",
            )
        if self.monotone and high > 0 and low < 0:
            return Finding("monotone utilities", "all move one way (no factor 2)",
                           f"some q'(st) move up (by up to {float(high):.4g}) and others down")
        return None

    def own_finding(self, call: "Call") -> Optional["Finding"]:
        return None
