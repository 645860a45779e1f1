"""Cards of what is released: a mechanism, a release and a release plan."""

from __future__ import annotations

from .._lib import printing
from .figures import histogram_svg
from .page import BLUE, GREEN, RED, card, paragraph, rows_html

__all__ = ["mechanism_html", "plan_html", "release_html"]

def mechanism_html(mechanism, statement_card: str) -> str:
    """A card for a mechanism: its name, sensitivity and noise, its statement's card.

    Only public numbers are shown (never a record a mechanism keeps, such as
    the catastrophe mechanism's data); ``statement_card`` is
    :func:`statement_html` of its statement. The sensitivity and the noise are
    printed rounded up (:func:`sensampler._lib.printing.sensitivity`): copied
    from the card, they never calibrate less noise than the mechanism's.
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
    rows[1:] = [(label, printing.sensitivities(v)) for label, v in rows[1:]]
    title = f"Mechanism: {mechanism.name}"
    return card(title, rows_html(rows), statement_card, kind="mechanism")


def release_html(release, statement_card: str) -> str:
    """A card for a release: the released value, the noise, its statement's card."""
    rows = [
        ("released value", release.answer),
        ("mechanism", release.mechanism),
        ("noise", release.noise),
        ("n", release.n),
    ]
    if getattr(release, "population", ""):  # the model the statement rests on
        rows.append(("population model", release.population))
    if getattr(release, "basis", ""):  # what gamma rests on: a public sample
        rows.append(("what gamma rests on", release.basis))
    return card(
        f"Release: {release.query}",
        rows_html(rows),
        statement_card,
        kind="release",
    )


def plan_html(plan) -> str:
    """A card for a :class:`~sensampler.app.planning.ReleasePlan`."""

    def units(text: str) -> str:
        return printing.with_unit(text, plan.unit)

    rows = [
        ("query", f"{plan.query} of n={plan.n} records"),
        ("population", plan.population),
        ("mechanism", plan.mechanism),
        (
            "epsilon",
            printing.epsilon(plan.epsilon)
            + (f", delta={printing.delta(plan.delta)}" if plan.delta else "")
            + plan.cap_words,
        ),
        ("guarantee", plan.guarantee),
        ("expected error", units(printing.error(plan.expected_error))),
        ("90% of errors", f"<= {units(printing.error(plan.error_90))}"),
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
        sensitivity = units(printing.sensitivity(plan.sensitivity))
        rows.append(("sensitivity", f"{sensitivity} (mean over {plan.runs} runs)"))
        figure = histogram_svg(
            plan.sensitivities,
            [(plan.sensitivity, f"mean sensitivity = {sensitivity}", BLUE)],
            label="the sampled sensitivity G_(k) of each planning run",
            axis="sampled sensitivity G_(k), one per planning run",
            counts="runs",
        )
    if plan.target_error is not None:
        rows.insert(
            3, ("target", f"{units(printing.value(plan.target_error))} ({plan.measure})")
        )
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
