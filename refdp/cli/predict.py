"""``predict``: one predicted label per row of a data set, from a model written by ``train``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from refdp.cli._command import Command

if TYPE_CHECKING:
    from refdp.tree import TreeModel

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="a model written by `train`")
    p.add_argument("--data", required=True, help="a built-in data set name or a .csv/.arff path")
    p.add_argument("--out", default=None, help="write the labels here (default: stdout)")


def _run(args: argparse.Namespace) -> int:
    from refdp.algorithms import read_model
    from refdp.data import load

    model: TreeModel = read_model(args.model)
    data = load(args.data, schema=model.schema if Path(args.data).suffix else None)
    lines = "".join(f"{label}\n" for label in model.predict(data))
    if args.out:
        Path(args.out).write_text(lines, encoding="utf-8")
    else:
        sys.stdout.write(lines)
    return 0


COMMAND = Command("predict", "predict with a model JSON", _add_arguments, _run)
