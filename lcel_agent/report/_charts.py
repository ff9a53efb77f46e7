"""The small bar charts of the reports, placed to the unit: bars, axis labels that fit,
and the batch's histograms with round bins. Pure.

Every chart is drawn in a 600x160 box; the template adds the room its labels need.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CHART_H", "CHART_W", "Chart", "histogram", "nice_step"]

CHART_W, CHART_H = 600.0, 160.0

#: Width of one character of an axis label, in chart units (11-unit digits and letters).
LABEL_CHAR_W = 6.6


@dataclass(frozen=True, slots=True)
class Chart:
    """A small bar chart: ``bars`` are ``(x, y, width, height, css, tooltip)`` in a 600x160 box."""

    title: str
    bars: tuple[tuple[float, float, float, float, str, str], ...]
    lines: tuple[tuple[float, str], ...] = ()  # (y, label) of a horizontal rule
    max_label: str = ""
    legend: tuple[tuple[str, str], ...] = ()  # (css, label)
    x_range: tuple[str, str] = ("", "")  # labels of the x axis' two ends
    x_mid: str = ""  # a label under the middle (one bar for one distinct value)

    @property
    def left(self) -> float:
        """The room left of the y axis, so its longest label is never cut off."""
        return 10.0 + LABEL_CHAR_W * max(len(self.max_label), 1)


def nice_step(raw: float) -> float:
    """The round bin width (1, 2, 2.5 or 5 times a power of ten) at or above ``raw``."""
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= multiple * power * (1 + 1e-9):
            return multiple * power
    return 10.0 * power


def _number(value: float, step: float) -> str:
    """``value`` with as many decimals as a bin of ``step`` needs (0.25: two), thousands separated."""
    decimals = 0
    while decimals < 6 and not math.isclose(step * 10**decimals, round(step * 10**decimals)):
        decimals += 1
    return f"{value:,.{decimals}f}"


def _runs(count: int) -> str:
    return f"{count:,} run" + ("" if count == 1 else "s")


def histogram(
    title: str,
    values: Sequence[float],
    unit: str,
    css: str,
    *,
    bins: int = 12,
    whole: bool = False,
) -> Chart:
    """``values`` counted into about ``bins`` round bins (``whole``: at least 1 wide).

    One distinct value is one bar, said in words ("all 3 runs: 1,014 tokens"), not a
    range from a number to itself.
    """
    if not values:
        return Chart(title, ())
    low, high = min(values), max(values)
    if math.isclose(low, high):
        shown = _number(low, 1.0 if whole or low == int(low) else 0.01)
        tip = f"{_runs(len(values))}, all {shown} {unit}"
        bar = (CHART_W * 0.4, 0.0, CHART_W * 0.2, CHART_H, css, tip)
        return Chart(
            title,
            (bar,),
            max_label=_runs(len(values)),
            legend=((css, f"all {_runs(len(values))}: {shown} {unit}"),),
            x_mid=f"{shown} {unit}",
        )
    step = nice_step((high - low) / bins)
    if whole:
        step = max(1.0, step)
    start = math.floor(low / step) * step
    count = max(1, math.ceil((high - start) / step - 1e-9))
    if start + count * step <= high:
        count += 1  # the maximum falls on the last edge: it gets a bin of its own
    counts = [0] * count
    for value in values:
        counts[min(count - 1, int((value - start) / step + 1e-9))] += 1
    top = max(counts)
    slot = CHART_W / count
    bars = []
    for i, n in enumerate(counts):
        h = n / top * CHART_H
        edge, end = start + i * step, start + (i + 1) * step
        tip = f"{_runs(n)} with {_number(edge, step)}–{_number(end, step)} {unit}"
        bars.append((i * slot + 1, CHART_H - h, slot - 2, h, css, tip))
    return Chart(
        title,
        tuple(bars),
        max_label=_runs(top),
        legend=(
            (
                css,
                f"runs per bin of {_number(step, step)} {unit if step != 1 else unit.removesuffix('s')}",
            ),
        ),
        x_range=(
            f"{_number(start, step)} {unit}",
            f"{_number(start + count * step, step)} {unit}",
        ),
    )
