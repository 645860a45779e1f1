"""HTML for notebooks and reports: small cards and hand-built SVG figures.

The records' ``_repr_html_`` methods (estimates, statements, accountants,
filters, budget files, audits, result tables, releases and plans) are one line
each and call a function of this module, as pandas and scikit-learn show
their objects in Jupyter. Every text that comes from a record is escaped with
:func:`html.escape`; the figures are inline SVG (no matplotlib, no network), so
a card or a report page is self-contained.

This module imports nothing from the rest of the package: it reads records by
their attributes, and a statement's numbers are formatted by the functions its
own module passes in (rounded up, as every statement prints them), so that the
HTML never states more privacy than the text.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Sequence
from statistics import NormalDist

import numpy as np

from .._math.rounding import lower, upper

__all__ = [
    "accountant_html",
    "budget_file_html",
    "card",
    "comparison_html",
    "coverage_audit_html",
    "estimate_html",
    "histogram_svg",
    "interval_svg",
    "mechanism_audit_html",
    "noise_svg",
    "page",
    "plan_html",
    "release_html",
    "rows_html",
    "statement_html",
    "table_html",
]

#: The style of a card: inline, so that nothing depends on a page's stylesheet.
CARD_STYLE = (
    "font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;"
    "border:1px solid #bbb;border-radius:6px;padding:8px 12px;margin:4px 0;"
    "max-width:640px;background:#fff;color:#111"
)
CELL_STYLE = "text-align:left;padding:1px 10px 1px 0;vertical-align:top"

#: Colours of the marks (colour-blind safe: Okabe & Ito 2008).
BLUE, ORANGE, GREEN, GREY, RED = "#0072B2", "#E69F00", "#009E73", "#999999", "#D55E00"


def esc(value) -> str:
    """``str(value)`` escaped for HTML text and attributes."""
    return html.escape(str(value), quote=True)


def number(value, digits: int = 4) -> str:
    """A number (or an array) with ``digits`` significant digits, or its text."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return esc(value)
    if array.ndim:
        return esc(np.array2string(array, precision=digits))
    return esc(f"{float(array):.{digits}g}")


def rows_html(rows: Iterable[tuple[str, object]]) -> str:
    """A two-column table of (label, value) rows, both escaped."""
    body = "".join(
        f'<tr><th style="{CELL_STYLE};font-weight:600">{esc(label)}</th>'
        f'<td style="{CELL_STYLE}">{esc(value)}</td></tr>'
        for label, value in rows
    )
    return f'<table style="border-collapse:collapse">{body}</table>'


def card(title: str, *parts: str, kind: str = "") -> str:
    """A card: an escaped title above HTML ``parts`` (already escaped)."""
    css = f"sensampler-card {kind}".strip()
    return (
        f'<div class="{esc(css)}" style="{CARD_STYLE}">'
        f'<div style="font-weight:700;margin-bottom:4px">{esc(title)}</div>'
        + "".join(parts)
        + "</div>"
    )


def paragraph(text: str, colour: str = "") -> str:
    """An escaped paragraph."""
    style = "margin:4px 0" + (f";color:{colour}" if colour else "")
    return f'<p style="{style}">{esc(text)}</p>'


def _svg(width: int, height: int, label: str, body: str) -> str:
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
    width, height : int
        Size in pixels.

    Returns
    -------
    str
        An ``<svg>`` element.
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
    return _svg(width, height, label, "".join(body))


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
        Size in pixels.

    Returns
    -------
    str
        An ``<svg>`` element.
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
    return _svg(width, height, label, "".join(body))


