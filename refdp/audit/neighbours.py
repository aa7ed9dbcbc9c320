"""Neighbouring data sets: every neighbour of a data set, or a random one.

Differential privacy compares a mechanism's output on a data set ``D`` with its
output on every neighbour ``D'`` (claim-wise, under a named
:class:`~refdp.privacy.Relation`):

* ``add-remove``: ``D'`` is ``D`` with one row removed, or with one record of
  the *record universe* appended;
* ``substitute``: ``D'`` is ``D`` with one row replaced by a different record
  of the universe.

The record universe is everything a row could be under the public schema: the
product of the categorical domains, the candidate values of the continuous
attributes, and the classes.  A continuous attribute has uncountably many
values, so an exhaustive audit can only try some of them: ``candidates`` maps
its name to the values to try, by default its public lower bound, midpoint
and upper bound.

Records are handled encoded, as in :meth:`Dataset.from_codes`: the code of a
categorical value, the float of a continuous one, and the class code.  Every
function here builds new data sets and never changes its input.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.data import CategoricalAttribute, Dataset, MissingPolicy, Schema
from refdp.errors import DataError, SchemaError
from refdp.privacy import Relation, parse_relation
from refdp.rng import RandomSource

__all__ = [
    "Candidates",
    "Record",
    "record_of",
    "record_universe",
    "universe_size",
    "universe_record",
    "dataset_of",
    "add_record",
    "remove_row",
    "replace_row",
    "all_neighbours",
    "random_neighbour",
    "are_neighbours",
]

Candidates = Mapping[str, Sequence[float]]
"""Values to try for each continuous attribute, by attribute name."""

Cell = Union[int, float]


@dataclass(frozen=True)
class Record:
    """One encoded row: ``values[j]`` is a code (categorical) or a float (continuous).

    ``label`` is the class code.  Records are hashable, so a data set can be
    compared with another as a multiset of records.
    """

    values: Tuple[Cell, ...]
    label: int

    def describe(self, schema: Schema) -> str:
        """The record in words, for example ``(x,o,b; positive)``."""
        cells = [
            attribute.values[int(value)]
            if isinstance(attribute, CategoricalAttribute)
            else repr(float(value))
            for attribute, value in zip(schema.attributes, self.values)
        ]
        return f"({','.join(cells)}; {schema.classes[self.label]})"


def _check_dataset(data: object) -> Dataset:
    if not isinstance(data, Dataset):
        raise DataError(f"expected a refdp Dataset, got {type(data).__name__}")
    return data


def _domains(schema: Schema, candidates: Optional[Candidates]) -> List[Tuple[Cell, ...]]:
    """The values each attribute takes in the record universe, in schema order."""
    given: Dict[str, Sequence[float]] = dict(candidates or {})
    continuous = {a.name for a in schema.attributes if not isinstance(a, CategoricalAttribute)}
    unknown = sorted(set(given) - continuous)
    if unknown:
        raise SchemaError(
            f"candidates name {unknown}, which are not continuous attributes of the schema; "
            f"give candidate values only for {sorted(continuous)}"
        )
    domains: List[Tuple[Cell, ...]] = []
    for attribute in schema.attributes:
        if isinstance(attribute, CategoricalAttribute):
            domains.append(tuple(range(attribute.n_values)))
            continue
        if attribute.name not in given:
            lower, upper = attribute.lower, attribute.upper
            domains.append((lower, lower + (upper - lower) / 2, upper))
            continue
        raw = given[attribute.name]
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) or len(raw) == 0:
            raise SchemaError(
                f"candidates for {attribute.name!r} must be a non-empty list of numbers, got {raw!r}"
            )
        values: List[float] = []
        for v in raw:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise SchemaError(f"candidate {v!r} for {attribute.name!r} is not a finite number")
            if not attribute.contains(float(v)):
                raise SchemaError(
                    f"candidate {v!r} for {attribute.name!r} lies outside its public bounds "
                    f"[{attribute.lower!r}, {attribute.upper!r}]; candidates must be possible values"
                )
            values.append(float(v))
        # Repeated candidates would list the same neighbour twice.
        domains.append(tuple(dict.fromkeys(values)))
    return domains


def record_of(data: Dataset, i: int) -> Record:
    """Row ``i`` of ``data`` as an encoded :class:`Record`."""
    data = _check_dataset(data)
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(data):
        raise DataError(f"row {i!r} does not exist; rows are numbered 0..{len(data) - 1}")
    columns = [data.column(j) for j in range(data.schema.n_attributes)]
    return Record(tuple(column[i] for column in columns), data.labels[i])


def _records(data: Dataset) -> List[Record]:
    columns = [data.column(j) for j in range(data.schema.n_attributes)]
    labels = data.labels
    return [Record(tuple(column[i] for column in columns), labels[i]) for i in range(len(data))]


def record_universe(schema: Schema, candidates: Optional[Candidates] = None) -> Iterator[Record]:
    """Every record of the universe, lazily, in :func:`itertools.product` order.

    Attributes vary in schema order with the last one fastest, then the class
    (fastest of all).  There are :func:`universe_size` records; for real schemas
    this can be astronomically many, which is why this is an iterator.
    """
    domains = _domains(schema, candidates)
    for combo in itertools.product(*domains, range(schema.n_classes)):
        yield Record(tuple(combo[:-1]), int(combo[-1]))


def universe_size(schema: Schema, candidates: Optional[Candidates] = None) -> int:
    """|U|: the product of the domain sizes, candidate counts and the number of classes."""
    size = schema.n_classes
    for domain in _domains(schema, candidates):
        size *= len(domain)
    return size


def universe_record(
    schema: Schema, index: int, candidates: Optional[Candidates] = None
) -> Record:
    """The record at position ``index`` of :func:`record_universe`, without enumerating."""
    domains = _domains(schema, candidates)
    size = schema.n_classes * math.prod(len(d) for d in domains)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < size:
        raise DataError(f"record index {index!r} is outside the universe 0..{size - 1}")
    index, label = divmod(index, schema.n_classes)
    values: List[Cell] = []
    for domain in reversed(domains):
        index, position = divmod(index, len(domain))
        values.append(domain[position])
    return Record(tuple(reversed(values)), label)


def _build(data: Dataset, records: Sequence[Record]) -> Dataset:
    """A data set of ``data``'s schema and missing-value policy holding ``records``."""
    return _from_records(data.schema, records, data.missing)


