"""``train``: train a registry algorithm and write the model, receipt included, as JSON."""

from __future__ import annotations

import argparse

from refdp.cli._args import (
    add_key_argument,
    add_seed_argument,
    add_training_arguments,
    check_missing_policy,
    load_data,
    parse_params,
    read_key_argument,
)
from refdp.cli._command import Command
from refdp.cli._progress import Ticker
from refdp.files import write_text
from refdp.privacy import as_budget, parse_relation

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--algorithm", required=True, help="algorithm name (see `algorithms`)")
    add_training_arguments(p)
    add_seed_argument(p)
    p.add_argument("--out", required=True, help="where to write MODEL.json (written whole, or not at all)")
    add_key_argument(p, "sign the model with the secret key in FILE (HMAC-SHA256; `receipt --key-file` checks it)")


def _run(args: argparse.Namespace) -> int:
    from refdp.algorithms import train
    from refdp.cli._data import check_output
    from refdp.tree import dumps_model

    check_output(args.out, [args.data, args.schema, args.key_file])
    key = read_key_argument(args)
    epsilon = as_budget(args.epsilon)
    relation = parse_relation(args.relation)
    check_missing_policy(args.algorithm, parse_params(args.param), relation, args.missing)
    data = load_data(args)
    with Ticker(f"training {args.algorithm} on {len(data)} rows"):
        model = train(
            args.algorithm, data, epsilon, params=parse_params(args.param), rng=args.seed,
            relation=relation, engine=args.engine,
        )
        text = dumps_model(model, key)
    write_text(args.out, text)
    signed = " (signed)" if key is not None else ""
    print(f"trained {model.algorithm} ({model.variant}) on {len(data)} rows; wrote {args.out}{signed}")
    print(f"receipt: {model.receipt.summary()}")
    if model.receipt.leaks:
        print(f"the receipt records {len(model.receipt.leaks)} leak(s) (see the receipt): the model is not DP")
    print(f"see it in words: python3 -m refdp receipt --model {args.out}")
    return 0


COMMAND = Command("train", "train a model and write it as JSON", _add_arguments, _run)
