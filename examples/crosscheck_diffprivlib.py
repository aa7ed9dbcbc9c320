"""Cross-check IBM diffprivlib 0.6 against refdp's exact distributions, and write what was found.

diffprivlib is not a dependency of refdp: it is refdp's extra ``crosscheck``.
From a clone, install it in a separate environment and run this script
there (it finds refdp next to it)::

    python3 -m venv .venv-crosscheck
    .venv-crosscheck/bin/pip install -e '.[crosscheck]'
    .venv-crosscheck/bin/python examples/crosscheck_diffprivlib.py

(diffprivlib 0.6.6 imports ``DOUBLE`` from ``sklearn.tree._tree``, which
scikit-learn 1.6 removed, hence the pin.)  ``--quick`` uses smaller samples
(weaker power); ``--out PATH`` says where the Markdown report goes (default
``docs/crosscheck-diffprivlib.md``; with ``--quick``
``examples/out-quick/crosscheck-diffprivlib.md``).

What is checked, each at false-alarm probability 1e-6 with the sample size
refdp computes for power 0.999 against the stated deviation:

* ``Exponential`` (plain, with a ``measure`` and ``monotonic=True``) and
  ``PermuteAndFlip`` against refdp's exponential-mechanism law and the exact
  permute-and-flip law;
* ``Laplace`` against Laplace(sensitivity / epsilon) by Kolmogorov-Smirnov;
* ``Geometric`` against the discrete Laplace law DLap(sensitivity / epsilon);
* the leaf label of ``DecisionTreeClassifier`` (the trees of
  ``RandomForestClassifier``) at a fixed leaf, against permute-and-flip and
  the exponential mechanism, and the exact privacy loss of the labelling
  rule on every pair of neighbouring leaf counts in a grid.
"""

from __future__ import annotations

