r"""What every mechanism shares: its privacy statement and how it reads a sensitivity.

A mechanism reads the provenance of its sensitivity through
:func:`resolve_sensitivity` only, and states it in its
:class:`~sensampler.privacy.PrivacyStatement`:

* a :class:`~sensampler.SensitivityEstimate` or a sampled
  :class:`~sensampler.estimate.SensitivityValue` gives random DP with the run's
  gamma;
* a typical or derived value (a mean, or arithmetic that may lower a sampled
  value) gives a statement with no guarantee, which accountants refuse;
* a plain number or array is a global bound the caller vouches for, over
  replace-one neighbours (two databases of n records differing in one).

The statement holds for the neighbouring relation of the sensitivity's
sampling run (``run.neighbours``: ``"replace-one"`` or ``"add-remove"``), and
for replace-one neighbours when there is no run. A global add/remove
sensitivity :math:`\Delta` bounds the replace-one sensitivity by
:math:`2\Delta` (a replacement is a removal and an addition; triangle
inequality): pass ``2 * Delta`` for a replace-one statement.
"""

from __future__ import annotations

import abc
import functools
import inspect
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from numbers import Real
from typing import Any

import numpy as np

from .._display.releases import mechanism_html
from .._display.statements import statement_html
from .._lib.default_budget import spend_then_release
from .._lib.domains import DELTA_TARGET, EPSILON
from .._lib.validation import check_array, check_random_state, check_real
from .._math.curves import zcdp_curve
from .._math.rounding import float_down, float_up
from ..estimate import (
    Coverage,
    SensitivityEstimate,
    SensitivityEstimates,
    SensitivityValue,
)
from ..privacy import (
    NEIGHBOURS,
    Noise,
    PrivacyStatement,
    SamplingRun,
    pure_dp_rdp,
)

__all__ = [
    "Mechanism",
    "resolve_sensitivity",
    "pure_dp_rdp",
    "bounded_range_rdp",
    "pure_dp_zcdp",
    "check_noise_scale",
    "drawable",
    "LARGEST_NOISE_SCALE",
    "UNIT_DRAW_BOUND",
    "check_worst_case_epsilon",
    "floor_scale",
    "quotient_up",
    "worst_case_statement",
    "zcdp_worst_case_statement",
    "WORST_CASE_FACTOR",
    "exposed",
    "read_only",
]

@dataclass(frozen=True)
class _Sensitivity:
    """A sensitivity as a mechanism uses it: value, norm, where it came from, and
    what it covers (``None`` for a plain number: the caller vouches for it)."""

    value: float | np.ndarray
    norm: str | None
    source: str
    run: SamplingRun | None
    coverage: Coverage | None = None
    label: str = "sensitivity"
    #: The sensitivity over every pair of neighbours of the query on clipped
    #: records, and the bounds (an estimate's ``worst_case`` and ``bounds``).
    worst_case: float | None = None
    bounds: Any = None

    @property
    def per_coordinate(self) -> bool:
        return np.ndim(self.value) > 0


def _check_value(value):
    """A non-negative finite float, or a 1-d array of them, named ``sensitivity``."""
    if np.ndim(value) == 0:
        if isinstance(value, np.ndarray):
            value = value[()]
        return check_real("sensitivity", value, low=0.0)
    arr = check_array("sensitivity", value, ndim=1, nonnegative=True).copy()
    if arr.size == 0:
        raise ValueError(
            f"sensitivity must hold at least one coordinate, got sensitivity={value!r}."
        )
    arr.flags.writeable = False
    return arr


