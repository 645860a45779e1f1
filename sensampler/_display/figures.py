"""Hand-built SVG figures: a histogram, an interval on an axis, a noise density,
a released value's 90% band.

Inline SVG (no matplotlib, no network), every label escaped, so that a card
or a report page that holds them is self-contained.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product
from statistics import NormalDist

import numpy as np

from .._lib import printing
from .page import BLUE, GREY, ORANGE, esc

__all__ = [
    "accuracy_svg",
    "histogram_svg",
    "interval_svg",
    "noise_half_width",
    "noise_svg",
    "svg",
]

def svg(width: int, height: int, label: str, body: str) -> str:
    """An ``<svg>`` element of ``width`` by ``height`` pixels around ``body``,
    titled ``label`` (escaped) for screen readers and the tooltip."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}">'
        f"<title>{esc(label)}</title>{body}</svg>"
    )


def _text(
    x: float,
    y: float,
    text: str,
    anchor: str = "middle",
    colour: str = "#111",
    rotate: bool = False,
):
    turn = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if rotate else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="10" text-anchor="{anchor}" '
        f'fill="{esc(colour)}" font-family="sans-serif"{turn}>{esc(text)}</text>'
    )


def _line(x1, y1, x2, y2, colour, width=1.5, dash=""):
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{esc(colour)}" stroke-width="{width}"{dashed}/>'
    )


#: Width of one character of a 10 px sans-serif label, rounded up (DejaVu Sans's
#: widest digits and capitals are 0.64 em): labels are placed by this estimate.
CHAR_WIDTH = 6.5
#: Height of one row of labels above a figure's plot, in pixels.
ROW = 11


@dataclass(frozen=True)
class _Label:
    """A mark's name in a row above the plot (row 0 nearest the plot): its line
    runs from under its name down to the axis, through the rows below."""

    x: float
    row: int
    start: float
    end: float
    anchor: str
    name: str
    colour: str


def _apart(a: _Label, b: _Label) -> bool:
    """Whether labels ``a`` and ``b`` do not touch, and neither's line crosses
    the other's name."""
    if a.row == b.row:
        return a.end + 4 <= b.start or b.end + 4 <= a.start
    high, low = (a, b) if a.row > b.row else (b, a)
    return not low.start - 2 <= high.x <= low.end + 2


def _labels(marks, x_of, choice) -> list[_Label]:
    """The labels of ``marks`` at (row, anchor) ``choice``."""
    labels = []
    for (value, name, colour), (row, anchor) in zip(marks, choice):
        x, size = x_of(value), CHAR_WIDTH * len(name)
        start = x + 3 if anchor == "start" else x - 3 - size
        labels.append(_Label(x, row, start, start + size, anchor, name, colour))
    return labels


def _place_labels(
    marks: Sequence[tuple[float, str, str]], x_of, width: int
) -> list[_Label]:
    """The finite marks' names, placed in the fewest rows (then with the most
    names after their line) so that every name stays inside the figure and none
    touches another name or is crossed by another mark's line; with more than
    four marks, or when no placement exists, one row each."""
    marks = [m for m in marks if math.isfinite(m[0])]
    spots = list(product(range(len(marks)), ("start", "end")))
    choices = product(spots, repeat=len(marks)) if len(marks) <= 4 else ()
    best = min(
        (
            labels
            for labels in (_labels(marks, x_of, c) for c in choices)
            if all(1 <= label.start and label.end <= width - 1 for label in labels)
            and all(_apart(a, b) for a, b in combinations(labels, 2))
        ),
        key=lambda labels: (
            _label_rows(labels),
            sum(label.anchor == "end" for label in labels),
        ),
        default=None,
    )
    if best is not None:
        return best
    return _labels(
        marks,
        x_of,
        [
            (
                len(marks) - 1 - i,
                "start" if x_of(v) + 3 + CHAR_WIDTH * len(n) <= width else "end",
            )
            for i, (v, n, _) in enumerate(marks)
        ],
    )


def _label_rows(placed: Sequence[_Label]) -> int:
    """How many rows of labels ``placed`` take (at least one)."""
    return 1 + max((label.row for label in placed), default=0)


def _marks_svg(placed: Sequence[_Label], bottom: float) -> list[str]:
    """Each placed mark: its name in its row and its line from there to ``bottom``."""
    rows = _label_rows(placed)
    body = []
    for label in placed:
        baseline = 10 + ROW * (rows - 1 - label.row)
        body.append(_line(label.x, baseline + 3, label.x, bottom, label.colour, 2))
        x = label.start if label.anchor == "start" else label.end
        body.append(_text(x, baseline, label.name, label.anchor, label.colour))
    return body


