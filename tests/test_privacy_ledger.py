"""The ledger's composition against a brute-force oracle, and exact histogram losses."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from typing import Dict, FrozenSet, List, Sequence, Set, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.errors import InvalidParameterError, PrivacyError
from refdp.privacy import (
    Charge,
    Ledger,
    Receipt,
    Relation,
    as_delta,
    as_epsilon,
    cell,
    compose,
    parse_relation,
    receipt_from_ledger,
)

Path = Tuple[str, ...]

COMPONENTS = ["s0", "s1", "a=0", "a=1", "a=2", "b=0", "b=1"]


def _placements(paths: Set[Path], prefix: Path = ()) -> List[FrozenSet[Path]]:
    """Every set of partitions one record can belong to, below ``prefix``."""
    children = sorted({p[len(prefix)] for p in paths if len(p) > len(prefix) and p[: len(prefix)] == prefix})
    scopes = [c for c in children if "=" not in c]
    groups: Dict[str, List[str]] = {}
    for c in children:
        if "=" in c:
            groups.setdefault(c.split("=", 1)[0], []).append(c)
    options: List[List[FrozenSet[Path]]] = []
    for s in scopes:
        options.append(_placements(paths, prefix + (s,)))
    for cells in groups.values():
        options.append([p for c in cells for p in _placements(paths, prefix + (c,))])
    result = []
    for combo in itertools.product(*options):
        visited: Set[Path] = {prefix}
        for part in combo:
            visited |= part
        result.append(frozenset(visited))
    return result


def _brute_force(charges: Sequence[Charge], relation: Relation, pick: str = "epsilon") -> Fraction:
    """The worst total of ``pick`` ("epsilon" or "delta") over every placement of the changed record(s)."""
    paths: Set[Path] = set()
    for c in charges:
        for i in range(len(c.partition) + 1):
            paths.add(c.partition[:i])
    cost: Dict[Path, Fraction] = {}
    for c in charges:
        cost[c.partition] = cost.get(c.partition, Fraction(0)) + (c.epsilon if pick == "epsilon" else c.delta)
    placements = _placements(paths)
    if relation is Relation.ADD_REMOVE:
        return max(sum((cost.get(p, Fraction(0)) for p in pl), Fraction(0)) for pl in placements)
    return max(
        sum((cost.get(p, Fraction(0)) for p in (p1 | p2)), Fraction(0))
        for p1 in placements
        for p2 in placements
    )


# Most charges spend no delta, so zero is drawn often: the total delta must not
# depend on which charge happens to come last (a mutant that composed delta
# only when the last charge had one passed every other test).
deltas = st.one_of(st.just(Fraction(0)), st.fractions(min_value=Fraction(1, 100), max_value=Fraction(1, 4), max_denominator=100))

charge_specs = st.lists(
    st.tuples(
        st.lists(st.sampled_from(COMPONENTS), max_size=3),
        st.fractions(min_value=Fraction(1, 8), max_value=2, max_denominator=8),
        deltas,
    ),
    min_size=1,
    max_size=7,
)


@pytest.mark.claim("sequential-composition", "parallel-composition")
@settings(max_examples=300)
@given(charge_specs, st.sampled_from(list(Relation)))
def test_compose_matches_brute_force(specs: List[Tuple[List[str], Fraction, Fraction]], relation: Relation) -> None:
    ledger = Ledger(relation)
    for path, eps, delta in specs:
        ledger.charge(label="t", mechanism="m", epsilon=eps, delta=delta, sensitivity=None, claims=(), partition=path)
    assert ledger.total() == (
        _brute_force(ledger.charges, relation, "epsilon"),
        _brute_force(ledger.charges, relation, "delta"),
    )


@pytest.mark.claim("sequential-composition")
def test_delta_spent_early_is_not_forgotten_by_a_later_pure_charge() -> None:
    ledger = Ledger()
    ledger.charge(label="a", mechanism="m", epsilon=1, delta="1/100", sensitivity=None, claims=())
    ledger.charge(label="b", mechanism="m", epsilon=1, sensitivity=None, claims=())
    assert ledger.total() == (Fraction(2), Fraction(1, 100))


@pytest.mark.smoke
@pytest.mark.claim("sequential-composition")
def test_sequential_sum_on_one_partition_and_scopes() -> None:
    ledger = Ledger()
    ledger.charge(label="a", mechanism="m", epsilon="1/3", sensitivity=None, claims=())
    ledger.charge(label="b", mechanism="m", epsilon="1/3", sensitivity=None, claims=(), partition=("tree0",))
    ledger.charge(label="c", mechanism="m", epsilon="1/3", sensitivity=None, claims=(), partition=("tree1",))
    assert ledger.total() == (Fraction(1), Fraction(0))


@pytest.mark.claim("parallel-composition")
def test_histogram_per_leaf_costs_two_epsilon_under_substitute_not_four() -> None:
    for relation, expected in ((Relation.ADD_REMOVE, 1), (Relation.SUBSTITUTE, 2)):
        ledger = Ledger(relation)
        for leaf in range(3):
            for label in range(2):
                ledger.charge(
                    label="h",
                    mechanism="m",
                    epsilon=1,
                    sensitivity=1,
                    claims=(),
                    partition=(cell("x", leaf), cell("class", label)),
                )
        assert ledger.total()[0] == expected


@pytest.mark.claim("parallel-composition")
def test_delta_composes_like_epsilon() -> None:
    ledger = Ledger()
    ledger.charge(label="a", mechanism="m", epsilon=1, delta="1/100", sensitivity=None, claims=(), partition=("k=1",))
    ledger.charge(label="b", mechanism="m", epsilon=1, delta="1/50", sensitivity=None, claims=(), partition=("k=2",))
    ledger.charge(label="c", mechanism="m", epsilon=1, delta="1/1000", sensitivity=None, claims=())
    assert ledger.total() == (Fraction(2), Fraction(21, 1000))


def _log_dlap_histogram_ratio(c: Sequence[int], c2: Sequence[int], scale: Fraction) -> float:
    """Largest |log P(out|c) - log P(out|c2)| for independent DLap(scale) noise per cell.

    With P(k | c) proportional to exp(-|k - c| / scale) per cell, the ratio at an
    output vector is exp(sum_j (|k_j - c2_j| - |k_j - c_j|) / scale); each term is
    at most |c_j - c2_j| and is attained at k_j = c_j, so the maximum is
    ||c - c2||_1 / scale, reached exactly.
    """
    worst = 0.0
    for k in itertools.product(*[range(min(a, b) - 3, max(a, b) + 4) for a, b in zip(c, c2)]):
        loss = sum(abs(kj - bj) - abs(kj - aj) for kj, aj, bj in zip(k, c, c2)) / float(scale)
        worst = max(worst, abs(loss))
    return worst


@pytest.mark.claim("parallel-composition")
def test_exact_histogram_loss_equals_ledger_total() -> None:
    epsilon = Fraction(1, 2)
    counts = [3, 0, 2]
    neighbours = {
        Relation.ADD_REMOVE: [[4, 0, 2], [3, 1, 2], [2, 0, 2]],
        Relation.SUBSTITUTE: [[2, 1, 2], [3, 1, 1], [4, 0, 1]],
    }
    for relation, others in neighbours.items():
        ledger = Ledger(relation)
        for j in range(3):
            ledger.charge(label="h", mechanism="discrete-laplace", epsilon=epsilon, sensitivity=1, claims=(), partition=(cell("class", j),))
        worst = max(_log_dlap_histogram_ratio(counts, o, 1 / epsilon) for o in others)
        assert math.isclose(worst, float(ledger.total()[0]), rel_tol=1e-12)


@pytest.mark.smoke
def test_receipt_round_trip_and_soundness() -> None:
    ledger = Ledger(Relation.SUBSTITUTE)
    ledger.charge(label="a", mechanism="m", epsilon=0.1, sensitivity=Fraction(1, 2), claims=("laplace-mechanism",),
                  partition=("root",))
    ledger.charge(label="b", mechanism="m", epsilon=0.2, sensitivity=2.5, claims=("exponential-mechanism",), sound=False)
    ledger.record_data_independent(label="shape", note="random structure")
    receipt = receipt_from_ledger(ledger)
    assert receipt.epsilon == Fraction(3, 10)
    assert not receipt.sound and receipt.level == "unsound"
    assert receipt.claims == ("exponential-mechanism", "laplace-mechanism")
    assert Receipt.from_json(json.loads(json.dumps(receipt.to_json()))) == receipt


def test_leak_makes_receipt_unsound() -> None:
    ledger = Ledger()
    ledger.charge(label="a", mechanism="m", epsilon=1, sensitivity=1, claims=())
    ledger.record_leak("schema inferred from the data")
    receipt = receipt_from_ledger(ledger)
    assert not receipt.sound and receipt.level == "unsound" and receipt.leaks == ("schema inferred from the data",)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "abc", True, None])
def test_bad_epsilon(bad: object) -> None:
    with pytest.raises(InvalidParameterError):
        as_epsilon(bad)  # type: ignore[arg-type]


def test_float_epsilon_is_the_decimal_typed() -> None:
    assert as_epsilon(0.1) == Fraction(1, 10)
    assert as_epsilon("1/3") == Fraction(1, 3)
    assert as_delta(0) == 0
    with pytest.raises(InvalidParameterError):
        as_delta(1)


def test_negative_charge_and_bad_partition_record_nothing() -> None:
    ledger = Ledger()
    with pytest.raises(PrivacyError):
        ledger.charge(label="a", mechanism="m", epsilon=-1, sensitivity=1, claims=())
    with pytest.raises(InvalidParameterError):
        ledger.charge(label="a", mechanism="m", epsilon=1, sensitivity=1, claims=(), partition=("",))
    assert ledger.charges == ()
    with pytest.raises(InvalidParameterError):
        cell("a=b", 1)


def test_parse_relation() -> None:
    assert parse_relation("substitute") is Relation.SUBSTITUTE
    assert parse_relation("add_remove") is Relation.ADD_REMOVE
    with pytest.raises(InvalidParameterError, match="add-remove, substitute"):
        parse_relation("swap")


def test_compose_empty_is_zero() -> None:
    assert compose([], Relation.SUBSTITUTE) == (Fraction(0), Fraction(0))


# --- compact charges: one entry for every cell of nested disjoint splits -----------------------------

shapes = st.lists(
    st.tuples(st.sampled_from(["leaf", "class", "bin"]), st.integers(1, 3)), min_size=1, max_size=3, unique_by=lambda t: t[0]
)


def _expanded(path: Path, shape: Sequence[Tuple[str, int]]) -> List[Path]:
    cells: List[Path] = [path]
    for key, count in shape:
        cells = [c + (cell(key, j),) for c in cells for j in range(count)]
    return cells


@pytest.mark.claim("parallel-composition", "sequential-composition")
@settings(max_examples=300)
@given(
    charge_specs,
    st.lists(st.sampled_from(["s0", "s1"]), max_size=2),
    shapes,
    st.fractions(min_value=Fraction(1, 8), max_value=2, max_denominator=8),
    deltas,
    st.integers(1, 2),
    st.sampled_from(list(Relation)),
)
def test_a_compact_charge_composes_as_its_cells_would(
    specs: List[Tuple[List[str], Fraction, Fraction]],
    path: List[str],
    shape: List[Tuple[str, int]],
    eps: Fraction,
    delta: Fraction,
    copies: int,
    relation: Relation,
) -> None:
    # Other charges beside the compact ones, except on explicit cells of the compact split.
    others = [s for s in specs if not any(c.startswith(f"{shape[0][0]}=") for c in s[0])]
    compact, explicit = Ledger(relation), Ledger(relation)
    for ledger in (compact, explicit):
        for p, e, d in others:
            ledger.charge(label="t", mechanism="m", epsilon=e, delta=d, sensitivity=None, claims=(), partition=p)
    for _ in range(copies):
        compact.charge(label="h", mechanism="m", epsilon=eps, delta=delta, sensitivity=None, claims=(),
                       partition=path, cells=shape)
        for cell_path in _expanded(tuple(path), shape):
            explicit.charge(label="h", mechanism="m", epsilon=eps, delta=delta, sensitivity=None, claims=(),
                            partition=cell_path)
    assert compact.total() == explicit.total()


def test_compact_cells_cannot_be_mixed_with_explicit_ones_or_other_shapes() -> None:
    ledger = Ledger()
    ledger.charge(label="h", mechanism="m", epsilon=1, sensitivity=None, claims=(), cells=(("leaf", 3),))
    ledger.charge(label="c", mechanism="m", epsilon=1, sensitivity=None, claims=(), partition=("leaf=1",))
    with pytest.raises(PrivacyError, match="as a whole and one by one"):
        ledger.total()
    other = Ledger()
    other.charge(label="h", mechanism="m", epsilon=1, sensitivity=None, claims=(), cells=(("leaf", 3),))
    other.charge(label="h", mechanism="m", epsilon=1, sensitivity=None, claims=(), cells=(("leaf", 4),))
    with pytest.raises(PrivacyError, match="different cells"):
        other.total()
    for bad in ((("leaf", 0),), (("a=b", 2),), (("leaf", True),), (("leaf",),)):
        with pytest.raises(InvalidParameterError):
            Ledger().charge(label="h", mechanism="m", epsilon=1, sensitivity=None, claims=(), cells=bad)  # type: ignore[arg-type]


def test_compact_charges_round_trip_in_receipts() -> None:
    ledger = Ledger(Relation.SUBSTITUTE)
    ledger.charge(label="h", mechanism="discrete-laplace", epsilon=Fraction(1, 2), sensitivity=Fraction(1),
                  claims=("discrete-laplace-mechanism",), partition=("tree0",), cells=(("leaf", 5), ("class", 2)))
    receipt = receipt_from_ledger(ledger)
    assert receipt.epsilon == 1  # one record leaves a cell and joins another
    text = json.loads(json.dumps(receipt.to_json()))
    assert text["charges"][0]["cells"] == [["leaf", 5], ["class", 2]]
    assert Receipt.from_json(text) == receipt