def resolve_sensitivity(
    sensitivity,
    accepted_norms: tuple[str, ...],
    mechanism_name: str,
    *,
    floor: bool = False,
    per_coordinate_floor: bool = False,
) -> _Sensitivity:
    """Read a sensitivity and its provenance.

    Parameters
    ----------
    sensitivity : SensitivityEstimate, SensitivityValue, real or array of reals
        An estimate (its order statistic is used), a value carrying its
        provenance, or a plain number or array: a global bound the caller
        vouches for (any :class:`numbers.Real`, :class:`~decimal.Decimal` or
        numeric array).
    accepted_norms : tuple of str
        Norms the mechanism accepts (its ``accepted_norms`` class attribute).
    mechanism_name : str
        Named in error messages.
    floor : bool, default False
        The mechanism puts a worst-case floor under its noise
        (``worst_case_epsilon``): a sampled sensitivity of 0 is then accepted
        when the estimate carries a worst-case sensitivity.
    per_coordinate_floor : bool, default False
        The floor covers per-coordinate sensitivities too (a coordinate of 0
        is then accepted as well).

    Returns
    -------
    _Sensitivity
        Value, norm (``None`` for a plain number), source, sampling run and
        coverage (:class:`~sensampler.estimate.Coverage`; ``None`` for a plain
        number). A mechanism refuses to release a value of another shape than
        the coverage's (see ``Mechanism._checked_value``).

    Raises
    ------
    TypeError
        For several parts (index a part), strings, bytes, ``None`` or booleans.
    ValueError
        For a norm the mechanism does not accept, or a negative or non-finite
        value; and for a sampled sensitivity with a coordinate 0 unless the
        mechanism floors its noise on the estimate's worst-case sensitivity:
        the release would be exact, publishing the data as they are.
    """
    resolved = _resolve(sensitivity, accepted_norms, mechanism_name)
    if resolved.source == "sampled" and np.any(np.asarray(resolved.value) == 0):
        floored = resolved.worst_case is not None and (
            per_coordinate_floor or not resolved.per_coordinate
        )
        if not (floor and floored):
            raise ValueError(
                f"{mechanism_name}: the sampled sensitivity is 0, so the release "
                "would be exact (the population model does not reach the data "
                "where they differ); nothing was released or spent. Give bounds: "
                "sample_sensitivity(..., bounds=Bounds.from_population(population)) "
                "or `sensampler release --bounds ...`, and calibrate with the "
                "estimate itself (a Laplace or Gaussian mechanism, l1 or l2 norm), "
                "whose worst-case sensitivity floors the noise."
            )
    return resolved


def _resolve(sensitivity, accepted_norms, mechanism_name) -> _Sensitivity:
    """:func:`resolve_sensitivity` without the check of a zero sampled value."""
    if isinstance(sensitivity, SensitivityEstimates):
        raise TypeError(
            f"{mechanism_name} needs one sensitivity, got the estimates of several "
            "query parts; index a part (result[0] or result['name'])."
        )
    worst_case = bounds = None
    if isinstance(sensitivity, SensitivityEstimate):
        worst_case, bounds = sensitivity.worst_case, sensitivity.bounds
        sensitivity = sensitivity.sensitivity
    if isinstance(sensitivity, SensitivityValue):
        if sensitivity.norm is not None and sensitivity.norm not in accepted_norms:
            raise ValueError(
                f"{mechanism_name} needs a sensitivity in the "
                f"{' or '.join(accepted_norms)} norm, got an estimate with "
                f"norm={sensitivity.norm!r}."
            )
        return _Sensitivity(
            _check_value(sensitivity.value),
            sensitivity.norm,
            sensitivity.source,
            sensitivity.run,
            sensitivity.coverage,
            sensitivity.label,
            worst_case,
            bounds,
        )
    if isinstance(sensitivity, (str, bytes, bool, np.bool_)) or sensitivity is None:
        raise TypeError(
            "sensitivity must be a number, an array or a SensitivityEstimate, "
            f"got {sensitivity!r}."
        )
    if isinstance(sensitivity, Decimal):
        sensitivity = float(sensitivity)
    if np.ndim(sensitivity) == 0 and not isinstance(sensitivity, (Real, np.ndarray)):
        raise TypeError(
            "sensitivity must be a number, an array or a SensitivityEstimate, "
            f"got {sensitivity!r}."
        )
    return _Sensitivity(_check_value(sensitivity), None, "global", None)


