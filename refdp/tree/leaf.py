"""Leaves: released (noisy) class counts and what is predicted from them.

Everything a leaf says (its class, confidence, support, probabilities) is
computed from the released counts only, never from the training data, so it
costs no privacy beyond the mechanism that produced the counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Tuple, Union

from refdp.errors import ModelError

__all__ = ["Leaf", "Count"]

Count = Union[int, float]


@dataclass(frozen=True)
class Leaf:
    """A leaf with one released count per class of the schema (noise included).

    Counts may be negative or fractional when noise was added.  The predicted
    class is the one with the largest released count; ties go to the class
    listed first in the schema.  Probabilities clip negative counts to 0 and
    fall back to the uniform distribution when no count is positive.
    """

    counts: Tuple[Count, ...]

    def __post_init__(self) -> None:
        if not self.counts:
            raise ModelError("a leaf needs one count per class; got none")

    @property
    def prediction(self) -> int:
        """Index of the predicted class."""
        best = 0
        for index, value in enumerate(self.counts):
            if value > self.counts[best]:
                best = index
        return best

    @property
    def informative(self) -> bool:
        """Whether some released count is positive (an empty or fully suppressed leaf is not)."""
        return max(self.counts) > 0

    @property
    def support(self) -> float:
        """Released size of the leaf: the sum of its counts, each clipped at 0.

        The same clipping as :meth:`probabilities`, so support and confidence
        describe one distribution.
        """
        return float(sum(max(0.0, float(c)) for c in self.counts))

    def probabilities(self) -> List[float]:
        clipped = [max(0.0, float(c)) for c in self.counts]
        total = sum(clipped)
        if total <= 0.0:
            return [1.0 / len(clipped)] * len(clipped)
        return [c / total for c in clipped]

    @property
    def confidence(self) -> float:
        """Share of the predicted class in the clipped released counts."""
        return self.probabilities()[self.prediction]

    def to_json(self) -> Dict[str, Any]:
        return {"type": "leaf", "counts": list(self.counts)}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Leaf":
        counts = obj.get("counts")
        if not isinstance(counts, list) or not all(
            isinstance(c, (int, float)) and not isinstance(c, bool) for c in counts
        ):
            raise ModelError(f"a leaf needs a list of numeric counts, got {counts!r}")
        return Leaf(tuple(counts))
