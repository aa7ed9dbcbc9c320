"""Quality functions q(T) of a candidate split's class-count table.

The exponential mechanism picks a split with probability proportional to
``exp(epsilon * q / (2 * Delta q))``, so a larger q must mean a better split and
the global sensitivity ``Delta q`` (:mod:`refdp.scoring.sensitivity`) must be
proved.  Notation (Friedman & Schuster 2010; Novakovic 2019, sec. 6.4):
``tau_{j,c}`` is the number of records in cell ``j`` of the split with class
``c``, ``tau_j = sum_c tau_{j,c}`` and ``n = sum_j tau_j``.  An empty cell
(``tau_j = 0``) contributes 0 to every function.

The three rational functions are computed exactly as :class:`~fractions.Fraction`;
information gain involves logarithms and is a float.
"""

from __future__ import annotations

from fractions import Fraction

from refdp.scoring.kernels import gini_unnormalised_exact, information_gain_float, max_operator_exact
from refdp.scoring.table import CountTable, as_count_table

__all__ = ["max_operator", "gini_unnormalised", "gini_weighted", "information_gain"]


def max_operator(table: CountTable) -> Fraction:
    """The max operator ``q = sum_j max_c tau_{j,c}``.

    The number of records a majority-class leaf in each cell would classify
    correctly (Friedman & Schuster 2010; Novakovic 2019, sec. 6.4.1).
    Sensitivity 1 under both relations (``proofs/max-operator-sensitivity.md``).
    """
    return Fraction(max_operator_exact(as_count_table(table)))


def gini_unnormalised(table: CountTable) -> Fraction:
    """The unnormalised Gini quality ``q = -sum_j tau_j (1 - sum_c (tau_{j,c}/tau_j)^2)``.

    Minus the Gini impurity of each cell weighted by the cell's record count
    (Friedman & Schuster 2010; Novakovic 2019, sec. 6.4.2), so that ``q <= 0``
    and a pure split scores 0.  Sensitivity 2 under both relations
    (``proofs/gini-unnormalised-sensitivity.md``).
    """
    return gini_unnormalised_exact(as_count_table(table))


def gini_weighted(table: CountTable) -> Fraction:
    """The weighted Gini index ``G = -sum_j (tau_j / n) (1 - sum_c (tau_{j,c}/tau_j)^2)``.

    Fletcher & Islam (2015), eq. 4: the unnormalised Gini quality divided by
    the node size ``n``, and 0 for an empty node; ``-(1 - 1/k) <= G <= 0`` for
    ``k`` classes.  Sensitivity 1/2 under both relations
    (``proofs/gini-weighted-sensitivity.md``).
    """
    rows = as_count_table(table)
    size = sum(sum(row) for row in rows)
    if size == 0:
        return Fraction(0)
    return gini_unnormalised(rows) / size


def information_gain(table: CountTable) -> float:
    """Information gain in Friedman & Schuster's unnormalised form, in bits.

    ``q = -sum_j tau_j H(T_j) = sum_j sum_c tau_{j,c} log2(tau_{j,c} / tau_j)``
    where ``H(T_j)`` is the class entropy of cell ``j`` (``0 log 0 = 0``).  The
    full gain is ``n H(T) + q``; the node's own entropy term ``n H(T)`` is the
    same for every candidate split of the node, so it is dropped: adding a
    constant to every score leaves the exponential mechanism's choice
    probabilities unchanged, and the sensitivity is that of ``q`` alone,
    ``log2(N + 1) + 1/ln 2`` for a public bound ``N`` on the node size
    (``proofs/information-gain-sensitivity.md``).  Computed in floating point
    (:func:`refdp.scoring.kernels.information_gain_float`, the learners' arithmetic).
    """
    return information_gain_float(as_count_table(table))
