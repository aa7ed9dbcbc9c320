"""Noisy counts that record their privacy charges in a ledger.

Every call validates all of its arguments first, then records its charges
(one per released number), then draws the noise: a bad call records nothing
and draws nothing, and nothing is released without being recorded.

The discrete Laplace is the default for counts because it is exact (claim
``discrete-laplace-mechanism``); the continuous Laplace is here because the
papers use it (claim ``laplace-mechanism``, private only in idealised
arithmetic).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, List, Literal, Optional, Sequence, Tuple, Union, overload

from refdp.errors import InvalidParameterError
from refdp.mechanisms._params import SensitivityLike, sensitivity_value
from refdp.mechanisms.exact import discrete_laplace
from refdp.mechanisms.laplace import laplace_noise
from refdp.mechanisms.recording import Call, Counts, DiscreteLaplaceLaw, LaplaceLaw, Scalar, mechanism_call
from refdp.privacy import Charge, Ledger, Number, Relation, as_epsilon, cell, check_partition
from refdp.privacy.ledger import check_cells, new_charge
from refdp.rng import RandomSource

__all__ = [
    "NoiseKind",
    "DiscreteLaplaceSampler",
    "discrete_laplace_mechanism",
    "laplace_mechanism",
    "histogram_scale",
    "noisy_histogram",
    "noisy_cells",
    "count_charge",
    "histogram_charges",
    "cells_charge",
]

DiscreteLaplaceSampler = Callable[[Fraction, RandomSource], int]
"""A sampler of the discrete Laplace with a given scale: :func:`refdp.mechanisms.exact.discrete_laplace`,
or an engine's sampler that makes the same draws (the charges stay in this module)."""

NoiseKind = Literal["discrete-laplace", "laplace"]
"""The noise of :func:`noisy_histogram`: exact integer noise or float Laplace noise."""

_NOISE_KINDS = ("discrete-laplace", "laplace")


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(
            f"{name} must be an int for the discrete Laplace mechanism, got {value!r}; "
            f"use laplace_mechanism for real values"
        )
    return value


def _exact_sensitivity(sensitivity: Union[int, Fraction]) -> Fraction:
    if isinstance(sensitivity, float):
        raise InvalidParameterError(
            f"the discrete Laplace mechanism needs an exact sensitivity (int or Fraction), "
            f"got the float {sensitivity!r}"
        )
    return sensitivity_value(sensitivity)[1]


def discrete_laplace_mechanism(
    value: int,
    *,
    sensitivity: Union[int, Fraction] = 1,
    epsilon: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
    claims: Sequence[str] = ("discrete-laplace-mechanism",),
    sound: bool = True,
    sampler: DiscreteLaplaceSampler = discrete_laplace,
) -> int:
    """``value + Z`` with Z ~ DLap(Delta/epsilon), exactly; records one charge of ``epsilon``.

    ``value`` is f(D) for an integer-valued query f whose value changes by at
    most Delta = ``sensitivity`` between neighbours under the ledger's
    relation (in a substitute ledger, also under an addition or removal
    inside ``partition``).  A count has Delta = 1 under both relations.

    Why 10 parameters: the mechanism's inputs (value, sensitivity, epsilon, rng,
    ledger, sampler) and the fields of the charge it records (label, partition, claims,
    sound), keyword-only.
    """
    count = _count(value, "value")
    delta = _exact_sensitivity(sensitivity)
    eps = as_epsilon(epsilon)
    charge = count_charge(
        epsilon=eps, sensitivity=delta, label=label, partition=partition, claims=claims, sound=sound,
    )
    ledger.record(charge)
    scale = delta / eps
    return mechanism_call(
        lambda: Call(
            "discrete-laplace", label, charge.partition, eps, Fraction(0), delta, ledger.relation, tuple(claims),
            (("sound", sound),), Scalar(count), DiscreteLaplaceLaw((count,), scale, False),
        ),
        rng,
        lambda: count + sampler(scale, rng),
    )


