"""Hypothesis property tests: neighbouring tables change q by at most the sensitivity.

Each test draws a count table and one neighbouring change under a relation,
then asserts the change is within both the exact per-size maximum derived in
the claim file and the implemented global sensitivity.  ``hypothesis.target``
steers the search towards the largest change relative to the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Tuple, Union

import pytest
from hypothesis import given, settings, target
from hypothesis import strategies as st

from refdp.privacy import Relation
from refdp.scoring import QUALITY_FUNCTIONS, gini_unnormalised, information_gain

Score = Union[Fraction, float]
Table = List[List[int]]

FLOAT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Neighbours:
    """Two neighbouring tables and their sizes."""

    before: Table
    after: Table

    @property
    def sizes(self) -> Tuple[int, int]:
        return sum(map(sum, self.before)), sum(map(sum, self.after))


@st.composite
def tables(draw: st.DrawFn, max_count: int = 40) -> Table:
    """A count table of 1-4 cells and 1-4 classes; counts are often 0 or small."""
    cells = draw(st.integers(1, 4))
    classes = draw(st.integers(1, 4))
    count = st.one_of(st.just(0), st.integers(0, 3), st.integers(0, max_count))
    return [[draw(count) for _ in range(classes)] for _ in range(cells)]


@st.composite
def add_remove_pairs(draw: st.DrawFn) -> Neighbours:
    """A table and the table with one count raised or lowered by one."""
    table = draw(tables())
    j = draw(st.integers(0, len(table) - 1))
    c = draw(st.integers(0, len(table[0]) - 1))
    remove = draw(st.booleans()) and table[j][c] > 0
    after = [row[:] for row in table]
    after[j][c] += -1 if remove else 1
    return Neighbours(table, after)


@st.composite
def substitute_pairs(draw: st.DrawFn) -> Neighbours:
    """A table with at least one record, and the table with one record moved to any cell and class."""
    table = draw(tables())
    occupied = [(j, c) for j, row in enumerate(table) for c, x in enumerate(row) if x > 0]
    if not occupied:
        table[0][0] = 1
        occupied = [(0, 0)]
    j1, c1 = draw(st.sampled_from(occupied))
    j2 = draw(st.integers(0, len(table) - 1))
    c2 = draw(st.integers(0, len(table[0]) - 1))
    after = [row[:] for row in table]
    after[j1][c1] -= 1
    after[j2][c2] += 1
    return Neighbours(table, after)


def exact_maximum(name: str, relation: Relation, pair: Neighbours) -> Score:
    """The claim's largest possible change for a pair of these sizes."""
    small, large = sorted(pair.sizes)
    if name == "max":
        return Fraction(1)
    if name == "gini":
        return Fraction(2 * (large - 1), large) if large else Fraction(0)
    if name == "gini-weighted":
        if relation is Relation.ADD_REMOVE:
            return Fraction(2 * small, (small + 1) ** 2)
        return Fraction(2 * (large - 1), large * large) if large else Fraction(0)
    return large * math.log2(large) - (large - 1) * math.log2(large - 1) if large > 1 else 0.0


def score_change(first: Score, second: Score) -> Score:
    """``|first - second|``, exact when both are Fractions."""
    if isinstance(first, Fraction) and isinstance(second, Fraction):
        return abs(first - second)
    return abs(float(first) - float(second))


def _check(name: str, relation: Relation, pair: Neighbours) -> None:
    quality = QUALITY_FUNCTIONS[name]
    change = score_change(quality(pair.after), quality(pair.before))
    bound = quality.sensitivity(relation, max_size=max(max(pair.sizes), 1))
    exact = exact_maximum(name, relation, pair)
    target(float(change) / float(bound), label=f"{name} {relation} change / sensitivity")
    if exact:
        target(float(change) / float(exact), label=f"{name} {relation} change / size maximum")
    if isinstance(change, float):
        assert change <= float(exact) + FLOAT_TOLERANCE, (pair, change, exact)
        assert change < float(bound), (pair, change, bound)
    else:
        assert change <= exact <= bound, (pair, change, exact, bound)


@pytest.mark.claim(
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
@pytest.mark.parametrize("name", tuple(QUALITY_FUNCTIONS))
@settings(max_examples=200)
@given(pair=add_remove_pairs())
def test_add_remove_change_is_within_the_sensitivity(name: str, pair: Neighbours) -> None:
    _check(name, Relation.ADD_REMOVE, pair)


@pytest.mark.claim(
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
@pytest.mark.parametrize("name", tuple(QUALITY_FUNCTIONS))
@settings(max_examples=200)
@given(pair=substitute_pairs())
def test_substitute_change_is_within_the_sensitivity(name: str, pair: Neighbours) -> None:
    _check(name, Relation.SUBSTITUTE, pair)


@pytest.mark.slow
@pytest.mark.claim(
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
@pytest.mark.parametrize("relation", (Relation.ADD_REMOVE, Relation.SUBSTITUTE), ids=str)
@pytest.mark.parametrize("name", tuple(QUALITY_FUNCTIONS))
@settings(max_examples=1500)
@given(data=st.data())
def test_long_search_for_a_larger_change(name: str, relation: Relation, data: st.DataObject) -> None:
    pairs = add_remove_pairs() if relation is Relation.ADD_REMOVE else substitute_pairs()
    _check(name, relation, data.draw(pairs))


@pytest.mark.smoke
@pytest.mark.claim("gini-unnormalised-sensitivity", "information-gain-sensitivity")
@given(pair=add_remove_pairs())
def test_adding_a_record_never_raises_gini_or_information_gain(pair: Neighbours) -> None:
    """The monotonicity that stops a substitution from doubling the bound."""
    before, after = pair.sizes
    larger, smaller = (pair.after, pair.before) if after > before else (pair.before, pair.after)
    assert gini_unnormalised(larger) <= gini_unnormalised(smaller)
    assert information_gain(larger) <= information_gain(smaller) + FLOAT_TOLERANCE