def noise_svg(
    centre: float,
    scale: float,
    kind: str,
    *,
    label: str,
    width: int = 380,
    height: int = 110,
) -> str:
    """The density of the noise around a released value, with its 90% interval.

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
    width, height : int
        Size in pixels.

    Returns
    -------
    str
        An ``<svg>`` element.
    """
    left, right, top, bottom = 10, 10, 16, 18
    plot_w, plot_h = width - left - right, height - top - bottom
    half = noise_half_width(scale, kind, 0.9)
    span = max(2.0 * half, 1e-300)
    t = np.linspace(-span, span, 121)
    if kind == "gaussian":
        density = np.exp(-0.5 * (t / scale) ** 2) if scale > 0 else (t == 0) * 1.0
    else:
        density = np.exp(-np.abs(t) / scale) if scale > 0 else (t == 0) * 1.0

    def x_of(v):
        return left + plot_w * (v + span) / (2 * span)

    path = " ".join(
        f"{'M' if i == 0 else 'L'}{x_of(v):.1f},{top + plot_h * (1 - d):.1f}"
        for i, (v, d) in enumerate(zip(t, density))
    )
    body = [
        _line(left, top + plot_h, left + plot_w, top + plot_h, GREY, 1),
        f'<path d="{path}" fill="none" stroke="{BLUE}" stroke-width="1.5"/>',
        f'<rect x="{x_of(-half):.1f}" y="{top}" width="{x_of(half) - x_of(-half):.1f}" '
        f'height="{plot_h}" fill="{BLUE}" fill-opacity="0.12"/>',
        _line(x_of(0), top - 4, x_of(0), top + plot_h, ORANGE, 2),
        _text(x_of(0) + 3, 10, "released value", "start", ORANGE),
        _text(left, height - 4, f"{centre - span:.6g}", "start"),
        _text(left + plot_w, height - 4, f"{centre + span:.6g}", "end"),
        _text(x_of(0), height - 4, f"90%: ±{half:.4g}", "middle", BLUE),
    ]
    return _svg(width, height, label, "".join(body))


def noise_half_width(scale: float, kind: str, level: float) -> float:
    """Half-width of the central ``level`` interval of the noise.

    Laplace: :math:`P[|Z| > t] = e^{-t/b}`, so :math:`t = -b \\log(1 - level)`;
    Gaussian: :math:`t = \\sigma \\, \\Phi^{-1}((1 + level) / 2)`.
    """
    if kind == "gaussian":
        return scale * NormalDist().inv_cdf((1.0 + level) / 2.0)
    return -scale * math.log1p(-level)


# ------------------------------------------------------------------ records
def estimate_html(est) -> str:
    """A card for a :class:`~sensampler.SensitivityEstimate`."""
    samples = np.asarray(est.samples, dtype=float)
    sensitivity = np.asarray(est.sensitivity.value, dtype=float)
    mean = np.asarray(est.mean.value, dtype=float)
    parts = []
    if samples.ndim == 1 and sensitivity.ndim == 0:
        parts.append(
            histogram_svg(
                samples,
                [
                    (float(sensitivity), f"G_(k) = {float(sensitivity):.4g}", RED),
                    (float(mean), f"mean = {float(mean):.4g}", BLUE),
                ],
                label=f"the {samples.size} sampled sensitivities, with G_(k) and "
                "their mean",
            )
        )
    else:
        parts.append(
            paragraph(f"{samples.shape[-1]} coordinates: figure for one number only.")
        )
    parts.append(
        rows_html(
            [
                ("query", est.query or "(unnamed)"),
                ("sensitivity G_(k)", f"{number(sensitivity, 6)} ({est.norm})"),
                ("mean (typical, no guarantee)", number(mean, 6)),
                ("n", est.n),
                ("plan", f"m={est.m}, k={est.k}, gamma={upper(est.gamma, 4)} ({est.bound})"),
                ("neighbours", est.neighbours),
                ("run", est.run_id),
            ]
        )
    )
    parts.append(
        paragraph(
            f"With probability at least 1 - gamma = {lower(1 - est.gamma, 4)} over the data "
            "drawn from the population model (and the sampler), a fresh pair of "
            "neighbouring databases moves the query by at most G_(k)."
        )
    )
    return card("Sampled sensitivity", *parts, kind="estimate")