def _bounded_range_curve(epsilon, alpha):
    # min(epsilon, alpha epsilon^2 / 8), without overflow for any finite epsilon
    return epsilon * min(1.0, alpha * epsilon / 8.0)


def pure_dp_zcdp(epsilon: float, divisor: float = 2.0) -> float:
    r"""zCDP parameter of an epsilon-DP mechanism: :math:`\min(\epsilon,
    \epsilon^2/c)`, ``c = divisor``.

    Epsilon-DP implies :math:`\epsilon^2/2`-zCDP (Bun & Steinke 2016, Prop.
    3.3; ``divisor=2``), and epsilon-bounded range :math:`\epsilon^2/8`-zCDP
    (Cesar & Rogers 2021; ``divisor=8``). Epsilon-DP also implies
    epsilon-zCDP: :math:`D_\alpha \le D_\infty \le \epsilon \le
    \alpha\epsilon` for every alpha > 1 (Rényi divergence grows with its
    order; van Erven & Harremoës 2014, Thm. 3), so the smaller of the two
    holds. Computed exactly as :math:`\epsilon\min(1, \epsilon/c)` and
    rounded up to a double, so never below it, finite for every finite epsilon.

    Examples
    --------
    >>> pure_dp_zcdp(1.0), pure_dp_zcdp(4.0), pure_dp_zcdp(4.0, 8.0)
    (0.5, 4.0, 2.0)
    """
    if not math.isfinite(epsilon):
        return epsilon
    exact = Fraction(epsilon)
    return float_up(exact * min(Fraction(1), exact / Fraction(divisor)))


def bounded_range_rdp(epsilon: float) -> Callable[[float], float]:
    r"""Rényi curve of an epsilon-bounded-range mechanism: :math:`\min(\epsilon,
    \alpha\epsilon^2/8)`.

    A mechanism is epsilon-bounded-range (Durfee & Rogers 2019) when, for
    every pair of neighbours, its privacy loss L takes values in an interval
    of width epsilon; the exponential mechanism with weights
    :math:`\exp(\epsilon u/(2\Delta u))` is (each candidate's log-weight
    moves by at most epsilon/2, the normaliser shifts them all alike).
    Cesar & Rogers (2021, "Bounding, Concentrating, and Truncating", Sec. 3)
    show that epsilon-bounded range implies :math:`\epsilon^2/8`-zCDP, i.e.
    :math:`(\alpha, \alpha\epsilon^2/8)`-RDP for every alpha > 1, against
    :math:`\epsilon^2/2` for a general epsilon-DP mechanism; and the interval
    contains 0 (:math:`E_Q[e^L] = 1`), so :math:`|L| \le \epsilon` and the
    mechanism is epsilon-DP: :math:`D_\alpha \le \epsilon`. Tested against
    the exact Rényi divergences of exponential mechanisms. A picklable callable.
    """
    return functools.partial(_bounded_range_curve, epsilon)


#: A bound on the magnitude of one unit noise draw numpy returns: Laplace
#: noise is the log of twice a uniform on the 2**-53 grid (at most 52 ln 2,
#: about 36.04), a standard normal's ziggurat tail r + 53 ln 2 / r at most
#: (r = 3.654, about 13.7).
UNIT_DRAW_BOUND = 64.0
#: The largest noise scale a release may use: above it a draw can overflow a
#: double (to inf), and refusing after the draw would depend on it.
LARGEST_NOISE_SCALE = sys.float_info.max / UNIT_DRAW_BOUND


def drawable(scale) -> bool:
    """Whether every noise scale in ``scale`` is at most :data:`LARGEST_NOISE_SCALE`
    (NaN is not)."""
    return bool(np.all(np.asarray(scale, dtype=float) <= LARGEST_NOISE_SCALE))


