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
protects nobody whose record is alone in its cell.  A receipt delta of 1 or
more promises nothing.

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

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, List, Mapping, Tuple

from refdp.algorithms.greedy import REFERENCE, Engine
from refdp.algorithms.rdt import (
    CATEGORICAL_SPLITS,
    RandomTreeBuilder,
    base_columns,
    int_param,
    resolve_max_depth,
)
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import Dataset
from refdp.errors import InvalidParameterError
from refdp.mechanisms import bernoulli
from refdp.privacy import Relation, as_fraction
from refdp.privacy.lqs import LqsResult, exp_bounds, float_up, lqs_delta, lqs_min_epsilon
from refdp.rng import RandomSource
from refdp.tree import Count, Node, TreeModel

__all__ = ["TreeGuarantee", "tree_guarantee", "fit_kanon_rdt", "SPEC"]

SOUND_CLAIMS = ("lqs-sampling-suppression", "lqs-delta-certified", "kanon-rdt-privacy", "sequential-composition")
CLAIMS = SOUND_CLAIMS + ("leaf-total-suppression-not-private",)

VARIANTS = ("sound", "leaf-total")


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
        raise InvalidParameterError(
            f"kanon-rdt gives each of its {n_trees} trees epsilon/{factor} = {float(share):.6g} "
            f"under {relation.value}: {exc}. With beta={beta} the total epsilon must be at least "
            f"{factor * lqs_min_epsilon(beta):.6g}"
        ) from None
    if relation is Relation.ADD_REMOVE:
        return TreeGuarantee(share, Fraction(result.delta), result)
    grown = Fraction(float_up((1 + exp_bounds(share, 64)[1]) * Fraction(result.delta)))
    if grown >= 1:
        raise InvalidParameterError(
            f"under substitute each tree's delta (1 + e^{float(share):.4g}) * {result.delta:.4g} "
            "is at least 1, which promises nothing; raise k or epsilon, or lower beta"
        )
    return TreeGuarantee(2 * share, grown, result)


def _suppress(counts: List[int], k: int, leaf_total: bool) -> Tuple[Count, ...]:
    if leaf_total:
        return tuple(counts) if sum(counts) >= k else (0,) * len(counts)
    return tuple(c if c >= k else 0 for c in counts)


def _sampler(beta: Fraction, rng: RandomSource, engine: Engine) -> Callable[[], bool]:
    """One Bernoulli(beta) draw per call: :func:`~refdp.mechanisms.bernoulli` on the reference engine.

    The array engine makes the very draw ``bernoulli`` makes,
    ``rng.randrange(denominator) < numerator`` of beta in lowest terms, with
    beta checked once rather than once per row.
    """
    if engine is REFERENCE:
        return lambda: bernoulli(beta, rng)
    numerator, denominator, randrange = beta.numerator, beta.denominator, rng.randrange
    return lambda: randrange(denominator) < numerator


def _fit(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine,
) -> TreeModel:
    """:func:`fit_kanon_rdt` on ``engine``.  The array engine makes the sampling draws directly;
    the rows are drawn and routed one by one on both engines, because a node of the lazily drawn
    structure is drawn between two rows' samples.
    """
    schema = data.schema
    variant = str(params["variant"])
    if variant not in VARIANTS:
        raise InvalidParameterError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    n_trees = int_param(params, "n_trees", 1)
    k = int_param(params, "k", 0)
    depth = resolve_max_depth(schema, int_param(params, "max_depth", -1))
    categorical = str(params["categorical"])
    beta = as_fraction(params["beta"], "beta")
    if not 0 < beta < 1:
        raise InvalidParameterError(f"beta (the sampling probability) must be in (0, 1), got {params['beta']!r}")
    guarantee = tree_guarantee(epsilon, n_trees, k, beta, relation)
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
        keep = _sampler(beta, rng, engine)
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
                f"delta_t<={guarantee.lqs.delta!r} (max at n={guarantee.lqs.n_at_max})"
            ),
        )
        trees.append(builder.build(lambda leaf: released.get(leaf, zeros), collapse_zeros=True))
    return finish_model(SPEC.name, data, params, trees, ledger, voting="sum-counts")


def fit_kanon_rdt(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
) -> TreeModel:
    """Train N_t random decision trees, each on its own Bernoulli(beta) sample, with counts below k suppressed."""
    return _fit(data, epsilon, params, rng, relation, REFERENCE)


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
            Parameter("n_trees", int, 10, "number of trees N_t, each on its own sample"),
            Parameter("max_depth", int, -1, "depth of every tree; -1 means half the number of attributes"),
            Parameter("k", int, 5, "suppression threshold: counts below k are set to 0 (0 = none)"),
            Parameter("beta", float, 0.1, "sampling probability beta in (0, 1)"),
            Parameter(
                "categorical", str, "multiway",
                "categorical splits: one child per value (Fan et al.) or value-vs-rest",
                CATEGORICAL_SPLITS,
            ),
        ),
        claims=CLAIMS,
        fit=fit_kanon_rdt,
        engine_fit=_fit,
    )
)
