"""Hypothesis strategies for audits: schemas, data sets, neighbouring pairs, count tables.

Tests only (refdp itself imports no Hypothesis).  Also :func:`search_sensitivity`,
a randomised search for the worst neighbouring pair of a function, steered
towards large changes by ``hypothesis.target`` and complementary to the
exhaustive :func:`refdp.audit.exhaustive_sensitivity`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, List, Optional, Tuple, TypeVar, Union

from hypothesis import HealthCheck, Phase, assume, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from refdp.audit import Record, SensitivityReport, add_record, remove_row, replace_row
from refdp.audit.sensitivity import Score, Table, score_change
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.privacy import Relation

__all__ = [
    "schemas",
    "records",
    "datasets",
    "neighbouring_pairs",
    "count_tables",
    "count_table_pairs",
    "search_sensitivity",
]

X = TypeVar("X")
Attribute = Union[CategoricalAttribute, ContinuousAttribute]


@st.composite
def _attribute(draw: st.DrawFn, name: str, max_values: int, continuous: bool) -> Attribute:
    if continuous and draw(st.booleans()):
        lower = draw(st.integers(-10, 10))
        width = draw(st.integers(1, 10))
        return ContinuousAttribute(name, float(lower), float(lower + width))
    size = draw(st.integers(1, max_values))
    return CategoricalAttribute(name, tuple(f"v{i}" for i in range(size)))


@st.composite
def schemas(
    draw: st.DrawFn,
    *,
    max_attributes: int = 3,
    max_values: int = 3,
    min_classes: int = 1,
    max_classes: int = 3,
    continuous: bool = True,
) -> Schema:
    """Small public schemas: ``a0, a1, ...`` (categorical ``v0, v1, ...`` or continuous), classes ``c0, ...``."""
    n_attributes = draw(st.integers(0, max_attributes))
    attributes = tuple(draw(_attribute(f"a{j}", max_values, continuous)) for j in range(n_attributes))
    n_classes = draw(st.integers(min_classes, max_classes))
    return Schema(attributes, "class", tuple(f"c{c}" for c in range(n_classes)))


@st.composite
def records(draw: st.DrawFn, schema: Schema) -> Record:
    """Any record the schema allows (continuous values anywhere in their bounds)."""
    values: List[Union[int, float]] = []
    for attribute in schema.attributes:
        if isinstance(attribute, CategoricalAttribute):
            values.append(draw(st.integers(0, attribute.n_values - 1)))
        else:
            values.append(draw(st.floats(attribute.lower, attribute.upper, allow_nan=False)))
    return Record(tuple(values), draw(st.integers(0, schema.n_classes - 1)))


@st.composite
def datasets(draw: st.DrawFn, schema: Schema, min_size: int = 0, max_size: int = 8) -> Dataset:
    """Data sets of ``min_size`` to ``max_size`` rows over ``schema``."""
    rows = draw(st.lists(records(schema), min_size=min_size, max_size=max_size))
    columns = [[r.values[j] for r in rows] for j in range(schema.n_attributes)]
    return Dataset.from_codes(schema, columns, [r.label for r in rows])


@st.composite
def neighbouring_pairs(
    draw: st.DrawFn,
    relation: Relation,
    *,
    schema_strategy: Optional[st.SearchStrategy[Schema]] = None,
    min_size: int = 0,
    max_size: int = 8,
) -> Tuple[Dataset, Dataset]:
    """Pairs ``(D, D')`` of neighbours under ``relation``, in either order.

    ``add-remove``: ``D'`` is ``D`` plus a record, or ``D`` minus a row.
    ``substitute``: one row of ``D`` replaced by a different record (so ``D``
    has at least one row).
    """
    schema = draw(schema_strategy if schema_strategy is not None else schemas())
    if relation is Relation.SUBSTITUTE:
        data = draw(datasets(schema, max(1, min_size), max_size))
        i = draw(st.integers(0, len(data) - 1))
        record = draw(records(schema).filter(lambda r: r != _row(data, i)))
        return data, replace_row(data, i, record)
    data = draw(datasets(schema, min_size, max_size))
    if len(data) > 0 and draw(st.booleans()):
        return data, remove_row(data, draw(st.integers(0, len(data) - 1)))
    return data, add_record(data, draw(records(schema)))


def _row(data: Dataset, i: int) -> Record:
    return Record(tuple(data.column(j)[i] for j in range(data.schema.n_attributes)), data.labels[i])


@st.composite
def count_tables(
    draw: st.DrawFn, *, max_cells: int = 3, max_classes: int = 3, max_count: int = 10
) -> Table:
    """Count tables ``tau[j][c]``: 1 to ``max_cells`` cells, 1 to ``max_classes`` classes."""
    n_cells = draw(st.integers(1, max_cells))
    n_classes = draw(st.integers(1, max_classes))
    row = st.tuples(*[st.integers(0, max_count)] * n_classes)
    return tuple(draw(row) for _ in range(n_cells))


@st.composite
def count_table_pairs(
    draw: st.DrawFn,
    relation: Relation,
    *,
    max_cells: int = 3,
    max_classes: int = 3,
    max_count: int = 10,
) -> Tuple[Table, Table]:
    """Neighbouring count tables, as :func:`refdp.audit.count_table_neighbours` defines them."""
    table = draw(count_tables(max_cells=max_cells, max_classes=max_classes, max_count=max_count))
    rows = [list(r) for r in table]
    cells = [(j, c) for j in range(len(rows)) for c in range(len(rows[0]))]
    if relation is Relation.ADD_REMOVE:
        j, c = draw(st.sampled_from(cells))
        rows[j][c] += -1 if rows[j][c] > 0 and draw(st.booleans()) else 1
    else:
        occupied = [cell for cell in cells if rows[cell[0]][cell[1]] > 0]
        # A substitution needs a record to move and another cell to move it to.
        assume(occupied and len(cells) > 1)
        j1, c1 = draw(st.sampled_from(occupied))
        j2, c2 = draw(st.sampled_from([cell for cell in cells if cell != (j1, c1)]))
        rows[j1][c1] -= 1
        rows[j2][c2] += 1
    return table, tuple(tuple(r) for r in rows)


def search_sensitivity(
    f: Callable[[X], Score],
    pairs: st.SearchStrategy[Tuple[X, X]],
    *,
    max_examples: int = 300,
    seed: int = 0,
) -> SensitivityReport[X]:
    """The largest ``|f(x) - f(x')|`` Hypothesis finds over ``pairs``, steered by ``target``.

    Deterministic for a given ``seed``; no example database is used, so a
    run never depends on earlier ones.  A lower bound on the sensitivity,
    unlike :func:`refdp.audit.exhaustive_sensitivity` on a finite family.
    """
    best: List[Tuple[Score, Tuple[X, X]]] = []
    checked = [0]

    @settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.target],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis_seed(seed)
    @given(pairs)
    def explore(pair: Tuple[X, X]) -> None:
        change = score_change(f(pair[0]), f(pair[1]))
        checked[0] += 1
        target(float(change), label="|f(x) - f(x')|")
        if not best or change > best[0][0]:
            best[:] = [(change, pair)]

    explore()
    if not best:
        return SensitivityReport(Fraction(0), None, checked[0])
    return SensitivityReport(best[0][0], best[0][1], checked[0])