def histogram_svg(
    samples,
    marks: Sequence[tuple[float, str, str]] = (),
    *,
    label: str,
    axis: str = "",
    counts: str = "",
    width: int = 380,
    plot_height: int = 90,
) -> str:
    """A histogram of ``samples`` with vertical ``marks`` (value, name, colour).

    Parameters
    ----------
    samples : array-like of float
        The values (finite ones are drawn).
    marks : sequence of (float, str, str)
        Values to mark with a line and a name; the names are placed in rows above
        the bars so that none crosses another name or line, nor leaves the figure.
    label : str
        What the figure shows, for screen readers and the tooltip.
    axis : str, optional
        The horizontal axis's title, written under the axis.
    counts : str, optional
        The vertical axis's title (what a bar's height counts), written along it.
    width : int
        Width in pixels (380 by default).
    plot_height : int
        Height of the bars' area in pixels (90 by default); the figure is taller
        by its rows of names above and its axis below.

    Returns
    -------
    str
        An ``<svg>`` element: the bars, the marks, the ends of the axis and the
        axes' titles.
    """
    values = np.asarray(samples, dtype=float).ravel()
    values = values[np.isfinite(values)]
    left, right = (18 if counts else 10), 10
    plot_w = width - left - right
    points = [float(v) for v, _, _ in marks if math.isfinite(v)]
    low = min([*values.tolist(), *points], default=0.0)
    high = max([*values.tolist(), *points], default=1.0)
    if high <= low:
        low, high = low - 0.5, high + 0.5
    bins = int(min(30, max(5, math.sqrt(max(values.size, 1)))))
    counts_, edges = np.histogram(values, bins=bins, range=(low, high))
    tallest = max(int(counts_.max(initial=0)), 1)

    def x_of(v):
        return left + plot_w * (v - low) / (high - low)

    placed = _place_labels(marks, x_of, width)
    top = 6 + ROW * _label_rows(placed)
    axis_y = top + plot_height
    height = axis_y + (29 if axis else 17)  # room for descenders and underscores
    body = [_line(left, axis_y, left + plot_w, axis_y, GREY, 1)]
    for count, a, b in zip(counts_, edges[:-1], edges[1:]):
        h = plot_height * count / tallest
        body.append(
            f'<rect x="{x_of(a):.1f}" y="{axis_y - h:.1f}" '
            f'width="{max(x_of(b) - x_of(a) - 1, 0.5):.1f}" height="{h:.1f}" '
            f'fill="{GREY}" fill-opacity="0.6"/>'
        )
    body.append(_text(left, axis_y + 12, f"{low:.4g}", "start"))
    body.append(_text(left + plot_w, axis_y + 12, f"{high:.4g}", "end"))
    if axis:
        body.append(_text(left + plot_w / 2, axis_y + 24, axis, "middle"))
    if counts:
        body.append(_text(11, top + plot_height / 2, counts, "middle", rotate=True))
    body.extend(_marks_svg(placed, axis_y))
    return svg(width, height, label, "".join(body))


def interval_svg(
    lower: float,
    upper: float,
    marks: Sequence[tuple[float, str, str]],
    *,
    label: str,
    point: float | None = None,
    axis: str = "",
    width: int = 380,
) -> str:
    """An interval ``[lower, upper]`` on an axis from 0, with marked values.

    Parameters
    ----------
    lower, upper : float
        The interval.
    marks : sequence of (float, str, str)
        Values to mark (value, name, colour); the names are placed in rows above
        the axis so that none crosses another name or line, nor leaves the figure.
    label : str
        What the figure shows.
    point : float, optional
        A point estimate inside the interval.
    axis : str, optional
        The axis's title, written under it.
    width : int
        Width in pixels (380 by default); the height follows from the rows of
        names and the axis's title.

    Returns
    -------
    str
        An ``<svg>`` element: the axis from 0, the interval, its point, the marks.
    """
    left, right = 10, 10
    finite = [v for v in (lower, upper, *(m[0] for m in marks)) if math.isfinite(v)]
    high = max(finite, default=1.0) * 1.15 or 1.0
    plot_w = width - left - right

    def x_of(v):
        return left + plot_w * min(max(v, 0.0), high) / high

    placed = _place_labels(marks, x_of, width)
    axis_y = 6 + ROW * _label_rows(placed) + 18
    height = axis_y + (29 if axis else 17)  # room for descenders and underscores
    body = [
        _line(left, axis_y, left + plot_w, axis_y, GREY, 1),
        _text(left, axis_y + 12, "0", "start"),
        _text(left + plot_w, axis_y + 12, f"{high:.3g}", "end"),
        f'<rect x="{x_of(lower):.1f}" y="{axis_y - 14}" '
        f'width="{max(x_of(upper) - x_of(lower), 1.0):.1f}" height="10" '
        f'fill="{BLUE}" fill-opacity="0.5"/>',
    ]
    if axis:
        body.append(_text(left + plot_w / 2, axis_y + 24, axis, "middle"))
    if point is not None and math.isfinite(point):
        body.append(
            f'<circle cx="{x_of(point):.1f}" cy="{axis_y - 9}" r="3" fill="{BLUE}"/>'
        )
    body.extend(_marks_svg(placed, axis_y))
    return svg(width, height, label, "".join(body))


