"""``evaluate``: accuracy by repeated stratified k-fold cross-validation, or on a separate test set."""

from __future__ import annotations

import argparse
import json

from refdp.cli._args import add_seed_argument, add_training_arguments, load_data, parse_params
from refdp.cli._command import Command
from refdp.privacy import parse_relation
from refdp.privacy.levels import MEANING

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--algorithm", required=True, help="algorithm name (see `algorithms`)")
    add_training_arguments(p)
    p.add_argument("--folds", type=int, default=10, help="folds (default 10)")
    p.add_argument(
        "--test-data",
        default=None,
        help="train on --data and test on this data set instead of cross-validating (e.g. adult with adult-test)",
    )
    p.add_argument("--repeats", type=int, default=1, help="repeats (default 1)")
    add_seed_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace) -> int:
    from refdp.data import load, read_schema
    from refdp.evaluation import cross_validate, train_test_evaluate

    data = load_data(args)
    params = parse_params(args.param)
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


COMMAND = Command("evaluate", "repeated stratified k-fold cross-validation", _add_arguments, _run)
