"""The thesis tree as published: Novakovic (MSc thesis, Novi Sad 2019), Listings 1 (max operator) and 2 (Gini) as coded.

Variant ``published`` of ``thesis-tree`` (the sound learner is
:mod:`refdp.algorithms.thesis_tree`), marked unsound in the receipt (claims
``thesis-code-errata`` and ``thesis-gini-exp2-sensitivity``): attribute
types read off the data (a continuous attribute with more than 20 distinct
values is numeric, otherwise it is split by equality); for each attribute
the best value among the values present in the node is chosen *without
noise*; the exponential mechanism then picks among the attributes' best
scores, and a score shared by two attributes always goes to the first; a
split that leaves a side empty scores 0; the Gini uses ``exp2(m/n)`` where
the text squares; class counts get Laplace noise only for the classes
present in the node (an absent class is released as an exact 0); the
stopping rule counts the classes present; and a leaf draws its counts a
second time (the listing's ``Leaf`` calls ``class_count`` twice), which the
budget never accounted for.  The per-query epsilon is the thesis's
epsilon / (2(d+1) - 1) under both relations (the code knows no relation).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Dict, List, Mapping, Sequence, Tuple

from refdp.algorithms.greedy import NodeCost, child_path, close_budget, plan_units, threshold_conditions
from refdp.algorithms.registry import Param, Variant, register_variant
from refdp.algorithms.models import finish_model, start_ledger
from refdp.algorithms.thesis_tree import BUDGET_CLAIMS, SOUND_INTERNAL, SPEC
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset
from refdp.engine import REFERENCE, Engine, TrainingView, class_counts
from refdp.mechanisms import exponential_mechanism, laplace_mechanism
from refdp.privacy import Ledger, Partition, Relation, cell
from refdp.rng import RandomSource
from refdp.tree import Leaf, Node, ThresholdSplit, TreeModel, ValueSplit

__all__ = [
    "VARIANT",
    "fit_published",
    "published_per_query_epsilon",
    "PUBLISHED_INTERNAL",
    "PUBLISHED_LEAF",
    "NUMERIC_DISTINCT_VALUES",
    "published_score",
    "published_best_value",
]

PUBLISHED_INTERNAL = SOUND_INTERNAL
"""A split node as coded: the first draw of the counts and the split."""

PUBLISHED_LEAF = NodeCost(Fraction(2), Fraction(4))
"""A leaf as coded: two independent draws of the class counts, both released."""

NUMERIC_DISTINCT_VALUES = 20
"""Listing 1, ``fit``: an attribute with more distinct values than this in the data is numeric."""


def published_per_query_epsilon(epsilon: Fraction, depth: int) -> Fraction:
    """The thesis's budget of one query, epsilon / (2(d+1) - 1), under either relation.

    >>> published_per_query_epsilon(Fraction(1), 2)
    Fraction(1, 5)
    """
    return epsilon / (2 * (depth + 1) - 1)


def _planned_total(epsilon: Fraction, depth: int, relation: Relation) -> Fraction:
    """The published variant's plan: its per-query epsilon times the cost of a full tree as coded."""
    return published_per_query_epsilon(epsilon, depth) * plan_units(PUBLISHED_INTERNAL, PUBLISHED_LEAF, depth, relation)


def published_score(quality: str, match: Sequence[int], rest: Sequence[int]) -> float:
    """The listings' quality of a binary split (``match`` = rows meeting the question).

    ``max_operator_value`` (Listing 1): ``max_l n_{1_l} + max_l n_{2_l}``;
    ``gini_index_value`` (Listing 2): ``-(n_1 gini_ent(D_1) + n_2 gini_ent(D_2))``
    with ``gini_ent(X) = 1 - sum over the classes present in X of exp2(m/n)``.
    Both return 0 when a side is empty.  Neither has the sensitivity the
    thesis claims (claims ``thesis-code-errata``, ``thesis-gini-exp2-sensitivity``).
    """
    n1, n2 = sum(match), sum(rest)
    if n1 == 0 or n2 == 0:
        return 0.0
    if quality == "max":
        return float(max(match) + max(rest))

    def gini_ent(counts: Sequence[int], n: int) -> float:
        return 1.0 - sum(math.pow(2.0, m / n) for m in counts if m != 0)

    return -(n1 * gini_ent(match, n1) + n2 * gini_ent(rest, n2))


