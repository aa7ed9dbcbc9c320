"""``delta``: the certified Li-Qardaji-Su delta and its inverse questions.

``python3 -m refdp delta --k K --beta B --epsilon E [--trees N] [--json]``
prints d(k, beta, epsilon) (:func:`refdp.privacy.lqs_delta`) and, with
``--trees N``, the basic composition (N epsilon, N delta) of N trees.
With ``--target-delta T`` and one of ``--k`` or ``--beta`` left out it
answers the inverse question instead: the smallest k
(:func:`refdp.privacy.smallest_k`) or a largest beta
(:func:`refdp.privacy.largest_beta`) that reaches delta <= T.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict, Optional

from refdp.cli._command import Command
from refdp.errors import InvalidParameterError
from refdp.privacy import LqsResult, as_epsilon, largest_beta, lqs_delta, smallest_k

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--k", type=int, default=None, help="suppression threshold k >= 1")
    p.add_argument("--beta", default=None, help="sampling probability in (0, 1), e.g. 0.1 or 1/10")
    p.add_argument("--epsilon", required=True, help="epsilon of one tree (the theorem's epsilon)")
    p.add_argument("--trees", type=int, default=None, help="also print (N eps, N delta) for N trees")
    p.add_argument("--target-delta", default=None, help="answer an inverse question for this delta")
    p.add_argument("--json", action="store_true", help="print one JSON object")


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
    epsilon = as_epsilon(args.epsilon)
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
