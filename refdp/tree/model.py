"""A trained model: a tree of nodes, the public schema and the privacy receipt.

This first version knows one kind of node, the :class:`~refdp.tree.leaf.Leaf`
(a depth-0 tree); decision nodes come with the tree-learning algorithms.
The JSON form carries everything needed to predict and to audit: the schema,
the receipt, the algorithm, its variant and parameters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Union

from refdp.data import Dataset, Schema
from refdp.errors import ModelError
from refdp.privacy import Receipt
from refdp.tree.leaf import Leaf

__all__ = ["TreeModel", "Node", "FORMAT", "VERSION", "model_from_json", "dumps_model"]

FORMAT = "refdp-model"
VERSION = 1

Node = Leaf
Param = Union[int, float, str, bool]


@dataclass(frozen=True)
class TreeModel:
    """A decision tree with its schema and privacy receipt."""

    algorithm: str
    variant: str
    params: Mapping[str, Param]
    schema: Schema
    root: Node
    receipt: Receipt

    @property
    def classes_(self) -> List[str]:
        return list(self.schema.classes)

    def _leaf_for(self, data: Dataset, row: int) -> Leaf:
        return self.root

    def _check(self, data: Dataset) -> None:
        if data.schema.attributes != self.schema.attributes:
            raise ModelError(
                "the data's attributes differ from the model's schema; read the data with the "
                "schema stored in the model"
            )

    def predict(self, data: Dataset) -> List[str]:
        """The predicted class label of every row of ``data``."""
        self._check(data)
        classes = self.schema.classes
        return [classes[self._leaf_for(data, i).prediction] for i in range(len(data))]

    def predict_proba(self, data: Dataset) -> List[List[float]]:
        """Class probabilities of every row, in the order of ``classes_``."""
        self._check(data)
        return [self._leaf_for(data, i).probabilities() for i in range(len(data))]

    def render(self) -> str:
        """A plain-text rendering for people."""
        leaf = self.root
        label = self.schema.classes[leaf.prediction]
        counts = ", ".join(
            f"{name}: {count:g}" for name, count in zip(self.schema.classes, leaf.counts)
        )
        return f"predict {label} (confidence {leaf.confidence:.3f}; released counts {counts})"

    def to_json(self) -> Dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "kind": "tree",
            "algorithm": self.algorithm,
            "variant": self.variant,
            "params": dict(self.params),
            "schema": self.schema.to_json(),
            "receipt": self.receipt.to_json(),
            "root": self.root.to_json(),
        }


def model_from_json(obj: Mapping[str, Any]) -> TreeModel:
    """Rebuild a model from :meth:`TreeModel.to_json` output."""
    if obj.get("format") != FORMAT:
        raise ModelError(f"not a refdp model (format is {obj.get('format')!r}, expected {FORMAT!r})")
    if obj.get("version") != VERSION:
        raise ModelError(f"refdp model version {obj.get('version')!r} is not supported (expected {VERSION})")
    try:
        root_obj = obj["root"]
        if root_obj.get("type") != "leaf":
            raise ModelError(f"unknown node type {root_obj.get('type')!r}")
        return TreeModel(
            algorithm=str(obj["algorithm"]),
            variant=str(obj["variant"]),
            params=dict(obj["params"]),
            schema=Schema.from_json(obj["schema"]),
            root=Leaf.from_json(root_obj),
            receipt=Receipt.from_json(obj["receipt"]),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"malformed refdp model: missing or wrong field {exc}") from None


def dumps_model(model: TreeModel) -> str:
    """The canonical JSON text of a model (sorted keys; byte-identical for equal models)."""
    return json.dumps(model.to_json(), sort_keys=True, indent=1) + "\n"
