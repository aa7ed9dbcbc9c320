"""Neighbouring relations, the privacy ledger and receipts."""

from refdp.privacy.ledger import Charge, Ledger, Partition, Sensitivity, cell, compose
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
    "Number",
    "Partition",
    "Receipt",
    "Relation",
    "Sensitivity",
    "as_delta",
    "as_epsilon",
    "as_fraction",
    "cell",
    "compose",
    "parse_relation",
    "receipt_from_ledger",
]
