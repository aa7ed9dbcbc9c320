"""What a learner releases at the root of its tree, as an exact law, for cross-checks.

A cross-check (``crosscheck-cmd``, :mod:`refdp.audit.crosscheck_command`)
tests another implementation's outputs against these laws.  Each law is
computed by the learner's own code -- its budget plan for the per-query
epsilon, its candidates, quality function and sensitivity for the
utilities, whether the mechanism drops its factor 2 -- so that it cannot
drift from what ``train`` does.  A learner that first draws a noisy size of
the data (``size_share`` > 0) makes its depth, hence every query's epsilon,
depend on that draw: its laws are given only for parameters that fix the
plan (:func:`refdp.algorithms.noisy_depth.fixed_plan`), and refused otherwise.

* :class:`SplitLaw`: the exponential mechanism that chooses the root's split
  (``root_split_law`` in :mod:`refdp.algorithms.thesis_tree` and
  :mod:`refdp.algorithms.diffpid3`);
* :class:`CountsLaw`: the noise on the root's class counts (``root_counts_law``
  in :mod:`refdp.algorithms.majority`, :mod:`refdp.algorithms.thesis_tree`
  and, at depth 0, :mod:`refdp.algorithms.diffpid3`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Optional, Tuple, Union

from refdp.data.grid import Threshold, format_threshold
from refdp.mechanisms import exponential_probabilities, histogram_scale

__all__ = ["SplitCandidate", "SplitLaw", "CountsLaw"]

Utility = Union[int, float, Fraction]


@dataclass(frozen=True)
class SplitCandidate:
    """One split the root may take: an attribute, with the value (value vs rest) or threshold it releases."""

    attribute: str
    value: Optional[str] = None
    threshold: Optional[Threshold] = None

    def describe(self) -> str:
        """``a`` (multiway), ``a=v`` (value vs rest) or ``a>=t`` (threshold)."""
        if self.value is not None:
            return f"{self.attribute}={self.value}"
        if self.threshold is not None:
            return f"{self.attribute}>={format_threshold(self.threshold)}"
        return self.attribute


@dataclass(frozen=True)
class SplitLaw:
    """The exponential mechanism over the root's candidates: ``P[r] ~ w_r exp(epsilon u_r / (2 sensitivity))``.

    ``epsilon`` is the per-query budget of the learner's plan, ``weights``
    the base measure (None: uniform), ``quality`` the utility's name;
    ``monotone``: the learner drops the factor 2 (``P[r] ~ w_r exp(epsilon
    u_r / sensitivity)``, claim ``exponential-mechanism-monotone``).  The
    law is that of the split *given that the root splits*: the learners
    decide whether to split with noise drawn independently of this mechanism.
    """

    candidates: Tuple[SplitCandidate, ...]
    utilities: Tuple[Utility, ...]
    weights: Optional[Tuple[Utility, ...]]
    epsilon: Fraction
    sensitivity: Union[Fraction, float]
    quality: str
    monotone: bool

    def probabilities(self) -> List[float]:
        """Each candidate's probability (:func:`refdp.mechanisms.exponential_probabilities`)."""
        return exponential_probabilities(
            self.utilities, epsilon=self.epsilon, sensitivity=self.sensitivity, base_weights=self.weights,
            monotone=self.monotone,
        )


@dataclass(frozen=True)
class CountsLaw:
    """The root's noisy class counts: ``counts[c] + noise``, independently per class, at ``epsilon`` per cell.

    ``noise`` is ``discrete-laplace`` (``P[z] ~ exp(-|z| / scale)`` on the
    integers) or ``laplace``; the scale is the histogram's
    (:func:`refdp.mechanisms.histogram_scale`).
    """

    classes: Tuple[str, ...]
    counts: Tuple[int, ...]
    epsilon: Fraction
    noise: str

    @property
    def scale(self) -> Fraction:
        """The noise scale of every cell."""
        return histogram_scale(self.epsilon)
