"""Cards of what the sampler gives: estimates, sensitivity values, sampling
plans, clipping bounds and population models."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._math.rounding import lower, upper
from .figures import histogram_svg
from .page import BLUE, GREEN, RED, card, number, paragraph, rows_html, upper_text

__all__ = [
    "VALUE_SOURCE_WORDS",
    "bounds_html",
    "distribution_html",
    "estimate_html",
    "sampling_plan_html",
    "sensitivity_value_html",
]

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
                    (float(sensitivity), f"sensitivity G_(k) = {float(sensitivity):.4g}",
                     RED),
                    (float(mean), f"mean of the sampled = {float(mean):.4g}", BLUE),
                ],
                label=f"the {samples.size} sampled sensitivities, with G_(k) and "
                "their mean",
                axis=f"sampled sensitivity ({est.norm}), one per pair",
                counts="pairs",
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
                ("plan", f"m={est.m}, k={est.k}, gamma={upper(est.gamma, 4)} ({est.inequality})"),
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
        ("inequality", plan.inequality),
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
