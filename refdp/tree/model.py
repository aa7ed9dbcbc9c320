"""A trained model: trees over a public schema, how they vote, and the privacy receipt.

One class covers a single tree, a forest and a weighted ensemble: a model has
``trees`` (root nodes), one weight per tree, and a voting rule:

* ``"vote"``: each tree votes for its leaf's predicted class with its weight
  (a single tree, bagging, AdaBoost's weighted vote);
* ``"confidence"``: each tree votes with its weight times its leaf's
  confidence (Fletcher & Islam's DPDF);
* ``"sum-counts"``: the trees' leaf counts are added up, times their weights,
  and the class with the largest sum wins (random decision trees);
* ``"log-odds"``: each tree t multiplies the odds of a class by how much
  more often the class occurs in the reached leaf than in the whole tree,
  raised to its weight w_t: the score of class c is
  ``log pi(c) + sum_t w_t (log p_t(c | leaf) - log pi_t(c))`` with
  ``p_t(c | leaf) = (n_c + pi_t(c)) / (n + 1)`` from the leaf's clipped
  released counts, ``pi_t`` the tree's clipped released class totals plus
  one per class, normalised, and ``pi`` the same over all trees.  A tree
  whose leaf looks like the whole tree (an uninformative split, an empty
  leaf) then moves no score, where under ``"sum-counts"`` it votes for the
  majority class with the whole weight of its leaf (random decision trees
  on data with a rare class).

A leaf that released no positive count (empty, or all suppressed) speaks
with the released counts of its deepest ancestor that has some
(:func:`refdp.tree.nodes.route_informed`), so that predictions never depend
on the order in which the schema lists the classes; remaining ties of the
scores go to the class with the larger released total over all trees (the
pooled counts of every leaf), then to the class whose label sorts first, never
to the class listed first.  The JSON form carries the
schema, the receipt, the algorithm, its variant and parameters, so a model
file can be read, audited and used on its own.  Reading it back
(:func:`decode_model`) verifies the receipt (see :mod:`refdp.privacy.receipt`);
:func:`refdp.model_from_json` also checks that the algorithm and variant are
registered and agree with the charges; any mismatch is one ModelError.

The file also states ``plan_inputs``: the public values the algorithm's
budget plan read that the parameters do not hold (the noisy size N~ it
released, for example), so that a verifier can recompute the plan, the
``budget`` training was given, and a ``digest`` of the whole file
(:mod:`refdp.tree.integrity`), with an optional keyed ``signature``.

Format versions: 2 adds the receipt's soundness ``level``, the claims' statuses
and a digest of the receipt; 3 adds ``budget``, ``plan_inputs``, the digest
of the whole file and the optional signature.  A file of an older format cannot be
verified and must be retrained.
"""

from __future__ import annotations

import json
import math
from operator import add, gt
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.data import ColumnView, Dataset, MissingPolicy, Schema, expect_dataset
from refdp.data.predict_rows import rows_to_predict
from refdp.errors import InvalidParameterError, ModelError
from refdp.files import read_json
from refdp.privacy import Receipt
from refdp.tree.codec import node_from_json, node_to_json
from refdp.tree.compiled import Columns, CompiledTree, compile_tree, cuts_by_attribute, leaf_numbers
from refdp.tree.integrity import DIGEST, SIGNATURE, model_digest, model_signature
from refdp.tree.leaf import Count, Leaf
from refdp.tree.nodes import Node, children_of, released_counts, route_informed
from refdp.tree.nodes import depth as tree_depth
from refdp.tree.nodes import leaves as all_leaves
from refdp.tree.rules import Rule, conditions_of, rules

__all__ = ["TreeModel", "VOTING", "FORMAT", "VERSION", "decode_model", "dumps_model", "read_model_json"]

FORMAT = "refdp-model"
VERSION = 3
_FIELDS = (
    "format", "version", "algorithm", "variant", "params", "budget", "schema", "plan_inputs", "receipt", "voting",
    "weights", "trees", DIGEST,
)
# "missing": the missing-value policy, when the training data was read with one (a file, not a built-in)
_OPTIONAL_FIELDS = (SIGNATURE, "missing")
VOTING = ("vote", "confidence", "sum-counts", "log-odds")

