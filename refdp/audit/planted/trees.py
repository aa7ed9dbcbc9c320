"""A small DP decision tree, right and wrong, with the exact law of its released shape.

:class:`SmallTree` grows a tree in the shape of DiffP-ID3 (Friedman and
Schuster 2010) over a few categorical attributes, small enough that every
shape it can release can be listed with its probability.  Two planted faults
live here:

* ``budget="full"``: every query on a root-to-leaf path gets the whole
  epsilon instead of its share, so the tree spends ``(max_depth + 1) epsilon``;
* ``stopping="true-count"``: a node becomes a leaf when its *true* size is
  below ``min_size``, so a neighbour that pushes one node across the line
  changes the released shape with certainty.  The sound rule compares a
  noisy size (``stopping="noisy-count"``), paid for from the budget.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, Hashable, List, Sequence, Tuple

from refdp.audit.exact import Distribution
from refdp.audit.neighbours import Record
from refdp.audit.planted.choices import attribute_table, max_score
from refdp.audit.planted.laws import clamped_discrete_laplace, log_discrete_laplace_at_most
from refdp.audit.reductions import LEAF
from refdp.data import CategoricalAttribute, Dataset
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace, exponential_log_probabilities, sample_index
from refdp.rng import RandomSource
from refdp.tree import CategoricalSplit, Leaf, Node

__all__ = ["BUDGETS", "STOPPING_RULES", "SmallTree", "ProbeLeafLaw"]

BUDGETS = ("split", "full")
"""``split``: epsilon divided among the queries of a path; ``full``: the fault."""

STOPPING_RULES = ("none", "true-count", "noisy-count")
"""When a node above ``max_depth`` becomes a leaf: never, on its true size (the fault), on a noisy size."""


@dataclass(frozen=True)
class SmallTree:
    """A DiffP-ID3-shaped tree of depth at most ``max_depth`` over candidate ``attributes``.

    At a node with rows ``R`` at depth ``d`` and unused candidates ``A``:

    * a leaf if ``d = max_depth`` or ``A`` is empty, or by the stopping
      rule: ``|R| < min_size`` (``true-count``) or
      ``|R| + DLap(1/epsilon_q) < min_size`` (``noisy-count``);
    * otherwise a multiway split on ``a`` in ``A`` drawn by the exponential
      mechanism at ``epsilon_q`` with the max operator (sensitivity 1).

    A leaf releases its class histogram, ``DLap(1/epsilon_q)`` on every
    class.  A root-to-leaf path makes ``k = max_depth + 1`` queries, plus
    ``max_depth`` noisy sizes with ``noisy-count``; ``budget="split"`` gives
    each ``epsilon_q = epsilon / k`` (sequential composition along the path,
    parallel composition across siblings, under add-remove), ``"full"``
    gives each ``epsilon``.
    """

    attributes: Tuple[int, ...]
    max_depth: int
    epsilon: Fraction
    budget: str = "split"
    stopping: str = "none"
    min_size: int = 0

    def __post_init__(self) -> None:
        if self.budget not in BUDGETS:
            raise InvalidParameterError(f"budget must be one of {BUDGETS}, got {self.budget!r}")
        if self.stopping not in STOPPING_RULES:
            raise InvalidParameterError(f"stopping must be one of {STOPPING_RULES}, got {self.stopping!r}")

    @property
    def queries_per_path(self) -> int:
        """``k``: the queries on one root-to-leaf path of full depth."""
        return self.max_depth + 1 + (self.max_depth if self.stopping == "noisy-count" else 0)

    @property
    def query_epsilon(self) -> Fraction:
        """``epsilon_q``: what each query is run with."""
        return self.epsilon if self.budget == "full" else self.epsilon / self.queries_per_path

    @property
    def scale(self) -> Fraction:
        """The discrete Laplace scale ``1/epsilon_q`` of counts (sensitivity 1)."""
        return 1 / self.query_epsilon

    def _at_max(self, depth: int, candidates: Sequence[int]) -> bool:
        return depth == self.max_depth or not candidates

    def _scores(self, data: Dataset, rows: Sequence[int], candidates: Sequence[int]) -> List[float]:
        return [float(max_score(attribute_table(data, a, rows))) for a in candidates]

    def _partition(self, data: Dataset, rows: Sequence[int], attribute: int) -> List[List[int]]:
        described = data.schema.attributes[attribute]
        assert isinstance(described, CategoricalAttribute)
        codes = data.codes(attribute)
        parts: List[List[int]] = [[] for _ in range(described.n_values)]
        for i in rows:
            parts[codes[i]].append(i)
        return parts

    def __call__(self, data: Dataset, rng: RandomSource) -> Node:
        return self._grow(data, list(range(len(data))), self.attributes, 0, rng)

    def _grow(
        self, data: Dataset, rows: List[int], candidates: Tuple[int, ...], depth: int, rng: RandomSource
    ) -> Node:
        leaf = self._at_max(depth, candidates)
        if not leaf and self.stopping == "true-count":
            leaf = len(rows) < self.min_size
        elif not leaf and self.stopping == "noisy-count":
            leaf = len(rows) + discrete_laplace(self.scale, rng) < self.min_size
        if leaf:
            counts = [0] * data.schema.n_classes
            for i in rows:
                counts[data.labels[i]] += 1
            return Leaf(tuple(c + discrete_laplace(self.scale, rng) for c in counts))
        log_p = exponential_log_probabilities(
            self._scores(data, rows, candidates), epsilon=self.query_epsilon, sensitivity=1
        )
        a = candidates[sample_index([math.exp(lp) for lp in log_p], rng)]
        rest = tuple(c for c in candidates if c != a)
        return CategoricalSplit(
            a, tuple(self._grow(data, part, rest, depth + 1, rng) for part in self._partition(data, rows, a))
        )

    def structure_log_probabilities(self, data: Dataset) -> Dict[Hashable, float]:
        """``ln P(shape)`` of every shape the tree can release on ``data``.

        Shapes are :func:`refdp.audit.reductions.structure_of` of the
        sampled tree; the recursion follows the sampler, multiplying the
        stopping probability, the exponential mechanism's choice and the
        children's (independent) shapes.
        """
        return self._shapes(data, list(range(len(data))), self.attributes, 0)

    def _shapes(
        self, data: Dataset, rows: List[int], candidates: Tuple[int, ...], depth: int
    ) -> Dict[Hashable, float]:
        if self._at_max(depth, candidates):
            return {LEAF: 0.0}
        shapes: Dict[Hashable, float] = {}
        log_split = 0.0
        if self.stopping == "true-count" and len(rows) < self.min_size:
            return {LEAF: 0.0}
        if self.stopping == "noisy-count":
            # leaf iff |R| + Z < m iff Z <= m - |R| - 1; split iff Z >= m - |R| iff -Z <= |R| - m.
            shapes[LEAF] = log_discrete_laplace_at_most(self.min_size - len(rows) - 1, self.scale)
            log_split = log_discrete_laplace_at_most(len(rows) - self.min_size, self.scale)
        log_p = exponential_log_probabilities(
            self._scores(data, rows, candidates), epsilon=self.query_epsilon, sensitivity=1
        )
        for a, lp in zip(candidates, log_p):
            rest = tuple(c for c in candidates if c != a)
            children = [self._shapes(data, part, rest, depth + 1) for part in self._partition(data, rows, a)]
            for combo in itertools.product(*(child.items() for child in children)):
                key = ("categorical", a, tuple(shape for shape, _ in combo))
                shapes[key] = log_split + lp + math.fsum(l for _, l in combo)
        return shapes

    def structure_law(self, data: Dataset) -> Distribution:
        """The exact law of the released shape."""
        return Distribution(self.structure_log_probabilities(data))


def _probe_rows(shape: Hashable, data: Dataset, probe: Record) -> List[int]:
    """The rows of ``data`` that reach the probe's leaf in ``shape``."""
    rows = list(range(len(data)))
    while shape != LEAF:
        assert isinstance(shape, tuple)
        _, attribute, children = shape
        value = probe.values[attribute]
        codes = data.codes(attribute)
        rows = [i for i in rows if codes[i] == value]
        shape = children[int(value)]
    return rows


@dataclass(frozen=True)
class ProbeLeafLaw:
    """The exact law of ``ProbeLeafCount(probe, lo, hi)`` of a :class:`SmallTree`.

    For each shape, the probe's leaf holds a known true count of the probe's
    class; its released count is that plus ``DLap(1/epsilon_q)``, clamped.
    """

    tree: SmallTree
    probe: Record
    lo: int
    hi: int

    def __call__(self, data: Dataset) -> Distribution:
        items: List[Tuple[Hashable, float]] = []
        for shape, lp in self.tree.structure_log_probabilities(data).items():
            count = sum(1 for i in _probe_rows(shape, data, self.probe) if data.labels[i] == self.probe.label)
            for value, lv in clamped_discrete_laplace(count, self.tree.scale, self.lo, self.hi).items():
                items.append(((shape, value), lp + lv))
        return Distribution(items)
