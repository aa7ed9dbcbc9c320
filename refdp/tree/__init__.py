"""The model: nodes, trees, prediction and the JSON round trip."""

from refdp.tree.leaf import Count, Leaf
from refdp.tree.model import FORMAT, VERSION, Node, TreeModel, dumps_model, model_from_json

__all__ = ["Count", "FORMAT", "Leaf", "Node", "TreeModel", "VERSION", "dumps_model", "model_from_json"]
