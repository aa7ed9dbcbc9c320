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

from refdp.algorithms.diffpid3_plan import (
    INTERNAL, LEAF, Score, DEFAULT_MAX_SIZE, per_query_epsilon, split_share, stops, size_bound, public_bound,
    reads_public_size, domain_size, Quality, SIZE_LABEL, COUNTS_LABEL, SPLIT_LABEL, THRESHOLD_CLAIMS, BUDGET_CLAIMS,
    SIZE_BOUND, threshold_label, depth_plan
)
from refdp.algorithms.diffpid3_derive import (
    derive_diffpid3
)

from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.derivation import (
    NOISY_SIZE
)
from refdp.algorithms.greedy import (
    GRID_PARAMETER, child_path, close_budget, grid_threshold_tables, threshold_conditions
)
from refdp.algorithms.noisy_depth import (
    size_parameters
)
from refdp.engine import REFERENCE, Engine, NodeCounts, Rows
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import Threshold, ThresholdGrid, ceil_float
from refdp.mechanisms import exponential_mechanism
from refdp.params import MAX_DEPTH
from refdp.privacy import Ledger, Partition, Relation
from refdp.rng import RandomSource
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

class _Builder:
    def __init__(
        self,
        counts: NodeCounts,
        engine: Engine,
        schema: Schema,
        quality: Quality,
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
        self.quality = quality
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
    quality = Quality(str(params["quality"]), relation, bound)
    builder = _Builder(counts, engine, data.schema, quality, int(params["grid"]), eps, rng, ledger)
    root = builder.build(counts.root(), tuple(range(data.schema.n_attributes)), depth, ())
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return finish_model(
        SPEC.name, data, params, [root], ledger, budget=epsilon, plan_inputs={NOISY_SIZE: plan.noisy_size, SIZE_BOUND: bound}
    )


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
            *size_parameters(0.05, 3.0),
        ),
        claims=CLAIMS,
        fit=fit_diffpid3,
        engines=("reference", "array"),
        derive=derive_diffpid3,
        reads_row_count=reads_public_size,
    )
)
