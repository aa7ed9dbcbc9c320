"""Bad input to the command line: one line on stderr, exit status 2, inputs unchanged, nothing written.

Every case runs in-process through :func:`refdp.cli.main` against one
directory of hostile files (nested 100,000 deep, binary, 5000-digit
integers, malformed CSV, ARFF and vector files...).  Each case checks:

* exit status 2 and exactly one line on stderr, ``refdp: error: ...``, with
  the expected fragment and in the words of the command line (no keyword
  argument such as ``label=``, no ``Traceback``, no internal error);
* nothing on stdout;
* every file in the directory unchanged (SHA-256) and no file added, so
  no partial output is left behind.

Ctrl-C is checked in-process (exit 130, one line, no output file) and in a
real process group receiving SIGINT (the worker processes of an audit
included).
"""

from __future__ import annotations

import dataclasses

import gzip
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pytest

import refdp.algorithms
from refdp.algorithms import train
from refdp.cli import main
from refdp.data import load
from refdp.tree import dumps_model

ROOT = Path(__file__).resolve().parent.parent

# keyword arguments and Python calls a command-line user cannot type
PYTHON_SPEAK = re.compile(
    r"Traceback|internal error|\b(?:label|bounds|schema|engine|categorical_missing|continuous_missing)=|"
    r"leaky_infer_schema|read_schema|Fraction\(|lqs_delta|\(\)|refdp-no-class"
)


def _vector_dir(root: Path, name: str, text: str) -> None:
    directory = root / name
    directory.mkdir()
    for kind in ("quality", "sensitivity", "exponential", "budgets", "lqs"):
        (directory / f"{kind}.json").write_text(text, encoding="utf-8")


def _vectors_with_case(root: Path, name: str, case: object) -> None:
    _vector_dir(root, name, json.dumps({"format": "refdp-vectors/1", "cases": [case]}))