def check_noise_scale(scale, parameters: str, *, drawn: bool = True) -> None:
    """Refuse a noise scale that is not finite (an overflow of the calibration)
    or, for a scale noise is drawn at (``drawn``), one above
    :data:`LARGEST_NOISE_SCALE`, whose draws can overflow a double.

    ``parameters`` names the inputs and values it came from, e.g.
    ``"sensitivity=1.0, epsilon=1e-320"``.
    """
    if not np.all(np.isfinite(scale)):
        raise ValueError(
            f"the noise scale for {parameters} is not finite (it overflows a "
            "double); no release would be useful or correctly random."
        )
    if drawn and not drawable(scale):
        raise ValueError(
            f"the noise scale for {parameters} is {float(np.max(scale)):.6g}, above "
            f"{LARGEST_NOISE_SCALE:.6g}: a draw of its noise can overflow a double "
            "(to inf); no release would be useful."
        )


class _Frozen(abc.ABCMeta):
    """Metaclass of :class:`Mechanism`: an instance is frozen once built.

    After the whole chain of ``__init__`` methods returns, the instance records
    the arguments it was built with (for :meth:`Mechanism.recalibrate`),
    computes its privacy statement once, and refuses any further assignment or
    deletion of an attribute. Done here, once, so that no subclass can forget.
    """

    def __call__(cls, *args, **kwargs):
        mechanism = super().__call__(*args, **kwargs)
        bound = inspect.signature(cls.__init__).bind(mechanism, *args, **kwargs)
        arguments = {
            name: _snapshot(value)
            for name, value in list(bound.arguments.items())[1:]  # not self
        }
        statement = mechanism._privacy_statement()
        if not isinstance(statement, PrivacyStatement):
            raise TypeError(
                f"{cls.__name__}._privacy_statement must return a "
                f"PrivacyStatement, got {statement!r}."
            )
        object.__setattr__(mechanism, "_arguments", arguments)
        object.__setattr__(mechanism, "_privacy", statement)
        object.__setattr__(mechanism, "_frozen", True)
        return mechanism

    @property
    def __signature__(cls) -> inspect.Signature:
        """The constructor's signature without ``self``, for ``help`` and the docs.

        Without it, :func:`inspect.signature` of a mechanism class would be the
        ``(*args, **kwargs)`` of :meth:`__call__` above.
        """
        if cls.__init__ is object.__init__:  # the abstract base
            return inspect.Signature()
        init = inspect.signature(cls.__init__)
        return init.replace(parameters=list(init.parameters.values())[1:])


def _snapshot(value):
    """An argument as the mechanism keeps it: arrays and lists copied, read-only."""
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.flags.writeable = False
    elif isinstance(value, list):
        value = tuple(value)
    return value


def read_only(arr):
    """``arr`` (an ndarray, or a scalar returned as is) made read-only in place.

    For arrays a mechanism computes and keeps (noise scales); its public
    properties hand out :func:`exposed` copies of them.
    """
    if isinstance(arr, np.ndarray):
        arr.flags.writeable = False
    return arr


def exposed(arr):
    """What a public property returns for ``arr``: a read-only view of a fresh copy.

    Scalars are returned as is. Setting ``writeable`` back on the view is
    refused (its base is read-only), and a write through its ``base``, a copy,
    never reaches the mechanism: its noise and statement keep matching.
    """
    if not isinstance(arr, np.ndarray):
        return arr
    view = read_only(arr.copy()).view()
    view.flags.writeable = False
    return view


