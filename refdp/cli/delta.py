"""``delta``: the certified Li-Qardaji-Su delta and its inverse questions.

``python3 -m refdp delta --k K --beta B --epsilon E [--trees N] [--json]``
prints d(k, beta, epsilon) (:func:`refdp.privacy.lqs_delta`) and, with
``--trees N``, the basic composition (N epsilon, N delta) of N trees.
With ``--target-delta T`` and one of ``--k`` or ``--beta`` left out it
answers the inverse question instead: the smallest k
(:func:`refdp.privacy.smallest_k`) or a largest beta
(:func:`refdp.privacy.largest_beta`) that reaches delta <= T.
``--table`` prints d(k, beta, epsilon) on a grid instead: ``--k``,
``--beta`` and ``--epsilon`` then take comma-separated lists (k and beta
have default lists), one block of k rows by beta columns per epsilon.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

from refdp.cli._args import integer
from refdp.cli._command import Command
from refdp.errors import InvalidParameterError, RefdpError
from refdp.privacy import LqsResult, as_epsilon, largest_beta, lqs_delta, smallest_k

__all__ = ["COMMAND"]

TABLE_K = (1, 2, 5, 10, 20, 50, 100)
"""The k rows of ``--table`` without ``--k``."""

TABLE_BETA = ("0.01", "0.05", "0.1", "0.2", "0.3", "0.5")
"""The beta columns of ``--table`` without ``--beta``."""


def _ints(text: str) -> Tuple[int, ...]:
    """``--k``: one int, or a comma-separated list of them (for ``--table``)."""
    try:
        return tuple(integer(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer value: {text[:40]!r}") from None


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--k", type=_ints, default=None, help="suppression threshold k >= 1 (a list with --table)")
    p.add_argument(
        "--beta", default=None, help="sampling probability in (0, 1), e.g. 0.1 or 1/10 (a list with --table)"
    )
    p.add_argument(
        "--epsilon", required=True, help="epsilon of one tree (the theorem's epsilon; a list with --table)"
    )
    p.add_argument("--trees", type=integer, default=None, help="also print (N eps, N delta) for N trees")
    p.add_argument("--target-delta", default=None, help="answer an inverse question for this delta")
    p.add_argument(
        "--table", action="store_true",
        help=f"print delta on a grid: rows --k (default {','.join(map(str, TABLE_K))}), columns --beta "
        f"(default {','.join(TABLE_BETA)}), one block per --epsilon; comma-separated lists",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _one_k(ks: Optional[Tuple[int, ...]]) -> Optional[int]:
    if ks is not None and len(ks) != 1:
        raise InvalidParameterError("--k takes one value (lists only with --table)")
    return None if ks is None else ks[0]


def _table_cell(k: int, beta: str, epsilon: str) -> Optional[float]:
    """delta at one cell, or None where the theorem does not apply (epsilon < -ln(1 - beta))."""
    try:
        return lqs_delta(k, beta, epsilon).delta
    except RefdpError as exc:
        # The precondition is decided exactly inside lqs_delta; its refusal is the one error that marks a cell.
        if "needs epsilon >= -ln(1 - beta)" in str(exc):
            return None
        raise


def _table(ks: Sequence[int], betas: Sequence[str], epsilons: Sequence[str], as_json: bool) -> str:
    """The grid of ``--table``, as aligned text or one JSON object."""
    for epsilon in epsilons:
        as_epsilon(epsilon)
    cells = [[[_table_cell(k, b, e) for b in betas] for k in ks] for e in epsilons]
    if as_json:
        return json.dumps({
            "question": "table",
            "cells": [
                {"k": k, "beta": b, "epsilon": e, "delta": cells[i][j][m]}
                for i, e in enumerate(epsilons) for j, k in enumerate(ks) for m, b in enumerate(betas)
            ],
        }, sort_keys=True)
    width = max(10, *(len(b) + 1 for b in betas))
    lines: List[str] = []
    for e, block in zip(epsilons, cells):
        if lines:
            lines.append("")
        lines.append(
            f"Li-Qardaji-Su delta of one tree at epsilon={e} (rows k, columns beta; "
            "-: epsilon < -ln(1 - beta), outside the theorem)"
        )
        lines.append(f"{'k':>6} |" + "".join(f"{b:>{width}}" for b in betas))
        for k, row in zip(ks, block):
            lines.append(f"{k:>6} |" + "".join(f"{'-' if d is None else f'{d:.3g}':>{width}}" for d in row))
    return "\n".join(lines)


def _result_json(result: LqsResult) -> Dict[str, Any]:
    return {
        "k": result.k,
        "beta": str(result.beta),
        "epsilon": str(result.epsilon),
        "delta": result.delta,
        "n_at_max": result.n_at_max,
        "n_m": result.n_m,
        "gamma": result.gamma,
        "stop_n": result.stop_n,
        "tail_bound": result.tail_bound,
        "evaluations": result.evaluations,
        "min_epsilon": result.min_epsilon,
    }


def _composed(result: LqsResult, trees: Optional[int], out: Dict[str, Any]) -> Optional[str]:
    if trees is None:
        return None
    total_epsilon, total_delta = result.for_trees(trees)
    out["trees"] = trees
    out["total_epsilon"] = str(total_epsilon)
    out["total_delta"] = total_delta
    return (
        f"{trees} trees (basic composition): epsilon = {total_epsilon} (~{float(total_epsilon):.6g}), "
        f"delta <= {total_delta:.6g}"
    )


def _run(args: argparse.Namespace) -> int:
    """Answer the question ``args`` asks; print text or JSON; return 0."""
    if args.table:
        if args.trees is not None or args.target_delta is not None:
            raise InvalidParameterError("--table prints the delta of one tree: drop --trees and --target-delta")
        betas = args.beta.split(",") if args.beta is not None else TABLE_BETA
        print(_table(args.k or TABLE_K, betas, args.epsilon.split(","), args.json))
        return 0
    epsilon = as_epsilon(args.epsilon)
    args.k = _one_k(args.k)
    lines = []
    out: Dict[str, Any]
    if args.target_delta is not None and args.k is None:
        if args.beta is None:
            raise InvalidParameterError("--target-delta needs --beta (for the smallest k) or --k (for beta)")
        k = smallest_k(args.beta, epsilon, args.target_delta)
        result = lqs_delta(k, args.beta, epsilon)
        out = {"question": "smallest-k", "target_delta": args.target_delta, **_result_json(result)}
        lines.append(
            f"smallest k with delta <= {args.target_delta} at beta={result.beta}, epsilon={epsilon}: "
            f"k = {k} (delta <= {result.delta:.6g}"
            + (f"; k = {k - 1} does not reach it)" if k > 1 else ")")
        )
    elif args.target_delta is not None and args.beta is None:
        beta = largest_beta(args.k, epsilon, args.target_delta)
        result = lqs_delta(args.k, beta, epsilon)
        out = {"question": "largest-beta", "target_delta": args.target_delta, **_result_json(result)}
        lines.append(
            f"largest beta (grid 1e-6) with delta <= {args.target_delta} at k={args.k}, epsilon={epsilon}: "
            f"beta = {float(beta)} (delta <= {result.delta:.6g}; beta + 1e-6 does not reach it; "
            "delta is not monotone in beta, see largest_beta)"
        )
    else:
        if args.k is None or args.beta is None:
            raise InvalidParameterError(
                "delta needs --k, --beta and --epsilon (or --target-delta with one of --k, --beta left out)"
            )
        if args.target_delta is not None:
            raise InvalidParameterError(
                "--target-delta asks an inverse question: leave out --k (smallest k) or --beta (largest beta)"
            )
        result = lqs_delta(args.k, args.beta, epsilon)
        out = {"question": "delta", **_result_json(result)}
        lines.append(
            f"Li-Qardaji-Su delta for k={result.k}, beta={result.beta}, epsilon={epsilon}: "
            f"delta <= {result.delta:.6g}"
        )
        lines.append(
            f"  attained at n={result.n_at_max}; n_m={result.n_m}; gamma~{result.gamma:.9g}; "
            f"certified by the Chernoff bound {result.tail_bound:.3g} for every n >= {result.stop_n} "
            f"({result.evaluations} tails); theorem needs epsilon >= {result.min_epsilon:.6g}"
        )
    composed = _composed(result, args.trees, out)
    if composed is not None:
        lines.append(composed)
    print(json.dumps(out, sort_keys=True) if args.json else "\n".join(lines))
    return 0


COMMAND = Command(
    "delta",
    "the certified Li-Qardaji-Su delta of sampling plus k-suppression (k-AnonToRdt)",
    _add_arguments,
    _run,
    description=(
        "delta = max over n >= n_m of P[Bin(n, beta) > gamma n], gamma = (e^eps - 1 + beta)/e^eps, "
        "n_m = ceil(k/gamma - 1), valid for eps >= -ln(1 - beta) (Li, Qardaji & Su 2012). "
        "With --target-delta and no --k: the smallest k; with --target-delta and no --beta: "
        "a largest beta."
    ),
)
