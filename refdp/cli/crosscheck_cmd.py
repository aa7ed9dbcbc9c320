"""``crosscheck-cmd``: does a program written in any language do what refdp's learner does?

``python3 -m refdp crosscheck-cmd --cmd 'PROGRAM ARGS {data} {seed} {out}' --algorithm A --data D --epsilon E
--output root-split|leaf-counts|model``

The program runs many times with fresh seeds on ``--data`` (a CSV file and
``schema.json``, as for ``audit-cmd``), ``--jobs`` at a time with
``--timeout`` seconds each: one process per run, per batch of runs
(``{seeds}``), long-running workers (``--worker``) or a Python function
(``--python``; :mod:`refdp.audit.programs`).  Its outputs are tested
against refdp's exact law for ``--algorithm``, ``--epsilon``, ``--param``
and ``--relation`` (:mod:`refdp.audit.program_crosscheck`, which runs the
check), mixed over the plans a noisy size may choose.  The number of runs
is computed from the power unless ``--runs`` gives it.  Exit status: 0
ACCEPT, 1 REJECT, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import secrets
from typing import Any, Dict, List

from refdp.cli._args import (
    MAX_RUNS,
    add_data_arguments,
    add_param_argument,
    add_program_arguments,
    add_program_run_arguments,
    check_positive,
    check_program_run_arguments,
    how_programs_ran,
    integer,
    load_data,
    program_of,
    parse_params,
)
from refdp.cli._command import Command
from refdp.errors import InvalidParameterError
from refdp.privacy import as_budget, parse_relation

__all__ = ["COMMAND", "render"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    from refdp.audit.program_crosscheck import OUTPUTS

    add_program_arguments(p)
    p.add_argument("--algorithm", required=True, help="the refdp algorithm the program implements")
    add_param_argument(p)
    add_data_arguments(p)
    p.add_argument("--epsilon", required=True, help="the total budget given to both, e.g. 1 or 1/2")
    p.add_argument("--relation", default="add-remove", help="add-remove (default) or substitute")
    p.add_argument("--output", required=True, help=f"what the program writes: {', '.join(OUTPUTS)}")
    p.add_argument("--runs", type=integer, default=None, help="runs of the program (default: computed for the power)")
    add_program_run_arguments(p, max_failure_rate=0.01, failure_note=": failed runs are left out of the sample")
    p.add_argument("--seed", type=integer, default=None, help="seed of the runs' seeds (default: drawn, and printed)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _check_args(args: argparse.Namespace) -> None:
    from refdp.audit.program_crosscheck import OUTPUTS

    check_positive(args.runs, "--runs", MAX_RUNS)
    check_program_run_arguments(args)
    if args.output not in OUTPUTS:
        raise InvalidParameterError(f"--output {args.output!r}: use one of {', '.join(OUTPUTS)}")


def _top(table: List[Dict[str, Any]], k: int) -> str:
    rows = sorted(table, key=lambda r: -float(r["probability"]))[:k]
    return "; ".join(f"{r['candidate']} {r['probability']:.4f} / {r['observed']:.4f}" for r in rows)


def _false_alarm(report: Dict[str, Any]) -> str:
    from refdp.audit.program_crosscheck import MODEL_REFERENCE_RUNS

    if report["output"] == "model":
        if report["model_charges"] == "re-derived":
            return "false alarm: none; the checks are deterministic, and a model refdp would write passes them"
        return (
            "false alarm: the checks are deterministic, so a model refdp would write passes them, unless its receipt "
            f"has a kind of charge that none of refdp's {MODEL_REFERENCE_RUNS} reference runs made"
        )
    return f"false alarm: a program with refdp's law is rejected with probability at most {report['false_alarm']:g}"


def render(report: Dict[str, Any]) -> str:
    """The text form of a ``crosscheck-cmd`` report."""
    verdict = report["verdict"]
    lines = [
        f"crosscheck-cmd {report['output']}: {report['algorithm']} "
        f"({', '.join(f'{k}={v}' for k, v in report['params'].items())}) on {report['data']}, "
        f"epsilon {report['epsilon']}, {report['relation']}",
        f"compared: {report['compared']}",
        f"statistic: {report['statistic']} = {report['distance']:.6g}; reject above {report['threshold']:.6g} "
        f"(claim {report['claim']})",
        _false_alarm(report),
        f"power: {report['runs_for_power']} runs reject {report['deviation']} with probability at least "
        f"{report['power']:g}; this check ran {report['runs']} ({report['sizing']}), and the {report['samples']} "
        f"samples it tested reject {report['detectable']} with that probability",
    ]
    if report["output"] == "root-split":
        lines.append(f"most likely outcomes, exact / observed: {_top(report['law'], 5)}")
    lines.append(f"detail: {report['detail']}")
    failures = f"{report['failures']} failed" + (f" (first: {report['first_failure']})" if report["failures"] else "")
    left_out = "with a leaf at the root" if report["output"] == "root-split" else "with no counts at the root"
    no_split = f", {report['no_split']} {left_out} (left out)" if report["no_split"] else ""
    lines.append(
        f"program: {report['program']!r}; {report['runs']} runs, {how_programs_ran(report)}, "
        f"{report['wall_time']:.1f} s in all; {failures}{no_split}"
    )
    meaning = "the outputs fit refdp's law" if verdict == "ACCEPT" else "the outputs do not fit refdp's law"
    lines.append(f"verdict: {verdict}: {meaning} (exit {0 if verdict == 'ACCEPT' else 1}); replay with --seed "
                 f"{report['seed']}")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    from refdp.audit.program_crosscheck import CommandCrosscheck, crosscheck_command

    """Run ``crosscheck-cmd``; the exit status is 0 (ACCEPT), 1 (REJECT) or 2 (bad input)."""
    _check_args(args)
    cmd, words, protocol = program_of(args)
    epsilon = as_budget(args.epsilon)
    relation = parse_relation(args.relation)
    params = parse_params(args.param)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    report = crosscheck_command(CommandCrosscheck(
        cmd=cmd,
        words=words,
        algorithm=args.algorithm,
        params=params,
        d=load_data(args),
        data_name=args.data,
        epsilon=epsilon,
        relation=relation,
        output=args.output,
        seed=seed,
        runs=args.runs,
        jobs=args.jobs,
        timeout=args.timeout,
        max_failure_rate=args.max_failure_rate,
        alpha=args.alpha,
        protocol=protocol,
        batch=args.batch,
    ))
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(render(report))
    return 1 if report["verdict"] == "REJECT" else 0


COMMAND = Command(
    "crosscheck-cmd",
    "test whether an external program (any language) samples what refdp's learner samples",
    _add_arguments,
    _run,
    description=(
        "Run PROGRAM many times with fresh seeds on a data set (a temporary CSV file and schema.json) and test its "
        "outputs against refdp's exact law for the same algorithm, epsilon and parameters: the root split "
        "(--output root-split, JSON {\"attribute\": NAME} with \"value\" or \"threshold\" where the algorithm "
        "releases one, null for a leaf), the root's noisy class counts (--output leaf-counts, JSON "
        "{\"counts\": [...]}) or a refdp model file (--output model). Exit status: 0 ACCEPT, 1 REJECT, 2 bad input. "
        "Placeholders in --cmd: {data} (CSV path), {seed} (integer) or {seeds} (a file of seeds, one output line "
        "per seed), {out} (output file), {schema} (schema JSON); --worker: a seed per line on stdin, an output "
        "line back; --python 'MODULE:FUNCTION [ARG ...]' calls FUNCTION(data, seed, schema, *ARGS) in workers."
    ),
)
