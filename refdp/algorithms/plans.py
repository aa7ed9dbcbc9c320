"""Every learner's budget plan, computed from public inputs alone and shown as a value.

A learner's plan (:data:`PLAN_FUNCTIONS`) is a frozen value its fit computes
once, before it reads a row: the depth (or rounds, or forest), the budget
each query gets and the noisy size that chose them.  :func:`learner_plan`
computes it for a schema, a budget, parameters, a relation and a given noisy
size N~ (the value a run's noisy size would take), with the learner's own
planning code, and returns the charges that planning records; this is what
``python3 -m refdp algorithms --plan A --epsilon E`` prints.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from importlib import import_module
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from refdp.algorithms.derivation import NO_RANDOMNESS
from refdp.algorithms.noisy_depth import DepthPlan
from refdp.algorithms.registry import Param, get_algorithm
from refdp.data import Schema
from refdp.engine import REFERENCE, Engine
from refdp.errors import InvalidParameterError
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource

__all__ = ["PLAN_FUNCTIONS", "READS_TOTAL", "Planned", "QueryEpsilon", "fixed_size", "learner_plan", "plan_lines"]

PLAN_FUNCTIONS: Dict[str, str] = {
    "diffpid3": "refdp.algorithms.plans:_diffpid3",
    "dp-adaboost": "refdp.algorithms.plans:_adaboost",
    "dpdf": "refdp.algorithms.plans:_dpdf",
    "dpea": "refdp.algorithms.plans:_dpea",
    "kanon-rdt": "refdp.algorithms.kanon_plans:kanon_plan",
    "private-rdt": "refdp.algorithms.private_rdt:forest_plan",
    "thesis-tree": "refdp.algorithms.plans:_thesis_tree",
}
"""Each learner's planning function, ``module:function``, called as
``plan(schema, epsilon, params, relation, size, engine, rng, ledger)``, except those of
:data:`READS_TOTAL`."""

READS_TOTAL = frozenset({"kanon-rdt"})
"""Learners whose planning function takes the noisy total N~ itself: ``plan(schema, epsilon, params,
relation, noisy_size)`` (their noisy histogram is charged by the fit, not by the plan)."""

PlanFunction = Callable[..., Any]


def fixed_size(noisy_size: Optional[int]) -> Engine:
    """An engine whose discrete Laplace sampler returns ``noisy_size`` (with the value 0 drawn around).

    >>> from refdp.mechanisms import discrete_laplace_mechanism
    >>> discrete_laplace_mechanism(0, epsilon=1, rng=NO_RANDOMNESS, ledger=Ledger(), label="N~",
    ...                            sampler=fixed_size(300).discrete_laplace)
    300
    """

    def sampler(scale: Fraction, rng: RandomSource) -> int:
        if noisy_size is None:
            raise InvalidParameterError("this plan draws a noisy size of the data: give the value it takes (N~)")
        return noisy_size

    return dataclasses.replace(REFERENCE, name="fixed-size", discrete_laplace=sampler)


@dataclass(frozen=True)
class Planned:
    """A learner's depth plan (:class:`~refdp.algorithms.noisy_depth.DepthPlan`) and what its fit derives from it."""

    sized: DepthPlan
    queries: Any


def _thesis_tree(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> Planned:
    from refdp.algorithms.thesis_tree_plan import depth_plan, tree_plan

    made = depth_plan(schema, epsilon, params, relation, size, engine, rng, ledger)
    return Planned(made, tree_plan(made, epsilon, params, relation))


def _dpea(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> Planned:
    from refdp.algorithms.dpea_plan import SOUND, selections_of, tree_plan

    made = tree_plan(schema, epsilon, params, relation, size, engine, rng, ledger)
    return Planned(made, selections_of(made, params, relation, SOUND))


def _diffpid3(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> Planned:
    from refdp.algorithms.diffpid3_plan import depth_plan, per_query_epsilon

    made = depth_plan(schema, epsilon, params, relation, size, engine, rng, ledger)
    return Planned(made, QueryEpsilon(per_query_epsilon(made.epsilon, made.depth, relation)))


def _dpdf(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> Planned:
    from refdp.algorithms.dpdf_plan import per_query_epsilon, tree_plan

    made = tree_plan(schema, epsilon, params, relation, size, engine, rng, ledger)
    return Planned(made, QueryEpsilon(per_query_epsilon(made.epsilon, int(params["n_trees"]), made.depth, relation)))


def _adaboost(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> Planned:
    from refdp.algorithms.adaboost_rounds import query_epsilon, round_plan

    made = round_plan(schema, epsilon, params, relation, size, engine, rng, ledger)
    if made.depth == 0:
        return Planned(made, None)
    return Planned(made, QueryEpsilon(query_epsilon(made.epsilon, made.depth, int(params["max_depth"]), relation)))


@dataclass(frozen=True)
class QueryEpsilon:
    """The epsilon every query of the plan gets."""

    per_query_epsilon: Fraction


def learner_plan(
    name: str, schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation,
    noisy_size: Optional[int],
) -> Tuple[Any, Ledger]:
    """The plan learner ``name`` makes when its noisy size comes out as ``noisy_size``, and what planning charged.

    ``params`` are resolved (:meth:`~refdp.algorithms.registry.AlgorithmSpec.resolve`).

    >>> from refdp.data import builtin_schema
    >>> params = get_algorithm("thesis-tree").resolve({})
    >>> plan, ledger = learner_plan("thesis-tree", builtin_schema("vote"), Fraction(1), params, Relation.ADD_REMOVE, 435)
    >>> plan.sized.depth, plan.sized.noisy_size, plan.queries.quality, ledger.total()
    (3, 435, 'max', (Fraction(1, 20), Fraction(0, 1)))
    """
    spec = get_algorithm(name)
    where = PLAN_FUNCTIONS.get(spec.name)
    if where is None:
        raise InvalidParameterError(
            f"{spec.name} plans nothing from a noisy size (its parameters are its plan); learners with a plan: "
            f"{', '.join(sorted(PLAN_FUNCTIONS))}"
        )
    module, _, function = where.partition(":")
    plan: PlanFunction = getattr(import_module(module), function)
    ledger = Ledger(relation)
    if spec.name in READS_TOTAL:
        return plan(schema, epsilon, params, relation, noisy_size), ledger
    return plan(schema, epsilon, params, relation, 0, fixed_size(noisy_size), NO_RANDOMNESS, ledger), ledger


def plan_lines(plan: Any) -> List[str]:
    """``field: value`` for every field of a plan value (nested plan values indented).

    >>> from refdp.algorithms.noisy_depth import DepthPlan
    >>> plan_lines(DepthPlan(3, Fraction(19, 20), 435))
    ['depth: 3', 'epsilon: 19/20', 'noisy_size: 435']
    """
    lines: List[str] = []
    for field in dataclasses.fields(plan):
        value = getattr(plan, field.name)
        if value is None and field.name == "queries":
            continue
        if value is None and "none" in field.metadata:
            lines.append(f"{field.name}: none: {field.metadata['none']}")
            continue
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            lines.append(f"{field.name}:")
            lines.extend("  " + line for line in plan_lines(value))
        elif isinstance(value, tuple):
            lines.append(f"{field.name}: {', '.join(str(v) for v in value)}")
        else:
            lines.append(f"{field.name}: {value}")
    return lines
