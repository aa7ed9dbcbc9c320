"""Noise mechanisms: exact samplers, the Laplace and exponential mechanisms, noisy counts.

* :mod:`refdp.mechanisms.exact`: Bernoulli(p), the successes of n Bernoulli(p)
  trials, Bernoulli(exp(-gamma)) and its complement at gamma = 1 (a
  Poissonised bootstrap's membership), the discrete Laplace, in integer
  arithmetic (Canonne, Kamath and Steinke 2020);
* :mod:`refdp.mechanisms.laplace`: continuous Laplace noise (inverse CDF);
* :mod:`refdp.mechanisms.exponential`: the exponential mechanism, its exact
  probabilities and two samplers;
* :mod:`refdp.mechanisms.counts`: noisy counts and histograms that record
  their charges in a ledger.
"""

from __future__ import annotations

from refdp.mechanisms._params import Exact, SensitivityLike
from refdp.mechanisms.counts import (
    NoiseKind,
    cells_charge,
    count_charge,
    cell_epsilon,
    histogram_charges,
    discrete_laplace_mechanism,
    histogram_scale,
    laplace_mechanism,
    noisy_cells,
    noisy_histogram,
)
from refdp.mechanisms.exact import (
    bernoulli,
    bernoulli_exp,
    bernoulli_positions,
    bootstrap_draws,
    discrete_laplace,
    discrete_laplace_cdf,
    discrete_laplace_pmf,
    joins_sample,
)
from refdp.mechanisms.exponential import (
    float_probabilities,
    exponential_charge,
    exponential_log_probabilities,
    exponential_mechanism,
    exponential_probabilities,
    exponential_sample_exact,
    sample_index,
)
from refdp.mechanisms.laplace import laplace_cdf, laplace_noise, laplace_pdf

__all__ = [
    "Exact",
    "NoiseKind",
    "SensitivityLike",
    "cells_charge",
    "count_charge",
    "exponential_charge",
    "cell_epsilon",
    "histogram_charges",
    "bernoulli",
    "bernoulli_exp",
    "bernoulli_positions",
    "bootstrap_draws",
    "discrete_laplace",
    "discrete_laplace_cdf",
    "discrete_laplace_mechanism",
    "discrete_laplace_pmf",
    "joins_sample",
    "exponential_log_probabilities",
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_sample_exact",
    "float_probabilities",
    "histogram_scale",
    "laplace_cdf",
    "laplace_mechanism",
    "laplace_noise",
    "laplace_pdf",
    "noisy_cells",
    "noisy_histogram",
    "sample_index",
]
