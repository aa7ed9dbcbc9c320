"""Known-answer vectors: JSON cases another implementation can be tested against.

``python3 -m refdp vectors --out DIR`` writes five files (format in
``docs/vectors.md``); the test suite checks refdp against the checked-in copy
in ``tests/vectors/`` and that the command regenerates it byte for byte.

* ``quality.json``: the quality functions q(T) on class-count tables
  (``max``, ``gini``, ``gini-weighted`` exactly; ``info-gain`` as a float);
* ``sensitivity.json``: their global sensitivities Delta q under both
  neighbouring relations, and Fletcher & Islam's published local sensitivity
  2n/(n+1)^2 (refuted; for reproducing the ``published`` variant only);
* ``exponential.json``: exponential-mechanism distributions; the exact part
  is the exponent ``c_r = epsilon u_r / (2 Delta u)`` (so ``P[r]`` is
  proportional to ``w_r exp(c_r)`` and ``log P[r] - log P[s] = c_r - c_s +
  ln(w_r / w_s)`` exactly), the probabilities are floats;
* ``budgets.json``: how each algorithm splits its budget: the per-query
  epsilon of DiffP-ID3, the thesis tree, DPDF and CART-DPsAdaBoost, the
  per-cell epsilon of Private-RDT (read off a trained model's ledger) and the
  per-tree (epsilon, delta) of k-AnonToRdt, under both relations;
* ``lqs.json``: the Li-Qardaji-Su delta d(k, beta, epsilon) with n_m and the
  maximising n, and inputs the theorem refuses.

Exact values are :class:`fractions.Fraction` strings (``"1/10"``); floats are
rounded to :data:`FLOAT_DIGITS` significant digits (certified upper bounds
such as a delta are rounded up), so the files are the same on every platform,
and each file states the tolerance of its floats.
"""

from __future__ import annotations

import json
import math
from decimal import ROUND_CEILING, Context
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from refdp.algorithms import adaboost, diffpid3, dpdf, kanon_rdt, thesis_tree
from refdp.algorithms.registry import train
from refdp.data import load_builtin
from refdp.errors import DataError, InvalidParameterError, RefdpError
from refdp.files import read_json, write_text
from refdp.mechanisms.exponential import exponential_log_probabilities
from refdp.privacy import Relation, lqs_delta
from refdp.published.dpdf import published_sensitivity
from refdp.published.thesis_tree import published_per_query_epsilon

__all__ = [
    "FORMAT",
    "FLOAT_DIGITS",
    "FILES",
    "build_vectors",
    "dumps_document",
    "write_vectors",
    "check_vectors",
]

FORMAT = "refdp-vectors/1"
"""The format tag every file carries; a change of layout changes it."""

FLOAT_DIGITS = 12
"""Floats are stored rounded to this many significant digits."""

Case = Dict[str, Any]
Compute = Callable[[Mapping[str, Any]], Dict[str, Any]]

RELATIONS = (Relation.ADD_REMOVE, Relation.SUBSTITUTE)


def _float(value: float) -> float:
    return float(f"{value:.{FLOAT_DIGITS}g}")


def _float_up(value: float) -> float:
    """Rounded up to FLOAT_DIGITS digits, so a certified upper bound stays one."""
    return float(Context(prec=FLOAT_DIGITS, rounding=ROUND_CEILING).create_decimal(value))


def _frac(value: Fraction) -> str:
    return str(value)


# -- quality ----------------------------------------------------------------

QUALITY_TABLES: Tuple[Tuple[Tuple[int, ...], ...], ...] = (
    ((3, 1), (0, 2)),
    ((5, 0), (0, 5)),
    ((2, 2), (2, 2)),
    ((0, 0), (1, 0)),
    ((7, 3),),
    ((1,),),
    ((4, 1, 0), (1, 3, 2), (0, 0, 5)),
    ((10, 0), (0, 0), (3, 9), (1, 1)),
    ((100, 37), (12, 250)),
)


