"""k-AnonToRdt: random decision trees made private by sampling and suppression (Waseda, Nojima & Wang 2024).

Algorithm 3 of the paper.  For each of the N_t trees: draw a structure from
the public schema (:mod:`refdp.algorithms.rdt`), keep every training row
independently with probability beta (a fresh sample per tree, exact
Bernoulli(beta) sampler), count the kept rows in every (leaf, label) cell,
and set every count n_i(leaf(y)) below k to 0.  No noise is added.
Prediction adds the released counts of the reached leaves over all trees
("sum-counts").

Guarantee (claims ``lqs-sampling-suppression``, ``kanon-rdt-privacy``).
Given its structure, a tree releases the counts of the data-independent map
g(x, y) = (leaf(x), y) with counts below k suppressed: a strongly safe
k-anonymisation after Bernoulli(beta) sampling, (epsilon_t, delta_t)-DP under
add-remove for epsilon_t >= -ln(1 - beta) with delta_t = lqs_delta(k,
beta, epsilon_t) (:mod:`refdp.privacy.lqs`).  The trees use independent
samples and structures, so basic composition gives (N_t epsilon_t,
N_t delta_t).

How ``epsilon`` maps to the theorem: the user gives the *total* epsilon.
Under add-remove each tree's epsilon_t = epsilon / N_t; under substitute
epsilon_t = epsilon / (2 N_t) and each tree is charged (2 epsilon_t,
(1 + e^epsilon_t) delta_t) by group privacy (a substitution is a removal
then an addition), with e^epsilon_t rounded up.  The receipt's epsilon is
the requested epsilon exactly; its delta is N_t times the per-tree charge.
Settings with epsilon_t < -ln(1 - beta) are refused (the theorem does not
apply): the message gives the smallest total epsilon that works.

k = 0 reproduces the paper's unpruned baseline (Table 6's k = 0 rows): a
count is never below 0, and suppressing below 1 changes nothing either, so
both get the k = 1 guarantee, whose delta is at least beta -- sampling alone
protects nobody whose record is alone in its cell.

The receipt's delta is checked before any row is read (claim
``kanon-rdt-privacy``, "Refusal"): a delta of 1 or more promises nothing
and is always refused, and a delta above ``max_delta`` (default 1e-5) is
refused unless the caller raises ``max_delta``.  Every refusal names
settings that would pass (:func:`advise`), each one checked with the same
certified delta.

Lazy structure: only the nodes that kept rows reach are drawn (Adult's
multiway trees of depth 7 and more would have millions of leaves), and every
subtree whose released counts are all 0 is shown as one zero leaf.  That is
a function of the counts a fully drawn tree would release, and the drawn
nodes have the full tree's distribution (:mod:`refdp.algorithms.rdt`), so
the guarantee is unchanged.

Variant ``leaf-total`` (UNSOUND, a planted fault for the audits): suppress a
leaf's counts only when the leaf's *total* is below k.  One minority record
in a large leaf is then released with probability beta, so no delta below
beta holds (claim ``leaf-total-suppression-not-private``); its receipt
states the per-cell guarantee and is marked unsound.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Tuple

from refdp.engine import REFERENCE, Engine
from refdp.algorithms.rdt import (
    CATEGORICAL_SPLITS,
    RandomTreeBuilder,
    base_columns,
    resolve_max_depth,
)
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import Dataset
from refdp.errors import InvalidParameterError, PrivacyError
from refdp.privacy import Relation, as_fraction
from refdp.privacy.lqs import (
    MAX_EPSILON,
    LqsResult,
    exp_bounds,
    float_up,
    largest_beta,
    lqs_delta,
    lqs_min_epsilon,
    smallest_k,
)
from refdp.rng import RandomSource
from refdp.tree import Count, Node, TreeModel

__all__ = [
    "DEFAULT_MAX_DELTA",
    "TreeGuarantee",
    "tree_guarantee",
    "Settings",
    "receipt_delta",
    "Advice",
    "advise",
    "certify",
    "fit_kanon_rdt",
    "SPEC",
]

SOUND_CLAIMS = ("lqs-sampling-suppression", "lqs-delta-certified", "kanon-rdt-privacy", "sequential-composition")
CLAIMS = SOUND_CLAIMS + ("leaf-total-suppression-not-private",)

VARIANTS = ("sound", "leaf-total")

DEFAULT_MAX_DELTA = 1e-5
"""The largest receipt delta kanon-rdt certifies unless told otherwise (below 1/n for every built-in data set)."""

# One tree of depth 1: at epsilon 1 and delta <= 1e-5 every further tree forces a smaller beta and a
# larger k, and a cell then survives only with hundreds of rows; measured in docs/results.md
# (section "kanon-rdt defaults"), where k = 19 rather than the minimal 17 lets the defaults pass
# from epsilon 0.86 on.
DEFAULT_N_TREES = 1
DEFAULT_K = 19
DEFAULT_BETA = 0.3
DEFAULT_MAX_DEPTH = 1


@dataclass(frozen=True)
class TreeGuarantee:
    """The (epsilon, delta) charged per tree and the Li-Qardaji-Su result behind it."""

    epsilon: Fraction
    delta: Fraction
    lqs: LqsResult


def tree_guarantee(
    epsilon: Fraction, n_trees: int, k: int, beta: Fraction, relation: Relation
) -> TreeGuarantee:
    """The per-tree charge for a total ``epsilon`` over ``n_trees`` trees (see the module notes)."""
    factor = n_trees if relation is Relation.ADD_REMOVE else 2 * n_trees
    share = epsilon / factor
    try:
        result = lqs_delta(max(k, 1), beta, share)
    except InvalidParameterError as exc:
        limit = (
            f"at most {factor * MAX_EPSILON}" if share > MAX_EPSILON
            else f"at least {factor * lqs_min_epsilon(beta):.6g}"
        )
        raise InvalidParameterError(
            f"kanon-rdt gives each of its {n_trees} trees epsilon/{factor} = {float(share):.6g} "
            f"under {relation.value}: {exc}. With beta={beta} the total epsilon must be {limit}"
        ) from None
    if relation is Relation.ADD_REMOVE:
        return TreeGuarantee(share, Fraction(result.delta), result)
    exact = (1 + exp_bounds(share, 64)[1]) * Fraction(result.delta)
    # compared before rounding: at a large epsilon_t, e^epsilon_t does not fit in a float
    if exact >= 1 or Fraction(float_up(exact)) >= 1:
        raise InvalidParameterError(
            f"under substitute each tree's delta (1 + e^{float(share):.4g}) * {result.delta:.4g} "
            "is at least 1, which promises nothing; raise k or epsilon, or lower beta"
        )
    return TreeGuarantee(2 * share, Fraction(float_up(exact)), result)


@dataclass(frozen=True)
class Settings:
    """The inputs the receipt's (epsilon, delta) depends on: nothing here reads the data."""

    epsilon: Fraction
    n_trees: int
    k: int
    beta: Fraction
    relation: Relation

    def guarantee(self) -> TreeGuarantee:
        return tree_guarantee(self.epsilon, self.n_trees, self.k, self.beta, self.relation)

    @property
    def lqs_epsilon(self) -> Fraction:
        """The epsilon at which each tree's Li-Qardaji-Su delta is taken."""
        return self.epsilon / (self.n_trees if self.relation is Relation.ADD_REMOVE else 2 * self.n_trees)