def _deep_tree(depth: int) -> str:
    """A vote model whose single tree is a chain of ``depth`` value splits (as text: too deep to encode)."""
    model = json.loads(dumps_model(train("noisy-majority", load("vote"), 1, rng=1)))
    leaf = json.dumps(model["trees"][0])
    split = '{"type": "value", "attribute": "physician-fee-freeze", "value": "y", "rest": ' + leaf + ', "equal": '
    model["trees"] = ["TREE"]
    return json.dumps(model).replace('"TREE"', split * depth + leaf + "}" * depth)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    deep = "[" * 100_000 + "]" * 100_000
    (d / "deep.json").write_text(deep, encoding="utf-8")
    (d / "binary.json").write_bytes(bytes(range(128, 256)) * 20)
    (d / "digits.json").write_text('{"format": ' + "9" * 5000 + "}", encoding="utf-8")
    (d / "list.json").write_text("[1, 2]", encoding="utf-8")
    (d / "deeptree.json").write_text(_deep_tree(990), encoding="utf-8")
    vote = load("vote")
    model = train("noisy-majority", vote, 1, rng=1)
    (d / "vote-model.json").write_text(dumps_model(model), encoding="utf-8")
    schema = vote.schema.to_json()
    (d / "vote-schema.json").write_text(json.dumps(schema), encoding="utf-8")
    (d / "nan-schema.json").write_text(json.dumps(schema).replace('"leaks": []', '"leaks": NaN'), encoding="utf-8")
    (d / "digits-schema.json").write_text(
        json.dumps({**schema, "classes": "X"}).replace('"X"', "1" * 5000), encoding="utf-8"
    )
    (d / "not-schema.json").write_text(json.dumps({"format": "something-else"}), encoding="utf-8")
    (d / "keys-schema.json").write_text(json.dumps({"format": "refdp-schema/1", "label": "c"}), encoding="utf-8")
    numeric = {"format": "refdp-schema/1", "label": "class", "classes": ["a", "b"], "leaks": [],
               "attributes": [{"name": "x", "kind": "continuous", "lower": 0, "upper": 10},
                              {"name": "colour", "kind": "categorical", "values": ["red", "blue"]}]}
    (d / "num-schema.json").write_text(json.dumps(numeric), encoding="utf-8")
    inverted = json.loads(json.dumps(numeric))
    inverted["attributes"][0].update(lower=10, upper=0)
    (d / "inverted-schema.json").write_text(json.dumps(inverted), encoding="utf-8")
    csv_files = {
        "good.csv": "x,colour,class\n1,red,a\n2,blue,b\n",
        "ragged.csv": "x,colour,class\n1,red,a\n2,blue\n",
        "noclass.csv": "x,colour\n1,red\n",
        "missing-num.csv": "x,colour,class\n?,red,a\n2,blue,b\n",
        "missing-cat.csv": "x,colour,class\n1,?,a\n2,blue,b\n",
        "missing-class.csv": "x,colour,class\n1,red,?\n2,blue,b\n",
        "unknown-class.csv": "x,colour,class\n1,red,z\n",
        "outside.csv": "x,colour,class\n11,red,a\n",
        "text-in-num.csv": "x,colour,class\nten,red,a\n",
        "unknown-value.csv": "x,colour,class\n1,green,a\n",
        "twice.csv": "x,x,colour,class\n1,1,red,a\n",
        "header-only.csv": "x,colour,class\n",
        "quote.csv": 'x,colour,class\n1,"red,a\n',
        "empty.csv": "",
    }
    for name, text in csv_files.items():
        (d / name).write_text(text, encoding="utf-8")
    (d / "binary.csv").write_bytes(bytes(range(128, 256)) * 20)
    (d / "not-gzip.csv.gz").write_bytes(b"x,colour,class\n1,red,a\n")
    (d / "truncated.csv.gz").write_bytes(gzip.compress(b"x,colour,class\n1,red,a\n" * 100)[:60])
    (d / "folder.csv").mkdir()
    arff_head = "@relation t\n@attribute x numeric\n@attribute colour {red, blue}\n@attribute class {a, b}\n@data\n"
    arff_files = {
        "good.arff": arff_head + "1,red,a\n5,blue,b\n",
        "missing-cat.arff": arff_head + "1,?,a\n5,blue,b\n",
        "sparse.arff": arff_head + "{0 1, 2 a}\n",
        "string.arff": "@relation t\n@attribute s string\n@attribute class {a, b}\n@data\n'x',a\n",
        "fields.arff": arff_head + "1,red\n",
        "no-attributes.arff": "@relation t\n@data\n1\n",
        "junk.arff": "hello world\n",
        "unclosed.arff": arff_head + "1,'red,a\n",
    }
    for name, text in arff_files.items():
        (d / name).write_text(text, encoding="utf-8")
    _vector_dir(d, "vectors-notjson", "{not json")
    _vector_dir(d, "vectors-deep", deep)
    _vector_dir(d, "vectors-list", "[]")
    _vector_dir(d, "vectors-nocases", json.dumps({"format": "refdp-vectors/1"}))
    _vector_dir(d, "vectors-casetext", json.dumps({"format": "refdp-vectors/1", "cases": ["x"]}))
    _vectors_with_case(d, "vectors-badinputs", {"inputs": {"table": "abc", "k": "x"}, "expected": {}})
    _vectors_with_case(d, "vectors-noinputs", {"expected": {}})
    _vectors_with_case(d, "vectors-wrongtype", {"inputs": {"table": [[1, "a"]]}, "expected": {"max": "1"}})
    (d / "plain-file").write_text("not a directory\n", encoding="utf-8")
    return d


def _snapshot(root: Path) -> Dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return out


TRAIN = ["train", "--algorithm", "noisy-majority", "--seed", "1"]
OUT = ["--out", "{d}/out.json"]


def _train(*argv: str, data: str = "vote", epsilon: str = "1") -> List[str]:
    return TRAIN + ["--data", data, "--epsilon", epsilon, *OUT, *argv]


def _csv(name: str, *argv: str, schema: Optional[str] = "num-schema.json") -> List[str]:
    extra = ["--schema", f"{{d}}/{schema}"] if schema else []
    return _train(*extra, *argv, data=f"{{d}}/{name}")


