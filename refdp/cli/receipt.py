"""``receipt``: a model's privacy receipt in words, verified first.

``python3 -m refdp receipt --model M.json [--json] [--verify]`` reads the model
with :func:`refdp.read_model`, which verifies its receipt (the total is
recomputed from the charges, every claim exists with the status stated, the
level and digest match, the variant agrees with the charges), and prints what
was spent where, the neighbouring relation, the soundness level and the
claims with their statuses and files.  ``--json`` prints the verified receipt
as JSON; ``--verify`` prints one line only.  A model that does not verify
prints one error line and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Dict, List, Tuple

from refdp.cli._command import Command
from refdp.privacy import Charge, Receipt, charge_level
from refdp.privacy.levels import MEANING

if TYPE_CHECKING:
    from refdp.tree import TreeModel

__all__ = ["COMMAND", "describe_receipt"]

PARTITIONS_SHOWN = 3

_GroupKey = Tuple[str, str, str, str, str, Tuple[str, ...], bool, bool]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="a model written by `train`")
    p.add_argument("--json", action="store_true", help="print the verified receipt as one JSON object")
    p.add_argument("--verify", action="store_true", help="only verify: print one line (exit 0 or 2)")


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


def describe_receipt(model: TreeModel, source: str) -> str:
    """The receipt of ``model`` (read from ``source``) in words, for people."""
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
        f"integrity: {receipt.to_json()['digest']} matches; it detects edits and corruption, not a forger "
        "who recomputes it (the checks of the total, claims and level above hold regardless)"
    )
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    """Verify the model's receipt and print it; a failure raises ModelError (exit 2)."""
    from refdp.algorithms import read_model

    model = read_model(args.model)
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
            f"delta={receipt.delta} ({receipt.relation.value}), {len(receipt.charges)} charges"
        )
    else:
        print(describe_receipt(model, args.model))
    return 0


COMMAND = Command(
    "receipt",
    "verify a model's privacy receipt and print it in words (exit 2 if it does not verify)",
    _add_arguments,
    _run,
    description=(
        "Verify the privacy receipt of a model written by `train` (total recomputed from the charges, "
        "claims and their statuses, soundness level, integrity digest, variant against charges) and "
        "print what was spent where, the relation, the level (proved, idealised or unsound) and the "
        "claims in proofs/ behind it. A receipt that does not verify gives one error line and exit status 2."
    ),
)