def receipt_delta(settings: Settings) -> Fraction:
    """The receipt's total delta, N_t times the per-tree charge (the ledger composes the trees' scopes so)."""
    return settings.n_trees * settings.guarantee().delta


def _passes(settings: Settings, max_delta: Fraction) -> bool:
    try:
        total = receipt_delta(settings)
    except InvalidParameterError:
        return False
    return total < 1 and total <= max_delta


def _decimal(value: Fraction, digits: int, rounding: str) -> Fraction:
    """``value`` rounded to ``digits`` significant decimal digits in the direction ``rounding``."""
    with localcontext() as ctx:
        ctx.prec, ctx.rounding = digits, rounding
        return Fraction(+(Decimal(value.numerator) / Decimal(value.denominator)))


def _show(value: Fraction) -> str:
    """A number the CLI reads back as exactly ``value`` when ``value`` has a short decimal expansion."""
    if value.denominator == 1:
        return str(value.numerator)
    short = repr(float(value))
    return short if Fraction(short) == value else str(value)


def _lqs_target(settings: Settings, max_delta: Fraction) -> Fraction:
    """A per-tree Li-Qardaji-Su delta that keeps the receipt within ``max_delta`` (see tree_guarantee)."""
    target = max_delta / settings.n_trees
    if settings.relation is Relation.SUBSTITUTE:
        target /= 1 + exp_bounds(settings.lqs_epsilon, 64)[1]
    return min(target, Fraction(1, 2))


