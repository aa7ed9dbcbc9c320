"""The search an auditor would do by hand: shaped data sets, neighbours and views, chosen on a pilot.

A published flaw shows on special pairs only: a node whose class is absent,
a node exactly at a size threshold, a record at a public bound, a column
with one value.  :func:`candidate_pairs` builds such pairs from a data set
and its schema (and plain random neighbours of a random sample), each with
the record in which it differs; :func:`search` runs the learner on every
pair on pilot seeds, reduces each model by every view of
:mod:`refdp.audit.views`, chooses for each (pair, view) the event that
promises the largest certified bound on a later test batch, keeps the best
half of the (pair, view) choices and runs them again with twice the pilot
(successive halving), and returns the best one with everything the pilot
cost.  The test batch is then run on fresh seeds
(:func:`refdp.audit.montecarlo.monte_carlo_audit` with the chosen event), so
the bound stays valid: the choice depends on the pilot only.
"""

from __future__ import annotations

import concurrent.futures
import math
import random
import time
from dataclasses import dataclass
from typing import Callable, Dict, Hashable, List, Mapping, Optional, Sequence, Tuple

from refdp.audit.montecarlo import D_OVER_D_PRIME, Event, _best_set_event, _best_threshold_event
from refdp.audit.neighbours import Record, record_of
from refdp.audit.pair import Neighbour, addition, removal, substitution
from refdp.audit.views import NUMERIC_VIEWS, VIEWS, view
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = ["Pair", "Choice", "candidate_pairs", "search", "size_thresholds"]

_PURE_ROWS = 200


@dataclass(frozen=True)
class Pair:
    """A data set ``d``, a neighbour, the shape that made them and the record in which they differ."""

    shape: str
    d: Dataset
    neighbour: Neighbour
    probe: Record

    def describe(self) -> str:
        if self.shape == "given":
            return self.neighbour.description
        return f"{self.shape} ({len(self.d)} rows); {self.neighbour.description}"


def _changed(d: Dataset, d_prime: Dataset) -> Record:
    if len(d_prime) > len(d):
        return record_of(d_prime, len(d_prime) - 1)
    for i in range(len(d_prime)):
        if record_of(d, i) != record_of(d_prime, i):
            return record_of(d_prime, i) if len(d_prime) == len(d) else record_of(d, i)
    return record_of(d, len(d) - 1)


def size_thresholds(params: Mapping[str, object]) -> Tuple[int, ...]:
    """A learner's size thresholds: its int parameters named ``min_...`` or ``k`` (a node at them may behave apart)."""
    return tuple(sorted({
        v for k, v in params.items()
        if (k.startswith("min_") or k == "k") and isinstance(v, int) and not isinstance(v, bool) and 2 <= v <= 500
    }))


def _pair(shape: str, d: Dataset, neighbour: Neighbour) -> Pair:
    return Pair(shape, d, neighbour, _changed(d, neighbour.d_prime))


def _grow(d: Dataset, record: Record, relation: Relation, rng: random.Random) -> Neighbour:
    """``record`` added (add-remove), or put in place of a random row (substitute)."""
    if relation is Relation.ADD_REMOVE:
        return addition(d, record)
    return substitution(d, rng.randrange(len(d)), record)


def _shrink(d: Dataset, i: int, relation: Relation, other: Record) -> Neighbour:
    """Row ``i`` removed (add-remove), or replaced by ``other`` (substitute)."""
    return removal(d, i) if relation is Relation.ADD_REMOVE else substitution(d, i, other)


