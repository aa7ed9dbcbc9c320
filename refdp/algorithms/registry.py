"""The algorithm registry: what ``train``, ``evaluate`` and ``algorithms`` know.

Each algorithm registers an :class:`AlgorithmSpec`: its CLI name, source,
variants (and whether each is sound), typed parameters with defaults, the
claims in ``proofs/`` it rests on, a ``fit`` function, and a ``derive``
function.  ``fit`` receives validated values only: an exact epsilon,
parameters of the declared types, a random source and the neighbouring
relation.  ``derive`` re-issues, from a model's public parts only (its
algorithm, variant, parameters, schema, plan inputs, relation, budget and
released trees), every charge the algorithm's plan makes, into a fresh
ledger: :func:`refdp.algorithms.models.check_model` refuses a model whose
receipt differs from it, and :func:`refdp.algorithms.models.finish_model`
checks every model the algorithm trains against it (claim
``receipt-rederivation``).  Variants that are not sound live outside
:mod:`refdp.algorithms` and are added by :func:`register_variant`
(:data:`VARIANT_MODULES`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from importlib import import_module
from typing import Any, Callable, Dict, Mapping, Optional, Protocol, Tuple, Union

from refdp.data import Dataset, expect_dataset
from refdp.engine import REFERENCE, Engine
from refdp.errors import InvalidParameterError
from refdp.params import Param, Parameter
from refdp.fast import ARRAY
from refdp.privacy import Ledger, Number, Relation, as_budget
from refdp.privacy.levels import level_of
from refdp.rng import RandomSource, RngLike, as_rng
from refdp.tree import TreeModel


__all__ = [
    "Param",
    "Parameter",
    "Variant",
    "AlgorithmSpec",
    "register",
    "get_algorithm",
    "algorithm_names",
    "MODULES",
    "VARIANT_MODULES",
    "register_variant",
    "LAW_MODULES",
    "LawFunction",
    "root_law",
    "root_law_algorithms",
    "train",
    "ENGINES",
    "Fit",
    "Derive",
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


class Derive(Protocol):
    """An algorithm's re-derivation of a model's charges from its public parts (None: the variant's charges
    depend on the data, as an unsound variant's may, and cannot be re-derived)."""

    def __call__(self, model: TreeModel) -> Optional[Ledger]:
        """A fresh ledger holding every charge and leak ``model``'s plan makes, in order; ModelError when
        the model's structure is not one the algorithm can release (a threshold off its grid, say)."""


ENGINES: Dict[str, Engine] = {"reference": REFERENCE, "array": ARRAY}
"""The engines a model can be trained with, by name.  "reference" is the plain code that follows
the paper; "array" (where an algorithm has it) counts through :mod:`refdp.fast` and must give the
same model, byte for byte, for a seed."""


@dataclass(frozen=True)
class Variant:
    """A variant of an algorithm: ``sound`` (the default), or an unsound one (a paper as printed, a fault to catch).

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
    derive: Optional[Derive] = None
    """Re-derives a model's charges from its public parts (see the module notes)."""
    reads_row_count: Optional[Callable[[Mapping[str, Param], Relation], bool]] = None
    """Whether, with these (resolved) parameters and relation, the plan reads the number of rows as a public
    value.  Such a number must not come from a transformation that depends on a record (dropping the rows with
    a missing value): under substitute one substitution can change it (``train`` refuses the pair)."""

    def row_count_is_public(self, params: Mapping[str, Param], relation: Relation) -> bool:
        """:attr:`reads_row_count` for these parameters (False when the algorithm never reads it)."""
        return self.reads_row_count is not None and self.reads_row_count(params, relation)

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

    def with_variant(self, variant: Variant, fit: Fit, derive: Optional[Derive], claims: Tuple[str, ...]) -> AlgorithmSpec:
        """This algorithm with one more variant, trained by ``fit`` and re-derived by ``derive``.

        ``fit`` and ``derive`` are called for models of that variant only (a
        ``derive`` of None: its charges depend on the data); the other
        variants keep theirs.  ``claims`` are added to :attr:`claims`.
        """
        if any(v.name == variant.name for v in self.variants):
            raise ValueError(f"{self.name} has a variant {variant.name!r} already")
        parameters = tuple(
            replace(p, choices=p.choices + (variant.name,)) if p.name == "variant" else p for p in self.parameters
        )
        return replace(
            self,
            variants=self.variants + (variant,),
            parameters=parameters,
            claims=self.claims + tuple(c for c in claims if c not in self.claims),
            fit=_fit_by_variant(variant.name, fit, self.fit),
            derive=_derive_by_variant(variant.name, derive, self.derive),
        )

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


def _fit_by_variant(name: str, fit: Fit, other: Fit) -> Fit:
    """``fit`` for the variant ``name``, ``other`` for the rest."""

    def by_variant(
        data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
        engine: Engine = REFERENCE,
    ) -> TreeModel:
        chosen = fit if params["variant"] == name else other
        return chosen(data, epsilon, params, rng, relation, engine)

    return by_variant


def _derive_by_variant(name: str, derive: Optional[Derive], other: Optional[Derive]) -> Optional[Derive]:
    """``derive`` for models of the variant ``name``, ``other`` for the rest (None: not re-derivable)."""
    if derive is None and other is None:
        return None

    def by_variant(model: TreeModel) -> Optional[Ledger]:
        chosen = derive if model.variant == name else other
        return None if chosen is None else chosen(model)

    return by_variant


_REGISTRY: Dict[str, AlgorithmSpec] = {}

MODULES: Dict[str, str] = {
    "noisy-majority": "refdp.algorithms.majority",
    "tree-baseline": "refdp.algorithms.baseline",
    "diffpid3": "refdp.algorithms.diffpid3",
    "thesis-tree": "refdp.algorithms.thesis_tree",
    "private-rdt": "refdp.algorithms.private_rdt",
    "kanon-rdt": "refdp.algorithms.kanon_rdt",
    "dp-adaboost": "refdp.algorithms.adaboost",
    "dpdf": "refdp.algorithms.dpdf",
    "dpea": "refdp.algorithms.dpea",
}
"""The module that registers each built-in algorithm when imported.  :func:`get_algorithm` imports
only the one asked for, so that training one learner does not load the others
(``tests/test_lazy_imports.py`` checks that each module registers the name listed here)."""


VARIANT_MODULES: Dict[str, Tuple[str, ...]] = {
    "thesis-tree": ("refdp.published.thesis_tree", "refdp.planted.thesis_tree"),
    "kanon-rdt": ("refdp.planted.kanon_rdt",),
    "dp-adaboost": ("refdp.published.adaboost",),
    "dpdf": ("refdp.published.dpdf",),
    "dpea": ("refdp.published.dpea",),
}
"""The variants that are not sound, by algorithm: the published replicas (:mod:`refdp.published`) and the
planted faults the audits must catch (:mod:`refdp.planted`).  Each module imports its sound learner from
:data:`MODULES` and adds its variant with :func:`register_variant`; no sound learner imports one, and
:func:`get_algorithm` loads them after the learner, in this order (the order of the ``variant`` choices)."""


LAW_MODULES: Dict[str, str] = {
    "diffpid3": "refdp.algorithms.diffpid3_laws",
    "noisy-majority": "refdp.algorithms.majority",
    "thesis-tree": "refdp.algorithms.thesis_tree_laws",
}
"""The module holding each learner's exact laws at the root (``root_split_law``, ``root_counts_law``): what
the cross-checks compare another implementation with (:func:`root_law`)."""

LawFunction = Callable[[Dataset, Fraction, Mapping[str, Param], Relation], Any]
"""A law at the root: ``law(data, epsilon, params, relation)`` (a :class:`~refdp.algorithms.root_law.RootSplitLaw`
or :class:`~refdp.algorithms.root_law.RootCountsLaw`)."""


def root_law(name: str, law: str) -> Optional[LawFunction]:
    """The function ``law`` (``root_split_law`` or ``root_counts_law``) of algorithm ``name``, None when unknown.

    >>> root_law("thesis-tree", "root_split_law").__name__, root_law("dpdf", "root_split_law")
    ('root_split_law', None)
    """
    module = LAW_MODULES.get(name)
    function = None if module is None else getattr(import_module(module), law, None)
    return function if callable(function) else None


def root_law_algorithms(law: str) -> Tuple[str, ...]:
    """The algorithms that have the law ``law``, by name.

    >>> root_law_algorithms("root_counts_law")
    ('diffpid3', 'noisy-majority', 'thesis-tree')
    """
    return tuple(name for name in sorted(LAW_MODULES) if root_law(name, law) is not None)


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"algorithm {spec.name!r} registered twice")
    _REGISTRY[spec.name] = spec
    return spec


