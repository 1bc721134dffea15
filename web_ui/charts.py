"""Charts drawn as SVG on the server: the scores through a game (by round, encounter or turn), one line per
player, for every game alike. No script and nothing downloaded: the result page holds the SVG inline, the
table pages show it as an image (``/t/<id>/result/chart.svg``), and the same file is the picture to share.

The drawing reads an engine's ``result()["charts"]`` entry (``at``, ``scores``) and nothing else. Lines
differ in dash and marker as well as colour, so they stay apart on a black-and-white print or for a
reader who does not tell red from green; each line ends in its player's name and last value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

#: The players' colours when the table chose none: the phones' palette (``static/games/shared.js``).
PALETTE = ("#dc2626", "#1f2937", "#2563eb", "#ca8a04", "#16a34a", "#9333ea", "#ea580c", "#0891b2")
#: One dash pattern per seat (solid, dashes, dots, dash-dot…), so lines differ without colour too.
DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 2", "12 4", "1 2", "6 2 1 2")
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans CJK SC', 'PingFang SC', sans-serif"
#: The drawing's width in its own units: the chart's panel is 288-358 px wide on a 320-390 px phone, so a
#: unit shows as 0.9-1.1 px and the 12-13 unit labels read at 11-14 px (at 360 units they read at 9 px on
#: a 320 px phone: too small at a glance).
WIDTH = 320
HEIGHT = 220
#: End labels are kept at least this far apart (units) so two close totals stay readable.
LABEL_GAP = 15
#: Space on the right for the end labels ("Ann 53"); names longer than this many characters are cut.
RIGHT = 86
NAME_CHARS = 9
#: How far apart (units) the lines of players on equal values are drawn, seat by seat.
SPREAD = 1.6


@dataclass(frozen=True)
class ChartText:
    """The words a chart shows, in the reader's language (the web layer translates them)."""

    title: str                 # "Totals by round"
    x_labels: Sequence[str]    # one per point of ``at``: "start", "R1", …
    summary: str               # the whole chart in one sentence, for a screen reader


def player_colours(names: Sequence[str], chosen: Mapping[str, str] | None = None) -> dict[str, str]:
    chosen = chosen or {}
    return {name: chosen.get(name) or PALETTE[seat % len(PALETTE)] for seat, name in enumerate(names)}


