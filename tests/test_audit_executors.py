"""Where an audit's runs execute changes its time, never its report (refdp.audit.executors).

The run counts are given (--trials, --pilot-runs), as sizing them from one run's time depends on the load.
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from typing import Any, Dict

import pytest

from refdp.algorithms import get_algorithm
from refdp.audit.executors import audit_executor, check_executor_spec
from refdp.audit.learner import LearnerAudit, audit_learner
from refdp.audit.pair import draw_rows
from refdp.cli.audit import RegistryMechanism
from refdp.data import load
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation

_TIMES = ("wall_time", "seconds_per_run", "pilot_seconds")


def _report(executor: str, workers: int) -> Dict[str, Any]:
    spec = get_algorithm("thesis-tree")
    params = spec.resolve({"variant": "published", "max_depth": 1})
    data = load("vote")
    request = LearnerAudit(
        learner=RegistryMechanism("thesis-tree", Fraction(1), tuple(sorted(params.items())), Relation.ADD_REMOVE),
        name="thesis-tree", description="", params=params, data=data, data_name="vote",
        rows=tuple(draw_rows(len(data), 40, 3)), epsilon=Fraction(1), delta=None, relation=Relation.ADD_REMOVE, seed=3,
        trials=300, pilot_runs=20, workers=workers, executor=executor,
    )
    return {k: v for k, v in audit_learner(request).items() if k not in _TIMES}


@pytest.mark.parametrize("spec", ["dask", "dask:", "ray:x", "dask:scheduler-file=", "processes"])
def test_a_malformed_executor_is_refused_by_its_flag(spec: str) -> None:
    with pytest.raises(InvalidParameterError, match="--executor"):
        check_executor_spec(spec)


def test_a_local_process_pool_gives_the_inline_report() -> None:
    assert _report("process", 2) == _report("process", 1)


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs pip install 'refdp[distributed]'")
def test_a_dask_local_cluster_gives_the_inline_report() -> None:
    assert _report("dask:local", 2) == _report("process", 1)


@pytest.mark.skipif(importlib.util.find_spec("distributed") is not None, reason="Dask is installed here")
def test_without_dask_a_dask_executor_names_the_extra() -> None:
    with pytest.raises(InvalidParameterError, match=r"refdp\[distributed\]"):
        with audit_executor("dask:local", 2):
            pass
