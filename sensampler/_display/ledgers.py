"""Cards of accountants, filters, budget files and ledger entries: what was
spent against the budget, and the ledger."""

from __future__ import annotations

import math

from .._lib import printing
from .figures import svg
from .page import BLUE, CELL_STYLE, RED, card, esc, paragraph, rows_html

__all__ = ["accountant_html", "budget_file_html", "ledger_entry_html"]

def _bar(label: str, spent: float, budget: float | None) -> str:
    """A used-against-budget bar (a row of a table): ``spent`` is what the
    filter's rule has used of ``budget`` (``None`` or 0: no budget) of the
    parameter ``label`` ("epsilon", "delta" or "gamma"), printed as every
    statement prints it (spent and budget rounded up, what is left down)."""
    up = getattr(printing, label)
    if budget is None or not math.isfinite(budget) or budget <= 0:
        return (
            f'<tr><th style="{CELL_STYLE}">{esc(label)}</th>'
            f'<td style="{CELL_STYLE}"></td><td style="{CELL_STYLE}">'
            f"{up(spent)} spent (no budget)</td></tr>"
        )
    share = min(max(spent / budget, 0.0), 1.0)
    colour = RED if spent >= budget else BLUE
    bar = svg(
        160,
        12,
        f"{label}: {up(spent)} of {up(budget)} used",
        f'<rect x="0" y="0" width="160" height="12" fill="#eee"/>'
        f'<rect x="0" y="0" width="{160 * share:.1f}" height="12" fill="{colour}"/>',
    )
    return (
        f'<tr><th style="{CELL_STYLE}">{esc(label)}</th><td style="{CELL_STYLE}">{bar}'
        f'</td><td style="{CELL_STYLE}">{up(spent)} used of '
        f"{up(budget)}, {printing.down(max(budget - spent, 0.0), label)} left</td></tr>"
    )


def _cell(name: str, value) -> str:
    """A ledger cell of column ``name``: a privacy parameter rounded up as every
    statement prints it, anything else as it is."""
    if isinstance(value, float) and name in printing.PRIVACY_DIGITS:
        return getattr(printing, name)(value)
    return str(value)


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
            f'<td style="{CELL_STYLE}">{esc(_cell(name, getattr(e, name, "")))}</td>'
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
                    ("gamma (union over runs)", printing.gamma(accountant.gamma)),
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


def ledger_entry_html(entry) -> str:
    """A card for a :class:`~sensampler.accounting.LedgerEntry` (numbers rounded up)."""

    def up(value, kind):
        return "(none stated)" if value is None else getattr(printing, kind)(value)

    rows = [
        ("mechanism", entry.mechanism),
        ("releases", entry.count),
        ("epsilon (each)", up(entry.epsilon, "epsilon")),
        ("delta (each)", up(entry.delta, "delta")),
        ("rho (each)", up(entry.rho, "rho")),
        ("gamma of the run", printing.gamma(entry.gamma)),
        ("run", entry.run_id or "(anonymous: counted per release)"),
        ("neighbours", entry.neighbours or "(none stated)"),
    ]
    if entry.worst_case_epsilon is not None:
        rows.append(
            (
                "worst case (each)",
                f"epsilon={up(entry.worst_case_epsilon, 'epsilon')}, "
                f"delta={up(entry.worst_case_delta, 'delta')}",
            )
        )
    return card(
        f"Ledger entry: {entry.mechanism}", rows_html(rows), kind="ledger-entry"
    )
