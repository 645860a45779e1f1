"""Numbers printed so that they never state more privacy than holds.

A leaf module (it imports nothing of the package), so that the rich displays
(:mod:`sensampler._display.html`) round as the text forms do: what was spent, every
epsilon, delta, rho and gamma rounded up (:func:`upper`, behind
:func:`sensampler.privacy.format_upper`), what is left of a budget and a
confidence ``1 - gamma`` rounded down (:func:`lower`); and an exact value
stored as the double at or above it (:func:`float_up`).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction

__all__ = ["float_up", "lower", "upper"]


def upper(value: float, digits: int) -> str:
    """``value`` with ``digits`` significant digits, rounded up.

    The smallest decimal of ``digits`` significant digits that reads back as
    at least ``value`` (decided exactly by :mod:`decimal` on the float's exact
    value); see :func:`sensampler.privacy.format_upper`.
    """
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return format(value, f".{digits}g")
    exact = Decimal(value)
    step = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    below = float(exact.quantize(step, rounding=ROUND_FLOOR))
    if below != value:  # the decimal below reads as a smaller float: round up
        below = float(exact.quantize(step, rounding=ROUND_CEILING))
    return format(below, f".{digits}g")


def lower(value: float, digits: int) -> str:
    """``value`` with ``digits`` significant digits, rounded down: the negative
    of the round-up of ``-value``."""
    if value == 0 or not math.isfinite(value):
        return upper(value, digits)
    text = upper(-value, digits)
    return text[1:] if value > 0 else "-" + text


def float_up(value: Fraction) -> float:
    """The smallest double at least ``value`` (``inf`` beyond the largest double)."""
    try:
        out = float(value)
    except OverflowError:
        return math.inf
    return out if Fraction(out) >= value else math.nextafter(out, math.inf)
