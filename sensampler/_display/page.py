"""The parts of every card: its style, rows, paragraphs, a result table, a page.

Every text that comes from a record is escaped (:func:`esc`); see the
package's docstring (:mod:`sensampler._display`).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from .._lib import printing

__all__ = [
    "BLUE",
    "CARD_STYLE",
    "CELL_STYLE",
    "GREEN",
    "GREY",
    "ORANGE",
    "RED",
    "card",
    "esc",
    "page",
    "paragraph",
    "rows_html",
    "table_html",
]

#: The style of a card: inline, so that nothing depends on a page's stylesheet.
CARD_STYLE = (
    "font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;"
    "border:1px solid #bbb;border-radius:6px;padding:8px 12px;margin:4px 0;"
    "max-width:640px;background:#fff;color:#111"
)


CELL_STYLE = "text-align:left;padding:1px 10px 1px 0;vertical-align:top"
#: A row's label: on one line (the value beside it wraps instead).
LABEL_STYLE = f"{CELL_STYLE};font-weight:600;white-space:nowrap"


#: Colours of the marks (colour-blind safe: Okabe & Ito 2008).
BLUE, ORANGE, GREEN, GREY, RED = "#0072B2", "#E69F00", "#009E73", "#999999", "#D55E00"


def esc(value) -> str:
    """``str(value)`` escaped for HTML text and attributes."""
    return html.escape(str(value), quote=True)


def rows_html(rows: Iterable[tuple[str, object]]) -> str:
    """A two-column table of (label, value) rows, both escaped."""
    body = "".join(
        f'<tr><th style="{LABEL_STYLE}">{esc(label)}</th>'
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


def table_html(table, max_rows: int = 20) -> str:
    """A result table (``.columns``, ``.rows``) as an HTML table, first rows.

    A column with one value in every row (of two or more) is written once above
    the table instead of in each row and a column's name may break after an
    underscore, so that the table fits a card; a table still wider than its card
    scrolls inside it.
    """

    rows = table.rows
    same = [
        c for c in table.columns
        if len(rows) > 1 and len({repr(r.get(c, "")) for r in rows}) == 1
    ]
    columns = [c for c in table.columns if c not in same]
    head = "".join(  # a long name may break after an underscore
        f'<th style="{CELL_STYLE}">{esc(c).replace("_", "_<wbr>")}</th>' for c in columns
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{CELL_STYLE}">{esc(printing.cell(c, r.get(c, "")))}</td>'
            for c in columns
        )
        + "</tr>"
        for r in rows[:max_rows]
    )
    common = (
        '<p style="margin:4px 0">In every row: '
        + ", ".join(f"{esc(c)} {esc(printing.cell(c, rows[0].get(c, '')))}" for c in same)
        + ".</p>"
        if same
        else ""
    )
    more = (
        paragraph(f"(first {max_rows} of {len(rows)} rows)")
        if len(rows) > max_rows
        else ""
    )
    return card(
        f"Result table: {len(rows)} rows",
        common,
        '<div style="overflow-x:auto"><table style="border-collapse:collapse">'
        f"<tr>{head}</tr>{body}</table></div>{more}",
        kind="table",
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
        # as wide as a card: 640 px, its padding and border
        '<body style="font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;'
        'max-width:666px;margin:16px auto;padding:0 12px;color:#111">'
        f'<h1 style="font-size:20px">{esc(title)}</h1>{body}</body></html>\n'
    )
