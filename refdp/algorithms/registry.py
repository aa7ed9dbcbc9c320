"""The algorithm registry: what ``train``, ``evaluate`` and ``algorithms`` know.

Each algorithm registers an :class:`AlgorithmSpec`: its CLI name, source,
variants (and whether each is sound), typed parameters with defaults, the
claims in ``proofs/`` it rests on, and a ``fit`` function.  ``fit`` receives
validated values only: an exact epsilon, parameters of the declared types, a
random source and the neighbouring relation.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Protocol, Sequence, Tuple, Union

from refdp.data import Dataset, MissingPolicy, expect_dataset
from refdp.engine import REFERENCE, Engine
from refdp.errors import InvalidParameterError, ModelError
from refdp.params import Param, Parameter
from refdp.fast import ARRAY
from refdp.privacy import Ledger, Number, Relation, as_budget, receipt_from_ledger
from refdp.privacy.levels import level_of
from refdp.rng import RandomSource, RngLike, as_rng
from refdp.tree import Node, TreeModel, decode_model, read_model_json


__all__ = [
    "Param",
    "Parameter",
    "Variant",
    "AlgorithmSpec",
    "register",
    "get_algorithm",
    "algorithm_names",
    "start_ledger",
    "missing_value_label",
    "MISSING_VALUE_RULE",
    "finish_model",
    "check_model",
    "model_from_json",
    "read_model",
    "train",
    "ENGINES",
    "Fit",
]

class Fit(Protocol):
    """An algorithm's one fit: the validated inputs, and the counting engine (the reference by default)."""

    def __call__(
        self,
        data: Dataset,
        epsilon: Fraction,
        params: Mapping[str, Param],
        rng: RandomSource,
        relation: Relation,
        engine: Engine = ...,
    ) -> TreeModel:
        """Train on ``data`` with total budget ``epsilon``."""


ENGINES: Dict[str, Engine] = {"reference": REFERENCE, "array": ARRAY}
"""The engines a model can be trained with, by name.  "reference" is the plain code that follows
the paper; "array" (where an algorithm has it) counts through :mod:`refdp.fast` and must give the
same model, byte for byte, for a seed."""


@dataclass(frozen=True)
class Variant:
    """A variant of an algorithm: ``sound`` (the default) or a published, unsound one.

    ``claims`` are the claims its charges can cite with the default parameters
    (on any data); its :attr:`level` is computed from their statuses, the
    worst level a receipt of this variant gets with the defaults.
    ``tests/test_receipt_levels.py`` trains every variant and checks that the
    receipts cite no other claim and reach exactly this level, so the
    declaration cannot drift from the code.
    """

    name: str
    sound: bool
    description: str
    claims: Tuple[str, ...] = ()

    @property
    def level(self) -> str:
        """``proved``, ``idealised`` or ``unsound`` with the default parameters (see :mod:`refdp.privacy.levels`)."""
        return level_of(self.claims, unsound_step=not self.sound)


@dataclass(frozen=True)
class AlgorithmSpec:
    """Everything the front ends need to know about one algorithm."""

    name: str
    summary: str
    source: str
    variants: Tuple[Variant, ...]
    parameters: Tuple[Parameter, ...]
    claims: Tuple[str, ...]
    fit: Fit
    engines: Tuple[str, ...] = ("reference",)
    """The engines ``fit`` counts correctly with (byte-identical models); names in :data:`ENGINES`."""

    def variant(self, name: str) -> Variant:
        """The variant called ``name``, or InvalidParameterError."""
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise InvalidParameterError(
            f"{self.name} has no variant {name!r}; its variants are: {', '.join(v.name for v in self.variants)}"
        )

    @property
    def has_array_engine(self) -> bool:
        return "array" in self.engines

    def fitter(self, engine: str = "reference") -> Fit:
        """``fit`` on the engine called ``engine`` ("reference" or "array")."""
        if not isinstance(engine, str) or engine not in ENGINES:
            raise InvalidParameterError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r:.60}")
        if engine not in self.engines:
            raise InvalidParameterError(f"{self.name} has no {engine} engine yet; use the reference engine")
        chosen = ENGINES[engine]
        fit = self.fit

        def on_engine(
            data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
            engine: Engine = chosen,
        ) -> TreeModel:
            return fit(data, epsilon, params, rng, relation, engine)

        return on_engine

    def resolve(self, given: Mapping[str, Union[str, Param]]) -> Dict[str, Param]:
        """Defaults overridden by ``given``; unknown names are an error."""
        if not isinstance(given, Mapping) or not all(isinstance(name, str) for name in given):
            raise InvalidParameterError(
                f"params must map parameter names to values, such as {{'max_depth': 3}}; got {type(given).__name__}"
            )
        known = {p.name: p for p in self.parameters}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "(none)"
            raise InvalidParameterError(
                f"{self.name} has no parameter {', '.join(unknown)}; its parameters are: {names}"
            )
        resolved = {name: p.default for name, p in known.items()}
        for name, value in given.items():
            resolved[name] = known[name].parse(value)
        return resolved


_REGISTRY: Dict[str, AlgorithmSpec] = {}


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"algorithm {spec.name!r} registered twice")
    _REGISTRY[spec.name] = spec
    return spec


