"""A verified model file vouches for the whole file: every edit of a field is refused (issue 29).

Four sound models trained on credit-g with seed 1 (thesis-tree, kanon-rdt,
dp-adaboost, private-rdt) are edited field by field: trees, weights, the
voting rule, the schema, the parameters, the algorithm, the relation, the
plan's inputs and the charges.  Each edit is made with the digest
recomputed (a forger who knows the format), and each is refused, by
``model_from_json``, by ``receipt --verify`` and by ``predict``, with exit
status 2 and one line naming what differs; the same edit without a
recomputed digest, or with the digest dropped, is refused by the digest.
The untouched files verify, and re-training with the data and the seed
tells an edited leaf count from the original.
"""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest

from refdp.algorithms import model_from_json, train
from refdp.cli import main
from refdp.data import load_builtin
from refdp.errors import ModelError, PrivacyError
from refdp.privacy import Relation, receipt_digest
from refdp.tree import dumps_model
from refdp.tree.integrity import model_digest

Obj = Dict[str, Any]
Edit = Callable[[Obj], None]

ALGORITHMS = ("thesis-tree", "kanon-rdt", "dp-adaboost", "private-rdt")


@lru_cache(maxsize=None)
def _text(algorithm: str) -> str:
    return dumps_model(train(algorithm, load_builtin("credit-g"), 1, rng=1))


def _model(algorithm: str) -> Obj:
    obj: Obj = json.loads(_text(algorithm))
    return obj


def _nodes(node: Obj) -> Iterator[Obj]:
    yield node
    for key in ("equal", "rest", "below", "at_or_above"):
        if key in node:
            yield from _nodes(node[key])
    for child in node.get("children", []):
        yield from _nodes(child)


def _first(obj: Obj, kind: str) -> Obj:
    return next(n for t in obj["trees"] for n in _nodes(t) if n["type"] == kind)


def _set(*path: Any, value: Any) -> Edit:
    def edit(obj: Obj) -> None:
        node: Any = obj
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return edit


def _param(name: str, value: Any) -> Edit:
    return _set("params", name, value=value)


def _rename_algorithm(name: str) -> Edit:
    return _set("algorithm", value=name)


def _move_threshold(obj: Obj) -> None:
    node = _first(obj, "threshold")
    node["threshold"] = float(node["threshold"]) + 1e-3


def _change_bound(obj: Obj) -> None:
    """The upper bound of the attribute of the tree's threshold split widened by one."""
    name = _first(obj, "threshold")["attribute"]
    attribute = next(a for a in obj["schema"]["attributes"] if a["name"] == name)
    attribute["upper"] = attribute["upper"] + 1


def _rename_class(obj: Obj) -> None:
    obj["schema"]["classes"] = ["great" if c == "good" else c for c in obj["schema"]["classes"]]


def _change_split_value(obj: Obj) -> None:
    node = _first(obj, "value")
    name = node["attribute"]
    attribute = next(a for a in obj["schema"]["attributes"] if a["name"] == name)
    node["value"] = next(v for v in attribute["values"] if v != node["value"])


def _move_epsilon(obj: Obj) -> None:
    """Part of one charge's epsilon moved to another (the total unchanged)."""
    charges = obj["receipt"]["charges"]
    first, second = [c for c in charges if Fraction(c["epsilon"]) > 0 and not c["data_independent"]][:2]
    shift = Fraction(first["epsilon"]) / 2
    first["epsilon"] = str(Fraction(first["epsilon"]) - shift)
    second["epsilon"] = str(Fraction(second["epsilon"]) + shift)


def _drop_leaf_charge(obj: Obj) -> None:
    """A leaf's class count charge dropped: parallel composition leaves the total as it was."""
    charges = obj["receipt"]["charges"]
    index = max(i for i, c in enumerate(charges) if c["partition"] and c["partition"][-1].startswith("class="))
    del charges[index]


def _drop_tree_charge(obj: Obj) -> None:
    """A tree's charges dropped and the total lowered to match, with the level and floats recomputed."""
    receipt = obj["receipt"]
    receipt["charges"] = [c for c in receipt["charges"] if c["partition"] != ["tree1"]]
    from refdp.privacy.ledger import compose
    from refdp.privacy.receipt import _charge_from_json

    epsilon, delta = compose([_charge_from_json(c, i) for i, c in enumerate(receipt["charges"])], Relation.ADD_REMOVE)
    receipt.update(epsilon=str(epsilon), epsilon_float=float(epsilon), delta=str(delta), delta_float=float(delta))


def _add_claim(obj: Obj) -> None:
    """A claim of another algorithm cited by a charge (and listed with its status)."""
    receipt = obj["receipt"]
    charge = next(c for c in receipt["charges"] if c["mechanism"] == "exponential")
    charge["claims"].append("dpdf-budget")
    receipt["claims"]["dpdf-budget"] = "proved"


