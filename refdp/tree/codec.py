"""JSON form of nodes: attributes and values by name, so a model file reads on its own."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, Dict, Mapping, Union

from refdp.data import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.data.grid import Threshold
from refdp.errors import ModelError
from refdp.tree.leaf import Leaf
from refdp.tree.nodes import CategoricalSplit, IntervalSplit, Node, ThresholdSplit, ValueSplit

__all__ = ["node_to_json", "node_from_json"]

_RATIONAL = re.compile(r"^-?[0-9]+/[1-9][0-9]*$")


def node_to_json(node: Node, schema: Schema) -> Dict[str, Any]:
    if isinstance(node, Leaf):
        return node.to_json()
    attribute = schema.attributes[node.attribute]
    out: Dict[str, Any]
    if isinstance(node, CategoricalSplit):
        out = {
            "type": "categorical",
            "attribute": attribute.name,
            "children": [node_to_json(c, schema) for c in node.children],
        }
    elif isinstance(node, ValueSplit):
        assert isinstance(attribute, CategoricalAttribute)
        out = {
            "type": "value",
            "attribute": attribute.name,
            "value": attribute.values[node.value],
            "equal": node_to_json(node.equal, schema),
            "rest": node_to_json(node.rest, schema),
        }
    elif isinstance(node, IntervalSplit):
        out = {
            "type": "intervals",
            "attribute": attribute.name,
            "thresholds": list(node.thresholds),
            "children": [node_to_json(c, schema) for c in node.children],
        }
    else:
        out = {
            "type": "threshold",
            "attribute": attribute.name,
            "threshold": _threshold_to_json(node.threshold),
            "below": node_to_json(node.below, schema),
            "at_or_above": node_to_json(node.at_or_above, schema),
        }
    if node.counts is not None:
        out["counts"] = list(node.counts)
    return out


def _threshold_to_json(threshold: Threshold) -> Union[float, str]:
    # A float is written as a JSON number (it reads back exactly); a rational no float equals as "p/q".
    return threshold if isinstance(threshold, float) else str(threshold)


def _threshold_from_json(value: Any, name: str) -> Threshold:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    if isinstance(value, str) and _RATIONAL.match(value):
        return Fraction(value)
    raise ModelError(
        f"a threshold split on {name!r} needs a finite number or an exact rational 'p/q', got {value!r}"
    )


def _counts(obj: Mapping[str, Any], n_classes: int) -> Any:
    if "counts" not in obj:
        return None
    counts = Leaf.from_json({"counts": obj["counts"]}).counts
    if len(counts) != n_classes:
        raise ModelError(f"a node has {len(counts)} counts but the schema has {n_classes} classes")
    return counts


def node_from_json(obj: Mapping[str, Any], schema: Schema) -> Node:
    """Rebuild a node, checking it against ``schema``."""
    if not isinstance(obj, Mapping):
        raise ModelError(f"a node must be a JSON object, got {obj!r}")
    kind = obj.get("type")
    if kind == "leaf":
        leaf = Leaf.from_json(obj)
        if len(leaf.counts) != schema.n_classes:
            raise ModelError(
                f"a leaf has {len(leaf.counts)} counts but the schema has {schema.n_classes} classes"
            )
        return leaf
    if kind not in ("categorical", "value", "threshold", "intervals"):
        raise ModelError(f"unknown node type {kind!r}")
    name = obj.get("attribute")
    if not isinstance(name, str) or name not in [a.name for a in schema.attributes]:
        raise ModelError(f"a node splits on {name!r}, which is not an attribute of the schema")
    index = schema.index_of(name)
    attribute = schema.attributes[index]
    counts = _counts(obj, schema.n_classes)
    if kind == "threshold":
        if not isinstance(attribute, ContinuousAttribute):
            raise ModelError(f"a threshold split needs a continuous attribute; {name!r} is categorical")
        threshold = _threshold_from_json(obj.get("threshold"), name)
        return ThresholdSplit(
            index, threshold, node_from_json(obj["below"], schema), node_from_json(obj["at_or_above"], schema), counts
        )
    if kind == "intervals":
        return _intervals_from_json(obj, schema, index, counts)
    if not isinstance(attribute, CategoricalAttribute):
        raise ModelError(f"a {kind} split needs a categorical attribute; {name!r} is continuous")
    if kind == "value":
        value = obj.get("value")
        if value not in attribute.values:
            raise ModelError(f"value {value!r} is not in the domain of {name!r}")
        return ValueSplit(
            index, attribute.values.index(str(value)), node_from_json(obj["equal"], schema), node_from_json(obj["rest"], schema), counts
        )
    children = obj.get("children")
    if not isinstance(children, list) or len(children) != attribute.n_values:
        raise ModelError(f"a categorical split on {name!r} needs one child per value ({attribute.n_values})")
    return CategoricalSplit(index, tuple(node_from_json(c, schema) for c in children), counts)


def _intervals_from_json(obj: Mapping[str, Any], schema: Schema, index: int, counts: Any) -> Node:
    name = schema.attributes[index].name
    thresholds = obj.get("thresholds")
    if (
        not isinstance(schema.attributes[index], ContinuousAttribute)
        or not isinstance(thresholds, list)
        or not all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in thresholds)
    ):
        raise ModelError(
            f"an interval split needs a continuous attribute and a list of numeric thresholds ({name!r})"
        )
    children = obj.get("children")
    if not isinstance(children, list):
        raise ModelError(f"an interval split on {name!r} needs a list of children")
    # IntervalSplit checks that the thresholds are finite and increasing and that the children fit them.
    return IntervalSplit(
        index, tuple(float(t) for t in thresholds), tuple(node_from_json(c, schema) for c in children), counts
    )
