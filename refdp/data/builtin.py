"""Built-in data sets: generated ones and real UCI sets vendored in ``files/``.

The schemas of the real sets are public constants written below, never read
off the rows: nominal domains come from the ARFF headers and ``adult.names``
(with ``"?"`` declared where the documentation says values are missing), and
each continuous bound is justified in a comment.  These sets have been
public for decades, so where no document fixes a bound we chose a round
number that covers their published ranges; for private data, choose bounds
from domain knowledge alone.  Provenance and citation: ``files/ATTRIBUTION.md``.

Loaded data sets are cached: a :class:`Dataset` is immutable, so every call
may share one. The two Adult files, the largest, also lie in a pre-encoded
form (``files/*.codes``, :mod:`refdp.data.codes`, written from the text by
``scripts/encode_builtin.py``) that loads without parsing.  The files are read through :mod:`importlib.resources`, so
refdp also loads them when it is imported from a zip file (a zipapp, a PEX,
a cloud function layer), where they have no path on disk.
"""

from __future__ import annotations

import gzip
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Callable, Dict, Iterator, Optional, TextIO, Tuple

from refdp.data.codes import decode
from refdp.data.dataset import Dataset
from refdp.data.generators import TIC_TAC_TOE_SCHEMA, monk, monk_schema, tic_tac_toe
from refdp.data.readers import read_arff, read_csv
from refdp.data.schema import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.errors import InvalidParameterError

__all__ = [
    "BUILTIN_NAMES",
    "VOTE_SCHEMA",
    "CREDIT_G_SCHEMA",
    "ADULT_SCHEMA",
    "builtin_schema",
    "load_builtin",
    "describe_builtin",
]



@contextmanager
def _open_file(name: str) -> Iterator[TextIO]:
    """The gzipped text file ``files/<name>`` of this package, open for reading."""
    resource = resources.files("refdp.data") / "files" / name
    with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="") as text:
        yield text

_VOTES = (
    "handicapped-infants",
    "water-project-cost-sharing",
    "adoption-of-the-budget-resolution",
    "physician-fee-freeze",
    "el-salvador-aid",
    "religious-groups-in-schools",
    "anti-satellite-test-ban",
    "aid-to-nicaraguan-contras",
    "mx-missile",
    "immigration",
    "synfuels-corporation-cutback",
    "education-spending",
    "superfund-right-to-sue",
    "crime",
    "duty-free-exports",
    "export-administration-act-south-africa",
)

VOTE_SCHEMA = Schema(
    # The documentation: "?" is not an unknown but a third disposition (voted
    # present, or did not vote), so it is a declared value of every vote.
    attributes=tuple(CategoricalAttribute(name, ("n", "y", "?")) for name in _VOTES),
    label="Class",
    classes=("democrat", "republican"),
)
"""UCI Congressional Voting Records (1984); domains from ``vote.arff`` plus ``"?"``."""


def _c(name: str, *values: str) -> CategoricalAttribute:
    return CategoricalAttribute(name, values)


CREDIT_G_SCHEMA = Schema(
    attributes=(
        _c("checking_status", "<0", "0<=X<200", ">=200", "no checking"),
        # Months.  Consumer loans run up to a few years; ten years is generous.
        ContinuousAttribute("duration", 0.0, 120.0),
        _c(
            "credit_history",
            "no credits/all paid",
            "all paid",
            "existing paid",
            "delayed previously",
            "critical/other existing credit",
        ),
        _c(
            "purpose",
            "new car",
            "used car",
            "furniture/equipment",
            "radio/tv",
            "domestic appliance",
            "repairs",
            "education",
            "vacation",
            "retraining",
            "business",
            "other",
        ),
        # Deutsche Mark.  A consumer credit of the 1970s; 20,000 DM covers the
        # published range of this set (no document fixes a ceiling).
        ContinuousAttribute("credit_amount", 0.0, 20000.0),
        _c("savings_status", "<100", "100<=X<500", "500<=X<1000", ">=1000", "no known savings"),
        _c("employment", "unemployed", "<1", "1<=X<4", "4<=X<7", ">=7"),
        # Hofmann's coding records the installment rate (% of disposable
        # income) as one of four classes, 1..4.
        ContinuousAttribute("installment_commitment", 1.0, 4.0),
        _c(
            "personal_status",
            "male div/sep",
            "female div/dep/mar",
            "male single",
            "male mar/wid",
            "female single",
        ),
        _c("other_parties", "none", "co applicant", "guarantor"),
        # Years at the present residence, coded in four classes 1..4 like the rate.
        ContinuousAttribute("residence_since", 1.0, 4.0),
        _c("property_magnitude", "real estate", "life insurance", "car", "no known property"),
        # Years.  Applicants are adults; 100 is a safe ceiling.
        ContinuousAttribute("age", 18.0, 100.0),
        _c("other_payment_plans", "bank", "stores", "none"),
        _c("housing", "rent", "own", "for free"),
        # A count of credits at this bank; 10 is generous.
        ContinuousAttribute("existing_credits", 0.0, 10.0),
        _c(
            "job",
            "unemp/unskilled non res",
            "unskilled resident",
            "skilled",
            "high qualif/self emp/mgmt",
        ),
        # A count of people the applicant supports; 10 is generous.
        ContinuousAttribute("num_dependents", 0.0, 10.0),
        _c("own_telephone", "none", "yes"),
        _c("foreign_worker", "yes", "no"),
    ),
    label="class",
    classes=("good", "bad"),
)
"""UCI Statlog German Credit; domains from ``credit-g.arff`` (no missing values)."""

