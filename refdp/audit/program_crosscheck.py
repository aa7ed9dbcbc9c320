"""Cross-checking another implementation of a refdp learner, run as a command (what ``crosscheck-cmd`` runs).

:func:`crosscheck_command` runs a :class:`CommandCrosscheck`: does a program
written in any language, given the same data, budget and parameters, do what
refdp's learner does?  Seeds cannot be shared between implementations, so
the answer is distributional:

1. The data and its public schema are written as for ``audit-cmd``
   (:func:`refdp.audit.program_audit.write_inputs`), and the command's
   words are run with no shell (:class:`~refdp.audit.program_audit.CommandProgram`:
   ``{data}``, ``{seed}``, ``{out}``, ``{schema}``), once per seed of
   :func:`crosscheck_seeds`, ``jobs`` at a time with ``timeout`` seconds
   each.  A run that exits non-zero, times out or writes an unreadable
   output is a failure: counted, reported and left out of the sample; more
   than ``max_failure_rate`` of the runs failing, or the first 8 all
   failing, stops the check (a verdict would be about the failures).
2. Each output is read according to ``output`` and tested against refdp's
   law for the same inputs (claim ``crosscheck-command``):

   * ``root-split``: ``{"attribute": NAME}``, with ``"value"`` or
     ``"threshold"`` where the algorithm releases one, or
     ``{"attribute": null}`` when the root is a leaf, against refdp's law
     of the root's outcome (:data:`LAWS`,
     :class:`~refdp.algorithms.root_law.RootSplitLaw`): under each plan the
     learner may make, the exponential mechanism over the root's
     candidates (the plan's per-query epsilon, and no factor 2 where
     refdp's utilities are monotone) or a leaf, with the probability that
     the plan stops the root, by total variation (claims
     ``crosscheck-finite-tv``, ``crosscheck-split-choice``); where refdp
     does not compute that probability (thesis-tree with counts at every
     node on more than two classes), leaves are left out;
   * ``leaf-counts``: ``{"counts": [...]}`` in the schema's class order, or
     ``{"counts": {CLASS: n, ...}}``, the root's noisy class counts, against
     refdp's discrete Laplace (or Laplace) noise at refdp's scale
     (:data:`LAWS`, :class:`~refdp.algorithms.root_law.RootCountsLaw`)
     by the Kolmogorov-Smirnov distance, the noises of all classes pooled
     (claims ``crosscheck-discrete-laplace-ks``, ``crosscheck-laplace-ks``;
     a mixture of scales over the plans: ``crosscheck-noisy-size-mixture``);
     ``{"counts": null}`` (no counts at the root) is left out where refdp's
     root may release none, and has probability 0 where it always does;
   * ``model``: a refdp model file, verified (``refdp.model_from_json``,
     which re-derives its charges from its plan and public parts) and
     compared with what refdp's own model for the same inputs states
     (:class:`ModelExpectation`).

   A learner that spends ``size_share`` > 0 of epsilon on a noisy size of
   the data lets that draw choose its plan (the depth, hence every query's
   epsilon and charge, and thesis-tree's ``quality=auto``): the laws are
   then mixtures over the plans, computed by the learner's own planning
   code (:func:`refdp.algorithms.root_law.noisy_size_plans`, claim
   ``crosscheck-noisy-size-mixture``).

   An output that names no candidate, or an integer law's count that is not
   an integer, has probability 0 under refdp's law: it is kept and rejects.
3. The number of runs is computed first from the power wanted
   (:func:`planned_runs`): a law at total variation :data:`SPLIT_TV` or
   more from refdp's, a noise scale off by a factor :data:`SCALE_ERROR` or
   more, or a model defect in :data:`MODEL_DEFECT_RATE` of the runs or more,
   is rejected with probability at least ``1 - beta``; ``runs`` overrides it.

The report is a JSON-ready ``dict``; its notes name the ``crosscheck-cmd``
command's flags, since that is where reports are read.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import math
import random
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Hashable, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.algorithms.derivation import NOISY_SIZE
from refdp.algorithms.registry import AlgorithmSpec, Param, get_algorithm, root_law, root_law_algorithms, train
from refdp.algorithms.models import MISSING_VALUE_RULE, model_from_json
from refdp.algorithms.root_law import CountsLaw, PlanBranch, RootCountsLaw, RootSplitLaw, SplitLaw
from refdp.audit.goodness_of_fit import (
    DEFAULT_BETA,
    GoodnessOfFit,
    NoiseMixture,
    crosscheck_discrete_laplace,
    crosscheck_finite,
    crosscheck_laplace,
    discrete_laplace_detectable_scale_error,
    discrete_laplace_sample_size,
    laplace_detectable_scale_error,
    laplace_sample_size,
    crosscheck_noise_mixture,
    noise_mixture_detectable_scale_error,
    noise_mixture_runs,
    tv_detectable,
    tv_sample_size,
)
from refdp.audit.external import SEED_BITS, Failure, ProgramRuns, RunDriver
from refdp.audit.montecarlo import MAX_TRIALS
from refdp.audit.program_audit import write_inputs
from refdp.audit.programs import chunk_size, make_program
from refdp.data import Dataset
from refdp.errors import DataError, InvalidParameterError, RefdpError
from refdp.privacy import Charge, Relation
from refdp.stats import dkw_bound
from refdp.tree import TreeModel

__all__ = [
    "OUTPUTS",
    "LAWS",
    "SPLIT_TV",
    "SCALE_ERROR",
    "MODEL_DEFECT_RATE",
    "MODEL_REFERENCE_RUNS",
    "Reading",
    "SplitReader",
    "CountsReader",
    "ModelExpectation",
    "ModelReader",
    "CommandCrosscheck",
    "crosscheck_seeds",
    "planned_runs",
    "crosscheck_command",
]

OUTPUTS = ("root-split", "leaf-counts", "model")
"""What a program's output is: its root split, its root's noisy class counts, or a refdp model."""

LAWS: Mapping[str, str] = {"root-split": "root_split_law", "leaf-counts": "root_counts_law"}
"""The law each output is tested against: the function of that name in the algorithm's laws module
(:func:`refdp.algorithms.registry.root_law`)."""

SPLIT_TV = 0.05
"""``root-split`` is sized to reject a law at this total variation from refdp's."""
SCALE_ERROR = 0.1
"""``leaf-counts`` is sized to reject a noise scale off by the factor 1.1 (or 1/1.1) or more."""
MODEL_DEFECT_RATE = 0.01
"""``model`` is sized to see at least one bad model when this share of the runs, or more, write one."""
MODEL_REFERENCE_RUNS = 5
"""refdp trains this many models (seeds 0, 1, ...) to learn the charges its plan makes for the inputs."""

