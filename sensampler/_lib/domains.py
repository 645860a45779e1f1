r"""Each parameter domain of sensampler, declared once.

A domain is what a parameter may hold: an :class:`Interval` of reals or a
:class:`Choice` of strings. Validation, error messages and documentation all
read the same object, so that ``delta`` cannot mean ``[0, 1]`` in one place
and ``(0, 1)`` in another by accident (scikit-learn's
``sklearn.utils._param_validation.Interval`` plays the same role).

>>> EPSILON.check("epsilon", 0.5)
0.5
>>> str(DELTA_STATED), str(ORDER)
('[0, 1]', '(1, inf)')

Usage: ``value = DOMAIN.check("parameter_name", value)`` returns the value as a
float (or the string), or raises :class:`TypeError` (not a real number, a
boolean, a string) or :class:`ValueError` naming the parameter, the rule and
the value. ``DOMAIN.contains(value)`` tests without raising; ``str(DOMAIN)``
is the interval in mathematical notation, for docs and messages, and
``DOMAIN.text("delta")`` the rule on a named parameter, for docstrings.

Docstrings write a domain's rule as a field ``{DOMAIN:name}``, filled once at
import by the decorator :func:`documented`:

>>> @documented
... def f(delta):
...     "``{DELTA_TARGET:delta}``."
>>> f.__doc__
'``0 < delta < 1``.'

An interval includes ``inf`` only when its upper end is ``inf`` and closed:
``EPSILON_STATED`` is :math:`[0, \infty]`, since a statement may say "no finite
epsilon"; the parameters of mechanisms are finite.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from numbers import Real

import numpy as np

from .validation import check_choice, check_real

__all__ = [
    "Interval",
    "Choice",
    "EPSILON",
    "EPSILON_STATED",
    "EPSILON_POINT",
    "DELTA_TARGET",
    "DELTA_STATED",
    "GAMMA",
    "PROBABILITY",
    "PROBABILITY_CLOSED",
    "DELTA_RELEASE",
    "DELTA_ADVANCED",
    "DELTA_NORMAL",
    "RHO",
    "RHO_TARGET",
    "RUN_RHO",
    "ORDER",
    "ORDER_OR_INF",
    "POSITIVE",
    "NOISE_RATIO",
    "NEIGHBOUR_RELATIONS",
    "SOURCES",
    "INEQUALITIES",
    "NOISE_KINDS",
    "FILTER_RULES",
    "ESTIMATOR_NORMS",
    "GAUSSIAN_VARIANTS",
    "DP_CONVERSIONS",
    "documented",
]


def _number(x: float) -> str:
    return "inf" if x == math.inf else f"{x:g}"


@dataclass(frozen=True)
class Interval:
    """An interval of reals, its ends open or closed; ``inf`` only as a closed end.

    Attributes
    ----------
    low, high : float
        The ends (``high`` may be ``inf``).
    low_closed, high_closed : bool
        Whether each end belongs to the interval. ``high=inf`` with
        ``high_closed=True`` admits ``inf`` itself.
    high_text : str, optional
        How the upper end is written in docs (``"1/e"``), when not as a number.
    """

    low: float
    high: float
    low_closed: bool
    high_closed: bool
    high_text: str | None = None

    def check(self, name: str, value) -> float:
        """Return ``value`` as a float in the interval, or raise naming ``name``.

        Parameters
        ----------
        name : str
            The parameter, named in the message.
        value : object
            A real number (not a boolean, a string or ``None``).

        Returns
        -------
        float

        Raises
        ------
        TypeError
            When ``value`` is not a real number.
        ValueError
            When it is NaN, or outside the interval (with the rule and the value).
        """
        if (
            self.high == math.inf
            and self.high_closed
            and isinstance(value, Real)
            and not isinstance(value, (bool, np.bool_))
            and value == math.inf
        ):
            return math.inf
        return check_real(
            name,
            value,
            low=self.low,
            high=None if self.high == math.inf else self.high,
            low_strict=not self.low_closed,
            high_strict=not self.high_closed,
        )

    def contains(self, value) -> bool:
        """Whether ``value`` is a real number in the interval (never raises)."""
        try:
            self.check("value", value)
        except (TypeError, ValueError):
            return False
        return True

    def _high(self) -> str:
        return self.high_text or _number(self.high)

    def text(self, name: str) -> str:
        """The rule on a parameter ``name``, as docstrings write it.

        ``"0 < delta < 1"``, ``"0 <= delta <= 1"``; an interval unbounded
        above reads ``"epsilon > 0"`` (or ``"epsilon >= 0, inf included"``).

        Parameters
        ----------
        name : str
            The parameter.

        Returns
        -------
        str
        """
        low = f"{'>=' if self.low_closed else '>'} {_number(self.low)}"
        if self.high == math.inf:
            return f"{name} {low}" + (", inf included" if self.high_closed else "")
        return (
            f"{_number(self.low)} {'<=' if self.low_closed else '<'} {name} "
            f"{'<=' if self.high_closed else '<'} {self._high()}"
        )

    def __str__(self) -> str:
        return (
            f"{'[' if self.low_closed else '('}{_number(self.low)}, "
            f"{self._high()}{']' if self.high_closed else ')'}"
        )


@dataclass(frozen=True)
class Choice:
    """A finite set of strings.

    Attributes
    ----------
    values : tuple of str
    """

    values: tuple[str, ...]

    def check(self, name: str, value) -> str:
        """Return ``value`` if it is one of :attr:`values`, or raise naming ``name``.

        Parameters
        ----------
        name : str
            The parameter, named in the message.
        value : object

        Returns
        -------
        str

        Raises
        ------
        ValueError
            Listing the allowed values.
        """
        return check_choice(name, value, self.values)

    def contains(self, value) -> bool:
        """Whether ``value`` is one of :attr:`values`."""
        return isinstance(value, str) and value in self.values

    def __iter__(self):
        return iter(self.values)

    def __str__(self) -> str:
        return "{" + ", ".join(repr(v) for v in self.values) + "}"


_INF = math.inf

#: epsilon a mechanism is calibrated for (or a budget): finite, > 0.
EPSILON = Interval(0.0, _INF, False, False)
#: epsilon a statement or a bound holds: >= 0, ``inf`` when no finite one holds.
EPSILON_STATED = Interval(0.0, _INF, True, True)
#: epsilon at which a privacy curve is evaluated (delta(epsilon)), or of a step
#: a composition theorem takes: finite, >= 0.
EPSILON_POINT = Interval(0.0, _INF, True, False)
#: delta a mechanism is calibrated for, or a conversion targets: 0 < delta < 1.
DELTA_TARGET = Interval(0.0, 1.0, False, False)
#: delta a statement or a bound holds: 0 <= delta <= 1.
DELTA_STATED = Interval(0.0, 1.0, True, True)
#: Random-DP failure probability: 0 <= gamma <= 1.
GAMMA = Interval(0.0, 1.0, True, True)
#: A probability strictly between 0 and 1.
PROBABILITY = Interval(0.0, 1.0, False, False)
#: A probability, 0 and 1 included (a Bernoulli p, a quantile's level).
PROBABILITY_CLOSED = Interval(0.0, 1.0, True, True)
#: delta a release, an audit or a budget asks for, or of a step a composition
#: theorem takes: 0 <= delta < 1 (0 for pure DP).
DELTA_RELEASE = Interval(0.0, 1.0, True, False)
#: delta of the advanced composition filter: 0 < delta < 1/e (Rogers, Roth,
#: Ullman & Vadhan 2016, Thm. 5.1).
DELTA_ADVANCED = Interval(0.0, 1.0 / math.e, False, False, "1/e")
#: delta the analytic Gaussian functions take: from the smallest normal double
#: (below it, their results lose their relative accuracy) to below 1.
DELTA_NORMAL = Interval(sys.float_info.min, 1.0, True, False)
#: zCDP parameter a statement holds: finite, >= 0.
RHO = Interval(0.0, _INF, True, False)
#: zCDP parameter a mechanism is calibrated for: finite, > 0.
RHO_TARGET = Interval(0.0, _INF, False, False)
#: A sampling run's own share of gamma (not zCDP): 0 <= rho <= 1.
RUN_RHO = Interval(0.0, 1.0, True, True)
#: Rényi order, finite, > 1.
ORDER = Interval(1.0, _INF, False, False)
#: Rényi order, > 1, ``inf`` allowed (the max-divergence).
ORDER_OR_INF = Interval(1.0, _INF, False, True)
#: A finite positive real (a noise standard deviation, a Rényi bound).
POSITIVE = Interval(0.0, _INF, False, False)
#: Noise scale per unit of sensitivity, > 0; ``inf`` for a coordinate that cannot move.
NOISE_RATIO = Interval(0.0, _INF, False, True)

#: Neighbouring relations a statement or a sampling run may hold for:
#: ``"replace-one"`` (two databases of n records differing in one) and
#: ``"add-remove"`` (D of n - 1 records and D with one record more).
NEIGHBOUR_RELATIONS = Choice(("replace-one", "add-remove"))
#: What neighbouring databases differ in: one ``"record"`` (a row), or one
#: ``"person"``'s rows (see :mod:`sensampler.units`).
PRIVACY_UNITS = Choice(("record", "person"))
#: Where a sensitivity comes from (see :mod:`sensampler.privacy`).
SOURCES = Choice(("global", "sampled", "typical", "derived"))
#: Bounds of a sampling plan (see :mod:`sensampler.plan`).
INEQUALITIES = Choice(("exact", "dkw", "exchangeable"))
#: Kinds of additive noise a :class:`~sensampler.privacy.Noise` record describes.
NOISE_KINDS = Choice(("gaussian", "laplace"))
#: Rules of a :class:`~sensampler.accounting.PrivacyFilter` (its own default is
#: "auto", a budget file's "basic").
FILTER_RULES = Choice(("auto", "basic", "advanced"))
#: Calibrations of :class:`~sensampler.mechanisms.GaussianMechanism`: Balle &
#: Wang's analytic one (2018, Thm. 8; the default, any epsilon > 0) and the
#: classic one (Dwork & Roth 2014, Thm. A.1; epsilon < 1).
GAUSSIAN_VARIANTS = Choice(("analytic", "classic"))
#: Conversions of a Rényi curve or a zCDP parameter into (epsilon, delta):
#: "improved" (Canonne, Kamath & Steinke 2020, Prop. 12; the default) and
#: "classic" (Mironov 2017, Prop. 3; Bun & Steinke 2016, Prop. 1.3).
DP_CONVERSIONS = Choice(("improved", "classic"))
#: Norms of a private estimator's sampled sensitivity (its coefficient vector), in
#: :class:`~sensampler.models.PrivateEstimator` and in batch runs.
ESTIMATOR_NORMS = Choice(("l1", "l2"))


#: The domains a docstring may name in a field ``{NAME:parameter}``.
_DOCUMENTED = {k: v for k, v in globals().items() if isinstance(v, Interval)}
_FIELD = re.compile(r"\{([A-Z_]+):([A-Za-z_\[\]0-9]+)\}")


def _fill(doc: str | None) -> str | None:
    if doc is None:
        return None
    return _FIELD.sub(lambda m: _DOCUMENTED[m.group(1)].text(m.group(2)), doc)


def documented(obj):
    """Fill the fields ``{DOMAIN:name}`` of a docstring with the domain's rule.

    A decorator for a function or a class (then also its methods' and
    properties' docstrings), applied once at import: ``{DELTA_TARGET:delta}``
    becomes ``0 < delta < 1`` (:meth:`Interval.text`). A field naming no
    declared interval raises :class:`KeyError` at import.

    Parameters
    ----------
    obj : function or class

    Returns
    -------
    obj
        The same object, its docstrings filled.
    """
    obj.__doc__ = _fill(obj.__doc__)
    if isinstance(obj, type):
        for member in vars(obj).values():
            target = getattr(member, "__func__", member)  # class- and staticmethods
            if isinstance(target, property) or callable(target):
                try:
                    target.__doc__ = _fill(target.__doc__)
                except AttributeError:  # a builtin's docstring is read-only
                    pass
    return obj