def candidate_pairs(
    data: Dataset, rows: Sequence[int], relation: Relation, sizes: Sequence[int], seed: int, random_pairs: int = 6
) -> List[Pair]:
    """Pairs in the shapes that expose the published flaws (drawn with their own stream of ``seed``).

    * ``sample``: ``D`` = ``rows`` of ``data``; neighbours: removals and
      additions of data rows (substitutions under substitute);
    * ``pure``: rows of one class only (200, or ten times the largest size
      threshold when that is more, so that nodes below the root still hold
      more rows than it), and a record of another class joins (a class
      absent from every node, a pure node that stops growing, a lone record
      in a large leaf);
    * ``size s`` for each s in ``sizes`` (the learner's size thresholds):
      s rows, and one leaves or joins (a node at its threshold);
    * ``bound``: the sample, and a record with every continuous value at the
      public lower (then upper) bound joins; ``near bound``: the same just
      inside the bounds (1/997 of the range away, a value no binary grid
      has: a float computed from it shows in its last bits);
    * ``one value``: rows sharing the most common value of a categorical
      attribute, and a record with another value joins.
    """
    rng = random.Random(f"refdp-audit-shapes-{seed}")
    schema = data.schema
    d = data.subset(list(rows))
    outside = [i for i in range(len(data)) if i not in set(rows)] or list(range(len(data)))
    pairs: List[Pair] = []
    for k in range(random_pairs):
        record = record_of(data, rng.choice(outside))
        if relation is Relation.ADD_REMOVE and k % 2 == 0:
            pairs.append(_pair("sample", d, removal(d, rng.randrange(len(d)))))
        elif record != record_of(d, 0) or relation is Relation.ADD_REMOVE:
            pairs.append(_pair("sample", d, _grow(d, record, relation, rng)))
    by_class: Dict[int, List[int]] = {}
    for i, label in enumerate(data.labels):
        by_class.setdefault(label, []).append(i)
    labels = sorted(by_class, key=lambda c: (-len(by_class[c]), c))
    if len(labels) >= 2:
        major, minor = by_class[labels[0]], by_class[labels[1]]
        wanted = max([len(rows), _PURE_ROWS] + [10 * s for s in sizes])
        pure = data.subset(sorted(rng.sample(major, min(wanted, len(major)))))
        pairs.append(_pair("pure", pure, _grow(pure, record_of(data, rng.choice(minor)), relation, rng)))
    for size in sorted(set(s for s in sizes if 2 <= s <= len(data))):
        sized = data.subset(sorted(rng.sample(range(len(data)), size)))
        other = record_of(data, rng.choice(outside))
        pairs.append(_pair(f"size {size}", sized, _shrink(sized, rng.randrange(size), relation, other)))
        pairs.append(_pair(f"size {size}", sized, _grow(sized, other, relation, rng)))
    continuous = [a for a, attribute in enumerate(schema.attributes) if isinstance(attribute, ContinuousAttribute)]
    if continuous:
        base = record_of(d, rng.randrange(len(d)))
        for side, inside in (("lower", 0.0), ("upper", 0.0), ("lower", 1 / 997), ("upper", -1 / 997)):
            values = tuple(_at(schema.attributes[a], side, inside) if a in continuous else v
                           for a, v in enumerate(base.values))
            shape = f"{'near ' if inside else ''}bound ({side})"
            pairs.append(_pair(shape, d, _grow(d, Record(values, base.label), relation, rng)))
    categorical = [a for a, attribute in enumerate(schema.attributes) if isinstance(attribute, CategoricalAttribute)]
    if categorical:
        a = categorical[0]
        column = data.column(a)
        common = max(set(column), key=lambda v: (list(column).count(v), -v))
        same = [i for i in range(len(data)) if column[i] == common]
        different = [i for i in range(len(data)) if column[i] != common]
        if same and different:
            single = data.subset(sorted(rng.sample(same, min(len(rows), len(same)))))
            joiner = record_of(data, rng.choice(different))
            pairs.append(_pair("one value", single, _grow(single, joiner, relation, rng)))
    return pairs


def _at(attribute: object, side: str, inside: float) -> float:
    assert isinstance(attribute, ContinuousAttribute)
    return getattr(attribute, side) + inside * (attribute.upper - attribute.lower)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Choice:
    """What the pilot chose: a pair, a view and an event, and what the choice cost."""

    pair: Pair
    view: str
    event: Event
    direction: str
    projected_bound: float
    pilot_hits: Tuple[int, int]
    pilot_runs_per_side: int
    pilot_runs: int
    pilot_seconds: float
    considered: int


@dataclass(frozen=True)
class _Runs:
    """Train on one data set for a list of seeds and reduce each model by every view (picklable)."""

    learner: Callable[[Dataset, RandomSource], TreeModel]
    data: Dataset
    views: Tuple[Tuple[str, Callable[[TreeModel], Hashable]], ...]

    def __call__(self, seeds: Sequence[int]) -> List[Dict[str, Hashable]]:
        out = []
        for seed in seeds:
            model = self.learner(self.data, random.Random(seed))
            out.append({name: reduce(model) for name, reduce in self.views})
        return out


