"""The privacy ledger: every mechanism call records a charge here.

A charge says what was spent (epsilon, delta), by which mechanism, with which
sensitivity, under which claims in ``proofs/``, and on which *partition* of the
data.  A partition is a path of components from the root of the data, for
example ``("tree=0", "root", "a3=2", "class=yes")``; the empty path is the
whole dataset.

Composition rule (claims ``sequential-composition`` and
``parallel-composition``):

* A component written ``KEY=VALUE`` is a cell of a *disjoint* split named
  ``KEY``: siblings under one parent that share ``KEY`` hold disjoint rows.
  Their costs compose in parallel.  Under ``add-remove`` one record lies in
  one cell, so the split costs its most expensive cell.  Under
  ``substitute`` the removed and the added record lie either in one cell
  (which then sees a substitution) or in two (one sees a removal, the other
  an addition), so the split costs the larger of the worst one-cell
  substitution and the sum of the two largest single-record costs.
* Any other component (no ``=``), and cells of different splits, may share
  rows: their costs add up (sequential composition), as do the charges made
  on one partition.
* A charge with ``cells`` (for example ``(("leaf", 640), ("class", 2))``)
  stands for the same charge on every cell of those nested disjoint splits
  below its partition (a whole noisy histogram in one entry): it composes
  exactly as the 1280 charges it replaces would, so receipts grow with the
  number of histograms, not of cells.  Such cells cannot also be charged
  one by one (the ledger could not tell which explicit cell is which).

The cost of a partition is the sum of its own charges plus the composed costs
of its children (computed for one changed record and for two); the total is
the cost of the root.  Epsilon and delta are
composed the same way, each exactly as a Fraction.  Under ``substitute``, a
charge inside a cell must hold for an addition, a removal or a substitution
within that cell; mechanisms that calibrate to a relation take care of it
(see ``proofs/parallel-composition.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from refdp.errors import InvalidParameterError, PrivacyError
from refdp.privacy.relations import Number, Relation, as_delta, as_fraction

__all__ = [
    "Partition",
    "Sensitivity",
    "Charge",
    "Ledger",
    "check_partition",
    "check_cells",
    "Cells",
    "compose",
    "cell",
    "new_charge",
    "data_independent_charge",
]

Partition = Tuple[str, ...]
Sensitivity = Union[Fraction, float, None]


def cell(key: str, value: object) -> str:
    """The partition component for the cell ``value`` of the disjoint split ``key``."""
    if not key or "=" in key or "/" in key:
        raise InvalidParameterError(f"a split key must be non-empty without '=' or '/', got {key!r}")
    return f"{key}={value}"


@dataclass(frozen=True)
class Charge:
    """One recorded use of the data (or of data-independent randomness).

    ``epsilon`` and ``delta`` are exact; ``sensitivity`` is exact where it is
    rational and a float where it is not (for example log(N+1) + 1/ln 2).
    ``sound`` is False when the step follows a published rule that is not
    differentially private as claimed.  ``data_independent`` marks randomness
    that never reads the data (a random tree shape); it costs nothing.
    """

    label: str
    mechanism: str
    epsilon: Fraction
    delta: Fraction
    sensitivity: Sensitivity
    partition: Partition
    claims: Tuple[str, ...]
    sound: bool = True
    data_independent: bool = False
    note: str = ""
    cells: Tuple[Tuple[str, int], ...] = ()


Cells = Tuple[Tuple[str, int], ...]
"""Nested disjoint splits (key, number of cells), outermost first: the cells a compact charge covers."""


def check_cells(cells: Sequence[Tuple[str, int]]) -> Cells:
    """``cells`` as a tuple of (split key, count >= 1) pairs, or InvalidParameterError."""
    out: List[Tuple[str, int]] = []
    for entry in cells:
        if not isinstance(entry, tuple) or len(entry) != 2:
            raise InvalidParameterError(f"cells must be (split key, number of cells) pairs, got {entry!r}")
        key, count = entry
        cell(key, 0)  # validates the key
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidParameterError(f"the number of cells of split {key!r} must be an int >= 1, got {count!r}")
        out.append((key, count))
    return tuple(out)


def _grid_costs(per_cell: Fraction, cells: Cells) -> Tuple[Fraction, Fraction]:
    """(one record, two records) of ``per_cell`` spent on every cell of nested disjoint splits.

    A cell costs its own charges for one or two changed records; a split of
    n identical cells costs one cell for one record, and for two the larger
    of one cell's two-record cost and two cells' one-record costs (n >= 2).
    """
    one, two = per_cell, per_cell
    for _, count in reversed(cells):
        if count >= 2:
            two = max(two, 2 * one)
    return one, two


def _split_component(component: str) -> Optional[str]:
    key, sep, _ = component.partition("=")
    return key if sep else None


@dataclass
class _Node:
    own: List[Charge] = field(default_factory=list)
    children: Dict[str, "_Node"] = field(default_factory=dict)


def _costs(node: _Node, pick: int) -> Tuple[Fraction, Fraction]:
    """(cost when one record changes, cost when two records change) of ``node``.

    The second is what a substitution costs: the removed and the added record
    may fall in the same cell of a split (that cell's own two-record cost) or
    in two different cells (one-record cost of each).
    """
    own = sum((c.epsilon if pick == 0 else c.delta for c in node.own if not c.cells), Fraction(0))
    one, two = own, own
    grids: Dict[str, List[Charge]] = {}
    for c in node.own:
        if c.cells:
            grids.setdefault(c.cells[0][0], []).append(c)
    for grid_key, charges in grids.items():
        if any(c.cells != charges[0].cells for c in charges):
            raise PrivacyError(
                f"charges on the cells of split {grid_key!r} describe different cells ({charges[0].cells} and "
                f"{next(c.cells for c in charges if c.cells != charges[0].cells)}); the ledger cannot compose them"
            )
        if any(_split_component(component) == grid_key for component in node.children):
            raise PrivacyError(
                f"the cells of split {grid_key!r} are charged both as a whole and one by one; the ledger cannot "
                "tell which explicit cell is which"
            )
        per_cell = sum((c.epsilon if pick == 0 else c.delta for c in charges), Fraction(0))
        grid_one, grid_two = _grid_costs(per_cell, charges[0].cells)
        one += grid_one
        two += grid_two
    groups: Dict[str, List[Tuple[Fraction, Fraction]]] = {}
    for component, child in node.children.items():
        costs = _costs(child, pick)
        key = _split_component(component)
        if key is None:
            one += costs[0]
            two += costs[1]
        else:
            groups.setdefault(key, []).append(costs)
    for cells in groups.values():
        first, second = _two_largest([c[0] for c in cells])
        one += first
        two += max(max(c[1] for c in cells), first + second)
    return one, two


def _two_largest(values: Sequence[Fraction]) -> Tuple[Fraction, Fraction]:
    """The largest and second largest of ``values`` (0 when there is one)."""
    first, second = values[0], Fraction(0)
    for value in values[1:]:
        if value > first:
            first, second = value, first
        elif value > second:
            second = value
    return first, second


def compose(charges: Iterable[Charge], relation: Relation) -> Tuple[Fraction, Fraction]:
    """The total (epsilon, delta) of ``charges`` by the composition rule above."""
    root = _Node()
    has_delta = False
    for charge in charges:
        has_delta = has_delta or charge.delta != 0
        node = root
        for component in charge.partition:
            node = node.children.setdefault(component, _Node())
        node.own.append(charge)
    index = 0 if relation is Relation.ADD_REMOVE else 1
    # most ledgers spend no delta; composing zeros would cost as much as epsilon
    delta = _costs(root, 1)[index] if has_delta else Fraction(0)
    return _costs(root, 0)[index], delta


class Ledger:
    """An append-only record of charges under one neighbouring relation."""

    def __init__(self, relation: Relation = Relation.ADD_REMOVE) -> None:
        if not isinstance(relation, Relation):
            raise InvalidParameterError(f"relation must be a Relation, got {relation!r}")
        self.relation = relation
        self._charges: List[Charge] = []
        self._leaks: List[str] = []

    @property
    def charges(self) -> Tuple[Charge, ...]:
        return tuple(self._charges)

    @property
    def leaks(self) -> Tuple[str, ...]:
        return tuple(self._leaks)

    def record(self, charge: Charge) -> Charge:
        """Append ``charge`` (made by :func:`new_charge` or :func:`data_independent_charge`) and return it."""
        if not isinstance(charge, Charge):
            raise InvalidParameterError(f"a ledger records Charge values, got {type(charge).__name__}")
        self._charges.append(charge)
        return charge

    def charge(
        self,
        *,
        label: str,
        mechanism: str,
        epsilon: Number,
        sensitivity: Sensitivity,
        claims: Sequence[str],
        partition: Sequence[str] = (),
        delta: Number = 0,
        sound: bool = True,
        note: str = "",
        cells: Sequence[Tuple[str, int]] = (),
    ) -> Charge:
        """Record that a mechanism spent (epsilon, delta) on ``partition`` (:func:`new_charge`).

        With ``cells`` (nested disjoint splits, outermost first) it spent
        (epsilon, delta) on every cell of those splits below ``partition``.

        >>> ledger = Ledger()
        >>> for value in ("yes", "no"):
        ...     _ = ledger.charge(label="count", mechanism="discrete-laplace", epsilon="1/2",
        ...                       sensitivity=1, claims=("discrete-laplace-mechanism",),
        ...                       partition=(f"vote={value}",))
        >>> ledger.total()  # disjoint cells of one split compose in parallel
        (Fraction(1, 2), Fraction(0, 1))
        >>> _ = ledger.charge(label="size", mechanism="discrete-laplace", epsilon="1/2",
        ...                   sensitivity=1, claims=("discrete-laplace-mechanism",))
        >>> ledger.total()  # a charge on the whole data set adds up with them
        (Fraction(1, 1), Fraction(0, 1))

        Why 10 parameters: one per field of the charge (:func:`new_charge`), keyword-only.
        """
        return self.record(new_charge(
            label=label, mechanism=mechanism, epsilon=epsilon, sensitivity=sensitivity, claims=claims,
            partition=partition, delta=delta, sound=sound, note=note, cells=cells,
        ))

    def record_data_independent(
        self, *, label: str, partition: Sequence[str] = (), note: str = ""
    ) -> Charge:
        """Record randomness that never reads the data (it costs nothing)."""
        return self.record(data_independent_charge(label=label, partition=partition, note=note))

    def record_leak(self, description: str) -> None:
        """Record a use of the data outside any mechanism; the receipt becomes unsound."""
        self._leaks.append(description)

    def total(self) -> Tuple[Fraction, Fraction]:
        """The composed (epsilon, delta) of everything recorded so far."""
        return compose(self._charges, self.relation)


def new_charge(
    *,
    label: str,
    mechanism: str,
    epsilon: Number,
    sensitivity: Sensitivity,
    claims: Sequence[str],
    partition: Sequence[str] = (),
    delta: Number = 0,
    sound: bool = True,
    note: str = "",
    cells: Sequence[Tuple[str, int]] = (),
) -> Charge:
    """The charge :meth:`Ledger.charge` records, checked: epsilon >= 0, delta in [0, 1), a valid partition and cells.

    The mechanisms build their charges with it, and so does a verifier that
    re-derives a receipt's charges from a model's public parts.

    >>> new_charge(label="size", mechanism="discrete-laplace", epsilon="1/2", sensitivity=1,
    ...            claims=("discrete-laplace-mechanism",)).epsilon
    Fraction(1, 2)

    Why 10 parameters: one per field of :class:`Charge`, keyword-only, so that every
    charge names what it spends, on what, and on which claims.
    """
    eps = as_fraction(epsilon, "epsilon")
    if eps < 0:
        raise PrivacyError(f"a charge cannot have negative epsilon ({eps}); check the budget split")
    return Charge(
        label=label,
        mechanism=mechanism,
        epsilon=eps,
        delta=as_delta(delta),
        sensitivity=sensitivity,
        partition=check_partition(partition),
        claims=tuple(claims),
        sound=sound,
        note=note,
        cells=check_cells(cells),
    )


def data_independent_charge(*, label: str, partition: Sequence[str] = (), note: str = "") -> Charge:
    """The zero-cost charge of randomness that never reads the data (a random tree shape).

    >>> data_independent_charge(label="tree 0: random structure", partition=("tree0",)).data_independent
    True
    """
    return Charge(
        label=label,
        mechanism="data-independent",
        epsilon=Fraction(0),
        delta=Fraction(0),
        sensitivity=None,
        partition=check_partition(partition),
        claims=(),
        data_independent=True,
        note=note,
    )


def check_partition(partition: Sequence[str]) -> Partition:
    """``partition`` as a tuple of non-empty strings, or InvalidParameterError."""
    path = tuple(partition)
    for component in path:
        if not isinstance(component, str) or not component:
            raise InvalidParameterError(f"partition components must be non-empty strings: {path!r}")
    return path
