"""Whether a released tree is a structure :class:`~refdp.algorithms.rdt.RandomTreeBuilder` can draw.

The model verifier of the random-tree learners (private-rdt, kanon-rdt)
checks every released tree against the public schema and plan with
:func:`check_structure`; nothing here reads data.
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional, Tuple

from refdp.data import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.tree import CategoricalSplit, IntervalSplit, Leaf, Node, ThresholdSplit, ValueSplit, children_of

__all__ = ["check_structure"]


def check_structure(
    tree: Node,
    schema: Schema,
    depth: int,
    categorical: str,
    bins: Optional[Mapping[int, Tuple[float, ...]]],
    per_level: bool,
    collapsed: bool,
    where: str,
) -> None:
    """ModelError unless ``tree`` is a structure :class:`RandomTreeBuilder` can draw (then unbinned).

    ``depth`` is the planned depth; ``bins`` the public bins' thresholds of
    the continuous attributes (None: ``continuous="threshold"``); with
    ``per_level`` every node of a level splits on the level's attribute and
    the levels' attributes differ.  Every node above the planned depth with
    an eligible attribute splits, unless ``collapsed`` (a subtree whose
    released counts are all 0 may be shown as one zero leaf).
    """
    from refdp.errors import ModelError

    levels: Dict[int, int] = {}
    continuous = tuple(i for i, a in enumerate(schema.attributes) if isinstance(a, ContinuousAttribute))
    reach = depth if not per_level else min(depth, schema.n_attributes)

    def fail(reason: str) -> None:
        raise ModelError(f"{where}: {reason}")

    def walk(node: Node, level: int, used: Tuple[int, ...], bounds: Dict[int, Tuple[float, float]]) -> None:
        free = [a for a, attribute in enumerate(schema.attributes)
                if a not in used and (isinstance(attribute, CategoricalAttribute) or bins is not None)]
        eligible = bool(free) or (bins is None and bool(continuous))
        if isinstance(node, Leaf):
            if level < reach and eligible and not (collapsed and not any(node.counts)):
                fail(f"a leaf at depth {level}, where the planned structure of depth {reach} splits")
            return
        if level >= reach:
            fail(f"a split at depth {level}, below the planned depth {reach}")
        a = node.attribute
        attribute = schema.attributes[a]
        if per_level:
            if levels.setdefault(level, a) != a:
                fail(f"depth {level} splits on two attributes; a per-level tree splits on one per level")
            if a in used:
                fail(f"attribute {attribute.name!r} is split twice on one path of a per-level tree")
        if isinstance(attribute, CategoricalAttribute):
            if a in used:
                fail(f"categorical attribute {attribute.name!r} is split twice on one path")
            wanted = ValueSplit if categorical == "binary" else CategoricalSplit
            if not isinstance(node, wanted):
                fail(f"a {type(node).__name__} on {attribute.name!r} where categorical={categorical} makes a {wanted.__name__}")
            for child in children_of(node):
                walk(child, level + 1, used + (a,), bounds)
            return
        assert isinstance(attribute, ContinuousAttribute)
        if bins is not None:
            if not isinstance(node, IntervalSplit) or node.thresholds != bins[a] or a in used:
                fail(f"the split on {attribute.name!r} is not one split on its public bins {list(bins[a])}, once per path")
            for child in children_of(node):
                walk(child, level + 1, used + (a,), bounds)
            return
        if not isinstance(node, ThresholdSplit):
            fail(f"a {type(node).__name__} on {attribute.name!r} where continuous=threshold makes a ThresholdSplit")
        assert isinstance(node, ThresholdSplit)
        lower, upper = bounds.get(a, (attribute.lower, attribute.upper))
        t = node.threshold
        if not (isinstance(t, float) and lower <= t < upper):
            fail(f"the threshold {t} on {attribute.name!r} lies outside the range [{lower!r}, {upper!r}) the path leaves it")
        assert isinstance(t, float)
        walk(node.below, level + 1, used + ((a,) if per_level else ()), {**bounds, a: (lower, t)})
        walk(node.at_or_above, level + 1, used + ((a,) if per_level else ()), {**bounds, a: (t, upper)})

    walk(tree, 0, (), {})
    if per_level and len(set(levels.values())) != len(levels):
        fail("two levels split on one attribute; a per-level tree draws distinct attributes")
