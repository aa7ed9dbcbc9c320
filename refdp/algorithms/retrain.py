"""Verification by re-training: an auditor who holds the training data and the seed re-runs the training.

A model trained with a seed is a deterministic function of (algorithm,
parameters, budget, relation, data, seed), on either engine.  Re-training
with the model's own algorithm, parameters, budget and relation on the data
and seed the auditor holds must therefore give the very file, byte for byte
(but for a signature, which needs the trainer's key).  Any difference --- a
leaf count edited, a tree's weight changed, a charge the run did not make
--- shows up as the first field that differs (:func:`first_difference`).
This is the one check that reaches the released numbers themselves; the
re-derivation of the charges (:mod:`refdp.algorithms.derivation`) checks the
plan without the data.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, List, Optional

from refdp.algorithms.derivation import model_budget
from refdp.algorithms.registry import get_algorithm
from refdp.data import Dataset
from refdp.errors import ModelError
from refdp.rng import as_rng
from refdp.tree import TreeModel
from refdp.tree.integrity import DIGEST, SIGNATURE

__all__ = ["retrained", "first_difference", "check_retrained"]


def retrained(model: TreeModel, data: Dataset, seed: int, engine: str = "reference",
              epsilon: Optional[Fraction] = None) -> TreeModel:
    """``model``'s algorithm run again with its parameters and relation on ``data`` with ``seed``.

    The budget is ``epsilon``, or else the one the model states.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("noisy-majority", load("vote"), 1, rng=3)
    >>> retrained(model, load("vote"), 3) == model
    True
    """
    spec = get_algorithm(model.algorithm)
    budget = model_budget(model) if epsilon is None else epsilon
    return spec.fitter(engine)(data, budget, model.params, as_rng(seed), model.receipt.relation)


def _path(parts: List[str]) -> str:
    return ".".join(parts) or "the model"


def first_difference(stated: Any, made: Any, parts: Optional[List[str]] = None) -> Optional[str]:
    """None when the JSON values are equal; else where they first differ (keys in sorted order) and how.

    >>> first_difference({"trees": [{"counts": [3, 4]}]}, {"trees": [{"counts": [3, 5]}]})
    'trees.0.counts.1 is 4 in the file where re-training gives 5'
    """
    parts = parts or []
    if isinstance(stated, dict) and isinstance(made, dict):
        for key in sorted(set(stated) | set(made)):
            if key not in made:
                return f"{_path(parts + [key])} is in the file but not in the re-trained model"
            if key not in stated:
                return f"{_path(parts + [key])} is in the re-trained model but not in the file"
            found = first_difference(stated[key], made[key], parts + [key])
            if found:
                return found
        return None
    if isinstance(stated, list) and isinstance(made, list):
        for index, (a, b) in enumerate(zip(stated, made)):
            found = first_difference(a, b, parts + [str(index)])
            if found:
                return found
        if len(stated) != len(made):
            return f"{_path(parts)} has {len(stated)} entries in the file where re-training gives {len(made)}"
        return None
    if stated != made or type(stated) is not type(made):
        return f"{_path(parts)} is {stated!r} in the file where re-training gives {made!r}"
    return None


def check_retrained(obj: Any, model: TreeModel, data: Dataset, seed: int, engine: str = "reference",
                    epsilon: Optional[Fraction] = None, source: str = "the data") -> None:
    """ModelError unless re-training ``model`` on ``data`` with ``seed`` gives the file ``obj``.

    ``obj`` must be the verified file of ``model`` (its digest checked); its
    signature, if any, is left out of the comparison (re-training has no key).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("noisy-majority", load("vote"), 1, rng=3)
    >>> check_retrained(model.to_json(), model, load("vote"), 4, source="vote")
    Traceback (most recent call last):
    refdp.errors.ModelError: re-training on vote with seed 4 does not give this model: trees.0.counts.1 is 165 in the file where re-training gives 169
    """
    made = retrained(model, data, seed, engine, epsilon).to_json()
    # The file's digest verified before, so its other fields equal the re-trained ones exactly when the files do.
    found = first_difference(
        {key: value for key, value in obj.items() if key not in (SIGNATURE, DIGEST)},
        {key: value for key, value in made.items() if key != DIGEST},
    )
    if found:
        raise ModelError(f"re-training on {source} with seed {seed} does not give this model: {found}")