class Mechanism(abc.ABC, metaclass=_Frozen):
    """Base class: ``release(value, *, random_state=None)`` and a ``privacy`` statement.

    :meth:`check_release` validates a release's inputs without drawing anything;
    ``release`` calls it first, and so does
    :meth:`sensampler.accounting.PrivacyFilter.release` before it spends.

    **Immutable.** Once built, a mechanism refuses the assignment or deletion
    of any attribute (:class:`AttributeError`), like a frozen dataclass or
    SciPy's new distributions, and the arrays it exposes are read-only: its
    noise and its statement, computed once at construction, always match. For
    other parameters build a new one with :meth:`recalibrate`. Pickling and
    copying keep it frozen, with an equal statement.

    Mechanisms use numpy's generators: good for reproducible research, not a
    hardened source of randomness (no protection against floating-point or
    timing attacks) for production releases.

    **Default budget.** With a process-wide default filter set
    (:func:`sensampler.accounting.set_default_filter`), every ``release`` spends
    from it first, through the filter's own ``release``: every argument is
    validated and a release over budget raises
    :class:`~sensampler.accounting.ExceededPrivacyBudgetError` before anything
    is drawn. A release made through a filter's ``release`` spends from that
    filter only.

    Subclasses set their attributes in ``__init__`` and compute their statement
    in :meth:`_privacy_statement`, called once when ``__init__`` returns; the
    ``release`` a subclass defines is wrapped once, here, to spend from the
    default budget, so that no subclass can forget.
    """

    name = "mechanism"
    #: The sensitivity the noise is calibrated to (``None`` for mechanisms,
    #: like randomized response, whose privacy needs none).
    _sensitivity: _Sensitivity | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        release = cls.__dict__.get("release")
        if release is not None and not getattr(release, "__isabstractmethod__", False):
            cls.release = spend_then_release(release)

    @abc.abstractmethod
    def _privacy_statement(self) -> PrivacyStatement:
        """Compute the statement of one release (called once, at construction)."""

    @property
    def privacy(self) -> PrivacyStatement:
        """The privacy statement of one release, computed once at construction.

        A frozen :class:`~sensampler.privacy.PrivacyStatement`: the mechanism's
        name, its epsilon and delta, its zCDP rho and Rényi curve where the
        mechanism has them, and, for a sampled sensitivity, the sampling run
        and the gamma of random DP it certifies (each mechanism's docstring
        gives the theorem behind its numbers). Not recomputed: it always
        matches the noise, since a mechanism is immutable.
        """
        return self._privacy

    def recalibrate(self, **changes) -> Mechanism:
        """A new mechanism built with some arguments changed, like :func:`dataclasses.replace`.

        Parameters
        ----------
        **changes
            Constructor arguments to change, by name (e.g. ``epsilon=0.1``);
            the others are those this mechanism was built with.

        Returns
        -------
        Mechanism
            A new mechanism of the same class, built (and checked) by its
            ``__init__``, with its own statement; this one is unchanged.

        Raises
        ------
        TypeError
            Naming an argument the constructor does not take.

        Examples
        --------
        >>> from sensampler.mechanisms import LaplaceMechanism
        >>> LaplaceMechanism(2.0, 0.5).recalibrate(epsilon=1.0).scale
        2.0
        """
        unknown = sorted(set(changes) - set(self._parameters()))
        if unknown:
            raise TypeError(
                f"{type(self).__name__} takes no argument {unknown[0]!r}; its "
                f"arguments are {', '.join(self._parameters())}."
            )
        return type(self)(**{**self._arguments, **changes})

    @classmethod
    def _parameters(cls) -> list[str]:
        return list(inspect.signature(cls.__init__).parameters)[1:]

    def _refuse(self, name: str, action: str):
        raise AttributeError(
            f"{type(self).__name__} is immutable: cannot {action} {name!r} after "
            "construction (its noise and privacy statement are fixed); build a "
            f"new one with mechanism.recalibrate(...) (arguments: "
            f"{', '.join(self._parameters())})."
        )

    def __setattr__(self, name: str, value) -> None:
        if self.__dict__.get("_frozen", False):
            self._refuse(name, "set")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self.__dict__.get("_frozen", False):
            self._refuse(name, "delete")
        object.__delattr__(self, name)

    @abc.abstractmethod
    def release(self, value, *, random_state=None):
        """Release ``value`` privately; nothing is drawn on bad input.

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the noise; ``None`` (default) draws fresh entropy.

        Returns
        -------
        object
            The private release (its type depends on the mechanism).
        """

    def _checked_value(self, value) -> np.ndarray:
        """``value`` as the mechanism's array (:meth:`_value_array`), of the
        shape its sensitivity covers.

        A sensitivity that records its coverage (every sampled or derived
        value does) covers releases of exactly ``coverage.shape``: a scalar
        taken from a per-coordinate estimate covers one coordinate, not a
        vector; an l1 estimate of a 2-vector query covers 2-vectors only.
        Subclasses override :meth:`_value_array`, never this check.
        """
        arr = self._value_array(value)
        sensitivity = self._sensitivity
        if sensitivity is None:
            return arr
        if sensitivity.per_coordinate and arr.shape != np.shape(sensitivity.value):
            raise ValueError(
                f"value must have the shape of the per-coordinate "
                f"sensitivity {np.shape(sensitivity.value)}, got {arr.shape}."
            )
        coverage = sensitivity.coverage
        if coverage is not None and not coverage.covers(arr.shape):
            raise ValueError(
                f"value must have the shape {coverage.shape} that the sensitivity "
                f"{sensitivity.label!r} covers ({coverage.describe()}, "
                f"norm={sensitivity.norm!r}), got value of shape {arr.shape}: a "
                "sensitivity bounds the coordinates it was sampled for, in place."
            )
        return arr

    def _value_array(self, value) -> np.ndarray:
        """``value`` as a finite float array (any shape)."""
        if isinstance(value, (str, bytes)):
            raise TypeError(
                f"value must be a number or an array of numbers, got {value!r}."
            )
        try:
            arr = np.asarray(value, dtype=float)
        except OverflowError as exc:
            raise ValueError(f"value must be finite, got value={value!r}.") from exc
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"value must be a number or an array of numbers, got {value!r}."
            ) from exc
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"value must be finite, got value={value!r}.")
        return arr

    def check_release(
        self, value, *, random_state=None
    ) -> tuple[np.ndarray, np.random.Generator]:
        """Validate a release's inputs without drawing anything.

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the noise; ``None`` (default) draws fresh entropy.

        Returns
        -------
        (value, generator) : (ndarray, numpy.random.Generator)
            The checked value and the generator ``release`` draws from (a
            ``Generator`` given is returned as is).

        Raises
        ------
        TypeError, ValueError
            Naming the bad ``value`` or ``random_state``.
        """
        return self._checked_value(value), check_random_state(random_state)

    def _statement(
        self,
        epsilon,
        delta,
        *,
        rho=None,
        rdp=None,
        noise: Noise | None = None,
        worst_case: PrivacyStatement | None = None,
    ) -> PrivacyStatement:
        """The statement of a mechanism calibrated with ``self._sensitivity``,
        for the neighbouring relation of its run (replace-one without a run),
        with its worst-case part where the sensitivity carries one."""
        s = self._sensitivity
        return PrivacyStatement(
            self.name,
            epsilon,
            delta,
            rho=rho,
            rdp=rdp,
            run=s.run,
            source=s.source,
            neighbours=NEIGHBOURS if s.run is None else s.run.neighbours,
            noise=noise,
            worst_case=worst_case,
        )

    def __repr__(self):
        return f"<{type(self).__name__}: {self.privacy}>"

    def _repr_html_(self) -> str:
        """Rich display in notebooks: name, sensitivity, noise and statement card."""
        statement_card = statement_html(self.privacy)
        return mechanism_html(self, statement_card)


