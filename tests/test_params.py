"""Algorithm parameters: types, choices and ranges declared once on Parameter."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple, Union

import pytest

from refdp.algorithms import algorithm_names, get_algorithm
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH, Parameter

ROOT = Path(__file__).resolve().parent.parent


def test_ranges_are_checked_with_one_message() -> None:
    beta = Parameter("beta", float, 0.5, "p", minimum=0.0, maximum=1.0, minimum_open=True, maximum_open=True)
    assert beta.parse("0.25") == 0.25
    for bad in ("0", "1", "1.5", "-0.1"):
        with pytest.raises(InvalidParameterError, match=r"parameter beta must be in \(0.0, 1.0\)"):
            beta.parse(bad)
    depth = Parameter("max_depth", int, 3, "d", minimum=-1, maximum=MAX_DEPTH)
    assert depth.parse("-1") == -1
    for beyond in (-2, 65, 2**70, "10000", "9" * 90):
        with pytest.raises(InvalidParameterError, match=r"must be in \[-1, 64\]"):
            depth.parse(beyond)
    wrong: Tuple[Union[str, float, bool], ...] = ("2.5", 2.5, True, "x")
    for value in wrong:
        with pytest.raises(InvalidParameterError, match="of type int"):
            depth.parse(value)
    with pytest.raises(InvalidParameterError, match="must be in .*, got 5000 characters"):
        depth.parse("1" * 5000)
    for kind in (int, float):  # None or a list (as scikit-learn's checks pass) is a wrong type, not a TypeError
        parameter = Parameter("p", kind, 1, "p", minimum=0, maximum=10)
        others: Tuple[object, ...] = (None, [1], {})
        for other in others:
            with pytest.raises(InvalidParameterError, match=f"parameter p must be of type {kind.__name__}, got"):
                parameter.parse(other)  # type: ignore[arg-type]


def test_a_default_outside_its_own_range_is_a_programming_error() -> None:
    with pytest.raises(InvalidParameterError):
        Parameter("n", int, 0, "n", minimum=1, maximum=9)
    with pytest.raises(ValueError):
        Parameter("x", list, [], "x")  # type: ignore[arg-type]


def test_a_number_parameter_without_a_maximum_or_minimum_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="declares its minimum and maximum"):
        Parameter("n", int, 1, "n", minimum=1)
    with pytest.raises(ValueError, match="declares its minimum and maximum"):
        Parameter("x", float, 1.0, "x", maximum=2.0)


@pytest.mark.parametrize(
    "text",
    ["\uff15", "\uff15.\uff11", "\u0665", "\u0966", "5_0", "5_0e-1", "1_000", "0x10", "1e", "--1", "1 2", "\u00bd",
     "five", "", "inf", "-inf", "nan", "infinity", "1.5.", "+-1"],
)
def test_numbers_are_ascii_digits_in_plain_syntax(text: str) -> None:
    ratio = Parameter("ratio", float, 1.0, "r", minimum=0.0, maximum=1e6)
    count = Parameter("count", int, 1, "n", minimum=-10, maximum=10**6)
    with pytest.raises(InvalidParameterError, match="ratio must be of type float, written in ASCII digits"):
        ratio.parse(text)
    with pytest.raises(InvalidParameterError, match="count must be of type int, written in ASCII digits"):
        count.parse(text)


def test_plain_numbers_parse() -> None:
    ratio = Parameter("ratio", float, 1.0, "r", minimum=0.0, maximum=1e6)
    assert [ratio.parse(t) for t in ("1", "1.5", ".5", "5.", "1e3", "1E+3", "2.5e-1", " 7 ", "+3")] == [
        1.0, 1.5, 0.5, 5.0, 1000.0, 1000.0, 0.25, 7.0, 3.0]
    count = Parameter("count", int, 1, "n", minimum=-10, maximum=10**6)
    assert [count.parse(t) for t in ("3", "-1", "+4", "007")] == [3, -1, 4, 7]
    with pytest.raises(InvalidParameterError, match=r"must be in \[0.0, 1000000.0\], got 1148.*\(603 characters\)"):
        ratio.parse(2**2000)


@pytest.mark.parametrize("value", [None, [1], {"a": 1}, (1,), b"1", 1j])
def test_values_of_no_parameter_type_are_refused(value: object) -> None:
    count = Parameter("count", int, 1, "n", minimum=0, maximum=10)
    with pytest.raises(InvalidParameterError, match="count must be of type int"):
        count.parse(value)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="mode must be of type str"):
        Parameter("mode", str, "a", "m", ("a", "b")).parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", algorithm_names())
def test_every_number_parameter_has_a_finite_range(name: str) -> None:
    for p in get_algorithm(name).parameters:
        if p.kind is not str:
            assert p.minimum is not None and p.maximum is not None, (name, p.name)
            assert math.isfinite(p.minimum) and math.isfinite(p.maximum), (name, p.name)


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


HUGE_VALUES = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB of address space
import refdp
from refdp.errors import InvalidParameterError
data = refdp.load("vote")
refused = 0
for name in refdp.algorithm_names():
    for p in refdp.get_algorithm(name).parameters:
        if p.kind is str:
            continue
        for value in (2**70, -2**70, str(2**70), "9" * 10**6, "1e308", "-1e308", "10000"):
            try:
                refdp.train(name, data, 1, params={p.name: value}, rng=1)
            except InvalidParameterError as exc:
                assert p.name in str(exc) and len(str(exc)) < 300, str(exc)
                refused += 1
            else:
                if value != "10000":
                    raise AssertionError(f"{name} {p.name}={str(value)[:20]} was accepted")
print(refused)
"""


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="RLIMIT_AS is a Linux limit")
def test_huge_values_are_refused_at_once_within_a_memory_bound() -> None:
    """Every number parameter refuses 2**70, a million digits, 1e308: under a 1 GiB address-space limit."""
    result = subprocess.run(
        [sys.executable, "-c", HUGE_VALUES], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert int(result.stdout) >= 6 * sum(
        1 for name in algorithm_names() for p in get_algorithm(name).parameters if p.kind is not str
    )


def test_the_audits_refuse_trials_beyond_their_maximum_at_once() -> None:
    from refdp.audit import audit_program
    from refdp.audit.montecarlo import MAX_TRIALS

    with pytest.raises(InvalidParameterError, match=f"trials must be at most {MAX_TRIALS}"):
        audit_program(lambda data, seed: 0, 1, 2, epsilon=1, trials=2**70, seed=1)
