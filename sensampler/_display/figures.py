"""Hand-built SVG figures: a histogram, an interval on an axis, a noise density,
a released value's 90% band.

Inline SVG (no matplotlib, no network), every label escaped, so that a card
or a report page that holds them is self-contained.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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


def _text(x: float, y: float, text: str, anchor: str = "middle", colour: str = "#111"):
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="10" text-anchor="{anchor}" '
        f'fill="{esc(colour)}" font-family="sans-serif">{esc(text)}</text>'
    )


def _line(x1, y1, x2, y2, colour, width=1.5, dash=""):
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{esc(colour)}" stroke-width="{width}"{dashed}/>'
    )


def histogram_svg(
    samples,
    marks: Sequence[tuple[float, str, str]] = (),
    *,
    label: str,
    axis: str = "",
    width: int = 380,
    height: int = 130,
) -> str:
    """A histogram of ``samples`` with vertical ``marks`` (value, name, colour).

    Parameters
    ----------
    samples : array-like of float
        The values (finite ones are drawn).
    marks : sequence of (float, str, str)
        Values to mark with a line and a name.
    label : str
        What the figure shows, for screen readers and the tooltip.
    axis : str, optional
        The horizontal axis's title, written under its middle.
    width, height : int
        Size in pixels (380 by 130 by default).

    Returns
    -------
    str
        An ``<svg>`` element: the bars, the marks, the ends of the axis and its
        title.
    """
    values = np.asarray(samples, dtype=float).ravel()
    values = values[np.isfinite(values)]
    left, right, top, bottom = 10, 10, 22, 18
    plot_w, plot_h = width - left - right, height - top - bottom
    points = [float(v) for v, _, _ in marks if math.isfinite(v)]
    low = min([*values.tolist(), *points], default=0.0)
    high = max([*values.tolist(), *points], default=1.0)
    if high <= low:
        low, high = low - 0.5, high + 0.5
    bins = int(min(30, max(5, math.sqrt(max(values.size, 1)))))
    counts, edges = np.histogram(values, bins=bins, range=(low, high))
    tallest = max(int(counts.max(initial=0)), 1)

    def x_of(v):
        return left + plot_w * (v - low) / (high - low)

    body = [_line(left, top + plot_h, left + plot_w, top + plot_h, GREY, 1)]
    for count, a, b in zip(counts, edges[:-1], edges[1:]):
        h = plot_h * count / tallest
        body.append(
            f'<rect x="{x_of(a):.1f}" y="{top + plot_h - h:.1f}" '
            f'width="{max(x_of(b) - x_of(a) - 1, 0.5):.1f}" height="{h:.1f}" '
            f'fill="{GREY}" fill-opacity="0.6"/>'
        )
    body.append(_text(left, height - 4, f"{low:.4g}", "start"))
    body.append(_text(left + plot_w, height - 4, f"{high:.4g}", "end"))
    if axis:
        body.append(_text(left + plot_w / 2, height - 4, axis, "middle"))
    for i, (value, name, colour) in enumerate(marks):
        if not math.isfinite(value):
            continue
        x = x_of(value)
        body.append(_line(x, top - 2, x, top + plot_h, colour, 2))
        anchor = "end" if x > left + plot_w / 2 else "start"
        body.append(
            _text(
                x + (-3 if anchor == "end" else 3),
                10 + 10 * (i % 2),
                name,
                anchor,
                colour,
            )
        )
    return svg(width, height, label, "".join(body))


def interval_svg(
    lower: float,
    upper: float,
    marks: Sequence[tuple[float, str, str]],
    *,
    label: str,
    point: float | None = None,
    width: int = 380,
    height: int = 60,
) -> str:
    """An interval ``[lower, upper]`` on an axis from 0, with marked values.

    Parameters
    ----------
    lower, upper : float
        The interval.
    marks : sequence of (float, str, str)
        Values to mark (value, name, colour).
    label : str
        What the figure shows.
    point : float, optional
        A point estimate inside the interval.
    width, height : int
        Size in pixels (380 by 60 by default).

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

    axis_y = height - 16
    body = [
        _line(left, axis_y, left + plot_w, axis_y, GREY, 1),
        _text(left, height - 3, "0", "start"),
        _text(left + plot_w, height - 3, f"{high:.3g}", "end"),
        f'<rect x="{x_of(lower):.1f}" y="{axis_y - 14}" '
        f'width="{max(x_of(upper) - x_of(lower), 1.0):.1f}" height="10" '
        f'fill="{BLUE}" fill-opacity="0.5"/>',
    ]
    if point is not None and math.isfinite(point):
        body.append(
            f'<circle cx="{x_of(point):.1f}" cy="{axis_y - 9}" r="3" fill="{BLUE}"/>'
        )
    for i, (value, name, colour) in enumerate(marks):
        if math.isfinite(value):
            x = x_of(value)
            body.append(_line(x, 2, x, axis_y, colour, 2))
            body.append(_text(x + 3, 10 + 10 * (i % 2), name, "start", colour))
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
