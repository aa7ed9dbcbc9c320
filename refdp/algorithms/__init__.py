"""The learning algorithms, one module per paper, and their registry.

Importing this package registers every algorithm.
"""

from refdp.algorithms import majority
from refdp.algorithms.registry import (
    AlgorithmSpec,
    Param,
    Parameter,
    Variant,
    algorithm_names,
    get_algorithm,
    start_ledger,
    train,
)

__all__ = [
    "AlgorithmSpec",
    "Param",
    "Parameter",
    "Variant",
    "algorithm_names",
    "get_algorithm",
    "majority",
    "start_ledger",
    "train",
]