def _quality(inputs: Mapping[str, Any]) -> Dict[str, Any]:
    from refdp.scoring import QUALITY_FUNCTIONS

    table = [list(row) for row in inputs["table"]]
    out: Dict[str, Any] = {}
    for name, function in QUALITY_FUNCTIONS.items():
        value = function(table)
        out[name] = _frac(value) if isinstance(value, Fraction) else _float(value)
    return out


def _quality_cases() -> List[Case]:
    return [{"inputs": {"table": [list(r) for r in t]}} for t in QUALITY_TABLES]


# -- sensitivity ------------------------------------------------------------

def _sensitivity(inputs: Mapping[str, Any]) -> Dict[str, Any]:
    from refdp.scoring import get_quality

    if inputs["quality"] == "dpdf-published-local":
        return {"value": _frac(published_sensitivity(int(inputs["n"]))), "sound": False}
    quality = get_quality(str(inputs["quality"]))
    try:
        value = quality.sensitivity(str(inputs["relation"]), inputs.get("max_size"))
    except InvalidParameterError:
        return {"error": "InvalidParameterError"}
    return {"value": _frac(value) if isinstance(value, Fraction) else _float(value), "sound": True}


def _sensitivity_cases() -> List[Case]:
    from refdp.scoring import QUALITY_FUNCTIONS

    cases: List[Case] = []
    for name in QUALITY_FUNCTIONS:
        for relation in RELATIONS:
            for max_size in (None, 1, 100, 10**6):
                inputs: Dict[str, Any] = {"quality": name, "relation": relation.value}
                if max_size is not None:
                    inputs["max_size"] = max_size
                cases.append({"inputs": inputs})
    for n in (1, 2, 10, 100):
        cases.append({"inputs": {"quality": "dpdf-published-local", "n": n}})
    return cases


# -- exponential mechanism --------------------------------------------------

EXPONENTIAL_INPUTS: Tuple[Dict[str, Any], ...] = (
    {"utilities": ["0", "1"], "epsilon": "1", "sensitivity": "1"},
    {"utilities": ["5", "4", "3"], "epsilon": "1/2", "sensitivity": "1"},
    {"utilities": ["-3/2", "-2", "0"], "epsilon": "1", "sensitivity": "2"},
    {"utilities": ["-1/3", "-1/2", "-1/4", "-1/3"], "epsilon": "1/10", "sensitivity": "1/2"},
    {"utilities": ["1", "1", "1"], "epsilon": "3", "sensitivity": "1"},
    {"utilities": ["0", "1000"], "epsilon": "1", "sensitivity": "1"},
    {"utilities": ["2", "1", "0"], "epsilon": "1", "sensitivity": "1", "base_weights": ["1/2", "1/4", "1/4"]},
    {"utilities": ["3", "3"], "epsilon": "2", "sensitivity": "1", "base_weights": ["1", "0"]},
)


def _exponential(inputs: Mapping[str, Any]) -> Dict[str, Any]:
    utilities = [Fraction(u) for u in inputs["utilities"]]
    epsilon = Fraction(inputs["epsilon"])
    sensitivity = Fraction(inputs["sensitivity"])
    weights = [Fraction(w) for w in inputs["base_weights"]] if "base_weights" in inputs else None
    exponents = [epsilon * u / (2 * sensitivity) for u in utilities]
    log_p = exponential_log_probabilities(
        [float(u) for u in utilities],
        epsilon=epsilon,
        sensitivity=sensitivity,
        base_weights=[float(w) for w in weights] if weights is not None else None,
    )
    return {
        "exponents": [_frac(c) for c in exponents],
        "log_probabilities": [_float(lp) if lp != -math.inf else "-inf" for lp in log_p],
        "probabilities": [_float(math.exp(lp)) for lp in log_p],
    }


def _exponential_cases() -> List[Case]:
    return [{"inputs": dict(inputs)} for inputs in EXPONENTIAL_INPUTS]


