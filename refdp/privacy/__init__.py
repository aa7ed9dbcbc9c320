"""Neighbouring relations, the privacy ledger and receipts, and the Li-Qardaji-Su delta."""

from refdp.privacy.ledger import Charge, Ledger, Partition, Sensitivity, cell, check_partition, compose
from refdp.privacy.lqs import LqsResult, largest_beta, lqs_delta, lqs_min_epsilon, smallest_k
from refdp.privacy.receipt import Receipt, receipt_from_ledger
from refdp.privacy.relations import (
    Number,
    Relation,
    as_delta,
    as_epsilon,
    as_fraction,
    parse_relation,
)

__all__ = [
    "Charge",
    "Ledger",
    "LqsResult",
    "Number",
    "Partition",
    "Receipt",
    "Relation",
    "Sensitivity",
    "as_delta",
    "as_epsilon",
    "as_fraction",
    "cell",
    "check_partition",
    "compose",
    "largest_beta",
    "lqs_delta",
    "lqs_min_epsilon",
    "parse_relation",
    "receipt_from_ledger",
    "smallest_k",
]
