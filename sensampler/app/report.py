"""Release and audit reports: one self-contained HTML page a data custodian can read.

:func:`release_report` shows what was released, each statement in plain words,
the sampled sensitivity's distribution, the noise around each released value,
the price of a worst-case guarantee (where a statement has a worst-case part),
the budget left and the population audits given. :func:`audit_report` shows a
comparison of population models (``sensampler audit``). Figures are inline SVG;
the page loads nothing from the network.

**No private record appears.** A report is built from released values, the
statements, the sampled sensitivities (measured on databases drawn from the
population model, never on the private data), the budget's ledger and audits
on population models. The exact answer is never shown: the noise figure is
centred on the released value.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .._display.audits import coverage_audit_html
from .._display.estimates import estimate_html
from .._display.figures import accuracy_svg, noise_half_width, noise_svg
from .._display.ledgers import accountant_html, budget_file_html
from .._display.page import card, page, paragraph, rows_html, table_html
from .._display.statements import statement_html
from .._lib import printing
from ..privacy import format_dp
from ..table import atomic_write_text, check_output_file

__all__ = [
    "NO_PRIVATE_RECORD",
    "audit_report",
    "check_report_path",
    "release_report",
    "write_report",
]

#: What every report says of its content.
NO_PRIVATE_RECORD = (
    "This page shows released values, privacy statements, the population model's "
    "own samples and the budget's ledger; no private record and no exact answer."
)


def _same_file(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name one file: the same real path (links
    resolved), or, both existing, the same inode (hard links)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def check_report_path(path, *, inputs=()) -> str:
    """Return ``path`` if a report can be written there, or raise naming it.

    Checked before anything is sampled or spent: ``path`` must pass
    :func:`sensampler.table.check_output_file` (absent, or a regular file that
    is not a symbolic link, in an existing writable folder, with a name the
    filesystem accepts: a device, a FIFO, a folder or a link is refused, never
    replaced), and it must not be one of the ``inputs`` (the same real file:
    symbolic links resolved, hard links by inode), since the report would
    replace it. Nothing is created.

    Parameters
    ----------
    path : str or os.PathLike
        The HTML file to write.
    inputs : iterable of (str, str or os.PathLike or None), optional
        The files the release reads or writes, as (what it is, its path), such
        as ``("budget file", "ledger.json")``; ``None`` paths are skipped.

    Returns
    -------
    str
    """
    path = check_output_file(path, "report")
    for what, other in inputs:
        if other is not None and _same_file(path, os.fspath(other)):
            raise ValueError(
                f"report={path!r} is the {what} {os.fspath(other)!r}: the report "
                "would replace it; name another file."
            )
    return path


def write_report(path, text: str) -> str:
    """Write a report atomically (a temporary file renamed), return its path.

    Parameters
    ----------
    path : str or os.PathLike
        The HTML file.
    text : str
        The page.

    Returns
    -------
    str
    """
    path = check_report_path(path)
    atomic_write_text(path, text)
    return path


def _noise_section(release) -> str:
    """The release's accuracy, and beside it the bias of a person-level
    release's contribution bounds."""
    bias = getattr(release, "bias_words", "")
    accuracy = _accuracy_card(release)
    return accuracy if not bias else accuracy + card(
        f"Bias: {release.query}", paragraph(f"Cap bias {bias}.")
    )


def _accuracy_card(release) -> str:
    """The release's accuracy: the noise's law around the released value
    (continuous mechanisms), or a quantile's 90% band from the mechanism's law
    on public databases; both in the data's units."""
    title = f"Accuracy: {release.query}"
    value = np.asarray(release.value, dtype=float)
    err, unit = release.error_90, release.unit
    if err is None or value.ndim != 0:
        if value.ndim:
            why = "figure for one number only"
        elif release.mechanism == "exponential":
            why = "no public population model gives its error law"
        else:
            why = "noise on a grid: no figure"
        return card(title, paragraph(f"{release.noise} ({why})."))
    band = printing.with_unit(printing.error(err), unit)
    released = printing.with_unit(printing.value(float(value), err), unit)
    noise = release.statement.noise
    if release.mechanism == "exponential":
        figure = accuracy_svg(
            float(value), err, unit=unit,
            label="the band that holds the released quantile's error with "
            "probability 90%",
        )
        words = (
            "The exponential mechanism draws a value (no noise is added). Its own "
            "law, computed on databases drawn from the public population model "
            "(never the data), puts the released quantile within "
            f"±{band} of the exact one with probability 90%: the exact answer lies "
            f"within ±{band} of the released value {released}, except with "
            "probability 10% (if the data are like the model's)."
        )
        return card(title, figure, paragraph(words))
    # the mechanism's own scale, which its 90% half-width gives (the sampled
    # sensitivity's alone is too small where the worst-case cap raised it)
    scale = err / noise_half_width(1.0, noise.kind, 0.9)
    return card(
        title,
        noise_svg(
            float(value), scale, noise.kind, unit=unit,
            label=f"the law of the {noise.kind} noise around the released value",
        ),
        paragraph(
            f"{release.noise}. With probability 90% the noise is smaller than "
            f"{band}: the exact answer lies within ±{band} of the released "
            f"value {released}, except with probability 10%."
        ),
    )