Param = Union[int, float, str, bool]


@dataclass(frozen=True)
class TreeModel:
    """Trees over ``schema`` with their voting rule and privacy receipt."""

    algorithm: str
    variant: str
    params: Mapping[str, Param]
    schema: Schema
    trees: Tuple[Node, ...]
    receipt: Receipt
    weights: Tuple[float, ...] = field(default=())
    voting: str = "vote"
    missing: Optional[MissingPolicy] = None
    """The missing-value policy of the training data (:attr:`refdp.data.Dataset.missing`); prediction applies it."""
    plan_inputs: Mapping[str, int] = field(default_factory=dict)
    """Public values the budget plan read besides the parameters, such as the released noisy size ``noisy_size``."""
    budget: Optional[Fraction] = None
    """The total epsilon training was given (the receipt's total may be less, or, for a published variant,
    more); None: the receipt's total."""
    _released: Dict[int, Tuple[Count, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _priors: List[List[Tuple[float, float]]] = field(default_factory=list, init=False, repr=False, compare=False)
    _compiled: List[Tuple[CompiledTree, ...]] = field(default_factory=list, init=False, repr=False, compare=False)
    _ties: List[int] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.trees:
            raise ModelError("a model needs at least one tree")
        if not self.weights:
            object.__setattr__(self, "weights", (1.0,) * len(self.trees))
        if len(self.weights) != len(self.trees):
            raise ModelError(f"{len(self.trees)} trees but {len(self.weights)} weights")
        for index, weight in enumerate(self.weights):
            if not math.isfinite(weight):
                raise ModelError(f"tree {index} has weight {weight!r}; every tree weight must be a finite number")
        if self.voting not in VOTING:
            raise ModelError(f"unknown voting rule {self.voting!r}; use one of {', '.join(VOTING)}")
        if self.budget is None:
            object.__setattr__(self, "budget", self.receipt.epsilon)
        for name, value in self.plan_inputs.items():
            if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int):
                raise ModelError(f"plan input {name!r} must be an integer, got {value!r}")

    def __getstate__(self) -> Dict[str, Any]:
        # The memo of released counts is keyed by id(node): in a copy or an unpickled model those ids
        # name other objects, so copies start without it (and without the priors computed from the trees).
        state = dict(self.__dict__)
        state["_released"], state["_priors"], state["_compiled"] = {}, [], []
        return state

    @property
    def root(self) -> Node:
        """The root of a single-tree model."""
        if len(self.trees) != 1:
            raise ModelError(f"this model has {len(self.trees)} trees; use .trees")
        return self.trees[0]

    @property
    def classes_(self) -> List[str]:
        return list(self.schema.classes)

    @property
    def depth(self) -> int:
        """The most decision nodes on a root-to-leaf path of any tree (0: every tree is a single leaf)."""
        return max(tree_depth(tree) for tree in self.trees)

    @property
    def n_leaves(self) -> int:
        """The number of leaves of all the trees together."""
        return sum(1 for tree in self.trees for _ in all_leaves(tree))

    def _columns(self, data: Dataset) -> List[Sequence[Union[int, float]]]:
        expect_dataset(data, "the data to predict")
        if data.schema.attributes != self.schema.attributes:
            raise ModelError(
                "the data's attributes differ from the model's schema; read the data with the "
                "schema stored in the model"
            )
        return [data.column(i) for i in range(len(self.schema.attributes))]

    def _log_priors(self) -> List[List[Tuple[float, float]]]:
        """(pi_t(c), log pi_t(c)) for every tree, then (pi(c), log pi(c)) of all trees together (once per model)."""
        if not self._priors:
            k = self.schema.n_classes
            totals = [[0.0] * k for _ in self.trees]
            for total, tree in zip(totals, self.trees):
                for leaf in all_leaves(tree):
                    for c, count in enumerate(leaf.counts):
                        total[c] += max(0.0, float(count))
            pooled = [sum(t[c] for t in totals) for c in range(k)]
            for total in totals + [pooled]:
                size = sum(total) + k
                self._priors.append([((n + 1.0) / size, math.log((n + 1.0) / size)) for n in total])
        return self._priors

    def _contribution(self, tree: int, leaf: Leaf) -> List[float]:
        """What tree ``tree``'s (informed) leaf ``leaf`` adds to each class's score, by the voting rule."""
        weight = self.weights[tree]
        if self.voting == "log-odds":
            clipped = [max(0.0, float(c)) for c in leaf.counts]
            size = sum(clipped) + 1.0
            return [
                weight * (math.log((count + share) / size) - log_share)
                for count, (share, log_share) in zip(clipped, self._log_priors()[tree])
            ]
        if self.voting == "sum-counts":
            return [weight * float(count) for count in leaf.counts]
        # A class other than the leaf's adds 0.0, which changes no score: a score starts at 0.0 and
        # so is never -0.0, the one float that adding 0.0 changes.
        vote = weight * leaf.confidence if self.voting == "confidence" else weight
        chosen = leaf.prediction
        return [vote if c == chosen else 0.0 for c in range(self.schema.n_classes)]

    def _initial_scores(self) -> List[float]:
        """The scores before any tree adds its share: the pooled log priors (``"log-odds"``) or zeros."""
        if self.voting == "log-odds":
            return [log_prior for _, log_prior in self._log_priors()[-1]]
        return [0.0] * self.schema.n_classes

    def _scores(self, leaves: Sequence[Leaf]) -> List[float]:
        """Each class's score from the leaf every tree reaches: the trees' contributions added in tree order."""
        scores = self._initial_scores()
        for tree, leaf in enumerate(leaves):
            for c, amount in enumerate(self._contribution(tree, leaf)):
                scores[c] += amount
        return scores

    def _tie_order(self) -> List[int]:
        """The classes, the one that wins a tie of scores first: the larger released total over all trees
        (pooled counts of every leaf), then the label that sorts first; never the order of the schema."""
        if not self._ties:
            pooled = [share for share, _ in self._log_priors()[-1]]
            classes = self.schema.classes
            self._ties.extend(sorted(range(len(classes)), key=lambda c: (-pooled[c], classes[c])))
        return self._ties

    def _best(self, scores: Sequence[float]) -> int:
        """The class with the highest score; among equal scores, the first of :meth:`_tie_order`."""
        order = self._tie_order()
        return order[max(range(len(order)), key=lambda i: (scores[order[i]], -i))]

    def _probabilities(self, scores: Sequence[float], leaves: Sequence[Leaf]) -> List[float]:
        """The class probabilities of a row with these scores, reaching these leaves (of which only a
        single tree's leaf is read)."""
        if self.voting == "log-odds":
            top = max(scores)
            odds = [math.exp(x - top) for x in scores]
            return [x / sum(odds) for x in odds]
        if len(self.trees) == 1:
            return leaves[0].probabilities()
        return Leaf(tuple(scores)).probabilities()

    def _released_at(self, node: Node) -> Tuple[Count, ...]:
        # Memoised per model: a node's released counts, or its children's summed, computed once.
        key = id(node)
        if key not in self._released:
            self._released[key] = released_counts(node)
        return self._released[key]

    def _leaves(self, data: Dataset) -> List[List[Leaf]]:
        """The reference routing: every row walked down every tree (:func:`route_informed`)."""
        columns = self._columns(data)
        released = self._released_at
        return [[route_informed(tree, columns, row, released) for tree in self.trees] for row in range(len(data))]

    def _compiled_trees(self) -> Tuple[CompiledTree, ...]:
        # Compiled once per model (a model never changes); copies compile again (see __getstate__).
        if not self._compiled:
            self._compiled.append(tuple(compile_tree(tree, self._released_at) for tree in self.trees))
        return self._compiled[0]

    def _leaf_numbers(self, data: Dataset) -> List[Sequence[int]]:
        """The array routing: the number of the (informed) leaf of every row in every compiled tree."""
        columns = [_plain(column) for column in self._columns(data)]
        table = Columns(columns, len(data), cuts_by_attribute(self.trees))
        return [leaf_numbers(tree, table) for tree in self._compiled_trees()]

    def _score_columns(self, numbers: List[Sequence[int]]) -> List[List[float]]:
        """Every class's scores as a column (one float per row), each tree's contributions added in tree
        order, as :meth:`_scores` adds them row by row (so the same floats)."""
        n = len(numbers[0])
        columns = [[start] * n for start in self._initial_scores()]
        for tree, (compiled, rows) in enumerate(zip(self._compiled_trees(), numbers)):
            amounts = [self._contribution(tree, leaf) for leaf in compiled.leaves]
            for c in range(len(columns)):
                per_leaf = [amount[c] for amount in amounts]
                columns[c] = list(map(add, columns[c], map(per_leaf.__getitem__, rows)))
        return columns

    def predict(self, X: object, engine: str = "array") -> List[str]:
        """The predicted class label of every row of ``X`` (ties: see the module notes).

        ``X`` is a :class:`~refdp.data.Dataset` read with the model's schema,
        or rows: a list of tuples (attribute order) or dicts (by attribute
        name), a 2-D NumPy array or a pandas DataFrame
        (:func:`refdp.data.rows.raw_rows`).  A missing value in rows (None,
        NaN, ``"?"``) is read with the training data's missing-value policy
        (:attr:`missing`); a value beyond a public bound is clipped to it.
        A row that cannot be read raises DataError or SchemaError naming it.
        ``engine``: ``"array"`` routes all rows at once through the trees
        compiled once (:mod:`refdp.tree.compiled`), ``"reference"`` walks
        each row down each tree; both give the same predictions.

        >>> from refdp.algorithms import train
        >>> from refdp.data import load
        >>> model = train("noisy-majority", load("vote"), 1, rng=1)
        >>> model.predict([{name: "y" for name in model.schema.names}])
        ['democrat']
        """
        data = self._data(X, engine)
        classes = self.schema.classes
        if engine == "reference":
            return [classes[self._best(self._scores(leaves))] for leaves in self._leaves(data)]
        if len(data) == 0:
            return []
        numbers = self._leaf_numbers(data)
        if len(self.trees) == 1:
            # One tree: a row's scores are its leaf's, so each leaf's class is computed once.
            chosen = [classes[self._best(self._scores([leaf]))] for leaf in self._compiled_trees()[0].leaves]
            return list(map(chosen.__getitem__, numbers[0]))
        return list(map(classes.__getitem__, _best_columns(self._score_columns(numbers), self._tie_order())))

    def predict_proba(self, X: object, engine: str = "array") -> List[List[float]]:
        """Class probabilities of every row of ``X`` (as for :meth:`predict`), in the order of ``classes_``.

        A single tree gives its leaf's clipped, normalised counts; an ensemble
        normalises its (clipped) scores, uniform when none is positive;
        ``"log-odds"`` voting gives the softmax of its scores.  ``engine`` as
        for :meth:`predict` (the same probabilities).
        """
        data = self._data(X, engine)
        if engine == "reference":
            return [self._probabilities(self._scores(leaves), leaves) for leaves in self._leaves(data)]
        if len(data) == 0:
            return []
        numbers = self._leaf_numbers(data)
        if len(self.trees) == 1:
            chosen = [self._probabilities(self._scores([leaf]), [leaf]) for leaf in self._compiled_trees()[0].leaves]
            return [list(chosen[number]) for number in numbers[0]]
        return [self._probabilities(scores, ()) for scores in zip(*self._score_columns(numbers))]

    def _data(self, X: object, engine: str) -> Dataset:
        if engine not in ("array", "reference"):
            raise InvalidParameterError(f"engine must be array or reference, got {engine!r:.60}")
        return rows_to_predict(X, self.schema, self.missing)[0]

    def rules(self, tree: int = 0) -> List[Rule]:
        """Every root-to-node rule of tree ``tree``."""
        if isinstance(tree, bool) or not isinstance(tree, int) or not -len(self.trees) <= tree < len(self.trees):
            raise ModelError(f"tree must be an index in 0..{len(self.trees) - 1}, got {tree!r:.60}")
        return rules(self.trees[tree], self.schema)

    def render(self) -> str:
        """A plain-text rendering of every tree, for people."""
        lines: List[str] = []
        for index, (tree, weight) in enumerate(zip(self.trees, self.weights)):
            if len(self.trees) > 1:
                lines.append(f"tree {index} (weight {weight:g}):")
            _render(tree, self.schema, "  " if len(self.trees) > 1 else "", lines)
        return "\n".join(lines)

    def to_json(self, key: Optional[bytes] = None) -> Dict[str, Any]:
        """The model file's JSON, with the digest of the whole; signed with ``key`` (HMAC-SHA256) when given.

        ``missing`` is there only when the training data was read with a missing-value policy.
        """
        body: Dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "algorithm": self.algorithm,
            "variant": self.variant,
            "params": dict(self.params),
            "budget": str(self.budget),
            "schema": self.schema.to_json(),
            "plan_inputs": dict(sorted(self.plan_inputs.items())),
            "receipt": self.receipt.to_json(),
            "voting": self.voting,
            "weights": list(self.weights),
            "trees": [node_to_json(t, self.schema) for t in self.trees],
        }
        if self.missing is not None:
            body["missing"] = self.missing.to_json()
        if key is not None:
            body[SIGNATURE] = model_signature(body, key)
        body[DIGEST] = model_digest(body)
        return body


