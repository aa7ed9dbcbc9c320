"""refdp: a reference implementation of differentially private decision-tree learning.

Standard library only.  The public API is re-exported here; see README.md.
"""

from refdp.algorithms import algorithm_names, get_algorithm, model_from_json, read_model, train
from refdp.data import (
    CategoricalAttribute,
    ContinuousAttribute,
    Dataset,
    Schema,
    load,
    load_builtin,
    read_arff,
    read_csv,
)
from refdp.errors import (
    DataError,
    InvalidParameterError,
    ModelError,
    PrivacyError,
    RefdpError,
    SchemaError,
)
from refdp.evaluation import cross_validate, stratified_folds
from refdp.privacy import Ledger, Receipt, Relation
from refdp.rng import RandomSource, as_rng
from refdp.tree import Leaf, TreeModel

__version__ = "0.1.0"

__all__ = [
    "CategoricalAttribute",
    "ContinuousAttribute",
    "DataError",
    "Dataset",
    "InvalidParameterError",
    "Leaf",
    "Ledger",
    "ModelError",
    "PrivacyError",
    "RandomSource",
    "Receipt",
    "RefdpError",
    "Relation",
    "Schema",
    "SchemaError",
    "TreeModel",
    "algorithm_names",
    "as_rng",
    "cross_validate",
    "get_algorithm",
    "load",
    "load_builtin",
    "model_from_json",
    "read_arff",
    "read_csv",
    "read_model",
    "stratified_folds",
    "train",
    "__version__",
]
