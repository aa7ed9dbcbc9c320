"""Scikit-learn estimators: one class per registered algorithm.

Each class fixes a registry algorithm.  Its constructor lists that
algorithm's parameters as typed keywords (names, defaults, types and ranges
come from the registry, as for ``--param``; their meaning is at the end of
the class's docstring), then the total budget ``epsilon``, the neighbouring
``relation``, the randomness (``seed`` for replay, or an ``rng`` object;
neither means a secure source), the ``engine`` ("reference", the default,
or "array", :mod:`refdp.fast`; both give the same model for a seed) and the
public schema: ``schema=``, or ``bounds=``, ``categories=``,
``categorical_features=`` and ``classes=`` (:mod:`refdp.data.declared`).

    >>> from refdp.estimators import ThesisTreeClassifier
    >>> X = [[25, "renter"], [61, "owner"], [37, "owner"], [52, "renter"]]
    >>> clf = ThesisTreeClassifier(epsilon=1, seed=7, bounds={"x0": (18, 100)},
    ...                            categories={"x1": ["owner", "renter"]}, classes=[0, 1])
    >>> clf.fit(X, [0, 1, 1, 0]).receipt_.level, clf.classes_, clf.n_features_in_
    ('proved', [0, 1], 2)

:meth:`~TreeClassifier.fit` takes a :class:`~refdp.data.Dataset`, or ``X``
and ``y`` as scikit-learn users hold them: a list of rows, a NumPy array of
any numeric or object dtype, or a pandas DataFrame (whose columns name the
features), with labels of any hashable type (ints, bools, strings, NumPy
scalars) matched to the public classes by value.  NumPy and pandas are read
through their own methods (:mod:`refdp.data.rows`); refdp never imports
them.  Predictions are labels of the same kind, in a NumPy array when
``fit`` or the call had NumPy or pandas input (a list otherwise).

Whatever the schema parameters leave open (the bounds of a continuous
feature, the categories of a categorical one, the classes) is read off the
training data.  That leaks (claim ``schema-inference-leaks``): ``fit`` warns
with a :class:`~refdp.errors.PrivacyLeakWarning`, the schema lists each part
under ``leaks``, and the model's receipt is marked unsound.  A ``schema=``
wins over the four parameters.

The conventions are scikit-learn's (and ``tests/test_sklearn_compat.py``
runs its estimator checks), without importing it: the constructor stores
its arguments as given, :meth:`~TreeClassifier.get_params` returns them (so
``type(c)(**c.get_params())`` builds an equal estimator, and
``sklearn.base.clone`` works), :meth:`~TreeClassifier.set_params` changes
them after the same checks as the constructor, and :meth:`fit` returns the
estimator.  After fitting, ``classes_``, ``n_features_in_`` and (after a
DataFrame) ``feature_names_in_`` are as scikit-learn defines them;
``model_`` is the :class:`~refdp.tree.TreeModel` and ``receipt_`` its
privacy receipt.  Unlike scikit-learn, a setting of the wrong type, outside
its choices or its declared range is refused at once (by the constructor or
:meth:`~TreeClassifier.set_params`), not at the next :meth:`fit`; checks that
involve the data or several settings together stay with the learner.

With a ``seed``, every :meth:`fit` starts from the same seed, so refitting on
the same data gives the same model; with an ``rng`` object, fits draw from
it in turn.  Inputs are never modified.
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import (
    Any, ClassVar, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union,
)

from refdp.algorithms import AlgorithmSpec, Param, get_algorithm
from refdp.data import Dataset, RawValue, Schema, clipped, widened
from refdp.data.declared import Declared, FitSchema, dataset_schema, declare, fit_schema, given_schema
from refdp.data.rows import as_output, is_array_like, label_name, read_labels, read_table
from refdp.errors import DataError, InvalidParameterError, NotFittedError, PrivacyLeakWarning
from refdp.evaluation import accuracy
from refdp.privacy import Number, Receipt, Relation, as_epsilon, parse_relation
from refdp.rng import RandomSource, as_rng
from refdp.tree import TreeModel

__all__ = [
    "ESTIMATORS",
    "Rows",
    "Bounds",
    "Categories",
    "Features",
    "Classes",
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
"""Raw rows: one value per feature."""

Bounds = Union[Tuple[Any, Any], Mapping[Union[str, int], Tuple[float, float]]]
"""``bounds=``: ``(lower, upper)``, each a number or one entry per feature (a sequence or an array), or a
mapping from a feature (name or position) to its ``(lower, upper)``."""

Categories = Mapping[Union[str, int], Any]
"""``categories=``: a mapping from a categorical feature (name or position) to its public categories."""

Features = Any
"""``categorical_features=``: feature names or positions (a sequence or an array), or a boolean mask."""

Classes = Any
"""``classes=``: the public class labels (a sequence or an array of hashable values)."""

_Self = TypeVar("_Self", bound="TreeClassifier")

COMMON = ("epsilon", "relation", "seed", "rng", "engine", "schema", "bounds", "categories", "categorical_features",
          "classes")
"""The parameters every estimator has, first in :meth:`TreeClassifier.get_params`; the algorithm's follow."""


