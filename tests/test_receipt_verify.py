"""A receipt that cannot lie: loading a model verifies its receipt, and every tampering is one clear error."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

from refdp.algorithms import train
from refdp.cli import main
from refdp.data import load_builtin
from refdp.errors import ModelError
from refdp.privacy import Ledger, Receipt, Relation, receipt_digest, receipt_from_ledger
from refdp.tree import VERSION, dumps_model
from refdp.tree.integrity import model_digest
from refdp.algorithms import model_from_json

ROOT = Path(__file__).resolve().parent.parent

Obj = Dict[str, Any]


# The one default-free setting still at level idealised: DiffP-ID3 scored by information gain (logarithms,
# float sampler); every sound default is proved.
IDEALISED = ("diffpid3", "sound")


@lru_cache(maxsize=None)
def _text(algorithm: str, variant: str) -> str:
    params = {"variant": variant, **({"quality": "info-gain"} if (algorithm, variant) == IDEALISED else {})}
    if (algorithm, variant) == ("dpdf", "sound"):
        # the full planned tree, stopped early by min_size 100 on monk1: a reserve charge that a tamper can drop
        params.update(size_share="0", min_size="100")
    model = train(algorithm, load_builtin("monk1"), 1, params=params, rng=3)
    return dumps_model(model)


def _model(algorithm: str = "dpdf", variant: str = "sound") -> Obj:
    obj: Obj = json.loads(_text(algorithm, variant))
    return obj


def _set(path: str, value: Any) -> Callable[[Obj], None]:
    """An edit that sets the field at ``path`` (dot-separated, list indices as numbers)."""

    def edit(obj: Obj) -> None:
        *parents, last = path.split(".")
        node: Any = obj
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return edit


def _drop_claim(obj: Obj) -> None:
    del obj["receipt"]["claims"]["exponential-mechanism-float-sampler"]


def _cite_unknown_claim(obj: Obj) -> None:
    obj["receipt"]["charges"][0]["claims"].append("made-up-claim")


def _drop_leaks(obj: Obj) -> None:
    obj["receipt"]["leaks"] = []


def _drop_charge(obj: Obj) -> None:
    del obj["receipt"]["charges"][-1]


def _forge_total_with_digest(obj: Obj) -> None:
    """A forger who recomputes the digest after lowering the total: the semantic checks still refuse it."""
    receipt = obj["receipt"]
    receipt.update(epsilon="1/100", epsilon_float=0.01)
    receipt["digest"] = receipt_digest(receipt)


def _forge_no_leak_with_digest(obj: Obj) -> None:
    """DPEA as published with its leak dropped, its level and flag recomputed and its digest recomputed."""
    receipt = obj["receipt"]
    receipt["leaks"] = []
    receipt["level"] = "proved"  # every claim its charges cite is proved: only the leak made it unsound
    receipt["sound"] = True
    receipt["digest"] = receipt_digest(receipt)


def _huge_total(obj: Obj) -> None:
    """Every charge and the total scaled to 10^400, consistently: only the float check can object."""
    receipt = obj["receipt"]
    for charge in receipt["charges"]:
        charge["epsilon"] = str(Fraction(charge["epsilon"]) * 10**400)
    receipt["epsilon"] = str(Fraction(receipt["epsilon"]) * 10**400)


def _variant(name: str) -> Callable[[Obj], None]:
    """Change the variant where it is stated twice: the model's field and its parameters."""

    def edit(obj: Obj) -> None:
        obj["variant"] = name
        obj["params"]["variant"] = name

    return edit


