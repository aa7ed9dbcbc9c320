"""DiffP-ID3 and DiffP-C4.5: Friedman & Schuster, "Data mining with differential privacy", KDD 2010.

Algorithm DiffP-ID3, with total budget B, maximal depth d, attributes A and
classes C:

    eps = B / (2(d+1))
    Build(T, A, d):
        t = max over A in A of |A|                  (the largest domain; 2 for a continuous attribute)
        N_T = NoisyCount_eps(T)
        if A is empty or d = 0 or N_T / (t |C|) < sqrt(2) / eps:
            N_c = NoisyCount_eps(T_c) for every class c of the schema
            return a leaf with the counts N_c
        A_bar = ExpMech_eps(A, q)
        return a node on A_bar with one child Build(T_i, A \\ {A_bar}, d - 1) per value i of A_bar

Each level of a root-to-leaf path spends two queries of eps (the count and
either the split or the leaf's class counts), so a full tree spends
2(d+1) eps = B (claim ``diffpid3-budget``).  The stopping rule compares the
noisy size with the standard deviation sqrt(2)/eps of the noise: splitting a
node whose counts would drown in noise wastes budget.

DiffP-C4.5 (continuous attributes): at every node, each continuous attribute
first gets a threshold from an exponential mechanism over the interior
points of a public equal-width grid of its range [lower, upper] (``grid``
cells; the paper's intervals between data values weighted by their length
would release a float computed from the data, claim
``continuous-split-exponential-mechanism``); the attribute is then chosen
among the categorical attributes (multiway) and the continuous ones at their
thresholds (binary).  The split budget eps is shared by these n_c + 1
mechanisms, eps / (n_c + 1) each, as Jia & Qiu (IEEE Access 2020) describe
for DiffP-C4.5, so a node still spends 2 eps.  Continuous attributes stay
available below a threshold split; categorical ones are used once.

The quality q is the max operator (refdp's default: the most accurate in
cross-validation on the built-in data sets' training parts, docs/results.md),
information gain (the paper's default) or the unnormalised Gini, with the
sensitivities of :mod:`refdp.scoring`.
Information gain's sensitivity grows with the node size, and that size is
private: ``max_size`` is the public bound N it uses (claim
``diffpid3-info-gain-size-bound``): by default 10**6 under add-remove and the
data set's size under substitute, where neighbours have the same, public,
size.  A data set larger than N is refused.

refdp's additions: ``size_share`` of B buys a noisy size of the data that
caps d (claim ``noisy-size-plan``); under add-remove, with the max
operator or the Gini, the exponential mechanisms have no factor 2 (claims
``split-quality-monotone``, ``exponential-mechanism-monotone``).

Counts use the exact discrete Laplace mechanism; the paper's Laplace noise is
private only in idealised arithmetic.  With the max operator or the Gini
the utilities are exact rationals and every exponential mechanism is
sampled exactly (claim ``exponential-mechanism-exact-sampler``);
information gain is scored in floats and sampled with the float sampler
(claim ``exponential-mechanism-float-sampler``, idealised numerics).  Under ``substitute`` the per-query
eps is B / K with K the substitute cost of a full tree, so that the receipt's
total is B under either relation.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.algorithms.derivation import (
    model_budget,
    NO_RANDOMNESS,
    NOISY_SIZE,
    check_plan_inputs,
    check_trees,
    check_voting,
    check_weights,
    fresh_ledger,
    grid_index,
    integer_counts,
    refuse,
    replay_size,
)
from refdp.algorithms.greedy import (
    GRID_PARAMETER,
    NodeCost,
    child_path,
    close_budget,
    grid_threshold_tables,
    plan_units,
    threshold_conditions,
)
from refdp.algorithms.noisy_depth import (
    DepthPlan,
    laplace_variance,
    mean_branching,
    plan_depth,
    size_parameters,
    size_share,
)
from refdp.engine import REFERENCE, Engine, NodeCounts, Rows
from refdp.scoring.kernels import exact_score_function, score_function
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import Threshold, ThresholdGrid, ceil_float
from refdp.mechanisms import count_charge, exponential_charge, exponential_mechanism, histogram_charges
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.privacy import Charge, Ledger, Partition, Relation
from refdp.rng import RandomSource
from refdp.scoring import get_quality, monotone_under
from refdp.tree import CategoricalSplit, Leaf, Node, ThresholdSplit, TreeModel

__all__ = [
    "SPEC",
    "fit_diffpid3",
    "derive_diffpid3",
    "depth_plan",
    "public_bound",
    "reads_public_size",

    "per_query_epsilon",
    "split_share",
    "stops",
    "size_bound",
    "INTERNAL",
    "LEAF",
    "DEFAULT_MAX_SIZE",
]

CLAIMS = (
    "noisy-size-plan",
    "exponential-mechanism-monotone",
    "split-quality-monotone",
    "diffpid3-budget",
    "tree-budget-plan",
    "diffpid3-info-gain-size-bound",
    "continuous-split-exponential-mechanism",
    "exponential-mechanism",
    "exponential-mechanism-exact-sampler",
    "exact-inversion-sampler",
    "exponential-mechanism-float-sampler",
    "discrete-laplace-mechanism",
    "parallel-composition",
    "sequential-composition",
    "information-gain-sensitivity",
    "gini-unnormalised-sensitivity",
    "max-operator-sensitivity",
)

INTERNAL = NodeCost(Fraction(2), Fraction(2))
"""A split node: N_T (1 unit) and the split choices, which share 1 unit."""

LEAF = NodeCost(Fraction(2), Fraction(3))
"""A leaf: N_T (1 unit) and the class counts (1 unit; 2 for a record that changes class)."""

Score = Union[int, Fraction, float]

DEFAULT_MAX_SIZE = 1_000_000
"""The public bound N on the data set's size that info-gain uses under add-remove unless given."""


