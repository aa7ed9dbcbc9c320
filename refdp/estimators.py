"""Scikit-learn-like estimators: one class per registered algorithm.

Each class fixes a registry algorithm; its constructor takes that
algorithm's parameters as keywords (names, defaults, types and ranges come
from the registry, as for ``--param``; they are listed at the end of the
class's docstring), the total budget ``epsilon``, the neighbouring
``relation``, the randomness (``seed`` for replay, or an ``rng`` object;
neither means a secure source), the ``engine`` ("reference", the default,
or "array", :mod:`refdp.fast`; both give the same model for a seed) and an
optional public ``schema``.

The conventions are scikit-learn's, without importing it: the constructor
stores its arguments as given, :meth:`~TreeClassifier.get_params` returns
them (so ``type(c)(**c.get_params())`` builds an equal estimator, and
``sklearn.base.clone`` works), :meth:`~TreeClassifier.set_params` changes
them after the same checks as the constructor, and :meth:`fit` returns the
estimator.  Unlike scikit-learn, a setting of the wrong type, outside its
choices or its declared range is refused at once (by the constructor or
:meth:`~TreeClassifier.set_params`), not at the next :meth:`fit`; checks that
involve the data or several settings together stay with the learner.

:meth:`fit` takes a :class:`~refdp.data.Dataset`, or rows and labels
(``fit(X, y)``, one raw value per attribute in schema order).  Rows need the
public ``schema``: refdp never reads domains or bounds off the rows behind
the caller's back, since that leaks (claim ``schema-inference-leaks``).
Build it from public knowledge, read it with
:func:`~refdp.data.read_schema`, or call
:func:`~refdp.data.leaky_infer_schema`, whose schema records the leak so
that the model's receipt is marked unsound.

After fitting, ``model_`` is the :class:`~refdp.tree.TreeModel`,
``receipt_`` its privacy receipt and ``classes_`` the schema's classes.

    >>> from refdp.data import load_builtin
    >>> clf = ThesisTreeClassifier(epsilon=1, max_depth=3, seed=7).fit(load_builtin("vote"))
    >>> clf.receipt_.epsilon
    Fraction(1, 1)
    >>> clf.get_params()["max_depth"], ThesisTreeClassifier(**clf.get_params()).get_params() == clf.get_params()
    (3, True)

With a ``seed``, every :meth:`fit` starts from the same seed, so refitting on
the same data gives the same model; with an ``rng`` object, fits draw from
it in turn.  Inputs are never modified.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Type, TypeVar, Union

from refdp.algorithms import AlgorithmSpec, Param, get_algorithm
from refdp.algorithms.registry import Fit
from refdp.data import Dataset, RawValue, Schema
from refdp.data.rows import rows_to_predict
from refdp.errors import InvalidParameterError, ModelError
from refdp.evaluation import accuracy
from refdp.privacy import Number, Receipt, Relation, as_epsilon, parse_relation
from refdp.rng import RandomSource, as_rng
from refdp.tree import TreeModel

__all__ = [
    "ESTIMATORS",
    "Rows",
    "TreeClassifier",
    "BaselineTreeClassifier",
    "DiffPID3Classifier",
    "DPAdaBoostClassifier",
    "DPDFClassifier",
    "DPEAClassifier",
    "KAnonRDTClassifier",
    "NoisyMajorityClassifier",
    "PrivateRDTClassifier",
    "ThesisTreeClassifier",
]

Rows = Sequence[Sequence[RawValue]]
"""Raw rows: one value per schema attribute, as :meth:`Dataset.from_rows` takes them."""

_Self = TypeVar("_Self", bound="TreeClassifier")

_NEEDS_SCHEMA = (
    "fit on rows needs their public schema: pass schema= to the estimator (a Schema built from "
    "public knowledge, or read_schema('schema.json')); leaky_infer_schema(rows, labels, "
    "attribute_names=..., continuous=...) reads one off the data, which leaks and marks the "
    "receipt unsound"
)


@dataclass(frozen=True)
class _Checked:
    """The settings, validated and converted: what :meth:`TreeClassifier.fit` uses."""

    epsilon: Fraction
    relation: Relation
    fit: Fit
    params: Dict[str, Param]
    rng: Optional[RandomSource]
    seed: Optional[int]
    schema: Optional[Schema]


def _check(
    spec: AlgorithmSpec,
    epsilon: Number,
    relation: Union[Relation, str],
    seed: Optional[int],
    rng: Optional[RandomSource],
    engine: str,
    schema: Optional[Schema],
    **params: Param,
) -> _Checked:
    if seed is not None and rng is not None:
        raise InvalidParameterError("give a seed or an rng, not both")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidParameterError(f"seed must be an int, got {seed!r}")
    if schema is not None and not isinstance(schema, Schema):
        raise InvalidParameterError(f"schema must be a refdp Schema or None, got {type(schema).__name__}")
    return _Checked(
        epsilon=as_epsilon(epsilon),
        relation=parse_relation(relation),
        fit=spec.fitter(engine),  # an unknown engine, or one the algorithm lacks, fails here
        params=spec.resolve(params),
        rng=None if rng is None else as_rng(rng),
        seed=seed,
        schema=schema,
    )


def _parameter_lines(spec: AlgorithmSpec) -> str:
    lines = [f"\n\nParameters of ``{spec.name}`` (from the registry)::\n"]
    for p in spec.parameters:
        allowed = f" (one of {', '.join(p.choices)})" if p.choices else ""
        lines.append(f"    {p.name}={p.default!r}: {p.help}{allowed}")
    return "\n".join(lines) + "\n"


class TreeClassifier:
    """A registered tree learner behind ``fit`` / ``predict`` / ``predict_proba``.

    The base of the estimators; each subclass sets :attr:`algorithm` (a
    registry name) and nothing else.  :data:`ESTIMATORS` maps every
    registered algorithm to its class.
    """

    algorithm: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The parameters are documented where they are declared, the registry;
        # appending them here keeps help() in step with it.
        cls.__doc__ = (cls.__doc__ or "") + _parameter_lines(get_algorithm(cls.algorithm))

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
        schema: Optional[Schema] = None,
        **params: Param,
    ) -> None:
        spec = self._spec()
        settings: Dict[str, Any] = {
            "epsilon": epsilon, "relation": relation, "seed": seed, "rng": rng, "engine": engine,
            "schema": schema,
        }
        settings.update({p.name: p.default for p in spec.parameters})
        self._refuse_unknown(params, settings)
        settings.update(params)
        self._checked = _check(spec, **settings)
        self._settings = settings
        self._model: Optional[TreeModel] = None

    @classmethod
    def _spec(cls) -> AlgorithmSpec:
        if not cls.algorithm:
            raise InvalidParameterError(
                "TreeClassifier is the common base; use an algorithm's class, for example "
                "refdp.estimators.ESTIMATORS['private-rdt']"
            )
        return get_algorithm(cls.algorithm)

    def _refuse_unknown(self, given: Mapping[str, object], known: Mapping[str, object]) -> None:
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise InvalidParameterError(
                f"{type(self).__name__} has no parameter {', '.join(unknown)}; its parameters are: "
                f"{', '.join(known)}"
            )

    # --- scikit-learn's parameter protocol --------------------------------

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        """Every constructor argument, as given (defaults filled in): ``type(self)(**get_params())`` rebuilds.

        No parameter is itself an estimator, so ``deep`` changes nothing.
        """
        return dict(self._settings)

    def set_params(self: _Self, **params: Any) -> _Self:
        """Change constructor arguments; checked as the constructor checks them, and nothing
        changes when one is refused.  A fitted model stays until the next :meth:`fit`."""
        self._refuse_unknown(params, self._settings)
        settings = {**self._settings, **params}
        self._checked = _check(self._spec(), **settings)
        self._settings = settings
        return self

    def __repr__(self) -> str:
        defaults = type(self)().get_params()
        changed = ", ".join(f"{k}={v!r}" for k, v in self._settings.items() if v != defaults[k])
        return f"{type(self).__name__}({changed})"

    # --- learning -----------------------------------------------------------

    def fit(self: _Self, X: Union[Dataset, Rows], y: Optional[Sequence[str]] = None) -> _Self:
        """Train on a :class:`~refdp.data.Dataset` (``y`` None), or on rows ``X`` with labels ``y``
        (which need ``schema``; see the module docstring); returns self."""
        checked = self._checked
        data = _training_data(X, y, checked.schema)
        rng = checked.rng if checked.rng is not None else as_rng(checked.seed)
        self._model = checked.fit(data, checked.epsilon, checked.params, rng, checked.relation)
        return self

    @property
    def model_(self) -> TreeModel:
        """The trained model (ModelError before :meth:`fit`)."""
        if self._model is None:
            raise ModelError(f"this {type(self).__name__} is not fitted yet; call fit(data) first")
        return self._model

    @property
    def receipt_(self) -> Receipt:
        """The privacy receipt of the trained model."""
        return self.model_.receipt

    @property
    def classes_(self) -> List[str]:
        """The class labels, in the order of :meth:`predict_proba`'s columns."""
        return self.model_.classes_

    def _data(self, X: Union[Dataset, Rows]) -> Dataset:
        # Prediction reads the attributes only, with the training data's missing-value policy; values
        # beyond the public bounds are clipped to them, which changes no sound tree's prediction
        # (refdp.data.clipping).
        return rows_to_predict(X, self.model_.schema, self.model_.missing)[0]

    def predict(self, X: Union[Dataset, Rows]) -> List[str]:
        """The predicted class of every row (a Dataset, or raw rows in the model's schema)."""
        return self.model_.predict(self._data(X))

    def predict_proba(self, X: Union[Dataset, Rows]) -> List[List[float]]:
        """Class probabilities of every row, from the released leaf counts."""
        return self.model_.predict_proba(self._data(X))

    def score(self, X: Union[Dataset, Rows], y: Optional[Sequence[str]] = None) -> float:
        """The accuracy of :meth:`predict` on a Dataset's labels, or on rows ``X`` and labels ``y``."""
        if isinstance(X, Dataset):
            if y is not None:
                raise InvalidParameterError("y must be None when X is a Dataset: its labels are part of it")
            return accuracy(self.predict(X), [X.label(i) for i in range(len(X))])
        if y is None:
            raise InvalidParameterError("score on rows needs y, one class label per row")
        return accuracy(self.predict(X), list(y))


