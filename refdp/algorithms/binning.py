"""Public equal-width bins: continuous attributes for learners that split categorical ones.

DPDF and DPEA split an attribute into one child per value.  A continuous
attribute with public bounds [lower, upper] is cut into ``bins`` intervals
of equal width (:func:`equal_width_thresholds`, a function of the schema and
``bins`` alone); a record's bin is then a public, per-record function of its
value, so the learner may treat the attribute as a categorical one with
``bins`` values (:meth:`PublicBins.binned`) without any privacy cost, and
the released node is an :class:`~refdp.tree.IntervalSplit` on the original
attribute (:meth:`PublicBins.split`, :meth:`PublicBins.unbin`).
"""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_right
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.engine import Engine
from refdp.errors import SchemaError
from refdp.tree import CategoricalSplit, Count, IntervalSplit, Leaf, Node, ValueSplit

__all__ = ["PublicBins", "equal_width_thresholds"]


def equal_width_thresholds(attribute: ContinuousAttribute, bins: int) -> Tuple[float, ...]:
    """The bins - 1 inner cut points lower + i (upper - lower) / bins, i = 1 .. bins - 1, of the public bounds.

    Raises :class:`~refdp.errors.SchemaError` when the bounds are so close
    that rounding makes two cut points equal, or so far apart that their
    width is not a float.
    """
    lower, width = attribute.lower, attribute.upper - attribute.lower
    if math.isinf(width):
        raise SchemaError(
            f"attribute {attribute.name!r} has bounds [{attribute.lower!r}, {attribute.upper!r}] whose width "
            "overflows a float; declare narrower public bounds"
        )
    thresholds = tuple(lower + width * i / bins for i in range(1, bins))
    points = (lower,) + thresholds + (attribute.upper,)
    if any(a >= b for a, b in zip(points, points[1:])):
        raise SchemaError(
            f"attribute {attribute.name!r} has bounds [{attribute.lower!r}, {attribute.upper!r}], too "
            f"close to cut into {bins} distinct float intervals; use fewer bins or wider bounds"
        )
    return thresholds


@dataclass(frozen=True)
class PublicBins:
    """The bins of every continuous attribute of ``schema`` and the ledger conditions of every split's cells."""

    schema: Schema
    thresholds: Dict[int, Tuple[float, ...]]
    conditions: Tuple[Tuple[str, ...], ...]

    @staticmethod
    def of(schema: Schema, bins: int) -> "PublicBins":
        thresholds = {
            a: equal_width_thresholds(attribute, bins)
            for a, attribute in enumerate(schema.attributes)
            if isinstance(attribute, ContinuousAttribute)
        }
        return PublicBins(schema, thresholds, tuple(_conditions(schema, a, thresholds.get(a))
                                                   for a in range(schema.n_attributes)))

    def binned_by(self, engine: Engine, data: Dataset) -> Dataset:
        """:meth:`binned` of ``data``, kept with the data set for later fits if ``engine`` keeps what it derives."""
        return engine.derived(data, f"refdp.algorithms.binning.PublicBins.binned {self.thresholds!r}", self.binned)

    def binned_schema(self) -> Schema:
        """The schema of :meth:`binned` data: each continuous attribute a categorical one of its bins."""
        attributes = tuple(
            CategoricalAttribute(attribute.name, self.conditions[a]) if a in self.thresholds else attribute
            for a, attribute in enumerate(self.schema.attributes)
        )
        return dataclasses.replace(self.schema, attributes=attributes)

    def binned(self, data: Dataset) -> Dataset:
        """``data`` with each continuous column replaced by its bin codes (a categorical column whose
        values are the bins' conditions); the same rows in the same order."""
        columns = [
            _bin_codes(data.column(a), self.thresholds[a]) if a in self.thresholds else data.column(a)
            for a in range(self.schema.n_attributes)
        ]
        return Dataset.from_codes(self.binned_schema(), columns, data.labels, missing=data.missing)

    def split(self, a: int, children: Tuple[Node, ...], counts: Optional[Tuple[Count, ...]] = None) -> Node:
        """The released node of a split on ``a`` with one child per value (or bin)."""
        if a in self.thresholds:
            return IntervalSplit(a, self.thresholds[a], children, counts=counts)
        return CategoricalSplit(a, children, counts=counts)

    def unbin(self, node: Node) -> Node:
        """A tree grown on :meth:`binned` data, with its splits on binned attributes made interval splits."""
        if isinstance(node, Leaf):
            return node
        if isinstance(node, CategoricalSplit):
            return self.split(node.attribute, tuple(self.unbin(c) for c in node.children), node.counts)
        if isinstance(node, ValueSplit) and node.attribute not in self.thresholds:
            return ValueSplit(node.attribute, node.value, self.unbin(node.equal), self.unbin(node.rest), node.counts)
        raise SchemaError(f"unbin expects multiway splits on binned attributes, got {type(node).__name__}")


def _conditions(schema: Schema, a: int, thresholds: Optional[Tuple[float, ...]]) -> Tuple[str, ...]:
    """The ledger conditions of the cells of a split on ``a``, in child order."""
    attribute = schema.attributes[a]
    if isinstance(attribute, CategoricalAttribute):
        return tuple(f"{attribute.name}={value}" for value in attribute.values)
    assert thresholds is not None
    name, t = attribute.name, thresholds
    middle = tuple(f"{lo!r}<={name}<{hi!r}" for lo, hi in zip(t, t[1:]))
    return (f"{name}<{t[0]!r}",) + middle + (f"{name}>={t[-1]!r}",)


def _bin_codes(column: Sequence[Union[int, float]], thresholds: Tuple[float, ...]) -> List[int]:
    """The interval index of every value: the number of thresholds <= x, as IntervalSplit routes it."""
    return [bisect_right(thresholds, x) for x in column]
