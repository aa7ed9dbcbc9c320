"""DPEA's candidate subtrees: their shape, count, quality q', and two exact samplers.

Bai et al. (Sci China Inf Sci 2017) select, at an inner node, a whole subtree
of ``k`` split levels with the exponential mechanism.  A candidate subtree
of ``k`` levels over the attributes ``A`` still available at its root is a
leaf when ``k = 0`` or ``A`` is empty, and otherwise a root attribute
``a in A`` with one candidate subtree of ``k - 1`` levels over ``A \\ {a}``
for every value of ``a`` (attributes do not repeat on a path; every value
of the public domain has its child).  There are

    N(A, 0) = N({}, k) = 1,    N(A, k) = sum_{a in A} N(A \\ {a}, k - 1)^{|dom(a)|}

of them, a function of the public schema only (:func:`count_subtrees`).

The quality (eq. 2) is the unnormalised Gini of the subtree's leaves,

    q'(st) = - sum over leaves l of T_l (1 - sum_c (T_lc / T_l)^2),

with sensitivity Delta q' = 2 under add-remove and substitute (claim
``dpea-subtree-quality-sensitivity``); the mechanism picks ``st`` with
probability proportional to exp(eps' q'(st) / (2 Delta q')) =
exp(c q'(st)), c = eps' / 4.

Two samplers of that distribution:

* :func:`exhaustive_subtrees` lists every candidate with its float score
  (Algorithm 2), for one draw of the float exponential mechanism over the
  list (exact only up to rounding); the children's lists are built once per
  (attribute, value) and combined, so each leaf's score is computed once
  per distinct leaf;
* :class:`FactorisedSampler`: q' adds up over the leaves and a subtree is a
  root attribute times independent children, so the mechanism's
  normalising constant factorises,

      Z(S, A, 0) = Z(S, {}, k) = w(S) = exp(-c T_S Gini(S)),
      Z(S, A, k) = sum_{a in A} prod_{v in dom(a)} Z(S[a = v], A \\ {a}, k - 1),

  and drawing ``a`` with probability prod_v Z(S[a=v], .) / Z(S, A, k), then
  each child independently the same way, yields exactly the mechanism's
  distribution over subtrees (claim ``dpea-factorised-sampler``).  An empty
  or pure node has w = 1 at every leaf below it, so its Z is the public
  N(A, k) and its subtree is uniform; other nodes are memoised on their
  set of conditions {a = v}, which the orders a-then-b and b-then-a share.
  No float is involved: c is a Fraction, each leaf's factor exp(-c g) has a
  rational exponent, every Z and W_a is enclosed in directed-rounding
  interval arithmetic (:mod:`refdp.algorithms.dpea_bounds`) and each root
  attribute is drawn by :func:`refdp.mechanisms.inversion.sample_by_inversion`
  (``rng.getrandbits(32)`` words), so the law is exactly the mechanism's and
  a run is replayable from a seed.

Counting (class histograms, value tables, the rows of each value) goes
through an engine's :class:`~refdp.engine.NodeCounts` when one is given
(``counts=``; the rows are then that engine's rows), else through the
reference loops over the :class:`~refdp.engine.TrainingView`: the same
counts, so the same subtrees for the same draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from refdp.algorithms.dpea_bounds import ONE, Enclosure, exact, exp_neg, guard_bits, product, scaled, total
from refdp.engine import NodeCounts, ReferenceCounts, TrainingView
from refdp.data import CategoricalAttribute, Schema
from refdp.errors import InvalidParameterError, SchemaError
from refdp.mechanisms.inversion import START_BITS, Enclosures, WeightEnclosure, sample_by_inversion
from refdp.rng import RandomSource

__all__ = [
    "Subtree",
    "Shape",
    "Conditions",
    "QUALITY_SENSITIVITY",
    "domain_sizes",
    "count_subtrees",
    "leaf_quality",
    "leaf_exponent",
    "subtree_quality",
    "split_rows",
    "counted",
    "exhaustive_subtrees",
    "FactorisedSampler",
    "log_sum_exp",
]

QUALITY_SENSITIVITY = 2
"""Delta q' of the subtree quality under add-remove and substitute (``dpea-subtree-quality-sensitivity``)."""