@dataclass(frozen=True)
class _Checked:
    """The settings, validated and converted: what :meth:`TreeClassifier.fit` uses."""

    epsilon: Fraction
    relation: Relation
    engine: str
    params: Dict[str, Param]
    rng: Optional[RandomSource]
    seed: Optional[int]
    schema: Optional[Schema]
    declared: Declared


def _check(spec: AlgorithmSpec, settings: Mapping[str, Any]) -> _Checked:
    """An estimator's keywords (:data:`COMMON` and ``spec``'s parameters), validated and converted."""
    seed, rng, schema, engine = settings["seed"], settings["rng"], settings["schema"], settings["engine"]
    if seed is not None and rng is not None:
        raise InvalidParameterError("give a seed or an rng, not both")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidParameterError(f"seed must be an int, got {seed!r}")
    if schema is not None and not isinstance(schema, Schema):
        raise InvalidParameterError(f"schema must be a refdp Schema or None, got {type(schema).__name__}")
    spec.fitter(engine)  # an unknown engine, or one the algorithm lacks, fails here
    return _Checked(
        epsilon=as_epsilon(settings["epsilon"]),
        relation=parse_relation(settings["relation"]),
        engine=engine,
        params=spec.resolve({name: value for name, value in settings.items() if name not in COMMON}),
        rng=None if rng is None else as_rng(rng),
        seed=seed,
        schema=schema,
        declared=declare(
            settings["bounds"], settings["categories"], settings["categorical_features"], settings["classes"]
        ),
    )