# -- budget splits ----------------------------------------------------------

BUDGETS = ("1", "1/2", "1/10", "2")


def _per_cell_private_rdt(epsilon: Fraction, n_trees: int, relation: Relation) -> Fraction:
    """The epsilon of each leaf histogram of a trained Private-RDT, read off its ledger."""
    data = load_builtin("monk1").subset(range(24))
    model = train(
        "private-rdt", data, epsilon,
        # size_share=0: the fixed plan, whose every charge is a leaf histogram (no noisy size)
        params={"n_trees": n_trees, "max_depth": 1, "categorical": "binary", "size_share": 0}, rng=0, relation=relation,
    )
    spent = {c.epsilon for c in model.receipt.charges if not c.data_independent}
    if len(spent) != 1:
        raise RefdpError(f"private-rdt charged its leaves unequal epsilons {sorted(spent)}")
    return spent.pop()


def _budget(inputs: Mapping[str, Any]) -> Dict[str, Any]:
    algorithm = str(inputs["algorithm"])
    eps = Fraction(inputs["epsilon"])
    relation = Relation(inputs["relation"])
    if algorithm == "diffpid3":
        return {"per_query_epsilon": _frac(diffpid3.per_query_epsilon(eps, int(inputs["max_depth"]), relation))}
    if algorithm == "thesis-tree":
        depth = int(inputs["max_depth"])
        if inputs["variant"] == "published":
            value = published_per_query_epsilon(eps, depth)
        else:
            value = thesis_tree.per_query_epsilon(eps, depth, relation)
        return {"per_query_epsilon": _frac(value)}
    if algorithm == "dpdf":
        value = dpdf.per_query_epsilon(eps, int(inputs["n_trees"]), int(inputs["max_depth"]), relation)
        return {"per_query_epsilon": _frac(value)}
    if algorithm == "dp-adaboost":
        value = adaboost.query_epsilon(eps, int(inputs["n_estimators"]), int(inputs["max_depth"]), relation)
        return {"per_query_epsilon": _frac(value)}
    if algorithm == "private-rdt":
        return {"per_cell_epsilon": _frac(_per_cell_private_rdt(eps, int(inputs["n_trees"]), relation))}
    if algorithm == "kanon-rdt":
        try:
            guarantee = kanon_rdt.tree_guarantee(
                eps, int(inputs["n_trees"]), int(inputs["k"]), Fraction(inputs["beta"]), relation
            )
        except InvalidParameterError:
            return {"error": "InvalidParameterError"}
        return {"per_tree_epsilon": _frac(guarantee.epsilon), "per_tree_delta": _float_up(float(guarantee.delta))}
    raise InvalidParameterError(f"no budget vector for algorithm {algorithm!r}")


def _budget_cases() -> List[Case]:
    cases: List[Case] = []

    def add(**inputs: Any) -> None:
        for relation in RELATIONS:
            cases.append({"inputs": {**inputs, "relation": relation.value}})

    for eps in BUDGETS:
        for depth in (0, 1, 4, 5):
            add(algorithm="diffpid3", epsilon=eps, max_depth=depth)
            for variant in ("sound", "published"):
                add(algorithm="thesis-tree", epsilon=eps, max_depth=depth, variant=variant)
        for tau in (1, 4):
            for levels in (1, 5):
                add(algorithm="dpdf", epsilon=eps, n_trees=tau, max_depth=levels)
        for depth in (1, 2):
            add(algorithm="dp-adaboost", epsilon=eps, n_estimators=10, max_depth=depth)
        for n_trees in (1, 4, 10):
            add(algorithm="private-rdt", epsilon=eps, n_trees=n_trees)
    for eps, n_trees, k, beta in (
        ("2", 10, 5, "1/100"), ("10", 10, 5, "2/5"), ("22", 10, 5, "2/5"), ("11", 11, 10, "2/5"), ("4", 2, 20, "1/10")
    ):
        add(algorithm="kanon-rdt", epsilon=eps, n_trees=n_trees, k=k, beta=beta)
    return cases