def per_query_epsilon(budget: Fraction, depth: int, relation: Relation) -> Fraction:
    """eps = B / K with K the cost of a full tree: 2(d+1) under add-remove, 4d+2 (3 for d=0) under substitute."""
    return budget / plan_units(INTERNAL, LEAF, depth, relation)


def split_share(epsilon: Fraction, continuous: int) -> Fraction:
    """The budget of each of a node's split choices: the ``continuous`` thresholds and the attribute share eps."""
    return epsilon / (continuous + 1)


def stops(noisy_size: int, largest_domain: int, n_classes: int, epsilon: Fraction) -> bool:
    """The stopping rule N_T / (t |C|) < sqrt(2) / eps, decided exactly.

    Equivalent to N_T eps < sqrt(2) t |C|: true when N_T eps <= 0, and
    otherwise when (N_T eps)^2 < 2 (t |C|)^2, in exact rational arithmetic.
    """
    x = noisy_size * epsilon
    bound = largest_domain * n_classes
    return x <= 0 or x * x < 2 * bound * bound


def size_bound(params: Mapping[str, Param], data: Dataset, relation: Relation) -> Optional[int]:
    """The public bound N on node sizes that information gain's sensitivity needs (None otherwise).

    ``max_size`` > 0 is used as given; 0 means the default: the data set's
    size under ``substitute`` (public: every neighbour has it) and
    :data:`DEFAULT_MAX_SIZE` under ``add-remove`` (where the size is private).
    A data set with more rows than N breaks the declared bound and is refused.
    """
    bound = public_bound(params, relation, len(data))
    if bound is None:
        return None
    if len(data) > bound:
        raise InvalidParameterError(
            f"the data set has more rows than max_size={bound}, the public bound on its size that "
            f"the sensitivity of info-gain relies on; declare a larger max_size (chosen without "
            f"looking at the data) or use quality=max or quality=gini"
        )
    return bound


