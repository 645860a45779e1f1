"""Cards of the audits: coverage audits, population comparisons and choices,
mechanism audits, each with its interval drawn against what it tests."""

from __future__ import annotations

from .._lib import printing
from .figures import interval_svg
from .page import (
    GREEN,
    GREY,
    ORANGE,
    RED,
    card,
    paragraph,
    rows_html,
    table_html,
)

__all__ = [
    "comparison_html",
    "coverage_audit_html",
    "mechanism_audit_html",
    "population_choice_html",
]

def coverage_audit_html(audit) -> str:
    """A card for a :class:`~sensampler.audit.CoverageAudit`: interval against beta."""
    colour = RED if audit.exceeds else (GREEN if audit.upper <= audit.beta else ORANGE)
    figure = interval_svg(
        audit.lower,
        audit.upper,
        [
            (audit.beta, f"beta={audit.beta:.3g}", RED),
            (audit.gamma, f"gamma={printing.gamma(audit.gamma)}", GREY),
        ],
        point=audit.rate,
        axis="rate of fresh pairs moving the query by more than the sensitivity",
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
                (
                    "beta, gamma",
                    f"{printing.gamma(audit.beta)}, {printing.gamma(audit.gamma)} "
                    f"({audit.inequality})",
                ),
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
        [(audit.stated, f"stated {printing.epsilon(audit.stated)}", RED)],
        point=low,
        axis="epsilon",
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
                    f"{printing.down(audit.epsilon_lower, 'epsilon')} "
                    f"(confidence {audit.confidence:g})",
                ),
                (
                    "epsilon stated",
                    f"{printing.epsilon(audit.stated)} at delta={printing.delta(audit.delta)}",
                ),
                ("releases", f"{audit.releases} per input, {audit.tested} tested"),
                ("rejection set", audit.rejection_set),
            ]
        ),
        kind="mechanism-audit",
    )


def population_choice_html(choice) -> str:
    """A card for a :class:`~sensampler.audit.PopulationChoice`: the upper bound
    against the limit (both rounded up)."""
    figure = interval_svg(
        0.0,
        choice.worst_upper,
        [(choice.limit, f"limit {printing.gamma(choice.limit)}", RED)],
        axis="worst upper bound on the exceedance rate",
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
                ("sensitivity", printing.sensitivity(choice.sensitivity)),
                ("worst upper bound", printing.gamma(choice.worst_upper)),
                ("limit (multiple * gamma)", printing.gamma(choice.limit)),
            ]
        ),
        paragraph(
            verdict[0].upper() + verdict[1:] + ".", GREEN if choice.qualified else RED
        ),
        kind="population-choice",
    )
