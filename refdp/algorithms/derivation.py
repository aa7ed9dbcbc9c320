"""Re-deriving a model's charges from its public parts, and comparing them with its receipt.

A receipt lists what a training run says it spent.  Whether that is what
the algorithm spends is a question about the algorithm's plan, and the
plan is a function of public values only: the algorithm, its variant and
every parameter, the schema, the relation, the budget, and the values the
training run released that the plan reads (a noisy size N~, stored in the
model's ``plan_inputs``; the trees' structure, which is in the model).  So
each algorithm has a ``derive`` function (:class:`~refdp.algorithms.registry.Derive`)
that re-issues its plan's charges into a fresh ledger, with the very
functions its training run uses (the mechanisms' charge functions, the
learner's own planning code, :func:`replay_size` for a released noisy size),
and :func:`charge_difference` names the first charge where a receipt differs
(claim ``receipt-rederivation``).

Structural checks ride along: a derivation refuses, with
:func:`refuse`, a model whose trees the algorithm cannot release (a
threshold off its public grid, a split on an attribute outside the schema's
domain, a tree deeper than its plan, a weight the voting rule does not give).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Dict, Iterator, List, NoReturn, Optional, Sequence, Tuple

from refdp.data.grid import Threshold, ThresholdGrid
from refdp.engine import REFERENCE, Engine
from refdp.errors import ModelError, PrivacyError
from refdp.data.missing import MissingPolicy
from refdp.privacy import Charge, Ledger, Partition
from refdp.privacy.ledger import new_charge
from refdp.rng import RandomSource
from refdp.tree import Leaf, Node, TreeModel, children_of

__all__ = [
    "model_budget",
    "fresh_ledger",
    "MISSING_VALUE_RULE",
    "missing_value_label",
    "missing_value_charge",
    "replay_size",
    "NoRandomness",
    "NO_RANDOMNESS",
    "refuse",
    "charge_difference",
    "leak_difference",
    "where",
    "check_trees",
    "check_weights",
    "check_voting",
    "integer_counts",
    "start_single_tree",
    "grid_index",
    "tree_depth",
    "n_leaves",
    "receipt_children",
    "check_plan_inputs",
    "NOISY_SIZE",
]

NOISY_SIZE = "noisy_size"
"""The plan input that holds the released noisy size N~ of the data."""

_FIELDS = (
    "label", "mechanism", "partition", "cells", "epsilon", "delta", "sensitivity", "claims", "sound",
    "data_independent", "note",
)


def refuse(reason: str) -> NoReturn:
    """Raise the ModelError of a model whose public parts are not what its algorithm releases.

    >>> refuse("tree 0 has weight -1.0")
    Traceback (most recent call last):
    refdp.errors.ModelError: tree 0 has weight -1.0
    """
    raise ModelError(reason)


def model_budget(model: TreeModel) -> Fraction:
    """The total epsilon the model was trained with (for a model built in code without one, its receipt's total).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model_budget(train("noisy-majority", load("vote"), "1/2", rng=1))
    Fraction(1, 2)
    """
    return model.receipt.epsilon if model.budget is None else model.budget


MISSING_VALUE_RULE = "missing-value-rule"
"""The mechanism name of the receipt entry that records the data's missing-value policy."""


def missing_value_label(policy: MissingPolicy) -> str:
    """The label of the receipt entry recording ``policy``.

    >>> missing_value_label(MissingPolicy("drop", "drop"))
    'missing values: a row with a missing categorical value is dropped; a row with a missing continuous value is dropped'
    """
    return f"missing values: {policy.describe()}"


def missing_value_charge(policy: MissingPolicy) -> Charge:
    """The receipt entry of ``policy``: epsilon 0 on the whole data, citing the claims that keep a guarantee.

    The policy (:mod:`refdp.data.missing`) is a rule applied to each row
    before training (claims ``missing-values-public-rule`` and
    ``missing-values-drop``).  Training records it whenever the data was read
    with a policy, whether or not any value was missing (which would
    otherwise show in the receipt), and a derivation re-issues it from the
    model's ``missing``.

    >>> missing_value_charge(MissingPolicy()).epsilon, missing_value_charge(MissingPolicy()).claims
    (Fraction(0, 1), ('missing-values-public-rule',))
    """
    return new_charge(
        label=missing_value_label(policy), mechanism=MISSING_VALUE_RULE, epsilon=0, sensitivity=None,
        claims=policy.claims, note="applied to every row read, for training and for prediction",
    )


def fresh_ledger(model: TreeModel) -> Ledger:
    """An empty ledger under the model's relation that already records its schema's leaks and its
    missing-value policy (as training does).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> fresh_ledger(train("noisy-majority", load("vote"), 1, rng=1)).charges
    ()
    """
    ledger = Ledger(model.receipt.relation)
    for leak in model.schema.leaks:
        ledger.record_leak(leak)
    if model.missing is not None:
        ledger.record(missing_value_charge(model.missing))
    return ledger


class NoRandomness:
    """A random source that refuses every draw: a derivation reads released values, never fresh randomness."""

    def _refuse(self) -> NoReturn:
        raise PrivacyError("a derivation tried to draw randomness; it must read the model's released values only")

    def random(self) -> float:
        self._refuse()

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        self._refuse()

    def getrandbits(self, k: int) -> int:
        self._refuse()


NO_RANDOMNESS: RandomSource = NoRandomness()


def replay_size(model: TreeModel) -> Engine:
    """An engine whose discrete Laplace sampler returns the model's released noisy size N~.

    The learners' planning code draws N~ with
    :func:`~refdp.mechanisms.discrete_laplace_mechanism` (``value +
    sampler(...)``); called with the value 0 and this engine, it records the
    very charge training recorded and returns the N~ training released, so
    the plan that follows is the training run's.  A model that states no
    N~ gets a sampler that refuses (its plan must not have drawn one).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> from refdp.mechanisms import discrete_laplace_mechanism
    >>> model = train("thesis-tree", load("vote"), 1, rng=1)
    >>> discrete_laplace_mechanism(0, epsilon="1/20", rng=NO_RANDOMNESS, ledger=Ledger(), label="N~",
    ...                            sampler=replay_size(model).discrete_laplace) == model.plan_inputs["noisy_size"]
    True
    """
    noisy = model.plan_inputs.get(NOISY_SIZE)

    def sampler(scale: Fraction, rng: RandomSource) -> int:
        if noisy is None:
            refuse(f"the plan draws a noisy size of the data, but the model states no plan input {NOISY_SIZE!r}")
        return noisy

    return dataclasses.replace(REFERENCE, name="replay", discrete_laplace=sampler)


def where(charge: Charge) -> str:
    """The partition of ``charge`` as the receipt command prints it.

    >>> from refdp.mechanisms import count_charge
    >>> where(count_charge(epsilon=1, label="N_T", partition=("split=a=x",))), where(count_charge(epsilon=1, label="N"))
    ('split=a=x', 'the whole data')
    """
    return "/".join(charge.partition) if charge.partition else "the whole data"


def _shown(value: object) -> str:
    return repr(value) if isinstance(value, (str, tuple, bool)) or value is None else str(value)


def charge_difference(expected: Sequence[Charge], stated: Sequence[Charge]) -> Optional[str]:
    """None when ``stated`` is ``expected``; else one line naming the first charge and field that differ.

    >>> from refdp.mechanisms import count_charge
    >>> plan = (count_charge(epsilon="1/2", label="size"),)
    >>> charge_difference(plan, (count_charge(epsilon="1/3", label="size"),))
    "charge 0 ('size' on the whole data) states epsilon 1/3 where the plan gives 1/2"
    """
    for index, (want, got) in enumerate(zip(expected, stated)):
        if want != got:
            for name in _FIELDS:
                mine, theirs = getattr(want, name), getattr(got, name)
                if mine != theirs:
                    return (
                        f"charge {index} ({got.label!r} on {where(got)}) states {name} {_shown(theirs)} where the "
                        f"plan gives {_shown(mine)}"
                    )
    if len(stated) < len(expected):
        missing = expected[len(stated)]
        return (
            f"it has {len(stated)} charges where the plan makes {len(expected)}: the plan's charge {len(stated)} "
            f"({missing.label!r} on {where(missing)}) is missing"
        )
    if len(stated) > len(expected):
        extra = stated[len(expected)]
        return (
            f"it has {len(stated)} charges where the plan makes {len(expected)}: charge {len(expected)} "
            f"({extra.label!r} on {where(extra)}) is not in the plan"
        )
    return None


def leak_difference(expected: Sequence[str], stated: Sequence[str]) -> Optional[str]:
    """None when the leaks are the plan's; else one line naming the first that differs.

    >>> leak_difference(["schema read off the data"], [])
    "the plan records the leak 'schema read off the data', which the receipt does not state"
    """
    if tuple(expected) == tuple(stated):
        return None
    for index, (want, got) in enumerate(zip(expected, stated)):
        if want != got:
            return f"leak {index} is {got!r} where the plan records {want!r}"
    if len(stated) < len(expected):
        return f"the plan records the leak {expected[len(stated)]!r}, which the receipt does not state"
    return f"the receipt states the leak {stated[len(expected)]!r}, which the plan does not record"


def check_plan_inputs(model: TreeModel, expected: Dict[str, Optional[int]]) -> None:
    """The model's plan inputs are exactly ``expected`` (an entry None: not drawn, so not stated).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> check_plan_inputs(train("noisy-majority", load("vote"), 1, rng=1), {"noisy_size": 400})
    Traceback (most recent call last):
    refdp.errors.ModelError: the model's plan input 'noisy_size' is None where the plan reads 400
    """
    wanted = {name: value for name, value in expected.items() if value is not None}
    for name in sorted(set(model.plan_inputs) | set(wanted)):
        if model.plan_inputs.get(name) != wanted.get(name):
            if name not in wanted:
                refuse(f"the model states the plan input {name!r}, which {model.algorithm}'s plan does not read")
            refuse(f"the model's plan input {name!r} is {model.plan_inputs.get(name)!r} where the plan reads {wanted[name]!r}")


def check_trees(model: TreeModel, count: int) -> None:
    """The model has exactly ``count`` trees.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> check_trees(train("noisy-majority", load("vote"), 1, rng=1), 2)
    Traceback (most recent call last):
    refdp.errors.ModelError: the model has 1 trees where noisy-majority's plan makes 2
    """
    if len(model.trees) != count:
        refuse(f"the model has {len(model.trees)} trees where {model.algorithm}'s plan makes {count}")


def check_weights(model: TreeModel, expected: Sequence[float]) -> None:
    """The trees' weights are exactly ``expected`` (what the algorithm's voting rule gives them).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> check_weights(train("noisy-majority", load("vote"), 1, rng=1), [1.0])
    """
    for index, (weight, want) in enumerate(zip(model.weights, expected)):
        if weight != want:
            refuse(f"tree {index} has weight {weight!r} where {model.algorithm} gives it {want!r}")
    if len(model.weights) != len(expected):
        refuse(f"the model has {len(model.weights)} weights where {model.algorithm} gives {len(expected)}")


def check_voting(model: TreeModel, expected: str) -> None:
    """The model votes by ``expected``.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> check_voting(train("noisy-majority", load("vote"), 1, rng=1), "vote")
    """
    if model.voting != expected:
        refuse(f"the model votes by {model.voting!r} where {model.algorithm} with these parameters votes by {expected!r}")


def _nodes(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children_of(current)))