def public_bound(params: Mapping[str, Param], relation: Relation, size: int) -> Optional[int]:
    """The bound N of :func:`size_bound` for a data set of ``size`` rows, public under ``substitute``.

    >>> public_bound({"quality": "info-gain", "max_size": 0}, Relation.SUBSTITUTE, 435)
    435
    >>> public_bound({"quality": "max", "max_size": 0}, Relation.SUBSTITUTE, 435) is None
    True
    """
    if params["quality"] != "info-gain":
        return None
    given = params["max_size"]
    if isinstance(given, bool) or not isinstance(given, int) or given < 0:
        raise InvalidParameterError(
            f"parameter max_size must be an integer >= 0 (0 for the default bound), got {given!r}"
        )
    if given > 0:
        return given
    return max(1, size) if relation is Relation.SUBSTITUTE else DEFAULT_MAX_SIZE


def reads_public_size(params: Mapping[str, Param], relation: Relation) -> bool:
    """Whether the plan reads the number of rows as public: info-gain under substitute without max_size.

    That number is public only where the data set is the neighbours' own:
    a transformation that depends on a record (dropping the rows with a
    missing value) changes it under a substitution, and the bound is then
    not public (``train`` refuses ``--missing drop`` with it).

    >>> reads_public_size({"quality": "info-gain", "max_size": 0}, Relation.SUBSTITUTE)
    True
    >>> reads_public_size({"quality": "info-gain", "max_size": 1000}, Relation.SUBSTITUTE)
    False
    """
    return params["quality"] == "info-gain" and params["max_size"] == 0 and relation is Relation.SUBSTITUTE


def domain_size(schema: Schema, a: int) -> int:
    attribute = schema.attributes[a]
    return attribute.n_values if isinstance(attribute, CategoricalAttribute) else 2


class Quality:
    """The quality q at a node: its scores and its sensitivity under the relation (with the size bound N)."""

    def __init__(self, quality: str, relation: Relation, bound: Optional[int]) -> None:
        scoring = get_quality(quality)
        self.name = quality
        self.sensitivity = scoring.sensitivity(relation, max_size=bound)
        # Under add-remove the max operator's and the Gini's utilities of every candidate move one way
        # when a record joins the node: no factor 2 (claim split-quality-monotone).
        self.monotone = monotone_under(quality, relation)
        self.claims = ("exponential-mechanism", scoring.claim) + (("split-quality-monotone",) if self.monotone else ())
        self.note = "" if bound is None else f"information gain with the public size bound N={bound}"
        # Rational qualities are scored and sampled exactly; information gain (logarithms) in floats.
        self.exact = quality != "info-gain"
        self.score: Callable[[Sequence[Sequence[int]]], Score] = (
            exact_score_function(quality) if self.exact else score_function(quality)
        )

    def charge(self, epsilon: Fraction, label: str, path: Partition, claims: Tuple[str, ...]) -> Charge:
        """The charge of one of the node's exponential mechanisms (:meth:`_Builder._choose`)."""
        return exponential_charge(
            epsilon=epsilon, sensitivity=self.sensitivity, label=label, partition=path, claims=claims, note=self.note,
            exact=self.exact, monotone=self.monotone and self.exact,
        )

    def of_attribute(self, counts: NodeCounts, rows: Rows, a: int, n_values: int) -> Score:
        """The utility of the multiway split on categorical attribute ``a`` of the node holding ``rows``."""
        return self.score(counts.value_table(rows, a, n_values))


