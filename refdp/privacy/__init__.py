"""Neighbouring relations, the privacy ledger and receipts, and the Li-Qardaji-Su delta."""

from refdp.privacy.ledger import Charge, Ledger, Partition, Sensitivity, cell, check_partition, compose
from refdp.privacy.lqs import LqsResult, largest_beta, lqs_delta, lqs_min_epsilon, smallest_k
from refdp.privacy.levels import IDEALISED, LEVELS, PROVED, UNSOUND, level_of, worst_level
from refdp.privacy.receipt import Receipt, charge_level, receipt_digest, receipt_from_ledger
from refdp.privacy.relations import (
    BUDGET_RANGE,
    Number,
    Relation,
    as_budget,
    as_delta,
    as_epsilon,
    as_fraction,
    parse_relation,
)

__all__ = [
    "BUDGET_RANGE",
    "IDEALISED",
    "LEVELS",
    "PROVED",
    "UNSOUND",
    "Charge",
    "Ledger",
    "LqsResult",
    "Number",
    "Partition",
    "Receipt",
    "Relation",
    "Sensitivity",
    "as_budget",
    "as_delta",
    "as_epsilon",
    "as_fraction",
    "cell",
    "charge_level",
    "check_partition",
    "compose",
    "largest_beta",
    "level_of",
    "lqs_delta",
    "lqs_min_epsilon",
    "parse_relation",
    "receipt_digest",
    "receipt_from_ledger",
    "smallest_k",
    "worst_level",
]