def check_epsilon(epsilon) -> float:
    """``epsilon`` a mechanism is calibrated for (:data:`~sensampler._lib.domains.EPSILON`)."""
    return EPSILON.check("epsilon", epsilon)


def check_delta(delta) -> float:
    """``delta`` a mechanism is calibrated for (:data:`~sensampler._lib.domains.DELTA_TARGET`)."""
    return DELTA_TARGET.check("delta", delta)


#: Default cap on a mechanism's worst-case epsilon, as a multiple of its
#: epsilon (see :func:`check_worst_case_epsilon`).
WORST_CASE_FACTOR = 10.0


def check_worst_case_epsilon(worst_case_epsilon, epsilon: float) -> float:
    """The cap on the worst-case epsilon: as given (``> 0``, finite), or by default
    :data:`WORST_CASE_FACTOR` times ``epsilon``.

    Ten times: the worst-case epsilon of a release is its epsilon times the
    ratio of the worst-case to the sampled sensitivity, and for a model that
    describes the data this ratio is a few units (a mean of heights clipped
    to the model's 0.0005 and 0.9995 quantiles: about 2), so the cap does not
    bind and costs nothing; where the sampled sensitivity is 0 or tiny (a
    tail the model never reaches, a one-row public table) it raises the noise
    so that the release is at most ``10 * epsilon``-DP for every pair of
    neighbours. A relative cap keeps that ratio, whatever epsilon.
    """
    if worst_case_epsilon is None:
        return WORST_CASE_FACTOR * epsilon
    return EPSILON.check("worst_case_epsilon", worst_case_epsilon)


