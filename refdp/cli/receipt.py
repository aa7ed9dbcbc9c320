"""``receipt``: a model's privacy receipt in words, verified first.

``python3 -m refdp receipt --model M.json [--json] [--verify]`` reads the model
with :func:`refdp.read_model`, which verifies it: the digest of the whole file
(and, with ``--key-file``, its signature), the receipt (the total recomputed
from the charges, every claim present with the status stated, the level),
the algorithm, variant and parameters, and every charge re-derived from the
model's public parts by the algorithm's own plan, with the trees checked
against what the algorithm can release.  It prints what was spent where,
the neighbouring relation, the soundness level and the claims with their
statuses and files.  ``--json`` prints the verified receipt as JSON;
``--verify`` prints one line only.  With ``--data D --seed S`` it also
re-trains the model on D with seed S and requires the very file
(:mod:`refdp.algorithms.retrain`).  A model that does not verify prints one
error line naming what differs and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from refdp.cli._args import add_key_argument, add_missing_argument, read_key_argument
from refdp.cli._command import Command
from refdp.errors import InvalidParameterError
from refdp.privacy import Charge, Receipt, charge_level
from refdp.privacy.levels import MEANING

if TYPE_CHECKING:
    from refdp.tree import TreeModel

__all__ = ["COMMAND", "describe_receipt"]

PARTITIONS_SHOWN = 3

_GroupKey = Tuple[str, str, str, str, str, Tuple[str, ...], bool, bool]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    from refdp.algorithms.registry import ENGINES

    p.add_argument("--model", required=True, help="a model written by `train`")
    p.add_argument("--json", action="store_true", help="print the verified receipt as one JSON object")
    p.add_argument("--verify", action="store_true", help="only verify: print one line (exit 0 or 2)")
    add_key_argument(p, "check the model's signature with the secret key in FILE (the key `train --key-file` used)")
    p.add_argument(
        "--data", default=None,
        help="also re-train on this data set (a built-in name, or a file read with the model's schema) and require "
        "the same file, byte for byte; needs --seed",
    )
    p.add_argument("--seed", type=int, default=None, help="the seed the model was trained with (with --data)")
    p.add_argument(
        "--engine", default="reference", choices=sorted(ENGINES), help="engine to re-train with (same model)"
    )
    add_missing_argument(p)


def _where(charge: Charge) -> str:
    return "/".join(charge.partition) if charge.partition else "the whole data"


def _group_key(charge: Charge) -> _GroupKey:
    return (
        charge.label, charge.mechanism, str(charge.epsilon), str(charge.delta),
        "n/a" if charge.sensitivity is None else str(charge.sensitivity),
        charge.claims, charge.sound, charge.data_independent,
    )


def _charge_lines(receipt: Receipt) -> List[str]:
    groups: Dict[_GroupKey, List[Charge]] = {}
    for charge in receipt.charges:
        groups.setdefault(_group_key(charge), []).append(charge)
    lines = []
    for (label, mechanism, epsilon, delta, sensitivity, claims, sound, independent), charges in groups.items():
        places = ", ".join(_where(c) for c in charges[:PARTITIONS_SHOWN])
        if len(charges) > PARTITIONS_SHOWN:
            places += f" and {len(charges) - PARTITIONS_SHOWN} more"
        if independent:
            cost = "no privacy cost (data-independent randomness)"
        else:
            cost = f"epsilon {epsilon}, delta {delta} each, sensitivity {sensitivity}"
        level = charge_level(charges[0]) if sound else "unsound (an UNSOUND step)"
        lines.append(f"  {len(charges)} x {label} [{mechanism}]: {cost}; on {places}")
        lines.append(f"      level {level}" + (f"; claims: {', '.join(claims)}" if claims else "; no claim"))
        note = charges[0].note
        if note:
            lines.append(f"      note: {note}")
    return lines


def describe_receipt(model: TreeModel, source: str, digest: Optional[str] = None) -> str:
    """The receipt of ``model`` (read from ``source``, whose digest is ``digest``) in words, for people."""
    receipt = model.receipt
    lines = [
        f"privacy receipt of {source}: {model.algorithm}, variant {model.variant} (verified)",
        f"total: epsilon = {receipt.epsilon} (~{float(receipt.epsilon):.6g}), delta = {receipt.delta} "
        f"(~{float(receipt.delta):.6g}), under the {receipt.relation.value} neighbouring relation,",
        f"  composed from {len(receipt.charges)} charges: charges on shared rows add up (sequential "
        "composition), disjoint cells cost their worst cell (parallel composition)",
        f"level: {receipt.level}: {MEANING[receipt.level]}",
        "spent:",
    ]
    lines.extend(_charge_lines(receipt) or ["  nothing"])
    lines.append("leaks (data read outside any mechanism):" if receipt.leaks else "leaks: none")
    lines.extend(f"  {leak}" for leak in receipt.leaks)
    lines.append("claims:" if receipt.claims else "claims: none")
    lines.extend(
        f"  {cid} [{status}] proofs/{cid}.md" for cid, status in receipt.claim_statuses.items()
    )
    lines.append(
        f"re-derived: every charge is the one {model.algorithm}'s plan makes from the model's public parts "
        "(parameters, schema, relation, budget, plan inputs, trees), and the trees are ones it can release"
        if _derivable(model)
        else f"not re-derived: {model.algorithm} variant {model.variant}'s charges depend on the data"
    )
    lines.append(
        f"integrity: {digest or model.to_json()['digest']} matches the whole file; it detects edits and corruption, not a "
        "forger who recomputes it (the checks above hold regardless; a signature checked with --key-file, or "
        "re-training with --data and --seed, goes further)"
    )
    return "\n".join(lines)


def _derivable(model: TreeModel) -> bool:
    from refdp.algorithms import get_algorithm

    derive = get_algorithm(model.algorithm).derive
    return derive is not None and derive(model) is not None


def _retrain(args: argparse.Namespace, model: TreeModel) -> str:
    """Re-train on ``--data`` with ``--seed`` and require the same file; what to say when it is."""
    from refdp.algorithms.retrain import check_retrained
    from refdp.cli._data import read_data
    from refdp.data import BUILTIN_NAMES
    from refdp.tree import read_model_json

    if args.seed is None:
        raise InvalidParameterError("--data needs --seed, the seed the model was trained with")
    schema = None if args.data in BUILTIN_NAMES else model.schema
    data = read_data(args.data, schema=schema, missing=args.missing)
    check_retrained(read_model_json(args.model), model, data, args.seed, args.engine, source=args.data)
    return f"; re-trained on {args.data} with seed {args.seed}: the same file"


def _run(args: argparse.Namespace) -> int:
    """Verify the model's receipt and print it; a failure raises ModelError (exit 2)."""
    from refdp.algorithms import read_model

    if args.data is None and (args.seed is not None or args.missing is not None):
        raise InvalidParameterError("--seed and --missing re-train the model: give --data as well")
    key = read_key_argument(args)
    model = read_model(args.model, key)
    retrained = ("; signature verified" if key is not None else "") + (
        _retrain(args, model) if args.data is not None else ""
    )
    receipt = model.receipt
    if args.json:
        out = {
            "model": args.model,
            "algorithm": model.algorithm,
            "variant": model.variant,
            "verified": True,
            "receipt": receipt.to_json(),
            "claim_files": {cid: f"proofs/{cid}.md" for cid in receipt.claims},
        }
        print(json.dumps(out, sort_keys=True, indent=None if args.verify else 1))
    elif args.verify:
        print(
            f"{args.model}: receipt verified: level {receipt.level}, epsilon={receipt.epsilon}, "
            f"delta={receipt.delta} ({receipt.relation.value}), {len(receipt.charges)} charges{retrained}"
        )
    else:
        from refdp.tree import read_model_json

        print(describe_receipt(model, args.model, str(read_model_json(args.model)["digest"])))
        for line in retrained.split("; ")[1:]:
            print(line)
    return 0


COMMAND = Command(
    "receipt",
    "verify a model's privacy receipt and print it in words (exit 2 if it does not verify)",
    _add_arguments,
    _run,
    description=(
        "Verify a model written by `train` (the digest of the whole file, the signature with --key-file, the "
        "total recomputed from the charges, claims and their statuses, soundness level, variant and "
        "parameters, every charge re-derived from the algorithm's plan and the trees checked against what it "
        "can release) and print what was spent where, the relation, the level (proved, idealised or unsound) "
        "and the claims in proofs/ behind it. With --data and --seed, also re-train and require the same "
        "file. A model that does not verify gives one error line and exit status 2."
    ),
)
