"""The plans ``algorithms --plan`` prints are the plans the fits make (issue 32)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from refdp.algorithms import get_algorithm, train
from refdp.algorithms.plans import PLAN_FUNCTIONS, READS_TOTAL, learner_plan
from refdp.cli import main
from refdp.data import load_builtin
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation


@pytest.mark.parametrize("name", sorted(PLAN_FUNCTIONS))
def test_the_plan_for_a_models_noisy_size_charges_what_its_fit_charged(name: str) -> None:
    data = load_builtin("vote")
    model = train(name, data, 1, rng=5)
    noisy = model.plan_inputs.get("noisy_size")
    params = get_algorithm(name).resolve({})
    plan, ledger = learner_plan(name, data.schema, Fraction(1), params, Relation.ADD_REMOVE, noisy)
    planned = [(c.label, c.epsilon) for c in ledger.charges]
    released = [(c.label, c.epsilon) for c in model.receipt.charges]
    assert planned == [c for c in released if c in planned] and len(planned) == (0 if name in READS_TOTAL else 1)
    if name == "thesis-tree":
        splits = {c.epsilon for c in model.receipt.charges if c.label.startswith("split")}
        assert splits <= set(plan.queries.level_eps)


def test_the_command_prints_a_plan_and_refuses_what_has_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["algorithms", "--plan", "thesis-tree", "--epsilon", "1", "--data", "vote", "--noisy-size", "435"]) == 0
    out = capsys.readouterr().out
    assert "plan of thesis-tree at epsilon 1 (add-remove), noisy size N~ = 435:" in out and "depth: 3" in out
    assert main(["algorithms", "--plan", "noisy-majority", "--epsilon", "1", "--data", "vote"]) == 2
    assert "plans nothing" in capsys.readouterr().err
    assert main(["algorithms", "--plan", "thesis-tree", "--epsilon", "1"]) == 2
    assert "--data" in capsys.readouterr().err


def test_a_plan_that_draws_a_noisy_size_needs_its_value() -> None:
    params = get_algorithm("dpdf").resolve({})
    with pytest.raises(InvalidParameterError, match="noisy size"):
        learner_plan("dpdf", load_builtin("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, None)


def test_kanon_rdts_histogram_plan_says_what_none_means(capsys: pytest.CaptureFixture[str]) -> None:
    # At epsilon 0.1 no forest fills its cells on vote's 435 rows: the model is the second histogram.
    assert main(["algorithms", "--plan", "kanon-rdt", "--epsilon", "0.1", "--data", "vote"]) == 0
    out = capsys.readouterr().out
    assert "plan: none: no forest fills its cells" in out and "plan: None" not in out, out