@dataclass(frozen=True)
class Subtree:
    """An inner node of a candidate subtree: its attribute and one child per value (``None``: a leaf)."""

    attribute: int
    children: Tuple["Shape", ...]


Shape = Optional[Subtree]
"""A candidate subtree: ``None`` is a single leaf."""

Conditions = FrozenSet[Tuple[int, int]]
"""The conditions {(attribute, value code)} leading from a selection's root to a node."""


def domain_sizes(schema: Schema) -> Tuple[int, ...]:
    """|dom(a)| of every attribute; DPEA splits categorical attributes only."""
    sizes: List[int] = []
    for attribute in schema.attributes:
        if not isinstance(attribute, CategoricalAttribute):
            raise SchemaError(
                f"DPEA splits categorical attributes only, but {attribute.name!r} is continuous; "
                f"discretise it into public bins first (declare it categorical in the schema)"
            )
        sizes.append(attribute.n_values)
    return tuple(sizes)


_COUNTS: Dict[Tuple[Tuple[int, ...], int], int] = {}


def _count(sizes: Tuple[int, ...], levels: int) -> int:
    if levels == 0 or not sizes:
        return 1
    key = (sizes, levels)
    known = _COUNTS.get(key)
    if known is not None:
        return known
    total = 0
    for size in sorted(set(sizes)):
        # Attributes with equal domain sizes root equally many subtrees.
        i = sizes.index(size)
        total += sizes.count(size) * _count(sizes[:i] + sizes[i + 1 :], levels - 1) ** size
    _COUNTS[key] = total
    return total


def count_subtrees(sizes: Sequence[int], attributes: Sequence[int], levels: int) -> int:
    """N(A, k): the number of candidate subtrees of ``levels`` levels over ``attributes``.

    ``sizes[a]`` is |dom(a)|.  N depends on A only through the multiset of its
    domain sizes, which is what the memo is keyed on (exact integers: N is
    astronomically large for whole trees).
    """
    if levels < 0:
        raise InvalidParameterError(f"a subtree has >= 0 levels, got {levels}")
    return _count(tuple(sorted(sizes[a] for a in attributes)), levels)


def log_sum_exp(values: Sequence[float]) -> float:
    """ln sum_i exp(v_i), shifted by the maximum (``-inf`` for no values)."""
    if not values:
        return -math.inf
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


def leaf_quality(counts: Sequence[int]) -> float:
    """-T_l (1 - sum_c (T_lc / T_l)^2) = -(T_l - sum_c T_lc^2 / T_l), 0 for an empty leaf."""
    size = sum(counts)
    if size == 0:
        return 0.0
    return -(size - sum(n * n for n in counts) / size)


def split_rows(view: TrainingView, rows: Sequence[int], attribute: int, n_values: int) -> List[List[int]]:
    """The rows of ``rows`` with each value code of ``attribute``, one list per value."""
    buckets: List[List[int]] = [[] for _ in range(n_values)]
    column = view.columns[attribute]
    for i in rows:
        buckets[int(column[i])].append(i)
    return buckets


def counted(view: TrainingView, counts: Optional[NodeCounts]) -> NodeCounts:
    """``counts``, or the reference loops over ``view`` (whose rows are then the nodes' rows)."""
    return ReferenceCounts(view) if counts is None else counts


def subtree_quality(
    view: TrainingView, rows: Sequence[int], shape: Shape, counts: Optional[NodeCounts] = None
) -> float:
    """q'(st) of eq. 2 for the rows ``rows`` at the subtree's root (leaves summed left to right)."""
    return _quality(counted(view, counts), list(rows), shape)


