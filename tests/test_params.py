"""Algorithm parameters: types, choices and ranges declared once on Parameter."""

from __future__ import annotations

from typing import Dict, Tuple, Union

import pytest

from refdp.algorithms import algorithm_names, get_algorithm
from refdp.errors import InvalidParameterError
from refdp.params import Parameter


def test_ranges_are_checked_with_one_message() -> None:
    beta = Parameter("beta", float, 0.5, "p", minimum=0.0, maximum=1.0, minimum_open=True, maximum_open=True)
    assert beta.parse("0.25") == 0.25
    for bad in ("0", "1", "1.5", "-0.1"):
        with pytest.raises(InvalidParameterError, match=r"parameter beta must be in \(0.0, 1.0\)"):
            beta.parse(bad)
    depth = Parameter("max_depth", int, 3, "d", minimum=-1)
    assert depth.parse("-1") == -1
    with pytest.raises(InvalidParameterError, match=r"must be in \[-1, inf\)"):
        depth.parse(-2)
    wrong: Tuple[Union[str, float, bool], ...] = ("2.5", 2.5, True, "x", "1" * 5000)
    for value in wrong:
        with pytest.raises(InvalidParameterError, match="of type int"):
            depth.parse(value)
    for kind in (int, float):  # None or a list (as scikit-learn's checks pass) is a wrong type, not a TypeError
        parameter = Parameter("p", kind, 1, "p")
        others: Tuple[object, ...] = (None, [1], {})
        for other in others:
            with pytest.raises(InvalidParameterError, match=f"parameter p must be of type {kind.__name__}, got"):
                parameter.parse(other)  # type: ignore[arg-type]


def test_a_default_outside_its_own_range_is_a_programming_error() -> None:
    with pytest.raises(InvalidParameterError):
        Parameter("n", int, 0, "n", minimum=1)
    with pytest.raises(ValueError):
        Parameter("x", list, [], "x")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", algorithm_names())
def test_every_declared_range_refuses_values_beyond_it(name: str) -> None:
    spec = get_algorithm(name)
    for p in spec.parameters:
        bad: Dict[str, Union[int, float, str]] = {}
        if p.minimum is not None:
            bad["below"] = p.minimum if p.minimum_open else p.minimum - 1
        if p.maximum is not None:
            bad["above"] = p.maximum if p.maximum_open else p.maximum + 1
        if p.choices:
            bad["not a choice"] = "no-such-choice"
        for value in bad.values():
            value = int(value) if p.kind is int else value
            with pytest.raises(InvalidParameterError, match=p.name):
                spec.resolve({p.name: value})
