"""Planted faults: every faulty mechanism is refuted, every correct counterpart is not.

Exact checks are deterministic: the faulty mechanism's exact laws on the
case's pair have differing supports or a largest log-ratio above epsilon
plus :data:`refdp.audit.LOG_SLACK`; the correct one's stay within it.
Monte-Carlo checks use the trial counts of
:func:`refdp.audit.planted.monte_carlo_plan` (power 0.999 at false-alarm
1e-6 against the faulty mechanism), fixed seeds, and print every number.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import pickle
import random
from typing import Dict, Hashable, List, Set, Tuple

import pytest

from refdp.audit import LOG_SLACK, are_neighbours, power_guaranteed
from refdp.audit.planted import (
    PLANTED,
    PlantedCase,
    exact_check,
    get_case,
    monte_carlo_check,
    monte_carlo_plan,
    planted_names,
)
from refdp.audit.planted.choices import AttributeChoice, ThresholdChoice, attribute_table, max_score
from refdp.audit.planted.trees import SmallTree
from refdp.errors import InvalidParameterError
from refdp.scoring import max_operator
from refdp.stats import clopper_pearson

SEED = 20240611

# What each correct counterpart rests on, beyond the exact check itself.
CORRECT_CLAIMS: Dict[str, Tuple[str, ...]] = {
    "exponential-without-half": ("exponential-mechanism", "max-operator-sensitivity"),
    "laplace-scale-epsilon": ("laplace-mechanism",),
    "full-epsilon-every-depth": (
        "sequential-composition", "parallel-composition", "exponential-mechanism", "discrete-laplace-mechanism",
    ),
    "stop-on-true-count": ("sequential-composition", "exponential-mechanism", "discrete-laplace-mechanism"),
    "threshold-from-data": ("exponential-mechanism", "max-operator-sensitivity"),
    "exact-score-released": ("sequential-composition", "exponential-mechanism", "discrete-laplace-mechanism"),
    "noise-on-present-classes": ("parallel-composition", "discrete-laplace-mechanism"),
    "float-laplace-inverse-cdf": ("discrete-laplace-mechanism",),
    "sensitivity-understated": ("discrete-laplace-mechanism",),
}

# Faults whose violation is a support mismatch (no finite epsilon), and the exact
# log-ratio of the others where it has a closed form.
MISMATCH = {
    "stop-on-true-count", "threshold-from-data", "exact-score-released",
    "noise-on-present-classes", "float-laplace-inverse-cdf",
}
CLOSED_FORM = {
    "laplace-scale-epsilon": (2.0, 0.5),  # faulty Delta/scale = 1/0.5; correct = epsilon
    "sensitivity-understated": (1.175, 1.0),  # 47/40 epsilon; 47/47 epsilon
    "noise-on-present-classes": (math.inf, 1.0),
    "float-laplace-inverse-cdf": (math.inf, 1.0),
}


def test_catalogue_lists_every_fault_of_the_issue() -> None:
    assert planted_names() == list(PLANTED) == list(CORRECT_CLAIMS)
    assert len(PLANTED) == 9
    with pytest.raises(InvalidParameterError, match="unknown planted case 'nope'.*exponential-without-half"):
        get_case("nope")


@pytest.mark.parametrize("name", list(CORRECT_CLAIMS))
def test_each_pair_is_a_pair_of_neighbours_under_its_relation(name: str) -> None:
    case = PLANTED[name]
    assert are_neighbours(case.d, case.d_prime, case.relation), case.neighbour
    assert case.description and case.correction and case.exact_faulty and case.exact_correct


@pytest.mark.claim("exact-max-log-ratio")
@pytest.mark.parametrize("name", list(CORRECT_CLAIMS))
def test_exact_check_refutes_every_planted_fault(name: str) -> None:
    verdict = exact_check(PLANTED[name], "faulty")
    assert verdict.refuted, verdict.summary()
    assert verdict.max_log_ratio > verdict.epsilon + LOG_SLACK, verdict.summary()
    assert (verdict.only_in is not None) == (name in MISMATCH), verdict.summary()
    if name in CLOSED_FORM:
        expected = CLOSED_FORM[name][0]
        assert verdict.max_log_ratio == expected or abs(verdict.max_log_ratio - expected) < 1e-9, verdict.summary()


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.claim("exact-max-log-ratio", *c)) for n, c in CORRECT_CLAIMS.items()]
)
def test_exact_check_does_not_refute_the_correct_counterparts(name: str) -> None:
    verdict = exact_check(PLANTED[name], "correct")
    assert not verdict.refuted, verdict.summary()
    assert verdict.only_in is None and verdict.max_log_ratio <= verdict.epsilon + LOG_SLACK, verdict.summary()
    if name in CLOSED_FORM:
        # The tight ones: the check sees the whole epsilon, not less.
        assert abs(verdict.max_log_ratio - CLOSED_FORM[name][1]) < 1e-9, verdict.summary()


def test_full_budget_tree_leaks_epsilon_plus_its_shape() -> None:
    """The probe's leaf carries exactly epsilon_q; the shape adds its own log-ratio on top."""
    case = PLANTED["full-epsilon-every-depth"]
    faulty, correct = exact_check(case, "faulty"), exact_check(case, "correct")
    assert isinstance(case.faulty, SmallTree) and isinstance(case.correct, SmallTree)
    shape_f = exact_check(dataclasses.replace(case, exact_faulty=case.faulty.structure_law), "faulty")
    shape_c = exact_check(dataclasses.replace(case, exact_correct=case.correct.structure_law), "correct")
    assert abs(faulty.max_log_ratio - (1.0 + shape_f.max_log_ratio)) < 1e-9, (faulty.summary(), shape_f.summary())
    assert abs(correct.max_log_ratio - (1 / 3 + shape_c.max_log_ratio)) < 1e-9, (correct.summary(), shape_c.summary())


