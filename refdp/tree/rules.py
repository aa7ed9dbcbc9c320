"""Rules: every root-to-node path with what the released counts say about it.

Fletcher & Islam (2015, sec. 3.3) output every root-to-leaf rule and every
root-to-node prefix.  Each :class:`Rule` has its conditions, the predicted
class, the confidence (share of that class) and the support (the clipped sum
of the released counts) -- all computed from released counts only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Tuple

from refdp.data import CategoricalAttribute, Schema
from refdp.data.grid import format_threshold
from refdp.tree.leaf import Leaf
from refdp.tree.nodes import CategoricalSplit, IntervalSplit, Node, ValueSplit, children_of, released_counts

__all__ = ["Rule", "rules", "conditions_of"]


@dataclass(frozen=True)
class Rule:
    conditions: Tuple[str, ...]
    prediction: str
    confidence: float
    support: float
    is_leaf: bool

    def __str__(self) -> str:
        body = " and ".join(self.conditions) or "(all rows)"
        kind = "leaf" if self.is_leaf else "node"
        return f"if {body} then {self.prediction} (confidence {self.confidence:.3f}, support {self.support:.1f}, {kind})"


def conditions_of(node: Node, schema: Schema) -> List[str]:
    """The condition leading to each child of ``node``, in child order."""
    if isinstance(node, Leaf):
        return []
    attribute = schema.attributes[node.attribute]
    name = attribute.name
    if isinstance(node, CategoricalSplit):
        assert isinstance(attribute, CategoricalAttribute)
        return [f"{name} = {v}" for v in attribute.values]
    if isinstance(node, ValueSplit):
        assert isinstance(attribute, CategoricalAttribute)
        value = attribute.values[node.value]
        return [f"{name} = {value}", f"{name} != {value}"]
    if isinstance(node, IntervalSplit):
        t = node.thresholds
        middle = [f"{a!r} <= {name} < {b!r}" for a, b in zip(t, t[1:])]
        return [f"{name} < {t[0]!r}"] + middle + [f"{name} >= {t[-1]!r}"]
    shown = format_threshold(node.threshold)
    return [f"{name} < {shown}", f"{name} >= {shown}"]


def _walk(node: Node, schema: Schema, path: Tuple[str, ...]) -> Iterator[Rule]:
    leaf = Leaf(released_counts(node))
    yield Rule(path, schema.classes[leaf.prediction], leaf.confidence, leaf.support, isinstance(node, Leaf))
    for condition, child in zip(conditions_of(node, schema), children_of(node)):
        yield from _walk(child, schema, path + (condition,))


def rules(root: Node, schema: Schema) -> List[Rule]:
    """Every root-to-node rule (the root's empty rule first), depth first."""
    return list(_walk(root, schema, ()))
