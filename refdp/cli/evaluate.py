"""``evaluate``: accuracy, macro F1 and AUC by repeated stratified k-fold cross-validation, or on a separate test set."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from refdp.cli._args import (
    add_seed_argument,
    add_training_arguments,
    chosen_engine,
    check_missing_policy,
    check_positive,
    integer,
    load_data,
    parse_params,
)
from refdp.cli._command import Command
from refdp.cli._progress import Line
from refdp.errors import InvalidParameterError
from refdp.privacy import as_budget, parse_relation
from refdp.privacy.levels import MEANING

if TYPE_CHECKING:
    from refdp.evaluation import CVResult

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--algorithm", required=True, help="algorithm name (see `algorithms`)")
    add_training_arguments(p)
    p.add_argument("--folds", type=integer, default=10, help="folds (default 10)")
    p.add_argument(
        "--test-data",
        default=None,
        help="train on --data and test on this data set instead of cross-validating (e.g. adult with adult-test); "
        "a file is read like --data, with its schema",
    )
    p.add_argument("--repeats", type=integer, default=1, help="repeats (default 1)")
    add_seed_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _evaluate(args: argparse.Namespace) -> CVResult:
    from refdp.cli._data import note_clipped, read_data, read_test_data
    from refdp.data import BUILTIN_NAMES
    from refdp.evaluation import cross_validate, train_test_evaluate

    if args.folds < 2:
        raise InvalidParameterError(f"--folds must be at least 2, got {args.folds}")
    check_positive(args.repeats, "--repeats", 10_000)
    epsilon = as_budget(args.epsilon)
    params = parse_params(args.param)
    relation = parse_relation(args.relation)
    check_missing_policy(args.algorithm, parse_params(args.param), relation, args.missing)
    data = load_data(args)
    line = Line(f"evaluate {args.algorithm}", "models")
    try:
        if args.test_data:
            test, clipped = (
                (read_data(args.test_data), 0) if args.test_data in BUILTIN_NAMES
                else read_test_data(args.test_data, data.schema, data.missing, label=args.label)
            )
            note_clipped(args.test_data, clipped)
            return train_test_evaluate(
                args.algorithm, data, test, epsilon, repeats=args.repeats, params=params, seed=args.seed,
                relation=relation, engine=chosen_engine(args.engine, args.algorithm), progress=line,
            )
        return cross_validate(
            args.algorithm, data, epsilon, folds=args.folds, repeats=args.repeats, params=params, seed=args.seed,
            relation=relation, engine=chosen_engine(args.engine, args.algorithm), progress=line,
        )
    finally:
        line.close()


def _run(args: argparse.Namespace) -> int:
    result = _evaluate(args)
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
                    "f1_macro_mean": result.f1_mean,
                    "f1_macro": list(result.f1s),
                    "auc_macro_mean": result.auc_mean,
                    "auc_macro": list(result.aucs),
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
            + (f"the test set {args.test_data}" if args.test_data else _plural(result.folds, "fold"))
            + f" x {_plural(result.repeats, 'repeat')}"
        )
        auc = result.auc_mean
        print(
            f"macro F1 {result.f1_mean:.4f}, macro AUC "
            + (f"{auc:.4f}" if auc is not None else "undefined (every test part has one class)")
            + " (mean over runs; every class positive in turn, AUC from the predicted probabilities)"
        )
        print(
            f"receipt total per model: epsilon={float(result.receipt_epsilon):g} "
            f"delta={float(result.receipt_delta):g}; level {result.level}: {MEANING[result.level]}"
        )
        print(f"training time: {seconds:.3f} s in all, {seconds / len(result.train_seconds):.4f} s per model")
    return 0


COMMAND = Command("evaluate", "repeated stratified k-fold cross-validation", _add_arguments, _run)