_THRESHOLD_TOLERANCE = 1e-9  # relative: a printed float of a grid point that no float equals


@dataclass(frozen=True)
class Reading:
    """What one output says: ``kind`` is ``sample`` (``value``), ``no-split`` or ``impossible`` (``detail``)."""

    kind: str
    value: Hashable = None
    detail: str = ""


def _json_object(text: str) -> Dict[str, Any]:
    obj = json.loads(text)
    if not isinstance(obj, dict):
        raise ValueError(f"the output is JSON {type(obj).__name__}, not an object")
    return obj


def _threshold(value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"\"threshold\" must be a number or a string p/q, got {value!r}")
    try:
        t = Fraction(value)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"\"threshold\" must be a finite number or p/q, got {value!r}") from None
    return t


@dataclass(frozen=True)
class SplitReader:
    """Reads ``{"attribute": NAME[, "value": V | "threshold": T]}`` as the index of a candidate of ``law``.

    ``{"attribute": null}`` (a leaf) is the index after the candidates when
    the law has leaves as an outcome, else ``no-split``.
    """

    law: RootSplitLaw
    _named: Dict[Tuple[str, Optional[str]], int] = field(init=False, repr=False, compare=False)
    _points: Dict[str, List[Tuple[Fraction, int]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        named: Dict[Tuple[str, Optional[str]], int] = {}
        points: Dict[str, List[Tuple[Fraction, int]]] = {}
        for i, c in enumerate(self.law.candidates):
            if c.threshold is None:
                named[(c.attribute, c.value)] = i
            else:
                points.setdefault(c.attribute, []).append((Fraction(c.threshold), i))
        object.__setattr__(self, "_named", named)
        object.__setattr__(self, "_points", points)

    def __call__(self, text: str) -> Reading:
        obj = _json_object(text)
        if "attribute" not in obj:
            raise ValueError('the output has no "attribute" member')
        name = obj["attribute"]
        if name is None:
            return Reading("sample", len(self.law.candidates)) if self.law.leaf_is_outcome else Reading("no-split")
        if not isinstance(name, str):
            raise ValueError(f'"attribute" must be a string or null, got {name!r}')
        value = obj.get("value")
        if value is not None and not isinstance(value, str):
            raise ValueError(f'"value" must be a string, got {value!r}')
        if obj.get("threshold") is None:
            index = self._named.get((name, value))
            shown = name if value is None else f"{name}={value}"
        else:
            t = _threshold(obj["threshold"])
            index = None if value is not None else self._point(name, t)
            shown = f"{name}>={t}" if value is None else f"{name}={value} with a threshold {t}"
        if index is None:
            return Reading("impossible", detail=f"{shown} is not one of refdp's candidate splits at the root")
        return Reading("sample", index)

    def _point(self, name: str, t: Fraction) -> Optional[int]:
        """The candidate at the grid point of ``name`` within a relative 1e-9 of ``t`` (a printed float)."""
        for point, i in self._points.get(name, ()):
            if abs(t - point) <= _THRESHOLD_TOLERANCE * max(Fraction(1), abs(point)):
                return i
        return None


@dataclass(frozen=True)
class CountsReader:
    """Reads ``{"counts": [...] | {CLASS: n}}`` as the tuple of noises (released minus true count) per class.

    ``{"counts": null}`` is ``no-split`` (left out) where refdp's root may
    release no counts, and ``impossible`` where it always releases them.
    """

    law: RootCountsLaw

    def __call__(self, text: str) -> Reading:
        obj = _json_object(text)
        counts = obj.get("counts")
        first = self.law.first
        classes = first.classes
        if counts is None and "counts" in obj:
            if not self.law.always:
                return Reading("no-split")
            return Reading("impossible", detail="the root released no counts; refdp's root releases them in every run")
        if isinstance(counts, dict):
            if set(counts) != set(classes):
                raise ValueError(f'"counts" must have one member per class ({", ".join(classes)}), got {sorted(counts)}')
            values = [counts[c] for c in classes]
        elif isinstance(counts, list):
            if len(counts) != len(classes):
                raise ValueError(f'"counts" must list {len(classes)} counts (classes {", ".join(classes)})')
            values = counts
        else:
            raise ValueError('the output has no "counts" list or object')
        noises: List[Union[int, float]] = []
        for cls, value, true in zip(classes, values, first.counts):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"the count of class {cls} is {value!r}, not a finite number")
            if first.noise == "discrete-laplace":
                if not float(value).is_integer():
                    return Reading("impossible", detail=(
                        f"the count {value!r} of class {cls} is not an integer (discrete Laplace noise is)"
                    ))
                noises.append(int(value) - true)
            else:
                noises.append(float(value) - true)
        return Reading("sample", tuple(noises))


ChargeKind = Tuple[str, str, Fraction, Fraction, str, Tuple[str, ...], bool, bool]


@dataclass(frozen=True)
class ModelExpectation:
    """What a model for the inputs must state, from refdp's own models for the same inputs.

    ``charge_kinds`` is None where loading a model re-derives its charges
    from its plan and public parts (every variant whose charges do not
    depend on the data): a model that loads then has exactly the charges
    refdp's plan makes for its parameters, budget and noisy size.
    Elsewhere it holds the (label, mechanism, epsilon, delta, sensitivity,
    claims, sound, data_independent) of every charge in refdp's receipts of
    :data:`MODEL_REFERENCE_RUNS` runs, the reserve of an unbuilt part of the
    plan excepted (its epsilon depends on the tree), and so is the entry of
    epsilon 0 that records the missing-value policy of the data (a program
    given the data as a file reads it with a policy of its own).
    """

    algorithm: str
    variant: str
    params: Tuple[Tuple[str, Param], ...]
    schema: str
    relation: str
    epsilon: Fraction
    delta: Fraction
    charge_kinds: Optional[FrozenSet[ChargeKind]]


_UNCOMPARED = ("reserved", MISSING_VALUE_RULE)


def _charge_kind(c: Charge) -> ChargeKind:
    return (c.label, c.mechanism, c.epsilon, c.delta, str(c.sensitivity), tuple(sorted(c.claims)), c.sound,
            c.data_independent)


def _expectation(
    spec: AlgorithmSpec, data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> ModelExpectation:
    first = train(spec.name, data, epsilon, params, rng=0, relation=relation)
    kinds: Optional[FrozenSet[ChargeKind]] = None
    if spec.derive is None or spec.derive(first) is None:
        _plan_without_noisy_size(spec, params, first)
        models = [first] + [
            train(spec.name, data, epsilon, params, rng=seed, relation=relation)
            for seed in range(1, MODEL_REFERENCE_RUNS)
        ]
        kinds = frozenset(_charge_kind(c) for m in models for c in m.receipt.charges if c.mechanism not in _UNCOMPARED)
    return ModelExpectation(
        spec.name, str(params["variant"]), tuple(sorted(params.items())),
        json.dumps(data.schema.to_json(), sort_keys=True), relation.value, first.receipt.epsilon,
        first.receipt.delta, kinds,
    )


@dataclass(frozen=True)
class ModelReader:
    """Reads a refdp model file: ``sample`` when it verifies and agrees with ``expected``, else ``impossible``."""

    expected: ModelExpectation

    def __call__(self, text: str) -> Reading:
        try:
            model = model_from_json(json.loads(text))
        except RefdpError as exc:
            return Reading("impossible", detail=f"the model does not verify: {exc}")
        e = self.expected
        receipt = model.receipt
        if json.dumps(model.schema.to_json(), sort_keys=True) != e.schema:
            return Reading("impossible", detail="the model's schema is not the data's public schema")
        params = tuple(sorted(model.params.items()))
        if params != e.params:
            given = ", ".join(f"{k}={v}" for k, v in params)
            refdps = ", ".join(f"{k}={v}" for k, v in e.params)
            return Reading("impossible", detail=f"the model's parameters are {given}; refdp's are {refdps}")
        stated: Tuple[Tuple[str, object, object], ...] = (
            ("algorithm", model.algorithm, e.algorithm),
            ("variant", model.variant, e.variant),
            ("relation", receipt.relation.value, e.relation),
            ("total epsilon", receipt.epsilon, e.epsilon),
            ("total delta", receipt.delta, e.delta),
        )
        for what, found, wanted in stated:
            if found != wanted:
                return Reading("impossible", detail=f"the model's {what} is {found}; refdp's is {wanted}")
        kinds = e.charge_kinds
        for charge in receipt.charges if kinds is not None else ():
            if charge.mechanism not in _UNCOMPARED and kinds is not None and _charge_kind(charge) not in kinds:
                return Reading("impossible", detail=(
                    f"the receipt's charge {charge.label!r} ({charge.mechanism}, epsilon {charge.epsilon}, "
                    f"sensitivity {charge.sensitivity}) is not one refdp's plan makes for these inputs"
                ))
        return Reading("sample", True)


@dataclass(frozen=True)
class CommandCrosscheck:
    """What to cross-check: the command ``words`` against ``algorithm`` on ``d`` with ``epsilon`` and ``params``.

    ``params`` are the ``--param`` values (strings, resolved by the
    algorithm); ``output`` is one of :data:`OUTPUTS`; ``runs`` None means
    :func:`planned_runs`.  ``cmd`` and ``data_name`` are for the report.
    ``protocol`` (one of :data:`~refdp.audit.programs.PROTOCOLS`) says how
    the program runs: a process per run, per batch of ``batch`` runs (None:
    :func:`~refdp.audit.programs.default_batch`; ``timeout`` is then per
    batch), long-running workers, or a Python function (``words`` is then
    ``("MODULE:FUNCTION", ARG, ...)``).
    """

    cmd: str
    words: Tuple[str, ...]
    algorithm: str
    params: Mapping[str, str]
    d: Dataset
    data_name: str
    epsilon: Fraction
    relation: Relation
    output: str
    seed: int
    runs: Optional[int] = None
    jobs: int = 1
    timeout: float = 60.0
    max_failure_rate: float = 0.01
    alpha: float = 1e-6
    beta: float = DEFAULT_BETA
    protocol: str = "run"
    batch: Optional[int] = None


def crosscheck_seeds(seed: int, n: int) -> List[int]:
    """The program's seed for each of ``n`` runs (63-bit, as ``audit-cmd``'s), drawn from ``seed``."""
    rng = random.Random(f"refdp-crosscheck-cmd-{seed}")
    return [rng.getrandbits(SEED_BITS) for _ in range(n)]


def _plan_without_noisy_size(spec: AlgorithmSpec, params: Mapping[str, Param], model: TreeModel) -> None:
    """Refuses ``--output model`` when a noisy size chooses refdp's plan and the model's charges are not
    re-derived on loading (refdp's reference runs may miss a plan)."""
    if model.plan_inputs.get(NOISY_SIZE) is not None:
        raise InvalidParameterError(
            f"--output model with --algorithm {spec.name}: with size_share={params.get('size_share')} a noisy size "
            f"of the data, drawn first, chooses refdp's plan (the depth, hence every charge's epsilon), and "
            f"variant={params['variant']}'s charges depend on the data, so refdp's reference models need not show "
            "every charge a correct model makes; give size_share=0"
        )


def _law(request: CommandCrosscheck, spec: AlgorithmSpec, params: Mapping[str, Param]) -> Any:
    function = root_law(spec.name, LAWS[request.output])
    if function is None:
        known = root_law_algorithms(LAWS[request.output])
        raise InvalidParameterError(
            f"--output {request.output} knows refdp's law for --algorithm {' or '.join(known)}, not {spec.name}"
        )
    try:
        return function(request.d, request.epsilon, params, request.relation)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"--output {request.output} with --algorithm {spec.name}: {exc}") from None


def planned_runs(output: str, law: Any, alpha: float, beta: float) -> int:
    """The runs that give power ``1 - beta`` against the deviation :data:`SPLIT_TV`, :data:`SCALE_ERROR` or
    :data:`MODEL_DEFECT_RATE` (``law`` is a :class:`RootSplitLaw`, a :class:`RootCountsLaw` or None for
    ``model``).  Where the root releases its counts in a share ``r < 1`` of the runs, ``1/r`` times the runs
    that give the samples."""
    if output == "root-split":
        return tv_sample_size(law.probabilities(), SPLIT_TV, alpha=alpha, beta=beta)
    if output == "leaf-counts":
        single = law.single
        if single is None:
            runs = noise_mixture_runs(_mixture(law), SCALE_ERROR, alpha=alpha, beta=beta)
        else:
            runs = math.ceil(_samples_needed(single, alpha, beta) / len(single.classes))
        released: float = law.released
        return math.ceil(runs / released)
    return math.ceil(math.log(beta) / math.log1p(-MODEL_DEFECT_RATE))


def _mixture(law: RootCountsLaw) -> NoiseMixture:
    first = law.first
    return NoiseMixture(tuple(law.mixture()), first.noise == "discrete-laplace", len(first.classes))


def _samples_needed(law: CountsLaw, alpha: float, beta: float) -> int:
    if law.noise == "laplace":
        return laplace_sample_size(SCALE_ERROR, alpha=alpha, beta=beta)
    return discrete_laplace_sample_size(law.scale, SCALE_ERROR, alpha=alpha, beta=beta)


def _run(
    request: CommandCrosscheck, reader: Callable[[str], Reading], runs: int, chunk: int
) -> Tuple[List[Union[Reading, Failure]], RunDriver[str, str]]:
    with tempfile.TemporaryDirectory(prefix="refdp-crosscheck-cmd-") as tmp:
        data_path, schema_path = write_inputs(request.d, Path(tmp), "data.csv")
        program = make_program(
            request.protocol, request.words, str(schema_path), tmp, float(request.timeout), request.jobs
        )
        # leaving the pool waits for its threads: end the programs they wait on first
        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=request.jobs) as pool, program.running:
                driver: RunDriver[str, str] = RunDriver(
                    pool, chunk, runs, request.max_failure_rate, None, sides=("the data",), limit="--max-failure-rate"
                )
                outcomes = driver.run(
                    ProgramRuns(program, str(data_path), reader), 0, crosscheck_seeds(request.seed, runs)
                )
        finally:
            program.close()
    readings: List[Union[Reading, Failure]] = []
    for o in outcomes:
        assert isinstance(o, (Reading, Failure))
        readings.append(o)
    return readings, driver