def statement_words(statement) -> list[tuple[str, str]]:
    """A statement in plain words: (heading, sentence) pairs.

    Parameters
    ----------
    statement : PrivacyStatement
        The statement; its guarantee is read from ``statement.core_text``, its
        gamma printed rounded up.

    Returns
    -------
    list of (str, str)
    """
    relation = (
        "one record replaced by another"
        if statement.neighbours == "replace-one"
        else "one record added or removed"
    )
    if not statement.guaranteed:
        return [
            (
                "No guarantee",
                f"The noise was calibrated with a {statement.source} sensitivity, "
                "which is not a bound: nothing is protected.",
            )
        ]
    core = statement.core_text
    words = [
        (
            "What is protected",
            f"Any one person's record ({relation}): the release is {core}, so "
            "changing that one record changes the probability of any outcome by at "
            "most "
            + (
                f"a factor e^epsilon{' (plus delta)' if statement.delta else ''}"
                if statement.epsilon is not None
                else "the bound its Rényi curve states"
            )
            + ".",
        )
    ]
    worst = getattr(statement, "worst_case", None)
    if statement.source == "sampled":
        gamma = upper(statement.gamma, 4)
        words.append(
            (
                "What gamma means",
                f"gamma={gamma}: the guarantee holds except with probability gamma "
                "over the data drawn from the population model, the chance that the "
                "calibration sampled from the model (a sensitivity, or a quantile "
                "mechanism's scale) is too weak for the data; then only the worst "
                "case below holds, if there is one. gamma is not delta.",
            )
        )
        if worst is not None:
            words.append(
                (
                    "Worst case",
                    f"For every pair of neighbouring databases, whatever the data: "
                    f"{worst}.",
                )
            )
        else:
            words.append(
                (
                    "Worst case",
                    "None: no guarantee holds for data the population model does "
                    "not describe.",
                )
            )
        words.append(
            (
                "Who is left unprotected",
                "People whose records the population model does not describe (rare "
                "values, outliers)"
                + (" beyond the worst-case statement" if worst is not None else "")
                + ", everyone if the data are not drawn from the model, and, with "
                "probability gamma, everyone.",
            )
        )
    else:
        words.append(
            (
                "Who is left unprotected",
                "No one: the sensitivity is a bound over all pairs of neighbouring "
                "databases (if the bound given is right).",
            )
        )
    return words


def statement_html(statement) -> str:
    """A card for a :class:`~sensampler.privacy.PrivacyStatement` in plain words
    (see :func:`statement_words`)."""
    items = "".join(
        f'<p style="margin:4px 0"><strong>{esc(head)}.</strong> {esc(text)}</p>'
        for head, text in statement_words(statement)
    )
    formal = f'<p style="margin:4px 0;color:#555"><code>{esc(statement)}</code></p>'
    return card(
        f"Privacy statement: {statement.mechanism}", items, formal, kind="statement"
    )


def _bar(label: str, spent: float, budget: float | None) -> str:
    """A used-against-budget bar (a row of a table): ``spent`` is what the
    filter's rule has used of ``budget`` (``None`` or 0: no budget)."""
    if budget is None or not math.isfinite(budget) or budget <= 0:
        return (
            f'<tr><th style="{CELL_STYLE}">{esc(label)}</th>'
            f'<td style="{CELL_STYLE}"></td><td style="{CELL_STYLE}">'
            f"{upper(spent, 6)} spent (no budget)</td></tr>"
        )
    share = min(max(spent / budget, 0.0), 1.0)
    colour = RED if spent >= budget else BLUE
    svg = _svg(
        160,
        12,
        f"{label}: {upper(spent, 4)} of {budget:.4g} used",
        f'<rect x="0" y="0" width="160" height="12" fill="#eee"/>'
        f'<rect x="0" y="0" width="{160 * share:.1f}" height="12" fill="{colour}"/>',
    )
    return (
        f'<tr><th style="{CELL_STYLE}">{esc(label)}</th><td style="{CELL_STYLE}">{svg}'
        f'</td><td style="{CELL_STYLE}">{upper(spent, 6)} used of '
        f"{number(budget, 6)}, {lower(max(budget - spent, 0.0), 6)} left</td></tr>"
    )


def _ledger_html(ledger, limit: int = 12) -> str:
    entries = list(ledger)
    if not entries:
        return paragraph("Nothing recorded yet.")
    head = ("mechanism", "epsilon", "delta", "gamma", "count", "neighbours")
    cells = "".join(f'<th style="{CELL_STYLE}">{esc(h)}</th>' for h in head)
    shown = entries[-limit:]
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{CELL_STYLE}">{esc(getattr(e, name, ""))}</td>'
            for name in head
        )
        + "</tr>"
        for e in shown
    )
    more = (
        paragraph(f"(the last {limit} of {len(entries)} entries)")
        if len(entries) > limit
        else ""
    )
    return (
        f'<table style="border-collapse:collapse"><tr>{cells}</tr>{body}</table>{more}'
    )