def noise_svg(
    centre: float,
    scale: float,
    kind: str,
    *,
    label: str,
    unit: str | None = None,
    width: int = 380,
    height: int = 110,
) -> str:
    """The density of the noise around a released value, with its 90% interval.

    The density is scaled so that its peak fills the figure's height, on an axis
    centred on the released value and twice the interval's half-width each side.

    Parameters
    ----------
    centre : float
        The released value (public).
    scale : float
        Laplace scale ``b`` or Gaussian ``sigma``.
    kind : {"laplace", "gaussian"}
        The noise's law.
    label : str
        What the figure shows.
    unit : str, optional
        The data's unit, printed after the half-width.
    width, height : int
        Size in pixels (380 by 110 by default).

    Returns
    -------
    str
        An ``<svg>`` element: the density, its 90% band and the released value.
    """
    half = noise_half_width(scale, kind, 0.9)
    span = max(2.0 * half, 1e-300)
    t = np.linspace(-span, span, 121)
    if kind == "gaussian":
        density = np.exp(-0.5 * (t / scale) ** 2) if scale > 0 else (t == 0) * 1.0
    else:
        density = np.exp(-np.abs(t) / scale) if scale > 0 else (t == 0) * 1.0
    return accuracy_svg(
        centre, half, label=label, unit=unit, density=(t, density), width=width,
        height=height,
    )


def accuracy_svg(
    centre: float,
    half: float,
    *,
    label: str,
    unit: str | None = None,
    density: tuple[np.ndarray, np.ndarray] | None = None,
    width: int = 380,
    height: int = 110,
) -> str:
    """A released value and the band that holds its error with probability 90%.

    On an axis centred on the released value and twice the half-width each
    side: the band ``centre ± half`` labelled "90%: ±half" (the error rounded
    up, the ends to its precision: :mod:`sensampler._lib.printing`), and the
    noise's density where one is given (:func:`noise_svg`).

    Parameters
    ----------
    centre : float
        The released value (public).
    half : float
        The 90% half-width, in the data's units.
    label : str
        What the figure shows.
    unit : str, optional
        The data's unit, printed after the half-width.
    density : (offsets, heights), optional
        The noise's density at offsets from the centre, peak 1.
    width, height : int
        Size in pixels (380 by 110 by default).

    Returns
    -------
    str
        An ``<svg>`` element.
    """
    left, right, top, bottom = 10, 10, 16, 18
    plot_w, plot_h = width - left - right, height - top - bottom
    span = max(2.0 * half, 1e-300)

    def x_of(v):
        return left + plot_w * (v + span) / (2 * span)

    body = [_line(left, top + plot_h, left + plot_w, top + plot_h, GREY, 1)]
    if density is not None:
        path = " ".join(
            f"{'M' if i == 0 else 'L'}{x_of(v):.1f},{top + plot_h * (1 - d):.1f}"
            for i, (v, d) in enumerate(zip(*density))
        )
        body.append(f'<path d="{path}" fill="none" stroke="{BLUE}" stroke-width="1.5"/>')
    body += [
        f'<rect x="{x_of(-half):.1f}" y="{top}" width="{x_of(half) - x_of(-half):.1f}" '
        f'height="{plot_h}" fill="{BLUE}" fill-opacity="0.12"/>',
        _line(x_of(0), top - 4, x_of(0), top + plot_h, ORANGE, 2),
        _text(x_of(0) + 3, 10, "released value", "start", ORANGE),
        _text(left, height - 4, printing.value(centre - span, half), "start"),
        _text(left + plot_w, height - 4, printing.value(centre + span, half), "end"),
        _text(
            x_of(0), height - 4,
            f"90%: ±{printing.with_unit(printing.error(half), unit)}", "middle", BLUE,
        ),
    ]
    return svg(width, height, label, "".join(body))


def noise_half_width(scale: float, kind: str, level: float) -> float:
    """Half-width of the central ``level`` interval of the noise.

    Laplace: :math:`P[|Z| > t] = e^{-t/b}`, so :math:`t = -b \\log(1 - level)`;
    Gaussian: :math:`t = \\sigma \\, \\Phi^{-1}((1 + level) / 2)`.
    """
    if kind == "gaussian":
        return scale * NormalDist().inv_cdf((1.0 + level) / 2.0)
    return -scale * math.log1p(-level)