def published_best_value(
    quality: str, candidates: Sequence[Tuple[float, Sequence[int]]], total: Sequence[int]
) -> Tuple[int, float]:
    """The listings' ``max_operator`` / ``gini_index``: the first candidate of highest score, no noise.

    ``candidates`` are (value, counts of the rows matching the question) in
    the order of ``np.unique`` (ascending); returns (position, score).
    """
    best, best_score = 0, -math.inf
    for position, (_, match) in enumerate(candidates):
        score = published_score(quality, match, [t - m for t, m in zip(total, match)])
        if score > best_score:
            best, best_score = position, score
    return best, best_score


class _PublishedBuilder:
    """Listings 1-2 as coded; every data-dependent step is marked unsound in the ledger."""

    def __init__(
        self,
        view: TrainingView,
        params: Mapping[str, Param],
        epsilon: Fraction,
        max_depth: int,
        rng: RandomSource,
        ledger: Ledger,
    ) -> None:
        self.view = view
        self.schema = view.schema
        self.eps = epsilon
        self.max_depth = max_depth
        self.rng = rng
        self.ledger = ledger
        self.min_samples = int(params["min_samples"])
        self.quality = "gini" if params["quality"] == "gini" else "max"
        # The listings' constants: epsilon/2 "sensitivity of max operator is 1", epsilon/4 for Gini.
        self.claimed_sensitivity = 1 if self.quality == "max" else 2
        self.class_order = sorted(range(view.n_classes), key=lambda c: self.schema.classes[c])
        self.numeric = self._attribute_types()

    def _attribute_types(self) -> Dict[int, bool]:
        numeric: Dict[int, bool] = {}
        for a, attribute in enumerate(self.schema.attributes):
            if isinstance(attribute, ContinuousAttribute):
                column = self.view.columns[a]
                distinct = {column[i] for i in self.view.rows}
                numeric[a] = len(distinct) > NUMERIC_DISTINCT_VALUES
            else:
                numeric[a] = False
        self.ledger.record_leak(
            "thesis code: attribute types read off the training data (a continuous attribute with "
            f"more than {NUMERIC_DISTINCT_VALUES} distinct values is split by threshold, otherwise by equality)"
        )
        self.ledger.record_leak(
            "thesis code: the split value of every attribute is the argmax of the quality over the "
            "values present in the node, chosen without noise and released as the split (a threshold "
            "is a training value, released exactly)"
        )
        self.ledger.record_leak(
            "thesis code: class counts are noised only for the classes present in a node; an absent "
            "class is released as an exact 0 and the stopping rule |N_c| = 1 counts the classes present"
        )
        return numeric

    def _draw(self, rows: Sequence[int], path: Partition, label: str) -> List[float]:
        """``class_count``: Laplace(1/eps) on the count of every class present in ``rows``."""
        counts = class_counts(self.view, rows)
        released = [0.0] * self.view.n_classes
        for c in self.class_order:
            if counts[c] > 0:
                released[c] = laplace_mechanism(
                    counts[c], sensitivity=1, epsilon=self.eps, rng=self.rng, ledger=self.ledger,
                    label=label, partition=path + (cell("class", self.schema.classes[c]),),
                    claims=("laplace-mechanism", "parallel-composition", "thesis-code-errata"),
                    sound=False,
                )
        return released

    def build(self, rows: List[int], attributes: Tuple[int, ...], depth: int, path: Partition) -> Node:
        if not rows:
            # The listing crashes here (max() of an empty class dict); refdp returns an empty leaf.
            return Leaf((0.0,) * self.view.n_classes)
        present = sum(1 for c in class_counts(self.view, rows) if c > 0)
        first = self._draw(rows, path, "class_count (stopping rule)")
        if depth == self.max_depth or not attributes or sum(first) <= self.min_samples or present == 1:
            return Leaf(tuple(self._draw(rows, path, "class_count (leaf, second draw)")))
        values: List[Tuple[float, bool]] = []
        evals: List[float] = []
        for a in attributes:
            value, score, is_threshold = self._best_split_of(rows, a)
            values.append((value, is_threshold))
            evals.append(score)
        drawn = exponential_mechanism(
            evals, epsilon=self.eps, sensitivity=self.claimed_sensitivity, rng=self.rng,
            ledger=self.ledger, label="Best_split", partition=path,
            claims=("exponential-mechanism", "thesis-code-errata", "thesis-gini-exp2-sensitivity"),
            sound=False,
            note="noiseless best value per attribute; equal scores go to the first attribute; "
            "degenerate splits score 0 (and exp2 Gini): the claimed sensitivity does not hold",
        )
        chosen = evals.index(evals[drawn])  # Listing 1: att = evals.index(max_choise)
        a = attributes[chosen]
        value, is_threshold = values[chosen]
        column = self.view.columns[a]
        attribute = self.schema.attributes[a]
        if is_threshold:
            match = [i for i in rows if column[i] >= value]
            rest = [i for i in rows if column[i] < value]
        else:
            match = [i for i in rows if column[i] == value]
            rest = [i for i in rows if column[i] != value]
        # Listing 1, build_tree: a categorical ('cat') attribute's column is deleted after use.
        remaining = attributes if is_threshold else tuple(b for b in attributes if b != a)
        if isinstance(attribute, CategoricalAttribute):
            code = int(value)
            name, shown = attribute.name, attribute.values[code]
            left = self.build(match, remaining, depth + 1, child_path(path, f"{name}={shown}"))
            right = self.build(rest, remaining, depth + 1, child_path(path, f"{name}!={shown}"))
            return ValueSplit(a, code, left, right)
        if is_threshold:
            low, high = threshold_conditions(attribute, value)
            left = self.build(match, remaining, depth + 1, child_path(path, high))
            right = self.build(rest, remaining, depth + 1, child_path(path, low))
            return ThresholdSplit(a, value, right, left)
        # Equality on a continuous value: x < v or x >= nextafter(v) is the rest, v <= x < nextafter(v) is v.
        left = self.build(match, remaining, depth + 1, child_path(path, f"{attribute.name}=={value!r}"))
        right = self.build(rest, remaining, depth + 1, child_path(path, f"{attribute.name}!={value!r}"))
        upper = math.nextafter(value, math.inf)
        return ThresholdSplit(a, value, right, ThresholdSplit(a, upper, left, right))

    def _best_split_of(self, rows: Sequence[int], a: int) -> Tuple[float, float, bool]:
        """(value, score, is_threshold) of ``max_operator`` / ``gini_index`` for attribute ``a``."""
        column = self.view.columns[a]
        labels = self.view.labels
        total = class_counts(self.view, rows)
        by_value: Dict[float, List[int]] = {}
        for i in rows:
            counts = by_value.get(column[i])
            if counts is None:
                counts = by_value[column[i]] = [0] * self.view.n_classes
            counts[labels[i]] += 1
        attribute = self.schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            # np.unique on the raw strings: the present values in lexicographic order.
            ordered = sorted(by_value, key=lambda code: attribute.values[int(code)])
        else:
            ordered = sorted(by_value)
        if self.numeric[a]:
            # Question: x >= v, so the matching rows are those at v or above.
            candidates: List[Tuple[float, Sequence[int]]] = []
            above = list(total)
            for v in ordered:
                candidates.append((v, list(above)))
                above = [x - y for x, y in zip(above, by_value[v])]
        else:
            candidates = [(v, by_value[v]) for v in ordered]
        position, score = published_best_value(self.quality, candidates, total)
        return candidates[position][0], score, self.numeric[a]