def accountant_html(accountant, title: str | None = None) -> str:
    """A card for an accountant or a filter: spent against remaining, the ledger."""
    parts = []
    name = title or type(accountant).__name__
    budget = getattr(accountant, "epsilon_budget", None)
    if budget is not None:
        spent, left = accountant.spent, accountant.remaining
        bars = [
            _bar("epsilon", budget - left.epsilon, budget),
            _bar(
                "delta", accountant.delta_budget - left.delta, accountant.delta_budget
            ),
            _bar("gamma", spent.gamma, accountant.gamma_budget),
        ]
        parts.append(f'<table style="border-collapse:collapse">{"".join(bars)}</table>')
        parts.append(paragraph(f"Left: {left}"))
        parts.append(paragraph(f"What was spent guarantees: {spent}"))
    else:
        parts.append(
            rows_html(
                [
                    ("releases recorded", accountant.count),
                    ("gamma (union over runs)", upper(accountant.gamma, 4)),
                    ("neighbours", accountant.neighbours or "(none yet)"),
                ]
            )
        )
    worst = getattr(accountant, "worst_case", None)
    if worst is not None and not callable(worst):
        parts.append(paragraph(f"Worst case (every pair of neighbours): {worst}"))
    parts.append(_ledger_html(accountant.ledger))
    return card(name, *parts, kind="accountant")


def budget_file_html(budget_file) -> str:
    """A card for a :class:`~sensampler.app.budget_file.BudgetFile` (read, not changed)."""
    if not budget_file.exists():
        return card(
            f"Budget file {budget_file.path}",
            paragraph("The file does not exist yet: nothing spent."),
            kind="budget-file",
        )
    return accountant_html(
        budget_file.filter(), title=f"Budget file {budget_file.path}"
    )


def coverage_audit_html(audit) -> str:
    """A card for a :class:`~sensampler.audit.CoverageAudit`: interval against beta."""
    colour = RED if audit.exceeds else (GREEN if audit.upper <= audit.beta else ORANGE)
    figure = interval_svg(
        audit.lower,
        audit.upper,
        [
            (audit.beta, f"beta={audit.beta:.3g}", RED),
            (audit.gamma, f"gamma={upper(audit.gamma, 3)}", GREY),
        ],
        point=audit.rate,
        label=f"{100 * audit.confidence:g}% interval on the exceedance rate against "
        "beta and gamma",
    )
    return card(
        f"Coverage audit: {audit.verdict}",
        figure,
        rows_html(
            [
                ("population", audit.population),
                ("exceedances", f"{audit.exceedances} of {audit.pairs} fresh pairs"),
                ("rate", f"{audit.rate:.4g}"),
                (
                    f"{100 * audit.confidence:g}% interval",
                    f"[{audit.lower:.4g}, {audit.upper:.4g}]",
                ),
                ("beta, gamma", f"{audit.beta:.4g}, {upper(audit.gamma, 4)} ({audit.bound})"),
            ]
        ),
        paragraph(
            "The plan's bound holds here if the whole interval lies below beta; it "
            "fails if the whole interval lies above.",
            colour,
        ),
        kind="coverage-audit",
    )


def comparison_html(comparison) -> str:
    """A card for a :class:`~sensampler.audit.PopulationComparison`: each audit."""
    return card(
        f"Population comparison: {', '.join(map(str, comparison.estimates))}",
        *(coverage_audit_html(audit) for audit in comparison.audits.values()),
        table_html(comparison.table, max_rows=100),
        kind="comparison",
    )


def mechanism_audit_html(audit) -> str:
    """A card for a :class:`~sensampler.audit.MechanismAudit`: epsilon shown vs stated."""
    verdict = "VIOLATED" if audit.violated else "not refuted"
    low = max(audit.epsilon_lower, 0.0)
    figure = interval_svg(
        low,
        low,
        [(audit.stated, f"stated {upper(audit.stated, 4)}", RED)],
        point=low,
        label="lower confidence bound on the realised epsilon against the stated one",
    )
    return card(
        f"Mechanism audit: {verdict}",
        figure,
        rows_html(
            [
                ("mechanism", audit.mechanism),
                (
                    "epsilon realised >=",
                    f"{lower(audit.epsilon_lower, 4)} (confidence {audit.confidence:g})",
                ),
                (
                    "epsilon stated",
                    f"{upper(audit.stated, 4)} at delta={upper(audit.delta, 3)}",
                ),
                ("releases", f"{audit.releases} per input, {audit.tested} tested"),
                ("rejection set", audit.rejection_set),
            ]
        ),
        kind="mechanism-audit",
    )