def _from_records(schema: Schema, records: Sequence[Record], missing: Optional[MissingPolicy] = None) -> Dataset:
    columns = [[r.values[j] for r in records] for j in range(schema.n_attributes)]
    return Dataset.from_codes(schema, columns, [r.label for r in records], missing=missing)


def dataset_of(schema: Schema, records: Sequence[Record]) -> Dataset:
    """The data set of ``records`` (encoded, validated against ``schema``), in their order."""
    for record in records:
        if not isinstance(record, Record) or len(record.values) != schema.n_attributes:
            raise DataError(f"expected a Record with {schema.n_attributes} values for this schema, got {record!r}")
    return _from_records(schema, list(records))


def add_record(data: Dataset, record: Record) -> Dataset:
    """``data`` with ``record`` appended as its last row (validated against the schema)."""
    data = _check_dataset(data)
    if not isinstance(record, Record) or len(record.values) != data.schema.n_attributes:
        raise DataError(
            f"expected a Record with {data.schema.n_attributes} values for this schema, got {record!r}"
        )
    return _build(data, _records(data) + [record])


def remove_row(data: Dataset, i: int) -> Dataset:
    """``data`` without row ``i`` (the other rows keep their order)."""
    data = _check_dataset(data)
    record_of(data, i)  # validates i
    return data.subset([j for j in range(len(data)) if j != i])


def replace_row(data: Dataset, i: int, record: Record) -> Dataset:
    """``data`` with row ``i`` replaced by ``record`` (validated against the schema)."""
    data = _check_dataset(data)
    record_of(data, i)  # validates i
    if not isinstance(record, Record) or len(record.values) != data.schema.n_attributes:
        raise DataError(
            f"expected a Record with {data.schema.n_attributes} values for this schema, got {record!r}"
        )
    records = _records(data)
    records[i] = record
    return _build(data, records)