def _outcomes(
    executor: Optional[concurrent.futures.Executor], runs: _Runs, seeds: List[int], chunk: int
) -> List[Dict[str, Hashable]]:
    pieces = [seeds[i : i + chunk] for i in range(0, len(seeds), chunk)]
    if executor is None:
        return [o for piece in pieces for o in runs(piece)]
    return [o for future in [executor.submit(runs, p) for p in pieces] for o in future.result()]


def search(
    learner: Callable[[Dataset, RandomSource], TreeModel],
    pairs: Sequence[Pair],
    *,
    views: Sequence[str] = VIEWS,
    test_runs: int,
    alpha: float,
    delta: float,
    seed: int,
    pilot_runs: int = 40,
    rounds: int = 3,
    executor: Optional[concurrent.futures.Executor] = None,
    chunk: int = 50,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Choice:
    """The (pair, view, event) with the largest bound projected for ``test_runs`` runs per side.

    Round 1 runs every pair ``pilot_runs`` times per side; each later round
    keeps the better half of the (pair, view) choices and runs their pairs
    twice as often, on fresh pilot seeds (``random.Random("refdp-audit-search-"
    + seed)``, a stream separate from the audit's).  Every run's model is
    reduced by every view, so a round costs runs per pair, not per view.

    Why 12 parameters: the learner and the candidate pairs, then the search's settings
    (views, runs, alpha, delta, seed, rounds, executor, chunk, progress), keyword-only.
    """
    if not pairs:
        raise InvalidParameterError("the search needs at least one candidate pair")
    started = time.perf_counter()
    stream = random.Random(f"refdp-audit-search-{seed}")
    alive: List[Tuple[int, str]] = [(p, v) for p in range(len(pairs)) for v in views]
    per_side, spent, considered = pilot_runs, 0, len(alive)
    scored: List[Tuple[float, int, str, Event, str, Tuple[int, int]]] = []
    for round_index in range(rounds):
        wanted = sorted({p for p, _ in alive})
        total = 2 * per_side * len(wanted)
        scored = []
        for k, p in enumerate(wanted):
            pair = pairs[p]
            reducers = tuple((name, view(name, pair.probe)) for name in views if (p, name) in alive)
            seeds = [stream.getrandbits(64) for _ in range(2 * per_side)]
            first = _outcomes(executor, _Runs(learner, pair.d, reducers), seeds[:per_side], chunk)
            second = _outcomes(executor, _Runs(learner, pair.neighbour.d_prime, reducers), seeds[per_side:], chunk)
            spent += 2 * per_side
            if progress is not None:
                progress((k + 1) * 2 * per_side, total)
            for name, _ in reducers:
                xs, ys = [o[name] for o in first], [o[name] for o in second]
                scored.append(_score(p, name, xs, ys, test_runs, alpha, delta))
        scored.sort(key=lambda s: (-s[0], s[1], VIEWS.index(s[2])))
        if round_index == rounds - 1 or len(scored) <= 1:
            break
        alive = [(p, name) for _, p, name, _, _, _ in scored[: max(1, len(scored) // 2)]]
        per_side *= 2
    bound, p, name, event, direction, hits = scored[0]
    return Choice(
        pair=pairs[p], view=name, event=event, direction=direction, projected_bound=bound, pilot_hits=hits,
        pilot_runs_per_side=per_side, pilot_runs=spent, pilot_seconds=time.perf_counter() - started,
        considered=considered,
    )


def _score(
    p: int, name: str, xs: List[Hashable], ys: List[Hashable], test_runs: int, alpha: float, delta: float
) -> Tuple[float, int, str, Event, str, Tuple[int, int]]:
    numeric = name in NUMERIC_VIEWS and all(
        isinstance(o, (int, float)) and not isinstance(o, bool) and not math.isnan(o) for o in xs + ys
    )
    choose = _best_threshold_event if numeric else _best_set_event
    bound, event, direction = choose(xs, ys, test_runs, alpha, delta, "combined")
    hits_d = sum(1 for o in xs if o in event)
    hits_d_prime = sum(1 for o in ys if o in event)
    hits = (hits_d, hits_d_prime) if direction == D_OVER_D_PRIME else (hits_d_prime, hits_d)
    return bound, p, name, event, direction, hits