def table_html(table, max_rows: int = 20) -> str:
    """A result table (``.columns``, ``.rows``) as an HTML table, first rows."""
    head = "".join(f'<th style="{CELL_STYLE}">{esc(c)}</th>' for c in table.columns)

    def cell(value):
        if isinstance(value, float):
            return number(value, 6)
        return esc(value)

    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{CELL_STYLE}">{cell(r.get(c, ""))}</td>' for c in table.columns
        )
        + "</tr>"
        for r in table.rows[:max_rows]
    )
    more = (
        paragraph(f"(first {max_rows} of {len(table.rows)} rows)")
        if len(table.rows) > max_rows
        else ""
    )
    return card(
        f"Result table: {len(table.rows)} rows",
        f'<table style="border-collapse:collapse"><tr>{head}</tr>{body}</table>{more}',
        kind="table",
    )


def release_html(release, statement_card: str) -> str:
    """A card for a release: the released value, the noise, its statement's card."""
    value = np.asarray(release.value, dtype=float)
    answer = (
        f"{float(value):.6g}"
        if value.ndim == 0
        else np.array2string(value, precision=6)
    )
    rows = [
        ("released value", answer),
        ("mechanism", release.mechanism),
        ("noise", release.noise),
        ("n", release.n),
    ]
    if getattr(release, "basis", ""):  # what gamma rests on: a public sample
        rows.append(("gamma rests on", release.basis))
    return card(
        f"Release: {release.query}",
        rows_html(rows),
        statement_card,
        kind="release",
    )


def plan_html(plan) -> str:
    """A card for a :class:`~sensampler.app.planning.ReleasePlan`."""
    rows = [
        ("query", f"{plan.query} of n={plan.n} records"),
        ("population", plan.population),
        ("mechanism", plan.mechanism),
        (
            "epsilon",
            upper(plan.epsilon, 6)
            + (f", delta={upper(plan.delta, 3)}" if plan.delta else "")
            + plan.cap_words,
        ),
        ("guarantee", plan.guarantee),
        ("expected error", f"{plan.expected_error:.6g}"),
        ("90% of errors", f"<= {plan.error_90:.6g}"),
    ]
    rows.append(("sampling plan", plan.sampling_plan))
    if plan.bounds is not None:
        rows.append(("bounds", plan.bounds_words))
    if plan.worst_case is not None:
        rows.append(("worst case", plan.worst_case))
    if plan.exponential:
        rows.append(("error law", f"exact on each of {plan.runs} databases"))
        figure = ""
    else:
        rows.append(
            ("sensitivity", f"{plan.sensitivity:.6g} (mean over {plan.runs} runs)")
        )
        figure = histogram_svg(
            plan.sensitivities,
            [(plan.sensitivity, f"mean = {plan.sensitivity:.4g}", BLUE)],
            label="the sampled sensitivity G_(k) of each planning run",
        )
    if plan.target_error is not None:
        rows.insert(3, ("target", f"{plan.target_error:.6g} ({plan.measure})"))
    meaning = plan.error_meaning
    warning = "" if plan.warning is None else paragraph(f"Warning: {plan.warning}.", RED)
    return card(
        "Release plan",
        warning,
        rows_html(rows),
        figure,
        paragraph(meaning[0].upper() + meaning[1:] + "."),
        paragraph(plan.note[0].upper() + plan.note[1:] + ".", GREEN),
        kind="plan",
    )


def page(title: str, sections: Sequence[tuple[str, str]]) -> str:
    """A whole self-contained HTML page: a title and (heading, HTML) sections."""
    body = "".join(
        f'<section><h2 style="font-size:16px;margin:18px 0 6px">{esc(head)}</h2>'
        f"{content}</section>"
        for head, content in sections
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "</head>"
        '<body style="font-family:system-ui,sans-serif;max-width:760px;margin:16px auto;'
        'padding:0 12px;color:#111">'
        f'<h1 style="font-size:20px">{esc(title)}</h1>{body}</body></html>\n'
    )


# ------------------------------------------------- more records (one card each)
__all__ += [
    "bounds_html",
    "distribution_html",
    "ledger_entry_html",
    "mechanism_html",
    "population_choice_html",
    "privacy_bound_html",
    "sampling_plan_html",
    "sensitivity_value_html",
]