def _row_list(X: object) -> List[Sequence[RawValue]]:
    if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
        raise InvalidParameterError(
            f"X must be a refdp Dataset or a sequence of rows, got {type(X).__name__}"
        )
    return list(X)


def _training_data(X: Union[Dataset, Rows], y: Optional[Sequence[str]], schema: Optional[Schema]) -> Dataset:
    if isinstance(X, Dataset):
        if y is not None:
            raise InvalidParameterError("y must be None when X is a Dataset: its labels are part of it")
        if schema is not None and X.schema != schema:
            raise InvalidParameterError(
                "the Dataset was read with another schema than the estimator's schema=; read it "
                "with that schema, or leave schema=None"
            )
        return X
    rows = _row_list(X)
    if schema is None:
        raise InvalidParameterError(_NEEDS_SCHEMA)
    if y is None:
        raise InvalidParameterError("fit on rows needs y, one class label per row")
    return Dataset.from_rows(schema, rows, y)


class DiffPID3Classifier(TreeClassifier):
    """DiffP-ID3 / DiffP-C4.5 (Friedman & Schuster 2010); see :mod:`refdp.algorithms.diffpid3`."""

    algorithm = "diffpid3"


class ThesisTreeClassifier(TreeClassifier):
    """The thesis tree (Novakovic 2019, Algorithm 2); see :mod:`refdp.algorithms.thesis_tree`."""

    algorithm = "thesis-tree"