def integer_counts(model: TreeModel, what: str) -> None:
    """Every released count of every tree is a whole number (what discrete Laplace noise or a tally releases).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> integer_counts(train("noisy-majority", load("vote"), 1, rng=1), "discrete Laplace counts")
    """
    for index, tree in enumerate(model.trees):
        for node in _nodes(tree):
            counts = node.counts
            if counts is not None and any(not float(c).is_integer() for c in counts):
                refuse(f"tree {index} releases the counts {list(counts)}, but {model.algorithm}'s {what} are whole numbers")


def start_single_tree(model: TreeModel) -> Tuple[Fraction, Ledger]:
    """The checks of a greedy learner's single tree, then its budget and a fresh ledger.

    One tree of weight 1 that votes by its leaf, with whole-number (discrete
    Laplace) counts: what diffpid3, dpea and thesis-tree release.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> budget, ledger = start_single_tree(train("thesis-tree", load("vote"), 1, rng=1))
    >>> budget, ledger.total()
    (Fraction(1, 1), (Fraction(0, 1), Fraction(0, 1)))
    """
    check_trees(model, 1)
    check_weights(model, (1.0,))
    check_voting(model, "vote")
    integer_counts(model, "discrete Laplace class counts")
    return model_budget(model), fresh_ledger(model)