_ADULT_SHARED = (
    # Years.  The extract kept age > 16 and the CPS top-codes age at 90.
    ContinuousAttribute("age", 0.0, 100.0),
    _c(
        "workclass",
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
        "?",
    ),
    # The CPS final weight: how many people the record stands for.  No
    # document fixes a ceiling; 1.6 million covers the published range.
    ContinuousAttribute("fnlwgt", 0.0, 1.6e6),
    _c(
        "education",
        "Bachelors",
        "Some-college",
        "11th",
        "HS-grad",
        "Prof-school",
        "Assoc-acdm",
        "Assoc-voc",
        "9th",
        "7th-8th",
        "12th",
        "Masters",
        "1st-4th",
        "10th",
        "Doctorate",
        "5th-6th",
        "Preschool",
    ),
    # The rank of the 16 education levels above.
    ContinuousAttribute("education-num", 1.0, 16.0),
    _c(
        "marital-status",
        "Married-civ-spouse",
        "Divorced",
        "Never-married",
        "Separated",
        "Widowed",
        "Married-spouse-absent",
        "Married-AF-spouse",
    ),
    _c(
        "occupation",
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
        "?",
    ),
    _c("relationship", "Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
    _c("race", "White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    _c("sex", "Female", "Male"),
    # Dollars.  The census top-codes capital gains at 99,999.
    ContinuousAttribute("capital-gain", 0.0, 100000.0),
    # Dollars.  No documented top code; 5,000 covers the published range.
    ContinuousAttribute("capital-loss", 0.0, 5000.0),
    # Hours.  The CPS top-codes usual weekly hours at 99.
    ContinuousAttribute("hours-per-week", 0.0, 100.0),
    _c(
        "native-country",
        "United-States",
        "Cambodia",
        "England",
        "Puerto-Rico",
        "Canada",
        "Germany",
        "Outlying-US(Guam-USVI-etc)",
        "India",
        "Japan",
        "Greece",
        "South",
        "China",
        "Cuba",
        "Iran",
        "Honduras",
        "Philippines",
        "Italy",
        "Poland",
        "Jamaica",
        "Vietnam",
        "Mexico",
        "Portugal",
        "Ireland",
        "France",
        "Dominican-Republic",
        "Laos",
        "Ecuador",
        "Taiwan",
        "Haiti",
        "Columbia",
        "Hungary",
        "Guatemala",
        "Nicaragua",
        "Scotland",
        "Thailand",
        "Yugoslavia",
        "El-Salvador",
        "Trinadad&Tobago",
        "Peru",
        "Hong",
        "Holand-Netherlands",
        "?",
    ),
)

ADULT_SCHEMA = Schema(attributes=_ADULT_SHARED, label="income", classes=(">50K", "<=50K"))
"""UCI Adult; domains from ``adult.names`` plus ``"?"`` for workclass, occupation, native-country."""

# adult.test writes its classes with a final '.'; it is read with these and
# relabelled by code (same order) to ADULT_SCHEMA's.
_ADULT_TEST_FILE_SCHEMA = Schema(
    attributes=_ADULT_SHARED, label="income", classes=(">50K.", "<=50K.")
)


# The built-ins declare "?" as a value where their documentation says values are missing, and have no
# missing continuous value: they are read without a missing-value rule (Dataset.missing is None), the
# adult files with "?" as a plain value (no missing marker) so that no other domain gains one.


def _load_vote() -> Dataset:
    with _open_file("vote.arff.gz") as text:
        return read_arff(text, schema=VOTE_SCHEMA, continuous_missing="error").with_missing(None)


def _load_credit_g() -> Dataset:
    with _open_file("credit-g.arff.gz") as text:
        return read_arff(
            text, schema=CREDIT_G_SCHEMA, categorical_missing="error", continuous_missing="error"
        ).with_missing(None)


def _encoded(name: str, schema: Schema) -> Optional[Dataset]:
    """``files/<name>.codes`` (:mod:`refdp.data.codes`), None if absent or made for another schema."""
    resource = resources.files("refdp.data") / "files" / f"{name}.codes"
    if not resource.is_file():
        return None
    return decode(resource.read_bytes(), schema)


def _load_adult() -> Dataset:
    encoded = _encoded("adult.data", ADULT_SCHEMA)
    if encoded is not None:
        return encoded
    return _parse_adult()


def _parse_adult() -> Dataset:
    with _open_file("adult.data.gz") as text:
        return read_csv(
            text, schema=ADULT_SCHEMA, header=False, missing="", categorical_missing="error",
            continuous_missing="error",
        ).with_missing(None)


def _load_adult_test() -> Dataset:
    encoded = _encoded("adult.test", ADULT_SCHEMA)
    if encoded is not None:
        return encoded
    return _parse_adult_test()


def _parse_adult_test() -> Dataset:
    with _open_file("adult.test.gz") as text:
        raw = read_csv(
            text, schema=_ADULT_TEST_FILE_SCHEMA, header=False, comment="|", missing="",
            categorical_missing="error", continuous_missing="error",
        )
    columns = [raw.column(j) for j in range(ADULT_SCHEMA.n_attributes)]
    return Dataset.from_codes(ADULT_SCHEMA, columns, raw.labels)


@dataclass(frozen=True)
class _Builtin:
    rows: int
    schema: Schema
    source: str
    load: Callable[[], Dataset]


_BUILTINS: Dict[str, _Builtin] = {
    "tic-tac-toe": _Builtin(
        958, TIC_TAC_TOE_SCHEMA, "UCI Tic-Tac-Toe Endgame, generated exactly", tic_tac_toe
    ),
    "monk1": _Builtin(
        432, monk_schema(1), "UCI MONK's problem 1, all 432 rows, generated", lambda: monk(1)
    ),
    "monk2": _Builtin(
        432, monk_schema(2), "UCI MONK's problem 2, all 432 rows, generated", lambda: monk(2)
    ),
    "monk3": _Builtin(
        432,
        monk_schema(3),
        "UCI MONK's problem 3, all 432 rows, generated without class noise",
        lambda: monk(3),
    ),
    "vote": _Builtin(
        435, VOTE_SCHEMA, "UCI Congressional Voting Records 1984 (vote.arff, Weka 3.6.14)", _load_vote
    ),
    "credit-g": _Builtin(
        1000,
        CREDIT_G_SCHEMA,
        "UCI Statlog German Credit (credit-g.arff, Weka 3.6.14)",
        _load_credit_g,
    ),
    "adult": _Builtin(
        32561, ADULT_SCHEMA, "UCI Adult (Census Income), training part adult.data", _load_adult
    ),
    "adult-test": _Builtin(
        16281, ADULT_SCHEMA, "UCI Adult (Census Income), test part adult.test", _load_adult_test
    ),
}

BUILTIN_NAMES: Tuple[str, ...] = tuple(_BUILTINS)
"""The names :func:`load_builtin` accepts."""


def _entry(name: str) -> _Builtin:
    if not isinstance(name, str) or name not in _BUILTINS:
        raise InvalidParameterError(
            f"no built-in data set {name!r}; choose one of {list(BUILTIN_NAMES)}"
        )
    return _BUILTINS[name]


@lru_cache(maxsize=None)
def _cached(name: str) -> Dataset:
    return _BUILTINS[name].load()


def load_builtin(name: str) -> Dataset:
    """The built-in data set ``name`` (one of :data:`BUILTIN_NAMES`).

    >>> vote = load_builtin("vote")
    >>> len(vote), vote.schema.classes
    (435, ('democrat', 'republican'))
    """
    _entry(name)
    return _cached(name)


def builtin_schema(name: str) -> Schema:
    """The public schema of built-in ``name``, without loading its rows."""
    return _entry(name).schema


def describe_builtin(name: str) -> str:
    """One line: rows, attributes (by kind), classes and source of built-in ``name``."""
    entry = _entry(name)
    schema = entry.schema
    continuous = sum(isinstance(a, ContinuousAttribute) for a in schema.attributes)
    return (
        f"{name}: {entry.rows} rows, {schema.n_attributes} attributes "
        f"({schema.n_attributes - continuous} categorical, {continuous} continuous), "
        f"{schema.n_classes} classes ({', '.join(schema.classes)}); {entry.source}"
    )
