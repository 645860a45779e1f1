"""How every number is printed for people: one policy, one module.

The text forms (``__str__``, summaries), the rich displays
(:mod:`sensampler._display`), the release report, the command line's human
output and the human fields of its JSON all print numbers through these
functions, so that one number reads the same everywhere (the numeric fields
of the JSON stay exact floats).

- **Privacy parameters** (:func:`epsilon`, :func:`delta`, :func:`gamma`,
  :func:`rho`): rounded *up* to a fixed number of significant digits each
  (:data:`PRIVACY_DIGITS`), so that a printed parameter read back is never
  below the one that holds; a worst-case epsilon is an epsilon.
- **What is left of a budget**, a lower bound (:func:`down`) and a **confidence**
  ``1 - gamma`` (:func:`confidence`): rounded *down*, never more than holds.
- **Sensitivities** (:func:`sensitivity`), a bound that scales noise, and the
  noise scales derived from it: rounded *up* to 6 significant digits, so that a
  copied value never calibrates less noise.
- **Errors** (:func:`error`): rounded *up* to :data:`ERROR_DIGITS`
  significant digits (an error is never under-reported), and **values**
  (:func:`value`) to the precision of their error (the decimal place of the
  error's last printed digit), or to 6 significant digits without one.

No digit grouping: a printed number is one token that Python, a shell and a
spreadsheet read back as it is. A unit, where one was given, follows the
number after a space (:func:`with_unit`).

>>> gamma(0.04981423103679866), confidence(1 - 0.04981423103679866)
('0.04982', '0.9501')
>>> value(169.48123, 0.2897), error(2897.31)
('169.481', '2900')
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

from .._math.rounding import lower, upper

__all__ = [
    "ERROR_DIGITS",
    "PRIVACY_DIGITS",
    "cell",
    "confidence",
    "delta",
    "epsilon",
    "error",
    "gamma",
    "down",
    "rho",
    "sensitivity",
    "sensitivities",
    "value",
    "values",
    "with_unit",
]

#: Significant digits of each privacy parameter, printed rounded up.
PRIVACY_DIGITS = {"epsilon": 6, "delta": 3, "gamma": 4, "rho": 6}

#: Significant digits of an error (and of a confidence), printed rounded up
#: (rounded down for a confidence).
ERROR_DIGITS = 3

#: Significant digits of a sensitivity or a noise scale (rounded up) and of a
#: value without an error.
SENSITIVITY_DIGITS = 6


def epsilon(value: float) -> str:
    """An epsilon (a worst-case one too), rounded up to 6 significant digits.

    >>> epsilon(0.3703701)
    '0.370371'
    """
    return upper(value, PRIVACY_DIGITS["epsilon"])


def delta(value: float) -> str:
    """A delta, rounded up to 3 significant digits.

    >>> delta(1.0000001e-6)
    '1.01e-06'
    """
    return upper(value, PRIVACY_DIGITS["delta"])


def gamma(value: float) -> str:
    """A gamma (or a beta, a probability of failure), rounded up to 4
    significant digits.

    >>> gamma(0.0498143)
    '0.04982'
    """
    return upper(value, PRIVACY_DIGITS["gamma"])


def rho(value: float) -> str:
    """A rho (zCDP, or the sampler's share of gamma), rounded up to 6
    significant digits."""
    return upper(value, PRIVACY_DIGITS["rho"])


def down(value: float, kind: str) -> str:
    """A parameter of ``kind`` rounded down: what is left of a budget, a lower
    confidence bound (never more than holds).

    Parameters
    ----------
    value : float
        The amount left.
    kind : {"epsilon", "delta", "gamma", "rho"}
        The parameter, which fixes its significant digits.

    Returns
    -------
    str

    Examples
    --------
    >>> down(0.15018577, "gamma")
    '0.1501'
    """
    return lower(value, PRIVACY_DIGITS[kind])


def confidence(value: float) -> str:
    """A confidence (such as ``1 - gamma``), rounded down to 4 significant digits.

    >>> confidence(0.9501857)
    '0.9501'
    """
    return lower(value, PRIVACY_DIGITS["gamma"])


def sensitivity(value: float) -> str:
    """A sensitivity or a noise scale, rounded up to 6 significant digits.

    >>> sensitivity(0.07153761)
    '0.0715377'
    """
    return upper(float(value), SENSITIVITY_DIGITS)


def sensitivities(values) -> str:
    """A sensitivity, or an array of them as ``[a b …]`` (at most 8 shown),
    each rounded up (:func:`sensitivity`)."""
    array = np.asarray(values, dtype=float)
    if not array.ndim:
        return sensitivity(float(array))
    shown = " ".join(sensitivity(float(v)) for v in array.ravel()[:8])
    return f"[{shown}{' …' if array.size > 8 else ''}]"


def error(value: float) -> str:
    """An error (a half-width, an expected or a bounded error), rounded up to
    3 significant digits: never printed smaller than it is.

    >>> error(2897.31), error(0.0012341)
    ('2900', '0.00124')
    """
    return _plain(upper(value, ERROR_DIGITS))


def _plain(text: str) -> str:
    """``text`` without a positive exponent below 15 (``2.9e+03`` is ``2900``):
    people read errors and values of the data in its units."""
    if "e+" in text and int(text.partition("e+")[2]) < 15:
        return format(Decimal(text), "f")
    return text


def _place(err: float) -> int:
    """The decimal exponent of the last digit :func:`error` prints of ``err``."""
    return math.floor(math.log10(float(error(err)))) - ERROR_DIGITS + 1


def value(x: float, err: float | None = None) -> str:
    """A value, to the precision of its error ``err`` (or 6 significant digits).

    With a positive finite error, the value is rounded (to nearest) at the
    decimal place of the last digit :func:`error` prints of it; without one
    it has 6 significant digits.

    Parameters
    ----------
    x : float
        The value (a released answer, a bound, a planned value).
    err : float, optional
        Its error, in the same units.

    Returns
    -------
    str

    Examples
    --------
    >>> value(169.48123, 0.2897), value(12345.6, 2897.0), value(169.48123)
    ('169.481', '12350', '169.481')
    """
    x = float(x)
    if not math.isfinite(x):
        return format(x, "g")
    if err is None or not math.isfinite(err) or err <= 0:
        return _plain(format(x, f".{SENSITIVITY_DIGITS}g"))
    place = _place(err)
    if place >= 0:
        rounded = round(x, -place)
        return format(0.0 if rounded == 0 else rounded, ".0f")
    return format(round(x, -place), f".{-place}f")


def values(x, err: float | None = None) -> str:
    """A value or an array of them as ``[a b …]`` (at most 8 shown), each by
    :func:`value` with the error ``err``."""
    array = np.asarray(x, dtype=float)
    if not array.ndim:
        return value(float(array), err)
    shown = " ".join(value(float(v), err) for v in array.ravel()[:8])
    return f"[{shown}{' …' if array.size > 8 else ''}]"


def with_unit(text: str, unit: str | None) -> str:
    """``text`` followed by the unit, if one was given.

    >>> with_unit("169.48", "cm"), with_unit("169.48", None)
    ('169.48 cm', '169.48')
    """
    return f"{text} {unit}" if unit else text


#: Result-table columns printed as a privacy parameter or a sensitivity.
_COLUMNS = {
    "epsilon": epsilon,
    "worst_case_epsilon": epsilon,
    "delta": delta,
    "gamma": gamma,
    "beta": gamma,
    "rho": rho,
    "sensitivity": sensitivity,
}


def cell(column: str, value) -> str:
    """A result table's cell: a float of a privacy parameter's or a
    sensitivity's column by its function (rounded up), another float to 5
    significant digits, anything else as it is.

    >>> cell("gamma", 0.0498142), cell("rate", 0.0047213), cell("verdict", "ok")
    ('0.04982', '0.0047213', 'ok')
    """
    if not isinstance(value, float):
        return str(value)
    if column in _COLUMNS and not math.isnan(value):
        return _COLUMNS[column](value)
    return format(value, ".5g")
