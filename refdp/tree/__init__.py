"""The model: leaves, decision nodes, trees and ensembles; prediction, rules and JSON."""

from refdp.tree.codec import node_from_json, node_to_json
from refdp.tree.leaf import Count, Leaf
from refdp.tree.model import FORMAT, VERSION, VOTING, TreeModel, decode_model, dumps_model, read_model_json
from refdp.tree.nodes import (
    CategoricalSplit,
    IntervalSplit,
    Node,
    Split,
    ThresholdSplit,
    ValueSplit,
    children_of,
    depth,
    leaves,
    n_nodes,
    released_counts,
    route,
)
from refdp.tree.rules import Rule, rules

__all__ = [
    "CategoricalSplit",
    "Count",
    "FORMAT",
    "IntervalSplit",
    "Leaf",
    "Node",
    "Rule",
    "Split",
    "ThresholdSplit",
    "TreeModel",
    "VERSION",
    "VOTING",
    "ValueSplit",
    "children_of",
    "depth",
    "dumps_model",
    "leaves",
    "decode_model",
    "read_model_json",
    "n_nodes",
    "node_from_json",
    "node_to_json",
    "released_counts",
    "route",
    "rules",
]
