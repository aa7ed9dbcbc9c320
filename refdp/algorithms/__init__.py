"""The learning algorithms, one module per paper, and their registry.

Importing this package registers every algorithm.
"""

from refdp.algorithms import majority
from refdp.algorithms import baseline
from refdp.algorithms import diffpid3
from refdp.algorithms import thesis_tree
from refdp.algorithms import private_rdt
from refdp.algorithms import kanon_rdt
from refdp.algorithms import adaboost
from refdp.algorithms import dpdf
from refdp.algorithms import dpea
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
