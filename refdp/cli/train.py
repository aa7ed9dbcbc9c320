"""``train``: train a registry algorithm and write the model, receipt included, as JSON.

It says what it built: the first line names the receipt's soundness level
(the variant only when it is not the default), the trees' depth and leaves;
a model that is a single leaf, which predicts one class for every row, gets
a warning that says why and what would grow a tree.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Optional

from refdp.cli._args import (
    add_key_argument,
    add_seed_argument,
    add_training_arguments,
    chosen_engine,
    check_missing_policy,
    load_data,
    parse_params,
    read_key_argument,
)
from refdp.cli._command import Command
from refdp.cli._progress import Ticker
from refdp.files import write_text
from refdp.privacy import as_budget, parse_relation

if TYPE_CHECKING:
    from refdp.tree import TreeModel

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
            relation=relation, engine=chosen_engine(args.engine, args.algorithm),
        )
        text = dumps_model(model, key)
    write_text(args.out, text)
    signed = " (signed)" if key is not None else ""
    rows = f"{len(data)} row{'' if len(data) == 1 else 's'}"
    print(f"trained {model.algorithm} on {rows}, level {model.receipt.level}{_variant(model)}: {_shape(model)}; "
          f"wrote {args.out}{signed}")
    warning = single_leaf_warning(model, args.epsilon)
    if warning:
        print(f"refdp: warning: {warning}", file=sys.stderr)
    if model.missing is not None:
        print(f"missing values: {model.missing.describe()} (predict reads them the same way)")
    print(f"receipt: {model.receipt.summary()}")
    if model.receipt.leaks:
        print(f"the receipt records {len(model.receipt.leaks)} leak(s) (see the receipt): the model is not DP")
    print(f"see it in words: python3 -m refdp receipt --model {args.out}")
    return 0


def _variant(model: TreeModel) -> str:
    from refdp.algorithms import get_algorithm

    default = next(p.default for p in get_algorithm(model.algorithm).parameters if p.name == "variant")
    return "" if model.variant == default else f" (variant {model.variant})"


def _shape(model: TreeModel) -> str:
    if model.depth == 0:
        return "a single leaf" if len(model.trees) == 1 else f"{len(model.trees)} trees, each a single leaf"
    if len(model.trees) == 1:
        return f"one tree of depth {model.depth} with {model.n_leaves} leaves"
    return f"{len(model.trees)} trees of depth up to {model.depth} with {model.n_leaves} leaves in all"


def single_leaf_warning(model: TreeModel, epsilon: str) -> Optional[str]:
    """One line when ``model`` (of an algorithm that can grow trees) is a single leaf: why, and what would grow one."""
    from refdp.algorithms import get_algorithm

    spec = get_algorithm(model.algorithm)
    depth_param = next((p for p in spec.parameters if p.name == "max_depth"), None)
    if model.depth > 0 or depth_param is None:
        return None
    head = "the model is a single leaf: it predicts one class for every row"
    if model.params.get("max_depth") == 0:
        return f"{head}; --param max_depth=0 asked for that"
    planned = any("noisy-size-plan" in charge.claims for charge in model.receipt.charges)
    if planned:
        fixed = (
            f", or --param size_share=0 (always --param max_depth={model.params.get('max_depth')}),"
            if any(p.name == "size_share" for p in spec.parameters) else ""
        )
        return (
            f"{head}; at epsilon {epsilon} the noisy size of the data gave a plan too small to split (depth 0); "
            f"a larger --epsilon{fixed} would grow a tree"
        )
    return f"{head}; its noisy counts stopped it at the root at epsilon {epsilon}; a larger --epsilon would grow a tree"


COMMAND = Command("train", "train a model and write it as JSON", _add_arguments, _run)