LEAF = "(leaf)"
"""How the law's table names the outcome "the root is a leaf"."""


def _utilities(law: RootSplitLaw) -> List[Optional[str]]:
    """Each candidate's utility when every plan that splits scores it alike (else None: they differ)."""
    laws = [b.law for b in law.branches if b.law is not None]
    if not laws or any(x.utilities != laws[0].utilities for x in laws):
        return [None] * len(law.candidates)
    return [str(u) for u in laws[0].utilities]


def _split_result(
    law: RootSplitLaw, readings: Sequence[Reading], alpha: float, beta: float
) -> Tuple[GoodnessOfFit, Dict[str, Any]]:
    probs = law.probabilities()
    # An output that is no candidate is an outcome of probability 0 (index -1): it rejects.
    samples = [r.value if isinstance(r.value, int) else -1 for r in readings if r.kind != "no-split"]
    if not samples:
        raise DataError("no run of the program split the root: there is nothing to compare")
    quality = "/".join(sorted({b.law.quality for b in law.branches if b.law is not None}))
    result = crosscheck_finite(samples, probs, alpha=alpha, kind=f"root split ({quality})",
                               claim="crosscheck-split-choice")
    n = len(samples)
    observed = [0] * len(probs)
    for s in samples:
        if s >= 0:
            observed[s] += 1
    names = [c.describe() for c in law.candidates] + ([LEAF] if law.leaf_is_outcome else [])
    utilities = _utilities(law) + ([None] if law.leaf_is_outcome else [])
    table = [
        {"candidate": name, "utility": u, "probability": p, "observed": k / n}
        for name, u, p, k in zip(names, utilities, probs, observed)
    ]
    w = max(range(len(probs)), key=lambda i: abs(observed[i] / n - probs[i]))
    result = dataclasses.replace(result, detail=(
        f"largest gap at {names[w]}: observed {observed[w] / n:.5f}, exact {probs[w]:.5f}; "
        f"{len(probs)} outcomes"
    ))
    return _with_impossible(result, readings), {
        "statistic": "total variation between the observed and the exact frequencies of the root's outcomes",
        "detectable": _detectable_tv(tv_detectable(probs, n, alpha=alpha, beta=beta)),
        "law": table,
        "plans": _plans_table(law.branches, law.noisy_size),
    }