# -- Li-Qardaji-Su delta ----------------------------------------------------

LQS_INPUTS: Tuple[Tuple[int, str, str], ...] = (
    (1, "1/10", "1/5"),
    (5, "1/10", "1/2"),
    (5, "1/10", "9/10"),
    (5, "1/10", "1"),
    (10, "1/10", "1/5"),
    (20, "1/100", "1/5"),
    (5, "2/5", "1"),
    (10, "2/5", "1"),
    (50, "1/2", "2"),
    (5, "1/10", "1/10"),
    (5, "2/5", "1/2"),
)


def _lqs(inputs: Mapping[str, Any]) -> Dict[str, Any]:
    try:
        result = lqs_delta(int(inputs["k"]), Fraction(inputs["beta"]), Fraction(inputs["epsilon"]))
    except InvalidParameterError:
        return {"error": "InvalidParameterError"}
    return {"delta": _float_up(result.delta), "n_m": result.n_m, "n_at_max": result.n_at_max, "gamma": _float(result.gamma)}


def _lqs_cases() -> List[Case]:
    return [{"inputs": {"k": k, "beta": b, "epsilon": e}} for k, b, e in LQS_INPUTS]


# -- files ------------------------------------------------------------------

_KINDS: Dict[str, Tuple[str, Compute, Callable[[], List[Case]], Mapping[str, str]]] = {
    "quality": (
        "q(T) of class-count tables (rows: cells j of the split; columns: classes c). "
        "max, gini and gini-weighted are exact; info-gain is -sum_j tau_j H(T_j) in bits.",
        _quality,
        _quality_cases,
        {"info-gain": "absolute 1e-9"},
    ),
    "sensitivity": (
        "Global sensitivity Delta q under a neighbouring relation, with an optional public node-size bound "
        "max_size; info-gain without max_size must be refused. dpdf-published-local is Fletcher & Islam's "
        "Theorem 1 value 2n/(n+1)^2 at node size n, which is NOT a valid sensitivity (sound: false).",
        _sensitivity,
        _sensitivity_cases,
        {"value (float)": "relative 1e-9"},
    ),
    "exponential": (
        "Exponential mechanism P[r] proportional to w_r exp(epsilon u_r / (2 Delta u)); exponents are exact, "
        "log_probabilities and probabilities floats. A zero base weight gives log-probability -inf.",
        _exponential,
        _exponential_cases,
        {"log_probabilities": "absolute 1e-9", "probabilities": "absolute 1e-12"},
    ),
    "budgets": (
        "Budget splits for a total epsilon: per-query epsilon of the greedy trees (the ledger total of a full "
        "tree equals epsilon), per-cell epsilon of private-rdt (from a trained model's ledger), per-tree "
        "(epsilon, delta) of kanon-rdt (delta certified, rounded up); settings the theorem does not cover are refused.",
        _budget,
        _budget_cases,
        {"per_tree_delta": "relative 1e-9 (an upper bound: a larger value is safe, a smaller one is not)"},
    ),
    "lqs": (
        "Li-Qardaji-Su delta = max_{n >= n_m} P[Bin(n, beta) > gamma n], gamma = (e^eps - 1 + beta)/e^eps, "
        "n_m = ceil(k/gamma - 1); refused when eps < -ln(1 - beta). delta is certified and rounded up.",
        _lqs,
        _lqs_cases,
        {"delta": "relative 1e-9 (an upper bound on the exact maximum)", "gamma": "relative 1e-12"},
    ),
}

FILES = tuple(f"{kind}.json" for kind in _KINDS)
"""The file names ``write_vectors`` produces."""