#: What a sensitivity value's source guarantees, in words.
VALUE_SOURCE_WORDS = {
    "sampled": "random DP: a fresh pair of neighbouring databases drawn from the "
    "population model moves the query by at most this value, except with "
    "probability gamma over the data (and the sampler).",
    "typical": "no guarantee: a typical size of the sampled sensitivities (a mean "
    "or a quantile), not a bound; noise calibrated with it protects nothing.",
    "derived": "no guarantee: computed from a sampled value by an operation that "
    "can make it smaller; noise calibrated with it protects nothing.",
}


def upper_text(value, format_upper: Callable[[float, int], str], digits: int) -> str:
    """A number or an array printed rounded up (``format_upper``), at most 8 shown."""
    values = np.asarray(value, dtype=float)
    if not values.ndim:
        return format_upper(float(values), digits)
    shown = " ".join(format_upper(float(v), digits) for v in values.ravel()[:8])
    return f"[{shown}{' …' if values.size > 8 else ''}]"


def sampling_plan_html(plan, format_upper: Callable[[float, int], str]) -> str:
    """A card for a :class:`~sensampler.plan.SamplingPlan`: its numbers and meaning.

    ``format_upper`` is :func:`sensampler.privacy.format_upper`: gamma, rho
    and beta are printed rounded up, never below the plan's.
    """
    rows = [
        ("pairs drawn m", plan.m),
        ("rank released k", f"{plan.k} (G_(k): the {plan.k}-th smallest of {plan.m})"),
        ("gamma", format_upper(plan.gamma, 4)),
        ("rho (the sampler's share)", format_upper(plan.rho, 4)),
        ("beta (mass above the quantile)", format_upper(plan.beta, 4)),
        ("bound", plan.bound),
    ]
    return card(
        "Sampling plan", rows_html(rows), paragraph(plan.meaning), kind="sampling-plan"
    )


def bounds_html(
    bounds, format_upper: Callable[[float, int], str], statement_card: str = ""
) -> str:
    """A card for :class:`~sensampler.bounds.Bounds`: the interval and its source.

    ``statement_card`` is the card of the private estimate's statement, if any
    (:func:`statement_html`); ``format_upper`` prints the epsilon it spent.
    """
    coverage = (
        "(a support or given bounds)"
        if bounds.coverage is None
        else f"{bounds.coverage:.6g} of the population or data"
    )
    spent = (
        f"epsilon={format_upper(bounds.epsilon, 6)}, spent on the private data"
        if bounds.epsilon
        else "nothing (no private record was read)"
    )
    rows = [
        ("low", f"{bounds.low:.6g}"),
        ("high", f"{bounds.high:.6g}"),
        ("source", bounds.source),
        ("coverage", coverage),
        ("spent", spent),
    ]
    if bounds.note:
        rows.append(("note", bounds.note))
    return card("Clipping bounds", rows_html(rows), statement_card, kind="bounds")


def sensitivity_value_html(value, format_upper: Callable[[float, int], str]) -> str:
    """A card for a :class:`~sensampler.estimate.SensitivityValue`.

    The number is printed rounded up (``format_upper``), as are gamma, so that
    a value copied from the card never calibrates less noise than the record.
    """
    rows = [
        ("value", upper_text(value.value, format_upper, 6)),
        ("what it is", value.label),
        ("source", value.source),
        ("norm", value.norm or "(not recorded)"),
    ]
    if value.run is not None:
        rows += [
            ("gamma of its run", format_upper(value.run.gamma, 4)),
            ("run", value.run.run_id or "(anonymous)"),
        ]
    colour = GREEN if value.source == "sampled" else RED
    return card(
        f"Sensitivity: {value.label}",
        rows_html(rows),
        paragraph(
            "Guarantee: " + VALUE_SOURCE_WORDS.get(value.source, "none."), colour
        ),
        kind="sensitivity-value",
    )


def privacy_bound_html(
    bound,
    format_dp: Callable[[float, float], str],
    format_upper: Callable[[float, int], str],
) -> str:
    """A card for a :class:`~sensampler.privacy.PrivacyBound`: epsilon at delta.

    ``format_dp`` and ``format_upper`` are the privacy module's formatters.
    """
    if bound.gamma == math.inf:
        gamma = "no limit (a filter without a gamma budget)"
    elif bound.gamma:
        gamma = (
            f"{format_upper(bound.gamma, 4)}: the bound holds except with this "
            "probability over the data drawn from the population model"
        )
    else:
        gamma = "0 (no sampled sensitivity)"
    rows = [
        ("guarantee", format_dp(bound.epsilon, bound.delta)),
        ("epsilon", format_upper(bound.epsilon, 6)),
        ("at delta", format_upper(bound.delta, 3)),
        ("gamma", gamma),
        ("method", bound.method or "(not named)"),
    ]
    return card("Privacy bound", rows_html(rows), kind="privacy-bound")


