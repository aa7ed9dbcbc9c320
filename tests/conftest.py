"""Shared pytest set-up: the ``claim`` marker and Hypothesis profiles."""

from __future__ import annotations

import os
from typing import List

import pytest
from hypothesis import HealthCheck, settings

from refdp.proofs_reader import proofs_dir, read_claims

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "claim(*ids): the proofs/ claims this test checks")
    config.addinivalue_line("markers", "slow: a long statistical run, excluded by default")
    config.addinivalue_line("markers", "smoke: a fast subset run on other Python versions")


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    known = set(read_claims(proofs_dir()))
    for item in items:
        for mark in item.iter_markers(name="claim"):
            unknown = [c for c in mark.args if c not in known]
            if unknown:
                raise pytest.UsageError(
                    f"{item.nodeid} names unknown claim(s) {unknown}; add proofs/<id>.md"
                )
