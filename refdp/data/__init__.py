"""Data: public schemas, the immutable :class:`Dataset`, readers, generators, built-in sets.

Data flows one way: raw rows and labels are validated against a public
:class:`Schema` into a :class:`Dataset`, which the algorithms read.  The
schema (attribute domains, continuous bounds, classes) is an input, never
read off the data, except through :func:`leaky_infer_schema`, whose name
and whose ``Schema.leaks`` say that it leaks.
"""

from __future__ import annotations

from refdp.data.builtin import BUILTIN_NAMES, builtin_schema, describe_builtin, load_builtin
from refdp.data.clipping import clipped, widened
from refdp.data.dataset import ColumnView, Dataset, RawValue, expect_dataset
from refdp.data.generators import monk, tic_tac_toe
from refdp.data.loading import load
from refdp.data.missing import DEFAULT_POLICY, MissingPolicy, fill_value
from refdp.data.readers import leaky_infer_schema, read_arff, read_csv, read_schema
from refdp.data.schema import Attribute, CategoricalAttribute, ContinuousAttribute, Schema

__all__ = [
    "Attribute",
    "BUILTIN_NAMES",
    "CategoricalAttribute",
    "ColumnView",
    "ContinuousAttribute",
    "DEFAULT_POLICY",
    "Dataset",
    "RawValue",
    "Schema",
    "builtin_schema",
    "clipped",
    "describe_builtin",
    "expect_dataset",
    "fill_value",
    "leaky_infer_schema",
    "load",
    "load_builtin",
    "MissingPolicy",
    "monk",
    "read_arff",
    "read_csv",
    "read_schema",
    "tic_tac_toe",
    "widened",
]
