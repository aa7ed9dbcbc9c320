"""DPEA's Metropolis search over subtrees (Algorithm 3), as the paper prints it and with a Hastings correction.

The chain's state is a candidate subtree (:mod:`refdp.algorithms.dpea_subtrees`).

* Start: a random subtree, :func:`random_shape`: every inner node picks its
  attribute uniformly among those still allowed on its path.
* Proposal, "randomly replace one inner node in st" (Algorithm 3, line 6),
  read as: pick one inner node of ``st`` uniformly; give it an attribute
  drawn uniformly among the attributes allowed there other than its own
  (when there is no other, the proposal is ``st`` itself); its old children
  belong to the old attribute's values, so the part below it is drawn
  afresh with :func:`random_shape`.
* Acceptance, as printed: min(1, exp(c (q'(st') - q'(st)))), c = eps'/4,
  with no Hastings correction.  The proposal is not symmetric when domain
  sizes differ (the number of inner nodes and the probability of the
  redrawn part change), so the printed chain's stationary law is not the
  exponential mechanism's.  :func:`proposal_log_ratio` is the correction
  ln q(st' -> st) - ln q(st -> st'); with it the chain is Metropolis-Hastings
  for the target exp(c q'(st)) (claim ``dpea-mcmc``).
* Stopping, as printed: at ``steps`` steps, or as soon as the last
  ``buffer`` scores have variance below ``threshold`` (a data-dependent
  stopping time).  The corrected chain runs exactly ``steps`` steps.

Every draw is one :func:`refdp.mechanisms.sample_index` call or one
``rng.random()`` (the acceptance test), so a run is replayable from a seed.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from refdp.algorithms.dpea_subtrees import Shape, Subtree, counted, domain_sizes, subtree_quality
from refdp.engine import NodeCounts, TrainingView
from refdp.errors import InvalidParameterError
from refdp.mechanisms import sample_index
from refdp.rng import RandomSource

__all__ = [
    "Chain",
    "ChainResult",
    "random_shape",
    "random_shape_log_probability",
    "inner_nodes",
    "propose",
    "proposal_log_ratio",
    "run_chain",
]

Position = Tuple[int, ...]
"""The value indices leading from a subtree's root to one of its nodes."""


@dataclass(frozen=True)
class Chain:
    """How a chain accepts and stops: ``steps`` at most; Hastings-corrected or the printed acceptance; with a
    ``threshold``, stopped once the last ``buffer`` scores' variance is below it (the printed rule)."""

    steps: int
    hastings: bool
    buffer: int = 0
    threshold: Optional[float] = None


@dataclass(frozen=True)
class ChainResult:
    """The chain's final subtree, the steps it ran, and how many proposals it accepted."""

    shape: Shape
    steps: int
    accepted: int


def _uniform(m: int, rng: RandomSource) -> int:
    return sample_index([1.0 / m] * m, rng)


def random_shape(sizes: Sequence[int], attributes: Tuple[int, ...], levels: int, rng: RandomSource) -> Shape:
    """A subtree whose inner nodes each pick an attribute uniformly among those allowed (depth first)."""
    if levels == 0 or not attributes:
        return None
    a = attributes[_uniform(len(attributes), rng)]
    rest = tuple(b for b in attributes if b != a)
    return Subtree(a, tuple(random_shape(sizes, rest, levels - 1, rng) for _ in range(sizes[a])))


def random_shape_log_probability(attributes: Tuple[int, ...], levels: int, shape: Shape) -> float:
    """ln P[:func:`random_shape` returns ``shape``]: minus the sum of ln |allowed| over its inner nodes."""
    if levels == 0 or not attributes:
        return 0.0
    assert shape is not None
    rest = tuple(b for b in attributes if b != shape.attribute)
    return -math.log(len(attributes)) + math.fsum(
        random_shape_log_probability(rest, levels - 1, child) for child in shape.children
    )


def inner_nodes(shape: Shape, attributes: Tuple[int, ...]) -> List[Tuple[Position, Tuple[int, ...]]]:
    """Every inner node of ``shape`` (depth first) with the attributes allowed at it."""
    found: List[Tuple[Position, Tuple[int, ...]]] = []

    def walk(node: Shape, position: Position, allowed: Tuple[int, ...]) -> None:
        if node is None:
            return
        found.append((position, allowed))
        rest = tuple(b for b in allowed if b != node.attribute)
        for v, child in enumerate(node.children):
            walk(child, position + (v,), rest)

    walk(shape, (), attributes)
    return found