def ledger_entry_html(entry, format_upper: Callable[[float, int], str]) -> str:
    """A card for a :class:`~sensampler.accounting.LedgerEntry` (numbers rounded up)."""

    def up(value, digits):
        return "(none stated)" if value is None else format_upper(value, digits)

    rows = [
        ("mechanism", entry.mechanism),
        ("releases", entry.count),
        ("epsilon (each)", up(entry.epsilon, 6)),
        ("delta (each)", up(entry.delta, 3)),
        ("rho (each)", up(entry.rho, 6)),
        ("gamma of the run", format_upper(entry.gamma, 4)),
        ("run", entry.run_id or "(anonymous: counted per release)"),
        ("neighbours", entry.neighbours or "(none stated)"),
    ]
    if entry.worst_case_epsilon is not None:
        rows.append(
            (
                "worst case (each)",
                f"epsilon={up(entry.worst_case_epsilon, 6)}, "
                f"delta={up(entry.worst_case_delta, 3)}",
            )
        )
    return card(
        f"Ledger entry: {entry.mechanism}", rows_html(rows), kind="ledger-entry"
    )


def mechanism_html(
    mechanism, statement_card: str, format_upper: Callable[[float, int], str]
) -> str:
    """A card for a mechanism: its name, sensitivity and noise, its statement's card.

    Only public numbers are shown (never a record a mechanism keeps, such as
    the catastrophe mechanism's data); ``statement_card`` is
    :func:`statement_html` of its statement. The sensitivity and the noise are
    printed rounded up (``format_upper``): copied from the card, they never
    calibrate less noise than the mechanism's.
    """
    rows = [("mechanism", f"{mechanism.name} ({type(mechanism).__name__})")]
    sensitivity = getattr(mechanism, "sensitivity", None)
    if sensitivity is not None:
        rows.append(("sensitivity", sensitivity))
    sigma, scale = getattr(mechanism, "sigma", None), getattr(mechanism, "scale", None)
    if sigma is not None:
        rows.append(("noise sigma (standard deviation)", sigma))
    elif scale is not None:
        rows.append(("noise scale", scale))
    rows[1:] = [(label, upper_text(v, format_upper, 6)) for label, v in rows[1:]]
    title = f"Mechanism: {mechanism.name}"
    return card(title, rows_html(rows), statement_card, kind="mechanism")


def population_choice_html(choice, format_upper: Callable[[float, int], str]) -> str:
    """A card for a :class:`~sensampler.audit.PopulationChoice`: the upper bound
    against the limit (both rounded up by ``format_upper``)."""
    figure = interval_svg(
        0.0,
        choice.worst_upper,
        [(choice.limit, f"limit {format_upper(choice.limit, 3)}", RED)],
        label="the worst upper confidence bound on the exceedance rate against the "
        "limit",
    )
    verdict = (
        "qualified: covered within the limit under every audited population"
        if choice.qualified
        else "no estimate qualified: this one is the least bad; more public data or "
        "a heavier-tailed model is the better answer"
    )
    return card(
        f"Population choice: {choice.name}",
        figure,
        rows_html(
            [
                ("population", choice.name),
                ("sensitivity", number(choice.sensitivity, 6)),
                ("worst upper bound", format_upper(choice.worst_upper, 4)),
                ("limit (multiple * gamma)", format_upper(choice.limit, 4)),
            ]
        ),
        paragraph(
            verdict[0].upper() + verdict[1:] + ".", GREEN if choice.qualified else RED
        ),
        kind="population-choice",
    )


def distribution_html(distribution) -> str:
    """A tiny card for a population model: its ``repr`` and the shape of a record."""
    shape = tuple(distribution.record_shape)
    return card(
        f"Population model: {type(distribution).__name__}",
        rows_html(
            [
                ("model", repr(distribution)),
                ("one record", f"an array of shape {shape}" if shape else "a number"),
            ]
        ),
        kind="distribution",
    )
