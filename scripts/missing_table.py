"""Missing values read by the default rule against dropping their rows: the table of docs/results.md.

The built-in data sets with missing values, read from their vendored files
as a user's file would be:

* ``vote``: ``vote.arff.gz`` (its header's domains; the default gives each
  the category ``?``);
* ``adult``: ``adult.data.gz`` with the public adult schema (``?`` declared
  for workclass, occupation and native-country, and added by the default to
  the other categorical domains; the drop run reads it with those ``?``
  removed);
* ``credit-g``: ``credit-g.arff.gz`` with the built-in's public bounds. It
  has no missing value, so the two policies keep the same rows, and the
  difference is the cost of the ``?`` category that the default adds to
  every nominal domain of an ARFF header. (The built-in ``credit-g``, whose
  schema has no ``?``, gives identical models under both.)

For every algorithm (default parameters) at one epsilon, four scores by
stratified k-fold cross-validation, each cell accuracy / macro AUC / macro
F1 (means over the folds and repeats; the difference is in accuracy):

* ``default``: trained and tested on every row, missing values read by the
  default rule (what ``evaluate`` reports);
* ``drop (own CV)``: cross-validation of the rows without a missing value
  (what ``evaluate --missing drop`` reports: other folds, other test rows);
* ``default, complete rows`` and ``drop, complete rows``: the same folds of
  every row; the default model trained on the whole training part, the drop
  model on its rows without a missing value, both tested on the test rows
  without one (the rows a drop model can predict).

    PYTHONPATH=. python3 scripts/missing_table.py [--epsilon 1] [--folds 10] [--repeats R] [--adult-repeats R]
    PYTHONPATH=. python3 scripts/missing_table.py --write docs/results.md   # replaces the marked section

With ``--write`` the tables replace everything between the lines
``<!-- missing-table:start -->`` and ``<!-- missing-table:end -->``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

from refdp.algorithms import algorithm_names, get_algorithm, train
from refdp.data import CategoricalAttribute, Dataset, Schema, read_arff, read_csv
from refdp.data.builtin import ADULT_SCHEMA, CREDIT_G_SCHEMA, _open_file
from refdp.data.missing import MARKER
from refdp.errors import InvalidParameterError
from refdp.evaluation import accuracy, cross_validate, stratified_folds
from refdp.metrics import macro_auc, macro_f1, mean_confidence_interval
from refdp.rng import as_rng
from refdp.tree import TreeModel

START = "<!-- missing-table:start -->"
END = "<!-- missing-table:end -->"
DATA_SETS = ("vote", "credit-g", "adult")


def _without_marker(schema: Schema) -> Schema:
    return replace(schema, attributes=tuple(
        CategoricalAttribute(a.name, tuple(v for v in a.values if v != MARKER))
        if isinstance(a, CategoricalAttribute) else a
        for a in schema.attributes
    ))


def _bounds(schema: Schema) -> Dict[str, Tuple[float, float]]:
    return {a.name: (a.lower, a.upper) for a in schema.attributes if not isinstance(a, CategoricalAttribute)}


def _read(name: str, policy: str) -> Dataset:
    """The vendored file of ``name`` read with ``--missing policy`` (category or drop)."""
    continuous = "midpoint" if policy == "category" else policy
    with _open_file({"vote": "vote.arff.gz", "credit-g": "credit-g.arff.gz", "adult": "adult.data.gz"}[name]) as text:
        if name == "vote":
            return read_arff(text, categorical_missing=policy, continuous_missing=continuous)
        if name == "credit-g":
            return read_arff(
                text, bounds=_bounds(CREDIT_G_SCHEMA), categorical_missing=policy, continuous_missing=continuous
            )
        return read_csv(
            text, schema=ADULT_SCHEMA if policy == "category" else _without_marker(ADULT_SCHEMA), header=False,
            categorical_missing=policy, continuous_missing=continuous,
        )


def _complete(data: Dataset) -> List[bool]:
    """Whether each row has no missing value (no value ``?``; the files have no missing number)."""
    marked = [
        a for a, attribute in enumerate(data.schema.attributes)
        if isinstance(attribute, CategoricalAttribute) and MARKER in attribute.codes
    ]
    codes = {a: data.schema.attributes[a].codes[MARKER] for a in marked}  # type: ignore[union-attr]
    columns = {a: data.column(a) for a in marked}
    return [all(columns[a][i] != codes[a] for a in marked) for i in range(len(data))]


def _engine(algorithm: str) -> str:
    return "array" if "array" in get_algorithm(algorithm).engines else "reference"


Scores = Tuple[float, float, float]
"""Accuracy, macro AUC (0.5 where a test part has one class) and macro F1."""


def _scores(model: TreeModel, data: Dataset, truth: List[str]) -> Scores:
    classes = data.schema.classes
    predicted = model.predict(data)
    auc = macro_auc(model.predict_proba(data), truth, classes)
    return accuracy(predicted, truth), 0.5 if auc is None else auc, macro_f1(predicted, truth, classes)


def _mean_scores(scores: Sequence[Scores]) -> Scores:
    return (
        sum(s[0] for s in scores) / len(scores), sum(s[1] for s in scores) / len(scores),
        sum(s[2] for s in scores) / len(scores),
    )


def _same_folds(
    algorithm: str, full: Dataset, dropped: Dataset, epsilon: str, folds: int, seed: int
) -> Tuple[Scores, Scores, Scores]:
    """(default on all test rows, default on complete test rows, drop on complete test rows), fold means.

    Fold k trains with seed ``seed + k``; the folds are drawn with ``seed``.
    """
    complete = _complete(full)
    # the rows of ``dropped`` are the complete rows of ``full``, in order
    position: Dict[int, int] = {}
    for i, whole_row in enumerate(complete):
        if whole_row:
            position[i] = len(position)
    assert len(position) == len(dropped)
    scores: List[Tuple[Scores, Scores, Scores]] = []
    engine = _engine(algorithm)
    for k, test in enumerate(stratified_folds(full.labels, folds, as_rng(seed))):
        held = set(test)
        training = [i for i in range(len(full)) if i not in held]
        default = train(algorithm, full.subset(training), epsilon, rng=seed + k, engine=engine)
        drop = train(
            algorithm, dropped.subset([position[i] for i in training if complete[i]]), epsilon, rng=seed + k,
            engine=engine,
        )
        whole = full.subset(test)
        truth = [whole.label(i) for i in range(len(whole))]
        kept = [i for i in test if complete[i]]
        on_kept = dropped.subset([position[i] for i in kept])
        kept_truth = [on_kept.label(i) for i in range(len(on_kept))]
        scores.append((
            _scores(default, whole, truth),
            _scores(default, full.subset(kept), kept_truth),
            _scores(drop, on_kept, kept_truth),
        ))
    return _mean_scores([s[0] for s in scores]), _mean_scores([s[1] for s in scores]), _mean_scores(
        [s[2] for s in scores]
    )


def table(
    name: str, algorithms: Sequence[str], epsilon: str, folds: int, repeats: int, seed: int,
    log: Callable[[str], None],
) -> List[str]:
    full, dropped = _read(name, "category"), _read(name, "drop")
    lines = [
        "",
        f"**{name}** ({len(full)} rows, {len(dropped)} without a missing value; epsilon {epsilon}, {folds}-fold CV "
        f"x {repeats}, seeds {seed} + 1000 r; each cell accuracy / macro AUC / macro F1, the difference in "
        "accuracy)",
        "",
        "| algorithm | default | drop (own CV) | default, complete rows | drop, complete rows | difference (95% CI) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for algorithm in algorithms:
        started = time.perf_counter()
        runs: List[Tuple[Scores, Scores, Scores, Scores]] = []
        try:
            for r in range(repeats):
                run_seed = seed + 1000 * r
                result = cross_validate(
                    algorithm, dropped, epsilon, folds=folds, seed=run_seed, engine=_engine(algorithm)
                )
                own = (result.mean, 0.5 if result.auc_mean is None else result.auc_mean, result.f1_mean or 0.0)
                default, default_kept, drop_kept = _same_folds(algorithm, full, dropped, epsilon, folds, run_seed)
                runs.append((default, own, default_kept, drop_kept))
        except InvalidParameterError as exc:
            log(f"{name} {algorithm}: refused: {exc}")
            lines.append(f"| {algorithm} | refused | refused | refused | refused | |")
            continue
        means = [_mean_scores([run[j] for run in runs]) for j in range(4)]
        differences = [run[2][0] - run[3][0] for run in runs]
        low, high = mean_confidence_interval(differences) if len(runs) > 1 else (differences[0], differences[0])
        cells = " | ".join(" / ".join(f"{x:.3f}" for x in m) for m in means)
        lines.append(f"| {algorithm} | {cells} | {means[2][0] - means[3][0]:+.3f} ({low:+.3f}, {high:+.3f}) |")
        log(f"{name} {algorithm}: {time.perf_counter() - started:.0f} s {lines[-1]}")
    return lines


def write_section(path: Path, command: str, lines: Sequence[str]) -> None:
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    body = START + "\n\nCommand: `" + command + "`\n" + "\n".join(lines) + "\n\n" + END
    path.write_text(head + body + tail, encoding="utf-8")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--adult-repeats", type=int, default=None, help="repeats on adult (default: --repeats)")
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--data", default=",".join(DATA_SETS))
    parser.add_argument("--algorithms", default=",".join(algorithm_names()))
    parser.add_argument("--write", default=None, metavar="PATH", help="replace the marked section of PATH")
    args = parser.parse_args(argv)
    lines: List[str] = []
    for name in args.data.split(","):
        repeats = args.adult_repeats if name == "adult" and args.adult_repeats else args.repeats
        lines += table(name, args.algorithms.split(","), args.epsilon, args.folds, repeats, args.seed,
                       lambda text: print(text, file=sys.stderr, flush=True))
    command = "PYTHONPATH=. python3 scripts/missing_table.py " + " ".join(argv)
    print("\n".join(lines))
    if args.write:
        write_section(Path(args.write), command.strip(), lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