class BaselineTreeClassifier(TreeClassifier):
    """The non-private baseline tree (NOT differentially private); see :mod:`refdp.algorithms.baseline`.

    ``epsilon`` is accepted for a uniform interface and ignored.
    """

    algorithm = "tree-baseline"


class DPDFClassifier(TreeClassifier):
    """DPDF, the forest of Fletcher & Islam (2015); see :mod:`refdp.algorithms.dpdf`."""

    algorithm = "dpdf"


class DPAdaBoostClassifier(TreeClassifier):
    """CART-DPsAdaBoost (Jia and Qiu 2020); see :mod:`refdp.algorithms.adaboost`."""

    algorithm = "dp-adaboost"


class DPEAClassifier(TreeClassifier):
    """DPEA (Bai et al. 2017), the exponential mechanism over whole subtrees; see :mod:`refdp.algorithms.dpea`."""

    algorithm = "dpea"


class PrivateRDTClassifier(TreeClassifier):
    """Private-RDT, random trees with noisy leaf counts (Jagannathan et al. 2012); see :mod:`refdp.algorithms.private_rdt`."""

    algorithm = "private-rdt"


class KAnonRDTClassifier(TreeClassifier):
    """k-AnonToRdt, random trees on samples with small counts suppressed (Waseda et al. 2024); see
    :mod:`refdp.algorithms.kanon_rdt`."""

    algorithm = "kanon-rdt"


class NoisyMajorityClassifier(TreeClassifier):
    """The noisy majority class, a one-leaf baseline; see :mod:`refdp.algorithms.majority`."""

    algorithm = "noisy-majority"


ESTIMATORS: Mapping[str, Type[TreeClassifier]] = MappingProxyType(
    {
        cls.algorithm: cls
        for cls in (
            BaselineTreeClassifier,
            DiffPID3Classifier,
            DPAdaBoostClassifier,
            DPDFClassifier,
            DPEAClassifier,
            KAnonRDTClassifier,
            NoisyMajorityClassifier,
            PrivateRDTClassifier,
            ThesisTreeClassifier,
        )
    }
)
"""The estimator class of every registered algorithm, by registry name."""
