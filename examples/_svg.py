"""A tiny standard-library SVG line-plot writer for the accuracy-privacy curves.

Used when matplotlib is not installed (it usually is not: refdp needs nothing
outside the standard library).  One function, :func:`line_plot`: a log or
linear x axis, a linear y axis, one polyline with markers per series, dashed
series for reference values (a paper's numbers, a non-private baseline) and a
legend.  The output is plain, deterministic SVG text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence, Tuple
from xml.sax.saxutils import escape

__all__ = ["Series", "line_plot", "render"]

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")
WIDTH, HEIGHT = 720, 440
LEFT, RIGHT, TOP, BOTTOM = 64, 230, 40, 56


@dataclass(frozen=True)
class Series:
    """One curve: ``points`` are (x, y) pairs; ``dashed`` marks reference values."""

    label: str
    points: Tuple[Tuple[float, float], ...]
    dashed: bool = False


def _ticks(low: float, high: float, count: int = 5) -> List[float]:
    if high <= low:
        return [low]
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = min((m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw), default=raw)
    start = math.ceil(low / step) * step
    out = []
    value = start
    while value <= high + 1e-12:
        out.append(round(value, 10))
        value += step
    return out


def render(title: str, series: Sequence[Series], x_label: str, y_label: str, log_x: bool = True) -> str:
    """The SVG document as a string."""
    points = [p for s in series for p in s.points]
    if not points:
        raise ValueError("nothing to plot: every series is empty")
    xs = [math.log10(x) if log_x else x for x, _ in points]
    ys = [y for _, y in points]
    x_low, x_high = min(xs), max(xs)
    if x_high == x_low:
        x_low, x_high = x_low - 0.5, x_high + 0.5
    y_low = math.floor(min(ys) * 20) / 20
    y_high = math.ceil(max(ys) * 20) / 20
    if y_high == y_low:
        y_high = y_low + 0.05
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        v = math.log10(x) if log_x else x
        return LEFT + (v - x_low) / (x_high - x_low) * plot_w

    def py(y: float) -> float:
        return TOP + (1 - (y - y_low) / (y_high - y_low)) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT + plot_w / 2:.1f}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>',
    ]
    x_values = sorted({x for x, _ in points})
    for x in x_values:
        out.append(f'<line x1="{px(x):.1f}" y1="{TOP + plot_h}" x2="{px(x):.1f}" y2="{TOP + plot_h + 5}" stroke="black"/>')
        out.append(f'<text x="{px(x):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">{x:g}</text>')
    for y in _ticks(y_low, y_high):
        out.append(f'<line x1="{LEFT - 5}" y1="{py(y):.1f}" x2="{LEFT + plot_w}" y2="{py(y):.1f}" stroke="#dddddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
    out.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 14}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(
        f'<text x="16" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + plot_h / 2:.1f})">{escape(y_label)}</text>'
    )
    for i, s in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(s.points))
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for x, y in s.points:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        ly = TOP + 10 + 18 * i
        lx = LEFT + plot_w + 12
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 22}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{lx + 28}" y="{ly + 4}">{escape(s.label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def line_plot(
    path: Path, title: str, series: Sequence[Series], x_label: str, y_label: str, log_x: bool = True
) -> Path:
    """Write :func:`render`'s SVG to ``path`` and return it."""
    path.write_text(render(title, series, x_label, y_label, log_x), encoding="utf-8")
    return path
