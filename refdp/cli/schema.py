"""``schema``: write a schema for a data file, to edit before training.

``python3 -m refdp schema --data FILE [--label COL] --out schema.json``

What cannot be known without the data is read off it by
:func:`refdp.data.leaky_infer_schema`, attribute by attribute, and recorded
in the schema's ``leaks`` (claim ``schema-inference-leaks``), so a model
trained with the file unedited has an unsound receipt:

* a CSV file: every column.  A column whose every present value is a finite
  number is continuous (bounds: its minimum and maximum), any other
  categorical (domain: its values other than ``?``); the classes are the
  class column's values other than ``?``;
* an ARFF file: the bounds of the numeric attributes, read from the rows
  without a missing numeric value.  Nominal domains and the classes come
  from the header, which is public: no leak.

Every categorical domain ends with ``?``, the category of a missing value
(:mod:`refdp.data.missing`), whether or not one occurs: a rule, not read off
the data.

A built-in name writes the built-in's public schema.  The format and how to
replace a leaky part by public knowledge: ``docs/schema.md``.
"""

from __future__ import annotations

import argparse
import json
import sys

from refdp.cli._command import Command

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, help="a .csv or .arff file (or a built-in name, for its public schema)")
    p.add_argument("--label", default=None, help="the class column (default: the last)")
    p.add_argument("--out", required=True, help="where to write the schema JSON")


def _run(args: argparse.Namespace) -> int:
    from refdp.cli._data import check_output
    from refdp.cli._schema_build import schema_of, summary
    from refdp.files import write_text

    check_output(args.out, [args.data])
    schema, notes = schema_of(args)
    write_text(args.out, json.dumps(schema.to_json(), indent=1) + "\n")
    print(f"wrote {args.out}: {summary(schema)}")
    for note in notes:
        print(f"note: {note}")
    if schema.leaks:
        print(
            f"refdp: warning: {len(schema.leaks)} part(s) of this schema were read off the data, which leaks the "
            "records (claim schema-inference-leaks): a model trained with it is marked unsound until you replace "
            "each by public knowledge and delete its entry under \"leaks\" (docs/schema.md)",
            file=sys.stderr,
        )
    return 0


COMMAND = Command(
    "schema",
    "write a schema for a data file to edit before training (what it reads off the data leaks, and it says so)",
    _add_arguments,
    _run,
    description=(
        "Write the schema of a .csv or .arff file as JSON (format: docs/schema.md). Domains, bounds and classes "
        "not declared publicly (an ARFF header declares nominal domains and classes) are read off the data: that "
        "leaks, so the file lists them under \"leaks\" and models trained with it have unsound receipts until you "
        "replace them with public values."
    ),
)