def _relation(obj: Obj) -> None:
    obj["receipt"]["relation"] = "substitute"


def _count(value: Any, kind: str = "leaf") -> Edit:
    def edit(obj: Obj) -> None:
        node = next(n for t in obj["trees"] for n in _nodes(t) if n["type"] == kind and any(n["counts"]))
        node["counts"][0] = value

    return edit


def _drop_tree(obj: Obj) -> None:
    del obj["trees"][-1]
    del obj["weights"][-1]


def _swap_trees(obj: Obj) -> None:
    obj["trees"][0], obj["trees"][1] = obj["trees"][1], obj["trees"][0]
    obj["weights"][0], obj["weights"][1] = obj["weights"][1], obj["weights"][0]


def _move_bins(obj: Obj) -> None:
    node = _first(obj, "intervals")
    node["thresholds"] = [t + 0.5 for t in node["thresholds"]]


def _collapse_tree(obj: Obj) -> None:
    """The first tree replaced by its first leaf (the number of leaves changes)."""
    obj["trees"][0] = next(n for n in _nodes(obj["trees"][0]) if n["type"] == "leaf")


def _scale_weight(factor: float, index: int = 0) -> Edit:
    def edit(obj: Obj) -> None:
        obj["weights"][index] = obj["weights"][index] * factor

    return edit


def _variant(name: str) -> Edit:
    def edit(obj: Obj) -> None:
        obj["variant"] = name
        obj["params"]["variant"] = name

    return edit


# (name, algorithm of the model edited, edit, a fragment of the error when the digest is recomputed)
EDITS: List[Tuple[str, str, Edit, str]] = [
    # thesis-tree
    ("weights flipped", "thesis-tree", _set("weights", value=[-1.0]), "tree 0 has weight -1.0"),
    ("renamed dpdf", "thesis-tree", _rename_algorithm("dpdf"), "parameters"),
    ("renamed diffpid3", "thesis-tree", _rename_algorithm("diffpid3"), "parameters"),
    ("max_depth 2", "thesis-tree", _param("max_depth", 2), "plan"),
    ("max_depth -3", "thesis-tree", _param("max_depth", -3), "max_depth must be in"),
    ("grid 100", "thesis-tree", _param("grid", 100), "not a point of its public grid"),
    ("size_share", "thesis-tree", _param("size_share", 0.1), "plan of depth"),
    ("level_ratio", "thesis-tree", _param("level_ratio", 2.0), "planned depth"),
    ("a bound", "thesis-tree", _change_bound, "not a point of its public grid"),
    ("a class name", "thesis-tree", _rename_class, "partition"),
    ("a threshold off the grid", "thesis-tree", _move_threshold, "not a point of its public grid"),
    ("a split value", "thesis-tree", _change_split_value, "partition"),
    ("epsilon moved between charges", "thesis-tree", _move_epsilon, "states epsilon"),
    ("a leaf charge dropped", "thesis-tree", _drop_leaf_charge, "charges where the plan makes"),
    ("a foreign claim cited", "thesis-tree", _add_claim, "states claims"),
    ("the voting rule", "thesis-tree", _set("voting", value="confidence"), "votes by 'confidence'"),
    ("the noisy size", "thesis-tree", _set("plan_inputs", "noisy_size", value=10), "plan"),
    ("the noisy size dropped", "thesis-tree", _set("plan_inputs", value={}), "noisy size"),
    ("a count not a whole number", "thesis-tree", _count(3.5), "whole numbers"),
    ("the variant", "thesis-tree", _variant("float-threshold"), "registered as unsound"),
    # kanon-rdt
    ("the relation", "kanon-rdt", _relation, "under substitute"),
    ("k", "kanon-rdt", _param("small_k", 25), "states label"),
    ("k refused", "kanon-rdt", _param("small_k", 5), "plan cannot be made"),
    ("beta", "kanon-rdt", _param("small_beta", 0.25), "states label"),
    ("a suppressed count", "kanon-rdt", _count(3), "each is 0 or at least k"),
    ("a weight", "kanon-rdt", _set("weights", value=[0.5]), "tree 0 has weight 0.5"),
    ("the voting rule", "kanon-rdt", _set("voting", value="sum-counts"), "votes by 'sum-counts'"),
    ("the noisy size", "kanon-rdt", _set("plan_inputs", "noisy_size", value=100000), "trees where"),
    ("the algorithm", "kanon-rdt", _rename_algorithm("private-rdt"), "parameters"),
    ("the bins", "kanon-rdt", _move_bins, "public bins"),
    # dp-adaboost
    ("weights flipped", "dp-adaboost", _set("weights", value=[-1.0] * 5), "alpha_t"),
    ("a weight nudged", "dp-adaboost", _scale_weight(1.01, 2), "alpha_t"),
    ("n_estimators", "dp-adaboost", _param("n_estimators", 3), "(5 trees, 3 rounds)"),
    ("theta", "dp-adaboost", _param("theta", 2.0), "rounds"),
    ("a count off the weight grid", "dp-adaboost", _count(0.1), "units of 1/1024"),
    ("a split value", "dp-adaboost", _change_split_value, "not a round of the receipt"),
    ("two trees swapped", "dp-adaboost", _swap_trees, "not a round of the receipt"),
    ("the voting rule", "dp-adaboost", _set("voting", value="sum-counts"), "votes by 'sum-counts'"),
    ("epsilon moved between charges", "dp-adaboost", _move_epsilon, "states epsilon"),
    # private-rdt
    ("n_trees", "private-rdt", _param("n_trees", 20), "trees where"),
    ("the bins moved", "private-rdt", _move_bins, "public bins"),
    ("bins", "private-rdt", _param("bins", 5), "trees where"),
    ("the weights", "private-rdt", _set("weights", value=[1.0] * 30), "weight 1.0"),
    ("the voting rule", "private-rdt", _set("voting", value="sum-counts"), "votes by 'sum-counts'"),
    ("the noise", "private-rdt", _param("noise", "laplace"), "mechanism"),
    ("a tree collapsed to a leaf", "private-rdt", _collapse_tree, "where the planned structure of depth 1 splits"),
    ("max_leaves", "private-rdt", _param("max_leaves", 3), "more than max_leaves=3"),
    ("a tree's charges dropped", "private-rdt", _drop_tree_charge, "where the plan gives"),
    ("a count not a whole number", "private-rdt", _count(1.5), "whole numbers"),
]