class _Builder:
    def __init__(
        self,
        counts: NodeCounts,
        engine: Engine,
        schema: Schema,
        quality: str,
        bound: Optional[int],
        cells: int,
        epsilon: Fraction,
        rng: RandomSource,
        ledger: Ledger,
    ) -> None:
        self.counts = counts
        self.exponential = engine.exponential
        self.histogram = engine.histogram
        self.noisy_count = engine.count
        self.schema = schema
        self.eps = epsilon
        self.rng = rng
        self.ledger = ledger
        self.quality = Quality(quality, ledger.relation, bound)
        self.sensitivity = self.quality.sensitivity
        self.monotone = self.quality.monotone
        self.claims = self.quality.claims
        self.note = self.quality.note
        self.exact = self.quality.exact
        self.score = self.quality.score
        self.grids: Dict[int, ThresholdGrid] = {
            a: ThresholdGrid.of(attribute, cells)
            for a, attribute in enumerate(schema.attributes)
            if isinstance(attribute, ContinuousAttribute)
        }

    def _choose(
        self, utilities: Sequence[Score], epsilon: Fraction, label: str, path: Partition, claims: Tuple[str, ...]
    ) -> int:
        # a verifier re-issues this charge with self.quality.charge
        if self.exact:
            return exponential_mechanism(
                utilities, epsilon=epsilon, sensitivity=self.sensitivity, rng=self.rng, ledger=self.ledger,
                label=label, partition=path, claims=claims, note=self.note, exact=True, monotone=self.monotone,
            )
        return self.exponential(
            [float(u) for u in utilities], epsilon=epsilon, sensitivity=self.sensitivity, rng=self.rng,
            ledger=self.ledger, label=label, partition=path, claims=claims, note=self.note,
        )

    def build(self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        n_t = self.noisy_count(
            len(rows), epsilon=self.eps, rng=self.rng, ledger=self.ledger, label=SIZE_LABEL, partition=path,
        )
        largest = max((domain_size(self.schema, a) for a in attributes), default=0)
        if not attributes or depth == 0 or stops(n_t, largest, self.schema.n_classes, self.eps):
            counts = self.histogram(
                self.counts.class_counts(rows), epsilon=self.eps, rng=self.rng, ledger=self.ledger,
                label=COUNTS_LABEL, partition=path, names=self.schema.classes,
            )
            return Leaf(tuple(counts))
        continuous = [a for a in attributes if isinstance(self.schema.attributes[a], ContinuousAttribute)]
        share = split_share(self.eps, len(continuous))
        utilities: List[Score] = []
        thresholds: List[Optional[Threshold]] = []
        for a in attributes:
            attribute = self.schema.attributes[a]
            if isinstance(attribute, CategoricalAttribute):
                utilities.append(self.quality.of_attribute(self.counts, rows, a, attribute.n_values))
                thresholds.append(None)
                continue
            grid = self.grids[a]
            scores = [self.score(t) for t in grid_threshold_tables(self.counts.grid_table(rows, a, grid))]
            chosen = self._choose(scores, share, threshold_label(attribute), path, self.claims + THRESHOLD_CLAIMS)
            utilities.append(scores[chosen])
            thresholds.append(grid.point(chosen + 1))
        choice = self._choose(utilities, share, SPLIT_LABEL, path, self.claims)
        a = attributes[choice]
        threshold = thresholds[choice]
        attribute = self.schema.attributes[a]
        if threshold is None:
            assert isinstance(attribute, CategoricalAttribute)
            remaining = tuple(b for b in attributes if b != a)
            return CategoricalSplit(
                a,
                tuple(
                    self.build(bucket, remaining, depth - 1, child_path(path, f"{attribute.name}={value}"))
                    for bucket, value in zip(self.counts.split_values(rows, a, attribute.n_values), attribute.values)
                ),
            )
        assert isinstance(attribute, ContinuousAttribute)
        low, high = threshold_conditions(attribute, threshold)
        below, above = self.counts.split_threshold(rows, a, ceil_float(threshold))
        return ThresholdSplit(
            a,
            threshold,
            self.build(below, attributes, depth - 1, child_path(path, low)),
            self.build(above, attributes, depth - 1, child_path(path, high)),
        )


def fit_diffpid3(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train DiffP-ID3 (DiffP-C4.5 on continuous attributes) with total budget ``epsilon`` (B)."""
    bound = size_bound(params, data, relation)
    ledger = start_ledger(data, relation)
    plan = depth_plan(data.schema, epsilon, params, relation, len(data), engine, rng, ledger)
    depth = plan.depth
    counts = engine.counts(data)
    eps = per_query_epsilon(plan.epsilon, depth, relation)
    builder = _Builder(
        counts, engine, data.schema, str(params["quality"]), bound, int(params["grid"]), eps, rng, ledger
    )
    root = builder.build(counts.root(), tuple(range(data.schema.n_attributes)), depth, ())
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return finish_model(
        SPEC.name, data, params, [root], ledger, budget=epsilon, plan_inputs={NOISY_SIZE: plan.noisy_size, SIZE_BOUND: bound}
    )


SIZE_LABEL = "node size N_T"
COUNTS_LABEL = "class counts N_c"
SPLIT_LABEL = "split attribute A_bar"
THRESHOLD_CLAIMS = ("continuous-split-exponential-mechanism",)
BUDGET_CLAIMS = ("tree-budget-plan", "diffpid3-budget")
SIZE_BOUND = "size_bound"
"""The plan input that holds info-gain's public bound N on the node sizes."""


def threshold_label(attribute: ContinuousAttribute) -> str:
    """The label of the exponential mechanism that picks ``attribute``'s threshold at a node.

    >>> threshold_label(ContinuousAttribute("age", 0.0, 120.0))
    'threshold of age'
    """
    return f"threshold of {attribute.name}"


def depth_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The depth d: a noisy size of the ``size`` rows (charged to ``ledger``) caps max_depth.

    A function of public values and the released noisy size only: a
    verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> params = get_algorithm("diffpid3").resolve({"size_share": 0, "max_depth": 3})
    >>> depth_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...            Ledger()).depth
    3
    """
    share, sigmas = size_share(params)
    branching = mean_branching(schema, 2)
    return plan_depth(
        size, epsilon, share, sigmas, int(params["max_depth"]), schema.n_classes,
        leaves=lambda d: branching**d, variance=lambda d, left: laplace_variance(per_query_epsilon(left, d, relation)),
        engine=engine, rng=rng, ledger=ledger,
    )


def derive_diffpid3(model: TreeModel) -> Optional[Ledger]:
    """The charges of the plan along the released tree: at every node N_T, then the leaf's class counts or
    the split's exponential mechanisms (one per continuous attribute left, then the attribute), and the reserve.

    The depth plan is replayed with the released noisy size; info-gain's
    bound N is the parameter's, 10**6 under add-remove, or the stated public
    size under substitute.  The tree must be one the builder releases:
    multiway splits on categorical attributes not yet used on the path,
    thresholds on the public grid, at most d levels, discrete Laplace counts.
    (Whether a node stopped reads its noisy size N_T, which is not released:
    a leaf above depth d is not checked against the rule.)

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("diffpid3", load("vote"), 1, rng=1)
    >>> derive_diffpid3(model).charges == model.receipt.charges
    True
    """
    params, schema = model.params, model.schema
    check_trees(model, 1)
    check_weights(model, (1.0,))
    check_voting(model, "vote")
    integer_counts(model, "discrete Laplace class counts")
    epsilon, ledger = model_budget(model), fresh_ledger(model)
    relation = ledger.relation
    plan = depth_plan(schema, epsilon, params, relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    stated = model.plan_inputs.get(SIZE_BOUND)
    bound = public_bound(params, relation, stated if stated is not None and stated > 0 else 0)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size, SIZE_BOUND: bound})
    quality = Quality(str(params["quality"]), relation, bound)
    eps = per_query_epsilon(plan.epsilon, plan.depth, relation)
    grids = {
        a: ThresholdGrid.of(attribute, int(params["grid"]))
        for a, attribute in enumerate(schema.attributes)
        if isinstance(attribute, ContinuousAttribute)
    }

    def walk(node: Node, attributes: Tuple[int, ...], depth: int, path: Partition) -> None:
        ledger.record(count_charge(epsilon=eps, label=SIZE_LABEL, partition=path))
        where = "/".join(path) or "the root"
        if isinstance(node, Leaf):
            for charge in histogram_charges(epsilon=eps, label=COUNTS_LABEL, partition=path, names=schema.classes):
                ledger.record(charge)
            return
        if depth == 0 or node.attribute not in attributes:
            refuse(f"the tree splits at {where} on an attribute the plan of depth {plan.depth} no longer has there")
        continuous = [a for a in attributes if a in grids]
        share = split_share(eps, len(continuous))
        for a in continuous:
            attribute = schema.attributes[a]
            assert isinstance(attribute, ContinuousAttribute)
            ledger.record(quality.charge(share, threshold_label(attribute), path, quality.claims + THRESHOLD_CLAIMS))
        ledger.record(quality.charge(share, SPLIT_LABEL, path, quality.claims))
        attribute = schema.attributes[node.attribute]
        if isinstance(node, CategoricalSplit):
            assert isinstance(attribute, CategoricalAttribute)
            remaining = tuple(b for b in attributes if b != node.attribute)
            for child, value in zip(node.children, attribute.values):
                walk(child, remaining, depth - 1, child_path(path, f"{attribute.name}={value}"))
            return
        if not isinstance(node, ThresholdSplit) or not isinstance(attribute, ContinuousAttribute):
            refuse(f"the node at {where} is a {type(node).__name__}, which DiffP-ID3/C4.5 does not make")
        grid_index(grids[node.attribute], node.threshold, f"the split on {attribute.name!r} at {where}")
        low, high = threshold_conditions(attribute, node.threshold)
        walk(node.below, attributes, depth - 1, child_path(path, low))
        walk(node.at_or_above, attributes, depth - 1, child_path(path, high))

    walk(model.root, tuple(range(schema.n_attributes)), plan.depth, ())
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


_QUALITIES: Tuple[str, ...] = ("info-gain", "gini", "max")

SPEC = register(
    AlgorithmSpec(
        name="diffpid3",
        summary="DiffP-ID3/C4.5: greedy multiway DP tree, noisy node sizes for stopping, exponential "
        "mechanism over attributes (and over thresholds of continuous ones)",
        source="A. Friedman, A. Schuster, Data mining with differential privacy, KDD 2010",
        variants=(
            Variant(
                "sound", True,
                "the paper's algorithm with exact discrete Laplace counts and a public size bound "
                "for information gain",
                claims=(
                    "continuous-split-exponential-mechanism", "diffpid3-budget", "discrete-laplace-mechanism",
                    "exact-inversion-sampler", "exponential-mechanism", "exponential-mechanism-exact-sampler",
                    "exponential-mechanism-monotone", "max-operator-sensitivity", "noisy-size-plan",
                    "parallel-composition", "sequential-composition", "split-quality-monotone", "tree-budget-plan",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter(
                "quality", str, "max",
                "quality function q (max: the best in 5-fold CV on the built-in data, docs/results.md)", _QUALITIES,
            ),
            Parameter("max_depth", int, 5, "maximal depth d (levels of splits)", minimum=0, maximum=MAX_DEPTH),
            Parameter(
                "max_size", int, 0,
                "public bound N on the data set's size for info-gain's sensitivity (0: 10^6 under "
                "add-remove, the data set's size under substitute)",
                minimum=0, maximum=10**15,
            ),
            GRID_PARAMETER,
            *size_parameters(0.05, 6.0),
        ),
        claims=CLAIMS,
        fit=fit_diffpid3,
        engines=("reference", "array"),
        derive=derive_diffpid3,
        reads_row_count=reads_public_size,
    )
)
