"""The learning algorithms, one module per paper, and their registry.

Importing this package registers every algorithm.
"""

# Each module registers its algorithm when imported; the names themselves are not used here.
from refdp.algorithms import majority  # noqa: F401
from refdp.algorithms import baseline  # noqa: F401
from refdp.algorithms import diffpid3  # noqa: F401
from refdp.algorithms import thesis_tree  # noqa: F401
from refdp.algorithms import private_rdt  # noqa: F401
from refdp.algorithms import kanon_rdt  # noqa: F401
from refdp.algorithms import adaboost  # noqa: F401
from refdp.algorithms import dpdf  # noqa: F401
from refdp.algorithms import dpea  # noqa: F401
from refdp.algorithms.registry import (
    AlgorithmSpec,
    Param,
    Parameter,
    Variant,
    algorithm_names,
    get_algorithm,
    model_from_json,
    read_model,
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
    "model_from_json",
    "read_model",
    "majority",
    "start_ledger",
    "train",
]
