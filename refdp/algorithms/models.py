"""Models: the ledger a fit starts, the model it finishes, and the check of a model read back.

:func:`finish_model` freezes a fit's ledger into the model's receipt and
checks the model against its algorithm's ``derive``
(:class:`~refdp.algorithms.registry.AlgorithmSpec`): a model whose receipt
differs from its plan's charges is a bug of the algorithm.
:func:`check_model` refuses a model read back whose algorithm, variant,
parameters or receipt do not agree (claim ``receipt-rederivation``);
:func:`model_from_json` and :func:`read_model` decode and check.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

from refdp.data import Dataset
from refdp.errors import InvalidParameterError, ModelError, PrivacyError
from refdp.mechanisms.recording import not_recording
from refdp.params import Param
from refdp.algorithms.registry import AlgorithmSpec, get_algorithm
from refdp.algorithms.derivation import (
    MISSING_VALUE_RULE, charge_difference, leak_difference, missing_value_charge, missing_value_label
)
from refdp.privacy import Ledger, Relation, receipt_from_ledger
from refdp.tree import Node, TreeModel, decode_model, read_model_json


__all__ = [
    "start_ledger",
    "missing_value_label",
    "MISSING_VALUE_RULE",
    "finish_model",
    "check_model",
    "model_from_json",
    "read_model",
]


def start_ledger(data: Dataset, relation: Relation) -> Ledger:
    """A fresh ledger that already records any leak in the data's schema, and the data's missing-value policy.

    The policy (:attr:`refdp.data.Dataset.missing`) is a rule applied to each
    row before training: an entry of epsilon 0 citing the claims that keep
    the learner's guarantee through it (``missing-values-public-rule``,
    ``missing-values-drop``), recorded whenever a policy was applied, whether
    or not any value was missing (which would otherwise show in the receipt).
    """
    ledger = Ledger(relation)
    for leak in data.schema.leaks:
        ledger.record_leak(leak)
    if data.missing is not None:
        ledger.record(missing_value_charge(data.missing))
    return ledger


def finish_model(
    name: str,
    data: Dataset,
    params: Mapping[str, Param],
    trees: Sequence[Node],
    ledger: Ledger,
    *,
    budget: Fraction,
    weights: Sequence[float] = (),
    voting: str = "vote",
    plan_inputs: Optional[Mapping[str, Optional[int]]] = None,
) -> TreeModel:
    """The model an algorithm trained with total ``budget`` returns: its trees, with the receipt frozen from ``ledger``.

    ``plan_inputs`` are the public values the plan read besides the
    parameters (an entry None is left out: the value was not drawn).  The
    model is checked against the algorithm's ``derive`` before it is
    returned: a model whose receipt differs from its plan's charges is a bug
    of the algorithm (PrivacyError), and would not verify when read back.

    Why 9 parameters: the model's parts a learner supplies (its name, the data, the
    parameters, the trees, the ledger), then the fields of the model beyond them
    (budget, weights, voting, plan inputs), keyword-only.
    """
    model = TreeModel(
        algorithm=name,
        variant=str(params["variant"]),
        params=dict(params),
        schema=data.schema,
        trees=tuple(trees),
        receipt=receipt_from_ledger(ledger),
        weights=tuple(weights),
        voting=voting,
        missing=data.missing,
        plan_inputs={key: value for key, value in (plan_inputs or {}).items() if value is not None},
        budget=budget,
    )
    try:
        _check_derivation(get_algorithm(name), model)
    except ModelError as exc:
        raise PrivacyError(
            f"{name} trained a model that its own re-derivation refuses ({exc}); this is a bug in refdp, "
            "please report it"
        ) from None
    return model


def _check_params(spec: AlgorithmSpec, params: Mapping[str, Any]) -> None:
    """Every parameter of ``spec`` stated, of its type and in its range, and nothing else."""
    known = {p.name: p for p in spec.parameters}
    missing = [name for name in known if name not in params]
    if missing:
        raise ModelError(f"the model's parameters lack {', '.join(missing)}, which {spec.name} has")
    extra = sorted(str(name) for name in params if name not in known)
    if extra:
        raise ModelError(f"the model's parameters include {', '.join(extra)}, which {spec.name} does not have")
    for name, parameter in known.items():
        value = params[name]
        try:
            parsed = parameter.parse(value)
        except InvalidParameterError as exc:
            raise ModelError(f"the model's {exc}") from None
        if type(parsed) is not type(value) or parsed != value:
            raise ModelError(f"the model's parameter {name} must be the {parameter.kind.__name__} {parsed!r}, not {value!r}")


def _derivation_error(spec: AlgorithmSpec, model: TreeModel) -> Tuple[bool, Optional[str]]:
    """(whether the variant's charges are re-derivable, the first difference from the plan or None)."""
    if spec.derive is None:
        return False, None
    try:
        with not_recording():
            derived = spec.derive(model)
    except (InvalidParameterError, PrivacyError) as exc:
        return True, f"{spec.name}'s plan cannot be made from the model's public parts: {exc}"
    except ModelError as exc:
        return True, str(exc)
    if derived is None:
        return False, None
    difference = charge_difference(derived.charges, model.receipt.charges) or leak_difference(
        derived.leaks, model.receipt.leaks
    )
    return True, None if difference is None else f"the receipt is not the one {spec.name}'s plan makes: {difference}"


def _check_derivation(spec: AlgorithmSpec, model: TreeModel) -> None:
    """ModelError unless the model's charges and leaks are exactly those its algorithm's plan makes."""
    _, error = _derivation_error(spec, model)
    if error:
        raise ModelError(error)


def check_model(model: TreeModel) -> None:
    """ModelError unless ``model``'s algorithm and variant are registered and agree with its receipt.

    The parameters must be exactly the algorithm's, each of its type and in
    its range.  Then the charges and leaks must be exactly the ones the
    algorithm's ``derive`` re-issues from the model's public parts.  Where a
    variant's charges cannot be re-derived (they depend on the data), or
    where they differ, the variant must at least agree with them: a variant
    registered as sound has only sound charges and no leak of its own; a
    variant registered as unsound shows at least one unsound charge or leak of
    its own.  The leaks of the model's schema (read off the data, as by
    ``leaky_infer_schema`` or the ``schema`` command) belong to the data, not
    the variant: they make the receipt unsound whatever the variant is.  (A
    sound variant whose parameters choose an unsound step, such as DPEA's
    MCMC search, has its unsound charge re-derived and is accepted, at level
    unsound.)
    """
    try:
        spec = get_algorithm(model.algorithm)
        variant = spec.variant(model.variant)
    except InvalidParameterError as exc:
        raise ModelError(f"the model does not match this refdp's algorithms: {exc}") from None
    stated = model.params.get("variant", model.variant)
    if stated != model.variant:
        raise ModelError(f"the model's variant is {model.variant!r} but its parameters say {stated!r}")
    _check_params(spec, model.params)
    _check_missing(model)
    derivable, error = _derivation_error(spec, model)
    if derivable and error is None:
        return
    receipt = model.receipt
    unsound = [c.label for c in receipt.charges if not c.sound]
    own_leaks = [leak for leak in receipt.leaks if leak not in model.schema.leaks]
    if variant.sound and (unsound or own_leaks):
        what = f"unsound charge {unsound[0]!r}" if unsound else f"leak {own_leaks[0]!r}"
        raise ModelError(
            f"{spec.name} variant {variant.name!r} is registered as sound but its receipt has the {what}"
        )
    if not variant.sound and not (unsound or own_leaks):
        raise ModelError(
            f"{spec.name} variant {variant.name!r} is registered as unsound but every charge of its receipt is "
            "sound and nothing leaked: the variant or the charges were changed"
        )
    if error:
        raise ModelError(error)


def _check_missing(model: TreeModel) -> None:
    recorded = [c for c in model.receipt.charges if c.mechanism == MISSING_VALUE_RULE]
    wanted = [] if model.missing is None else [missing_value_label(model.missing)]
    if [c.label for c in recorded] != wanted or any(c.epsilon or c.delta for c in recorded):
        raise ModelError(
            f"the model's missing-value policy ({model.missing.describe() if model.missing else 'none'}) "
            f"is not what its receipt records ({'; '.join(c.label for c in recorded) or 'nothing'})"
        )


def model_from_json(obj: Mapping[str, Any], key: Optional[bytes] = None) -> TreeModel:
    """Rebuild and verify a model: :func:`refdp.tree.decode_model` (digest, signature with ``key``,
    structure and receipt), then :func:`check_model` (the algorithm, variant and parameters registered
    and agreeing with the charges, and the charges re-derived from the public parts).

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("noisy-majority", load("vote"), 1, rng=3)
    >>> model_from_json(model.to_json()).receipt == model.receipt
    True
    """
    model = decode_model(obj, key)
    check_model(model)
    return model


def read_model(path: Union[str, Path], key: Optional[bytes] = None) -> TreeModel:
    """Read and verify the model file at ``path`` (one ModelError when it is not a valid model).

    >>> import os, tempfile
    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> from refdp.tree import dumps_model
    >>> model = train("noisy-majority", load("vote"), 1, rng=3)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "model.json")
    ...     with open(path, "w", encoding="utf-8") as out:
    ...         _ = out.write(dumps_model(model))
    ...     read_model(path).predict(load("vote").subset([0])) == model.predict(load("vote").subset([0]))
    True
    """
    return model_from_json(read_model_json(path), key)