def _top_half(law: Dict[Hashable, float]) -> Tuple[Set[Hashable], float]:
    """The most probable outcomes up to mass 1/2, and that mass."""
    chosen: Set[Hashable] = set()
    mass = 0.0
    for outcome, lp in sorted(law.items(), key=lambda item: -item[1]):
        if mass >= 0.5:
            break
        chosen.add(outcome)
        mass += math.exp(lp)
    return chosen, mass


CHEAP_RUNS = 400


@pytest.mark.parametrize("version", ["faulty", "correct"])
@pytest.mark.parametrize("name", list(CORRECT_CLAIMS))
def test_samplers_follow_their_exact_laws(name: str, version: str) -> None:
    """Every reduced output lies in the law's support, and the likeliest half has its probability.

    The count of the event "one of the likeliest outcomes (mass >= 1/2)"
    must lie in its two-sided Clopper-Pearson interval at 1e-6.
    """
    case = PLANTED[name]
    law = case.law(version)
    assert law is not None
    exact = law(case.d)
    event, mass = _top_half(dict(exact))
    rng = random.Random(SEED)
    mechanism = case.mechanism(version)
    hits = 0
    for _ in range(CHEAP_RUNS):
        outcome = case.reduce(mechanism(case.d, rng))
        assert outcome in exact, f"{name} [{version}]: sampled {outcome!r} outside the exact support (seed {SEED})"
        hits += outcome in event
    lo, hi = clopper_pearson(hits, CHEAP_RUNS, 1e-6)
    assert lo <= mass <= hi, f"{name} [{version}]: {hits}/{CHEAP_RUNS} vs exact {mass:.4f}, CP [{lo:.4f}, {hi:.4f}], seed {SEED}"


def test_max_score_is_the_max_operator() -> None:
    case = PLANTED["exponential-without-half"]
    assert isinstance(case.faulty, AttributeChoice)
    for data in (case.d, case.d_prime):
        for a in range(data.schema.n_attributes):
            table = attribute_table(data, a)
            assert max_score(table) == max_operator(table)


def test_every_mechanism_reduction_and_law_pickles() -> None:
    """Process pools pickle them; a round trip must give equal objects that still work."""
    for name in planted_names():
        case = PLANTED[name]
        for item in (case.faulty, case.correct, case.reduce, case.exact_faulty, case.exact_correct, case.d):
            copy = pickle.loads(pickle.dumps(item))
            if dataclasses.is_dataclass(item):
                assert copy == item, (name, item)
        law = pickle.loads(pickle.dumps(case.exact_faulty))
        assert dict(law(case.d)) == dict(case.exact_faulty(case.d))  # type: ignore[misc]


