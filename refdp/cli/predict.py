"""``predict``: one predicted label per row of a data set, from a model written by ``train``.

The rows are read with the model's schema; a class column is not needed
(and ignored when present).  ``--proba`` prints CSV instead: a header
``prediction,CLASS1,CLASS2,...`` and per row the label and the model's class
probabilities.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from typing import TYPE_CHECKING

from refdp.cli._args import add_key_argument, add_missing_argument, read_key_argument
from refdp.cli._command import Command
from refdp.files import write_text

if TYPE_CHECKING:
    from refdp.tree import TreeModel

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="a model written by `train`")
    p.add_argument(
        "--data", required=True,
        help="a built-in data set name or a .csv/.arff path, read with the model's schema (no class column needed)",
    )
    add_missing_argument(p)
    p.add_argument("--proba", action="store_true", help="print CSV: the label and each class's probability")
    p.add_argument("--out", default=None, help="write the output here (default: stdout)")
    add_key_argument(p, "check the model's signature with the secret key in FILE before predicting")


def _output(model: TreeModel, args: argparse.Namespace) -> str:
    from refdp.cli._data import note_clipped, read_unlabelled

    data, clipped = read_unlabelled(args.data, model.schema, args.missing)
    note_clipped(args.data, clipped)
    labels = model.predict(data)
    if not args.proba:
        return "".join(f"{label}\n" for label in labels)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("prediction",) + model.schema.classes)
    for label, probabilities in zip(labels, model.predict_proba(data)):
        writer.writerow([label] + [repr(p) for p in probabilities])
    return out.getvalue()


def _run(args: argparse.Namespace) -> int:
    from refdp.algorithms import read_model
    from refdp.cli._data import check_output

    check_output(args.out, [args.model, args.data, args.key_file])
    model: TreeModel = read_model(args.model, read_key_argument(args))
    text = _output(model, args)
    if args.out:
        write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0


COMMAND = Command("predict", "predict with a model JSON (--proba: class probabilities)", _add_arguments, _run)