def _plans_table(branches: Sequence[PlanBranch], noisy_size: Optional[Fraction]) -> List[Dict[str, Any]]:
    """The plans of a root-split law for the report: probability, split probability, per-query epsilon."""
    return [
        {"plan": b.plan, "probability": b.weight, "splits": b.split,
         "epsilon": None if b.law is None else str(b.law.epsilon),
         "noisy_size_scale": None if noisy_size is None else str(noisy_size)}
        for b in branches
    ]


def _detectable_tv(tv: float) -> str:
    if tv > 1:
        return f"no law for certain (a total variation of {tv:.4g} would be needed; the largest is 1)"
    return f"a law at total variation {tv:.4g} or more"


def _with_impossible(result: GoodnessOfFit, readings: Sequence[Reading]) -> GoodnessOfFit:
    impossible = [r.detail for r in readings if r.kind == "impossible"]
    if not impossible:
        return result
    detail = f"{len(impossible)} outputs have probability 0 under refdp's law; the first: {impossible[0]}"
    return dataclasses.replace(result, detail=detail)


def _counts_result(
    law: RootCountsLaw, readings: Sequence[Reading], alpha: float, beta: float
) -> Tuple[GoodnessOfFit, Dict[str, Any]]:
    runs = [r.value for r in readings if isinstance(r.value, tuple)]
    noises = [x for run in runs for x in run]
    first = law.first
    single = law.single
    laplace = first.noise == "laplace"
    claim = ("crosscheck-noisy-size-mixture" if single is None
             else "crosscheck-laplace-ks" if laplace else "crosscheck-discrete-laplace-ks")
    k = len(first.classes)
    if any(r.kind == "impossible" for r in readings):
        n = sum(1 for r in readings if r.kind != "no-split")
        bound = dkw_bound(k * n, alpha) if single is not None else dkw_bound(n, alpha / k)
        result = GoodnessOfFit(first.noise, claim, n * (k if single is not None else 1), math.inf, bound, alpha,
                               True, "")
    elif not noises:
        raise DataError("no run of the program gave counts: there is nothing to compare")
    elif single is None:
        result = crosscheck_noise_mixture(runs, _mixture(law), alpha=alpha)
    elif laplace:
        result = crosscheck_laplace(noises, scale=float(single.scale), alpha=alpha)
    else:
        result = crosscheck_discrete_laplace([int(x) for x in noises], scale=single.scale, alpha=alpha)
    if single is None:
        error = noise_mixture_detectable_scale_error(_mixture(law), result.n, alpha=alpha, beta=beta)
    elif laplace:
        error = laplace_detectable_scale_error(result.n, alpha=alpha, beta=beta)
    else:
        error = discrete_laplace_detectable_scale_error(single.scale, result.n, alpha=alpha, beta=beta)
    scales = law.mixture()
    return _with_impossible(result, readings), {
        "statistic": "Kolmogorov-Smirnov distance between the noises (released minus true counts, all classes "
        "pooled) and the exact CDF",
        "detectable": "no scale error up to a factor 11" if math.isinf(error) else f"a noise scale off by {error:.1%} or more",
        "law": {"classes": list(first.classes), "counts": list(first.counts), "noise": first.noise,
                "scale": str(first.scale) if single is not None else None,
                "epsilon_per_cell": str(first.epsilon) if single is not None else None,
                "released": law.released,
                "mixture": [{"probability": p, "scale": str(b), "epsilon_per_cell": str(c.epsilon)}
                            for (p, b), (_, c) in zip(scales, law.branches)]},
    }