def tree_depth(node: Node) -> int:
    """The number of splits on the longest root-to-leaf path.

    >>> from refdp.tree import ValueSplit
    >>> tree_depth(ValueSplit(0, 1, Leaf((1, 0)), ValueSplit(1, 0, Leaf((0, 1)), Leaf((2, 2)))))
    2
    """
    return max((1 + tree_depth(child) for child in children_of(node)), default=0)


def n_leaves(node: Node) -> int:
    """The number of leaves below ``node``.

    >>> from refdp.tree import ValueSplit
    >>> n_leaves(ValueSplit(0, 1, Leaf((1, 0)), Leaf((0, 1))))
    2
    """
    return sum(1 for n in _nodes(node) if isinstance(n, Leaf))


_GRID_INDEX: Dict[ThresholdGrid, Dict[Threshold, int]] = {}


def grid_index(grid: ThresholdGrid, threshold: Threshold, where: str) -> int:
    """k with ``grid.point(k) == threshold``, or a refusal naming ``where`` the threshold is.

    >>> grid = ThresholdGrid(Fraction(0), Fraction(1), 4)
    >>> grid_index(grid, 0.5, "the root")
    2
    """
    index = _GRID_INDEX.get(grid)
    if index is None:
        if len(_GRID_INDEX) > 64:
            _GRID_INDEX.clear()
        index = _GRID_INDEX[grid] = {point: k for k, point in enumerate(grid.points, 1)}
    k = index.get(threshold)
    if k is None:
        refuse(
            f"{where} has the threshold {threshold}, which is not a point of its public grid "
            f"({grid.cells} cells of [{grid.lower}, {grid.upper}])"
        )
    return k


def receipt_children(charges: Sequence[Charge], path: Partition, key: str) -> List[str]:
    """The cells ``key=<condition>`` just below ``path`` in ``charges``' partitions, in order of first appearance.

    The structure of a subtree that the model no longer holds (pruned, or a
    boosting round left out of the vote) is released by the receipt's
    partitions; a derivation reads it from there.

    >>> from refdp.mechanisms import count_charge
    >>> charges = [count_charge(epsilon=1, label="N_T", partition=p) for p in [(), ("split=a=x",), ("split=a!=x",)]]
    >>> receipt_children(charges, (), "split")
    ['a=x', 'a!=x']
    """
    seen: Dict[str, None] = {}
    depth = len(path)
    prefix = f"{key}="
    for charge in charges:
        partition = charge.partition
        if len(partition) > depth and partition[:depth] == path and partition[depth].startswith(prefix):
            seen.setdefault(partition[depth][len(prefix):], None)
    return list(seen)