def _quality(counts: NodeCounts, rows: List[int], shape: Shape) -> float:
    if shape is None:
        return leaf_quality(counts.class_counts(rows))
    buckets = counts.split_values(rows, shape.attribute, len(shape.children))
    return math.fsum(_quality(counts, b, child) for b, child in zip(buckets, shape.children))


def _is_pure(counts: Sequence[int]) -> bool:
    return sum(1 for n in counts if n) <= 1


def exhaustive_subtrees(
    view: TrainingView,
    rows: Sequence[int],
    attributes: Tuple[int, ...],
    levels: int,
    max_subtrees: int,
    counts: Optional[NodeCounts] = None,
) -> List[Tuple[Shape, float]]:
    """Every candidate subtree of ``levels`` levels with its q' (Algorithm 2, line 1-3).

    Refuses (InvalidParameterError) when N(A, k) exceeds ``max_subtrees``,
    before any work.  A child's list is computed once and every combination
    adds its children's scores, so q' of a leaf is computed once per leaf
    position.  The list's order is fixed by the schema: attributes in
    ``attributes`` order, children's candidates varying last-value-fastest.
    """
    sizes = domain_sizes(view.schema)
    n = count_subtrees(sizes, attributes, levels)
    if n > max_subtrees:
        raise InvalidParameterError(
            f"exhaustive search would list {_how_many(n)} subtrees of {levels} levels over {len(attributes)} "
            f"attributes, more than max_subtrees={max_subtrees}; use search=exact (same distribution, "
            f"no list), a smaller embed_depth, or raise max_subtrees"
        )
    return _enumerate(counted(view, counts), list(rows), attributes, levels, sizes)


def _how_many(n: int) -> str:
    """``n`` in digits, or as a power of ten when the digits would fill the screen."""
    digits = len(str(n))
    return str(n) if digits <= 15 else f"about {str(n)[0]}.{str(n)[1]}e{digits - 1}"


def _enumerate(
    counts: NodeCounts, rows: List[int], attributes: Tuple[int, ...], levels: int, sizes: Sequence[int]
) -> List[Tuple[Shape, float]]:
    if levels == 0 or not attributes:
        return [(None, leaf_quality(counts.class_counts(rows)))]
    result: List[Tuple[Shape, float]] = []
    for a in attributes:
        rest = tuple(b for b in attributes if b != a)
        options = [
            _enumerate(counts, bucket, rest, levels - 1, sizes) for bucket in counts.split_values(rows, a, sizes[a])
        ]
        combos: List[Tuple[Tuple[Shape, ...], float]] = [((), 0.0)]
        for option in options:
            combos = [(kids + (shape,), score + s) for kids, score in combos for shape, s in option]
        result.extend((Subtree(a, kids), score) for kids, score in combos)
    return result


def leaf_exponent(counts: Sequence[int]) -> Tuple[int, int]:
    """(T^2 - sum_c T_c^2, T): -q'(leaf) = T - sum_c T_c^2 / T as an unreduced fraction ((0, 1) when empty)."""
    size = sum(counts)
    if size == 0:
        return 0, 1
    return size * size - sum(n * n for n in counts), size


@dataclass(frozen=True)
class _Node:
    """Enclosures of a node's Z and, for each candidate root attribute a, of W_a = prod_v Z(child)."""

    z: Enclosure
    weights: Tuple[Enclosure, ...]


