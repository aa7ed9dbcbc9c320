"""``algorithms``: every registry algorithm with its variants and their soundness levels, parameters and claims."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Dict

from refdp.cli._command import Command
from refdp.privacy.levels import IDEALISED, UNKNOWN_STATUS, UNSOUND, claim_status

if TYPE_CHECKING:
    from refdp.algorithms import AlgorithmSpec, Variant

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")


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
            {
                "name": p.name, "type": p.kind.__name__, "default": p.default, "choices": list(p.choices),
                "range": p.range_text(), "help": p.help,
            }
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


def _run(args: argparse.Namespace) -> int:
    from refdp.algorithms import algorithm_names, get_algorithm

    specs = [get_algorithm(name) for name in algorithm_names()]
    if args.json:
        print(json.dumps([_describe(s) for s in specs], indent=1))
        return 0
    for spec in specs:
        print(f"{spec.name}: {spec.summary}")
        print(f"  source: {spec.source}")
        for v in spec.variants:
            print(f"  variant {v.name}: level {v.level} with default parameters{_why(v)}; {v.description}")
        for p in spec.parameters:
            allowed = f"one of {', '.join(p.choices)}" if p.choices else f"{p.kind.__name__} in {p.range_text()}"
            print(f"  --param {p.name}={p.default} ({allowed}): {p.help}")
        for cid in spec.claims:
            print(f"  claim {cid} [{claim_status(cid) or UNKNOWN_STATUS}]")
    return 0


COMMAND = Command(
    "algorithms",
    "list algorithms, variants (with their soundness level), parameters and claims",
    _add_arguments,
    _run,
)