def fit_published(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train Listings 1-2 as coded with total budget ``epsilon`` (the listings' per-value scans stay on the
    reference loops under either engine)."""
    depth = int(params["max_depth"])
    attributes = tuple(range(data.schema.n_attributes))
    ledger = start_ledger(data, relation)
    eps = published_per_query_epsilon(epsilon, depth)
    view = TrainingView.of(data)
    root = _PublishedBuilder(view, params, eps, depth, rng, ledger).build(list(view.rows), attributes, 0, ())
    close_budget(ledger, _planned_total(epsilon, depth, relation), BUDGET_CLAIMS)
    return finish_model(SPEC.name, data, params, [root], ledger, budget=epsilon)


VARIANT = Variant(
    "published", False,
    "Listings 1-2 as coded: noiseless split values, noise only on present classes, "
    "types and candidates from the data, exp2 Gini, two draws per leaf",
    claims=(
        "exponential-mechanism", "exponential-mechanism-float-sampler", "laplace-mechanism",
        "parallel-composition", "thesis-code-errata", "thesis-gini-exp2-sensitivity",
        "thesis-tree-budget", "tree-budget-plan",
    ),
)

# The charges depend on the data (noise only on the classes present): no re-derivation.
register_variant(SPEC.name, VARIANT, fit_published, None, ("thesis-code-errata", "thesis-gini-exp2-sensitivity"))