def _model_result(readings: Sequence[Reading], beta: float) -> Tuple[GoodnessOfFit, Dict[str, Any]]:
    if not readings:
        raise DataError("no run of the program wrote a model: there is nothing to compare")
    bad = [r for r in readings if r.kind == "impossible"]
    n = len(readings)
    detail = f"{len(bad)} of {n} models disagree; the first: {bad[0].detail}" if bad else f"all {n} models agree"
    result = GoodnessOfFit("refdp model", "crosscheck-command", n, len(bad) / n, 0.0, 0.0, bool(bad), detail)
    return result, {
        "statistic": "the share of runs whose model does not verify or disagrees with refdp's for these inputs",
        "detectable": f"bad models in {-math.expm1(math.log(beta) / n):.1%} of the runs or more",
        "law": None,
    }


def _plan_words(noisy_size: Optional[Fraction], params: Mapping[str, Param]) -> str:
    if noisy_size is not None:
        return f" (the noisy size N~ = |D| + DLap({noisy_size}), drawn first, chooses the plan)"
    if "size_share" in params:
        return " (size_share 0: no noisy size)"
    return ""


def _calibration(law: SplitLaw, relation: Relation) -> str:
    return (
        f"quality {law.quality} of sensitivity {law.sensitivity} under {relation.value}, "
        + ("monotone utilities: P ~ exp(epsilon u / sensitivity), no factor 2" if law.monotone
           else "P ~ exp(epsilon u / (2 sensitivity))")
    )