def register_variant(
    name: str, variant: Variant, fit: Fit, derive: Optional[Derive] = None, claims: Tuple[str, ...] = ()
) -> AlgorithmSpec:
    """Add ``variant`` (trained by ``fit``, re-derived by ``derive``) to the registered algorithm ``name``."""
    spec = _REGISTRY[name].with_variant(variant, fit, derive, claims)
    _REGISTRY[name] = spec
    return spec


def algorithm_names() -> Tuple[str, ...]:
    """The names of the algorithms ``train`` knows, sorted.

    >>> algorithm_names()[:3]
    ('diffpid3', 'dp-adaboost', 'dpdf')
    """
    return tuple(sorted(set(MODULES) | set(_REGISTRY)))


def get_algorithm(name: str) -> AlgorithmSpec:
    """The algorithm called ``name`` (its module and its unsound variants' modules imported on first use).

    >>> spec = get_algorithm("thesis-tree")
    >>> len(spec.variants), spec.variant("sound").sound, spec.resolve({"max_depth": "3"})["max_depth"]
    (3, True, 3)
    """
    if isinstance(name, str) and name in MODULES:
        import_module(MODULES[name])
        for module in VARIANT_MODULES.get(name, ()):
            import_module(module)
    if not isinstance(name, str) or name not in _REGISTRY:
        raise InvalidParameterError(
            f"unknown algorithm {name!r:.60}; run `python3 -m refdp algorithms` to list them "
            f"({', '.join(algorithm_names())})"
        )
    return _REGISTRY[name]


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
