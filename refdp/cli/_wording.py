"""Library error messages in the words of the command line.

The library's messages name its keyword arguments (``label=``,
``bounds={'age': (lower, upper)}``, ``continuous_missing='drop'``,
``quality=max``), which a user of the command line cannot type.  Each rule
below rewrites one such phrase into the flag that does the same thing
(``--label``, ``--bounds age=LO:HI``, ``--missing drop``, ``--param
quality=max``); ``tests/test_cli_bad_inputs.py`` triggers every phrase
through the command line and checks that no keyword argument is left.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable, Iterable, List, Tuple, Union

__all__ = ["for_cli"]

_Replacement = Union[str, Callable[["re.Match[str]"], str]]

_QUOTED = r"""(?:'[^']*'|"[^"]*")"""

_RULES: Tuple[Tuple[str, _Replacement], ...] = (
    # the missing-value policies of the readers: one --missing flag on the command line
    (r"pass continuous_missing='drop'", "pass --missing drop"),
    (
        r"pass continuous_missing='midpoint' \(the midpoint of the public bounds\) or 'drop'",
        "pass --missing category (a missing number is the midpoint of the public bounds) or --missing drop",
    ),
    (r"pass categorical_missing='drop'", "pass --missing drop"),
    (
        r"pass categorical_missing='category' \(the category '\?'\) or 'drop'",
        "pass --missing category (the category '?') or --missing drop",
    ),
    # the class column
    (r"pass label= to", "pass --label to"),
    (r"pass label=$", "pass --label"),
    (r"^label (" + _QUOTED + r") is an attribute", r"--label \1 is an attribute"),
    # public bounds of ARFF numeric attributes: a --bounds line to edit
    (
        r"pass bounds=\{((?:" + _QUOTED + r": \(lower, upper\)(?:, )?)+)\}",
        lambda m: "pass " + " ".join(
            "--bounds " + shlex.quote(f"{name[1:-1]}=LO:HI")
            for name in re.findall(_QUOTED + r"(?=: \(lower, upper\))", m.group(1))
        ),
    ),
    (r"bounds given for", "--bounds given for"),
    (r"use leaky_infer_schema\(\)", "write a schema from the data with `python3 -m refdp schema`"),
    (r"pass schema= \(for example read_schema\('schema\.json'\)\)", "pass --schema FILE"),
    # audit-cmd
    (r"pass a larger max_failure_rate", "pass a larger --max-failure-rate"),
    # engines and algorithm parameters
    (r"use the reference engine", "use --engine reference"),
    (r"^engine must be", "--engine must be"),
    (r"\bparameter ([a-z_]+) must", r"--param \1 must"),
    # the budget flags, named as the library names its arguments
    (r"^(epsilon|delta) (must|has)\b", r"--\1 \2"),
)

_COMPILED = [(re.compile(pattern), replacement) for pattern, replacement in _RULES]


def _parameter_rule(names: Iterable[str]) -> Tuple["re.Pattern[str]", str]:
    # ``max_depth=3`` in a message is the value of --param max_depth (unless already said so)
    alternatives = "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))
    return re.compile(r"(?<![\w-])(?<!--param )(" + alternatives + r")="), r"--param \1="


def for_cli(message: str, parameters: Iterable[str] = ()) -> str:
    """``message`` with every library keyword phrase replaced by the flag to use.

    ``parameters`` are the algorithm parameter names (``--param NAME=VALUE``).
    """
    rules: List[Tuple["re.Pattern[str]", _Replacement]] = list(_COMPILED)
    names = list(parameters)
    # a message that names --param already is in the command line's words; its NAME=VALUE
    # are then values in prose, such as the settings a refusal reports
    if names and "--param" not in message:
        rules.append(_parameter_rule(names))
    for pattern, replacement in rules:
        message = pattern.sub(replacement, message)
    return message