def algorithm_names() -> Tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def get_algorithm(name: str) -> AlgorithmSpec:
    if not isinstance(name, str) or name not in _REGISTRY:
        raise InvalidParameterError(
            f"unknown algorithm {name!r:.60}; run `python3 -m refdp algorithms` to list them "
            f"({', '.join(algorithm_names())})"
        )
    return _REGISTRY[name]


MISSING_VALUE_RULE = "missing-value-rule"
"""The mechanism name of the receipt entry that records the data's missing-value policy."""


def missing_value_label(policy: MissingPolicy) -> str:
    """The label of the receipt entry recording ``policy``.

    >>> missing_value_label(MissingPolicy("drop", "drop"))
    'missing values: a row with a missing categorical value is dropped; a row with a missing continuous value is dropped'
    """
    return f"missing values: {policy.describe()}"


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
        ledger.charge(
            label=missing_value_label(data.missing), mechanism=MISSING_VALUE_RULE, epsilon=0, sensitivity=None,
            claims=data.missing.claims, note="applied to every row read, for training and for prediction",
        )
    return ledger


def finish_model(
    name: str,
    data: Dataset,
    params: Mapping[str, Param],
    trees: Sequence[Node],
    ledger: Ledger,
    *,
    weights: Sequence[float] = (),
    voting: str = "vote",
) -> TreeModel:
    """The model an algorithm returns: its trees, with the receipt frozen from ``ledger``."""
    return TreeModel(
        algorithm=name,
        variant=str(params["variant"]),
        params=dict(params),
        schema=data.schema,
        trees=tuple(trees),
        receipt=receipt_from_ledger(ledger),
        weights=tuple(weights),
        voting=voting,
        missing=data.missing,
    )


def check_model(model: TreeModel) -> None:
    """ModelError unless ``model``'s algorithm and variant are registered and agree with its receipt.

    A variant registered as sound must have only sound charges and no leak of
    its own; a published (unsound) variant must show at least one unsound
    charge or leak of its own.  The leaks of the model's schema (read off the
    data, as by ``leaky_infer_schema`` or the ``schema`` command) belong to
    the data, not the variant: they make the receipt unsound whatever the
    variant is.
    """
    try:
        spec = get_algorithm(model.algorithm)
        variant = spec.variant(model.variant)
    except InvalidParameterError as exc:
        raise ModelError(f"the model does not match this refdp's algorithms: {exc}") from None
    stated = model.params.get("variant", model.variant)
    if stated != model.variant:
        raise ModelError(f"the model's variant is {model.variant!r} but its parameters say {stated!r}")
    receipt = model.receipt
    unsound = [c.label for c in receipt.charges if not c.sound]
    own_leaks = [leak for leak in receipt.leaks if leak not in model.schema.leaks]
    if variant.sound and (unsound or own_leaks):
        what = f"unsound charge {unsound[0]!r}" if unsound else f"leak {own_leaks[0]!r}"
        raise ModelError(
            f"{spec.name} variant {variant.name!r} is registered as sound but its receipt has the {what}"
        )
    _check_missing(model)
    if not variant.sound and not (unsound or own_leaks):
        raise ModelError(
            f"{spec.name} variant {variant.name!r} is registered as unsound but every charge of its receipt is "
            "sound and nothing leaked: the variant or the charges were changed"
        )


def _check_missing(model: TreeModel) -> None:
    recorded = [c for c in model.receipt.charges if c.mechanism == MISSING_VALUE_RULE]
    wanted = [] if model.missing is None else [missing_value_label(model.missing)]
    if [c.label for c in recorded] != wanted or any(c.epsilon or c.delta for c in recorded):
        raise ModelError(
            f"the model's missing-value policy ({model.missing.describe() if model.missing else 'none'}) "
            f"is not what its receipt records ({'; '.join(c.label for c in recorded) or 'nothing'})"
        )


def model_from_json(obj: Mapping[str, Any]) -> TreeModel:
    """Rebuild and verify a model: :func:`refdp.tree.decode_model` (structure and receipt), then
    :func:`check_model` (the algorithm and variant registered and agreeing with the charges)."""
    model = decode_model(obj)
    check_model(model)
    return model


def read_model(path: Union[str, Path]) -> TreeModel:
    """Read and verify the model file at ``path`` (one ModelError when it is not a valid model)."""
    return model_from_json(read_model_json(path))


def train(
    name: str,
    data: Dataset,
    epsilon: Number,
    params: Optional[Mapping[str, Union[str, Param]]] = None,
    rng: RngLike = None,
    relation: Relation = Relation.ADD_REMOVE,
    engine: str = "reference",
) -> TreeModel:
    """Train the algorithm ``name`` on ``data`` with total budget ``epsilon``.

    ``engine`` picks the implementation (see :data:`ENGINES`); both give the
    same model for the same random source.

    >>> from refdp.data import load
    >>> vote = load("vote")
    >>> model = train("thesis-tree", vote, 1, {"max_depth": 2}, rng=7)
    >>> model.receipt.level, model.receipt.epsilon
    ('proved', Fraction(1, 1))
    >>> model.predict(vote.subset([0, 1, 2]))  # their labels: republican, republican, democrat
    ['republican', 'republican', 'democrat']
    """
    spec = get_algorithm(name)
    expect_dataset(data, "the data to train on")
    fit = spec.fitter(engine)
    return fit(data, as_budget(epsilon), spec.resolve({} if params is None else params), as_rng(rng), relation)