def _plain(column: Sequence[Union[int, float]]) -> Sequence[Union[int, float]]:
    """A column as a tuple of its values (a subset's view gathered once)."""
    if isinstance(column, ColumnView):
        return tuple(map(column.base.__getitem__, column.indices))
    return column


def _best_columns(scores: List[List[float]], order: Sequence[int]) -> List[int]:
    """:meth:`TreeModel._best` of every row's scores, given as one column per class.

    Walking the classes in tie order (``order``, :meth:`TreeModel._tie_order`)
    and moving to a class only when its score is greater keeps the first of
    equal scores, as ``max`` with the key (score, -position) does (a NaN is
    never greater), so each class is compared with the best so far.
    """
    first = order[0]
    if len(order) == 2:
        second = order[1]
        return [second if h else first for h in map(gt, scores[second], scores[first])]
    best = [first] * len(scores[0])
    top = scores[first]
    for c in order[1:]:
        higher = list(map(gt, scores[c], top))
        best = [c if h else b for h, b in zip(higher, best)]
        top = [x if h else t for h, x, t in zip(higher, scores[c], top)]
    return best


def _render(node: Node, schema: Schema, indent: str, lines: List[str]) -> None:
    if isinstance(node, Leaf):
        counts = ", ".join(f"{name}: {c:g}" for name, c in zip(schema.classes, node.counts))
        lines.append(f"{indent}-> {schema.classes[node.prediction]} ({counts})")
        return
    for condition, child in zip(conditions_of(node, schema), children_of(node)):
        lines.append(f"{indent}{condition}:")
        _render(child, schema, indent + "  ", lines)