def _advise_k(settings: Settings, max_delta: Fraction) -> Optional[int]:
    try:
        k = smallest_k(settings.beta, settings.lqs_epsilon, _lqs_target(settings, max_delta))
    except InvalidParameterError:
        return None
    # the substitute charge rounds (1 + e^epsilon_t) delta_t up, which can cost a step of k
    for candidate in range(k, k + 4):
        if _passes(replace(settings, k=candidate), max_delta):
            return candidate
    return None


def _advise_beta(settings: Settings, max_delta: Fraction) -> Optional[Fraction]:
    target = _lqs_target(settings, max_delta)
    for digits in range(2, 10):
        denominator = 10**digits
        try:
            beta = largest_beta(max(settings.k, 1), settings.lqs_epsilon, target, denominator=denominator)
        except InvalidParameterError:
            continue
        # two significant digits at least, so the advice is neither 0.01 nor 0.0123456
        if beta * denominator >= 10 and _passes(replace(settings, beta=beta), max_delta):
            return beta
    return None


def _advise_n_trees(settings: Settings, max_delta: Fraction) -> Optional[int]:
    if settings.n_trees == 1 or not _passes(replace(settings, n_trees=1), max_delta):
        return None
    good, bad = 1, settings.n_trees
    while bad - good > 1:  # bisection; every answer returned has passed the check
        mid = (good + bad) // 2
        if _passes(replace(settings, n_trees=mid), max_delta):
            good = mid
        else:
            bad = mid
    return good


def _advise_epsilon(settings: Settings, max_delta: Fraction) -> Optional[Fraction]:
    factor = settings.epsilon / settings.lqs_epsilon
    ceiling = MAX_EPSILON * factor
    bad, good = settings.epsilon, settings.epsilon * 2
    while not _passes(replace(settings, epsilon=good), max_delta):
        if good >= ceiling:
            return None
        bad, good = good, min(good * 2, ceiling)
    while good - bad > good / 200:
        mid = (good + bad) / 2
        if _passes(replace(settings, epsilon=mid), max_delta):
            good = mid
        else:
            bad = mid
    for digits in (2, 3, 4, 6):
        rounded = _decimal(good, digits, ROUND_CEILING)
        if _passes(replace(settings, epsilon=rounded), max_delta):
            return rounded
    return None


@dataclass(frozen=True)
class Advice:
    """Settings that pass the delta check, each changing one of the caller's values (None: none found).

    ``defaults`` says whether the registered defaults of k, beta and n_trees
    pass at the caller's epsilon and relation; ``command`` is the ``delta``
    subcommand that answers the per-tree question behind ``k`` (or ``beta``).
    """

    k: Optional[int]
    beta: Optional[Fraction]
    n_trees: Optional[int]
    epsilon: Optional[Fraction]
    defaults: bool
    command: str

    def text(self) -> str:
        options = []
        if self.k is not None:
            options.append(f"--param k={self.k}")
        if self.beta is not None:
            options.append(f"--param beta={_show(self.beta)}")
        if self.n_trees is not None:
            options.append(f"--param n_trees={self.n_trees}")
        if self.epsilon is not None:
            options.append(f"--epsilon {_show(self.epsilon)}")
        if self.defaults:
            options.append(
                f"the defaults (--param k={DEFAULT_K} --param beta={DEFAULT_BETA} --param n_trees={DEFAULT_N_TREES})"
            )
        found = "; ".join(options) if options else "none found by changing one of k, beta, n_trees, epsilon"
        return f"settings that pass, each changing one value: {found}. {self.command}"