def test_bad_inputs_raise_clear_errors() -> None:
    case = PLANTED["exact-score-released"]
    with pytest.raises(InvalidParameterError, match="version must be one of"):
        exact_check(case, "wrong")
    with pytest.raises(InvalidParameterError, match="no exact law"):
        exact_check(dataclasses.replace(case, exact_correct=None), "correct")
    with pytest.raises(InvalidParameterError, match="nothing for a Monte-Carlo audit to find"):
        monte_carlo_plan(dataclasses.replace(case, exact_faulty=case.exact_correct))
    with pytest.raises(InvalidParameterError, match="budget must be one of"):
        SmallTree((0,), 1, case.epsilon, budget="half")
    with pytest.raises(InvalidParameterError, match="stopping must be one of"):
        SmallTree((0,), 1, case.epsilon, stopping="never")
    with pytest.raises(InvalidParameterError, match="increasing"):
        ThresholdChoice(0, case.epsilon, grid=(2.0, 1.0))


# --- Monte-Carlo ------------------------------------------------------------------------------


def _plan_message(case: PlantedCase) -> str:
    plan = monte_carlo_plan(case)
    return (
        f"plan: {plan.direction}, event of {plan.size} outcomes, p1={plan.p1:.4g}, p2={plan.p2:.4g}, "
        f"trials={plan.trials}, selection={plan.selection_trials}"
    )


def _monte_carlo(name: str) -> None:
    case = PLANTED[name]
    plan = monte_carlo_plan(case)
    assert power_guaranteed(plan.trials, math.log(0.95 * plan.p1 / max(plan.p2, 1e-12)), case.epsilon,
                            max(plan.p2, 1e-12), power=0.999, alpha=1e-6)
    faulty = monte_carlo_check(case, "faulty", seed=SEED)
    correct = monte_carlo_check(case, "correct", seed=SEED)
    assert faulty.refuted, f"{name}: {faulty.summary()} | {_plan_message(case)}"
    assert faulty.lower_bound > float(case.epsilon)
    assert not correct.refuted, f"{name}: {correct.summary()} | {_plan_message(case)}"


FAST_MONTE_CARLO = [
    "exponential-without-half",
    "laplace-scale-epsilon",
    "stop-on-true-count",
    "threshold-from-data",
    "exact-score-released",
    "noise-on-present-classes",
]
SLOW_MONTE_CARLO = ["float-laplace-inverse-cdf", "sensitivity-understated", "full-epsilon-every-depth"]


@pytest.mark.claim("empirical-epsilon-lower-bound")
@pytest.mark.parametrize("name", FAST_MONTE_CARLO)
def test_monte_carlo_audit_refutes_the_fault_and_not_the_fix(name: str) -> None:
    _monte_carlo(name)


@pytest.mark.slow
@pytest.mark.claim("empirical-epsilon-lower-bound")
@pytest.mark.parametrize("name", SLOW_MONTE_CARLO)
def test_monte_carlo_audit_refutes_the_costly_faults_too(name: str) -> None:
    _monte_carlo(name)


def test_audit_through_a_process_pool_gives_the_same_result() -> None:
    case = PLANTED["exact-score-released"]
    inline = monte_carlo_check(case, "faulty", seed=SEED, trials=200, chunk=50)
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        pooled = monte_carlo_check(case, "faulty", seed=SEED, trials=200, chunk=50, executor=pool)
    assert dataclasses.replace(pooled, wall_time=0.0) == dataclasses.replace(inline, wall_time=0.0)
    assert inline.refuted, inline.summary()


def test_plan_counts_selection_runs_for_events_of_many_outcomes() -> None:
    plans: List[Tuple[str, int, int, int]] = []
    for name in ("float-laplace-inverse-cdf", "exponential-without-half"):
        plan = monte_carlo_plan(PLANTED[name])
        plans.append((name, plan.size, plan.trials, plan.selection_trials))
        assert plan.selection_trials >= max(plan.trials, 10 * plan.size / plan.p1 - 1), plans
    assert plans[0][3] > plans[0][2] and plans[1][3] == plans[1][2], plans
