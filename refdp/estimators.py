"""Scikit-learn-like estimators over the registry's tree learners.

Each class is a thin wrapper: its constructor takes the paper's parameters
(``epsilon``, ``max_depth``, ...), the neighbouring ``relation`` and the
randomness (``seed`` for replay, or an ``rng`` object; neither means a
secure source) and the ``engine`` ("reference", the default, or "array",
:mod:`refdp.fast`; both give the same model for a seed), and :meth:`fit`
calls the registered algorithm.  After
fitting, ``model_`` is the :class:`~refdp.tree.TreeModel`, ``receipt_`` its
privacy receipt and ``classes_`` the schema's classes.

    >>> from refdp.data import load_builtin
    >>> clf = ThesisTreeClassifier(epsilon=1, max_depth=3, seed=7).fit(load_builtin("vote"))
    >>> clf.receipt_.epsilon
    Fraction(1, 1)

With a ``seed``, every :meth:`fit` starts from the same seed, so refitting on
the same data gives the same model; with an ``rng`` object, fits draw from
it in turn.  Inputs are never modified.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Union

from refdp.algorithms import Param, get_algorithm
from refdp.data import Dataset
from refdp.errors import InvalidParameterError, ModelError
from refdp.evaluation import accuracy
from refdp.privacy import Number, Receipt, Relation, as_epsilon, parse_relation
from refdp.rng import RandomSource, as_rng
from refdp.tree import TreeModel

__all__ = [
    "TreeClassifier",
    "DiffPID3Classifier",
    "ThesisTreeClassifier",
    "BaselineTreeClassifier",
    "DPDFClassifier",
    "DPAdaBoostClassifier",
    "DPEAClassifier",
]


class TreeClassifier:
    """A registered tree learner behind ``fit`` / ``predict`` / ``predict_proba``.

    ``algorithm`` is the registry name; ``params`` its parameters, whose
    names, types and choices are checked at construction (ranges, such as a
    negative depth, when fitting).  The subclasses fix the algorithm and
    spell the parameters out.
    """

    algorithm = ""

    def __init__(
        self,
        epsilon: Number,
        params: Dict[str, Param],
        *,
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
    ) -> None:
        if seed is not None and rng is not None:
            raise InvalidParameterError("give a seed or an rng, not both")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidParameterError(f"seed must be an int, got {seed!r}")
        self.epsilon = as_epsilon(epsilon)
        self.relation = parse_relation(relation)
        self._spec = get_algorithm(self.algorithm)
        self._spec.fitter(engine)  # an unknown engine, or one the algorithm lacks, fails here
        self.engine = engine
        self.params = self._spec.resolve(params)
        self.seed = seed
        self._rng = None if rng is None else as_rng(rng)
        self._model: Optional[TreeModel] = None

    def get_params(self) -> Dict[str, object]:
        """The constructor's settings: budget, relation, seed and the algorithm's parameters."""
        return {
            "epsilon": self.epsilon, "relation": self.relation, "seed": self.seed, "engine": self.engine, **self.params
        }

    def fit(self, data: Dataset) -> "TreeClassifier":
        """Train on ``data`` (a :class:`~refdp.data.Dataset` with its public schema); returns self."""
        if not isinstance(data, Dataset):
            raise InvalidParameterError(
                f"fit takes a refdp Dataset (see refdp.data.load), got {type(data).__name__}"
            )
        rng = self._rng if self._rng is not None else as_rng(self.seed)
        self._model = self._spec.fitter(self.engine)(data, self.epsilon, self.params, rng, self.relation)
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

    def predict(self, data: Dataset) -> List[str]:
        """The predicted class of every row of ``data``."""
        return self.model_.predict(data)

    def predict_proba(self, data: Dataset) -> List[List[float]]:
        """Class probabilities of every row, from the released leaf counts."""
        return self.model_.predict_proba(data)

    def score(self, data: Dataset) -> float:
        """The accuracy of :meth:`predict` on ``data``'s labels."""
        return accuracy(self.predict(data), [data.label(i) for i in range(len(data))])


class DiffPID3Classifier(TreeClassifier):
    """DiffP-ID3 / DiffP-C4.5 (Friedman & Schuster 2010); see :mod:`refdp.algorithms.diffpid3`.

    ``epsilon`` is the total budget B, ``max_depth`` the depth d,
    ``quality`` one of ``"info-gain"``, ``"gini"``, ``"max"``, and
    ``max_size`` the public bound N on the data set's size for info-gain
    (0 for the default), ``grid`` the cells of the public threshold grid of
    each continuous attribute.
    """

    algorithm = "diffpid3"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        max_depth: int = 5,
        quality: str = "max",
        max_size: int = 0,
        grid: int = 64,
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
    ) -> None:
        super().__init__(
            epsilon,
            {"max_depth": max_depth, "quality": quality, "max_size": max_size, "grid": grid},
            relation=relation,
            seed=seed,
            rng=rng,
            engine=engine,
        )


