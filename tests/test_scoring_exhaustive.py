"""Exhaustive sensitivity checks of the quality functions on small count tables.

Every table with ``cells`` rows, ``classes`` columns and at most ``N`` records
is enumerated, ``q`` is computed once per table, and every neighbouring pair is
compared: under ``add-remove`` each table of at most ``N - 1`` records against
each table with one more record in one cell; under ``substitute`` each table
against each table with one record moved to another cell or class.  The
largest change is checked against the implemented sensitivity and against the
exact maximum that the claim files in ``proofs/`` derive.

The helpers here are also used by ``scripts/sensitivity_tightness.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Dict, Iterator, List, Sequence, Tuple, Union

import pytest

from refdp.privacy import Relation
from refdp.scoring import QUALITY_FUNCTIONS, QualityFunction, gini_weighted, information_gain

Score = Union[Fraction, float]
Flat = Tuple[int, ...]
Table = Tuple[Tuple[int, ...], ...]

NAMES = tuple(QUALITY_FUNCTIONS)
RELATIONS = (Relation.ADD_REMOVE, Relation.SUBSTITUTE)
FLOAT_TOLERANCE = 1e-9


def tables_of_size(cells: int, classes: int, size: int) -> Iterator[Flat]:
    """Every table with ``cells * classes`` counts summing to ``size``, flattened row by row."""
    slots = cells * classes
    for bars in combinations(range(size + slots - 1), slots - 1):
        previous = -1
        counts: List[int] = []
        for bar in bars:
            counts.append(bar - previous - 1)
            previous = bar
        counts.append(size + slots - 2 - previous)
        yield tuple(counts)


def as_rows(flat: Flat, classes: int) -> Table:
    """The flattened table ``flat`` as rows of ``classes`` counts."""
    return tuple(flat[i : i + classes] for i in range(0, len(flat), classes))


@dataclass(frozen=True)
class Extreme:
    """The largest change of ``q`` found among neighbours of one size, and a pair reaching it."""

    change: Score
    before: Table
    after: Table


def score_change(first: Score, second: Score) -> Score:
    """``|first - second|``, exact when both are Fractions."""
    if isinstance(first, Fraction) and isinstance(second, Fraction):
        return abs(first - second)
    return abs(float(first) - float(second))


def _moved(flat: Flat, source: int, target: int) -> Flat:
    # source < 0: an addition to target, with nothing removed.
    counts = list(flat)
    if source >= 0:
        counts[source] -= 1
    counts[target] += 1
    return tuple(counts)


def largest_changes(
    quality: QualityFunction, relation: Relation, cells: int, classes: int, max_size: int
) -> List[Extreme]:
    """Entry ``N`` (0..max_size) is the largest ``|q(T) - q(T')|`` over neighbours of size ``N``.

    The size of a pair is the size of its larger table under ``add-remove``
    (the smaller one has ``N - 1`` records) and the common size under
    ``substitute``.  Ties keep the first pair found.
    """
    scores: Dict[Flat, Score] = {}
    for size in range(max_size + 1):
        for flat in tables_of_size(cells, classes, size):
            scores[flat] = quality(as_rows(flat, classes))
    best = [Extreme(Fraction(0), (), ()) for _ in range(max_size + 1)]
    slots = cells * classes
    for flat, score in scores.items():
        size = sum(flat)
        if relation is Relation.ADD_REMOVE:
            if size == max_size:
                continue
            pairs = [(-1, target) for target in range(slots)]
            pair_size = size + 1
        else:
            pairs = [(s, t) for s in range(slots) if flat[s] > 0 for t in range(slots) if t != s]
            pair_size = size
        for source, target in pairs:
            other = _moved(flat, source, target)
            change = score_change(scores[other], score)
            if change > best[pair_size].change:
                best[pair_size] = Extreme(
                    change, as_rows(flat, classes), as_rows(other, classes)
                )
    return best


def up_to(extremes: Sequence[Extreme]) -> List[Score]:
    """Entry ``N``: the largest change over pairs of at most ``N`` records."""
    running: List[Score] = []
    for extreme in extremes:
        running.append(max(extreme.change, running[-1]) if running else extreme.change)
    return running


def phi(m: int) -> float:
    """``(m + 1) log2(m + 1) - m log2 m``, the largest information-gain change at size ``m + 1``."""
    return (m + 1) * math.log2(m + 1) - (m * math.log2(m) if m > 0 else 0.0)


def exact_maximum(name: str, relation: Relation, size: int) -> Score:
    """The claims' exact largest change among neighbours of size ``size`` (2 classes or more)."""
    if size <= 1:
        return Fraction(1) if name == "max" and relation is Relation.ADD_REMOVE and size == 1 else 0
    if name == "max":
        return Fraction(1)
    if name == "gini":
        return Fraction(2 * (size - 1), size)
    if name == "gini-weighted":
        return Fraction(2 * (size - 1), size * size)
    return phi(size - 1)


def _at_most(value: Score, bound: Score) -> bool:
    if isinstance(value, float) or isinstance(bound, float):
        return float(value) <= float(bound) + FLOAT_TOLERANCE
    return value <= bound


def _equal(value: Score, expected: Score) -> bool:
    if isinstance(value, float) or isinstance(expected, float):
        return math.isclose(float(value), float(expected), rel_tol=FLOAT_TOLERANCE, abs_tol=1e-12)
    return value == expected


def _claim_of(name: str) -> str:
    return QUALITY_FUNCTIONS[name].claim


# Shapes and size limits of the default run: a few seconds in all.
DEFAULT_SWEEP = ((1, 2, 16), (2, 2, 12), (2, 3, 8), (3, 2, 8), (3, 3, 5), (2, 1, 8))
SLOW_SWEEP = ((2, 2, 32), (2, 3, 12), (3, 3, 8), (4, 2, 8), (2, 4, 8))


def _check_sweep(name: str, relation: Relation, cells: int, classes: int, max_size: int) -> None:
    quality = QUALITY_FUNCTIONS[name]
    extremes = largest_changes(quality, relation, cells, classes, max_size)
    for size, extreme in enumerate(extremes):
        bound = quality.sensitivity(relation, max_size=max(size, 1))
        assert _at_most(extreme.change, bound), (
            f"{name} under {relation}: change {extreme.change} > sensitivity {bound} "
            f"at size {size}: {extreme.before} -> {extreme.after}"
        )
        if classes >= 2:
            expected = exact_maximum(name, relation, size)
            assert _equal(extreme.change, expected), (
                f"{name} under {relation}, {cells}x{classes} tables of size {size}: "
                f"largest change {extreme.change} ({extreme.before} -> {extreme.after}), "
                f"the claim says exactly {expected}"
            )
        else:
            # One class: every cell is pure, so only the max operator (q = n) moves.
            moving = name == "max" and relation is Relation.ADD_REMOVE and size >= 1
            assert extreme.change == (1 if moving else 0), (name, relation, size, extreme)


@pytest.mark.claim(
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
@pytest.mark.parametrize("relation", RELATIONS, ids=str)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("cells,classes,max_size", DEFAULT_SWEEP)
def test_exhaustive_largest_change_is_the_claimed_maximum(
    name: str, relation: Relation, cells: int, classes: int, max_size: int
) -> None:
    """Largest change at each size == the claim's exact value <= the implemented sensitivity."""
    _check_sweep(name, relation, cells, classes, max_size)


@pytest.mark.slow
@pytest.mark.claim(
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
@pytest.mark.parametrize("relation", RELATIONS, ids=str)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("cells,classes,max_size", SLOW_SWEEP)
def test_exhaustive_larger_domains(
    name: str, relation: Relation, cells: int, classes: int, max_size: int
) -> None:
    """The same check on larger tables (more cells, classes and records)."""
    _check_sweep(name, relation, cells, classes, max_size)


@pytest.mark.smoke
@pytest.mark.claim("max-operator-sensitivity", "gini-unnormalised-sensitivity")
def test_sensitivity_of_sums_is_not_doubled_by_substitution() -> None:
    """A substitution is a removal plus an addition, yet the max and Gini bounds do not double."""
    for name in ("max", "gini"):
        quality = QUALITY_FUNCTIONS[name]
        extremes = up_to(largest_changes(quality, Relation.SUBSTITUTE, 2, 2, 8))
        assert extremes[-1] <= quality.sensitivity(Relation.ADD_REMOVE), (name, extremes)


@pytest.mark.smoke
@pytest.mark.claim("gini-unnormalised-sensitivity")
def test_gini_reaches_2n_over_n_plus_1_when_a_pure_node_of_n_gains_a_record() -> None:
    """The worst case of the proof, 2n/(n+1): a pure cell of n records gains another class."""
    quality = QUALITY_FUNCTIONS["gini"]
    for n in range(0, 30):
        before = quality([[n, 0], [3, 0]])
        after = quality([[n, 1], [3, 0]])
        assert before - after == Fraction(2 * n, n + 1), n
        assert before - after < quality.sensitivity(Relation.ADD_REMOVE)


@pytest.mark.smoke
@pytest.mark.claim("gini-weighted-sensitivity")
def test_weighted_gini_worst_pairs_reach_one_half() -> None:
    """1/2 is reached: [[1,0]] -> [[1,1]] (add-remove) and [[2,0]] -> [[1,1]] (substitute)."""
    assert gini_weighted([[1, 0]]) - gini_weighted([[1, 1]]) == Fraction(1, 2)
    assert gini_weighted([[2, 0]]) - gini_weighted([[1, 1]]) == Fraction(1, 2)
    assert QUALITY_FUNCTIONS["gini-weighted"].sensitivity(Relation.SUBSTITUTE) == Fraction(1, 2)


@pytest.mark.claim("gini-weighted-sensitivity")
def test_weighted_gini_weight_change_of_the_other_cells_is_covered() -> None:
    """Adding to one cell moves every other cell's weight tau_j/n; the change stays <= 2n/(n+1)^2.

    A node of ``n`` records whose other cells are maximally impure gains a
    record in a pure cell of the same class: the change is only the weight
    term ``-G/(n+1)``, which the proof bounds separately.
    """
    for n_mixed in range(1, 12):
        before = ((n_mixed, n_mixed), (2, 0))
        after = ((n_mixed, n_mixed), (3, 0))
        n = 2 * n_mixed + 2
        change = abs(gini_weighted(after) - gini_weighted(before))
        assert change == -gini_weighted(before) / (n + 1)
        assert change <= Fraction(2 * n, (n + 1) ** 2)


@pytest.mark.smoke
@pytest.mark.claim("gini-weighted-local-sensitivity")
def test_fletcher_islam_local_sensitivity_fails_for_a_removal_and_a_substitution() -> None:
    """Theorem 1 of Fletcher & Islam: 2n/(n+1)^2 at known |D| = n.  Removal and substitution beat it."""
    for n in (2, 3, 10, 100):
        published = 1 - Fraction(n, n + 1) ** 2 - Fraction(1, n + 1) ** 2
        assert published == Fraction(2 * n, (n + 1) ** 2)
        node = ((n - 1, 1),)  # |D| = n
        removed = ((n - 1, 0),)  # D minus its one record of class 2
        substituted = ((n, 0),)  # that record's class changed
        for neighbour in (removed, substituted):
            change = abs(gini_weighted(node) - gini_weighted(neighbour))
            assert change == Fraction(2 * (n - 1), n * n) > published, (n, neighbour, change)
    # The paper's own number: 0.0196 at |D| = 100, while one removal changes G by 0.0198.
    assert float(Fraction(2 * 99, 100 * 100)) == 0.0198


@pytest.mark.claim("gini-weighted-local-sensitivity")
def test_corrected_local_maximum_of_weighted_gini_at_known_size() -> None:
    """Exhaustively: at known size n the largest change is 2(n-1)/n^2 (n >= 2), not 2n/(n+1)^2."""
    quality = QUALITY_FUNCTIONS["gini-weighted"]
    adding = largest_changes(quality, Relation.ADD_REMOVE, 2, 2, 9)
    substituting = largest_changes(quality, Relation.SUBSTITUTE, 2, 2, 8)
    for n in range(2, 9):
        # Neighbours of a node of n records: n + 1 records (adding) or n - 1 (removing).
        worst_add_remove = max(adding[n + 1].change, adding[n].change)
        assert worst_add_remove == Fraction(2 * (n - 1), n * n) == substituting[n].change
        assert worst_add_remove > Fraction(2 * n, (n + 1) ** 2)


@pytest.mark.smoke
@pytest.mark.claim("information-gain-sensitivity")
def test_information_gain_worst_pairs() -> None:
    """phi(N-1) is reached by adding a new class to a cell of N-1 records and by emptying a class."""
    for size in range(2, 40):
        add = information_gain([[size - 1, 0]]) - information_gain([[size - 1, 1]])
        move = information_gain([[0, size]]) - information_gain([[1, size - 1]])
        assert math.isclose(add, phi(size - 1), rel_tol=1e-12)
        assert math.isclose(move, phi(size - 1), rel_tol=1e-12)
        bound = QUALITY_FUNCTIONS["info-gain"].sensitivity(Relation.ADD_REMOVE, max_size=size)
        # Strictly below, with the margin the claim derives (about 2.2/N, at least 1/(N ln 2)).
        assert bound - phi(size - 1) > 1 / (size * math.log(2)), size


@pytest.mark.claim("information-gain-sensitivity")
def test_information_gain_bound_holds_for_large_sizes_and_either_reading_of_n() -> None:
    """log2(N+1) + 1/ln 2 exceeds phi(N-1) and phi(N) for N up to 2**40 (checked on a grid)."""
    quality = QUALITY_FUNCTIONS["info-gain"]
    for exponent in range(0, 41):
        for size in {2**exponent, 2**exponent + 1, 3 * 2**exponent}:
            bound = quality.sensitivity(Relation.SUBSTITUTE, max_size=size)
            # phi(m) = log2(m+1) + m log2(1 + 1/m), written so it does not cancel.
            worst = math.log2(size + 1) + size * math.log1p(1 / size) / math.log(2)
            assert bound > worst, (size, bound, worst)


@pytest.mark.claim("information-gain-sensitivity")
def test_information_gain_bound_in_natural_log_would_be_unsound() -> None:
    """Reading the published log(N+1) as ln(N+1) while q is in bits fails at N = 100."""
    wrong = math.log(100 + 1) + 1 / math.log(2)
    change = information_gain([[99, 0]]) - information_gain([[99, 1]])
    assert change > wrong + 2
    assert change < QUALITY_FUNCTIONS["info-gain"].sensitivity(Relation.ADD_REMOVE, max_size=100)


def tightness_rows(sizes: Sequence[int], cells: int = 2, classes: int = 2) -> List[List[str]]:
    """Rows of the tightness table: largest change found / implemented sensitivity."""
    rows: List[List[str]] = []
    top = max(sizes)
    for name in NAMES:
        quality = QUALITY_FUNCTIONS[name]
        for relation in RELATIONS:
            extremes = largest_changes(quality, relation, cells, classes, top)
            running = up_to(extremes)
            for size in sizes:
                bound = quality.sensitivity(relation, max_size=size)
                found = running[size]
                rows.append(
                    [
                        name,
                        str(relation),
                        str(size),
                        f"{float(extremes[size].change):.6g}",
                        f"{float(found):.6g}",
                        f"{float(bound):.6g}",
                        f"{float(found) / float(bound):.4f}",
                    ]
                )
    return rows


TIGHTNESS_HEADER = (
    "function",
    "relation",
    "N",
    "max change at size N",
    "max change, sizes <= N",
    "sensitivity",
    "ratio",
)


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """The tightness rows as a Markdown table."""
    lines = ["| " + " | ".join(TIGHTNESS_HEADER) + " |", "|" + "---|" * len(TIGHTNESS_HEADER)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


@pytest.mark.claim(
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
def test_tightness_table() -> None:
    """Ratios are <= 1, and 1 exactly where the claims say the bound is reached (shown with -s)."""
    rows = tightness_rows((2, 4, 8))
    print("\n" + markdown_table(rows))
    for name, relation, size, _, _, _, ratio in rows:
        assert float(ratio) <= 1.0, (name, relation, size, ratio)
        if name in ("max", "gini-weighted"):
            assert float(ratio) == 1.0, (name, relation, size, ratio)
