"""``predict``: CSV with one line per row of a data set, from a model written by ``train``.

The rows are read with the model's schema and its missing-value policy (the
one its training data was read with); a class column is not needed.  The
output has a header line ``row,prediction`` (with ``--proba``, one more
column per class with its probability), then one line per input row, in
order: ``row`` counts the data rows from 0 (a file's header and comment
lines are not rows).  A row that cannot be predicted (a missing value the
model has no rule for, an unknown category, a number that is not one) gets
an empty prediction, and the reason is on stderr.  With ``--score`` and a
class column, the accuracy, macro F1 and the confusion matrix of the rows
that have both a prediction and a class go to stderr (``--score json``: one
JSON object).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from refdp.cli._args import add_key_argument, read_key_argument
from refdp.cli._command import Command
from refdp.errors import InvalidParameterError
from refdp.files import write_text

if TYPE_CHECKING:
    from refdp.cli._data import RowsToPredict
    from refdp.tree import TreeModel

__all__ = ["COMMAND"]

_REASONS_SHOWN = 20


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="a model written by `train`")
    p.add_argument(
        "--data", required=True,
        help="a built-in data set name or a .csv/.arff path, read with the model's schema (no class column needed)",
    )
    p.add_argument("--label", default=None, help="the class column, for --score (default: the model's)")
    p.add_argument("--proba", action="store_true", help="add a column per class with its probability")
    p.add_argument(
        "--score", nargs="?", const="text", default=None, choices=("text", "json"),
        help="with a class column: accuracy, macro F1 and the confusion matrix on stderr (json: one JSON object)",
    )
    p.add_argument("--out", default=None, help="write the CSV here (default: stdout)")
    add_key_argument(p, "check the model's signature with the secret key in FILE before predicting")


def _csv(model: TreeModel, rows: RowsToPredict, proba: bool) -> Tuple[str, List[Optional[str]]]:
    """The output text, and the prediction of every row (None where there is none)."""
    from refdp.data import Dataset

    data: Dataset = rows.dataset(model.schema)
    labels = iter(model.predict(data))
    probabilities = iter(model.predict_proba(data) if proba else [])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["row", "prediction"] + (list(model.schema.classes) if proba else []))
    predictions: List[Optional[str]] = []
    for i, encoded in enumerate(rows.encoded):
        if encoded is None:
            predictions.append(None)
            writer.writerow([i, ""] + [""] * (model.schema.n_classes if proba else 0))
            continue
        label = next(labels)
        predictions.append(label)
        writer.writerow([i, label] + ([repr(p) for p in next(probabilities)] if proba else []))
    return out.getvalue(), predictions


def _note_unpredicted(rows: RowsToPredict) -> None:
    failed = [(i, where, reason) for i, (where, reason) in enumerate(zip(rows.where, rows.reasons)) if reason]
    for i, where, reason in failed[:_REASONS_SHOWN]:
        print(f"refdp: row {i} ({where}) has no prediction: {reason}", file=sys.stderr)
    if len(failed) > _REASONS_SHOWN:
        print(
            f"refdp: ... and {len(failed) - _REASONS_SHOWN} more; {len(failed)} of {len(rows.encoded)} rows have no "
            "prediction (empty in the output)",
            file=sys.stderr,
        )


def _score(model: TreeModel, rows: RowsToPredict, predictions: Sequence[Optional[str]], form: str) -> None:
    from refdp.evaluation import accuracy
    from refdp.metrics import macro_f1

    assert rows.labels is not None
    classes = model.schema.classes
    pairs = [(p, t) for p, t in zip(predictions, rows.labels) if p is not None and t in classes]
    unpredicted = sum(p is None for p in predictions)
    unlabelled = sum(p is not None and t not in classes for p, t in zip(predictions, rows.labels))
    predicted, actual = [p for p, _ in pairs], [str(t) for _, t in pairs]
    matrix = [[sum(1 for p, t in pairs if t == true and p == guess) for guess in classes] for true in classes]
    summary: Dict[str, object] = {
        "rows": len(predictions),
        "scored": len(pairs),
        "without_prediction": unpredicted,
        "without_class": unlabelled,
        "accuracy": accuracy(predicted, actual) if pairs else None,
        "f1_macro": macro_f1(predicted, actual, classes) if pairs else None,
        "classes": list(classes),
        "confusion": matrix,
    }
    if form == "json":
        print(json.dumps(summary, sort_keys=True), file=sys.stderr)
        return
    left_out = [f"{count} {what}" for count, what in ((unpredicted, "without a prediction"),
                                                     (unlabelled, "without a known class")) if count]
    head = f"score on {len(pairs)} of {len(predictions)} rows" + (f" ({', '.join(left_out)} left out)" if left_out else "")
    if not pairs:
        print(f"{head}: no row to score", file=sys.stderr)
        return
    print(f"{head}: accuracy {summary['accuracy']:.4f}, macro F1 {summary['f1_macro']:.4f}", file=sys.stderr)
    width = max(len(c) for c in list(classes) + [str(len(pairs))]) + 2
    print("confusion matrix (rows: the class, columns: the prediction):", file=sys.stderr)
    print(" " * width + "".join(c.rjust(width) for c in classes), file=sys.stderr)
    for true, counts in zip(classes, matrix):
        print(true.ljust(width) + "".join(str(n).rjust(width) for n in counts), file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    from refdp.algorithms import read_model
    from refdp.cli._data import check_output, note_clipped, read_rows_to_predict

    check_output(args.out, [args.model, args.data, args.key_file])
    model: TreeModel = read_model(args.model, read_key_argument(args))
    rows = read_rows_to_predict(args.data, model.schema, model.missing, label=args.label)
    if args.score and rows.labels is None:
        raise InvalidParameterError(
            f"--score needs the class column {args.label or model.schema.label!r} in --data {args.data}; "
            "pass --label to name another"
        )
    note_clipped(args.data, rows.clipped)
    text, predictions = _csv(model, rows, args.proba)
    _note_unpredicted(rows)
    if args.score:
        _score(model, rows, predictions, args.score)
    if args.out:
        write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0


COMMAND = Command(
    "predict", "predict with a model JSON: CSV, one line per row (--proba: class probabilities; --score)",
    _add_arguments, _run,
)
