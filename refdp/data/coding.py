"""Values of any hashable type matched to a public schema's texts, and columns encoded for a Dataset.

A :class:`~refdp.data.Schema` names categories and classes by non-empty
strings; callers hold ints, bools, NumPy scalars or strings.  A
:class:`Coding` is the map between the two for one categorical attribute or
for the classes, matched by value: ``0``, ``0.0`` and ``numpy.int64(0)`` are
the same value (they are equal and hash alike), ``"0"`` is another.  A
coding built from a schema's texts (:meth:`Coding.of_texts`) also matches a
number to the text that reads as it, so integer labels meet a schema whose
classes are ``("0", "1")``.

:func:`category_codes`, :func:`numbers` and :func:`label_codes` encode one
column (or the labels) for :meth:`~refdp.data.Dataset.from_codes`, with
errors that name the row, the column and what to change.
"""

from __future__ import annotations

import math
import numbers as abc
from dataclasses import dataclass, field
from typing import Any, Dict, Hashable, Iterable, List, Optional, Sequence, Tuple, Union

from refdp.errors import DataError, SchemaError

__all__ = ["Coding", "category_codes", "numbers", "label_codes", "is_real", "is_complex"]


def _text(value: object) -> str:
    return str(value)


def _number_of_text(text: str) -> Optional[Union[int, float]]:
    """The finite number a text spells (an int for an integer literal), or None."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class Coding:
    """The public values of a categorical attribute or of the classes, and the schema text of each.

    ``values[i]`` is what callers pass and get back, ``texts[i]`` its name in
    the schema (a domain value or a class), in schema order.

    >>> c = Coding.of_values([0, 1], "classes=")
    >>> c.texts, c.code(1), c.code("1"), c.code(2)
    (('0', '1'), 1, -1, -1)
    >>> Coding.of_texts(("0", "1")).code(1)
    1
    """

    values: Tuple[Hashable, ...]
    texts: Tuple[str, ...]
    keys: Tuple[Tuple[Hashable, int], ...] = ()
    _codes: Dict[Hashable, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        codes: Dict[Hashable, int] = {}
        for key, code in self.keys or tuple((v, i) for i, v in enumerate(self.values)):
            codes.setdefault(key, code)
        object.__setattr__(self, "_codes", codes)

    @classmethod
    def of_values(cls, values: Iterable[object], what: str) -> Coding:
        """The coding of public values (a ``categories=`` entry, ``classes=``, or values read off the data).

        Values must be hashable, finite when numbers, distinct, with distinct
        non-empty texts; a SchemaError names ``what`` otherwise.
        """
        items = tuple(values)
        if not items:
            raise SchemaError(f"{what} is empty; list at least one value")
        texts = []
        for value in items:
            try:
                hash(value)
            except TypeError:
                raise SchemaError(f"{what} holds {value!r}, which is not hashable; use numbers or strings") from None
            if is_real(value) and not math.isfinite(float(value)):  # type: ignore[arg-type]
                raise SchemaError(f"{what} holds {value!r}; a category or class must not be NaN or infinite")
            texts.append(_text(value))
            if not texts[-1]:
                raise SchemaError(f"{what} holds an empty string; name every value by a non-empty one")
        if len(set(texts)) != len(texts) or len(set(items)) != len(items):
            repeated = sorted({t for t in texts if texts.count(t) > 1}) or sorted(map(str, items))
            raise SchemaError(
                f"{what} lists values that are equal or print alike ({', '.join(repeated)}); list each once"
            )
        return cls(items, tuple(texts))

    @classmethod
    def of_texts(cls, texts: Sequence[str]) -> Coding:
        """The coding of a schema's texts: each matches itself and, when it reads as a finite number
        that no other text reads as, that number."""
        read = [_number_of_text(t) for t in texts]
        keys: List[Tuple[Hashable, int]] = [(t, i) for i, t in enumerate(texts)]
        for i, number in enumerate(read):
            if number is not None and sum(1 for other in read if other is not None and other == number) == 1:
                keys.append((number, i))
        return cls(tuple(texts), tuple(texts), tuple(keys))

    def as_numbers(self) -> Coding:
        """This coding with its texts read as numbers as its values, when every text reads as one (else itself)."""
        read = [_number_of_text(t) for t in self.texts]
        if any(n is None for n in read) or len(set(read)) != len(read):
            return self
        return Coding(tuple(read), self.texts, self.keys)

    def code(self, value: object) -> int:
        """The position of ``value`` in :attr:`values`, or -1 when it is none of them."""
        try:
            return self._codes.get(value, -1)
        except TypeError:  # unhashable
            return -1


def is_real(value: object) -> bool:
    """Whether ``value`` is a real number: int, float, a NumPy integer or float; not a bool.

    >>> is_real(3), is_real(2.5), is_real(True), is_real("3")
    (True, True, False, False)
    """
    # NumPy registers its integer and floating scalars as numbers.Real; its bool_ is not one.
    return isinstance(value, abc.Real) and not isinstance(value, bool)


def is_complex(value: object) -> bool:
    """Whether ``value`` is a complex number that is not a real one (Python's or NumPy's).

    >>> is_complex(1j), is_complex(1.0)
    (True, False)
    """
    return isinstance(value, abc.Complex) and not isinstance(value, abc.Real)


def category_codes(column: Sequence[object], coding: Coding, name: str) -> List[int]:
    """The code of every value of a categorical column; SchemaError names the first unknown one.

    >>> category_codes(["b", "a", "b"], Coding.of_values(["a", "b"], "categories="), "colour")
    [1, 0, 1]
    """
    codes = [coding.code(v) for v in column]
    if -1 in codes:
        row = codes.index(-1)
        raise SchemaError(
            f"row {row}, column {name!r}: unknown category {column[row]!r}; the public categories are "
            f"{list(coding.values)}; fix the value or declare it (categories=, or the schema)"
        )
    return codes


def numbers(column: Sequence[object], name: str) -> List[float]:
    """Every value of a continuous column as a finite float (a number, or a string holding one).

    >>> numbers([1, 2.5, "3"], "size")
    [1.0, 2.5, 3.0]

    DataError names the row and says what is wrong: NaN or inf, a complex
    number, a bool, anything else that is not a number.
    """
    out = []
    for row, value in enumerate(column):
        number = float(value) if type(value) is float or type(value) is int else _number(value, row, name)
        if not math.isfinite(number):
            raise DataError(
                f"row {row}, column {name!r}: {value!r} is not a finite number (NaN or inf); drop or fix the row"
            )
        out.append(number)
    return out


def _number(value: Any, row: int, name: str) -> float:
    where = f"row {row}, column {name!r}"
    if is_complex(value):
        raise DataError(f"{where}: {value!r} is complex: Complex data not supported; give real numbers")
    if isinstance(value, str) or is_real(value):
        try:
            return float(value)
        except (ValueError, OverflowError):
            raise DataError(f"{where}: {value!r} is not a number; {_CONTINUOUS}") from None
    raise DataError(f"{where}: {value!r} is a {type(value).__name__}, not a number; {_CONTINUOUS}")


_CONTINUOUS = (
    "a continuous feature needs numbers (bounds= declares it continuous, and so does the schema; declare a "
    "categorical one with categories= or categorical_features=)"
)


def label_codes(labels: Sequence[object], coding: Coding) -> List[int]:
    """The class code of every label; SchemaError names the first unknown one.

    >>> label_codes([1, 0, 1], Coding.of_values([0, 1], "classes="))
    [1, 0, 1]
    """
    codes = [coding.code(v) for v in labels]
    if -1 in codes:
        row = codes.index(-1)
        raise SchemaError(
            f"row {row}: unknown class {labels[row]!r}; the public classes are {list(coding.values)}; fix the "
            "label or declare the class (classes=, or the schema)"
        )
    return codes
