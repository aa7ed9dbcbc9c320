"""Noisy counts: exact privacy of the discrete Laplace mechanism, and what the ledger records."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any, Callable, List, Sequence, Tuple, Union

import pytest

from refdp.errors import InvalidParameterError
from refdp.mechanisms import (
    discrete_laplace,
    discrete_laplace_mechanism,
    laplace_mechanism,
    laplace_noise,
    noisy_cells,
    noisy_histogram,
)
from refdp.privacy import Ledger, Relation

Rows = Tuple[int, ...]
DOMAIN = (0, 1, 2)  # the public domain of a record in the toy datasets below
BAD_EPSILONS = [0, -1, -0.5, math.nan, math.inf, -math.inf, "abc", True]


def _neighbours(rows: Rows, relation: Relation) -> List[Rows]:
    """Every dataset adjacent to ``rows`` under ``relation`` (records from DOMAIN)."""
    if relation is Relation.ADD_REMOVE:
        added = [rows + (v,) for v in DOMAIN]
        removed = [rows[:i] + rows[i + 1 :] for i in range(len(rows))]
        return added + removed
    return [rows[:i] + (v,) + rows[i + 1 :] for i in range(len(rows)) for v in DOMAIN if v != rows[i]]


def _dlap_log_ratio(y: int, centre: int, other: int, scale: Fraction) -> Fraction:
    """log P[centre + Z = y] - log P[other + Z = y] for Z ~ DLap(scale), exactly (as a multiple of 1)."""
    return (abs(y - other) - abs(y - centre)) / scale


# --- the discrete Laplace mechanism --------------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("discrete-laplace-mechanism")
@pytest.mark.parametrize(
    "sensitivity, epsilon, scale",
    [(1, Fraction(1, 2), Fraction(2)), (3, 0.1, Fraction(30)), (Fraction(3, 2), "0.75", Fraction(2))],
)
def test_discrete_laplace_mechanism_adds_dlap_of_delta_over_epsilon(
    sensitivity: Union[int, Fraction], epsilon: Union[Fraction, float, str], scale: Fraction
) -> None:
    ledger = Ledger()
    rng = random.Random(11)
    got = [
        discrete_laplace_mechanism(
            40, sensitivity=sensitivity, epsilon=epsilon, rng=rng, ledger=ledger, label="n"
        )
        for _ in range(50)
    ]
    replay = random.Random(11)
    assert got == [40 + discrete_laplace(scale, replay) for _ in range(50)]
    assert all(type(x) is int for x in got)
    assert len(ledger.charges) == 50
    charge = ledger.charges[0]
    assert charge.mechanism == "discrete-laplace" and charge.sensitivity == Fraction(sensitivity)
    assert charge.claims == ("discrete-laplace-mechanism",) and charge.partition == ()
    assert charge.epsilon * scale == Fraction(sensitivity)


@pytest.mark.claim("discrete-laplace-mechanism")
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize(
    "query, delta",
    [
        (lambda rows: len(rows), 1),  # a count: 1 (in a substitute ledger also for add/remove)
        (lambda rows: sum(1 for r in rows if r == 1), 1),  # a cell count
        (lambda rows: sum(rows), 2),  # a sum of values in [0, 2]
    ],
)
def test_exact_log_ratio_is_at_most_epsilon_on_real_neighbours(
    relation: Relation, query: Callable[[Rows], int], delta: int
) -> None:
    epsilon = Fraction(1, 3)
    scale = Fraction(delta) / epsilon  # the mechanism's scale (previous test)
    dataset: Rows = (0, 1, 1, 2, 2, 2)
    neighbours = _neighbours(dataset, relation)
    # The Delta used bounds the query's change under the relation, and under
    # add/remove too (a substitute ledger's charges must hold for both).
    changes = [abs(query(dataset) - query(n)) for n in neighbours + _neighbours(dataset, Relation.ADD_REMOVE)]
    assert max(changes) <= delta
    centre = query(dataset)
    worst = Fraction(0)
    for other in {query(n) for n in neighbours}:
        for y in range(centre - 40 * delta, centre + 40 * delta + 1):
            ratio = _dlap_log_ratio(y, centre, other, scale)
            assert abs(ratio) <= epsilon, (relation, y, centre, other, ratio)
            worst = max(worst, abs(ratio))
    # Tight: on the tails the ratio is exactly epsilon * |f(D) - f(D')| / Delta.
    assert worst == epsilon * max(abs(centre - query(n)) for n in neighbours) / delta


@pytest.mark.claim("discrete-laplace-mechanism")
def test_exact_log_ratio_between_f_and_f_plus_delta() -> None:
    for delta, epsilon in [(1, Fraction(1)), (5, Fraction(1, 10)), (3, Fraction(7, 4))]:
        scale = Fraction(delta) / epsilon
        ratios = [_dlap_log_ratio(y, 0, delta, scale) for y in range(-20 * delta, 20 * delta + 1)]
        assert max(ratios) == epsilon and min(ratios) == -epsilon  # <= epsilon, and tight
    # A rational Delta = 3/2 for an integer query: the query moves by at most 1.
    ratios = [_dlap_log_ratio(y, 0, 1, Fraction(3, 2) / Fraction(1, 2)) for y in range(-50, 51)]
    assert max(abs(r) for r in ratios) == Fraction(1, 3) <= Fraction(1, 2)


# --- the Laplace mechanism ------------------------------------------------------------


@pytest.mark.claim("laplace-mechanism")
@pytest.mark.parametrize(
    "sensitivity, recorded", [(1, Fraction(1)), (Fraction(1, 2), Fraction(1, 2)), (0.25, 0.25)]
)
def test_laplace_mechanism_adds_laplace_of_delta_over_epsilon(
    sensitivity: Union[int, float, Fraction], recorded: Union[Fraction, float]
) -> None:
    ledger = Ledger()
    rng = random.Random(21)
    got = [
        laplace_mechanism(3.5, sensitivity=sensitivity, epsilon=0.1, rng=rng, ledger=ledger, label="s")
        for _ in range(20)
    ]
    replay = random.Random(21)
    scale = float(Fraction(repr(float(sensitivity))) / Fraction(1, 10))
    assert got == [3.5 + laplace_noise(scale, replay) for _ in range(20)]
    assert len(ledger.charges) == 20
    charge = ledger.charges[0]
    assert charge.mechanism == "laplace" and charge.claims == ("laplace-mechanism",)
    assert charge.sensitivity == recorded and type(charge.sensitivity) is type(recorded)
    assert ledger.total()[0] == 2


# --- histograms ---------------------------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("discrete-laplace-mechanism", "parallel-composition")
def test_noisy_histogram_noises_every_cell_and_composes_in_parallel() -> None:
    counts = [0, 7, 0, 3]
    for relation, total in [(Relation.ADD_REMOVE, Fraction(1, 2)), (Relation.SUBSTITUTE, Fraction(1))]:
        ledger = Ledger(relation)
        got = noisy_histogram(
            counts, epsilon=Fraction(1, 2), rng=random.Random(5), ledger=ledger, label="leaf",
            partition=("tree=0", "leaf=3"), names=["a", "b", "c", "d"],
        )
        replay = random.Random(5)
        assert got == [c + discrete_laplace(Fraction(2), replay) for c in counts]
        assert counts == [0, 7, 0, 3]
        assert [c.partition for c in ledger.charges] == [
            ("tree=0", "leaf=3", f"class={name}") for name in "abcd"
        ]
        assert all(c.sensitivity == 1 and c.epsilon == Fraction(1, 2) for c in ledger.charges)
        assert ledger.total() == (total, Fraction(0))


@pytest.mark.claim("discrete-laplace-mechanism", "parallel-composition")
@pytest.mark.parametrize("relation", list(Relation))
def test_noisy_histogram_exact_loss_equals_the_ledger_total(relation: Relation) -> None:
    # With independent DLap(1/epsilon) per cell, the largest log-ratio between
    # neighbouring histograms is epsilon * (L1 distance), reached on the tails.
    epsilon = Fraction(2, 5)
    dataset: Rows = (0, 1, 1, 2)

    def histogram(rows: Rows) -> List[int]:
        return [sum(1 for r in rows if r == v) for v in DOMAIN]

    worst = Fraction(0)
    for other in _neighbours(dataset, relation):
        loss = sum(
            (
                max(abs(_dlap_log_ratio(y, a, b, 1 / epsilon)) for y in range(a - 30, a + 31))
                for a, b in zip(histogram(dataset), histogram(other))
            ),
            Fraction(0),
        )
        worst = max(worst, loss)
    ledger = Ledger(relation)
    noisy_histogram(histogram(dataset), epsilon=epsilon, rng=random.Random(1), ledger=ledger, label="h")
    assert worst == ledger.total()[0] == (epsilon if relation is Relation.ADD_REMOVE else 2 * epsilon)


@pytest.mark.claim("laplace-mechanism", "parallel-composition")
def test_noisy_histogram_with_laplace_noise_gives_floats() -> None:
    ledger = Ledger()
    counts = [0.0, 2.5, 1.0]
    got = noisy_histogram(counts, epsilon=1, rng=random.Random(8), ledger=ledger, label="w", noise="laplace")
    replay = random.Random(8)
    assert got == [c + laplace_noise(1.0, replay) for c in counts]
    assert all(type(x) is float for x in got)
    assert [c.partition for c in ledger.charges] == [("class=0",), ("class=1",), ("class=2",)]
    assert {c.mechanism for c in ledger.charges} == {"laplace"}
    assert ledger.total()[0] == 1


# --- bad input records nothing ------------------------------------------------------------------


def _calls(epsilon: Any) -> List[Callable[[Ledger, random.Random], object]]:
    return [
        lambda ledger, rng: discrete_laplace_mechanism(
            3, epsilon=epsilon, rng=rng, ledger=ledger, label="x"
        ),
        lambda ledger, rng: laplace_mechanism(
            3.0, sensitivity=1, epsilon=epsilon, rng=rng, ledger=ledger, label="x"
        ),
        lambda ledger, rng: noisy_histogram(
            [1, 0, 2], epsilon=epsilon, rng=rng, ledger=ledger, label="x"
        ),
        lambda ledger, rng: noisy_histogram(
            [1.0, 0.0], epsilon=epsilon, rng=rng, ledger=ledger, label="x", noise="laplace"
        ),
    ]


def _assert_records_nothing(call: Callable[[Ledger, random.Random], object]) -> None:
    ledger = Ledger(Relation.SUBSTITUTE)
    rng = random.Random(4)
    state = rng.getstate()
    with pytest.raises(InvalidParameterError):
        call(ledger, rng)
    assert ledger.charges == () and rng.getstate() == state


@pytest.mark.smoke
@pytest.mark.parametrize("epsilon", BAD_EPSILONS)
def test_bad_epsilon_raises_and_records_nothing(epsilon: object) -> None:
    for call in _calls(epsilon):
        _assert_records_nothing(call)


Call = Callable[[Ledger, random.Random], object]


def _bad_calls() -> List[Tuple[str, Call]]:
    def dlm(value: Any = 3, sensitivity: Any = 1, partition: Sequence[str] = ()) -> Call:
        return lambda ledger, rng: discrete_laplace_mechanism(
            value, sensitivity=sensitivity, epsilon=1, rng=rng, ledger=ledger, label="x",
            partition=partition,
        )

    def lm(value: Any = 3.0, sensitivity: Any = 1) -> Call:
        return lambda ledger, rng: laplace_mechanism(
            value, sensitivity=sensitivity, epsilon=1, rng=rng, ledger=ledger, label="x"
        )

    def hist(counts: Any, **kwargs: Any) -> Call:
        return lambda ledger, rng: noisy_histogram(
            counts, epsilon=1, rng=rng, ledger=ledger, label="x", **kwargs
        )

    return [
        ("float count", dlm(value=3.0)),
        ("bool count", dlm(value=True)),
        ("float sensitivity", dlm(sensitivity=1.0)),
        ("zero sensitivity", dlm(sensitivity=0)),
        ("negative sensitivity", dlm(sensitivity=Fraction(-1, 2))),
        ("empty partition component", dlm(partition=("a", ""))),
        ("nan value", lm(value=math.nan)),
        ("inf sensitivity", lm(sensitivity=math.inf)),
        ("zero float sensitivity", lm(sensitivity=0.0)),
        ("empty histogram", hist([])),
        ("negative count", hist([1, -1])),
        ("float count in a discrete histogram", hist([1, 0.5])),
        ("nan count", hist([1.0, math.nan], noise="laplace")),
        ("unknown noise", hist([1, 2], noise="gaussian")),
        ("names of the wrong length", hist([1, 2], names=["a"])),
        ("duplicate names", hist([1, 2], names=["a", "a"])),
        ("bad key", hist([1, 2], key="a=b")),
        ("bad partition", hist([1, 2], partition=("",))),
    ]


@pytest.mark.parametrize("name, call", _bad_calls(), ids=[name for name, _ in _bad_calls()])
def test_bad_arguments_raise_and_record_nothing(name: str, call: Call) -> None:
    _assert_records_nothing(call)


def test_inputs_are_not_mutated_on_error() -> None:
    counts = [3, -1, 0]
    names = ["a", "b", "c"]
    with pytest.raises(InvalidParameterError):
        noisy_histogram(counts, epsilon=1, rng=random.Random(0), ledger=Ledger(), label="x", names=names)
    assert counts == [3, -1, 0] and names == ["a", "b", "c"]


@pytest.mark.claim("parallel-composition", "discrete-laplace-mechanism")
def test_noisy_cells_is_one_charge_with_the_draws_of_one_histogram_per_row() -> None:
    table = [[3, 0], [5, 7], [0, 0]]
    flat = [c for row in table for c in row]
    one, many = Ledger(Relation.SUBSTITUTE), Ledger(Relation.SUBSTITUTE)
    a, b = random.Random(5), random.Random(5)
    compact = noisy_cells(flat, shape=(("leaf", 3), ("class", 2)), epsilon=Fraction(1, 3), rng=a, ledger=one,
                          label="t", partition=("tree0",))
    rows = [noisy_histogram(row, epsilon=Fraction(1, 3), rng=b, ledger=many, label="t",
                            partition=("tree0", f"leaf={j}")) for j, row in enumerate(table)]
    assert compact == [c for row in rows for c in row]
    assert len(one.charges) == 1 and len(many.charges) == 6 and one.total() == many.total()
    for bad in (dict(shape=(("leaf", 2), ("class", 2))), dict(shape=()), dict(noise="gauss")):
        kwargs = {"shape": (("leaf", 3), ("class", 2)), **bad}
        with pytest.raises(InvalidParameterError):
            noisy_cells(flat, epsilon=1, rng=a, ledger=one, label="t", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        noisy_cells([1, -1], shape=(("c", 2),), epsilon=1, rng=a, ledger=one, label="t")
    assert len(one.charges) == 1  # refused calls charge nothing
