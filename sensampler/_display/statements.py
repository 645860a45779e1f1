"""Cards of privacy statements, in plain words, and of privacy bounds.

A statement's numbers are formatted by the functions its own module passes in
(rounded up, as every statement prints them): the HTML never states more
privacy than the text.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .._lib import printing
from .page import card, esc, rows_html

__all__ = ["privacy_bound_html", "statement_html", "statement_words"]

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
    if not statement.guaranteed:
        return [
            (
                "No guarantee",
                f"The noise was calibrated with a {statement.source} sensitivity, "
                "which is not a bound: nothing is protected.",
            )
        ]
    if statement.source == "sampled":
        return [_protected(statement), *_sampled_words(statement)]
    return [
        _protected(statement),
        (
            "Who is left unprotected",
            "No one: the sensitivity is a bound over all pairs of neighbouring "
            "databases (if the bound given is right).",
        ),
    ]


def _protected(statement) -> tuple[str, str]:
    """What a guaranteed statement protects: the relation and the guarantee."""
    if getattr(statement, "privacy_unit", "record") == "person":
        who, moved, other = "All of any one person's rows", "one person's rows", (
            "another person's"
        )
        changed = "that person's rows"
    else:
        who, moved, other = "Any one person's record", "one record", "another"
        changed = "that one record"
    relation = (
        f"{moved} replaced by {other}"
        if statement.neighbours == "replace-one"
        else f"{moved} added or removed"
    )
    factor = (
        f"a factor e^epsilon{' (plus delta)' if statement.delta else ''}"
        if statement.epsilon is not None
        else "the bound its Rényi curve states"
    )
    return (
        "What is protected",
        f"{who} ({relation}): the release is "
        f"{statement.core_text}, so changing {changed} changes the "
        f"probability of any outcome by at most {factor}.",
    )


def _sampled_words(statement) -> list[tuple[str, str]]:
    """What gamma means, the worst case and who is left unprotected, for a
    statement calibrated with a sampled sensitivity."""
    worst = getattr(statement, "worst_case", None)
    gamma = printing.gamma(statement.gamma)
    return [
        (
            "What gamma means",
            f"gamma={gamma}: the guarantee holds except with probability gamma "
            "over the data drawn from the population model, the chance that the "
            "calibration sampled from the model (a sensitivity, or a quantile "
            "mechanism's scale) is too weak for the data; then only the worst "
            "case below holds, if there is one. gamma is not delta.",
        ),
        (
            "Worst case",
            "None: no guarantee holds for data the population model does not "
            "describe."
            if worst is None
            else f"For every pair of neighbouring databases, whatever the data: "
            f"{worst}.",
        ),
        (
            "Who is left unprotected",
            "People whose records the population model does not describe (rare "
            "values, outliers)"
            + (" beyond the worst-case statement" if worst is not None else "")
            + ", everyone if the data are not drawn from the model, and, with "
            "probability gamma, everyone.",
        ),
    ]


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


def privacy_bound_html(
    bound,
    format_dp: Callable[[float, float], str],
) -> str:
    """A card for a :class:`~sensampler.privacy.PrivacyBound`: epsilon at delta.

    ``format_dp`` is the privacy module's formatter.
    """
    if bound.gamma == math.inf:
        gamma = "no limit (a filter without a gamma budget)"
    elif bound.gamma:
        gamma = (
            f"{printing.gamma(bound.gamma)}: the bound holds except with this "
            "probability over the data drawn from the population model"
        )
    else:
        gamma = "0 (no sampled sensitivity)"
    rows = [
        ("guarantee", format_dp(bound.epsilon, bound.delta)),
        ("epsilon", printing.epsilon(bound.epsilon)),
        ("at delta", printing.delta(bound.delta)),
        ("gamma", gamma),
        ("method", bound.method or "(not named)"),
    ]
    return card("Privacy bound", rows_html(rows), kind="privacy-bound")
