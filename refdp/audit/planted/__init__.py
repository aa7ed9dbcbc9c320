"""Planted faults: deliberately wrong mechanisms that the audit must refute, and their fixes.

Each :class:`PlantedCase` pairs a faulty mechanism with its correct
counterpart on two neighbouring data sets cut from built-in data, with a
public reduction of the output and, where it can be computed, the exact law
of the reduced output on each side.  :data:`PLANTED` is the catalogue (see
:mod:`refdp.audit.planted.catalogue` for the faults and why each pair
exposes its fault); :func:`exact_check` and :func:`monte_carlo_check` are
the two ways of checking a case, :func:`audit_planted` reports either as
the ``audit`` command does, and :func:`false_alarm_rate` measures how often
the Monte-Carlo check refutes a correct mechanism.
"""

from refdp.audit.planted.audit import METHODS, PlantedAudit, audit_planted
from refdp.audit.planted.case import (
    VERSIONS,
    ExactVerdict,
    Law,
    Mechanism,
    MonteCarloPlan,
    PlantedCase,
    exact_check,
    monte_carlo_check,
    monte_carlo_plan,
)
from refdp.audit.planted.catalogue import PLANTED, get_case, planted_names
from refdp.audit.planted.false_alarms import FalseAlarmRate, false_alarm_rate

__all__ = [
    "ExactVerdict",
    "FalseAlarmRate",
    "Law",
    "METHODS",
    "Mechanism",
    "MonteCarloPlan",
    "PLANTED",
    "PlantedAudit",
    "PlantedCase",
    "VERSIONS",
    "audit_planted",
    "exact_check",
    "false_alarm_rate",
    "get_case",
    "monte_carlo_check",
    "monte_carlo_plan",
    "planted_names",
]