def _compared(request: CommandCrosscheck, spec: AlgorithmSpec, params: Mapping[str, Param], law: Any) -> str:
    data = f"{len(request.d)} rows of {request.data_name}"
    total = f"a total of {request.epsilon}"
    if isinstance(law, RootSplitLaw):
        what = "pairs (attribute, value or threshold)" if any(
            c.value is not None or c.threshold is not None for c in law.candidates) else "attributes"
        head = (
            f"the root split of {spec.name} (variant {params['variant']}) on {data}, against refdp's exponential "
            f"mechanism over {len(law.candidates)} {what}"
        )
        leaves = (
            "; a leaf at the root is an outcome, with the probability that the plan stops the root"
            if law.leaf_is_outcome else
            "; runs whose root is a leaf are left out (whether the root splits is decided by other noise)"
        )
        single = law.single
        if single is not None:
            return (
                f"{head}: epsilon {single.epsilon} per query from refdp's budget plan for {total}"
                f"{_plan_words(law.noisy_size, params)}, {_calibration(single, request.relation)}{leaves}"
            )
        shown = "; ".join(
            f"{b.plan} (probability {b.weight:.4g}): "
            + ("a leaf" if b.law is None else f"epsilon {b.law.epsilon} per query, splits with probability "
               f"{b.split:.4g}" if b.split is not None else f"epsilon {b.law.epsilon} per query")
            for b in law.branches
        )
        laws = [b.law for b in law.branches if b.law is not None]
        calibrations = "; ".join(sorted({_calibration(x, request.relation) for x in laws}))
        return (
            f"{head}, mixed over refdp's plans for {total}{_plan_words(law.noisy_size, params)}: {shown}; "
            f"{calibrations}{leaves}"
        )
    if isinstance(law, RootCountsLaw):
        first = law.first
        counts = ", ".join(f"{c} {n}" for c, n in zip(first.classes, first.counts))
        one = law.single
        released = "" if law.always else (
            f"; the root releases its counts in a share {law.released:.4g} of the runs (the others are left out)"
        )
        if one is not None:
            return (
                f"the root's noisy class counts of {spec.name} on {data}, against the true counts ({counts}) plus "
                f"independent {one.noise} noise of scale {one.scale} per class (epsilon {one.epsilon} per "
                f"cell from refdp's budget plan for {total}{_plan_words(law.noisy_size, params)}, "
                f"{request.relation.value}){released}"
            )
        shown = ", ".join(f"{b} with probability {p:.4g}" for p, b in law.mixture())
        return (
            f"the root's noisy class counts of {spec.name} on {data}, against the true counts ({counts}) plus "
            f"{first.noise} noise whose scale refdp's plan chooses for {total}{_plan_words(law.noisy_size, params)}: "
            f"{shown}, the classes' noises independent given the scale ({request.relation.value}){released}"
        )
    return (
        f"the refdp model each run writes, for {spec.name} on {data} with a total epsilon of {request.epsilon}: it "
        f"must verify (structure, schema, receipt, and its charges re-derived from its plan where they do not depend "
        f"on the data) and state refdp's algorithm, variant, parameters, schema, relation and totals for these inputs"
    )