def worst_case_statement(
    name: str,
    sensitivity: _Sensitivity,
    epsilon: float,
    delta: float,
    *,
    rho=None,
    rdp=None,
    noise: Noise | None = None,
) -> PrivacyStatement:
    """The plain DP statement, over every pair of neighbours, of a mechanism
    whose sensitivity carries a worst-case part (a global sensitivity: no run,
    no gamma), for the relation the worst case was derived for."""
    run = sensitivity.run
    bounds = sensitivity.bounds
    clip = "" if bounds is None else f", records clipped to {bounds.describe()}"
    return PrivacyStatement(
        f"{name} (worst case{clip})",
        epsilon,
        delta,
        rho=rho,
        rdp=rdp,
        neighbours=NEIGHBOURS if run is None else run.neighbours,
        noise=noise,
    )


def zcdp_worst_case_statement(
    name: str, sensitivity: _Sensitivity, rho: float
) -> PrivacyStatement:
    """:func:`worst_case_statement` of a part stated in zCDP only: ``rho``-zCDP
    for every pair, with its Rényi curve (Bun & Steinke 2016, Prop. 1.6)."""
    return worst_case_statement(
        name, sensitivity, None, None, rho=rho, rdp=functools.partial(zcdp_curve, rho)
    )


def quotient_up(numerator: float, denominator: float) -> float:
    """The smallest double at least ``numerator / denominator`` (exact, by
    :class:`~fractions.Fraction`): an epsilon computed so is never below the
    exact one. Both finite, ``denominator > 0``."""
    return float_up(Fraction(numerator) / Fraction(denominator))


def quotient_down(numerator: float, denominator: float) -> float:
    """The largest double at most ``numerator / denominator`` (exact, by
    :class:`~fractions.Fraction`): noise per unit of sensitivity computed so
    never states more noise than there is. Both finite, ``numerator >= 0``,
    ``denominator > 0``."""
    return float_down(Fraction(numerator) / Fraction(denominator))


def floor_scale(worst_case: float, cap: float) -> float:
    """The smallest double scale s with ``worst_case / s <= cap`` exactly: the
    noise floor that keeps the worst-case epsilon of Laplace noise within the cap."""
    try:
        scale = float(Fraction(worst_case) / Fraction(cap))
    except OverflowError:  # refused by check_noise_scale
        return math.inf
    while scale < math.inf and Fraction(worst_case) / Fraction(scale) > Fraction(cap):
        scale = math.nextafter(scale, math.inf)
    return scale