def advise(settings: Settings, max_delta: Fraction) -> Advice:
    """Settings near ``settings`` whose receipt delta is below 1 and at most ``max_delta``."""
    k = _advise_k(settings, max_delta)
    beta = _advise_beta(settings, max_delta)
    defaults = replace(settings, k=DEFAULT_K, beta=as_fraction(DEFAULT_BETA, "beta"), n_trees=DEFAULT_N_TREES)
    target = _show(_decimal(_lqs_target(settings, max_delta), 3, ROUND_FLOOR))
    per_tree = "max_delta/n_trees" + (" / (1 + e^epsilon_t)" if settings.relation is Relation.SUBSTITUTE else "")
    question = f"--beta {_show(settings.beta)}" if k is not None else f"--k {max(settings.k, 1)}"
    command = (
        f"`python3 -m refdp delta {question} --epsilon {settings.lqs_epsilon} --target-delta {target}` "
        f"gives the {'smallest k' if k is not None else 'largest beta'} for one tree "
        f"(epsilon_t = {settings.lqs_epsilon}, target {per_tree})"
    )
    return Advice(
        k=k,
        beta=beta,
        n_trees=_advise_n_trees(settings, max_delta),
        epsilon=_advise_epsilon(settings, max_delta),
        defaults=defaults != settings and _passes(defaults, max_delta),
        command=command,
    )


def certify(settings: Settings, max_delta: Fraction) -> TreeGuarantee:
    """The per-tree guarantee, or InvalidParameterError with :func:`advise`'s settings.

    Refused: settings the theorem does not cover, a receipt delta of 1 or
    more (it promises nothing, whatever ``max_delta`` says), and a receipt
    delta above ``max_delta``.
    """
    try:
        guarantee = settings.guarantee()
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            f"{exc}; under --param max_delta={_show(max_delta)} as well, {advise(settings, max_delta).text()}"
        ) from None
    total = settings.n_trees * guarantee.delta
    if total <= max_delta and total < 1:
        return guarantee
    shape = (
        f"{settings.n_trees} tree(s) x {float(guarantee.delta):.4g} = {float(total):.4g} "
        f"(k={settings.k}, beta={_show(settings.beta)}, epsilon={settings.epsilon} under "
        f"{settings.relation.value})"
    )
    if total >= 1:
        reason = "which is 1 or more and promises nothing (refused whatever max_delta says)"
    else:
        reason = (
            f"above --param max_delta={_show(max_delta)}; raise that only if a delta this large "
            "is acceptable (delta bounds the chance that the epsilon guarantee fails outright)"
        )
    raise InvalidParameterError(
        f"kanon-rdt's receipt would state delta = {shape}, {reason}; {advise(settings, max_delta).text()}"
    )


def _suppress(counts: List[int], k: int, leaf_total: bool) -> Tuple[Count, ...]:
    if leaf_total:
        return tuple(counts) if sum(counts) >= k else (0,) * len(counts)
    return tuple(c if c >= k else 0 for c in counts)


