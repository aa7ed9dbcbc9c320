"""The learning algorithms, one module per paper, and their registry.

Each algorithm's module registers it when imported; the registry imports a
module the first time its algorithm is asked for
(:data:`~refdp.algorithms.registry.MODULES`), so that training one learner
loads no other.
"""

from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, algorithm_names, get_algorithm, train
from refdp.algorithms.models import model_from_json, read_model, start_ledger

__all__ = [
    "AlgorithmSpec",
    "Param",
    "Parameter",
    "Variant",
    "algorithm_names",
    "get_algorithm",
    "model_from_json",
    "read_model",
    "start_ledger",
    "train",
]