import argparse
import itertools
import math
import platform
import sys
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, List, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python3 examples/crosscheck_diffprivlib.py` from a clone, no install needed
    sys.path.insert(0, str(ROOT))

from refdp.audit.external import INLINE, ProgramAuditResult, audit_program  # noqa: E402
from refdp.audit.goodness_of_fit import (  # noqa: E402
    GoodnessOfFit,
    crosscheck_discrete_laplace,
    crosscheck_exponential_mechanism,
    crosscheck_finite,
    crosscheck_laplace,
    discrete_laplace_sample_size,
    laplace_sample_size,
    permute_and_flip_probabilities,
    tv_sample_size,
)
from refdp.mechanisms import exponential_probabilities  # noqa: E402

try:
    import diffprivlib
    import numpy as np
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.mechanisms import Exponential, Geometric, Laplace, PermuteAndFlip, Snapping
    from diffprivlib.models import DecisionTreeClassifier
except ImportError as exc:  # pragma: no cover - depends on the environment
    sys.exit(
        f"examples/crosscheck_diffprivlib.py needs diffprivlib 0.6 and scikit-learn < 1.6 ({exc}): install "
        "refdp's extra 'crosscheck', e.g. pip install -e '.[crosscheck]' from the clone (in a virtual "
        "environment), or see the docstring"
    )

SEED = 20261122


@dataclass(frozen=True)
class Row:
    """One check for the report."""

    what: str
    parameters: str
    deviation: str
    result: GoodnessOfFit
    expected_rejection: bool
    seconds: float


def timed(check: Callable[[], GoodnessOfFit]) -> "tuple[GoodnessOfFit, float]":
    started = time.perf_counter()
    result = check()
    return result, time.perf_counter() - started


def exponential_rows(quick: bool) -> List[Row]:
    tv = 0.03 if quick else 0.01
    rows: List[Row] = []
    utilities = [3.0, 1.0, 0.0, 2.0]
    cases: Sequence[Any] = (
        ("Exponential", dict(monotonic=False, measure=None), 1, None),
        ("Exponential, measure [1, 2, 1, 0.5]", dict(monotonic=False, measure=[1.0, 2.0, 1.0, 0.5]), 1,
         [1.0, 2.0, 1.0, 0.5]),
        ("Exponential, monotonic=True", dict(monotonic=True, measure=None), Fraction(1, 2), None),
    )
    for name, kwargs, refdp_sensitivity, weights in cases:
        law = exponential_probabilities(utilities, epsilon=1, sensitivity=refdp_sensitivity, base_weights=weights)
        n = tv_sample_size(law, tv)
        mech = Exponential(epsilon=1.0, sensitivity=1.0, utility=list(utilities), random_state=SEED, **kwargs)
        result, seconds = timed(lambda: crosscheck_exponential_mechanism(
            [int(mech.randomise()) for _ in range(n)], utilities, epsilon=1, sensitivity=refdp_sensitivity,
            base_weights=weights))
        note = "refdp sensitivity 1/2 (diffprivlib's exp(eps u / Delta))" if refdp_sensitivity != 1 else "refdp sensitivity 1"
        rows.append(Row(name, f"u={utilities}, eps=1, Delta=1; {note}", f"TV {tv}", result, False, seconds))
    for monotonic in (False, True):
        sensitivity = Fraction(1, 2) if monotonic else 1
        law = permute_and_flip_probabilities(utilities, epsilon=1, sensitivity=sensitivity)
        n = tv_sample_size(law, tv)
        mech = PermuteAndFlip(epsilon=1.0, sensitivity=1.0, utility=list(utilities), monotonic=monotonic,
                              random_state=SEED + 1)
        started = time.perf_counter()
        samples = [int(mech.randomise()) for _ in range(n)]
        sampling = time.perf_counter() - started
        result, seconds = timed(lambda: crosscheck_finite(samples, law, kind="permute-and-flip"))
        rows.append(Row(f"PermuteAndFlip, monotonic={monotonic}", f"u={utilities}, eps=1, Delta=1",
                        f"TV {tv}", result, False, sampling + seconds))
        if not monotonic:
            em = exponential_probabilities(utilities, epsilon=1, sensitivity=1)
            result, seconds = timed(lambda: crosscheck_finite(samples, em, kind="exponential mechanism"))
            rows.append(Row("PermuteAndFlip tested as an exponential mechanism", f"u={utilities}, eps=1, Delta=1",
                            f"TV {tv}", result, True, seconds))
    return rows


def laplace_rows(quick: bool) -> List[Row]:
    error = 0.1 if quick else 0.05
    rows = []
    for i, (epsilon, sensitivity, value) in enumerate(((1.0, 1.0, 0.0), (0.5, 2.0, 10.0))):
        n = laplace_sample_size(error)
        mech = Laplace(epsilon=epsilon, sensitivity=sensitivity, random_state=SEED + 10 + i)
        scale = sensitivity / epsilon
        result, seconds = timed(lambda: crosscheck_laplace(
            [float(mech.randomise(value)) for _ in range(n)], scale=scale, location=value))
        rows.append(Row("Laplace", f"eps={epsilon}, Delta={sensitivity}, value={value}; scale {scale}",
                        f"scale x{1 + error}", result, False, seconds))
    return rows


def geometric_rows(quick: bool) -> List[Row]:
    error = 0.1 if quick else 0.05
    rows = []
    for i, (epsilon, sensitivity, value) in enumerate(((1.0, 1, 0), (0.5, 2, 7))):
        scale = Fraction(sensitivity) / Fraction(epsilon)
        n = discrete_laplace_sample_size(scale, error)
        mech = Geometric(epsilon=epsilon, sensitivity=sensitivity, random_state=SEED + 20 + i)
        result, seconds = timed(lambda: crosscheck_discrete_laplace(
            [int(mech.randomise(value)) for _ in range(n)], scale=scale, location=value))
        rows.append(Row("Geometric", f"eps={epsilon}, Delta={sensitivity}, value={value}; DLap({scale})",
                        f"scale x{1 + error}", result, False, seconds))
    return rows


def leaf_label(counts: Sequence[int], epsilon: float, seed: int) -> int:
    """The label diffprivlib's tree gives the leaf holding every record (all records at x = 0)."""
    y = np.array([c for c, k in enumerate(counts) for _ in range(k)])
    x = np.zeros((len(y), 1))
    tree = DecisionTreeClassifier(max_depth=1, epsilon=epsilon, bounds=(-1.0, 1.0), classes=list(range(len(counts))),
                                  random_state=seed, accountant=BudgetAccountant())
    tree.fit(x, y)
    return int(tree.predict(np.zeros((1, 1)))[0])


def leaf_rows(quick: bool) -> List[Row]:
    tv = 0.1 if quick else 0.03
    counts = [5, 3, 1]
    utilities = [float(c) for c in counts]
    law = permute_and_flip_probabilities(utilities, epsilon=1, sensitivity=Fraction(1, 2))
    n = tv_sample_size(law, tv)
    started = time.perf_counter()
    samples = [leaf_label(counts, 1.0, SEED + i) for i in range(n)]
    sampling = time.perf_counter() - started
    rows = []
    result, seconds = timed(lambda: crosscheck_finite(samples, law, kind="forest leaf label as permute-and-flip"))
    rows.append(Row("DecisionTreeClassifier leaf label", f"leaf counts {counts}, eps=1; P&F with exp(eps u / Delta)",
                    f"TV {tv}", result, False, seconds + sampling))
    em = exponential_probabilities(utilities, epsilon=1, sensitivity=1)
    result, seconds = timed(lambda: crosscheck_finite(samples, em, kind="forest leaf label as exponential mechanism"))
    rows.append(Row("DecisionTreeClassifier leaf label, as exp. mechanism", f"leaf counts {counts}, eps=1, Delta=1",
                    f"TV {tv}", result, True, seconds))
    return rows


def labelling_privacy(k: int, top: int, epsilon: float, substitute: bool) -> "tuple[float, Any]":
    """max |ln P_c(r) - ln P_c'(r)| of the labelling rule over neighbouring counts c, c' in [0, top]^k."""
    worst: "tuple[float, Any]" = (0.0, None)
    for c in itertools.product(range(top + 1), repeat=k):
        p = permute_and_flip_probabilities([float(x) for x in c], epsilon=epsilon, sensitivity=Fraction(1, 2))
        moves = (
            [(i, j) for i in range(k) for j in range(k) if i != j and c[i] > 0] if substitute
            else [(None, j) for j in range(k)]
        )
        for i, j in moves:
            d = list(c)
            d[j] += 1
            if i is not None:
                d[i] -= 1
            q = permute_and_flip_probabilities([float(x) for x in d], epsilon=epsilon, sensitivity=Fraction(1, 2))
            loss = max(abs(math.log(a) - math.log(b)) for a, b in zip(p, q))
            if loss > worst[0]:
                worst = (loss, (c, tuple(d)))
    return worst


def seeded(seed: int) -> "np.random.RandomState":
    """A NumPy generator from a 63-bit audit seed, hashed (not truncated) by SeedSequence."""
    return np.random.RandomState(np.random.MT19937(np.random.SeedSequence(seed)))


@dataclass(frozen=True)
class FloatLaplaceRelease:
    """One release ``diffprivlib Laplace(epsilon=1, sensitivity=1).randomise(value)``; the "data" is the value."""

    def __call__(self, value: float, seed: int) -> float:
        return float(Laplace(epsilon=1.0, sensitivity=1.0, random_state=seeded(seed)).randomise(value))


@dataclass(frozen=True)
class SnappingRelease:
    """The same query through diffprivlib's Snapping mechanism (values clamped to [-10, 10])."""

    def __call__(self, value: float, seed: int) -> float:
        mech = Snapping(epsilon=1.0, sensitivity=1.0, lower=-10.0, upper=10.0, random_state=seeded(seed))
        return float(mech.randomise(value))


def off_grid_near_zero(y: float) -> bool:
    """Whether |y| < 1/4 and y is not a multiple of 2**-53.

    From the value 1, an output y with |y| < 1/4 is fl(1 - t) with t in
    (3/4, 5/4): the subtraction is exact (Sterbenz), and t, a float in that
    range, is a multiple of 2**-53, so y is too.  From the value 0 the output
    is -t itself, any float.  So this event, fixed before any run, has
    probability exactly 0 on the value 1 and not on the value 0.
    """
    return abs(y) < 0.25 and (y * 2.0**53) != math.floor(y * 2.0**53)


def float_audits(quick: bool) -> List[str]:
    trials = 1000 if quick else 5000
    lines = []
    for name, program in (("Laplace", FloatLaplaceRelease()), ("Snapping (control)", SnappingRelease())):
        result: ProgramAuditResult = audit_program(
            program, 0.0, 1.0, epsilon=1, trials=trials, seed=SEED, reduce=off_grid_near_zero,
            threshold_events=False, executor=INLINE)
        a = result.audit
        word = "REFUTED" if a.refuted else "not refuted"
        line = (
            f"- diffprivlib {name}, epsilon=1, sensitivity 1, values 0 and 1, outcome "
            f"`off_grid_near_zero(output)`: {word}: event {a.event}, {a.direction}: k1={a.k1}/{a.n1}, "
            f"k2={a.k2}/{a.n2}; certified lower bound {a.lower_bound:.4f} on epsilon (claimed 1) at confidence "
            f"1-{a.alpha:g}; {result.runs} runs, {a.wall_time:.1f} s"
        )
        print(line, flush=True)
        lines.append(line)
    return lines


def verdict(row: Row) -> str:
    word = "rejected" if row.result.rejected else "fits"
    ok = row.result.rejected == row.expected_rejection
    return f"{word} ({'as expected' if ok else 'UNEXPECTED'})"


def report(rows: List[Row], privacy: List[str], floats: List[str], quick: bool, total: float) -> str:
    import sklearn

    lines = [
        "# Cross-check of diffprivlib against refdp's exact distributions",
        "",
        "Written by `examples/crosscheck_diffprivlib.py`"
        + (" with `--quick`" if quick else "")
        + f" (diffprivlib {diffprivlib.__version__}, scikit-learn {sklearn.__version__}, NumPy {np.__version__}, "
        f"Python {platform.python_version()}; seed {SEED}; {total:.0f} s). Every check runs at false-alarm "
        "probability 1e-6 with the sample size refdp computes for power 0.999 against the deviation shown "
        "(claims `crosscheck-finite-tv`, `crosscheck-laplace-ks`, `crosscheck-discrete-laplace-ks`).",
        "",
        "| check | parameters | power against | n | distance | threshold | verdict | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.what} | {r.parameters} | {r.deviation} | {r.result.n} | {r.result.statistic:.5f} | "
            f"{r.result.threshold:.5f} | {verdict(r)} | {r.seconds:.1f} |"
        )
    lines += ["", "Details:", ""]
    lines += [f"- {r.what}: {r.result.summary()}" for r in rows]
    lines += ["", "## Exact privacy loss of the forest's leaf labelling", ""]
    lines += privacy
    lines += [
        "",
        "## Floating-point Laplace: a black-box audit",
        "",
        "`refdp.audit.external.audit_program` on `Laplace(...).randomise(value)` for the values 0 and 1 "
        "(a count and its add-remove neighbour), reduced by the event `off_grid_near_zero` "
        "(|y| < 1/4 and y not a multiple of 2**-53), chosen from the floating-point analysis before "
        "any run. The Snapping mechanism, run the same way, is a control: it shows only that this "
        "event does not apply to it, not that it is private.",
        "",
    ]
    lines += floats
    lines += ["", FINDINGS]
    return "\n".join(lines) + "\n"


FINDINGS = """## Findings

What diffprivlib 0.6.6 claims, read from its installed source and docstrings,
and what the checks above say about it:

1. **`Exponential`** samples `P[r] ~ measure_r exp(epsilon u_r / ((2 - monotonic) Delta))`
   from one uniform draw against the cumulative probabilities. Its law
   matches refdp's exponential mechanism: with `monotonic=False` for the same
   epsilon and sensitivity, with a `measure` as refdp's `base_weights`, and
   with `monotonic=True` as refdp's mechanism with half the sensitivity (the
   McSherry-Talwar factor-2 saving for utilities that move in one direction
   between neighbours). That saving is sound only under add-remove with
   utilities that every added record can only raise; the caller must know
   that, the mechanism cannot check it.
2. **`PermuteAndFlip`** (McKenna and Sheldon 2020) is a different law from the
   exponential mechanism, as its documentation says: its samples fit the
   exact permute-and-flip law refdp computes and are rejected as exponential
   mechanism samples. It uses the same `(2 - monotonic)` parameterisation.
3. **`Laplace`** draws standard Laplace noise as
   `log(1-U1) cos(pi U2) + log(1-U3) cos(pi U4)` (Holohan and Braghin 2021)
   and scales it by `Delta / (epsilon - ln(1 - delta))`. Its outputs fit the
   Laplace law of that scale as real numbers. The goodness-of-fit check
   cannot see the floating-point issue of every float Laplace sampler
   (Mironov, CCS 2012): which floats `value + noise` can reach depends on
   `value`. The black-box audit above does see it: near 0, outputs from the
   value 1 all lie on the grid of multiples of 2**-53 (exact subtraction
   from 1), while outputs from the value 0 mostly do not, so the release is
   not epsilon-DP for any epsilon in floating point, and refdp's audit
   certifies a lower bound above the claimed epsilon = 1 (a bound that grows
   with the number of runs). diffprivlib documents `Snapping` as the
   mechanism for this; its `Laplace` is private only in idealised real
   arithmetic. (refdp's own float `laplace_noise` fails the same audit --
   certified bound 2.21 with 1000 runs per batch -- which is why refdp's
   claim `laplace-mechanism` has the status needs-idealised-numerics and its
   counts use the exact discrete Laplace by default.) With `delta > 0` the smaller scale `Delta / (epsilon - ln(1 - delta))`
   is conservative: Laplace noise at that scale is (epsilon, delta')-DP with
   `delta' = 1 - sqrt(1 - delta) < delta`.