class ThesisTreeClassifier(TreeClassifier):
    """The thesis tree (Novakovic 2019, Algorithm 2); see :mod:`refdp.algorithms.thesis_tree`.

    ``epsilon`` is the total budget, ``max_depth`` the depth d,
    ``min_samples`` the threshold m_s, ``quality`` ``"max"`` or ``"gini"``,
    ``grid`` the cells of the public threshold grid of each continuous
    attribute, and ``variant`` ``"sound"`` (default), the unsound
    ``"published"`` or the planted ``"float-threshold"``.
    """

    algorithm = "thesis-tree"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        max_depth: int = 3,
        min_samples: int = 5,
        quality: str = "max",
        grid: int = 64,
        variant: str = "sound",
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
    ) -> None:
        super().__init__(
            epsilon,
            {"max_depth": max_depth, "min_samples": min_samples, "quality": quality, "grid": grid, "variant": variant},
            relation=relation,
            seed=seed,
            rng=rng,
            engine=engine,
        )


class BaselineTreeClassifier(TreeClassifier):
    """The non-private baseline tree (NOT differentially private); see :mod:`refdp.algorithms.baseline`.

    ``epsilon`` is accepted for a uniform interface and ignored.
    """

    algorithm = "tree-baseline"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        max_depth: int = 5,
        min_samples: int = 5,
        quality: str = "gini",
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
    ) -> None:
        super().__init__(
            epsilon,
            {"max_depth": max_depth, "min_samples": min_samples, "quality": quality},
            relation=relation,
            seed=seed,
            rng=rng,
            engine=engine,
        )


class DPDFClassifier(TreeClassifier):
    """DPDF, the forest of Fletcher & Islam (2015); see :mod:`refdp.algorithms.dpdf`.

    ``epsilon`` is the total budget beta, ``n_trees`` tau, ``max_depth``
    delta (node levels), ``min_size`` the noisy node size needed to split,
    ``bins`` the public equal-width intervals of each continuous attribute,
    and ``variant`` ``"sound"`` (default) or the unsound ``"published"``.
    """

    algorithm = "dpdf"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        n_trees: int = 1,
        max_depth: int = 5,
        min_size: int = 100,
        bins: int = 5,
        variant: str = "sound",
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
    ) -> None:
        super().__init__(
            epsilon,
            {"n_trees": n_trees, "max_depth": max_depth, "min_size": min_size, "bins": bins, "variant": variant},
            relation=relation,
            seed=seed,
            rng=rng,
            engine=engine,
        )


class DPAdaBoostClassifier(TreeClassifier):
    """CART-DPsAdaBoost (Jia and Qiu 2020); see :mod:`refdp.algorithms.adaboost`.

    ``grid`` is the cells of the public threshold grid of each continuous
    attribute (the sound variant's candidate thresholds).
    """

    algorithm = "dp-adaboost"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        n_estimators: int = 10,
        max_depth: int = 1,
        n_features: int = 5,
        theta: float = 3.0,
        grid: int = 64,
        variant: str = "sound",
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
    ) -> None:
        super().__init__(
            epsilon,
            {
                "n_estimators": n_estimators,
                "max_depth": max_depth,
                "n_features": n_features,
                "theta": float(theta),
                "grid": grid,
                "variant": variant,
            },
            relation=relation,
            seed=seed,
            rng=rng,
            engine=engine,
        )


class DPEAClassifier(TreeClassifier):
    """DPEA (Bai et al. 2017): the exponential mechanism selects whole subtrees; see :mod:`refdp.algorithms.dpea`.

    ``epsilon`` is the total budget, ``max_depth`` the depth D (splits on a
    path), ``embed_depth`` d (``"1"``, ``"2"``, ... or ``"whole"``; an int is
    accepted), ``search`` ``"exact"`` (the default, a perfect sampler),
    ``"exhaustive"``, ``"mcmc"`` or ``"paper"``, ``variant`` ``"sound"`` (the
    default) or the unsound ``"published"`` (which stops on ``min_size`` true
    counts and runs the paper's chain with ``buffer`` and ``threshold``);
    ``steps`` is the MCMC step count and ``max_subtrees`` caps the exhaustive
    list.  DPEA has the reference engine only.
    """

    algorithm = "dpea"

    def __init__(
        self,
        epsilon: Number = 1,
        *,
        max_depth: int = 4,
        embed_depth: Union[int, str] = "2",
        search: str = "exact",
        variant: str = "sound",
        steps: int = 1000,
        buffer: int = 50,
        threshold: float = 1.0,
        min_size: int = 20,
        max_subtrees: int = 1_000_000,
        relation: Union[Relation, str] = Relation.ADD_REMOVE,
        seed: Optional[int] = None,
        rng: Optional[RandomSource] = None,
        engine: str = "reference",
    ) -> None:
        super().__init__(
            epsilon,
            {
                "max_depth": max_depth,
                "embed_depth": str(embed_depth),
                "search": search,
                "variant": variant,
                "steps": steps,
                "buffer": buffer,
                "threshold": threshold,
                "min_size": min_size,
                "max_subtrees": max_subtrees,
            },
            relation=relation,
            seed=seed,
            rng=rng,
            engine=engine,
        )