def all_neighbours(
    data: Dataset, relation: Union[Relation, str], *, candidates: Optional[Candidates] = None
) -> Iterator[Tuple[str, Dataset]]:
    """Every neighbour of ``data`` under ``relation``, with a description, lazily.

    ``add-remove``: the ``n`` removals ("remove row 3 (...)"), then the |U|
    additions ("add (...)"), in :func:`record_universe` order; ``n + |U|``
    neighbours.  ``substitute``: for each row ``i``, every record of the
    universe other than row ``i`` itself ("replace row 3 (...) by (...)");
    ``n * |U|`` minus the rows whose own record lies in the universe (a row
    replaced by itself is ``data`` again, not a neighbour).

    Identical rows give identical neighbours; they are listed once per row,
    because that is cheaper than comparing data sets and harmless to an audit.
    """
    data = _check_dataset(data)
    relation = parse_relation(relation)
    schema = data.schema
    records = _records(data)
    universe = list(record_universe(schema, candidates))
    if relation is Relation.ADD_REMOVE:
        for i, record in enumerate(records):
            yield f"remove row {i} {record.describe(schema)}", remove_row(data, i)
        for record in universe:
            yield f"add {record.describe(schema)}", _build(data, records + [record])
        return
    for i, old in enumerate(records):
        for record in universe:
            if record == old:
                continue
            changed = list(records)
            changed[i] = record
            yield (
                f"replace row {i} {old.describe(schema)} by {record.describe(schema)}",
                _build(data, changed),
            )


def random_neighbour(
    data: Dataset,
    relation: Union[Relation, str],
    rng: RandomSource,
    *,
    candidates: Optional[Candidates] = None,
) -> Tuple[str, Dataset]:
    """One neighbour drawn uniformly from :func:`all_neighbours` (same description).

    Raises DataError when there is none: a substitution needs a row, and a
    record of the universe that differs from it.
    """
    data = _check_dataset(data)
    relation = parse_relation(relation)
    schema = data.schema
    n = len(data)
    size = universe_size(schema, candidates)
    if relation is Relation.ADD_REMOVE:
        pick = rng.randrange(n + size)
        if pick < n:
            return f"remove row {pick} {record_of(data, pick).describe(schema)}", remove_row(data, pick)
        record = universe_record(schema, pick - n, candidates)
        return f"add {record.describe(schema)}", add_record(data, record)
    records = _records(data)
    if n == 0 or (size == 1 and all(r == universe_record(schema, 0, candidates) for r in records)):
        raise DataError(
            "this data set has no substitute neighbour (it is empty, or every row already is the "
            "only record of the universe); add rows or candidate values"
        )
    while True:  # rejection keeps the draw uniform over the non-identical replacements
        pick = rng.randrange(n * size)
        i, index = divmod(pick, size)
        record = universe_record(schema, index, candidates)
        if record != records[i]:
            description = f"replace row {i} {records[i].describe(schema)} by {record.describe(schema)}"
            return description, replace_row(data, i, record)


def are_neighbours(d: Dataset, d_prime: Dataset, relation: Union[Relation, str]) -> bool:
    """Whether ``d`` and ``d_prime`` differ in exactly one record under ``relation``.

    Data sets are compared as multisets of records (row order is irrelevant);
    both must share one schema.  Equal data sets are not neighbours.
    """
    d, d_prime = _check_dataset(d), _check_dataset(d_prime)
    relation = parse_relation(relation)
    if d.schema != d_prime.schema:
        raise SchemaError("the two data sets have different schemas; neighbours share one schema")
    counts: Dict[Record, int] = {}
    for record in _records(d):
        counts[record] = counts.get(record, 0) + 1
    for record in _records(d_prime):
        counts[record] = counts.get(record, 0) - 1
    surplus = sum(c for c in counts.values() if c > 0)
    deficit = -sum(c for c in counts.values() if c < 0)
    if relation is Relation.ADD_REMOVE:
        return surplus + deficit == 1
    return surplus == 1 and deficit == 1