def _parameter_lines(spec: AlgorithmSpec) -> str:
    lines = [f"\n\nParameters of ``{spec.name}`` (from the registry)::\n"]
    for p in spec.parameters:
        allowed = f" (one of {', '.join(p.choices)})" if p.choices else ""
        lines.append(f"    {p.name}={p.default!r}: {p.help}{allowed}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class _Fitted:
    """What :meth:`TreeClassifier.fit` learnt: the model and how input meets its schema."""

    model: TreeModel
    schema: FitSchema
    n_features: int
    names: Optional[Tuple[str, ...]]
    arrays: bool

    def labels(self, codes: Sequence[int], arrays: bool = False) -> Any:
        """The class labels of ``codes``: an array when ``fit`` or this call (``arrays``) had array input."""
        values = self.schema.classes.values
        return as_output([values[c] for c in codes], self.arrays or arrays)


class TreeClassifier:
    """A registered tree learner behind ``fit`` / ``predict`` / ``predict_proba`` / ``score``.

    The base of the estimators; each subclass sets :attr:`algorithm` (a
    registry name) and lists its parameters in its constructor.
    :data:`ESTIMATORS` maps every registered algorithm to its class.
    """

    algorithm: ClassVar[str] = ""
    # scikit-learn before 1.6 tells a classifier by this attribute; later versions by __sklearn_tags__.
    _estimator_type: ClassVar[str] = "classifier"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The parameters are documented where they are declared, the registry;
        # appending them here keeps help() in step with it.
        cls.__doc__ = (cls.__doc__ or "") + _parameter_lines(get_algorithm(cls.algorithm))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise InvalidParameterError(
            "TreeClassifier is the common base; use an algorithm's class, for example "
            "refdp.estimators.ESTIMATORS['private-rdt']"
        )

    def _configure(self, given: Mapping[str, Any]) -> None:
        """Check and store a subclass constructor's arguments (its ``locals()``)."""
        spec = get_algorithm(self.algorithm)
        settings = {name: given[name] for name in COMMON}
        settings.update({p.name: given[p.name] for p in spec.parameters})
        self._checked = _check(spec, settings)
        self._settings = settings
        self._fitted: Optional[_Fitted] = None

    def _refuse_unknown(self, given: Mapping[str, object]) -> None:
        unknown = sorted(set(given) - set(self._settings))
        if unknown:
            raise InvalidParameterError(
                f"{type(self).__name__} has no parameter {', '.join(unknown)}; its parameters are: "
                f"{', '.join(self._settings)}"
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
        self._refuse_unknown(params)
        settings = {**self._settings, **params}
        self._checked = _check(get_algorithm(self.algorithm), settings)
        self._settings = settings
        return self

    def __repr__(self) -> str:
        defaults = type(self)().get_params()
        changed = ", ".join(f"{k}={v!r}" for k, v in self._settings.items() if not _same(v, defaults[k]))
        return f"{type(self).__name__}({changed})"

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's description of this estimator (scikit-learn 1.6 or later calls it).

        Only scikit-learn calls this, so it is loaded already: reading its
        tag classes imports nothing new.
        """
        utils = importlib.import_module("sklearn.utils")
        private = any(v.sound for v in get_algorithm(self.algorithm).variants)
        return utils.Tags(
            estimator_type="classifier",
            target_tags=utils.TargetTags(required=True),
            # A DP learner's accuracy on a few hundred rows depends on its budget: no score is promised.
            classifier_tags=utils.ClassifierTags(poor_score=private),
            input_tags=utils.InputTags(string=True),
            # Without a seed, fits draw fresh randomness: two fits differ.
            non_deterministic=self._settings["seed"] is None,
        )

    def __sklearn_is_fitted__(self) -> bool:
        return self._fitted is not None

    # --- learning -----------------------------------------------------------

    def fit(self: _Self, X: Any, y: Any = None) -> _Self:
        """Train on ``X`` and ``y`` (a list of rows, an array or a DataFrame, and one label per row; see
        the module docstring), or on a :class:`~refdp.data.Dataset` with ``y`` None, whose own schema is
        used (``bounds=``, ``categories=``, ``categorical_features=`` and ``classes=`` are then not read).
        Returns self."""
        checked = self._checked
        if isinstance(X, Dataset):
            data = _dataset(X, y, checked.schema)
            fitted = dataset_schema(data.schema)
            n_features, names, arrays = data.schema.n_attributes, None, False
        else:
            table = read_table(X)
            labels = read_labels(y, table.n_rows)
            if checked.schema is not None:
                fitted = given_schema(table, labels, checked.schema)
            else:
                fitted = fit_schema(table, labels, checked.declared, label_name(y))
                if fitted.read_off:
                    warnings.warn(PrivacyLeakWarning(_leak_message(type(self).__name__, fitted.read_off)), stacklevel=2)
            data = Dataset.from_codes(fitted.schema, fitted.encode(table), fitted.label_codes(labels))
            n_features, names, arrays = table.n_columns, table.names, table.arrays or is_array_like(y)
        rng = checked.rng if checked.rng is not None else as_rng(checked.seed)
        fit = get_algorithm(self.algorithm).fitter(checked.engine)
        model = fit(data, checked.epsilon, checked.params, rng, checked.relation)
        self._fitted = _Fitted(model, fitted, n_features, names, arrays)
        return self

    def _require(self) -> _Fitted:
        if self._fitted is None:
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")
        return self._fitted

    @property
    def model_(self) -> TreeModel:
        """The trained model (NotFittedError, a ModelError, before :meth:`fit`)."""
        return self._require().model

    @property
    def receipt_(self) -> Receipt:
        """The privacy receipt of the trained model."""
        return self.model_.receipt

    @property
    def classes_(self) -> Any:
        """The class labels, in the order of :meth:`predict_proba`'s columns (an array after array input)."""
        fitted = self._require()
        return fitted.labels(range(fitted.schema.schema.n_classes))

    @property
    def n_features_in_(self) -> int:
        """The number of features (columns of ``X``) seen by :meth:`fit`."""
        return self._require().n_features

    @property
    def feature_names_in_(self) -> Any:
        """The column names of the DataFrame :meth:`fit` saw, as a NumPy array of objects.

        Defined only after fitting on a DataFrame whose column names are all
        strings, as in scikit-learn (an AttributeError otherwise).
        """
        names = self._require().names
        if names is None:
            raise AttributeError(
                f"this {type(self).__name__} was fitted on X without column names: feature_names_in_ is defined "
                "only after fitting on a DataFrame"
            )
        return as_output(names, arrays=True, dtype="object")

    def _prediction_data(self, X: Any) -> Dataset:
        fitted = self._require()
        if isinstance(X, Dataset):
            return X
        table = read_table(X)
        _check_feature_names(type(self).__name__, fitted.names, table.names)
        if table.n_columns != fitted.n_features:
            raise DataError(
                f"X has {table.n_columns} features, but {type(self).__name__} is expecting {fitted.n_features} "
                "features as input"
            )
        schema = fitted.schema.schema
        # Prediction reads the attributes only: the class column is a placeholder.  Values beyond the
        # public bounds are clipped to them, which changes no sound tree's prediction (refdp.data.clipping).
        wide = Dataset.from_codes(widened(schema), fitted.schema.encode(table), [0] * table.n_rows)
        return clipped(wide, schema)[0]

    def _class_codes(self, data: Dataset) -> List[int]:
        model = self._require().model
        index = {c: i for i, c in enumerate(model.schema.classes)}
        return [index[c] for c in model.predict(data)]

    def predict(self, X: Any) -> Any:
        """The predicted class of every row (of a Dataset, rows, an array or a DataFrame).

        A NumPy array when ``fit`` or this call had NumPy or pandas input, else a list.
        """
        return self._require().labels(self._class_codes(self._prediction_data(X)), is_array_like(X))

    def predict_proba(self, X: Any) -> Any:
        """Class probabilities of every row, from the released leaf counts; columns as :attr:`classes_`."""
        fitted = self._require()
        probabilities = fitted.model.predict_proba(self._prediction_data(X))
        return as_output(probabilities, fitted.arrays or is_array_like(X))

    def score(self, X: Any, y: Any = None) -> float:
        """The accuracy of :meth:`predict` on a Dataset's labels, or on ``X`` and labels ``y``."""
        if isinstance(X, Dataset):
            if y is not None:
                raise InvalidParameterError("y must be None when X is a Dataset: its labels are part of it")
            return accuracy(self.predict(X), [X.label(i) for i in range(len(X))])
        data = self._prediction_data(X)
        if y is None:
            raise InvalidParameterError("score on rows needs y, one class label per row")
        coding = self._require().schema.classes
        actual = [coding.code(v) for v in read_labels(y, len(data))]
        return accuracy(self._class_codes(data), actual)  # type: ignore[arg-type]


def _same(a: object, b: object) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays compare element by element
        return a is b


def _dataset(X: Dataset, y: object, schema: Optional[Schema]) -> Dataset:
    if y is not None:
        raise InvalidParameterError("y must be None when X is a Dataset: its labels are part of it")
    if schema is not None and X.schema != schema:
        raise InvalidParameterError(
            "the Dataset was read with another schema than the estimator's schema=; read it "
            "with that schema, or leave schema=None"
        )
    return X


def _leak_message(name: str, read_off: Sequence[str]) -> str:
    shown = "; ".join(part.replace(" read off the data (estimator fit)", "") for part in read_off[:4])
    more = f"; and {len(read_off) - 4} more" if len(read_off) > 4 else ""
    return (
        f"{name}.fit read {len(read_off)} part(s) of the public schema off the data ({shown}{more}). This leaks "
        "the records (claim schema-inference-leaks): the model's receipt is marked unsound. Declare them from "
        "public knowledge: bounds= for continuous features, categories= for categorical ones, classes= for the "
        "labels (or a schema=)"
    )


def _check_feature_names(name: str, fitted: Optional[Tuple[str, ...]], given: Optional[Tuple[str, ...]]) -> None:
    """scikit-learn's rules: a warning when only one of fit and X has column names, an error when they differ."""
    if fitted is None and given is None or fitted == given:
        return
    if fitted is None:
        warnings.warn(f"X has feature names, but {name} was fitted without feature names", UserWarning, stacklevel=4)
        return
    if given is None:
        warnings.warn(
            f"X does not have valid feature names, but {name} was fitted with feature names", UserWarning, stacklevel=4
        )
        return
    unseen, missing = sorted(set(given) - set(fitted)), sorted(set(fitted) - set(given))
    message = "The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + _listed(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + _listed(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise DataError(message)


def _listed(names: Sequence[str]) -> str:
    return "".join(f"- {n}\n" for n in names[:5]) + ("- ...\n" if len(names) > 5 else "")


# --- generated by scripts/estimator_signatures.py from the registry: do not edit below ---

class DiffPID3Classifier(TreeClassifier):
    """DiffP-ID3 / DiffP-C4.5 (Friedman & Schuster 2010); see :mod:`refdp.algorithms.diffpid3`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = DiffPID3Classifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "diffpid3"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound"] = "sound",
        quality: Literal["info-gain", "gini", "max"] = "max",
        max_depth: int = 5,
        max_size: int = 0,
        grid: int = 64,
        size_share: float = 0.05,
        leaf_sigmas: float = 3.0,
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class ThesisTreeClassifier(TreeClassifier):
    """The thesis tree (Novakovic 2019, Algorithm 2); see :mod:`refdp.algorithms.thesis_tree`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = ThesisTreeClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "thesis-tree"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound", "published", "float-threshold"] = "sound",
        quality: Literal["auto", "max", "gini"] = "auto",
        grid: int = 256,
        max_depth: int = 6,
        min_samples: int = 5,
        node_counts: Literal["every-node", "leaves"] = "leaves",
        level_ratio: float = 1.0,
        size_share: float = 0.05,
        leaf_sigmas: float = 3.0,
        split_weights: Literal["auto", "pair", "attribute"] = "auto",
        split_scale: float = 20.0,
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class BaselineTreeClassifier(TreeClassifier):
    """The non-private baseline tree (NOT differentially private); see :mod:`refdp.algorithms.baseline`.

    ``epsilon`` is accepted for a uniform interface and ignored.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = BaselineTreeClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('unsound', 2, [0, 1])
    """

    algorithm = "tree-baseline"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["non-private"] = "non-private",
        quality: Literal["gini", "info-gain"] = "gini",
        split: Literal["multiway", "binary"] = "multiway",
        max_depth: int = 5,
        min_samples: int = 5,
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class DPDFClassifier(TreeClassifier):
    """DPDF, the forest of Fletcher & Islam (2015); see :mod:`refdp.algorithms.dpdf`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = DPDFClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "dpdf"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound", "published"] = "sound",
        n_trees: int = 1,
        max_depth: int = 5,
        min_size: int = 30,
        bins: int = 5,
        quality: Literal["gini-weighted", "gini"] = "gini",
        size_share: float = 0.05,
        leaf_sigmas: float = 2.0,
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class DPAdaBoostClassifier(TreeClassifier):
    """CART-DPsAdaBoost (Jia and Qiu 2020); see :mod:`refdp.algorithms.adaboost`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = DPAdaBoostClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "dp-adaboost"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound", "published"] = "sound",
        n_estimators: int = 5,
        max_depth: int = 1,
        n_features: int = 0,
        theta: float = 1.5,
        grid: int = 64,
        size_share: float = 0.05,
        leaf_sigmas: float = 6.0,
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class DPEAClassifier(TreeClassifier):
    """DPEA (Bai et al. 2017), the exponential mechanism over whole subtrees; see :mod:`refdp.algorithms.dpea`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = DPEAClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "dpea"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound", "published"] = "sound",
        max_depth: int = 2,
        embed_depth: str = "2",
        search: Literal["exact", "exhaustive", "mcmc", "paper"] = "exact",
        steps: int = 1000,
        buffer: int = 50,
        threshold: float = 1.0,
        min_size: int = 20,
        max_subtrees: int = 1000000,
        bins: int = 5,
        size_share: float = 0.05,
        leaf_sigmas: float = 3.0,
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class PrivateRDTClassifier(TreeClassifier):
    """Private-RDT, random trees with noisy leaf counts (Jagannathan et al. 2012); see
    :mod:`refdp.algorithms.private_rdt`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = PrivateRDTClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "private-rdt"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound"] = "sound",
        n_trees: int = 10,
        max_depth: int = 3,
        structure: Literal["per-level", "per-node"] = "per-level",
        categorical: Literal["auto", "multiway", "binary"] = "auto",
        continuous: Literal["auto", "bins", "threshold"] = "auto",
        bins: int = 10,
        voting: Literal["log-odds", "sum-counts"] = "log-odds",
        size_share: float = 0.05,
        leaf_sigmas: float = 1.5,
        max_leaves: int = 16384,
        noise: Literal["discrete-laplace", "laplace"] = "discrete-laplace",
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class KAnonRDTClassifier(TreeClassifier):
    """k-AnonToRdt, random trees on samples with small counts suppressed (Waseda et al. 2024); see
    :mod:`refdp.algorithms.kanon_rdt`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = KAnonRDTClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "kanon-rdt"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound", "leaf-total"] = "sound",
        n_trees: int = 0,
        max_depth: int = 3,
        k: int = -1,
        beta: float = 0.0,
        max_delta: float = 1e-05,
        size_share: float = 0.05,
        min_fill: float = 1.0,
        structure: Literal["per-level", "per-node"] = "per-level",
        categorical: Literal["multiway", "binary"] = "multiway",
        continuous: Literal["bins", "threshold"] = "bins",
        bins: int = 5,
        voting: Literal["log-odds", "sum-counts"] = "log-odds",
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


class NoisyMajorityClassifier(TreeClassifier):
    """The noisy majority class, a one-leaf baseline; see :mod:`refdp.algorithms.majority`.

    >>> X = [[0.5, "a"], [9.5, "b"], [1.5, "a"], [8.5, "b"], [2.5, "a"], [7.5, "b"]]
    >>> y = [0, 1, 0, 1, 0, 1]
    >>> clf = NoisyMajorityClassifier(epsilon=1, seed=0, bounds={0: (0, 10)}, categories={1: ["a", "b"]}, classes=[0, 1])
    >>> clf.fit(X, y).receipt_.level, clf.n_features_in_, clf.classes_
    ('proved', 2, [0, 1])
    """

    algorithm = "noisy-majority"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        variant: Literal["sound"] = "sound",
        noise: Literal["discrete-laplace", "laplace"] = "discrete-laplace",
        relation: Union[Relation, str] = "add-remove",
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: Literal["reference", "array"] = "reference",
        schema: Optional[Schema] = None,
        bounds: Optional[Bounds] = None,
        categories: Optional[Categories] = None,
        categorical_features: Optional[Features] = None,
        classes: Optional[Classes] = None,
    ) -> None:
        """Why so many parameters: scikit-learn's get_params and clone read an estimator's parameters from
        this signature, one keyword each: the algorithm's parameters, then the fit's settings."""
        self._configure(locals())


ESTIMATORS: Mapping[str, Type[TreeClassifier]] = MappingProxyType(
    {
        "diffpid3": DiffPID3Classifier,
        "dp-adaboost": DPAdaBoostClassifier,
        "dpdf": DPDFClassifier,
        "dpea": DPEAClassifier,
        "kanon-rdt": KAnonRDTClassifier,
        "noisy-majority": NoisyMajorityClassifier,
        "private-rdt": PrivateRDTClassifier,
        "thesis-tree": ThesisTreeClassifier,
        "tree-baseline": BaselineTreeClassifier,
    }
)
"""The estimator class of every registered algorithm, by registry name."""
# --- end of generated classes ---
