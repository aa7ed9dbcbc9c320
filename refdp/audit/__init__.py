"""Auditing privacy claims: neighbours, exact distributions, Monte-Carlo bounds, sensitivities.

* :mod:`refdp.audit.neighbours`: every neighbour of a data set, or a random one;
* :mod:`refdp.audit.exact`: exact output distributions in log space and their
  largest log-ratio (claim ``exact-max-log-ratio``);
* :mod:`refdp.audit.montecarlo`: a black-box audit giving a certified lower
  bound on epsilon (claim ``empirical-epsilon-lower-bound``);
* :mod:`refdp.audit.sample_size`: that bound, and how many runs it needs;
* :mod:`refdp.audit.sensitivity`: exhaustive sensitivity search;
* :mod:`refdp.audit.external`: the same black-box audit of any program or
  callable, on any ``concurrent.futures`` executor;
* :mod:`refdp.audit.goodness_of_fit`: goodness-of-fit tests of another
  implementation's samples against refdp's exact distributions, and
  :mod:`refdp.audit.program_crosscheck`, which runs another implementation
  as a program and tests its outputs (what ``crosscheck-cmd`` runs);
* :mod:`refdp.audit.replay`: record every mechanism call on D and replay on a
  neighbour with the outputs frozen (:func:`replay_check`, claim
  ``replay-audit``), and :mod:`refdp.audit.replay_audit`, which replays a
  learner on many pairs;
* :mod:`refdp.audit.enumeration`: every outcome of every mechanism call with
  its exact probability, on D and D' (claim ``exact-enumeration``), and
  :mod:`refdp.audit.exact_audit`, which enumerates a learner on small pairs;
* :mod:`refdp.audit.planted`: planted faulty mechanisms the audits must catch;
* :mod:`refdp.audit.learner`, :func:`refdp.audit.planted.audit_planted` and
  :mod:`refdp.audit.program_audit`: the audits the ``audit`` and
  ``audit-cmd`` commands run, as typed calls that return the report, with
  what they share in :mod:`refdp.audit.pair` (``D``, neighbours, the pilot
  choice), :mod:`refdp.audit.report` and :mod:`refdp.audit.timing`;
  :mod:`refdp.audit.programs`: how both commands run a program (a process
  per run or per batch of runs, long-running workers, a Python function).

Nothing here parses command-line arguments: that is :mod:`refdp.cli`.
"""

from refdp.audit.goodness_of_fit import (
    GoodnessOfFit,
    crosscheck_discrete_laplace,
    crosscheck_exponential_mechanism,
    crosscheck_finite,
    crosscheck_laplace,
    crosscheck_split_choice,
    discrete_laplace_sample_size,
    discrete_laplace_scale_distance,
    laplace_sample_size,
    laplace_scale_distance,
    permute_and_flip_probabilities,
    split_choice_probabilities,
    tv_sample_size,
    tv_threshold,
)
from refdp.audit.exact import (
    LOG_SLACK,
    Distribution,
    LogRatioReport,
    SupportMismatch,
    chain,
    covering_window,
    discrete_laplace_distribution,
    exponential_mechanism_distribution,
    log_sum_exp,
    max_log_ratio,
    max_log_ratio_report,
    mixture,
    product,
    push_forward,
    satisfies_epsilon,
)
from refdp.audit.external import (
    INLINE,
    PROCESS_POOL,
    Failure,
    ProgramAuditResult,
    RunFailed,
    audit_program,
    program_seeds,
)
from refdp.audit.montecarlo import (
    D_OVER_D_PRIME,
    D_PRIME_OVER_D,
    AuditResult,
    Event,
    OutcomeSet,
    Threshold,
    monte_carlo_audit,
    run_seeds,
)
from refdp.audit.neighbours import (
    Candidates,
    Record,
    add_record,
    all_neighbours,
    are_neighbours,
    random_neighbour,
    record_of,
    record_universe,
    remove_row,
    replace_row,
    universe_record,
    universe_size,
)
from refdp.audit.sample_size import (
    DEFAULT_POWER,
    binomial_lower_quantile,
    binomial_upper_quantile,
    certified_lower_bound,
    default_trials,
    design_event_probability,
    detectable_epsilon,
    power_guaranteed,
    required_trials,
)
from refdp.audit.replay import ReplayReport, replay_check
from refdp.audit.sensitivity import (
    SensitivityReport,
    all_count_tables,
    count_table_neighbours,
    exhaustive_sensitivity,
)

__all__ = [
    "GoodnessOfFit",
    "crosscheck_discrete_laplace",
    "crosscheck_exponential_mechanism",
    "crosscheck_finite",
    "crosscheck_laplace",
    "crosscheck_split_choice",
    "discrete_laplace_sample_size",
    "discrete_laplace_scale_distance",
    "laplace_sample_size",
    "laplace_scale_distance",
    "permute_and_flip_probabilities",
    "split_choice_probabilities",
    "tv_sample_size",
    "tv_threshold",
    "INLINE",
    "PROCESS_POOL",
    "Failure",
    "ProgramAuditResult",
    "RunFailed",
    "audit_program",
    "program_seeds",
    "AuditResult",
    "Candidates",
    "D_OVER_D_PRIME",
    "DEFAULT_POWER",
    "D_PRIME_OVER_D",
    "Distribution",
    "Event",
    "LOG_SLACK",
    "LogRatioReport",
    "OutcomeSet",
    "Record",
    "SensitivityReport",
    "SupportMismatch",
    "Threshold",
    "add_record",
    "all_count_tables",
    "all_neighbours",
    "are_neighbours",
    "binomial_lower_quantile",
    "binomial_upper_quantile",
    "certified_lower_bound",
    "chain",
    "count_table_neighbours",
    "covering_window",
    "default_trials",
    "design_event_probability",
    "detectable_epsilon",
    "discrete_laplace_distribution",
    "exhaustive_sensitivity",
    "exponential_mechanism_distribution",
    "log_sum_exp",
    "max_log_ratio",
    "max_log_ratio_report",
    "mixture",
    "monte_carlo_audit",
    "power_guaranteed",
    "product",
    "push_forward",
    "random_neighbour",
    "record_of",
    "record_universe",
    "remove_row",
    "replay_check",
    "ReplayReport",
    "replace_row",
    "required_trials",
    "run_seeds",
    "satisfies_epsilon",
    "universe_record",
    "universe_size",
]
