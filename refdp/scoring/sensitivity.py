"""The quality functions with their proved global sensitivities.

``Delta q = max |q(T) - q(T')|`` over neighbouring count tables ``T, T'``:

* ``add-remove``: one count ``tau_{j,c}`` changes by +-1 (counts stay >= 0);
* ``substitute``: one record moves from ``(j1, c1)`` to ``(j2, c2)``, so the
  node size ``n`` is unchanged (``j1 = j2`` or ``c1 = c2`` allowed).

The proofs are in ``proofs/<claim>.md``.  Each bound is the same under both
relations: the max operator, the Gini quality and information gain each move
in one fixed direction when a record is added to a cell, so the removal and
the addition that make up a substitution pull in opposite directions instead
of adding up, and the weighted Gini index divides by an ``n`` that a
substitution leaves unchanged.

* ``max`` (max operator): 1;
* ``gini`` (unnormalised Gini): 2, a supremum never reached (the largest
  change over tables of at most ``N`` records is ``2 - 2/N``);
* ``gini-weighted`` (weighted Gini index): 1/2, reached at ``n = 1`` or ``2``;
* ``info-gain`` (information gain): ``log2(N + 1) + 1/ln 2``.

``N`` is a public upper bound on the number of records in the node (both
neighbours).  Only information gain needs it; the other bounds hold for every
node size and ignore it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Callable, Mapping, Optional, Union

from refdp.errors import InvalidParameterError
from refdp.privacy.relations import Relation, parse_relation
from refdp.scoring.quality import gini_unnormalised, gini_weighted, information_gain, max_operator
from refdp.scoring.table import CountTable

__all__ = ["QualityFunction", "QUALITY_FUNCTIONS", "MONOTONE_QUALITIES", "monotone_under", "get_quality"]

MONOTONE_QUALITIES = ("max", "gini")
"""Qualities whose value for every split of a node moves one way when a record joins the node (claim
``split-quality-monotone``): the max operator up by 0 or 1, the unnormalised Gini down by less than 2."""

Score = Union[Fraction, float]


def monotone_under(quality: str, relation: Relation) -> bool:
    """Whether the exponential mechanism over ``quality``'s splits of a node may drop its factor 2.

    Under add-remove the utilities of every split of a node move one way
    when a record joins it (claim ``split-quality-monotone``); under
    substitute a record leaves one cell and joins another, so they do not.
    """
    return relation is Relation.ADD_REMOVE and quality in MONOTONE_QUALITIES


@dataclass(frozen=True)
class QualityFunction:
    """A quality function ``q`` on count tables and its global sensitivity.

    ``function`` computes ``q(T)``; ``claim`` is the ID of the file in
    ``proofs/`` that proves the sensitivity under both relations; ``bound``
    maps ``(relation, N)`` to that sensitivity (``N`` is ``None`` when no
    public size bound was given) and raises when it needs ``N`` and has none;
    ``needs_max_size`` says whether it depends on ``N`` at all.
    """

    name: str
    function: Callable[[CountTable], Score]
    claim: str
    bound: Callable[[Relation, Optional[int]], Score]
    needs_max_size: bool
    summary: str

    def __call__(self, table: CountTable) -> Score:
        """``q(table)``."""
        return self.function(table)

    def sensitivity(
        self, relation: Union[Relation, str], max_size: Optional[int] = None
    ) -> Score:
        """The global sensitivity ``Delta q`` under ``relation``.

        ``max_size`` is a public upper bound ``N`` on the node size ``n`` of
        both neighbouring tables; it must not be read off the private data.
        Only information gain (``needs_max_size``) depends on it and requires
        it; the max operator, Gini and weighted Gini bounds hold for every
        node size and return the same value with or without it.  Rational
        bounds are exact Fractions; the information-gain bound is a float.
        Each bound holds for any number of cells and classes.
        """
        if not isinstance(relation, (Relation, str)):
            raise InvalidParameterError(
                f"relation must be a Relation or one of 'add-remove', 'substitute', "
                f"got {relation!r}"
            )
        checked_relation = parse_relation(relation)
        if max_size is not None and (
            isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1
        ):
            raise InvalidParameterError(
                f"max_size must be a positive int (a public upper bound on the node size), "
                f"got {max_size!r}"
            )
        return self.bound(checked_relation, max_size)


def _max_operator_bound(relation: Relation, max_size: Optional[int]) -> Fraction:
    """1 under both relations.  Does not depend on ``N``.

    Adding a record raises ``max_c tau_{j,c}`` of one cell by 0 or 1; a
    substitution lowers one cell's maximum by 0 or 1 and raises another's by
    0 or 1, or moves one count within a cell, which changes its maximum by at
    most 1.  Reached for every ``n >= 1`` (add-remove) and ``n >= 2``
    (substitute).
    """
    return Fraction(1)


def _gini_unnormalised_bound(relation: Relation, max_size: Optional[int]) -> Fraction:
    """2 under both relations.  Does not depend on ``N``.

    Adding a record of class ``c`` to a cell of size ``t`` changes its term
    by ``-(t^2 + S - 2 t tau_{j,c}) / (t (t + 1))`` with ``S = sum_c tau_{j,c}^2``,
    which lies in ``[-2t/(t+1), 0]``; the largest change over tables of at most
    ``N`` records is exactly ``2 - 2/N`` under both relations, so 2 is the
    supremum over all ``N`` and is never reached.  The published algorithms
    use 2, so a given ``N`` is ignored rather than used to tighten it.
    """
    return Fraction(2)


def _gini_weighted_bound(relation: Relation, max_size: Optional[int]) -> Fraction:
    """1/2 under both relations.  Does not depend on ``N``.

    ``G = q_gini / n``.  Adding a record to a node of ``n`` records changes
    ``G`` by at most ``2n / (n + 1)^2`` even counting the change of every
    cell's weight ``tau_j / n``; a substitution at size ``n`` by at most
    ``2(n - 1)/n^2``.  Both are at most 1/2, reached at ``n = 1`` and ``n = 2``,
    so 1/2 is exact for every ``N >= 2``.
    """
    return Fraction(1, 2)


def _information_gain_bound(relation: Relation, max_size: Optional[int]) -> float:
    """``log2(N + 1) + 1/ln 2`` under both relations.  Depends on ``N``: required.

    The exact maximum over tables of at most ``N`` records is
    ``N log2 N - (N - 1) log2(N - 1) < log2 N + 1/ln 2`` under both relations,
    so the published bound holds with a margin of more than ``1/(N ln 2)``
    (about ``2.2 / N``), which also covers reading ``N`` as the size of the
    smaller table.
    """
    if max_size is None:
        raise InvalidParameterError(
            "the sensitivity of 'info-gain' grows with the node size, so it needs "
            "max_size=N, a public upper bound on the number of records in the node "
            "(for example the declared size of the data set); none was given"
        )
    return math.log2(max_size + 1) + 1 / math.log(2)


QUALITY_FUNCTIONS: Mapping[str, QualityFunction] = MappingProxyType(
    {
        "max": QualityFunction(
            name="max",
            function=max_operator,
            claim="max-operator-sensitivity",
            bound=_max_operator_bound,
            needs_max_size=False,
            summary="max operator sum_j max_c tau_{j,c}; sensitivity 1",
        ),
        "gini": QualityFunction(
            name="gini",
            function=gini_unnormalised,
            claim="gini-unnormalised-sensitivity",
            bound=_gini_unnormalised_bound,
            needs_max_size=False,
            summary="unnormalised Gini -sum_j tau_j (1 - sum_c p_{j,c}^2); sensitivity 2",
        ),
        "gini-weighted": QualityFunction(
            name="gini-weighted",
            function=gini_weighted,
            claim="gini-weighted-sensitivity",
            bound=_gini_weighted_bound,
            needs_max_size=False,
            summary="weighted Gini index -sum_j (tau_j/n)(1 - sum_c p_{j,c}^2); sensitivity 1/2",
        ),
        "info-gain": QualityFunction(
            name="info-gain",
            function=information_gain,
            claim="information-gain-sensitivity",
            bound=_information_gain_bound,
            needs_max_size=True,
            summary="information gain -sum_j tau_j H(T_j) in bits; sensitivity log2(N+1) + 1/ln 2",
        ),
    }
)


def get_quality(name: str) -> QualityFunction:
    """The quality function called ``name`` (see :data:`QUALITY_FUNCTIONS`)."""
    try:
        return QUALITY_FUNCTIONS[name]
    except (KeyError, TypeError):
        names = ", ".join(QUALITY_FUNCTIONS)
        raise InvalidParameterError(
            f"unknown quality function {name!r}; use one of: {names}"
        ) from None