4. **`Geometric`** adds two-sided geometric noise with ratio
   `exp(-epsilon / Delta)`, which is the discrete Laplace law
   `DLap(Delta / epsilon)`; its samples fit that law. It computes the noise
   with floating-point logarithms of a uniform draw, so its law is the
   discrete Laplace only up to rounding, far below what these sample sizes
   can see.
5. **Forest leaf labelling.** The `RandomForestClassifier` docstring says the
   trees use random splits and "the PermuteAndFlip Mechanism to determine a
   noisy label". The code (`_FittingTree.fit`) labels each non-empty leaf by
   `PermuteAndFlip(epsilon, sensitivity=1, monotonic=True, utility=class counts)`
   and each empty leaf uniformly at random (which is what permute-and-flip
   gives for all-zero counts, so emptiness is not revealed). Its leaf labels
   fit the exact permute-and-flip law with acceptance probabilities
   `exp(epsilon (c_r - c_max))`, and do not fit the exponential mechanism.
   The exact privacy loss above shows the labelling rule is epsilon-DP under
   add-remove (adding a record raises one count, so the monotone
   parameterisation is sound there), but only 2 epsilon-DP under
   substitution, where one count falls and another rises (and a substituted
   record may also move between two leaves). Each tree is trained on its own
   part of a data-independent random partition of the rows, so the forest's
   epsilon composes in parallel over trees: the forest is epsilon-DP under
   add-remove. Its docstrings do not name a neighbouring relation; under
   substitution its guarantee is 2 epsilon, not epsilon.