_OLDER = {
    1: "no soundness level and no digest",
    2: "its digest covers the receipt only, and it does not state the plan's inputs",
}


def _check_integrity(obj: Mapping[str, Any], key: Optional[bytes]) -> None:
    expected = _FIELDS + tuple(name for name in _OPTIONAL_FIELDS if name in obj)
    missing = [name for name in expected if name not in obj]
    if missing:
        raise ModelError(f"malformed refdp model: it has no field {', '.join(missing)}")
    extra = sorted(str(name) for name in obj if name not in expected)
    if extra:
        raise ModelError(f"malformed refdp model: unexpected field {', '.join(extra)}")
    if obj[DIGEST] != model_digest(obj):
        raise ModelError(
            "the model file's sha256 digest does not match its content: it was edited or corrupted after "
            "refdp wrote it"
        )
    if key is None:
        return
    if SIGNATURE not in obj:
        raise ModelError("the model file is not signed, but a key was given to check its signature")
    if obj[SIGNATURE] != model_signature(obj, key):
        raise ModelError(
            "the model file's signature does not verify with the key given: it was signed with another key, "
            "or edited after it was signed"
        )


def decode_model(obj: Mapping[str, Any], key: Optional[bytes] = None) -> TreeModel:
    """Rebuild a model from :meth:`TreeModel.to_json` output, verifying its digest, structure and receipt.

    With ``key`` the file must carry a signature that verifies with it
    (:mod:`refdp.tree.integrity`).  Raises one ModelError on anything
    malformed or inconsistent: see :mod:`refdp.privacy.receipt` for what is
    checked of the receipt.  It does not check the model against the
    algorithm registry, which sits above this package:
    :func:`refdp.model_from_json` does both.
    """
    if not isinstance(obj, Mapping) or obj.get("format") != FORMAT:
        found = obj.get("format") if isinstance(obj, Mapping) else type(obj).__name__
        raise ModelError(f"not a refdp model (format is {found!r}, expected {FORMAT!r})")
    version = obj.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version in _OLDER:
        raise ModelError(
            f"this model was made by an older refdp (model format {version}: {_OLDER[version]}), so it cannot be "
            f"verified; re-train it with this refdp (format {VERSION})"
        )
    if version != VERSION:
        raise ModelError(f"refdp model version {version!r} is not supported (expected {VERSION})")
    _check_integrity(obj, key)
    try:
        schema = Schema.from_json(obj["schema"])
        trees = tuple(node_from_json(t, schema) for t in obj["trees"])
        weights = tuple(_weight(w) for w in obj["weights"])
        # TreeModel fills in missing weights for models built in code; a file states them all
        if len(weights) != len(trees):
            raise ModelError(f"the model has {len(trees)} trees but {len(weights)} weights")
        model = TreeModel(
            algorithm=str(obj["algorithm"]),
            variant=str(obj["variant"]),
            params=dict(obj["params"]),
            schema=schema,
            trees=trees,
            receipt=Receipt.from_json(obj["receipt"]),
            weights=weights,
            voting=str(obj["voting"]),
            plan_inputs=_plan_inputs(obj["plan_inputs"]),
            budget=_budget(obj["budget"]),
            missing=None if obj.get("missing") is None else MissingPolicy.from_json(obj["missing"]),
        )
    except InvalidParameterError as exc:
        raise ModelError(f"malformed refdp model: {exc}") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"malformed refdp model: missing or wrong field {exc}") from None
    except RecursionError:
        raise ModelError("malformed refdp model: its trees are nested too deeply to rebuild") from None
    return model


