"""The replay audit of a learner (what ``audit --method replay`` runs): many pairs, one replay each.

:func:`audit_replay` draws pairs of neighbouring data sets in three kinds,
in turn, and replays the learner on each (:func:`refdp.audit.replay.replay_pair`,
a fresh seed per pair) until one fails or ``pairs`` have passed:

* the shaped pairs of :func:`refdp.audit.search.candidate_pairs` (a pure
  data set and a record of another class, a node at a size threshold, a
  record at a public bound, a column with one value), each again with a new
  seed whenever its turn comes back;
* random neighbours of ``rows`` rows drawn from the data: a row removed, a
  row of the data added, or a record of the schema's universe added (under
  substitute: a row replaced);
* small data sets of 1 to 5 rows, rows of the data and records drawn from
  the schema's universe in turn, with a random neighbour;
* sized data sets, of a size drawn log-uniformly from 1 to 600 rows, with
  a random neighbour: a branch on a true size flips only at its threshold,
  and these pairs put some pairs there (and make deeper trees);
* steered pairs (every tenth): a random pair replayed with every discrete
  Laplace output on D forced :data:`STEER_SHIFT` above its true count
  (:func:`steer_high`), a path of positive probability that the draws
  would rarely take: nodes that look large split down to a few rows.

A failure is a counterexample to the learner's privacy argument: the
report gives the pair, its seed and the first violation, and the command
exits 1.  A pass on N pairs says that N paths, one per seed, behaved as
the argument says (``proofs/replay-audit.md``).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Sequence, Tuple

from refdp.audit.neighbours import dataset_of, random_neighbour, record_of, universe_record, universe_size
from refdp.audit.pair import Neighbour, addition, removal, substitution
from refdp.audit.replay import ReplayReport, replay_pair
from refdp.mechanisms.recording import Call, DiscreteLaplaceLaw, Finding
from refdp.audit.search import Pair, candidate_pairs
from refdp.audit.timing import PhaseProgress
from refdp.data import Dataset
from refdp.errors import DataError, InvalidParameterError, SchemaError
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = ["DEFAULT_PAIRS", "ReplayAudit", "audit_replay", "replay_pairs"]

DEFAULT_PAIRS = 2000
"""Pairs ``audit --method replay`` replays unless ``--pairs`` says otherwise."""

_SMALLEST, _LARGEST = 1, 5
_SIZED = 600  # the largest sized pair: a threshold on a node's or a data set's size below it gets pairs at it


@dataclass(frozen=True)
class ReplayAudit:
    """What to replay: ``learner`` on pairs drawn from ``data`` (``rows`` for the random kind), under ``relation``.

    ``neighbour`` fixes the pair (``D`` = the rows, ``D'`` given): every
    replay is then of that pair, each with its own seed.
    """

    learner: Callable[[Dataset, RandomSource], TreeModel]
    name: str
    description: str
    params: Mapping[str, object]
    data: Dataset
    data_name: str
    rows: Tuple[int, ...]
    epsilon: Fraction
    relation: Relation
    seed: int
    pairs: int = DEFAULT_PAIRS
    sizes: Tuple[int, ...] = ()
    neighbour: Optional[Neighbour] = None


def _from_schema(data: Dataset, size: int, rng: random.Random) -> Dataset:
    """``size`` records drawn from the schema's universe (continuous values at their bounds and midpoints)."""
    schema = data.schema
    total = universe_size(schema)
    return dataset_of(schema, [universe_record(schema, rng.randrange(total)) for _ in range(size)])


def _random_pair(
    data: Dataset, size: int, relation: Relation, rng: random.Random, shape: str, schema_only: bool = False
) -> Pair:
    if schema_only:
        d = _from_schema(data, size, rng)
    else:
        d = data.subset(sorted(rng.sample(range(len(data)), min(size, len(data)))))
    kind = rng.randrange(3)
    if relation is Relation.ADD_REMOVE and kind == 0 and len(d) > 1:
        neighbour = removal(d, rng.randrange(len(d)))
    elif kind == 1 or (relation is Relation.SUBSTITUTE and kind == 0):
        record = record_of(data, rng.randrange(len(data)))
        if relation is Relation.ADD_REMOVE:
            neighbour = addition(d, record)
        else:
            i = rng.randrange(len(d))
            if record == record_of(d, i):
                description, d_prime = random_neighbour(d, relation, rng)
                neighbour = Neighbour(description, d_prime)
            else:
                neighbour = substitution(d, i, record)
    else:
        description, d_prime = random_neighbour(d, relation, rng)
        neighbour = Neighbour(description, d_prime)
    if len(neighbour.d_prime) == 0:
        neighbour = addition(d, record_of(data, rng.randrange(len(data))))
    return Pair(shape, d, neighbour, record_of(d, 0))


def _sized(data: Dataset, rng: random.Random) -> int:
    """A size drawn log-uniformly from 1 to min(|data|, 600): every size threshold of a learner gets pairs."""
    largest = min(len(data), _SIZED)
    return min(largest, max(1, int(math.exp(rng.uniform(0.0, math.log(largest + 1))))))


def replay_pairs(
    data: Dataset, rows: Sequence[int], relation: Relation, sizes: Sequence[int], seed: int
) -> Iterator[Pair]:
    """An endless stream of pairs: shaped, random of ``len(rows)`` rows, small (1-5 rows), sized, in turn."""
    shaped = candidate_pairs(data, rows, relation, sizes, seed)
    rng = random.Random(f"refdp-replay-pairs-{seed}")
    k = 0
    while True:
        yield shaped[k % len(shaped)]
        yield _random_pair(data, len(rows), relation, rng, "sample")
        yield _random_pair(data, rng.randint(_SMALLEST, _LARGEST), relation, rng, "small", schema_only=k % 2 == 1)
        yield _random_pair(data, _sized(data, rng), relation, rng, "sized")
        if k % 2 == 0:  # a steered run grows the deepest tree its plan allows: the dearest pairs, every tenth
            pair = _random_pair(data, len(rows), relation, rng, "sample")
            yield Pair("steered " + pair.shape, pair.d, pair.neighbour, pair.probe)
        k += 1


STEER_SHIFT = 200
"""What a steered replay adds to every discrete Laplace output on D: noisy counts far above the true ones."""


def steer_high(call: Call) -> Any:
    """The output of ``call`` moved :data:`STEER_SHIFT` above its input, for discrete Laplace calls (else None).

    Any such output has positive probability, so the privacy argument must
    hold on the path it opens: nodes that look large and split down to a few
    true rows, plans that choose their deepest tree.

    >>> from refdp.mechanisms.recording import Scalar, DiscreteLaplaceLaw
    >>> from refdp.privacy import Relation
    >>> steer_high(Call("discrete-laplace", "n", (), Fraction(1), Fraction(0), Fraction(1), Relation.ADD_REMOVE,
    ...                 (), (), Scalar(7), DiscreteLaplaceLaw((7,), Fraction(1), False)))
    207
    """
    law = call.law
    if not isinstance(law, DiscreteLaplaceLaw):
        return None
    shifted = [c + STEER_SHIFT for c in law.centres]
    return shifted if law.vector else shifted[0]


def _model_json(model: TreeModel) -> Any:
    return model.to_json()


def audit_replay(request: ReplayAudit, progress: Optional[PhaseProgress] = None) -> Dict[str, Any]:
    """Replay ``request``'s learner on its pairs; the report (the fields ``audit --json`` prints).

    ``progress`` hears of the ``"replay"`` pairs.
    """
    if isinstance(request.pairs, bool) or not isinstance(request.pairs, int) or request.pairs < 1:
        raise InvalidParameterError(f"--pairs must be a positive integer, got {request.pairs!r}")
    started = time.perf_counter()
    d = request.data.subset(list(request.rows))
    model = request.learner(d, random.Random(request.seed))
    over = _over_budget(model, request.epsilon)
    stream: Iterator[Pair]
    if request.neighbour is not None:
        given = Pair("given", d, request.neighbour, record_of(d, 0))
        stream = iter(lambda: given, None)
    else:
        stream = replay_pairs(request.data, request.rows, request.relation, request.sizes, request.seed)
    seeds = random.Random(f"refdp-replay-seeds-{request.seed}")
    tick = progress("replay") if progress is not None else None
    checked = calls = skipped = 0
    kinds: Dict[str, int] = {}
    failure: Optional[Tuple[Pair, int, ReplayReport]] = None
    while checked < request.pairs and over is None:
        pair = next(stream)
        seed = seeds.getrandbits(32)
        try:
            report = replay_pair(
                request.learner, pair.d, pair.neighbour.d_prime, seed=seed, relation=request.relation,
                to_json=_model_json, steer=steer_high if pair.shape.startswith("steered") else None,
            )
        except (InvalidParameterError, DataError, SchemaError):
            skipped += 1  # the learner refuses D itself (too few rows for its parameters): not a pair it runs on
            if skipped > 10 * request.pairs:
                raise
            continue
        checked += 1
        calls += report.calls
        kind = "steered" if pair.shape.startswith("steered") else pair.shape.split(" (")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
        if tick is not None and (checked % 10 == 0 or checked == request.pairs):
            tick(checked, request.pairs)
        if not report.ok:
            failure = (pair, seed, report)
            break
    receipt = model.receipt
    fields: Dict[str, Any] = {
        "algorithm": request.name,
        "description": request.description,
        "params": {k: v for k, v in sorted(request.params.items())},
        "data": request.data_name,
        "rows": len(d),
        "epsilon": str(request.epsilon),
        "delta": str(receipt.delta),
        "relation": request.relation.value,
        "seed": request.seed,
        "method": "replay",
        "receipt": f"epsilon={receipt.epsilon} delta={receipt.delta} (level {receipt.level})",
        "pairs": checked,
        "pair_kinds": kinds,
        "skipped": skipped,
        "calls": calls,
        "wall_time": time.perf_counter() - started,
    }
    if over is not None:
        fields.update(
            verdict="refuted", neighbour="(none: the receipt of one model on D)", violation=f"budget: {over.line()}",
            violation_kind="budget", call=None, where="the receipt", field=over.field, declared=over.declared,
            actual=over.actual,
        )
        return fields
    if failure is None:
        fields.update(verdict="not refuted", neighbour=f"{checked} pairs (shaped, random, small, sized, steered)")
        return fields
    pair, seed, report = failure
    assert report.first is not None
    violation = report.first
    fields.update(
        verdict="refuted",
        neighbour=pair.describe(),
        pair_seed=seed,
        violation=report.violations[0],
        violation_kind=violation.kind,
        call=None if violation.index is None else violation.index + 1,
        where=violation.where,
        field=violation.finding.field,
        declared=violation.finding.declared,
        actual=violation.finding.actual,
    )
    return fields


def _over_budget(model: TreeModel, epsilon: Fraction) -> Optional[Finding]:
    """The receipt's composed epsilon when it exceeds the claim (a learner that spends more than it was given)."""
    if model.receipt.epsilon > epsilon:
        return Finding("the receipt's composed epsilon", f"<= the claimed {epsilon}", str(model.receipt.epsilon))
    return None


def describe_kinds(kinds: Mapping[str, int]) -> str:
    """``{"pure": 3, ...}`` in words."""
    return ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1])) or "none"

