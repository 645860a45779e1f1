"""Numbers printed so that they never state more privacy than holds.

A leaf module (it imports nothing of the package), so that the rich displays
(:mod:`sensampler._display`) round as the text forms do: what was spent, every
epsilon, delta, rho and gamma rounded up (:func:`upper`, behind
:func:`sensampler.privacy.format_upper`), what is left of a budget and a
confidence ``1 - gamma`` rounded down (:func:`lower`); and an exact value
stored as the double at or above it (:func:`float_up`) or at or below it
(:func:`float_down`).
"""

from __future__ import annotations

import math
import sys
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction

__all__ = ["float_down", "float_up", "lower", "upper"]


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
    return 0.0 - float_down(-value)  # 0.0 - 0.0 is 0.0, where -0.0 would print "-0"


def float_down(value: Fraction) -> float:
    """The largest double at most ``value``: the largest double below the exact
    value where it is not one itself.

    Beyond the largest double it is that double (``-inf`` below the most
    negative one): a scale, a noise or a bound rounded so never states more
    than holds.

    >>> float_down(Fraction(1, 10)) < 0.1 == float_up(Fraction(1, 10))
    True
    """
    try:
        out = float(value)
    except OverflowError:
        return sys.float_info.max if value > 0 else -math.inf
    return out if Fraction(out) <= value else math.nextafter(out, -math.inf)
