"""``train``: train a registry algorithm and write the model, receipt included, as JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

from refdp.cli._args import add_seed_argument, add_training_arguments, load_data, parse_params
from refdp.cli._command import Command
from refdp.privacy import parse_relation

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--algorithm", required=True, help="algorithm name (see `algorithms`)")
    add_training_arguments(p)
    add_seed_argument(p)
    p.add_argument("--out", required=True, help="where to write MODEL.json")


def _run(args: argparse.Namespace) -> int:
    from refdp.algorithms import train
    from refdp.tree import dumps_model

    data = load_data(args)
    model = train(
        args.algorithm,
        data,
        args.epsilon,
        params=parse_params(args.param),
        rng=args.seed,
        relation=parse_relation(args.relation),
        engine=args.engine,
    )
    Path(args.out).write_text(dumps_model(model), encoding="utf-8")
    print(f"trained {model.algorithm} ({model.variant}) on {len(data)} rows; wrote {args.out}")
    print(f"receipt: {model.receipt.summary()}")
    print(f"see it in words: python3 -m refdp receipt --model {args.out}")
    return 0


COMMAND = Command("train", "train a model and write it as JSON", _add_arguments, _run)