def count_charge(
    *,
    epsilon: Number,
    sensitivity: Union[int, Fraction] = 1,
    label: str,
    partition: Sequence[str] = (),
    claims: Sequence[str] = ("discrete-laplace-mechanism",),
    sound: bool = True,
) -> Charge:
    """The charge :func:`discrete_laplace_mechanism` records for these arguments.

    >>> count_charge(epsilon="1/20", label="noisy size").sensitivity
    Fraction(1, 1)
    """
    return new_charge(
        label=label,
        mechanism="discrete-laplace",
        epsilon=as_epsilon(epsilon),
        sensitivity=_exact_sensitivity(sensitivity),
        claims=tuple(claims),
        partition=check_partition(partition),
        sound=sound,
    )


def laplace_mechanism(
    value: float,
    *,
    sensitivity: SensitivityLike,
    epsilon: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
    claims: Sequence[str] = ("laplace-mechanism",),
    sound: bool = True,
) -> float:
    """``value + Laplace(Delta/epsilon)`` in floating point; records one charge of ``epsilon``.

    The scale b = Delta/epsilon is rounded once from the exact quotient.
    Private only in idealised arithmetic (claim ``laplace-mechanism``);
    prefer :func:`discrete_laplace_mechanism` for integer-valued queries.

    Why 9 parameters: the mechanism's inputs (value, sensitivity, epsilon, rng,
    ledger) and the fields of the charge it records (label, partition, claims, sound),
    keyword-only.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InvalidParameterError(f"value must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise InvalidParameterError(f"value must be finite, got {value!r}")
    recorded, delta = sensitivity_value(sensitivity)
    eps = as_epsilon(epsilon)
    path = check_partition(partition)
    scale = float(delta / eps)
    ledger.charge(
        label=label,
        mechanism="laplace",
        epsilon=eps,
        sensitivity=recorded,
        claims=tuple(claims),
        partition=path,
        sound=sound,
    )
    return mechanism_call(
        lambda: Call(
            "laplace", label, path, eps, Fraction(0), recorded, ledger.relation, tuple(claims),
            (("sound", sound),), Scalar(value), LaplaceLaw(x, scale),
        ),
        rng,
        lambda: x + laplace_noise(scale, rng),
    )


def histogram_scale(epsilon: Number) -> Fraction:
    """The noise scale of every cell of :func:`noisy_histogram` and :func:`noisy_cells`: 1/epsilon.

    A cell is a count, of sensitivity 1 under either relation (a record that
    changes class moves between two cells, which the ledger composes).
    """
    return 1 / as_epsilon(epsilon)


@overload
def noisy_histogram(
    counts: Sequence[int],
    *,
    epsilon: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = ...,
    key: str = ...,
    noise: Literal["discrete-laplace"] = ...,
    names: Optional[Sequence[str]] = ...,
    sampler: DiscreteLaplaceSampler = ...,
) -> List[int]: ...


@overload
def noisy_histogram(
    counts: Sequence[float],
    *,
    epsilon: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = ...,
    key: str = ...,
    noise: Literal["laplace"],
    names: Optional[Sequence[str]] = ...,
    sampler: DiscreteLaplaceSampler = ...,
) -> List[float]: ...


def noisy_histogram(
    counts: Union[Sequence[int], Sequence[float]],
    *,
    epsilon: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
    key: str = "class",
    noise: NoiseKind = "discrete-laplace",
    names: Optional[Sequence[str]] = None,
    sampler: DiscreteLaplaceSampler = discrete_laplace,
) -> Union[List[int], List[float]]:
    """Noise on every cell of a histogram (zero cells included), each cell charged ``epsilon``.

    Cell j is charged on ``partition + (cell(key, names[j]),)`` with
    sensitivity 1, so the ledger composes the cells in parallel: epsilon in
    total under add-remove and 2 epsilon under substitute (one record moving
    between two cells; claim ``parallel-composition``).  ``names`` defaults to
    the cell indices "0", "1", ...  With ``noise="discrete-laplace"`` (the
    default, exact) the counts must be ints and the result is a list of
    ints; with ``noise="laplace"`` they may be real (weighted counts) and the
    result is a list of floats.  ``sampler`` draws the discrete Laplace noise
    (an engine's own sampler must make the reference's draws).

    Why 10 parameters: the histogram and its noise (counts, epsilon, rng, noise,
    sampler), the ledger, and the fields of the charges it records (label, partition,
    the cells' key and names), keyword-only.
    """
    if noise not in _NOISE_KINDS:
        raise InvalidParameterError(f"noise must be one of {_NOISE_KINDS}, got {noise!r}")
    values = list(counts)
    if not values:
        raise InvalidParameterError("a histogram needs at least one cell; counts is empty")
    for c in values:
        if noise == "discrete-laplace":
            _count(c, "every count")
        elif isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c):
            raise InvalidParameterError(f"every count must be a finite number, got {c!r}")
    if any(c < 0 for c in values):
        raise InvalidParameterError(f"counts must be >= 0, got {values!r}")
    cell_names = [str(j) for j in range(len(values))] if names is None else [str(n) for n in names]
    if len(cell_names) != len(values):
        raise InvalidParameterError(
            f"names has {len(cell_names)} entries but counts has {len(values)}; give one name per cell"
        )
    if len(set(cell_names)) != len(cell_names):
        raise InvalidParameterError(f"cell names must be distinct, got {cell_names!r}")
    eps = as_epsilon(epsilon)
    charges = histogram_charges(epsilon=eps, label=label, partition=partition, names=cell_names, key=key, noise=noise)
    for charge in charges:
        ledger.record(charge)
    path = check_partition(partition)
    scale = histogram_scale(eps)

    def draw() -> Union[List[int], List[float]]:
        if noise == "discrete-laplace":
            return [int(c) + sampler(scale, rng) for c in values]
        b = float(scale)
        return [float(c) + laplace_noise(b, rng) for c in values]

    return mechanism_call(
        lambda: Call(
            "histogram", label, path, eps, Fraction(0), Fraction(1), ledger.relation, charges[0].claims, (("key", key), ("names", tuple(cell_names)), ("noise", noise)),
            Counts(tuple(values), ((key, len(values)),), tuple(cell_names)),
            DiscreteLaplaceLaw(tuple(int(c) for c in values), scale, True) if noise == "discrete-laplace" else None,
        ),
        rng,
        draw,
    )


def noisy_cells(
    counts: Sequence[int],
    *,
    shape: Sequence[Tuple[str, int]],
    epsilon: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
    noise: NoiseKind = "discrete-laplace",
    sampler: DiscreteLaplaceSampler = discrete_laplace,
) -> Union[List[int], List[float]]:
    """Noise on every cell of a table of nested disjoint splits, charged as ONE ledger entry.

    ``shape`` names the splits, outermost first, with their numbers of cells
    (for example ``(("leaf", 640), ("class", 2))``); ``counts`` are the cells
    in row-major order.  The single charge has ``cells=shape`` and composes
    exactly as one charge of ``epsilon`` per cell would
    (:mod:`refdp.privacy.ledger`; claim ``parallel-composition``), so a
    forest's receipt holds one entry per histogram, not per cell.  Noise as
    in :func:`noisy_histogram`: exact discrete Laplace (ints) by default, or
    float Laplace (``noise="laplace"``).

    Why 9 parameters: the table and its noise (counts, shape, epsilon, rng, noise,
    sampler), the ledger and the charge's label and partition, keyword-only.
    """
    if noise not in _NOISE_KINDS:
        raise InvalidParameterError(f"noise must be one of {_NOISE_KINDS}, got {noise!r}")
    cells = check_cells(shape)
    if not cells:
        raise InvalidParameterError("shape must name at least one split")
    size = math.prod(n for _, n in cells)
    values = list(counts)
    if len(values) != size:
        raise InvalidParameterError(f"shape {cells} has {size} cells but counts has {len(values)}")
    for c in values:
        _count(c, "every count")
        if c < 0:
            raise InvalidParameterError(f"counts must be >= 0, got {c!r}")
    eps = as_epsilon(epsilon)
    discrete = noise == "discrete-laplace"
    charge = cells_charge(shape=cells, epsilon=eps, label=label, partition=partition, noise=noise)
    ledger.record(charge)
    scale = histogram_scale(eps)

    def draw() -> Union[List[int], List[float]]:
        if discrete:
            return [c + sampler(scale, rng) for c in values]
        b = float(scale)
        return [float(c) + laplace_noise(b, rng) for c in values]

    return mechanism_call(
        lambda: Call(
            "cells", label, charge.partition, eps, Fraction(0), Fraction(1), ledger.relation,
            charge.claims, (("cells", cells), ("noise", noise)), Counts(tuple(values), cells),
            DiscreteLaplaceLaw(tuple(values), scale, True) if discrete else None,
        ),
        rng,
        draw,
    )


def cell_epsilon(epsilon: Fraction, relation: Relation) -> Fraction:
    """The budget of each cell of a class histogram: epsilon under add-remove, epsilon/2 under substitute
    (a substitution moves one record between two cells).

    >>> cell_epsilon(Fraction(1), Relation.SUBSTITUTE)
    Fraction(1, 2)
    """
    return epsilon if relation is Relation.ADD_REMOVE else epsilon / 2


def histogram_charges(
    *,
    epsilon: Number,
    label: str,
    names: Sequence[str],
    partition: Sequence[str] = (),
    key: str = "class",
    noise: NoiseKind = "discrete-laplace",
) -> Tuple[Charge, ...]:
    """The charges :func:`noisy_histogram` records: one per cell ``names[j]``, in order.

    >>> [c.partition for c in histogram_charges(epsilon=1, label="leaf", names=("yes", "no"), partition=("root",))]
    [('root', 'class=yes'), ('root', 'class=no')]
    """
    if noise not in _NOISE_KINDS:
        raise InvalidParameterError(f"noise must be one of {_NOISE_KINDS}, got {noise!r}")
    eps = as_epsilon(epsilon)
    path = check_partition(partition)
    discrete = noise == "discrete-laplace"
    return tuple(
        new_charge(
            label=label,
            mechanism="discrete-laplace" if discrete else "laplace",
            epsilon=eps,
            sensitivity=Fraction(1),
            claims=("discrete-laplace-mechanism" if discrete else "laplace-mechanism", "parallel-composition"),
            partition=path + (cell(key, name),),
        )
        for name in names
    )


def cells_charge(
    *,
    shape: Sequence[Tuple[str, int]],
    epsilon: Number,
    label: str,
    partition: Sequence[str] = (),
    noise: NoiseKind = "discrete-laplace",
) -> Charge:
    """The one charge :func:`noisy_cells` records for a table of ``shape``.

    >>> cells_charge(shape=(("leaf", 4), ("class", 2)), epsilon="1/10", label="tree 0").cells
    (('leaf', 4), ('class', 2))
    """
    if noise not in _NOISE_KINDS:
        raise InvalidParameterError(f"noise must be one of {_NOISE_KINDS}, got {noise!r}")
    discrete = noise == "discrete-laplace"
    return new_charge(
        label=label,
        mechanism="discrete-laplace" if discrete else "laplace",
        epsilon=as_epsilon(epsilon),
        sensitivity=Fraction(1),
        claims=("discrete-laplace-mechanism" if discrete else "laplace-mechanism", "parallel-composition"),
        partition=check_partition(partition),
        cells=check_cells(shape),
    )