def read_model_json(path: Union[str, Path]) -> Any:
    """The JSON value in the file at ``path`` (ModelError when it is not UTF-8 JSON refdp can read)."""
    return read_json(path, "model file", ModelError)


def _budget(value: Any) -> Fraction:
    if isinstance(value, str):
        try:
            budget = Fraction(value)
        except (ValueError, ZeroDivisionError):
            pass
        else:
            if budget >= 0 and str(budget) == value:
                return budget
    raise ModelError(f"the model's budget must be an exact number >= 0 written as \"p/q\" in lowest terms, got {value!r}")


def _plan_inputs(value: Any) -> Dict[str, int]:
    if not isinstance(value, Mapping):
        raise ModelError(f"plan_inputs must be a JSON object of names to integers, got {type(value).__name__}")
    return dict(value)


def _weight(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ModelError(f"a tree weight must be a number, got {value!r}")
    return float(value)


def dumps_model(model: TreeModel, key: Optional[bytes] = None) -> str:
    """The JSON text of a model file (sorted keys; byte-identical for equal models), signed with ``key`` if given."""
    if not isinstance(model, TreeModel):
        raise ModelError(f"dumps_model takes a TreeModel (what train returns), got {type(model).__name__}")
    return json.dumps(model.to_json(key), sort_keys=True, indent=1) + "\n"