# (name, (algorithm, variant) of the model tampered with, edit, a fragment of the error)
TAMPERINGS: List[Tuple[str, Tuple[str, str], Callable[[Obj], None], str]] = [
    ("total epsilon", ("dpdf", "sound"), _set("receipt.epsilon", "1/100"), "compose to epsilon=1"),
    ("total delta", ("dpdf", "sound"), _set("receipt.delta", "1/1000"), "compose to"),
    ("a charge's epsilon", ("dpdf", "sound"), _set("receipt.charges.0.epsilon", "5"), "compose to"),
    ("a negative charge epsilon", ("dpdf", "sound"), _set("receipt.charges.0.epsilon", "-1/9"), "negative epsilon"),
    ("a charge's delta of 1", ("dpdf", "sound"), _set("receipt.charges.0.delta", "1"), r"outside \[0, 1\)"),
    ("a dropped charge", ("dpdf", "sound"), _drop_charge, "compose to"),
    ("the relation", ("dpdf", "sound"), _set("receipt.relation", "substitute"), "under substitute"),
    ("epsilon_float", ("dpdf", "sound"), _set("receipt.epsilon_float", 0.5), "epsilon_float"),
    ("delta_float", ("dpdf", "sound"), _set("receipt.delta_float", 1e-9), "delta_float"),
    ("the level", IDEALISED, _set("receipt.level", "proved"), "states level 'proved'"),
    ("the sound flag", IDEALISED, _set("receipt.sound", True), "sound=True"),
    ("a claim's status", IDEALISED,
     _set("receipt.claims.exponential-mechanism-float-sampler", "proved"), "says 'needs-idealised-numerics'"),
    ("a claim left out", IDEALISED, _drop_claim, "does not list claim"),
    ("an unknown claim cited", ("dpdf", "sound"), _cite_unknown_claim, "made-up-claim"),
    ("a charge's label", ("dpdf", "sound"), _set("receipt.charges.0.label", "something else"), "digest"),
    ("a charge's note", ("dpdf", "sound"), _set("receipt.charges.0.note", "nothing to see"), "digest"),
    ("a charge's mechanism", ("dpdf", "sound"), _set("receipt.charges.0.mechanism", "laplace"), "digest"),
    ("a charge's sound flag as a string", ("dpdf", "published"),
     _set("receipt.charges.0.sound", "false"), "true or false"),
    ("the digest", ("dpdf", "sound"), _set("receipt.digest", "sha256:" + "0" * 64), "digest"),
    ("a forged total with a recomputed digest", ("dpdf", "sound"), _forge_total_with_digest, "compose to"),
    ("variant published with sound charges", ("dpdf", "sound"), _variant("published"), "registered as unsound"),
    ("variant sound with unsound charges", ("dpdf", "published"), _variant("sound"), "registered as sound"),
    ("the variant field only", ("dpdf", "sound"), _set("variant", "published"), "its parameters say 'sound'"),
    ("a published model's leak dropped with a recomputed digest", ("dpea", "published"),
     _forge_no_leak_with_digest, "registered as unsound"),
    ("a leak removed", ("dpea", "published"), _drop_leaks, "states level 'unsound'"),
    ("a variant that does not exist", ("dpdf", "sound"), _variant("improved"), "no variant 'improved'"),
    ("an algorithm that does not exist", ("dpdf", "sound"), _set("algorithm", "magic-forest"),
     "unknown algorithm 'magic-forest'"),
    ("a NaN weight", ("dpdf", "sound"), _set("weights", [float("nan")]), "finite|JSON"),
    ("an infinite weight", ("dp-adaboost", "sound"), _set("weights.0", float("inf")), "finite|JSON"),
    ("no weights", ("dpdf", "sound"), _set("weights", []), "1 trees but 0 weights"),
    ("a huge total with matching charges", ("noisy-majority", "sound"), _huge_total, "too large for a float"),
    ("an extra receipt field", ("dpdf", "sound"), _set("receipt.verified_by", "me"), "unexpected field"),
    ("an older model format", ("dpdf", "sound"), _set("version", 1), "re-train"),
    ("the previous model format", ("dpdf", "sound"), _set("version", 2), "made by an older refdp"),
]

IDS = [name for name, _, _, _ in TAMPERINGS]


