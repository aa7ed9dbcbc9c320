"""The command line: ``python3 -m refdp SUBCOMMAND``.

Subcommands: ``demo``, ``train``, ``predict``, ``receipt``, ``evaluate``, ``algorithms``,
``audit``, ``audit-cmd``, ``delta``, ``vectors`` and ``datasets``.  Errors in the input print one line on stderr and exit with
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Dict, List, NoReturn, Optional, Sequence

from refdp import algorithms
from refdp.algorithms import AlgorithmSpec, Variant, get_algorithm, train
from refdp.data import BUILTIN_NAMES, Dataset, describe_builtin, load, read_schema
from refdp.errors import RefdpError
from refdp.evaluation import cross_validate, train_test_evaluate
from refdp.privacy import parse_relation
from refdp.privacy.levels import IDEALISED, MEANING, UNKNOWN_STATUS, UNSOUND, claim_status
from refdp.tree import TreeModel, dumps_model, read_model

__all__ = ["main"]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message} (see --help)")


def _fail(message: str) -> int:
    print(f"refdp: error: {message}", file=sys.stderr)
    return 2


def _params(pairs: Sequence[str]) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise _UsageError(f"--param takes KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def _load_data(args: argparse.Namespace) -> Dataset:
    schema = read_schema(args.schema) if getattr(args, "schema", None) else None
    return load(args.data, label=getattr(args, "label", None), schema=schema)


def _cmd_train(args: argparse.Namespace) -> int:
    data = _load_data(args)
    model = train(
        args.algorithm,
        data,
        args.epsilon,
        params=_params(args.param),
        rng=args.seed,
        relation=parse_relation(args.relation),
        engine=args.engine,
    )
    Path(args.out).write_text(dumps_model(model), encoding="utf-8")
    print(f"trained {model.algorithm} ({model.variant}) on {len(data)} rows; wrote {args.out}")
    print(f"receipt: {model.receipt.summary()}")
    print(f"see it in words: python3 -m refdp receipt --model {args.out}")
    return 0


def _cmd_predict(args: argparse.Namespace) -> int:
    model: TreeModel = read_model(args.model)
    data = load(args.data, schema=model.schema if Path(args.data).suffix else None)
    lines = "".join(f"{label}\n" for label in model.predict(data))
    if args.out:
        Path(args.out).write_text(lines, encoding="utf-8")
    else:
        sys.stdout.write(lines)
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    data = _load_data(args)
    params = _params(args.param)
    relation = parse_relation(args.relation)
    if args.test_data:
        schema = read_schema(args.schema) if args.schema else data.schema
        test = load(args.test_data, label=args.label, schema=schema)
        result = train_test_evaluate(
            args.algorithm, data, test, args.epsilon,
            repeats=args.repeats, params=params, seed=args.seed, relation=relation, engine=args.engine,
        )
    else:
        result = cross_validate(
            args.algorithm, data, args.epsilon, folds=args.folds,
            repeats=args.repeats, params=params, seed=args.seed, relation=relation, engine=args.engine,
        )
    seconds = sum(result.train_seconds)
    if args.json:
        print(
            json.dumps(
                {
                    "algorithm": result.algorithm,
                    "data": args.data,
                    "params": dict(result.params),
                    "epsilon": str(result.epsilon),
                    "folds": result.folds,
                    "repeats": result.repeats,
                    "seed": result.seed,
                    "accuracy_mean": result.mean,
                    "accuracy_std": result.std,
                    "accuracies": list(result.accuracies),
                    "receipt_epsilon": str(result.receipt_epsilon),
                    "receipt_epsilon_float": float(result.receipt_epsilon),
                    "receipt_delta": str(result.receipt_delta),
                    "sound": result.sound,
                    "level": result.level,
                    "train_seconds_total": seconds,
                    "train_seconds_mean": seconds / len(result.train_seconds),
                },
                sort_keys=True,
            )
        )
    else:
        print(
            f"{result.algorithm} on {args.data}, epsilon={float(result.epsilon):g}: accuracy "
            f"{result.mean:.4f} +- {result.std:.4f} over "
            + (f"the test set {args.test_data}" if args.test_data else f"{result.folds} folds")
            + f" x {result.repeats} repeats"
        )
        print(
            f"receipt total per model: epsilon={float(result.receipt_epsilon):g} "
            f"delta={float(result.receipt_delta):g}; level {result.level}: {MEANING[result.level]}"
        )
        print(f"training time: {seconds:.3f} s in all, {seconds / len(result.train_seconds):.4f} s per model")
    return 0


def _describe(spec: AlgorithmSpec) -> Dict[str, object]:
    return {
        "name": spec.name,
        "summary": spec.summary,
        "source": spec.source,
        "variants": [
            {
                "name": v.name,
                "sound": v.sound,
                "level": v.level,
                "claims": {cid: claim_status(cid) or UNKNOWN_STATUS for cid in v.claims},
                "description": v.description,
            }
            for v in spec.variants
        ],
        "parameters": [
            {"name": p.name, "type": p.kind.__name__, "default": p.default, "choices": list(p.choices), "help": p.help}
            for p in spec.parameters
        ],
        "claims": list(spec.claims),
    }


def _why(variant: Variant) -> str:
    """The claims (and flag) that keep ``variant`` from level proved, for the listing."""
    worst = {IDEALISED: ("needs-idealised-numerics",), UNSOUND: ("published-but-unsound", None)}
    statuses = worst.get(variant.level, ())
    reasons = [] if variant.sound else ["registered unsound"]
    for status in statuses:
        cited = [cid for cid in variant.claims if claim_status(cid) == status]
        if cited:
            reasons.append(f"{status or UNKNOWN_STATUS}: {', '.join(cited)}")
    return f" ({'; '.join(reasons)})" if reasons else ""


def _cmd_algorithms(args: argparse.Namespace) -> int:
    specs = [get_algorithm(name) for name in algorithms.algorithm_names()]
    if args.json:
        print(json.dumps([_describe(s) for s in specs], indent=1))
        return 0
    for spec in specs:
        print(f"{spec.name}: {spec.summary}")
        print(f"  source: {spec.source}")
        for v in spec.variants:
            print(f"  variant {v.name}: level {v.level} with default parameters{_why(v)}; {v.description}")
        for p in spec.parameters:
            choices = f" (one of {', '.join(p.choices)})" if p.choices else ""
            print(f"  --param {p.name}={p.default}{choices}: {p.help}")
        for cid in spec.claims:
            print(f"  claim {cid} [{claim_status(cid) or UNKNOWN_STATUS}]")
    return 0


def _cmd_datasets(args: argparse.Namespace) -> int:
    for name in BUILTIN_NAMES:
        print(f"{name}: {describe_builtin(name)}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from refdp.demo import demo

    sys.stdout.write(demo(args.epsilon, args.seed))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python3 -m refdp",
        description="refdp: a reference implementation of differentially private decision-tree learning.",
    )
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", parser_class=_Parser)

    demo = sub.add_parser("demo", help="train a sound DP tree on the voting records next to a non-private tree; show its rules and receipt")
    demo.add_argument("--epsilon", default="1", help="privacy budget (default 1)")
    demo.add_argument("--seed", type=int, default=None, help="seed for replay (default: secure randomness)")
    demo.set_defaults(func=_cmd_demo)

    def data_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data", required=True, help="a built-in data set name or a .csv/.arff path")
        p.add_argument("--label", default=None, help="class column of a file (default: the last)")
        p.add_argument("--schema", default=None, help="schema JSON file for a CSV file")
        p.add_argument("--epsilon", required=True, help="total privacy budget, e.g. 1 or 0.5 or 1/3")
        p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="algorithm parameter (repeatable)")
        p.add_argument("--relation", default="add-remove", help="neighbouring relation: add-remove (default) or substitute")
        p.add_argument("--engine", default="reference", help="reference (default) or array: same model, faster")

    tr = sub.add_parser("train", help="train a model and write it as JSON")
    tr.add_argument("--algorithm", required=True, help="algorithm name (see `algorithms`)")
    data_args(tr)
    tr.add_argument("--seed", type=int, default=None, help="seed for replay (default: secure randomness)")
    tr.add_argument("--out", required=True, help="where to write MODEL.json")
    tr.set_defaults(func=_cmd_train)

    pr = sub.add_parser("predict", help="predict with a model JSON")
    pr.add_argument("--model", required=True, help="a model written by `train`")
    pr.add_argument("--data", required=True, help="a built-in data set name or a .csv/.arff path")
    pr.add_argument("--out", default=None, help="write the labels here (default: stdout)")
    pr.set_defaults(func=_cmd_predict)

    from refdp import receipt_command  # the `receipt` subcommand lives in its own module

    receipt_command.register(sub)

    ev = sub.add_parser("evaluate", help="repeated stratified k-fold cross-validation")
    ev.add_argument("--algorithm", required=True, help="algorithm name (see `algorithms`)")
    data_args(ev)
    ev.add_argument("--folds", type=int, default=10, help="folds (default 10)")
    ev.add_argument(
        "--test-data",
        default=None,
        help="train on --data and test on this data set instead of cross-validating (e.g. adult with adult-test)",
    )
    ev.add_argument("--repeats", type=int, default=1, help="repeats (default 1)")
    ev.add_argument("--seed", type=int, default=None, help="seed for replay (default: secure randomness)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.set_defaults(func=_cmd_evaluate)

    al = sub.add_parser(
        "algorithms", help="list algorithms, variants (with their soundness level), parameters and claims"
    )
    al.add_argument("--json", action="store_true", help="print JSON")
    al.set_defaults(func=_cmd_algorithms)

    ds = sub.add_parser("datasets", help="list the built-in data sets")
    ds.set_defaults(func=_cmd_datasets)

    from refdp import delta_command  # the `delta` subcommand lives in its own module

    delta_command.register(sub)

    from refdp import vectors  # the `vectors` subcommand lives with the vectors

    vectors.register(sub)

    from refdp.audit.command import add_audit_parser  # the `audit` subcommand lives in refdp.audit

    add_audit_parser(sub)

    from refdp.audit.external_command import add_audit_cmd_parser  # `audit-cmd`: external programs

    add_audit_cmd_parser(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        status: int = args.func(args)
        return status
    except _UsageError as exc:
        return _fail(str(exc))
    except RefdpError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        # the reader (e.g. `| head`) has gone: not an error of ours; keep the
        # interpreter from complaining again when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        return _fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