def _worst_case_section(release) -> str:
    statement = release.statement
    worst = getattr(statement, "worst_case", None)
    if getattr(statement, "source", None) == "global":  # plain DP, nothing sampled
        return card(
            f"Worst case: {release.query}",
            paragraph(
                "For every pair of neighbouring databases: "
                f"{format_dp(statement.epsilon, statement.delta)}. The statement "
                "above is itself the worst case: nothing was sampled, there is no "
                "gamma."
            ),
        )
    if worst is None:
        return card(
            f"Worst case: {release.query}",
            paragraph(
                "No worst-case statement: this release is protected only for data "
                "the population model describes (random DP). People with values the "
                "model does not reach have no guarantee.",
                "#D55E00",
            ),
        )
    parts = [paragraph(f"For every pair of neighbouring databases: {worst}.")]
    eps, eps_wc = statement.epsilon, getattr(worst, "epsilon", None)
    if eps and eps_wc is not None and math.isfinite(eps_wc) and not statement.delta:
        # Laplace noise b states eps = D / b for the sampled D and eps_wc = D_wc / b
        # for the worst-case one; eps for every pair needs b' = D_wc / eps.
        parts.append(
            paragraph(
                f"The price of a worst-case guarantee: epsilon={printing.epsilon(eps)} "
                f"for every pair would need {eps_wc / eps:.4g} times this noise."
            )
        )
    return card(f"Worst case: {release.query}", *parts)


def _budget_section(budget) -> str:
    if budget is None:
        return paragraph("No budget was given: nothing was recorded.")
    if hasattr(budget, "session"):  # a budget file
        return budget_file_html(budget)
    return accountant_html(budget)


def _population_paragraph(releases) -> str:
    """The population model the statements rest on, as it was given."""
    models = list(dict.fromkeys(r.population for r in releases if r.population))
    if not models:
        return ""
    return paragraph(
        f"Population model (what every random-DP statement rests on): {'; '.join(models)}."
    )


def _privacy_unit_paragraph(releases) -> str:
    """One line on the privacy unit, for person-level releases."""
    if not any(r.statement.privacy_unit == "person" for r in releases):
        return ""
    return paragraph(
        "Privacy unit: a person. Each statement protects all of one person's rows "
        "(n counts persons)."
    )


def release_report(
    releases, *, budget=None, audits=(), title: str = "Release report", source: str = ""
) -> str:
    """One self-contained HTML page about ``releases``.

    Parameters
    ----------
    releases : sequence of Release
        From :func:`sensampler.app.release.release_statistics`.
    budget : PrivacyFilter, BudgetFile or None
        The budget they were spent from (shown after the spend).
    audits : sequence of CoverageAudit
        Population audits of their sampled sensitivities, if any were run.
    title : str
        The page's title.
    source : str
        What was released from (a file and column name), shown as is.

    Returns
    -------
    str
        The page.
    """
    releases = list(releases)
    released = card(
        "Released",
        rows_html(
            [
                (r.query, f"{r.answer} ({r.mechanism}, n={r.n})")
                for r in releases
            ]
        ),
        paragraph(f"From {source}.") if source else "",
        _population_paragraph(releases),
        _privacy_unit_paragraph(releases),
    )
    sections = [
        ("What was released", released),
        (
            "What each release states",
            "".join(
                statement_html(r.statement)
                + (card(f"{r.query}: what gamma rests on", paragraph(f"{r.basis}."))
                   if r.basis else "")
                for r in releases
            ),
        ),
        (
            "The sampled sensitivity",
            "".join(
                estimate_html(r.estimate, r.unit)
                for r in releases
                if r.estimate is not None
            )
            or paragraph("No sensitivity was sampled (the queries need none)."),
        ),
        ("How accurate each answer is", "".join(_noise_section(r) for r in releases)),
        (
            "The price of a worst-case guarantee",
            "".join(_worst_case_section(r) for r in releases),
        ),
        ("The budget left", _budget_section(budget)),
    ]
    audits = list(audits)
    if audits:
        sections.append(
            ("Population audit", "".join(coverage_audit_html(a) for a in audits))
        )
    sections.append(("About this page", paragraph(NO_PRIVATE_RECORD)))
    return page(title, sections)


def audit_report(comparison, *, choice=None, title: str = "Population audit") -> str:
    """One self-contained HTML page about a comparison of population models.

    Parameters
    ----------
    comparison : PopulationComparison
        From :func:`sensampler.audit.compare_populations`.
    choice : PopulationChoice, optional
        From :func:`sensampler.audit.conservative_choice`.
    title : str
        The page's title.

    Returns
    -------
    str
        The page.
    """
    sections = [
        (
            f"The sampled sensitivity under {name}",
            estimate_html(estimate),
        )
        for name, estimate in comparison.estimates.items()
    ]
    sections.append(
        (
            "Each estimate audited under each population",
            "".join(
                card(
                    f"estimated under {estimated}, audited under {audited}",
                    coverage_audit_html(audit),
                )
                for (estimated, audited), audit in comparison.audits.items()
            ),
        )
    )
    sections.append(("All audits", table_html(comparison.table, max_rows=100)))
    if choice is not None:
        verdict = "qualified" if choice.qualified else "no estimate qualified"
        sections.append(
            (
                "Conservative choice",
                card(
                    f"{choice.name} ({verdict})",
                    rows_html(
                        [
                            ("sensitivity", printing.sensitivity(choice.sensitivity)),
                            ("worst upper bound", printing.gamma(choice.worst_upper)),
                            ("limit", printing.gamma(choice.limit)),
                        ]
                    ),
                ),
            )
        )
    sections.append(
        (
            "About this page",
            paragraph(
                "Every number here comes from the population models: no private data "
                "were read."
            ),
        )
    )
    return page(title, sections)
