"""Quality functions on class-count tables and their proved sensitivities."""

from refdp.scoring.quality import gini_unnormalised, gini_weighted, information_gain, max_operator
from refdp.scoring.sensitivity import MONOTONE_QUALITIES, QUALITY_FUNCTIONS, QualityFunction, get_quality, monotone_under
from refdp.scoring.table import CountTable, as_count_table

__all__ = [
    "CountTable",
    "MONOTONE_QUALITIES",
    "QUALITY_FUNCTIONS",
    "QualityFunction",
    "as_count_table",
    "get_quality",
    "gini_unnormalised",
    "gini_weighted",
    "information_gain",
    "max_operator",
    "monotone_under",
]