def _at(shape: Shape, position: Position) -> Shape:
    for v in position:
        assert shape is not None
        shape = shape.children[v]
    return shape


def _replace(shape: Shape, position: Position, new: Shape) -> Shape:
    if not position:
        return new
    assert shape is not None
    v = position[0]
    children = list(shape.children)
    children[v] = _replace(children[v], position[1:], new)
    return Subtree(shape.attribute, tuple(children))


def propose(
    shape: Shape, sizes: Sequence[int], attributes: Tuple[int, ...], levels: int, rng: RandomSource
) -> Tuple[Shape, Position]:
    """st' from st: one inner node gets another allowed attribute and a freshly drawn part below it."""
    nodes = inner_nodes(shape, attributes)
    position, allowed = nodes[_uniform(len(nodes), rng)]
    old = _at(shape, position)
    assert old is not None
    others = tuple(b for b in allowed if b != old.attribute)
    if not others:
        return shape, position
    a = others[_uniform(len(others), rng)]
    rest = tuple(b for b in allowed if b != a)
    below = levels - len(position) - 1
    new = Subtree(a, tuple(random_shape(sizes, rest, below, rng) for _ in range(sizes[a])))
    return _replace(shape, position, new), position


def proposal_log_ratio(
    old: Shape, new: Shape, position: Position, attributes: Tuple[int, ...], levels: int
) -> float:
    """ln q(new -> old) - ln q(old -> new) for a move at ``position`` (0 for a move to itself).

    q(st -> st') = 1/|inner(st)| * 1/(|allowed| - 1) * P[the part below the
    new node]; the reverse move picks the same position in st' and the old
    attribute, so the 1/(|allowed| - 1) factors cancel.
    """
    if old == new:
        return 0.0
    allowed = inner_nodes(old, attributes)
    at_position = dict(allowed)[position]
    old_node, new_node = _at(old, position), _at(new, position)
    assert old_node is not None and new_node is not None
    below = levels - len(position) - 1

    def redrawn(node: Subtree) -> float:
        rest = tuple(b for b in at_position if b != node.attribute)
        return math.fsum(random_shape_log_probability(rest, below, child) for child in node.children)

    forward = -math.log(len(allowed)) + redrawn(new_node)
    backward = -math.log(len(inner_nodes(new, attributes))) + redrawn(old_node)
    return backward - forward


def run_chain(
    view: TrainingView,
    rows: Sequence[int],
    attributes: Tuple[int, ...],
    levels: int,
    c: float,
    rng: RandomSource,
    chain: Chain,
    counts: Optional[NodeCounts] = None,
) -> ChainResult:
    """Run the Metropolis chain of Algorithm 3 on the subtrees of ``levels`` levels, as ``chain`` says.

    ``hastings=False`` is the printed acceptance min(1, exp(c (q'(st') -
    q'(st)))); ``hastings=True`` multiplies it by the proposal ratio
    (:func:`proposal_log_ratio`).  With ``threshold`` given, the chain also
    stops once the population variance of the last ``buffer`` scores (the
    score of the current state, recorded before every step) is below
    ``threshold`` -- the printed, data-dependent rule; otherwise it runs
    exactly ``steps`` steps.  ``counts``: the engine that counts (``rows``
    are then its rows; default the reference loops over ``view``).
    """
    steps, hastings, buffer, threshold = chain.steps, chain.hastings, chain.buffer, chain.threshold
    if steps < 0:
        raise InvalidParameterError(f"steps must be >= 0, got {steps}")
    if threshold is not None and buffer < 2:
        raise InvalidParameterError(f"buffer must be >= 2 to have a variance, got {buffer}")
    sizes = domain_sizes(view.schema)
    if levels == 0 or not attributes:
        return ChainResult(None, 0, 0)
    shape = random_shape(sizes, attributes, levels, rng)
    node_counts = counted(view, counts)
    score = subtree_quality(view, rows, shape, node_counts)
    scores: List[float] = []
    accepted = 0
    t = 0
    while t < steps:
        if threshold is not None and len(scores) >= buffer and statistics.pvariance(scores[-buffer:]) < threshold:
            break
        scores.append(score)
        proposal, position = propose(shape, sizes, attributes, levels, rng)
        new_score = subtree_quality(view, rows, proposal, node_counts)
        log_alpha = c * (new_score - score)
        if hastings:
            log_alpha += proposal_log_ratio(shape, proposal, position, attributes, levels)
        if rng.random() < math.exp(min(0.0, log_alpha)):
            shape, score = proposal, new_score
            accepted += 1
        t += 1
    return ChainResult(shape, t, accepted)