def crosscheck_command(request: CommandCrosscheck) -> Dict[str, Any]:
    """Cross-check ``request``; the report (the fields ``crosscheck-cmd --json`` prints), whatever the verdict."""
    started = time.perf_counter()
    if request.output not in OUTPUTS:
        raise InvalidParameterError(f"--output {request.output!r}: use one of {', '.join(OUTPUTS)}")
    spec = get_algorithm(request.algorithm)
    params = spec.resolve(request.params)
    reader: Callable[[str], Reading]
    law: Any = None
    if request.output == "model":
        reader = ModelReader(_expectation(spec, request.d, request.epsilon, params, request.relation))
    else:
        law = _law(request, spec, params)
        reader = SplitReader(law) if isinstance(law, RootSplitLaw) else CountsReader(law)
    needed = planned_runs(request.output, law, request.alpha, request.beta)
    if request.runs is None and needed > MAX_TRIALS:
        raise InvalidParameterError(
            f"--output {request.output}: the power wanted needs {needed} runs, more than {MAX_TRIALS} (the root "
            f"rarely releases what is compared under these parameters); give --runs N for fewer"
        )
    runs = needed if request.runs is None else request.runs
    chunk = chunk_size(request.protocol, request.batch, runs, request.jobs)
    outcomes, driver = _run(request, reader, runs, chunk)
    readings = [o for o in outcomes if isinstance(o, Reading)]
    model_charges = None
    if isinstance(reader, ModelReader):
        model_charges = "re-derived" if reader.expected.charge_kinds is None else "reference runs"
    if isinstance(law, RootSplitLaw):
        result, fields = _split_result(law, readings, request.alpha, request.beta)
    elif isinstance(law, RootCountsLaw):
        result, fields = _counts_result(law, readings, request.alpha, request.beta)
    else:
        result, fields = _model_result(readings, request.beta)
    impossible = [r for r in readings if r.kind == "impossible"]
    deviation = {
        "root-split": f"a law at total variation {SPLIT_TV:g} or more from refdp's",
        "leaf-counts": f"a noise scale off by {SCALE_ERROR:.0%} or more (either way)",
        "model": f"a bad model in {MODEL_DEFECT_RATE:.0%} of the runs or more",
    }[request.output]
    return {
        "output": request.output,
        "algorithm": spec.name,
        "params": {k: str(v) for k, v in sorted(params.items())},
        "data": f"{len(request.d)} rows of {request.data_name}",
        "epsilon": str(request.epsilon),
        "relation": request.relation.value,
        "program": request.cmd,
        "compared": _compared(request, spec, params, law),
        **fields,
        "distance": result.statistic,
        "threshold": result.threshold,
        "claim": result.claim,
        "false_alarm": 0.0 if request.output == "model" else request.alpha,
        "power": 1 - request.beta,
        "deviation": deviation,
        "runs_for_power": needed,
        "runs": runs,
        "sizing": "given by --runs" if request.runs is not None else "computed for the power",
        "samples": result.n,
        "verdict": "REJECT" if result.rejected else "ACCEPT",
        "detail": result.detail,
        "no_split": sum(1 for r in readings if r.kind == "no-split"),
        "model_charges": model_charges,
        "impossible": len(impossible),
        "first_impossible": impossible[0].detail if impossible else "",
        "failures": sum(driver.failed),
        "failure_kinds": dict(sorted(driver.kinds.items())),
        "first_failure": driver.first_failure,
        "seed": request.seed,
        "jobs": request.jobs,
        "timeout": request.timeout,
        "protocol": request.protocol,
        "batch": chunk if request.protocol == "batch" else None,
        "wall_time": time.perf_counter() - started,
    }
