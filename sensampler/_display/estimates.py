"""Cards of what the sampler gives: estimates, sensitivity values, sampling
plans, clipping bounds and population models."""

from __future__ import annotations

import numpy as np

from .._lib import printing
from .figures import histogram_svg
from .page import BLUE, GREEN, RED, card, paragraph, rows_html

__all__ = [
    "VALUE_SOURCE_WORDS",
    "bounds_html",
    "distribution_html",
    "estimate_html",
    "sampling_plan_html",
    "sensitivity_value_html",
]

def estimate_html(est, unit: str | None = None) -> str:
    """A card for a :class:`~sensampler.SensitivityEstimate`; ``unit`` is the
    data's, printed after the sensitivities."""
    samples = np.asarray(est.samples, dtype=float)
    sensitivity = np.asarray(est.sensitivity.value, dtype=float)
    mean = np.asarray(est.mean.value, dtype=float)
    parts = []
    if samples.ndim == 1 and sensitivity.ndim == 0:
        parts.append(
            histogram_svg(
                samples,
                [
                    (float(sensitivity), "sensitivity G_(k) = "
                     + printing.with_unit(printing.sensitivity(sensitivity), unit), RED),
                    (float(mean), "mean of the sampled = "
                     + printing.with_unit(printing.sensitivity(mean), unit), BLUE),
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
                (
                    "sensitivity G_(k)",
                    f"{printing.with_unit(printing.sensitivities(sensitivity), unit)} "
                    f"({est.norm})",
                ),
                (
                    "mean (typical, no guarantee)",
                    printing.with_unit(printing.sensitivities(mean), unit),
                ),
                ("n", est.n),
                (
                    "plan",
                    f"m={est.m}, k={est.k}, gamma={printing.gamma(est.gamma)} "
                    f"({est.inequality})",
                ),
                ("neighbours", est.neighbours),
                ("run", est.run_id),
            ]
        )
    )
    parts.append(
        paragraph(
            "With probability at least 1 - gamma = "
            f"{printing.confidence(1 - est.gamma)} over the data "
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


def sensitivity_value_html(value) -> str:
    """A card for a :class:`~sensampler.estimate.SensitivityValue`.

    The number is printed rounded up (:mod:`sensampler._lib.printing`), as is gamma, so that
    a value copied from the card never calibrates less noise than the record.
    """
    rows = [
        ("value", printing.sensitivities(value.value)),
        ("what it is", value.label),
        ("source", value.source),
        ("norm", value.norm or "(not recorded)"),
    ]
    if value.run is not None:
        rows += [
            ("gamma of its run", printing.gamma(value.run.gamma)),
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


def sampling_plan_html(plan) -> str:
    """A card for a :class:`~sensampler.plan.SamplingPlan`: its numbers and meaning.

    Gamma, rho and beta are printed rounded up, never below the plan's.
    """
    rows = [
        ("pairs drawn m", plan.m),
        ("rank released k", f"{plan.k} (G_(k): the {plan.k}-th smallest of {plan.m})"),
        ("gamma", printing.gamma(plan.gamma)),
        ("rho (the sampler's share)", printing.rho(plan.rho)),
        ("beta (mass above the quantile)", printing.gamma(plan.beta)),
        ("inequality", plan.inequality),
    ]
    return card(
        "Sampling plan", rows_html(rows), paragraph(plan.meaning), kind="sampling-plan"
    )


def bounds_html(
    bounds, statement_card: str = ""
) -> str:
    """A card for :class:`~sensampler.bounds.Bounds`: the interval and its source.

    ``statement_card`` is the card of the private estimate's statement, if any
    (:func:`statement_html`).
    """
    coverage = (
        "(a support or given bounds)"
        if bounds.coverage is None
        else f"{printing.confidence(bounds.coverage)} of the population or data"
    )
    spent = (
        f"epsilon={printing.epsilon(bounds.epsilon)}, spent on the private data"
        if bounds.epsilon
        else "nothing (no private record was read)"
    )
    rows = [
        ("low", printing.value(bounds.low)),
        ("high", printing.value(bounds.high)),
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
