"""The noisy-majority classifier: a depth-0 tree.

It releases the class histogram of the whole training set with noise on every
class of the schema (zeros included) and predicts the class with the largest
released count.  It is the baseline every DP tree must beat, and the smallest
complete use of the data model, the mechanisms and the ledger.

Budget: under ``add-remove`` one record changes one class count by 1, so each
cell gets the whole epsilon and the cells compose in parallel (claim
``parallel-composition``); under ``substitute`` a record can leave one class
and join another, so each cell gets epsilon/2.  The receipt's total equals the
requested epsilon either way.  Noise: discrete Laplace (exact sampler) by
default, continuous Laplace on request.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Optional

from refdp.engine import REFERENCE, Engine
from refdp.algorithms.derivation import model_budget, check_plan_inputs, check_trees, check_voting, check_weights, fresh_ledger, integer_counts, refuse
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.algorithms.root_law import CountsLaw, RootCountsLaw, mixed_counts
from refdp.data import Dataset
from refdp.mechanisms import NoiseKind, cell_epsilon, histogram_charges
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource
from refdp.tree import Leaf, TreeModel

__all__ = ["fit_noisy_majority", "derive_noisy_majority", "root_counts_law", "SPEC"]

CLAIMS = ("discrete-laplace-mechanism", "laplace-mechanism", "parallel-composition")


def fit_noisy_majority(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Release the noisy class histogram of ``data`` and predict its argmax."""
    ledger = start_ledger(data, relation)
    node = engine.counts(data)
    histogram = node.class_counts(node.root())
    classes = data.schema.classes
    counts = engine.histogram(
        histogram, epsilon=cell_epsilon(epsilon, relation), rng=rng, ledger=ledger, label=LABEL,
        noise=str(params["noise"]), names=classes,
    )
    return finish_model(SPEC.name, data, params, [Leaf(tuple(counts))], ledger, budget=epsilon)


LABEL = "class histogram"


def derive_noisy_majority(model: TreeModel) -> Optional[Ledger]:
    """The one histogram's charges, from the budget, the relation and the classes (see :mod:`refdp.algorithms.derivation`).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("noisy-majority", load("vote"), 1, rng=1)
    >>> derive_noisy_majority(model).charges == model.receipt.charges
    True
    """
    check_plan_inputs(model, {})
    check_trees(model, 1)
    check_weights(model, (1.0,))
    check_voting(model, "vote")
    if not isinstance(model.trees[0], Leaf):
        refuse("noisy-majority releases one leaf, but the model's tree splits")
    noise: NoiseKind = "laplace" if model.params["noise"] == "laplace" else "discrete-laplace"
    if noise == "discrete-laplace":
        integer_counts(model, "discrete Laplace counts")
    ledger = fresh_ledger(model)
    for charge in histogram_charges(
        epsilon=cell_epsilon(model_budget(model), ledger.relation), label=LABEL, names=model.schema.classes,
        noise=noise,
    ):
        ledger.record(charge)
    return ledger


def root_counts_law(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> RootCountsLaw:
    """The law of the released histogram (the tree's only node) for ``data``, ``epsilon`` and ``params``.

    One plan, no noisy size: the histogram is released in every run.
    """
    node = REFERENCE.counts(data)
    law = CountsLaw(
        data.schema.classes, tuple(node.class_counts(node.root())), cell_epsilon(epsilon, relation),
        str(params["noise"]),
    )
    return mixed_counts([(1.0, 1.0, law)], None)


SPEC = register(
    AlgorithmSpec(
        name="noisy-majority",
        summary="noisy class histogram of the training set; predicts its largest class",
        source="the Laplace / discrete Laplace mechanism on a histogram (Dwork et al. 2006)",
        variants=(
            Variant(
                "sound", True, "noise on every class of the schema",
                claims=("discrete-laplace-mechanism", "parallel-composition"),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter(
                "noise",
                str,
                "discrete-laplace",
                "noise distribution of the counts",
                ("discrete-laplace", "laplace"),
            ),
        ),
        claims=CLAIMS,
        fit=fit_noisy_majority,
        engines=("reference", "array"),
        derive=derive_noisy_majority,
    )
)