def build_vectors() -> Dict[str, Dict[str, Any]]:
    """Every vector file as a JSON-ready document, keyed by file name."""
    out: Dict[str, Dict[str, Any]] = {}
    for kind, (description, compute, cases, tolerances) in _KINDS.items():
        out[f"{kind}.json"] = {
            "format": FORMAT,
            "kind": kind,
            "description": description,
            "exact": "strings p/q or integers are exact Fractions and must match exactly",
            "float_digits": FLOAT_DIGITS,
            "tolerances": dict(tolerances),
            "cases": [{"inputs": c["inputs"], "expected": compute(c["inputs"])} for c in cases()],
        }
    return out


def dumps_document(document: Mapping[str, Any]) -> str:
    """The canonical text of a vector file (sorted keys, one-space indent, final newline)."""
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def write_vectors(directory: Path) -> List[Path]:
    """Write every vector file into ``directory`` (created if missing); return the paths."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InvalidParameterError(f"{directory} exists and is not a directory; give a directory for --out")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, document in build_vectors().items():
        path = directory / name
        write_text(path, dumps_document(document))
        written.append(path)
    return written


def _close(expected: Any, actual: Any, tolerance: Optional[str]) -> bool:
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(_close(e, a, tolerance) for e, a in zip(expected, actual))
    if isinstance(expected, float) and isinstance(actual, float):
        scale = float(tolerance.split()[1]) if tolerance else 0.0
        if tolerance and tolerance.startswith("relative"):
            return abs(expected - actual) <= scale * abs(expected)
        return abs(expected - actual) <= scale
    return bool(expected == actual)


def check_vectors(directory: Path) -> List[str]:
    """Recompute every case of the files in ``directory`` with refdp; return the mismatches.

    An empty list means refdp reproduces every expected value (exact values
    exactly, floats within the file's tolerances).  A file that is not a
    vector file of this format (malformed JSON, a case without inputs, inputs
    of the wrong type) raises DataError naming the file and the case.
    """
    problems: List[str] = []
    for kind, (_, compute, _, tolerances) in _KINDS.items():
        path = Path(directory) / f"{kind}.json"
        if not path.is_file():
            problems.append(f"{path}: missing")
            continue
        document = read_json(path, "vector file", DataError)
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            found = document.get("format") if isinstance(document, dict) else type(document).__name__
            problems.append(f"{path}: format {found!r}, expected {FORMAT!r}")
            continue
        for index, case in enumerate(_cases(document, path)):
            actual = _compute(compute, case["inputs"], f"{path} case {index}")
            for key, expected in case["expected"].items():
                tolerance = next((t for k, t in tolerances.items() if k.split()[0] == key), None)
                if key not in actual or not _close(expected, actual[key], tolerance):
                    problems.append(
                        f"{kind}.json case {index} {_brief(case['inputs'])}: {key} expected {_brief(expected)}, "
                        f"refdp gives {_brief(actual.get(key))}"
                    )
    return problems


def _cases(document: Mapping[str, Any], path: Path) -> List[Case]:
    cases = document.get("cases")
    if not isinstance(cases, list):
        raise DataError(f"{path}: 'cases' must be a list of cases (docs/vectors.md)")
    for index, case in enumerate(cases):
        if not (
            isinstance(case, dict) and isinstance(case.get("inputs"), dict) and isinstance(case.get("expected"), dict)
        ):
            raise DataError(f"{path} case {index}: a case is an object with 'inputs' and 'expected' objects")
    return cases


def _compute(compute: Compute, inputs: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """``compute(inputs)``; DataError when the inputs are not what the file's kind takes."""
    try:
        return compute(inputs)
    except RefdpError as exc:
        raise DataError(f"{where}: inputs {_brief(inputs)} are refused: {exc}") from None
    except (KeyError, TypeError, ValueError, ArithmeticError, AttributeError) as exc:
        # a hand-edited or foreign file: name the case rather than fail inside refdp
        raise DataError(f"{where}: inputs {_brief(inputs)} are malformed ({type(exc).__name__}: {exc})") from None


def _brief(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
