"""refdp: a reference implementation of differentially private decision-tree learning.

Standard library only.  The public API is re-exported here; see README.md.
Each name is imported on first use (PEP 562), so that ``import refdp`` and a
command line that needs only a corner of the package (``python3 -m refdp
delta``) load no algorithm and no audit module.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any, List

if TYPE_CHECKING:
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
        PrivacyLeakWarning,
        RefdpError,
        SchemaError,
    )
    from refdp.evaluation import cross_validate, stratified_folds
    from refdp.privacy import Ledger, Receipt, Relation
    from refdp.rng import RandomSource, as_rng
    from refdp.tree import Leaf, TreeModel

__version__ = "0.1.0"

_HOMES = {
    "algorithm_names": "refdp.algorithms",
    "get_algorithm": "refdp.algorithms",
    "model_from_json": "refdp.algorithms",
    "read_model": "refdp.algorithms",
    "train": "refdp.algorithms",
    "CategoricalAttribute": "refdp.data",
    "ContinuousAttribute": "refdp.data",
    "Dataset": "refdp.data",
    "Schema": "refdp.data",
    "load": "refdp.data",
    "load_builtin": "refdp.data",
    "read_arff": "refdp.data",
    "read_csv": "refdp.data",
    "DataError": "refdp.errors",
    "InvalidParameterError": "refdp.errors",
    "ModelError": "refdp.errors",
    "PrivacyError": "refdp.errors",
    "PrivacyLeakWarning": "refdp.errors",
    "RefdpError": "refdp.errors",
    "SchemaError": "refdp.errors",
    "cross_validate": "refdp.evaluation",
    "stratified_folds": "refdp.evaluation",
    "Ledger": "refdp.privacy",
    "Receipt": "refdp.privacy",
    "Relation": "refdp.privacy",
    "RandomSource": "refdp.rng",
    "as_rng": "refdp.rng",
    "Leaf": "refdp.tree",
    "TreeModel": "refdp.tree",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is not None:
        value = getattr(import_module(home), name)
    else:
        # A subpackage (refdp.data, refdp.tree, ...) named before anything imported it.
        try:
            value = import_module(f"refdp.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"refdp.{name}":
                raise
            raise AttributeError(f"module 'refdp' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(__all__) | set(globals()))


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
    "PrivacyLeakWarning",
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