class FactorisedSampler:
    """The exponential mechanism over the subtrees of one selection, sampled exactly without listing them.

    ``c`` is eps' / (2 Delta q'), an exact rational.  Build it for a
    selection's root (its rows, the attributes still available and the number
    of levels ``k``), then :meth:`sample` draws a subtree with probability
    exactly exp(c q'(st)) / Z: every Z and W_a is enclosed in dyadic interval
    arithmetic (:mod:`refdp.algorithms.dpea_bounds`) at precision
    bits + :attr:`guard`, and each root attribute is drawn by
    :func:`~refdp.mechanisms.inversion.sample_by_inversion`, which asks for
    more bits in the rare case the enclosures do not decide the draw.
    :meth:`log_probability` is the sampler's own probability of a given
    subtree (the product of its conditional draws, from the enclosures'
    midpoints in floating point), which the tests compare with the target
    c q'(st) - ln Z.  ``counts``: the engine that counts (see the module
    notes; ``rows`` are its rows).
    """

    def __init__(
        self,
        view: TrainingView,
        rows: Sequence[int],
        attributes: Tuple[int, ...],
        levels: int,
        c: Union[int, Fraction],
        counts: Optional[NodeCounts] = None,
    ) -> None:
        if isinstance(c, bool) or not isinstance(c, (int, Fraction)) or c <= 0:
            raise InvalidParameterError(f"c = eps' / (2 Delta q') must be an exact rational > 0, got {c!r}")
        self.view = view
        self.counts = counted(view, counts)
        self.rows = list(rows)
        self.attributes = attributes
        self.levels = levels
        self.c = Fraction(c)
        self.sizes = domain_sizes(view.schema)
        self.guard = guard_bits(max((self.sizes[a] for a in attributes), default=1), levels)
        self._nodes: Dict[int, Dict[Conditions, _Node]] = {}
        self._pure: Dict[Tuple[int, Tuple[int, ...], int], _Node] = {}
        self._leaves: Dict[int, Dict[Tuple[int, ...], Enclosure]] = {}
        self._base = self.precision(START_BITS)
        self.z = self._z(self.rows, frozenset(), attributes, levels, self._base)

    def precision(self, bits: int) -> int:
        """The working precision for weights wanted to ``bits`` bits: bits + guard."""
        return bits + self.guard

    @property
    def states(self) -> int:
        """How many non-pure nodes were memoised at the first precision (a measure of the work done)."""
        return len(self._nodes.get(self._base, {}))

    def _leaf(self, counts: Sequence[int], p: int) -> Enclosure:
        cache = self._leaves.setdefault(p, {})
        key = tuple(counts)
        known = cache.get(key)
        if known is None:
            # exp(-x), x = c (T^2 - S) / T; equal histograms (common among small leaves) share one exp.
            numerator, size = leaf_exponent(counts)
            known = cache[key] = exp_neg(self.c.numerator * numerator, self.c.denominator * size, p)
        return known

    def _z(self, rows: List[int], conditions: Conditions, attributes: Tuple[int, ...], levels: int, p: int) -> Enclosure:
        if levels == 0 or not attributes:
            return self._leaf(self.counts.class_counts(rows), p)
        return self._node(rows, conditions, attributes, levels, p).z

    def _node(self, rows: List[int], conditions: Conditions, attributes: Tuple[int, ...], levels: int, p: int) -> _Node:
        """The enclosures of a node with levels >= 1 and attributes, at precision ``p`` (memoised)."""
        if _is_pure(self.counts.class_counts(rows)):
            return self._pure_node(attributes, levels, p)
        memo = self._nodes.setdefault(p, {})
        known = memo.get(conditions)
        if known is not None:
            return known
        weights: List[Enclosure] = []
        leaves = self._leaves.setdefault(p, {})
        for a in attributes:
            if levels == 1 or len(attributes) == 1:
                # The children are leaves: one counting pass gives their class histograms.
                table = self.counts.value_table(rows, a, self.sizes[a])
                factors = [leaves.get(tuple(row)) or self._leaf(row, p) for row in table]
                # Pure and empty leaves weigh exactly 1 (the shared ONE): nothing to multiply.
                weights.append(product([f for f in factors if f is not ONE], p))
                continue
            rest = tuple(b for b in attributes if b != a)
            weights.append(
                product(
                    (
                        self._z(bucket, conditions | {(a, v)}, rest, levels - 1, p)
                        for v, bucket in enumerate(self.counts.split_values(rows, a, self.sizes[a]))
                    ),
                    p,
                )
            )
        node = memo[conditions] = _Node(total(weights, p), tuple(weights))
        return node

    def _pure_node(self, attributes: Tuple[int, ...], levels: int, p: int) -> _Node:
        # Pure or empty: every leaf weighs 1, so Z = N(A, k) and W_a = N(A \\ {a}, k-1)^|dom(a)|, exact integers.
        key = (p, attributes, levels)
        known = self._pure.get(key)
        if known is None:
            weights = tuple(
                exact(count_subtrees(self.sizes, tuple(b for b in attributes if b != a), levels - 1) ** self.sizes[a], p)
                for a in attributes
            )
            known = self._pure[key] = _Node(exact(count_subtrees(self.sizes, attributes, levels), p), weights)
        return known

    def _weights(
        self, rows: List[int], conditions: Conditions, attributes: Tuple[int, ...], levels: int
    ) -> WeightEnclosure:
        """``weights(bits)`` for :func:`sample_by_inversion`: the W_a times 2**(bits - E), E fixed at the first call."""
        scale: List[int] = []

        def weights(bits: int) -> Enclosures:
            node = self._node(rows, conditions, attributes, levels, self.precision(bits))
            if not scale:
                # E = the leading bit of the largest W_a: the common constant K = 2**-E of the claim.
                scale.append(max(w[2] + w[1].bit_length() for w in node.weights))
            ends = [scaled(w, bits - scale[0]) for w in node.weights]
            return [lo for lo, _ in ends], [hi for _, hi in ends]

        return weights

    def root_weights(self) -> WeightEnclosure:
        """The ``weights(bits)`` the root's draw of an attribute is made from (for audits and tests)."""
        return self._weights(self.rows, frozenset(), self.attributes, self.levels)

    def sample(self, rng: RandomSource) -> Shape:
        """One subtree with probability exactly exp(c q'(st)) / Z; one inversion draw per inner node."""
        return self._sample(self.rows, frozenset(), self.attributes, self.levels, rng)

    def _sample(
        self, rows: List[int], conditions: Conditions, attributes: Tuple[int, ...], levels: int, rng: RandomSource
    ) -> Shape:
        if levels == 0 or not attributes:
            return None
        a = attributes[sample_by_inversion(self._weights(rows, conditions, attributes, levels), rng)]
        rest = tuple(b for b in attributes if b != a)
        return Subtree(
            a,
            tuple(
                self._sample(bucket, conditions | {(a, v)}, rest, levels - 1, rng)
                for v, bucket in enumerate(self.counts.split_values(rows, a, self.sizes[a]))
            ),
        )

    def log_probability(self, shape: Shape) -> float:
        """ln P[the sampler returns ``shape``]: the sum of its conditional draws' log-probabilities."""
        return self._log_probability(self.rows, frozenset(), self.attributes, self.levels, shape)

    def _log_probability(
        self, rows: List[int], conditions: Conditions, attributes: Tuple[int, ...], levels: int, shape: Shape
    ) -> float:
        if levels == 0 or not attributes:
            return 0.0 if shape is None else -math.inf
        if shape is None or shape.attribute not in attributes:
            return -math.inf
        node = self._node(rows, conditions, attributes, levels, self._base)
        a = shape.attribute
        total_log = _log(node.weights[attributes.index(a)]) - _log(total(node.weights, self._base))
        rest = tuple(b for b in attributes if b != a)
        buckets = self.counts.split_values(rows, a, self.sizes[a])
        return total_log + math.fsum(
            self._log_probability(bucket, conditions | {(a, v)}, rest, levels - 1, child)
            for v, (bucket, child) in enumerate(zip(buckets, shape.children))
        )


def _log(value: Enclosure) -> float:
    """ln of the geometric midpoint of an enclosure (math.log takes integers of any size)."""
    lo, hi, e = value
    return (math.log(lo) + math.log(hi)) / 2 + e * math.log(2) if lo else math.log(hi) + e * math.log(2)