def _tampered(base: Tuple[str, str], edit: Callable[[Obj], None]) -> Obj:
    """The edit, with the model file's digest recomputed: the receipt's own checks must refuse it."""
    obj = copy.deepcopy(_model(*base))
    edit(obj)
    assert obj != _model(*base), "the edit changed nothing"
    try:
        obj["digest"] = model_digest(obj)
    except ModelError:  # a NaN or infinite number: no JSON text holds it, so no digest either
        pass
    return obj


def test_untampered_models_verify() -> None:
    for base in {b for _, b, _, _ in TAMPERINGS}:
        obj = _model(*base)
        model = model_from_json(obj)
        assert model.to_json() == obj and dumps_model(model) == _text(*base)


@pytest.mark.parametrize("name, base, edit, fragment", TAMPERINGS, ids=IDS)
def test_model_from_json_rejects_tampering(
    name: str, base: Tuple[str, str], edit: Callable[[Obj], None], fragment: str
) -> None:
    obj = _tampered(base, edit)
    before = copy.deepcopy(obj)
    with pytest.raises(ModelError, match=fragment) as info:
        model_from_json(obj)
    assert "\n" not in str(info.value)
    assert json.dumps(obj) == json.dumps(before), "loading must not change its input"


def _write(tmp_path: Path, obj: Obj) -> Path:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(obj, sort_keys=True, indent=1), encoding="utf-8")
    return path


