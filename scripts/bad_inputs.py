"""Throw bad inputs at refdp as an outsider would, and count what goes wrong.

    python3 scripts/bad_inputs.py [--quick] [--list]

Three kinds of case, built in a temporary directory of hostile files:

* **command line**: ``python3 -m refdp ...`` (run in-process through
  :func:`refdp.cli.main`, stdout and stderr captured) with malformed
  numbers, files, flags and programs.  A failure is a traceback, an
  "internal error", an exit status other than 0, 1, 2 or an error that is
  not one line; a case that exits 0 is listed as accepted (bad-looking
  input that refdp reads, which a person should look at);
* **Python API**: the public functions called with arguments of the wrong
  type or value.  A failure is any exception that is not a
  :class:`refdp.errors.RefdpError`;
* **special files**: ``--out`` of every command pointed at a FIFO, a
  socket, a directory, a link to ``/dev/null``, a link to a directory and,
  as root, a device node made in the temporary directory.  A failure is a
  special file replaced (its kind or device numbers changed).

Each case has a time limit (SIGALRM, 60 s); a case that hits it is a
failure too.  The exit status is 0 when every count of failures is 0.
``--quick`` skips the cases marked slow (those that load the larger data
sets or start programs).  Standard library and refdp only.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import io
import json
import os
import random
import signal
import socket
import stat
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import refdp  # noqa: E402
from refdp.cli import main  # noqa: E402
from refdp.errors import RefdpError  # noqa: E402

LIMIT = 60
"""Seconds a case may take."""


@dataclass(frozen=True)
class Case:
    """One bad input: ``argv`` for the command line, or ``call`` for the API; ``out`` a special file to watch."""

    kind: str
    name: str
    argv: Tuple[str, ...] = ()
    call: Optional[Callable[[], object]] = None
    out: Optional[str] = None
    slow: bool = False


@dataclass
class Tally:
    """What the sweep found."""

    tried: int = 0
    by_kind: Dict[str, int] = field(default_factory=dict)
    tracebacks: List[str] = field(default_factory=list)
    foreign: List[str] = field(default_factory=list)
    replaced: List[str] = field(default_factory=list)
    malformed: List[str] = field(default_factory=list)
    accepted: List[str] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return len(self.tracebacks) + len(self.foreign) + len(self.replaced) + len(self.malformed)


class _TimeUp(BaseException):
    """A case ran past :data:`LIMIT` (a BaseException, so that no handler of refdp's catches it)."""


def _time_up(signum: int, frame: Optional[FrameType]) -> None:
    raise _TimeUp


# --- hostile files -------------------------------------------------------------------------------

SCHEMA = {
    "format": "refdp-schema/1", "label": "class", "classes": ["a", "b"], "leaks": [],
    "attributes": [{"name": "x", "kind": "continuous", "lower": 0, "upper": 10},
                   {"name": "colour", "kind": "categorical", "values": ["red", "blue"]}],
}
ARFF_HEAD = "@relation t\n@attribute x numeric\n@attribute colour {red, blue}\n@attribute class {a, b}\n@data\n"


def make_files(d: Path) -> None:
    """The hostile files, in ``d``."""
    texts = {
        "good.csv": "x,colour,class\n1,red,a\n2,blue,b\n3,red,a\n4,blue,b\n",
        "bom.csv": "\ufeffx,colour,class\n1,red,a\n2,blue,b\n",
        "crlf.csv": "x,colour,class\r\n1,red,a\r\n2,blue,b\r\n",
        "nul.csv": "x,colour,class\n1,r\x00ed,a\n",
        "fullwidth.csv": "x,colour,class\n\uff15,red,a\n",
        "underscore.csv": "x,colour,class\n1_0,red,a\n",
        "arabic.csv": "x,colour,class\n\u0663,red,a\n",
        "nan.csv": "x,colour,class\nnan,red,a\n",
        "inf.csv": "x,colour,class\ninf,red,a\n",
        "huge-number.csv": "x,colour,class\n" + "9" * 5000 + ",red,a\n",
        "ragged.csv": "x,colour,class\n1,red\n",
        "header-only.csv": "x,colour,class\n",
        "empty.csv": "",
        "blank.csv": "\n\n\n",
        "quote.csv": 'x,colour,class\n1,"red,a\n',
        "wide.csv": ",".join(f"c{i}" for i in range(10_000)) + "\n" + ",".join("1" for _ in range(10_000)) + "\n",
        "bigfield.csv": "x,colour,class\n1," + "y" * 100_000 + ",a\n",
        "placeholder.csv": "x,colour,refdp-no-class\n1,red,a\n",
        "good.arff": ARFF_HEAD + "1,red,a\n5,blue,b\n",
        "bom.arff": "\ufeff" + ARFF_HEAD + "1,red,a\n",
        "fullwidth.arff": ARFF_HEAD + "\uff15,red,a\n",
        "bigfield.arff": ARFF_HEAD + "1," + "y" * 3_000_000 + ",a\n",
        "sparse.arff": ARFF_HEAD + "{0 1, 2 a}\n",
        "string.arff": "@relation t\n@attribute s string\n@attribute class {a, b}\n@data\n'x',a\n",
        "junk.arff": "hello\n",
        "nodata.arff": ARFF_HEAD,
        "dup.arff": "@relation t\n@attribute x {a,b}\n@attribute x {a,b}\n@data\na,a\n",
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "list.json": "[1, 2]",
        "nan.json": json.dumps(SCHEMA).replace('"leaks": []', '"leaks": NaN'),
        "digits.json": '{"format": ' + "9" * 5000 + "}",
        "schema.json": json.dumps(SCHEMA),
        "bom-schema.json": "\ufeff" + json.dumps(SCHEMA),
        "inverted-schema.json": json.dumps({**SCHEMA, "attributes": [
            {"name": "x", "kind": "continuous", "lower": 10, "upper": 0}, SCHEMA["attributes"][1]]}),
        "huge-bounds-schema.json": json.dumps({**SCHEMA, "attributes": [
            {"name": "x", "kind": "continuous", "lower": -1e308, "upper": 1e308}, SCHEMA["attributes"][1]]}),
        "plain.txt": "not a data file\n",
    }
    for name, text in texts.items():
        (d / name).write_text(text, encoding="utf-8")
    (d / "binary.csv").write_bytes(bytes(range(256)) * 40)
    (d / "binary.json").write_bytes(bytes(range(128, 256)) * 40)
    (d / "latin1.csv").write_bytes("x,colour,class\n1,r\xe9d,a\n".encode("latin-1"))
    (d / "not-gzip.csv.gz").write_bytes(b"x,colour,class\n1,red,a\n")
    (d / "truncated.csv.gz").write_bytes(gzip.compress(b"x,colour,class\n1,red,a\n" * 100)[:60])
    with gzip.open(d / "bomb.csv.gz", "wb") as stream:
        for _ in range(10):
            stream.write(b"x" * 2**20)
    (d / "folder.csv").mkdir()
    (d / "folder.json").mkdir()
    vote = refdp.load("vote")
    model = refdp.train("noisy-majority", vote, 1, rng=1)
    (d / "model.json").write_text(refdp.tree.dumps_model(model), encoding="utf-8")
    tampered = json.loads((d / "model.json").read_text(encoding="utf-8"))
    tampered["receipt"]["epsilon"] = "1/2"
    (d / "tampered.json").write_text(json.dumps(tampered), encoding="utf-8")
    tampered["receipt"] = {}
    (d / "no-receipt.json").write_text(json.dumps(tampered), encoding="utf-8")
    (d / "prog.sh").write_text("#!/bin/sh\necho a\n", encoding="utf-8")


# --- command-line cases --------------------------------------------------------------------------

NUMBERS = ["", " ", "abc", "-1", "0", "1e999", "-1e999", "nan", "inf", "1_000", "\uff15", "\u0663", "0x10",
           "1/0", "9" * 5000, "1e-99999999", "--", "1,5", "1\n2", "None", "1e-5000", "2**70"]


def _cli(name: str, *argv: str, slow: bool = False) -> Case:
    return Case("command line", name, tuple(argv), slow=slow)


def command_cases(d: Path) -> Iterator[Case]:
    """The command-line cases (paths in ``d``)."""
    out = str(d / "out.json")
    train = ("train", "--algorithm", "thesis-tree", "--data", "vote", "--out", out)
    for value in NUMBERS:
        yield _cli(f"train --epsilon {value[:20]!r}", *train, "--epsilon", value)
        yield _cli(f"train --param max_depth={value[:20]!r}", *train, "--epsilon", "1", "--param", f"max_depth={value}")
        yield _cli(f"train --param level_ratio={value[:20]!r}", *train, "--epsilon", "1", "--param",
                   f"level_ratio={value}")
        yield _cli(f"train --seed {value[:20]!r}", *train, "--epsilon", "1", "--seed", value)
        yield _cli(f"delta --beta {value[:20]!r}", "delta", "--k", "5", "--beta", value, "--epsilon", "1")
        yield _cli(f"evaluate --folds {value[:20]!r}", "evaluate", "--algorithm", "noisy-majority", "--data", "vote",
                   "--epsilon", "1", "--folds", value)
        yield _cli(f"audit-cmd --timeout {value[:20]!r}", "audit-cmd", "--cmd", "prog {data} {seed}", "--data",
                   "vote", "--epsilon", "1", "--timeout", value)
    for algorithm in refdp.algorithm_names():
        for p in refdp.get_algorithm(algorithm).parameters:
            if p.kind is not str:
                for value in ("2**70", str(2**70), "-" + str(2**70)):
                    yield _cli(f"train {algorithm} --param {p.name}={value[:12]}", "train", "--algorithm", algorithm,
                               "--data", "vote", "--epsilon", "1", "--param", f"{p.name}={value}", "--out", out)
    flags = [
        ("unknown algorithm", ("--algorithm", "magic")),
        ("param no =", ("--param", "max_depth")),
        ("param =3", ("--param", "=3")),
        ("param unknown", ("--param", "depth=3")),
        ("param twice", ("--param", "max_depth=3", "--param", "max_depth=4")),
        ("relation", ("--relation", "sideways")),
        ("engine", ("--engine", "gpu")),
        ("missing", ("--missing", "ignore")),
        ("label on built-in", ("--label", "x")),
        ("schema on built-in", ("--schema", str(d / "schema.json"))),
        ("bounds on built-in", ("--bounds", "x=0:1")),
    ]
    for name, extra in flags:
        yield _cli(f"train {name}", *train, "--epsilon", "1", *extra)
    csv_files = ["good.csv", "bom.csv", "crlf.csv", "nul.csv", "fullwidth.csv", "underscore.csv", "arabic.csv",
                 "nan.csv", "inf.csv", "huge-number.csv", "ragged.csv", "header-only.csv", "empty.csv", "blank.csv",
                 "quote.csv", "wide.csv", "bigfield.csv", "placeholder.csv", "binary.csv", "latin1.csv",
                 "not-gzip.csv.gz", "truncated.csv.gz", "bomb.csv.gz", "folder.csv", "nosuch.csv"]
    schemas = ["schema.json", "bom-schema.json", "deep.json", "list.json", "nan.json", "digits.json", "binary.json",
               "inverted-schema.json", "huge-bounds-schema.json", "folder.json", "nosuch.json", "plain.txt"]
    base = ("train", "--algorithm", "noisy-majority", "--epsilon", "1", "--out", out)
    for name in csv_files:
        yield _cli(f"train --data {name}", *base, "--data", str(d / name), "--schema", str(d / "schema.json"))
        yield _cli(f"predict --data {name}", "predict", "--model", str(d / "model.json"), "--data", str(d / name))
        yield _cli(f"schema --data {name}", "schema", "--data", str(d / name), "--out", str(d / "s-out.json"))
    for name in schemas:
        yield _cli(f"train --schema {name}", *base, "--data", str(d / "good.csv"), "--schema", str(d / name))
    for algorithm in refdp.algorithm_names():
        yield _cli(f"train {algorithm} with bounds +-1e308", "train", "--algorithm", algorithm, "--epsilon", "1",
                   "--data", str(d / "good.csv"), "--schema", str(d / "huge-bounds-schema.json"), "--out", out)
    arff_files = ["good.arff", "bom.arff", "fullwidth.arff", "bigfield.arff", "sparse.arff", "string.arff",
                  "junk.arff", "nodata.arff", "dup.arff"]
    for name in arff_files:
        yield _cli(f"train --data {name}", *base, "--data", str(d / name), "--bounds", "x=0:10")
        yield _cli(f"predict --data {name}", "predict", "--model", str(d / "model.json"), "--data", str(d / name))
    for bounds in ("x", "x=1", "x=a:b", "x=5:1", "x=0:\uff11\uff10", "x=0:1_0", "x=-inf:inf", "x=nan:1", "=0:1",
                   "y=0:1", "x=0:1e999"):
        yield _cli(f"train --bounds {bounds}", *base, "--data", str(d / "good.arff"), "--bounds", bounds)
    for model in ["deep.json", "list.json", "binary.json", "digits.json", "tampered.json", "no-receipt.json",
                  "schema.json", "folder.json", "nosuch.json", "good.csv"]:
        yield _cli(f"predict --model {model}", "predict", "--model", str(d / model), "--data", "vote")
        yield _cli(f"receipt --model {model}", "receipt", "--model", str(d / model), "--verify")
    yield _cli("predict --out the model", "predict", "--model", str(d / "model.json"), "--data", "vote", "--out",
               str(d / "model.json"))
    yield _cli("evaluate --test-data missing", "evaluate", "--algorithm", "noisy-majority", "--data", "vote",
               "--test-data", str(d / "nosuch.csv"), "--epsilon", "1")
    yield _cli("evaluate --test-data other schema", "evaluate", "--algorithm", "noisy-majority", "--data", "monk1",
               "--test-data", "vote", "--epsilon", "1")
    yield _cli("evaluate --repeats 0", "evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon",
               "1", "--repeats", "0")
    argv: Tuple[str, ...]
    for argv in (("vectors",), ("vectors", "--check", str(d / "nosuch")), ("vectors", "--out", str(d / "good.csv")),
                 ("vectors", "--check", str(d / "good.csv"))):
        yield _cli(" ".join(argv[:2]), *argv)
    for argv in (("delta",), ("delta", "--k", "0", "--beta", "0.1", "--epsilon", "1"),
                 ("delta", "--k", "5", "--beta", "1", "--epsilon", "1"),
                 ("delta", "--k", "5", "--beta", "0.1", "--epsilon", "1e308"),
                 ("delta", "--k", "5,x", "--beta", "0.1", "--epsilon", "1", "--table")):
        yield _cli(" ".join(argv), *argv)
    audit = ("audit", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1")
    for extra in (("--algorithm", "planted:nosuch"), ("--trials", "0"), ("--trials", "-5"), ("--alpha", "2"),
                  ("--workers", "0"), ("--executor", "magic:x"), ("--neighbours", "index:99999"),
                  ("--neighbours", "nonsense"), ("--relation", "x")):
        yield _cli(f"audit {' '.join(extra)}", *audit, *extra)
    cmd = ("audit-cmd", "--data", "vote", "--epsilon", "1")
    for program in ("", "'unbalanced", "prog", "prog {data}", "prog {seed}", "prog {data} {seed} {outt}",
                    "prog {data} {seed} {DATA}"):
        yield _cli(f"audit-cmd --cmd {program!r}", *cmd, "--cmd", program)
    for extra in (("--jobs", "0"), ("--max-failure-rate", "2"), ("--output-kind", "colour"), ("--rows", "0"),
                  ("--rows", "100000"), ("--neighbours", "index:x"), ("--neighbours", str(d / "list.json")),
                  ("--delta", "1"), ("--delta", "-0.1")):
        yield _cli(f"audit-cmd {' '.join(extra)}", *cmd, "--cmd", "prog {data} {seed}", *extra)
    yield _cli("audit-cmd a program that fails", *cmd, "--cmd", "false {data} {seed}", "--rows", "5", "--trials",
               "20", "--seed", "1", "--jobs", "1", "--neighbours", "index:0", slow=True)
    cross = ("crosscheck-cmd", "--cmd", "prog {data} {seed}", "--data", "vote", "--epsilon", "1")
    for extra in (("--algorithm", "magic", "--output", "root-split"),
                  ("--algorithm", "noisy-majority", "--output", "everything"),
                  ("--algorithm", "noisy-majority", "--output", "leaf-counts", "--runs", "0"),
                  ("--algorithm", "thesis-tree", "--output", "root-split", "--param", "max_depth=0"),
                  ("--algorithm", "noisy-majority", "--output", "leaf-counts", "--param", "x=1")):
        yield _cli(f"crosscheck-cmd {' '.join(extra)}", *cross, *extra)
    for argv in ((), ("frobnicate",), ("datasets", "--x"), ("algorithms", "extra"), ("train",), ("--version", "x")):
        yield _cli(f"usage {' '.join(argv)}", *argv)


# --- API cases -----------------------------------------------------------------------------------

WRONG: List[Any] = [None, [], [1, 2], "x", 3, 2.5, {"a": 1}, b"x", object(), True, float("nan"), -1,
                    [[5.1, 3.5, 1.4, 0.2]], "\uff15", 2**70]


def api_cases(d: Path) -> Iterator[Case]:
    """Public functions called with every value of :data:`WRONG` where one argument goes."""
    from refdp.audit import audit_program
    from refdp.audit.goodness_of_fit import crosscheck_laplace
    from refdp.data import Dataset, read_schema
    from refdp.estimators import ThesisTreeClassifier
    from refdp.evaluation import stratified_folds
    from refdp.privacy import lqs_delta

    vote = refdp.load("vote")
    model = refdp.train("noisy-majority", vote, 1, rng=1)
    rows, labels = [vote.row(i) for i in range(20)], [vote.label(i) for i in range(20)]
    calls: Dict[str, Callable[[Any], object]] = {
        "train(name, X)": lambda v: refdp.train("thesis-tree", v, 1),
        "train(X, data)": lambda v: refdp.train(v, vote, 1),
        "train(epsilon=X)": lambda v: refdp.train("noisy-majority", vote, v),
        "train(params=X)": lambda v: refdp.train("noisy-majority", vote, 1, params=v),
        "train(params={max_depth: X})": lambda v: refdp.train("thesis-tree", vote, 1, params={"max_depth": v}),
        "train(relation=X)": lambda v: refdp.train("noisy-majority", vote, 1, relation=v),
        "train(engine=X)": lambda v: refdp.train("noisy-majority", vote, 1, engine=v),
        "load(X)": lambda v: refdp.load(v),
        "read_arff(X)": lambda v: refdp.read_arff(v),
        "read_arff(bounds=X)": lambda v: refdp.read_arff(d / "good.arff", bounds=v),
        "read_arff(bounds={x: X})": lambda v: refdp.read_arff(d / "good.arff", bounds={"x": v}),
        "read_csv(schema=X)": lambda v: refdp.read_csv(d / "good.csv", schema=v),
        "read_csv(label=X)": lambda v: refdp.read_csv(d / "good.csv", schema=read_schema(d / "schema.json"), label=v),
        "read_schema(X)": lambda v: read_schema(v),
        "read_model(X)": lambda v: refdp.read_model(v),
        "model_from_json(X)": lambda v: refdp.model_from_json(v),
        "model.predict(X)": lambda v: model.predict(v),
        "model.predict_proba(X)": lambda v: model.predict_proba(v),
        "model.rules(X)": lambda v: model.rules(v),
        "cross_validate(data=X)": lambda v: refdp.cross_validate("noisy-majority", v, 1),
        "cross_validate(folds=X)": lambda v: refdp.cross_validate("noisy-majority", vote, 1, folds=v),
        "stratified_folds(X)": lambda v: stratified_folds(v, 2, random.Random(1)),
        "Dataset.from_rows(rows=X)": lambda v: Dataset.from_rows(vote.schema, v, labels),
        "Dataset.from_rows(labels=X)": lambda v: Dataset.from_rows(vote.schema, rows, v),
        "Schema.from_json(X)": lambda v: refdp.Schema.from_json(v),
        "ContinuousAttribute(x, X, 1)": lambda v: refdp.ContinuousAttribute("x", v, 1),
        "CategoricalAttribute(x, X)": lambda v: refdp.CategoricalAttribute("x", v),
        "estimator(max_depth=X).fit": lambda v: ThesisTreeClassifier(epsilon=1, max_depth=v, seed=1).fit(vote),
        "estimator.fit(X, labels)": lambda v: ThesisTreeClassifier(epsilon=1, schema=vote.schema).fit(v, labels),
        "lqs_delta(k=X)": lambda v: lqs_delta(v, 0.1, 1),
        "lqs_delta(beta=X)": lambda v: lqs_delta(5, v, 1),
        "audit_program(trials=X)": lambda v: audit_program(lambda x, s: 0, 1, 2, epsilon=1, trials=v, seed=1),
        "audit_program(epsilon=X)": lambda v: audit_program(lambda x, s: 0, 1, 2, epsilon=v, trials=10, seed=1),
        "audit_program(seed=X)": lambda v: audit_program(lambda x, s: 0, 1, 2, epsilon=1, trials=10, seed=v),
        "crosscheck_laplace(X)": lambda v: crosscheck_laplace(v, scale=1),
        "crosscheck_laplace(scale=X)": lambda v: crosscheck_laplace([0.5, 1.0], scale=v),
    }
    for name, function in calls.items():
        for value in WRONG:
            yield Case("Python API", f"{name} <- {value!r:.30}", call=functools.partial(function, value))


# --- special files at --out ----------------------------------------------------------------------

def _special(d: Path) -> Dict[str, Path]:
    """Special files to aim ``--out`` at, made in ``d``."""
    made: Dict[str, Path] = {}
    os.mkfifo(d / "fifo")
    made["fifo"] = d / "fifo"
    (d / "dir").mkdir()
    made["directory"] = d / "dir"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(d / "sock"))
    made["socket"] = d / "sock"
    if Path("/dev/null").exists():
        (d / "to-null").symlink_to("/dev/null")
        made["link to /dev/null"] = d / "to-null"
    (d / "to-dir").symlink_to(d / "dir")
    made["link to a directory"] = d / "to-dir"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.mknod(d / "device", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        made["device node"] = d / "device"
    return made


def _identity(path: Path) -> Tuple[int, int]:
    """What a special file is: its type and device numbers, following links (as a write would)."""
    info = os.stat(path)
    return stat.S_IFMT(info.st_mode), info.st_rdev


def special_cases(d: Path) -> Iterator[Case]:
    """``--out`` of each command at each special file."""
    for what, path in _special(d).items():
        for argv in (
            ("train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--out", str(path)),
            ("predict", "--model", str(d / "model.json"), "--data", "vote", "--out", str(path)),
            ("schema", "--data", "vote", "--out", str(path)),
        ):
            yield Case("special file", f"{argv[0]} --out {what}", argv, out=str(path))
    vectors = d / "vectors"
    vectors.mkdir()
    os.mkfifo(vectors / "lqs.json")
    yield Case("special file", "vectors --out a folder with a FIFO", ("vectors", "--out", str(vectors)),
               out=str(vectors / "lqs.json"))


# --- running -------------------------------------------------------------------------------------

def _run_cli(case: Case, tally: Tally) -> None:
    out, err = io.StringIO(), io.StringIO()
    before = _identity(Path(case.out)) if case.out else None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(case.argv))
    text = err.getvalue()
    label = f"{case.name}: exit {status}: {text.strip()[:300]}"
    if "Traceback" in text or "internal error" in text:
        tally.tracebacks.append(label)
    elif status not in (0, 1, 2):
        tally.malformed.append(label)
    elif status == 2 and not (text.startswith("refdp: error: ") and text.count("\n") == 1):
        tally.malformed.append(label)
    elif status == 0:
        tally.accepted.append(case.name)
    if case.out and before is not None and _identity(Path(case.out)) != before:
        tally.replaced.append(label)


def _run_api(case: Case, tally: Tally) -> None:
    assert case.call is not None
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            case.call()
    except RefdpError:
        return
    except _TimeUp:
        raise
    except Exception as exc:  # the point of the sweep: what else escapes
        where = traceback.extract_tb(exc.__traceback__)[-1]
        tally.foreign.append(f"{case.name}: {type(exc).__name__}: {str(exc)[:120]} ({where.filename}:{where.lineno})")
        return
    tally.accepted.append(case.name)


def sweep(cases: Sequence[Case]) -> Tally:
    """Run ``cases``; what went wrong."""
    tally = Tally()
    previous = signal.signal(signal.SIGALRM, _time_up) if hasattr(signal, "SIGALRM") else None
    try:
        for case in cases:
            tally.tried += 1
            tally.by_kind[case.kind] = tally.by_kind.get(case.kind, 0) + 1
            if previous is not None:
                signal.alarm(LIMIT)
            try:
                (_run_api if case.call is not None else _run_cli)(case, tally)
            except _TimeUp:
                tally.malformed.append(f"{case.name}: still running after {LIMIT} s")
            finally:
                if previous is not None:
                    signal.alarm(0)
    finally:
        if previous is not None:
            signal.signal(signal.SIGALRM, previous)
    return tally


def all_cases(d: Path, quick: bool) -> List[Case]:
    """Every case, with its files made in ``d`` (``quick``: without the slow ones)."""
    make_files(d)
    cases = [*command_cases(d), *api_cases(d), *special_cases(d)]
    return [c for c in cases if not (quick and c.slow)]


def report(tally: Tally) -> str:
    """The sweep's counts and, for each count above 0, what was found."""
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(tally.by_kind.items()))
    lines = [
        f"tried {tally.tried} bad inputs ({kinds})",
        f"tracebacks or internal errors: {len(tally.tracebacks)}",
        f"exceptions from the API that are not RefdpError: {len(tally.foreign)}",
        f"special files replaced: {len(tally.replaced)}",
        f"malformed errors (not one line, odd exit status, over {LIMIT} s): {len(tally.malformed)}",
        f"accepted (exit 0, or no exception): {len(tally.accepted)}",
    ]
    for title, found in (("traceback", tally.tracebacks), ("not RefdpError", tally.foreign),
                         ("replaced", tally.replaced), ("malformed", tally.malformed)):
        lines.extend(f"  {title}: {item}" for item in found)
    return "\n".join(lines)


def main_(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the slow cases")
    parser.add_argument("--list", action="store_true", help="also list the accepted cases")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="refdp-bad-inputs-") as tmp:
        tally = sweep(all_cases(Path(tmp), args.quick))
    print(report(tally))
    if args.list:
        print("accepted:\n" + "\n".join(f"  {name}" for name in tally.accepted))
    return 1 if tally.failures else 0


if __name__ == "__main__":
    raise SystemExit(main_())
