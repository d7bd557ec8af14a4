"""Saves per day, stacked by outcome: a pure layout for a server-rendered SVG."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from memory.vocab import Outcome

WIDTH = 720
HEIGHT = 160
LEFT = 28  # room for the y labels
BOTTOM = 18  # room for the x labels
TOP = 8  # room for the top y label
OUTCOMES = tuple(Outcome.values)
LABELS = {value: str(label)[:1].upper() + str(label)[1:] for value, label in Outcome.choices}


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    outcome: str
    title: str


@dataclass(frozen=True)
class Tick:
    x: float
    y: float
    text: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    rects: tuple[Rect, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    legend: tuple[tuple[str, str, int], ...]  # (outcome, label, total)
    total: int
    start: date
    end: date


def _nice_max(value: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if value <= step * 4:
            return step * 4
    return ((value // 1000) + 1) * 1000


def stacked_chart(per_day: dict[date, dict[str, int]], start: date, end: date) -> Chart:
    """Bars for each day from ``start`` to ``end``, each stacked in the order of ``Outcome``."""
    days = [start + timedelta(days=i) for i in range((end - start).days + 1)]
    top = _nice_max(max((sum(per_day.get(d, {}).values()) for d in days), default=0) or 1)
    plot_w, plot_h = WIDTH - LEFT, HEIGHT - BOTTOM - TOP
    slot = plot_w / len(days)
    bar_w = max(1.0, slot * 0.72)
    rects: list[Rect] = []
    for i, day in enumerate(days):
        y = float(TOP + plot_h)
        for outcome in OUTCOMES:
            n = per_day.get(day, {}).get(outcome, 0)
            if not n:
                continue
            h = plot_h * n / top
            y -= h
            title = f"{day:%d %b}: {n} {LABELS[outcome]}"
            rects.append(
                Rect(
                    round(LEFT + i * slot + (slot - bar_w) / 2, 2),
                    round(y, 2),
                    round(bar_w, 2),
                    round(h, 2),
                    outcome,
                    title,
                )
            )
    every = max(1, len(days) // 6)
    x_ticks = tuple(
        Tick(round(LEFT + i * slot + slot / 2, 2), HEIGHT - 4, f"{day:%d %b}")
        for i, day in enumerate(days)
        if i % every == 0
    )
    y_ticks = tuple(
        Tick(LEFT - 4, round(TOP + plot_h - plot_h * v / top, 2), str(v))
        for v in (0, top // 2, top)
    )
    totals = {
        o: sum(c.get(o, 0) for d, c in per_day.items() if start <= d <= end) for o in OUTCOMES
    }
    legend = tuple((o, LABELS[o], totals[o]) for o in OUTCOMES if totals[o])
    return Chart(
        WIDTH, HEIGHT, tuple(rects), x_ticks, y_ticks, legend, sum(totals.values()), start, end
    )