@pytest.mark.parametrize("name, base, edit, fragment", TAMPERINGS, ids=IDS)
def test_cli_predict_and_receipt_verify_reject_tampering(
    name: str, base: Tuple[str, str], edit: Callable[[Obj], None], fragment: str,
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = _write(tmp_path, _tampered(base, edit))
    for argv in (["predict", "--model", str(path), "--data", "monk1"], ["receipt", "--model", str(path), "--verify"]):
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == 2, (argv, out)
        assert out == "" and err.count("\n") == 1 and err.startswith("refdp: error: "), err
        assert re.search(fragment, err), err


def test_tampered_model_fails_in_a_real_process_with_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, _tampered(("dpdf", "sound"), _set("receipt.epsilon", "1/100")))
    for argv in (["predict", "--model", str(path), "--data", "monk1"], ["receipt", "--model", str(path)]):
        proc = subprocess.run(
            [sys.executable, "-m", "refdp", *argv], cwd=ROOT, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_at_least_ten_kinds_of_tampering_are_tried() -> None:
    assert len(TAMPERINGS) >= 10 and len(set(IDS)) == len(IDS)


def test_sound_is_true_only_at_level_proved() -> None:
    proved = _model("noisy-majority", "sound")["receipt"]
    idealised = _model(*IDEALISED)["receipt"]
    unsound = _model("dpdf", "published")["receipt"]
    assert (proved["level"], proved["sound"]) == ("proved", True)
    assert (idealised["level"], idealised["sound"]) == ("idealised", False)
    assert (unsound["level"], unsound["sound"]) == ("unsound", False)
    assert idealised["claims"]["exponential-mechanism-float-sampler"] == "needs-idealised-numerics"
    assert unsound["claims"]["dpdf-published-unsound"] == "published-but-unsound"
    assert set(proved["claims"].values()) == {"proved"}


def test_digest_is_sha256_of_the_canonical_receipt_without_it() -> None:
    import hashlib

    receipt = _model()["receipt"]
    rest = {k: v for k, v in receipt.items() if k != "digest"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert receipt["digest"] == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_receipt_checks_also_hold_outside_a_model() -> None:
    ledger = Ledger(Relation.SUBSTITUTE)
    ledger.charge(label="a", mechanism="m", epsilon="1/3", delta="1/100", sensitivity=Fraction(1, 2),
                  claims=("discrete-laplace-mechanism",), partition=("k=1",))
    ledger.charge(label="b", mechanism="m", epsilon="1/3", sensitivity=2.5, claims=("laplace-mechanism",),
                  partition=("k=2",))
    ledger.charge(label="c", mechanism="m", epsilon=1, sensitivity=None, claims=())
    obj = receipt_from_ledger(ledger).to_json()
    assert Receipt.from_json(json.loads(json.dumps(obj))) == receipt_from_ledger(ledger)
    wrong = dict(obj, delta="0", delta_float=0.0)
    wrong["digest"] = receipt_digest(wrong)
    with pytest.raises(ModelError, match="compose to epsilon=5/3, delta=1/100"):
        Receipt.from_json(wrong)
    with pytest.raises(ModelError, match="JSON object"):
        Receipt.from_json([obj])


def test_receipt_command_in_words_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, _model("dpdf", "sound"))
    assert main(["receipt", "--model", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert "level: proved" in out and "add-remove" in out and "verified" in out
    assert "exponential-mechanism-exact-sampler [proved] proofs/exponential-mechanism-exact-sampler.md" in out
    assert "x class histogram Q1 [discrete-laplace]" in out and "digest" not in out.split("integrity:")[0]
    assert main(["receipt", "--model", str(path), "--json"]) == 0
    out, _ = capsys.readouterr()
    shown = json.loads(out)
    assert shown["verified"] is True and shown["receipt"] == _model("dpdf", "sound")["receipt"]
    assert shown["claim_files"]["dpdf-budget"] == "proofs/dpdf-budget.md"
    assert main(["receipt", "--model", str(path), "--verify"]) == 0
    out, _ = capsys.readouterr()
    assert out.count("\n") == 1 and "receipt verified: level proved" in out
    idealised = _write(tmp_path, _model(*IDEALISED))
    assert main(["receipt", "--model", str(idealised), "--verify"]) == 0
    out, _ = capsys.readouterr()
    assert "receipt verified: level idealised" in out


def test_receipt_command_names_unsound_steps_and_leaks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, _model("thesis-tree", "published"))
    assert main(["receipt", "--model", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert "level: unsound" in out and "UNSOUND step" in out and "leaks (data read outside any mechanism):" in out
    assert "thesis-code-errata [published-but-unsound] proofs/thesis-code-errata.md" in out


def test_receipt_command_on_a_file_that_is_not_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.json"
    path.write_text("{not json", encoding="utf-8")
    assert main(["receipt", "--model", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "is not JSON" in err
    path.write_bytes(b"\xff\xfe{}")
    assert main(["predict", "--model", str(path), "--data", "monk1"]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "not a text file" in err


def test_train_and_evaluate_print_the_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "m.json"
    assert main(["train", "--algorithm", "diffpid3", "--param", "quality=info-gain", "--data", "monk1",
                 "--epsilon", "1", "--seed", "1", "--out", str(out_path)]) == 0
    out, _ = capsys.readouterr()
    assert "level idealised" in out
    assert main(["evaluate", "--algorithm", "noisy-majority", "--data", "monk1", "--epsilon", "1",
                 "--folds", "2", "--seed", "1"]) == 0
    out, _ = capsys.readouterr()
    assert "level proved" in out
    assert main(["evaluate", "--algorithm", "diffpid3", "--param", "quality=info-gain", "--data", "monk1",
                 "--epsilon", "1", "--folds", "2", "--seed", "1", "--json"]) == 0
    out, _ = capsys.readouterr()
    result = json.loads(out)
    assert result["level"] == "idealised" and result["sound"] is False


def test_installed_without_proofs_knows_the_levels(tmp_path: Path) -> None:
    """An installed refdp has no proofs/: the statuses come from refdp/proofs_index.py."""
    shutil.copytree(ROOT / "refdp", tmp_path / "refdp", ignore=shutil.ignore_patterns("__pycache__"))
    path = _write(tmp_path, _model(*IDEALISED))
    proc = subprocess.run(
        [sys.executable, "-m", "refdp", "receipt", "--model", str(path), "--verify"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0 and "level idealised" in proc.stdout, proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "refdp", "algorithms"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert "variant published: level unsound" in proc.stdout and "[see proofs/]" not in proc.stdout
    assert not (tmp_path / "proofs").exists()


def test_model_format_version() -> None:
    assert VERSION == 3 and _model()["version"] == 3
