"""Machinery shared by the greedy tree learners: split candidates, budget plans, parameters.

The greedy learners (DiffP-ID3/C4.5, the thesis tree, the non-private
baseline, DPDF, DPEA, CART-DPsAdaBoost) grow a tree top-down; they count
through an engine (:mod:`refdp.engine`) and score with
:mod:`refdp.scoring.kernels`.  This module holds what they share besides:

* the count table of every grid threshold of a continuous attribute, from
  the node's (grid code x class) table by prefix sums
  (:func:`grid_threshold_tables`): the thresholds a private learner may
  release (:class:`refdp.data.grid.ThresholdGrid`, parameter ``grid``);
* the budget plan (:func:`plan_units`, :func:`close_budget`): the worst-case
  cost of a tree of the planned depth, in units of the per-query epsilon,
  composed exactly as :func:`refdp.privacy.compose` composes a full tree,
  and the charge that reserves the part of the plan a shallower tree did not
  spend (claim ``tree-budget-plan``);
* the ledger paths of a split's children (:func:`child_path`,
  :func:`threshold_conditions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Sequence, Tuple

from refdp.algorithms.registry import Parameter
from refdp.data import ContinuousAttribute
from refdp.data.grid import MAX_CELLS, Threshold, format_threshold
from refdp.engine import Table
from refdp.errors import InvalidParameterError, PrivacyError
from refdp.privacy import Ledger, Partition, Relation, cell

__all__ = [
    "NodeCost",
    "grid_threshold_tables",
    "plan_units",
    "plan_levels",
    "close_budget",
    "child_path",
    "threshold_conditions",
    "GRID_PARAMETER",
    "grid_parameter",
    "SPLIT_KEY",
]

SPLIT_KEY = "split"
"""The ledger key of a node's children: ``split=<condition>`` marks the disjoint cells of a split."""


def grid_threshold_tables(table: Sequence[Sequence[int]]) -> List[Table]:
    """The count table ``[below, at or above]`` of every grid threshold g_1 .. g_{cells-1}.

    ``table[b]`` holds the class counts of the rows with grid code ``b``
    (:meth:`NodeCounts.grid_table`); threshold g_k sends codes below k below.
    """
    total = [sum(column) for column in zip(*table)]
    below = [0] * len(total)
    tables: List[Table] = []
    for row in table[:-1]:
        below = [b + r for b, r in zip(below, row)]
        tables.append([below, [t - b for t, b in zip(total, below)]])
    return tables


@dataclass(frozen=True)
class NodeCost:
    """The cost of one node's own charges, in units of the per-query epsilon.

    ``one`` is the cost when one record is added or removed (add-remove),
    ``two`` when one record is replaced (substitute), both as the ledger
    composes them (``proofs/parallel-composition.md``).  For example a class
    histogram with the per-query epsilon on every class costs one unit for
    one record and two for a record that changes class.
    """

    one: Fraction
    two: Fraction


def plan_units(internal: NodeCost, leaf: NodeCost, depth: int, relation: Relation) -> Fraction:
    """The ledger total of a full tree of ``depth`` levels of splits, in per-query units.

    Bottom up from a leaf: a split node's children are disjoint cells, so one
    changed record costs the node plus one child (``one_k = internal.one +
    one_{k-1}``), and a replaced record costs the node plus either a
    substitution inside one child or a removal and an addition in two
    (``two_k = internal.two + max(two_{k-1}, 2 one_{k-1})``).  A tree that
    stops earlier, or splits into fewer than two children, costs at most this
    (claim ``tree-budget-plan``).
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise InvalidParameterError(f"the depth of a plan must be an int >= 0, got {depth!r}")
    one, two = leaf.one, leaf.two
    for _ in range(depth):
        one, two = internal.one + one, internal.two + max(two, 2 * one)
    return one if relation is Relation.ADD_REMOVE else two


def plan_levels(internal: Sequence[NodeCost], leaf: NodeCost, relation: Relation) -> Fraction:
    """The ledger total of a full tree whose split nodes at level l cost ``internal[l]`` (root first).

    :func:`plan_units` with a cost per level, in absolute terms: the same
    recurrence, from the leaves (``leaf``, at level ``len(internal)``) up.
    """
    one, two = leaf.one, leaf.two
    for cost in reversed(internal):
        one, two = cost.one + one, cost.two + max(two, 2 * one)
    return one if relation is Relation.ADD_REMOVE else two


def close_budget(ledger: Ledger, planned: Fraction, claims: Sequence[str]) -> None:
    """Reserve, on the whole data set, the part of ``planned`` that this tree did not spend.

    A greedy tree stops where its noisy counts say so, so the charges of one
    run may total less than the plan.  The mechanism's guarantee is the
    plan's worst case all the same (another run on the same data may build
    the full tree), so the receipt must state the plan: the difference is
    recorded as a ``reserved`` charge, and the receipt's total equals
    ``planned`` exactly.  A ledger already above ``planned`` means the
    algorithm broke its own plan: PrivacyError.
    """
    spent = ledger.total()[0]
    if spent > planned:
        raise PrivacyError(
            f"the charges total {spent}, above the planned budget {planned}; this is a bug in "
            f"the algorithm's budget split, please report it"
        )
    if spent < planned:
        ledger.charge(
            label="reserved: planned for tree levels this run did not build",
            mechanism="reserved",
            epsilon=planned - spent,
            sensitivity=None,
            claims=tuple(claims),
            note="the guarantee is the plan's worst case, not the cost of the levels built",
        )


def child_path(path: Partition, condition: str) -> Partition:
    """The ledger partition of the child of ``path`` that holds the rows meeting ``condition``."""
    return path + (cell(SPLIT_KEY, condition),)


def threshold_conditions(attribute: ContinuousAttribute, threshold: Threshold) -> Tuple[str, str]:
    """The ledger conditions of the two sides of a threshold split (below first)."""
    shown = format_threshold(threshold)
    return f"{attribute.name}<{shown}", f"{attribute.name}>={shown}"


def grid_parameter(default: int) -> Parameter:
    """The learners' ``grid`` parameter (:class:`refdp.data.grid.ThresholdGrid`) with its default."""
    return Parameter(
        "grid", int, default,
        "cells of the public threshold grid of a continuous attribute: thresholds lower + k (upper - lower) / grid, "
        "k = 1 .. grid - 1",
        minimum=2, maximum=MAX_CELLS,
    )


GRID_PARAMETER = grid_parameter(64)
"""The ``grid`` parameter with the default most learners use."""