IDS = [f"{algorithm}: {name}" for name, algorithm, _, _ in EDITS]


def _edited(algorithm: str, edit: Edit, digest: str = "recomputed") -> Obj:
    obj = copy.deepcopy(_model(algorithm))
    edit(obj)
    assert {k: v for k, v in obj.items() if k != "digest"} != {
        k: v for k, v in _model(algorithm).items() if k != "digest"
    }, "the edit changed nothing"
    if digest == "recomputed":
        obj["receipt"]["digest"] = receipt_digest(obj["receipt"])
        obj["digest"] = model_digest(obj)
    elif digest == "dropped":
        del obj["digest"]
    return obj


def _write(tmp_path: Path, obj: Obj) -> Path:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(obj, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    return path


def test_at_least_25_edits_of_every_field_on_the_four_learners() -> None:
    assert len(EDITS) >= 25 and len(set(IDS)) == len(IDS)
    assert {algorithm for _, algorithm, _, _ in EDITS} == set(ALGORITHMS)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_untouched_files_verify(algorithm: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = _model(algorithm)
    assert dumps_model(model_from_json(obj)) == _text(algorithm)
    path = _write(tmp_path, obj)
    assert main(["receipt", "--model", str(path), "--verify"]) == 0
    assert "receipt verified: level proved" in capsys.readouterr().out
    assert main(["predict", "--model", str(path), "--data", "credit-g"]) == 0
    assert capsys.readouterr().out.count("\n") == 1000


@pytest.mark.parametrize("name, algorithm, edit, fragment", EDITS, ids=IDS)
def test_an_edit_with_the_digest_recomputed_is_refused(name: str, algorithm: str, edit: Edit, fragment: str) -> None:
    obj = _edited(algorithm, edit)
    before = json.dumps(obj, sort_keys=True)
    with pytest.raises(ModelError, match=re.escape(fragment)) as info:
        model_from_json(obj)
    assert "\n" not in str(info.value)
    assert json.dumps(obj, sort_keys=True) == before, "verifying must not change its input"


@pytest.mark.parametrize("digest", ["kept", "dropped"])
@pytest.mark.parametrize("name, algorithm, edit, fragment", EDITS, ids=IDS)
def test_an_edit_without_a_new_digest_is_refused_by_the_digest(
    name: str, algorithm: str, edit: Edit, fragment: str, digest: str
) -> None:
    wanted = "digest does not match" if digest == "kept" else "no field digest"
    with pytest.raises(ModelError, match=wanted):
        model_from_json(_edited(algorithm, edit, digest))


@pytest.mark.parametrize("name, algorithm, edit, fragment", EDITS, ids=IDS)
def test_receipt_verify_and_predict_exit_2_with_one_line(
    name: str, algorithm: str, edit: Edit, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, _edited(algorithm, edit))
    for argv in (["receipt", "--model", str(path), "--verify"], ["predict", "--model", str(path), "--data", "credit-g"]):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and err.startswith("refdp: error: "), err
        assert fragment in err, err
