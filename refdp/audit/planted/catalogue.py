"""The catalogue of planted faults: each a wrong mechanism, its fix, and a pair that exposes it.

Each builder cuts a small data set ``D`` from a built-in one (so that exact
laws are small and runs fast) and chooses the neighbour ``D'`` the way an
auditor would: the one the fault is most visible on, found by search where
that is cheap.  Choosing the pair from the data is legitimate -- the
adversary of differential privacy knows both data sets -- and independent
of any audit run.  The comments say why each pair exposes its fault.

Building a case loads its data set (well under a second); :data:`PLANTED`
builds each case on first use and keeps it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Callable, Dict, Iterator, List, Mapping, Tuple

from refdp.audit.exact import max_log_ratio
from refdp.audit.neighbours import Record, add_record, record_of, remove_row, replace_row
from refdp.audit.planted.case import PlantedCase
from refdp.audit.planted.choices import AttributeChoice, ScoredChoice, ScoredChoiceLaw, ThresholdChoice
from refdp.audit.planted.counts import (
    BinnedLaplaceLaw,
    ClampedDiscreteLaplaceLaw,
    ClassCount,
    ClippedSum,
    CoarseFloatLaplaceLaw,
    CoarseFloatLaplaceRelease,
    DiscreteLaplaceRelease,
    HistogramLaw,
    HistogramRelease,
    LaplaceRelease,
)
from refdp.audit.reductions import (
    Bins,
    Clamp,
    ClampHistogram,
    ClampScore,
    ProbeLeafCount,
    identity,
    structure_of,
)
from refdp.audit.planted.trees import ProbeLeafLaw, SmallTree
from refdp.data import CategoricalAttribute, Dataset, load_builtin
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation

__all__ = ["PLANTED", "planted_names", "get_case"]

_ONE = Fraction(1)


def _spread(data: Dataset, n: int, rows: Tuple[int, ...] = ()) -> Dataset:
    """``n`` rows spread evenly over ``data`` (or over its rows ``rows``), in order."""
    pool = rows or tuple(range(len(data)))
    return data.subset([pool[i * len(pool) // n] for i in range(n)])


def _first(data: Dataset, wanted: Callable[[int], bool]) -> int:
    return next(i for i in range(len(data)) if wanted(i))


def _with_values(record: Record, changes: Mapping[int, int], label: int) -> Record:
    values = list(record.values)
    for attribute, code in changes.items():
        values[attribute] = code
    return Record(tuple(values), label)


def _variants(data: Dataset, base: Record, attributes: Tuple[int, ...]) -> Iterator[Record]:
    """``base`` with every combination of values of ``attributes`` and every class."""
    domains = []
    for a in attributes:
        described = data.schema.attributes[a]
        assert isinstance(described, CategoricalAttribute)
        domains.append(range(described.n_values))
    for combo in itertools.product(*domains):
        for label in range(data.schema.n_classes):
            yield _with_values(base, dict(zip(attributes, combo)), label)


def _describe(data: Dataset, record: Record) -> str:
    return record.describe(data.schema)


# --- the exponential mechanism without its factor 1/2 -------------------------------------


def _exponential_without_half() -> PlantedCase:
    vote = load_builtin("vote")
    d = _spread(vote, 24)
    # adoption-of-the-budget-resolution, physician-fee-freeze, el-salvador-aid:
    # strong predictors, so their max-operator scores are close and a single
    # substitution can swap their order.
    attributes = (2, 3, 4)
    epsilon = _ONE
    faulty = AttributeChoice(attributes, epsilon, divisor=1)
    # Under substitution one row can leave a cell where its class is the
    # majority (that attribute's score falls by 1) and join one where it
    # makes the majority (another's rises by 1): the non-monotone change on
    # which the factor 1/2 matters.  Search every such change of one row
    # (the three attributes and the class) for the largest exact log-ratio.
    p = faulty.law(d)
    best: Tuple[float, int, Record] = (-1.0, 0, record_of(d, 0))
    for i in range(len(d)):
        for record in _variants(d, record_of(d, i), attributes):
            if record == record_of(d, i):
                continue
            ratio = max_log_ratio(p, faulty.law(replace_row(d, i, record)))
            if ratio > best[0]:
                best = (ratio, i, record)
    _, row, record = best
    return PlantedCase(
        name="exponential-without-half",
        description="the exponential mechanism weighs a candidate by exp(epsilon u / Delta), not exp(epsilon u / (2 Delta))",
        correction="exp(epsilon u / (2 Delta)) (McSherry and Talwar)",
        data="vote",
        neighbour=(
            f"D = 24 rows of vote; D' replaces row {row} {_describe(d, record_of(d, row))} by "
            f"{_describe(d, record)}: the substitution of one row's three attributes and class "
            "with the largest exact log-ratio (one score rises while another falls)"
        ),
        epsilon=epsilon,
        delta=Fraction(0),
        relation=Relation.SUBSTITUTE,
        d=d,
        d_prime=replace_row(d, row, record),
        faulty=faulty,
        correct=AttributeChoice(attributes, epsilon, divisor=2),
        reduce=identity,
        exact_faulty=faulty.law,
        exact_correct=AttributeChoice(attributes, epsilon, divisor=2).law,
    )


# --- Laplace noise with scale epsilon --------------------------------------------------------


_COUNT_ROWS = 20


def _positive_count_pair() -> Tuple[Dataset, Dataset, str]:
    """20 rows of tic-tac-toe and the same without its first 'positive' row: the count drops by 1."""
    d = _spread(load_builtin("tic-tac-toe"), _COUNT_ROWS)
    row = _first(d, lambda i: d.labels[i] == 0)
    return d, remove_row(d, row), (
        f"D = {_COUNT_ROWS} rows of tic-tac-toe; D' removes row {row} "
        f"{_describe(d, record_of(d, row))}, so the count of 'positive' falls by 1"
    )


def _laplace_scale_epsilon() -> PlantedCase:
    d, d_prime, neighbour = _positive_count_pair()
    epsilon = Fraction(1, 2)  # below 1, where scale epsilon is less noise than scale 1/epsilon
    query = ClassCount(0)
    # Bins at the integers: every bin left of both counts has log-ratio
    # exactly Delta / scale, the largest of the idealised mechanism.
    edges = tuple(float(k) for k in range(-1, _COUNT_ROWS + 2))
    return PlantedCase(
        name="laplace-scale-epsilon",
        description="Laplace noise of scale epsilon instead of sensitivity/epsilon (epsilon = 1/2)",
        correction="scale sensitivity/epsilon = 2",
        data="tic-tac-toe",
        neighbour=neighbour,
        epsilon=epsilon,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=d_prime,
        faulty=LaplaceRelease(query, float(epsilon)),
        correct=LaplaceRelease(query, float(1 / epsilon)),
        reduce=Bins(edges),
        threshold_events=True,
        exact_faulty=BinnedLaplaceLaw(query, float(epsilon), edges),
        exact_correct=BinnedLaplaceLaw(query, float(1 / epsilon), edges),
    )


# --- trees: the whole budget at every depth, and stopping on a true count ---------------------


_TREE_ROWS = 16


def _full_epsilon_every_depth() -> PlantedCase:
    vote = load_builtin("vote")
    d = _spread(vote, _TREE_ROWS)
    attributes = (2, 3, 4)
    epsilon = _ONE
    faulty = SmallTree(attributes, 2, epsilon, budget="full")
    correct = SmallTree(attributes, 2, epsilon, budget="split")
    # The probe's leaf count carries exactly epsilon_q of log-ratio; the
    # released shape adds whatever its two exponential mechanisms leak.  So
    # the faulty tree (epsilon_q = epsilon) is refuted by any probe that
    # moves the shape's law at all; take the one that moves it most.
    shapes = faulty.structure_law(d)
    probe = max(
        _variants(d, record_of(d, 0), attributes),
        key=lambda r: max_log_ratio(shapes, faulty.structure_law(add_record(d, r))),
    )
    hi = _TREE_ROWS + 1
    return PlantedCase(
        name="full-epsilon-every-depth",
        description="a depth-2 tree runs every query with the whole epsilon instead of epsilon/(depth+1)",
        correction="epsilon/3 for each of the 2 splits and the leaf counts on a path",
        data="vote",
        neighbour=(
            f"D = {_TREE_ROWS} rows of vote; D' adds {_describe(d, probe)}, the record (row 0 with "
            "its three split attributes and class varied) that moves the law of the tree's shape most"
        ),
        epsilon=epsilon,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=add_record(d, probe),
        faulty=faulty,
        correct=correct,
        reduce=ProbeLeafCount(probe, 0, hi),
        exact_faulty=ProbeLeafLaw(faulty, probe, 0, hi),
        exact_correct=ProbeLeafLaw(correct, probe, 0, hi),
    )


def _stop_on_true_count() -> PlantedCase:
    monk = load_builtin("monk1")
    d = _spread(monk, _TREE_ROWS)
    attributes = (0, 1, 4)  # a1, a2, a5: the attributes MONK-1's concept uses
    probe = record_of(d, 0)
    # When the root splits on a1, the probe's child holds the rows sharing
    # row 0's a1.  With min_size one more than their number, that child is a
    # leaf on D and splits on D' = D + a copy of row 0: the released shape
    # differs with certainty, whatever the noise.
    a1 = d.codes(attributes[0])
    min_size = sum(1 for code in a1 if code == a1[0]) + 1
    a1_value = d.row(0)[attributes[0]]
    faulty = SmallTree(attributes, 2, _ONE, stopping="true-count", min_size=min_size)
    correct = SmallTree(attributes, 2, _ONE, stopping="noisy-count", min_size=min_size)
    return PlantedCase(
        name="stop-on-true-count",
        description=f"a node becomes a leaf when its true size is below min_size = {min_size}",
        correction="compare a noisy size, DLap(1/epsilon_q), paid for with one more query per level",
        data="monk1",
        neighbour=(
            f"D = {_TREE_ROWS} rows of monk1; D' adds a copy of row 0 {_describe(d, probe)}, which "
            f"lifts the a1 = {a1_value} child to min_size"
        ),
        epsilon=_ONE,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=add_record(d, probe),
        faulty=faulty,
        correct=correct,
        reduce=structure_of,
        exact_faulty=faulty.structure_law,
        exact_correct=correct.structure_law,
    )


# --- split thresholds taken from the data --------------------------------------------------------


def _threshold_from_data() -> PlantedCase:
    adult = load_builtin("adult")
    d = _spread(adult, 20)
    age = adult.schema.index_of("age")
    seen = set(d.values(age))
    # A record whose age no row of D has: on D' that age is a candidate
    # threshold, hence a possible output; on D it is not.
    row = _first(adult, lambda i: adult.values(age)[i] not in seen)
    record = record_of(adult, row)
    # Public candidates: every five years across age's public bounds [0, 100].
    grid = tuple(5 * k + 2.5 for k in range(20))
    faulty = ThresholdChoice(age, _ONE, grid=None)
    correct = ThresholdChoice(age, _ONE, grid=grid)
    return PlantedCase(
        name="threshold-from-data",
        description="the split threshold on age is chosen among the ages in the data, so it is a data value",
        correction="choose among public grid points (2.5, 7.5, ..., 97.5)",
        data="adult",
        neighbour=f"D = 20 rows of adult; D' adds adult row {row}, whose age {record.values[age]!r} no row of D has",
        epsilon=_ONE,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=add_record(d, record),
        faulty=faulty,
        correct=correct,
        reduce=identity,
        exact_faulty=faulty.law,
        exact_correct=correct.law,
    )


# --- the chosen split's score released ------------------------------------------------------------


def _exact_score_released() -> PlantedCase:
    d = _spread(load_builtin("tic-tac-toe"), _COUNT_ROWS)
    attributes = (0, 4, 8)  # the corners and the centre
    scores = AttributeChoice(attributes, _ONE, 2).scores

    # Removing a row changes the max-operator score of an attribute when the
    # row's class is the strict majority of its cell; then the released
    # exact score tells D from D'.  Take the first row that moves most scores.
    def moved(i: int) -> int:
        before, after = scores(d), scores(remove_row(d, i))
        return sum(1 for x, y in zip(before, after) if x != y)

    row = max(range(len(d)), key=moved)
    faulty = ScoredChoice(attributes, _ONE, noisy_score=False)
    correct = ScoredChoice(attributes, _ONE, noisy_score=True)
    hi = _COUNT_ROWS + 1
    return PlantedCase(
        name="exact-score-released",
        description="the chosen split attribute is released with its exact max-operator score",
        correction="run the choice at epsilon/2 and release the score plus DLap(2/epsilon)",
        data="tic-tac-toe",
        neighbour=(
            f"D = {_COUNT_ROWS} rows of tic-tac-toe; D' removes row {row} "
            f"{_describe(d, record_of(d, row))}, which changes {moved(row)} of the 3 scores"
        ),
        epsilon=_ONE,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=remove_row(d, row),
        faulty=faulty,
        correct=correct,
        reduce=ClampScore(0, hi),
        exact_faulty=ScoredChoiceLaw(faulty, 0, hi),
        exact_correct=ScoredChoiceLaw(correct, 0, hi),
    )


# --- noise only on the classes present --------------------------------------------------------------


def _noise_on_present_classes() -> PlantedCase:
    vote = load_builtin("vote")
    democrats = tuple(i for i in range(len(vote)) if vote.labels[i] == 0)
    n = 12
    # A node of democrats only: the faulty release has no 'republican' entry
    # on D and has one on D' = D + a republican, whatever the noise.
    d = _spread(vote, n, democrats)
    row = _first(vote, lambda i: vote.labels[i] == 1)
    record = record_of(vote, row)
    scale = 1 / _ONE  # sensitivity 1 per class, cells in parallel (add-remove)
    hi = n + 1
    return PlantedCase(
        name="noise-on-present-classes",
        description="the class histogram adds noise only to the classes present in the node, and lists only those",
        correction="noise on every class of the public schema, zeros included",
        data="vote",
        neighbour=f"D = {n} democrat rows of vote; D' adds vote row {row}, a republican",
        epsilon=_ONE,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=add_record(d, record),
        faulty=HistogramRelease(scale, every_class=False),
        correct=HistogramRelease(scale, every_class=True),
        reduce=ClampHistogram(0, hi),
        exact_faulty=HistogramLaw(scale, False, 0, hi),
        exact_correct=HistogramLaw(scale, True, 0, hi),
    )


# --- floating-point Laplace by the inverse CDF ---------------------------------------------------------


_BITS = 12


def _float_laplace_inverse_cdf() -> PlantedCase:
    d, d_prime, neighbour = _positive_count_pair()
    query = ClassCount(0)
    hi = _COUNT_ROWS + 1
    # Counts c and c - 1 plus the same 2**13 float noises: the two sets of
    # sums are (nearly) disjoint, as Mironov's attack on 53-bit floats uses.
    return PlantedCase(
        name="float-laplace-inverse-cdf",
        description=f"Laplace noise in floats by -b ln(U), U on a 2**-{_BITS} grid: outputs depend on the count's low bits",
        correction="exact discrete Laplace noise (integer arithmetic), whose support is all integers",
        data="tic-tac-toe",
        neighbour=neighbour,
        epsilon=_ONE,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=d_prime,
        faulty=CoarseFloatLaplaceRelease(query, 1.0, _BITS),
        correct=DiscreteLaplaceRelease(query, _ONE),
        reduce=Clamp(0, hi),
        exact_faulty=CoarseFloatLaplaceLaw(query, 1.0, _BITS, 0, hi),
        exact_correct=ClampedDiscreteLaplaceLaw(query, _ONE, 0, hi),
    )


# --- a sensitivity understated by 1.175x -----------------------------------------------------------------


def _sensitivity_understated() -> PlantedCase:
    adult = load_builtin("adult")
    n = 20
    d = _spread(adult, n)
    hours = adult.schema.index_of("hours-per-week")
    clip = 47
    query = ClippedSum(hours, clip)
    # Adding a row with at least 47 hours moves the sum by the full clip, 47,
    # where the faulty calibration assumed 40.
    row = _first(adult, lambda i: adult.values(hours)[i] >= clip)
    hi = clip * (n + 1)
    true_scale = Fraction(clip) / _ONE
    low_scale = Fraction(40) / _ONE  # 47 / 40 = 1.175
    return PlantedCase(
        name="sensitivity-understated",
        description="a sum of hours-per-week clipped at 47 gets noise for sensitivity 40: 1.175x understated",
        correction="discrete Laplace with scale 47/epsilon",
        data="adult",
        neighbour=f"D = {n} rows of adult; D' adds adult row {row} ({adult.values(hours)[row]:g} hours per week)",
        epsilon=_ONE,
        delta=Fraction(0),
        relation=Relation.ADD_REMOVE,
        d=d,
        d_prime=add_record(d, record_of(adult, row)),
        faulty=DiscreteLaplaceRelease(query, low_scale),
        correct=DiscreteLaplaceRelease(query, true_scale),
        reduce=Clamp(0, hi),
        threshold_events=True,
        exact_faulty=ClampedDiscreteLaplaceLaw(query, low_scale, 0, hi),
        exact_correct=ClampedDiscreteLaplaceLaw(query, true_scale, 0, hi),
    )


_BUILDERS: Dict[str, Callable[[], PlantedCase]] = {
    "exponential-without-half": _exponential_without_half,
    "laplace-scale-epsilon": _laplace_scale_epsilon,
    "full-epsilon-every-depth": _full_epsilon_every_depth,
    "stop-on-true-count": _stop_on_true_count,
    "threshold-from-data": _threshold_from_data,
    "exact-score-released": _exact_score_released,
    "noise-on-present-classes": _noise_on_present_classes,
    "float-laplace-inverse-cdf": _float_laplace_inverse_cdf,
    "sensitivity-understated": _sensitivity_understated,
}


class _Catalogue(Mapping[str, PlantedCase]):
    """Name -> case, each built on first access and kept."""

    def __init__(self, builders: Mapping[str, Callable[[], PlantedCase]]) -> None:
        self._builders = dict(builders)
        self._built: Dict[str, PlantedCase] = {}

    def __getitem__(self, name: str) -> PlantedCase:
        if name not in self._built:
            self._built[name] = self._builders[name]()
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


PLANTED: Mapping[str, PlantedCase] = _Catalogue(_BUILDERS)
"""Every planted case by name, in catalogue order."""


def planted_names() -> List[str]:
    """The names of the planted cases, in catalogue order (builds nothing)."""
    return list(_BUILDERS)


def get_case(name: str) -> PlantedCase:
    """The planted case ``name``; InvalidParameterError naming the known ones otherwise."""
    if name not in _BUILDERS:
        raise InvalidParameterError(
            f"unknown planted case {name!r}; the catalogue has: {', '.join(_BUILDERS)}"
        )
    return PLANTED[name]