def _ticks(low: int, high: int, count: int = 4) -> list[int]:
    """Round numbers from ``low`` to ``high`` (about ``count`` steps): 0, 25, 50 …"""
    span = max(high - low, 1)
    raw = span / count
    step = 1
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        step = candidate
        if candidate >= raw:
            break
    first = (low // step) * step
    return list(range(first, high + step, step))


def _label_every(points: int, room: float) -> int:
    """Label every n-th point so the x labels (about 30 units each) do not touch."""
    return max(1, -(-30 * points // max(int(room), 1)))


def line_chart(at: Sequence[int], scores: Mapping[str, Sequence[int]], colours: Mapping[str, str], text: ChartText,
               *, chart_id: str = "chart", standalone: bool = False, group_at: float | None = None) -> str:
    """The chart as SVG: a standalone document (with its XML namespace and a white background), or the
    ``<svg>`` element to put in a page (``standalone=False``), or, with ``group_at``, a group placed that
    far down inside a larger drawing (the shared picture)."""
    names = list(scores)
    values = [v for series in scores.values() for v in series] or [0]
    low, high = min(0, *values), max(4, *values)
    ticks = _ticks(low, high)
    low, high = ticks[0], ticks[-1]
    left, top, bottom = 34, 30, 28
    right = WIDTH - RIGHT
    plot_h = HEIGHT - top - bottom
    steps = max(len(at) - 1, 1)

    def px(i: int) -> float:
        return left + (right - left) * i / steps

    def py(v: float) -> float:
        return top + plot_h - (v - low) * plot_h / ((high - low) or 1)

    # Lines on the same values would hide one another: each seat's is drawn a little apart (less than a
    # line's width from its value, far less than a tick).
    spread = {name: (seat - (len(names) - 1) / 2) * SPREAD for seat, name in enumerate(names)}

    out: list[str] = []
    out.append(f'<text x="4" y="18" font-size="15" font-weight="700" fill="#111827">{escape(text.title)}</text>')
    for tick in ticks:
        grid = "#6b7280" if tick == 0 else "#e5e7eb"
        out.append(f'<line x1="{left}" y1="{py(tick):.1f}" x2="{right}" y2="{py(tick):.1f}" stroke="{grid}" stroke-width="1"/>')
        out.append(f'<text x="{left - 4}" y="{py(tick) + 4:.1f}" font-size="12" text-anchor="end" fill="#374151">{tick}</text>')
    every = _label_every(len(at), right - left)
    last_index = len(at) - 1
    for i, label in enumerate(text.x_labels):
        # every n-th point, and the last one always, dropping the n-th label just before it if they would touch
        if i == last_index or i % every == 0 and last_index - i >= every * 0.75:
            out.append(f'<text x="{px(i):.1f}" y="{HEIGHT - 10}" font-size="12" text-anchor="middle" fill="#374151">{escape(label)}</text>')
    # End labels sorted by height and pushed apart, as the Kingdoms page always did.
    ends = sorted(((py(series[-1]) if series else py(0), name) for name, series in scores.items()))
    label_y: dict[str, float] = {}
    previous = -1e9
    for at_y, name in ends:
        previous = max(at_y + 4, previous + LABEL_GAP)
        label_y[name] = previous
    marker = max(1.6, min(3.5, 120 / max(len(at), 1)))
    for seat, name in enumerate(names):
        series = list(scores[name])
        colour = colours.get(name, PALETTE[seat % len(PALETTE)])
        dash = DASHES[seat % len(DASHES)]
        shift = spread[name]
        points = " ".join(f"{px(i):.1f},{py(v) + shift:.1f}" for i, v in enumerate(series))
        out.append(f'<g class="series" data-player={quoteattr(name)}>')
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5" stroke-linejoin="round"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        for i, v in enumerate(series):
            out.append(_marker(seat, px(i), py(v) + shift, marker, colour, i, v))
        shown = name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"
        last = series[-1] if series else 0
        out.append(f'<text x="{right + 6}" y="{label_y[name]:.1f}" font-size="13" font-weight="700" fill="{colour}">'
                   f'{escape(shown)} {last}</text>')
        out.append("</g>")
    body = "".join(out)
    title_id = f"{chart_id}-title"
    if group_at is not None:
        return f'<g transform="translate(0 {group_at:.0f})">{body}</g>'
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}"'
            if standalone else f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" class="score-chart"')
    head += f' role="img" aria-labelledby="{title_id}" font-family="{FONT}" id="{chart_id}">'
    background = f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>' if standalone else ""
    return f'{head}<title id="{title_id}">{escape(text.title)}: {escape(text.summary)}</title>{background}{body}</svg>'


def _marker(seat: int, x: float, y: float, r: float, colour: str, index: int, value: int) -> str:
    """A point: a circle, square, diamond or triangle by seat, filled with the player's colour."""
    data = f'class="point" data-at="{index}" data-value="{value}" fill="{colour}"'
    shape = seat % 4
    if shape == 0:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" {data}/>'
    if shape == 1:
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}" {data}/>'
    if shape == 2:
        return f'<path d="M{x:.1f} {y - r * 1.3:.1f}L{x + r * 1.3:.1f} {y:.1f}L{x:.1f} {y + r * 1.3:.1f}L{x - r * 1.3:.1f} {y:.1f}Z" {data}/>'
    return f'<path d="M{x:.1f} {y - r * 1.3:.1f}L{x + r * 1.2:.1f} {y + r:.1f}L{x - r * 1.2:.1f} {y + r:.1f}Z" {data}/>'


Chart = tuple[Sequence[int], Mapping[str, Sequence[int]], Mapping[str, str], ChartText]


def result_picture(heading: str, subheading: str, lines: Sequence[tuple[str, str, str]], charts: Sequence[Chart],
                   footer: str) -> str:
    """The picture to share, one standalone SVG: a heading, the ranking (place, name, score), each chart
    (:func:`line_chart`'s arguments) one under another, a footer."""
    row = 22
    top = 58
    height = top + row * len(lines) + 8 + HEIGHT * len(charts) + 26
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH * 2}" height="{height * 2}" '
           f'font-family="{FONT}" role="img" aria-labelledby="picture-title">',
           f'<title id="picture-title">{escape(heading)}</title>',
           f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
           f'<rect width="{WIDTH}" height="44" fill="#14532d"/>',
           f'<text x="10" y="20" font-size="15" font-weight="700" fill="#ffffff">{escape(heading)}</text>',
           f'<text x="10" y="37" font-size="11" fill="#d1fae5">{escape(subheading)}</text>']
    for index, (place, name, score) in enumerate(lines):
        y = top + row * index + 12
        out.append(f'<text x="10" y="{y}" font-size="13" font-weight="700" fill="#111827">{escape(place)}</text>'
                   f'<text x="44" y="{y}" font-size="13" fill="#111827">{escape(name)}</text>'
                   f'<text x="{WIDTH - 10}" y="{y}" font-size="13" font-weight="700" text-anchor="end" fill="#111827">{escape(score)}</text>')
    y = top + row * len(lines) + 8
    for at, scores, colours, text in charts:
        out.append(line_chart(at, scores, colours, text, group_at=y))
        y += HEIGHT
    out.append(f'<text x="10" y="{height - 10}" font-size="10" fill="#4b5563">{escape(footer)}</text>')
    out.append("</svg>")
    return "".join(out)
