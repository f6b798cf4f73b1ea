"""Line charts for pages, drawn as inline SVG by one template macro (``chart.svg``).

This module works out a chart's figures (where each point, band, tick and label goes,
in the SVG's own units) and ``templates/chart.svg`` draws them; the tournament's
report (ratings against matches played) and an arena entrant's page (a version's
rating and its interval against time) both chart through it, so there is one chart
drawer. Pure: numbers in, numbers and labels out; it escapes nothing (the template
environment does) and reads no clock (a time axis is the caller's ``x_tick``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)
"""Each series' colour, in turn."""


@dataclass(frozen=True)
class Series:
    """One line of a chart: its points (x, y), its label at the chart's right, and,
    when it has one, its band: the (low, high) at each point's x (an interval)."""

    label: str
    points: Sequence[tuple[float, float]]
    band: Sequence[tuple[float, float]] = ()


@dataclass(frozen=True)
class Frame:
    """A chart's size (the SVG's own units), its margins, what its axes say, and how
    it is drawn: ``fluid`` fills its container's width (its text scales with it),
    ``dots`` marks each point."""

    width: int = 820
    height: int = 380
    margins: tuple[int, int, int, int] = (50, 150, 15, 35)
    """Left, right, top, bottom."""
    title: str = "chart"
    x_label: str = ""
    y_label: str = ""
    x_ticks: int = 0
    """Labelled ticks along the x axis (0: none)."""
    x_tick: Callable[[float], str] = field(default=lambda x: f"{x:g}")
    font: int = 12
    fluid: bool = False
    dots: bool = False


def _range(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    return (low, high) if high > low else (low - 1.0, high + 1.0)


def line_chart(series: Sequence[Series], frame: Frame) -> dict[str, Any] | None:
    """The figures ``chart.svg`` draws (None: fewer than two points in all)."""
    if sum(len(s.points) for s in series) < 2:
        return None
    left, right, top, bottom = frame.margins
    x_low, x_high = _range([x for s in series for x, _ in s.points])
    ys = [y for s in series for _, y in s.points] + [v for s in series for b in s.band for v in b]
    y_low, y_high = _range(ys)
    inner_w, inner_h = frame.width - left - right, frame.height - top - bottom

    def px(x: float) -> float:
        return left + inner_w * (x - x_low) / (x_high - x_low)

    def py(y: float) -> float:
        return top + inner_h * (1 - (y - y_low) / (y_high - y_low))

    span = y_high - y_low
    at = [y_low + span * i / 4 for i in range(5)]
    ticks = [(f"{py(y) + 4:.1f}", str(round(y))) for y in at]  # never "-0"
    step = (x_high - x_low) / max(1, frame.x_ticks - 1)
    along = [x_low + step * i for i in range(frame.x_ticks)]
    x_ticks = [(f"{px(x):.1f}", frame.x_tick(x)) for x in along]
    lines = [_line(k, s, px, py, top + (frame.font + 4) * (k + 1)) for k, s in enumerate(series)]
    return {
        "width": frame.width,
        "height": frame.height,
        "left": left,
        "top": top,
        "base": frame.height - bottom,
        "end": frame.width - right,
        "middle": (frame.width - right + left) / 2,
        "title": frame.title,
        "x_label": frame.x_label,
        "y_label": frame.y_label,
        "font": frame.font,
        "fluid": frame.fluid,
        "dots": frame.dots,
        "ticks": ticks,
        "x_ticks": x_ticks,
        "lines": lines,
    }


def _line(
    k: int, s: Series, px: Callable[[float], float], py: Callable[[float], float], y: float
) -> dict[str, Any]:
    """One series' figures: its polyline, its dots, its band as a polygon (the highs
    left to right, the lows back), and where its label goes."""
    at = [(px(x), py(v)) for x, v in s.points]
    band = ""
    if s.band:
        xs = [px(x) for x, _ in s.points]
        upper = [f"{x:.1f},{py(high):.1f}" for x, (_, high) in zip(xs, s.band, strict=True)]
        lower = [f"{x:.1f},{py(low):.1f}" for x, (low, _) in zip(xs, s.band, strict=True)]
        band = " ".join(upper + lower[::-1])
    return {
        "colour": COLOURS[k % len(COLOURS)],
        "points": " ".join(f"{x:.1f},{v:.1f}" for x, v in at),
        "dots": [(f"{x:.1f}", f"{v:.1f}") for x, v in at],
        "band": band,
        "y": y,
        "label": s.label,
    }