def fit_kanon_rdt(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train N_t random decision trees on Bernoulli(beta) samples with counts below k suppressed.

    ``engine`` supplies the Bernoulli draws (the array engine checks beta
    once, then makes the same draws); the rows are drawn and routed one by
    one on both engines, because a node of the lazily drawn structure is
    drawn between two rows' samples.
    """
    schema = data.schema
    variant = str(params["variant"])
    if variant not in VARIANTS:
        raise InvalidParameterError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    n_trees = int(params["n_trees"])
    k = int(params["k"])
    depth = resolve_max_depth(schema, int(params["max_depth"]))
    categorical = str(params["categorical"])
    beta = as_fraction(params["beta"], "beta")
    max_delta = as_fraction(params["max_delta"], "max_delta")
    guarantee = certify(Settings(epsilon, n_trees, k, beta, relation), max_delta)
    total_delta = n_trees * guarantee.delta
    leaf_total = variant == "leaf-total"
    ledger = start_ledger(data, relation)
    columns, labels, rows = base_columns(data)
    n_classes = schema.n_classes
    zeros: Tuple[Count, ...] = (0,) * n_classes
    trees: List[Node] = []
    for t in range(n_trees):
        scope = f"tree{t}"
        builder = RandomTreeBuilder(schema, depth, categorical, rng)
        ledger.record_data_independent(
            label=f"tree {t}: random structure",
            partition=(scope,),
            note="Fan et al. structure from the public schema; nodes drawn when first reached",
        )
        counts: Dict[int, List[int]] = {}
        keep = engine.bernoulli(beta, rng)
        for row in rows:
            if keep():
                leaf = builder.leaf_index(columns, row)
                tally = counts.get(leaf)
                if tally is None:
                    tally = counts[leaf] = [0] * n_classes
                tally[labels[row]] += 1
        released = {leaf: _suppress(c, k, leaf_total) for leaf, c in counts.items()}
        ledger.charge(
            label=f"tree {t}: Bernoulli({beta}) sample, counts below {k} set to 0 "
            + ("on the leaf total (UNSOUND)" if leaf_total else "per (leaf, label)"),
            mechanism="sample-and-suppress",
            epsilon=guarantee.epsilon,
            delta=guarantee.delta,
            sensitivity=None,
            claims=CLAIMS if leaf_total else SOUND_CLAIMS,
            partition=(scope,),
            sound=not leaf_total,
            note=(
                f"Li-Qardaji-Su: k={guarantee.lqs.k}, beta={beta}, epsilon_t={guarantee.lqs.epsilon}, "
                f"delta_t<={guarantee.lqs.delta!r} (max at n={guarantee.lqs.n_at_max}); "
                f"receipt delta {n_trees} x delta_t checked <= max_delta={params['max_delta']!r} before training"
            ),
        )
        trees.append(builder.build(lambda leaf: released.get(leaf, zeros), collapse_zeros=True))
    model = finish_model(SPEC.name, data, params, trees, ledger, voting="sum-counts")
    if model.receipt.delta != total_delta:
        raise PrivacyError(f"kanon-rdt checked delta {total_delta} but its ledger composed {model.receipt.delta}")
    return model


SPEC = register(
    AlgorithmSpec(
        name="kanon-rdt",
        summary="random decision trees on Bernoulli(beta) samples; (leaf, label) counts below k set to 0; no noise",
        source="Waseda, Nojima & Wang, Appl. Sci. 2024 (Algorithm 3); Li, Qardaji & Su, ASIACCS 2012",
        variants=(
            Variant(
                "sound", True, "suppression per (leaf, label) cell, as in the paper",
                claims=(
                    "kanon-rdt-privacy", "lqs-delta-certified", "lqs-sampling-suppression",
                    "sequential-composition",
                ),
            ),
            Variant(
                "leaf-total", False, "suppression on the leaf total only (planted fault: delta >= beta)",
                claims=(
                    "kanon-rdt-privacy", "leaf-total-suppression-not-private", "lqs-delta-certified",
                    "lqs-sampling-suppression", "sequential-composition",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", VARIANTS),
            Parameter("n_trees", int, DEFAULT_N_TREES, "number of trees N_t, each on its own sample", minimum=1),
            Parameter(
                "max_depth", int, DEFAULT_MAX_DEPTH, "depth of every tree; -1 means half the number of attributes",
                minimum=-1,
            ),
            Parameter("k", int, DEFAULT_K, "suppression threshold: counts below k are set to 0 (0 = none)", minimum=0),
            Parameter(
                "beta", float, DEFAULT_BETA, "sampling probability beta in (0, 1)",
                minimum=0.0, maximum=1.0, minimum_open=True, maximum_open=True,
            ),
            Parameter(
                "max_delta", float, DEFAULT_MAX_DELTA,
                "largest receipt delta to certify, in (0, 1]; settings above it are refused before training",
                minimum=0.0, maximum=1.0, minimum_open=True,
            ),
            Parameter(
                "categorical", str, "multiway",
                "categorical splits: one child per value (Fan et al.) or value-vs-rest",
                CATEGORICAL_SPLITS,
            ),
        ),
        claims=CLAIMS,
        fit=fit_kanon_rdt,
        engines=("reference", "array"),
    )
)