6. **Leaks the checks do not cover**, all documented by diffprivlib itself:
   bounds and classes read from the data when not given (a
   `PrivacyLeakWarning`); this script always passes them.
"""


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples (less power)")
    parser.add_argument(
        "--out", default=None,
        help="the Markdown report (default: docs/crosscheck-diffprivlib.md, the committed one; with --quick "
        "examples/out-quick/crosscheck-diffprivlib.md, so a quick run never overwrites it)",
    )
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = str(ROOT / ("examples/out-quick" if args.quick else "docs") / "crosscheck-diffprivlib.md")
    warnings.simplefilter("ignore")  # sklearn's notices about the tree internals diffprivlib uses
    started = time.perf_counter()
    rows: List[Row] = []
    for part in (exponential_rows, laplace_rows, geometric_rows, leaf_rows):
        new = part(args.quick)
        for r in new:
            print(f"{r.what}: {verdict(r)}: {r.result.summary()} [{r.seconds:.1f} s]", flush=True)
        rows += new
    privacy = []
    for k, top, relation in ((2, 8, False), (3, 5, False), (4, 3, False), (2, 8, True), (3, 5, True)):
        for epsilon in (0.5, 1.0, 2.0):
            loss, pair = labelling_privacy(k, top, epsilon, relation)
            line = (
                f"- {k} classes, counts 0..{top}, {'substitute' if relation else 'add-remove'}, epsilon={epsilon}: "
                f"largest |ln P(label | c) - ln P(label | c')| = {loss:.6f} ({loss / epsilon:.4f} epsilon) "
                f"at c={pair[0]}, c'={pair[1]}"
            )
            print(line, flush=True)
            privacy.append(line)
    floats = float_audits(args.quick)
    text = report(rows, privacy, floats, args.quick, time.perf_counter() - started)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text, encoding="utf-8")
    unexpected = [r.what for r in rows if r.result.rejected != r.expected_rejection]
    print(f"wrote {args.out}; unexpected verdicts: {unexpected or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