def _arff(name: str, *argv: str) -> List[str]:
    return _train(*argv, data=f"{{d}}/{name}")


CASES: List[Tuple[str, List[str], str]] = [
    # usage
    ("no subcommand", [], "give a SUBCOMMAND"),
    ("unknown subcommand", ["frobnicate"], "invalid choice"),
    ("unknown flag", _train("--frobnicate"), "unrecognized arguments"),
    ("missing --out", TRAIN + ["--data", "vote", "--epsilon", "1"], "--out"),
    ("bad --seed", _train("--seed", "x"), "--seed"),
    ("unknown engine", _train("--engine", "fast"), "--engine"),
    ("unknown relation", _train("--relation", "sideways"), "relation"),
    ("unknown --missing", _csv("good.csv", "--missing", "ignore"), "--missing"),
    # epsilon
    ("epsilon text", _train(epsilon="abc"), "finite number"),
    ("epsilon empty", _train(epsilon=""), "finite number"),
    ("epsilon zero", _train(epsilon="0"), "must be > 0"),
    ("epsilon negative", _train(epsilon="-1"), "must be > 0"),
    ("epsilon inf", _train(epsilon="inf"), "finite number"),
    ("epsilon nan", _train(epsilon="nan"), "finite number"),
    ("epsilon 1/0", _train(epsilon="1/0"), "finite number"),
    ("epsilon python", _train(epsilon="10**9999"), "finite number"),
    ("epsilon 1e400", _train(epsilon="1e400"), "between 1e-100 and 1e100"),
    ("epsilon 1e101", _train(epsilon="1e101"), "between 1e-100 and 1e100"),
    ("epsilon 1e-5000", _train(epsilon="1e-5000"), "digits"),
    ("epsilon 1e-200", _train(epsilon="1e-200"), "between 1e-100 and 1e100"),
    ("epsilon huge exponent", _train(epsilon="1e-99999999"), "exponent"),
    ("epsilon 5000 digits", _train(epsilon="1" * 5000), "epsilon"),
    ("dpea epsilon 1e308", ["train", "--algorithm", "dpea", "--data", "vote", "--epsilon", "1e308", *OUT],
     "between 1e-100 and 1e100"),
    ("kanon-rdt epsilon too small", ["train", "--algorithm", "kanon-rdt", "--data", "vote", "--epsilon", "0.1",
                                     "--param", "n_trees=12", "--param", "beta=0.03", "--param", "k=23", *OUT],
     "kanon-rdt"),
    # algorithm and parameters
    ("unknown algorithm", ["train", "--algorithm", "magic", "--data", "vote", "--epsilon", "1", *OUT], "unknown algorithm"),
    ("param without =", _train("--param", "max_depth"), "--param takes KEY=VALUE"),
    ("param twice", ["train", "--algorithm", "thesis-tree", "--data", "vote", "--epsilon", "1", "--param",
                     "max_depth=3", "--param", "max_depth=4", *OUT], "--param names 'max_depth' twice"),
    ("param 2**70", ["train", "--algorithm", "thesis-tree", "--data", "vote", "--epsilon", "1", "--param",
                     f"max_depth={2**70}", *OUT], "--param max_depth must be in [0, 64]"),
    ("param negative min_samples", ["train", "--algorithm", "tree-baseline", "--data", "vote", "--epsilon", "1",
                                    "--param", "min_samples=-1", *OUT], "--param min_samples must be in [0, "),
    ("param full-width digits", ["train", "--algorithm", "thesis-tree", "--data", "vote", "--epsilon", "1",
                                 "--param", "max_depth=\uff13", *OUT], "ASCII digits"),
    ("epsilon full-width", _train(epsilon="\uff15.\uff11"), "--epsilon must be a finite number in ASCII digits"),
    ("epsilon underscores", _train(epsilon="1_000"), "ASCII digits"),
    ("epsilon Arabic-Indic", _train(epsilon="\u0663"), "ASCII digits"),
    ("seed underscores", _train("--seed", "1_0"), "--seed: invalid integer value"),
    ("unknown param", _train("--param", "depth=3"), "no parameter depth"),
    ("param not int", ["train", "--algorithm", "private-rdt", "--data", "vote", "--epsilon", "1", "--param",
                       "max_depth=abc", *OUT], "--param max_depth must"),
    ("param out of range", ["train", "--algorithm", "private-rdt", "--data", "vote", "--epsilon", "1", "--param",
                            "n_trees=0", *OUT], "--param n_trees must"),
    ("param float inf", ["train", "--algorithm", "dp-adaboost", "--data", "vote", "--epsilon", "1", "--param",
                         "theta=1e999", *OUT], "--param theta must"),
    ("diffpid3 size bound", ["train", "--algorithm", "diffpid3", "--data", "vote", "--epsilon", "1", "--param",
                             "quality=info-gain", "--param", "max_size=10", *OUT], "--param max_size=10"),
    ("private-rdt too many leaves", ["train", "--algorithm", "private-rdt", "--data", "vote", "--epsilon", "1",
                                     "--param", "categorical=multiway", "--param", "max_depth=16", *OUT],
     "--param categorical=binary"),
    ("dpdf more trees than attributes", ["train", "--algorithm", "dpdf", "--data", "vote", "--epsilon", "1", "--param",
                                         "n_trees=20", *OUT], "--param n_trees=20"),
    ("dpea list too long", ["train", "--algorithm", "dpea", "--data", "vote", "--epsilon", "1", "--param",
                            "search=exhaustive", "--param", "embed_depth=3", "--param", "max_depth=3",
                            "--param", "size_share=0", *OUT],
     "--param search=exact"),
    # data names and flags
    ("unknown data name", _train(data="nosuch"), "neither a built-in data set"),
    ("csv without --schema", _csv("good.csv", schema=None), "needs --schema FILE"),
    ("missing csv file", _csv("nosuch.csv"), "--data {d}/nosuch.csv: the file does not exist"),
    ("a folder named .csv", _csv("folder.csv"), "--data {d}/folder.csv: the file is a directory"),
    ("built-in with --schema", _train("--schema", "{d}/vote-schema.json"), "drop --schema"),
    ("built-in with --label", _train("--label", "x"), "drop --label"),
    ("built-in with --missing", _train("--missing", "drop"), "drop --missing"),
    ("built-in with --bounds", _train("--bounds", "x=0:1"), "drop --bounds"),
    ("csv with --bounds", _csv("good.csv", "--bounds", "x=0:10"), "--bounds is for ARFF"),
    # CSV contents
    ("csv ragged row", _csv("ragged.csv"), "has 2 fields"),
    ("csv without class column", _csv("noclass.csv"), "pass --label"),
    ("csv missing number, --missing error", _csv("missing-num.csv", "--missing", "error"),
     "pass --missing category (a missing number is the midpoint of the public bounds) or --missing drop"),
    ("arff missing category, --missing error", _arff("missing-cat.arff", "--bounds", "x=0:10", "--missing", "error"),
     "pass --missing category (the category '?') or --missing drop"),
    ("csv missing, --missing error", _csv("missing-cat.csv", "--missing", "error"), "--missing category"),
    ("csv missing class", _csv("missing-class.csv"), "--missing drop"),
    ("csv unknown class", _csv("unknown-class.csv"), "unknown class"),
    ("csv value outside bounds", _csv("outside.csv"), "outside"),
    ("csv text in a number", _csv("text-in-num.csv"), "ten"),
    ("csv unknown category", _csv("unknown-value.csv"), "green"),
    ("csv column twice", _csv("twice.csv"), "twice"),
    ("csv header only", _csv("header-only.csv"), "no rows"),
    ("csv unclosed quote", _csv("quote.csv"), "quote.csv"),
    ("csv empty", _csv("empty.csv"), "empty"),
    ("csv binary", _csv("binary.csv"), "UTF-8"),
    ("csv.gz not gzip", _csv("not-gzip.csv.gz"), "gzip"),
    ("csv.gz truncated", _csv("truncated.csv.gz"), "truncated.csv.gz"),
    ("csv --label an attribute", _csv("good.csv", "--label", "x"), "--label 'x' is an attribute"),
    # ARFF contents and flags
    ("arff numeric without bounds", _arff("good.arff"), "pass --bounds x=LO:HI"),
    ("arff malformed --bounds", _arff("good.arff", "--bounds", "x=1"), "--bounds takes ATTR=LO:HI"),
    ("arff --bounds not numbers", _arff("good.arff", "--bounds", "x=a:b"), "--bounds takes ATTR=LO:HI"),
    ("arff --bounds inverted", _arff("good.arff", "--bounds", "x=5:1"), "lower bound"),
    ("arff --bounds twice", _arff("good.arff", "--bounds", "x=0:9", "--bounds", "x=0:8"), "twice"),
    ("arff --bounds unknown", _arff("good.arff", "--bounds", "x=0:9", "--bounds", "y=0:1"), "--bounds given for"),
    ("arff value outside --bounds", _arff("good.arff", "--bounds", "x=0:2"), "outside"),
    ("arff --schema and --bounds", _arff("good.arff", "--schema", "{d}/num-schema.json", "--bounds", "x=0:9"),
     "not both"),
    ("arff numeric class", _arff("good.arff", "--bounds", "x=0:9", "--label", "x"), "pass --label"),
    ("arff unknown class attribute", _arff("good.arff", "--bounds", "x=0:9", "--label", "nosuch"), "nosuch"),
    ("arff sparse", _arff("sparse.arff", "--bounds", "x=0:9"), "sparse"),
    ("arff string attribute", _arff("string.arff"), "string"),
    ("arff short row", _arff("fields.arff", "--bounds", "x=0:9"), "fields"),
    ("arff without attributes", _arff("no-attributes.arff"), "no @attribute"),
    ("not arff", _arff("junk.arff"), "@relation"),
    ("arff unclosed quote", _arff("unclosed.arff", "--bounds", "x=0:9"), "never closed"),
    # schema files
    ("schema nested 100,000 deep", _csv("good.csv", schema="deep.json"), "nested too deeply"),
    ("schema binary", _csv("good.csv", schema="binary.json"), "not a text file"),
    ("schema 5000 digits", _csv("good.csv", schema="digits-schema.json"), "digits"),
    ("schema with NaN", _csv("good.csv", schema="nan-schema.json"), "NaN"),
    ("schema of another format", _csv("good.csv", schema="not-schema.json"), "not a refdp schema"),
    ("schema lacks keys", _csv("good.csv", schema="keys-schema.json"), "lacks keys"),
    ("schema inverted bounds", _csv("good.csv", schema="inverted-schema.json"), "lower bound"),
    ("schema missing", _csv("good.csv", schema="nosuch.json"), "No such file"),
    # outputs
    ("--out in a missing folder", TRAIN + ["--data", "vote", "--epsilon", "1", "--out", "{d}/no/such/m.json"],
     "--out {d}/no/such/m.json: the directory"),
    ("--out a folder", TRAIN + ["--data", "vote", "--epsilon", "1", "--out", "{d}/folder.csv"], "folder.csv"),
    ("--out the data", TRAIN + ["--data", "{d}/good.csv", "--schema", "{d}/num-schema.json", "--epsilon", "1",
                                "--out", "{d}/good.csv"], "is an input"),
    # models
    ("model nested 100,000 deep", ["predict", "--model", "{d}/deep.json", "--data", "vote"], "nested too deeply"),
    ("receipt of a deep model", ["receipt", "--model", "{d}/deep.json"], "nested too deeply"),
    ("model tree 990 deep", ["predict", "--model", "{d}/deeptree.json", "--data", "vote"], "nested too deeply"),
    ("model binary", ["receipt", "--model", "{d}/binary.json"], "not a text file"),
    ("model 5000 digits", ["receipt", "--model", "{d}/digits.json"], "digits"),
    ("model a list", ["predict", "--model", "{d}/list.json", "--data", "vote"], "not a refdp model"),
    ("model missing", ["predict", "--model", "{d}/nosuch.json", "--data", "vote"], "No such file"),
    ("model and data differ", ["predict", "--model", "{d}/vote-model.json", "--data", "monk1"], "attributes differ"),
    ("predict --out the model", ["predict", "--model", "{d}/vote-model.json", "--data", "vote", "--out",
                                 "{d}/vote-model.json"], "is an input"),
    # predict reads missing values with the model's policy: it has no --missing
    ("predict --missing", ["predict", "--model", "{d}/vote-model.json", "--data", "vote", "--missing", "drop"],
     "unrecognized arguments: --missing drop"),
    ("predict csv of another schema", ["predict", "--model", "{d}/vote-model.json", "--data", "{d}/good.csv"],
     "lacks the column"),
    # vectors
    ("vectors without flags", ["vectors"], "--out DIR"),
    ("vectors --out a file", ["vectors", "--out", "{d}/plain-file"], "not a directory"),
    ("vectors --check a missing folder", ["vectors", "--check", "{d}/nosuch"], "--check {d}/nosuch: no such directory"),
    ("vectors --out and --check a missing folder", ["vectors", "--out", "{d}/new", "--check", "{d}/nosuch"],
     "no such directory"),
    ("vectors not JSON", ["vectors", "--check", "{d}/vectors-notjson"], "not JSON"),
    ("vectors nested 100,000 deep", ["vectors", "--check", "{d}/vectors-deep"], "nested too deeply"),
    ("vectors without cases", ["vectors", "--check", "{d}/vectors-nocases"], "'cases' must be a list"),
    ("vectors case not an object", ["vectors", "--check", "{d}/vectors-casetext"], "case 0"),
    ("vectors case without inputs", ["vectors", "--check", "{d}/vectors-noinputs"], "case 0"),
    ("vectors inputs of the wrong shape", ["vectors", "--check", "{d}/vectors-badinputs"], "case 0"),
    ("vectors inputs of the wrong type", ["vectors", "--check", "{d}/vectors-wrongtype"], "case 0"),
    # evaluate
    ("evaluate one fold", ["evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                           "--folds", "1"], "--folds must be at least 2"),
    ("evaluate zero repeats", ["evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                               "--repeats", "0"], "--repeats must be >= 1"),
    ("evaluate more folds than rows", ["evaluate", "--algorithm", "noisy-majority", "--data", "{d}/good.csv",
                                       "--schema", "{d}/num-schema.json", "--epsilon", "1", "--folds", "5"], "fold"),
    ("evaluate missing --test-data", ["evaluate", "--algorithm", "noisy-majority", "--data", "vote",
                                      "--test-data", "{d}/nosuch.csv", "--epsilon", "1"],
     "--test-data {d}/nosuch.csv: the file does not exist"),
    ("evaluate test data of another schema", ["evaluate", "--algorithm", "noisy-majority", "--data", "monk1",
                                              "--test-data", "vote", "--epsilon", "1"], "different attributes"),
    ("evaluate epsilon 1e-5000", ["evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon",
                                  "1e-5000"], "digits"),
    # delta, audit, schema
    ("delta without --k", ["delta", "--beta", "0.1", "--epsilon", "1"], "--k"),
    ("delta beta 2", ["delta", "--k", "5", "--beta", "2", "--epsilon", "1"], "beta"),
    ("delta epsilon 1e-5000", ["delta", "--k", "5", "--beta", "0.1", "--epsilon", "1e-5000"], "digits"),
    ("delta epsilon 1e308", ["delta", "--k", "5", "--beta", "0.1", "--epsilon", "1e308"], "at most 1000"),
    ("audit unknown planted case", ["audit", "--algorithm", "planted:nosuch"], "nosuch"),
    ("audit alpha 2", ["audit", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--alpha", "2"],
     "--alpha"),
    ("audit epsilon 1e-5000", ["audit", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1e-5000"],
     "digits"),
    ("audit --trials 2**70", ["audit", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--trials",
                              str(2**70)], "--trials must be at most 10000000"),
    ("audit --workers a million", ["audit", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                                   "--workers", "1000000"], "--workers must be at most 1024"),
    ("audit-cmd --jobs a million", ["audit-cmd", "--cmd", "prog {data} {seed}", "--data", "vote", "--epsilon", "1",
                                    "--jobs", "1000000"], "--jobs must be at most 1024"),
    ("crosscheck-cmd --runs 2**70", ["crosscheck-cmd", "--cmd", "prog {data} {seed}", "--algorithm", "noisy-majority",
                                     "--data", "vote", "--epsilon", "1", "--output", "leaf-counts", "--runs",
                                     str(2**70)], "--runs must be at most 10000000"),
    ("evaluate --repeats 2**70", ["evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                                  "--repeats", str(2**70)], "--repeats must be at most 10000"),
    ("audit planted with --bounds", ["audit", "--algorithm", "planted:sensitivity-understated", "--bounds", "x=0:1"],
     "--bounds does not apply"),
    ("audit-cmd program failing too often",
     ["audit-cmd", "--cmd", "sh -c 'test $(( $1 % 2 )) -eq 0 && wc -l < \"$0\"' {data} {seed}", "--data", "vote",
      "--rows", "5", "--epsilon", "1", "--neighbours", "index:0", "--trials", "20", "--seed", "1", "--jobs", "1",
      "--max-failure-rate", "0"], "pass a larger --max-failure-rate"),
    ("audit-cmd unknown placeholder", ["audit-cmd", "--cmd", "prog {data} {seed} {outt}", "--data", "vote",
                                       "--epsilon", "1"], "unknown placeholder(s) {outt}"),
    ("crosscheck-cmd unknown placeholder", ["crosscheck-cmd", "--cmd", "prog {data} {Seed} {seed}", "--algorithm",
                                            "noisy-majority", "--data", "vote", "--epsilon", "1", "--output",
                                            "leaf-counts"], "unknown placeholder(s) {Seed}"),
    ("predict csv without the model's columns", ["predict", "--model", "{d}/vote-model.json", "--data",
                                                 "{d}/noclass.csv"], "the header is ['x', 'colour']"),
    ("audit-cmd epsilon 1e308", ["audit-cmd", "--cmd", "prog {data} {seed}", "--data", "vote", "--epsilon", "1e308"],
     "between 1e-100 and 1e100"),
    ("schema of an unknown kind", ["schema", "--data", "{d}/plain-file", "--out", "{d}/s.json"], "neither"),
    ("schema unknown --label", ["schema", "--data", "{d}/good.csv", "--label", "nosuch", "--out", "{d}/s.json"],
     "--label 'nosuch'"),
    ("schema over its data", ["schema", "--data", "{d}/good.csv", "--out", "{d}/good.csv"], "is an input"),
    ("schema of an empty file", ["schema", "--data", "{d}/empty.csv", "--out", "{d}/s.json"], "header"),
    ("schema of a ragged file", ["schema", "--data", "{d}/ragged.csv", "--out", "{d}/s.json"], "fields"),
    ("schema built-in with --label", ["schema", "--data", "vote", "--label", "x", "--out", "{d}/s.json"],
     "drop --label"),
    ("receipt of a model list", ["receipt", "--model", "{d}/list.json"], "not a refdp model"),
]


def test_there_are_at_least_sixty_bad_inputs() -> None:
    assert len(CASES) >= 60 and len({name for name, _, _ in CASES}) == len(CASES)


@pytest.mark.parametrize("name, argv, fragment", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2_and_changes_nothing(
    name: str, argv: Sequence[str], fragment: str, files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(files)
    status = main([a.replace("{d}", str(files)) for a in argv])
    out, err = capsys.readouterr()
    assert status == 2, (name, out, err)
    assert out == "", out
    assert err.startswith("refdp: error: ") and err.count("\n") == 1 and err.endswith("\n"), err
    assert fragment.replace("{d}", str(files)) in err, err
    assert not PYTHON_SPEAK.search(err), err
    assert _snapshot(files) == before, "a bad input changed or left files"


def test_the_python_speak_check_catches_keyword_arguments() -> None:
    for text in ("pass label= to", "bounds={'x': (0, 1)}", "continuous_missing='drop'", "use leaky_infer_schema()",
                 "got Fraction(1, 3)", "Traceback (most recent call last)"):
        assert PYTHON_SPEAK.search(text), text
    assert not PYTHON_SPEAK.search("pass --label, --bounds x=LO:HI or --param max_depth=3")


def test_interrupted_training_prints_one_line_exits_130_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(refdp.algorithms, "train", interrupted)  # the command imports it when it runs
    out = tmp_path / "m.json"
    status = main(["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert status == 130 and stdout == "" and err == "refdp: interrupted\n"
    assert list(tmp_path.iterdir()) == []


def _interrupt(argv: Sequence[str], ready: str) -> Tuple[int, str]:
    """Run ``python3 -m refdp ARGV`` in its own process group; on ``ready`` in stderr, Ctrl-C the group."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "refdp", *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stderr is not None
    seen = b""
    while ready.encode() not in seen:
        chunk = os.read(proc.stderr.fileno(), 4096)
        assert chunk, f"the run ended before {ready!r}: {seen.decode()}"
        seen += chunk
    os.killpg(proc.pid, signal.SIGINT)
    _, rest = proc.communicate(timeout=600)
    return proc.returncode, (seen + rest).decode()


def _check_interrupted(status: int, err: str) -> None:
    assert status == 130, err
    assert err.endswith("\nrefdp: interrupted\n"), err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_ctrl_c_during_training_in_a_real_process(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    # the ticker line appears once training has run for two seconds: the interrupt lands inside it
    status, err = _interrupt(
        ["train", "--algorithm", "dp-adaboost", "--param", "n_estimators=500", "--data", "adult", "--epsilon", "1",
         "--seed", "1", "--out", str(out)],  # a minute of training here, so the ticker shows on fast machines too
        ready="training dp-adaboost",
    )
    _check_interrupted(status, err)
    assert list(tmp_path.iterdir()) == [], "an interrupted run left a file"


def test_ctrl_c_during_a_parallel_audit_stops_the_workers_quietly() -> None:
    status, err = _interrupt(
        ["audit", "--algorithm", "dpdf", "--data", "vote", "--epsilon", "1", "--workers", "2", "--seed", "1",
         "--trials", "1000000"],  # far more test runs than fit in two seconds: the progress line shows
        ready="runs (",
    )
    _check_interrupted(status, err)


def test_an_unexpected_exception_is_one_line_naming_it_a_bug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(refdp.algorithms, "train", broken)  # the command imports it when it runs
    argv = ["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--out", str(tmp_path / "m")]
    monkeypatch.delenv("REFDP_TRACEBACK", raising=False)
    status = main(argv)
    _, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "internal error (ZeroDivisionError: a bug)" in err and "please report" in err, err
    monkeypatch.setenv("REFDP_TRACEBACK", "1")  # for whoever debugs it: the traceback
    with pytest.raises(ZeroDivisionError):
        main(argv)
    assert list(tmp_path.iterdir()) == []


def test_the_refusal_of_a_missing_array_engine_names_the_flag() -> None:
    # Every built-in learner has the array engine since issue 33, so no command line reaches this refusal;
    # an algorithm registered without one still gets it, in the command line's words.
    from refdp.algorithms import get_algorithm
    from refdp.cli._wording import for_cli
    from refdp.errors import InvalidParameterError

    spec = dataclasses.replace(get_algorithm("dpea"), engines=("reference",))
    with pytest.raises(InvalidParameterError) as refusal:
        spec.fitter("array")
    assert "use --engine reference" in for_cli(str(refusal.value))
