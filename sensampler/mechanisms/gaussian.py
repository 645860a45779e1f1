"""Gaussian mechanisms: classic and analytic (epsilon, delta), Rényi and zCDP calibrations."""

from __future__ import annotations

import functools
import math
import sys
from fractions import Fraction

import numpy as np

from .._lib.domains import (
    DELTA_NORMAL,
    EPSILON_POINT,
    GAUSSIAN_VARIANTS,
    ORDER,
    POSITIVE,
    RHO_TARGET,
    documented,
)
from .._math.balle_wang import MAX_M
from .._math.balle_wang import delta_with_error as _analytic_delta_with_error
from .._math.curves import gaussian_curve
from .._math.search import falling_root
from ..privacy import Noise, PrivacyStatement
from ._base import (
    Mechanism,
    check_delta,
    check_epsilon,
    check_noise_scale,
    check_worst_case_epsilon,
    exposed,
    quotient_down,
    quotient_up,
    read_only,
    resolve_sensitivity,
    worst_case_statement,
    zcdp_worst_case_statement,
)

__all__ = [
    "GaussianMechanism",
    "RenyiGaussianMechanism",
    "ZCDPGaussianMechanism",
    "classic_gaussian_sigma",
    "analytic_gaussian_sigma",
    "analytic_gaussian_delta",
    "gaussian_epsilon",
    "MIN_DELTA",
]

#: Default cap on a worst-case rho (or Rényi divergence), as a multiple of the
#: one requested: both grow as the square of the sensitivity, so 100 lets the
#: worst-case sensitivity reach 10 times the sampled one, as the epsilon cap of
#: 10 times epsilon does for Laplace noise.
WORST_CASE_SQUARED_FACTOR = 100.0


@documented
def classic_gaussian_sigma(epsilon: float, delta: float) -> float:
    r"""Noise for sensitivity 1: :math:`\sigma = \sqrt{2\ln(1.25/\delta)}/\epsilon`.

    Dwork & Roth (2014), Thm. A.1, proved for :math:`0 < \epsilon < 1`; the theorem
    asks :math:`c^2 > 2\ln(1.25/\delta)` and the boundary value holds too, as the
    exact privacy curve of the Gaussian mechanism is continuous in sigma
    (Balle & Wang 2018, Thm. 8). The logarithm is taken as
    :math:`\ln 1.25 - \ln\delta`, finite for every delta > 0.

    Parameters
    ----------
    epsilon : float
        ``0 < epsilon < 1``.
    delta : float
        ``{DELTA_TARGET:delta}``.

    Returns
    -------
    float
        Noise standard deviation per unit of L2 sensitivity.

    Raises
    ------
    TypeError, ValueError
        Naming ``epsilon`` or ``delta`` when they are not numbers in range
        (``0 < epsilon < 1``, ``{DELTA_TARGET:delta}``), or ``epsilon`` when sigma
        overflows a double.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if not epsilon < 1.0:
        raise ValueError(
            "the classic Gaussian calibration is proved for epsilon < 1 "
            f"(Dwork & Roth 2014, Thm. A.1), got epsilon={epsilon!r}; use "
            "variant='analytic' for epsilon >= 1."
        )
    sigma = math.sqrt(2.0 * (math.log(1.25) - math.log(delta))) / epsilon
    if not math.isfinite(sigma):
        raise ValueError(
            f"epsilon is too small: the classic sigma for delta={delta!r} "
            f"overflows a double, got epsilon={epsilon!r}."
        )
    return sigma


#: Log of the largest double: the largest log-sigma searched.
_LOG_MAX = math.log(sys.float_info.max)

#: Smallest delta the analytic functions take: the smallest normal double (below
#: it, results lose their relative accuracy).
MIN_DELTA = DELTA_NORMAL.low


def _check_sigma(sigma) -> float:
    return POSITIVE.check("sigma", sigma)


def _check_small_delta(delta) -> float:
    """``delta`` in ``[MIN_DELTA, 1)``, or raise naming it."""
    return DELTA_NORMAL.check("delta", delta)


def analytic_gaussian_delta(sigma: float, epsilon: float) -> float:
    r"""Smallest delta for which N(0, sigma^2) noise on sensitivity 1 is (epsilon, delta)-DP.

    Balle & Wang (2018), Thm. 8:
    :math:`\delta(\sigma) = \Phi(\tfrac{1}{2\sigma} - \epsilon\sigma)
    - e^{\epsilon}\Phi(-\tfrac{1}{2\sigma} - \epsilon\sigma)`, evaluated through
    ``erfcx`` without overflow (see :func:`_analytic_delta_with_error`) and
    returned with its evaluation error bound added (capped at 1): never below
    the exact delta, and above it by at most twice that bound.

    Parameters
    ----------
    sigma : float
        Noise standard deviation per unit of L2 sensitivity, ``> 0``.
    epsilon : float
        ``>= 0``.

    Returns
    -------
    float
        The delta, in ``[0, 1]``, never below the exact one.

    Raises
    ------
    TypeError, ValueError
        Naming ``sigma`` or ``epsilon``; also where no accurate evaluation is
        known (:math:`1/(2\sigma) + \epsilon\sigma > 10^6` outside the far
        tails, i.e. epsilon near :math:`1/(2\sigma^2)` for sigma below about
        :math:`10^{-6}`).
    """
    sigma = _check_sigma(sigma)
    epsilon = EPSILON_POINT.check("epsilon", epsilon)
    value, error = _analytic_delta_with_error(sigma, epsilon)
    if error == math.inf:
        raise ValueError(
            "delta cannot be evaluated accurately where 1/(2 sigma) + epsilon "
            f"sigma > {MAX_M:g}, got sigma={sigma!r}, epsilon={epsilon!r}."
        )
    return min(1.0, value + error)


def _holds(sigma: float, epsilon: float, delta: float) -> bool:
    """Whether the exact delta at (sigma, epsilon) is provably at most ``delta``."""
    value, error = _analytic_delta_with_error(sigma, epsilon)
    return value + error <= delta


def analytic_gaussian_sigma(epsilon: float, delta: float) -> float:
    r"""Smallest sigma (sensitivity 1) with ``analytic_gaussian_delta(sigma, epsilon) <= delta``.

    Solved by ``brentq`` on the log of the exact condition to a relative
    tolerance of 1e-13 in sigma (:func:`~sensampler._math.search.falling_root`),
    then raised (by doubling steps from 1e-13 (1 + abs(ln sigma)) in ln sigma,
    then bisected back to that first step) to where the computed delta *plus
    its evaluation error bound* (:func:`_analytic_delta_with_error`) is at
    most ``delta``. The exact delta
    at the returned sigma is therefore at most ``delta``: the returned sigma is
    never below the exact solution.

    It exceeds the exact solution by a relative amount that grows as epsilon
    and delta shrink (the certified evaluation error, over a slope of delta
    in sigma that flattens, and the doubling steps): measured against a
    50-digit mpmath solution over 449 points (epsilon from 1e-8 to 1000, delta
    from 1e-300 to 0.9), never above

    .. math:: 2\cdot10^{-12} + 5\cdot10^{-13}\,\ln(1/\delta)/\epsilon

    (at most 0.54 of it). The largest excesses measured (before the step-up
    bisected back to its first step, :func:`~sensampler._math.search.step_up`,
    which lands nearer: 6.4e-4 instead of 1.1e-3 at epsilon = 1e-8, delta =
    1e-300, checked against mpmath): 1.1e-12 for
    epsilon >= 1 and delta >= 1e-15; 1.3e-10 for epsilon >= 0.1 and any
    delta >= 1e-300; 2.1e-9 for epsilon >= 1e-3 and delta >= 1e-30; 1.6e-8 for
    epsilon >= 1e-3; 1.3e-7 for epsilon >= 1e-4; 1.7e-5 for epsilon >= 1e-6;
    1.1e-3 at epsilon = 1e-8, delta = 1e-300. Always above, never below.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        ``MIN_DELTA <= delta < 1`` (the smallest normal double, about 2.2e-308).

    Returns
    -------
    float
        Noise standard deviation per unit of L2 sensitivity, never below the
        exact solution.

    Raises
    ------
    TypeError, ValueError
        Naming ``epsilon`` or ``delta``; also when sigma overflows a double.
    """
    epsilon = check_epsilon(epsilon)
    delta = _check_small_delta(delta)

    def excess(log_sigma):
        d = _analytic_delta_with_error(math.exp(log_sigma), epsilon)[0]
        return (math.log(d) if d > 0 else -1e300) - math.log(delta)

    # delta(sigma) -> 1 as sigma -> 0 and <= 1/(sigma sqrt(2 pi)) < MIN_DELTA at
    # sigma = e^709 (Balle & Wang 2018, Thm. 8), so the bracket is found in range;
    # the root is then raised until the certified delta is at most delta.
    log_sigma = falling_root(
        excess,
        -1.0,
        1.0,
        xtol=1e-13,
        rtol=1e-13,
        limit=_LOG_MAX,
        holds=lambda t: _holds(math.exp(t), epsilon, delta),
    )
    if log_sigma == math.inf:
        raise ValueError(
            f"epsilon is too small for delta={delta!r}: no certified sigma "
            f"is a finite double, got epsilon={epsilon!r}."
        )
    return math.exp(log_sigma)


def gaussian_epsilon(sigma: float, delta: float) -> float:
    """Smallest epsilon for which N(0, sigma^2) noise on sensitivity 1 is (epsilon, delta)-DP.

    Inverts Balle & Wang's exact condition (Thm. 8) in epsilon: ``brentq`` on
    the computed delta plus its evaluation error bound (capped at 1), which
    falls in epsilon (:func:`~sensampler._math.search.falling_root`), then raised
    until that certified delta is at most ``delta``, so the returned epsilon is
    never below the exact one.

    Parameters
    ----------
    sigma : float
        Noise standard deviation per unit of L2 sensitivity, ``> 0``.
    delta : float
        ``MIN_DELTA <= delta < 1`` (the smallest normal double, about 2.2e-308).

    Returns
    -------
    float
        The epsilon, ``>= 0``, never below the exact one.

    Raises
    ------
    TypeError, ValueError
        Naming ``sigma`` or ``delta``; also when epsilon overflows a double.
    """
    sigma = _check_sigma(sigma)
    delta = _check_small_delta(delta)

    def certified_excess(eps):
        value, error = _analytic_delta_with_error(sigma, eps)
        return min(1.0, value + error) - delta

    eps = falling_root(
        certified_excess,
        0.0,
        1.0,
        xtol=1e-14,
        rtol=1e-14,
        floor=0.0,
        limit=sys.float_info.max,
        holds=lambda e: certified_excess(e) <= 0,
    )
    if eps == math.inf:
        raise ValueError(
            f"sigma is too small for delta={delta!r}: its epsilon overflows "
            f"a double, got sigma={sigma!r}."
        )
    return eps


def _per_coordinate_scales(delta_vec):
    r"""Noise multipliers for per-coordinate L2 sensitivities :math:`\Delta_j`.

    Noise :math:`\sigma_1 s_j` on coordinate j with :math:`s_j = \sqrt{\Delta_j
    \lVert\Delta\rVert_1}` is the unit-sensitivity mechanism applied to
    :math:`f_j / s_j`, whose L2 sensitivity is
    :math:`\sqrt{\sum_j \Delta_j^2 / s_j^2} = 1`; among such allocations it
    minimises the total variance (a Lagrange multiplier), which is
    :math:`\sigma_1^2\lVert\Delta\rVert_1^2 \le \sigma_1^2 d\lVert\Delta\rVert_2^2`.
    """
    return np.sqrt(delta_vec * delta_vec.sum())


def _covering(sigma, unit, sensitivity, per_coordinate):
    r"""``sigma`` raised by ulps where needed so that it is at least ``unit``
    times the scale it stands for, exactly: :math:`\sigma \ge \sigma_1\Delta`,
    or per coordinate :math:`\sigma_j^2 \ge \sigma_1^2\Delta_j\sum_k\Delta_k`
    (so that :math:`\sum_j \Delta_j^2/\sigma_j^2 \le 1/\sigma_1^2`, see
    :func:`_per_coordinate_scales`): the products and square root of floats
    round to nearest, and the statement is that of ``unit``."""
    if not per_coordinate:
        exact = Fraction(unit) * Fraction(sensitivity)
        while math.isfinite(sigma) and Fraction(sigma) < exact:
            sigma = math.nextafter(sigma, math.inf)
        return sigma
    deltas = [Fraction(float(d)) for d in np.ravel(sensitivity)]
    total = sum(deltas, Fraction(0))
    square = Fraction(unit) ** 2
    out = np.array(sigma, dtype=float)
    flat = out.reshape(-1)
    for j, d in enumerate(deltas):
        while math.isfinite(flat[j]) and Fraction(flat[j]) ** 2 < square * d * total:
            flat[j] = math.nextafter(flat[j], math.inf)
    return out


def zcdp_of_sigma(sensitivity: float, sigma: float) -> float:
    r"""zCDP of Gaussian noise: :math:`\Delta^2/(2\sigma^2)`, rounded up to a double.

    Bun & Steinke (2016), Prop. 1.6; computed exactly with fractions, so the
    result is never below the exact value. ``sensitivity >= 0`` and ``sigma > 0``
    finite (0 for a sensitivity of 0).
    """
    if sensitivity == 0:
        return 0.0
    exact = Fraction(sensitivity) ** 2 / (2 * Fraction(sigma) ** 2)
    return quotient_up(exact.numerator, exact.denominator)


def zcdp_floor_sigma(sensitivity: float, cap: float) -> float:
    r"""The smallest double sigma with :math:`\Delta^2/(2\sigma^2) \le` ``cap``
    exactly: the noise floor that keeps the worst case of Gaussian noise within a
    zCDP cap (Bun & Steinke 2016, Prop. 1.6). 0 for a sensitivity of 0;
    ``inf`` where it overflows (refused by the caller)."""
    if sensitivity == 0:
        return 0.0
    sigma = sensitivity * math.sqrt(0.5 / cap)  # within a few ulps of the floor
    if not math.isfinite(sigma):
        return math.inf
    limit = 2 * Fraction(cap)
    while Fraction(sensitivity) ** 2 > limit * Fraction(sigma) ** 2:
        sigma = math.nextafter(sigma, math.inf)
    while sigma > 0:  # the smallest such double
        below = math.nextafter(sigma, 0.0)
        if below == 0 or Fraction(sensitivity) ** 2 > limit * Fraction(below) ** 2:
            break
        sigma = below
    return sigma


class _Gaussian(Mechanism):
    r"""Shared by the Gaussian mechanisms: noise sigma * s_j, Rényi curve alpha / (2 sigma_1^2).

    The Rényi curve, zCDP parameter and :class:`~sensampler.privacy.Noise`
    (one Gaussian pair of standard deviation sigma_1) are exact for scalar and
    per-coordinate sensitivities alike: per coordinate, the release is the
    unit-sensitivity mechanism applied to the rescaled query (see
    :func:`_per_coordinate_scales`), whose worst pair of neighbours is
    N(0, sigma_1^2 I), N(u, sigma_1^2 I) with :math:`\lVert u\rVert_2 = 1`.
    """

    accepted_norms = ("l2", "l1", "coordinate")

    def _setup(self, unit_sigma, parameters):
        """Set the noise from its unit sigma; ``parameters`` names the inputs."""
        delta = self._sensitivity.value
        with np.errstate(over="ignore"):
            sigma = (
                unit_sigma * _per_coordinate_scales(delta)
                if self._sensitivity.per_coordinate
                else unit_sigma * delta
            )
        check_noise_scale(unit_sigma, parameters, drawn=False)
        check_noise_scale(sigma, f"sensitivity={delta!r}, {parameters}")
        sigma = _covering(sigma, unit_sigma, delta, self._sensitivity.per_coordinate)
        rho = 0.5 / (unit_sigma * unit_sigma)  # the rho the statement gives
        if not sys.float_info.min <= rho < math.inf:
            raise ValueError(
                f"the zCDP parameter for {parameters} is {rho!r}, beyond the "
                "normal doubles, where it could not be stated accurately."
            )
        self._unit_sigma = unit_sigma  # sigma for L2 sensitivity 1
        self._sigma = read_only(sigma)

    @property
    def sensitivity(self) -> float | np.ndarray:
        """The L2 sensitivity the noise is calibrated to (a float or an array)."""
        return exposed(self._sensitivity.value)

    @property
    def sigma(self) -> float | np.ndarray:
        """Noise standard deviation (per coordinate for per-coordinate sensitivities)."""
        return exposed(self._sigma)

    @property
    def scale(self) -> float | np.ndarray:
        """Standard deviation of the noise (per coordinate where it is an array)."""
        return exposed(self._sigma)

    def renyi_epsilon(self, alpha: float) -> float:
        r"""Rényi DP of order alpha: :math:`\alpha/(2\sigma^2)` for L2 sensitivity 1.

        Mironov (2017), Prop. 7, with sigma the noise per unit of sensitivity.

        Parameters
        ----------
        alpha : float
            Rényi order, ``> 1``.

        Returns
        -------
        float
            The Rényi divergence bound at ``alpha``.
        """
        return gaussian_curve(self._unit_sigma, alpha)

    @property
    def rho(self) -> float:
        r"""zCDP parameter :math:`\Delta_2^2/(2\sigma^2)` (Bun & Steinke 2016, Prop. 1.6),
        rounded up (every sigma is at least its unit sigma times the scale, exactly)."""
        return zcdp_of_sigma(1.0, self._unit_sigma)

    def _floor_for_rho(self, cap: float, name: str) -> None:
        """Raise sigma so that the worst case is at most ``cap``-zCDP (for an
        estimate with a worst-case sensitivity; per coordinate, every sigma_j)."""
        worst = self._sensitivity.worst_case
        if worst is None:
            return
        floor = zcdp_floor_sigma(worst, cap)
        check_noise_scale(floor, f"worst_case={worst!r}, {name}={cap!r}")
        self._raise_sigma(floor)

    def _raise_sigma(self, floor: float) -> None:
        """Raise sigma (every coordinate's) to at least ``floor``."""
        sigma = np.maximum(self._sigma, floor)
        self._sigma = read_only(float(sigma) if sigma.ndim == 0 else sigma)

    def _zcdp_worst_case(self) -> PrivacyStatement | None:
        r""":math:`\Delta_{wc}^2/(2\sigma^2)`-zCDP for every pair (Bun & Steinke
        2016, Prop. 1.6), rounded up, with its Rényi curve; None without a
        worst-case sensitivity. Per coordinate, sigma is the least
        :math:`\sigma_j` and :math:`\Delta_{wc}` the l1 norm of the change,
        which bounds :math:`\lVert v/\sigma\rVert_2` by
        :math:`\Delta_{wc}/\min_j\sigma_j`."""
        worst = self._sensitivity.worst_case
        if worst is None:
            return None
        rho = zcdp_of_sigma(worst, float(np.min(self._sigma)))
        return zcdp_worst_case_statement(self.name, self._sensitivity, rho)

    def _guarantee(self, epsilon, delta, worst_case=None):
        return self._statement(
            epsilon,
            delta,
            rho=self.rho,
            rdp=functools.partial(gaussian_curve, self._unit_sigma),
            noise=Noise("gaussian", (float(self._unit_sigma),)),
            worst_case=worst_case,
        )

    def release(self, value, *, random_state=None):
        """Return ``value`` plus Gaussian noise (same shape); draws nothing on bad input.

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the noise; ``None`` (default) draws fresh entropy.

        Returns
        -------
        float or ndarray
            ``value`` plus N(0, :attr:`scale` ** 2) noise per coordinate.
        """
        arr, rng = self.check_release(value, random_state=random_state)
        out = arr + rng.standard_normal(size=arr.shape) * self._sigma
        return float(out) if out.ndim == 0 else out


@documented
class GaussianMechanism(_Gaussian):
    r"""Adds N(0, sigma^2) noise calibrated for (epsilon, delta)-DP.

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
        L2 sensitivity (an estimate in the ``"l2"`` norm; ``"l1"`` also works as it
        bounds L2 from above), or per-coordinate sensitivities.
    epsilon : float
        ``> 0``; the classic variant needs ``epsilon < 1``.
    delta : float
        ``{DELTA_TARGET:delta}``.
    variant : {"analytic", "classic"}, default "analytic"
        ``"analytic"``: the smallest sigma meeting the exact condition of Balle
        & Wang (2018), Thm. 8, for every epsilon > 0. ``"classic"``:
        :math:`\sigma = \Delta_2\sqrt{2\ln(1.25/\delta)}/\epsilon` (Dwork &
        Roth 2014, Thm. A.1; the source documents' calibration), 1.38 times
        the analytic sigma at (0.5, 1e-5).
    worst_case_epsilon : float, optional
        Cap on the worst-case epsilon (at the same delta), for an estimate that
        carries a worst-case sensitivity :math:`\Delta_{wc}` (sampled with
        bounds): sigma is raised to at least :math:`\Delta_{wc}` times the
        analytic sigma of (``worst_case_epsilon``, delta). Default: 10 times
        ``epsilon``.

    Notes
    -----
    **Worst case.** With :math:`\Delta_{wc}`, the statement's ``worst_case``
    is :math:`(\epsilon_{wc}, \delta)`-DP for every pair of neighbours, with
    :math:`\epsilon_{wc}` the smallest epsilon of Balle & Wang's exact
    condition (Thm. 8) for the noise :math:`\sigma/\Delta_{wc}` per unit of
    sensitivity (:func:`gaussian_epsilon`, never below the exact one), and
    zCDP :math:`\Delta_{wc}^2/(2\sigma^2)` (Bun & Steinke 2016, Prop. 1.6).
    Per coordinate, every :math:`\sigma_j` is floored alike and the worst case
    is stated from the least of them, with :math:`\Delta_{wc}` the l1 norm of
    the change over all coordinates (it bounds the l2 norm).

    Examples
    --------
    >>> round(GaussianMechanism(1.0, 0.5, 1e-5).sigma, 4)
    7.0318
    >>> round(GaussianMechanism(1.0, 0.5, 1e-5, variant="classic").sigma, 4)
    9.6896
    """

    def __init__(
        self,
        sensitivity,
        epsilon: float,
        delta: float,
        variant: str = "analytic",
        worst_case_epsilon: float | None = None,
    ):
        self._sensitivity = resolve_sensitivity(
            sensitivity, self.accepted_norms, "GaussianMechanism", floor=True,
            per_coordinate_floor=True,
        )
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.variant = GAUSSIAN_VARIANTS.check("variant", variant)
        self.worst_case_epsilon = check_worst_case_epsilon(
            worst_case_epsilon, self.epsilon
        )
        self.name = f"Gaussian ({variant})"
        unit = (
            classic_gaussian_sigma if variant == "classic" else analytic_gaussian_sigma
        )(self.epsilon, self.delta)
        self._setup(unit, f"epsilon={self.epsilon!r}, delta={self.delta!r}")
        worst = self._sensitivity.worst_case
        if worst is not None:
            floor = analytic_gaussian_sigma(self.worst_case_epsilon, self.delta) * worst
            check_noise_scale(
                floor,
                f"worst_case={worst!r}, worst_case_epsilon={self.worst_case_epsilon!r}",
            )
            self._raise_sigma(floor)
            # The analytic sigma inverts Balle & Wang's condition to a few ulps
            # and the stated epsilon is certified (rounded up): it can land that
            # far above the cap. Raise sigma by a relative 2^-40 until it does not.
            while worst > 0 and self._worst_case_unit(worst)[1] > self.worst_case_epsilon:
                self._raise_sigma(float(np.min(self._sigma)) * (1.0 + 2.0**-40))

    def _privacy_statement(self) -> PrivacyStatement:
        return self._guarantee(self.epsilon, self.delta, self._worst_case_statement())

    def _worst_case_unit(self, worst: float) -> tuple[float, float]:
        """``(sigma per unit of the worst-case sensitivity, its epsilon)``: the
        least sigma over ``worst`` rounded down, so the epsilon is never below
        the exact one."""
        unit = quotient_down(float(np.min(self._sigma)), worst)
        return unit, gaussian_epsilon(unit, self.delta)

    def _worst_case_statement(self) -> PrivacyStatement | None:
        """(epsilon_wc, delta)-DP for every pair from the same sigma, or None
        (per coordinate: from the least sigma, see :meth:`_zcdp_worst_case`)."""
        worst = self._sensitivity.worst_case
        if worst is None:
            return None
        if worst == 0:
            return worst_case_statement(self.name, self._sensitivity, 0.0, 0.0, rho=0.0)
        unit, epsilon = self._worst_case_unit(worst)
        return worst_case_statement(
            self.name,
            self._sensitivity,
            epsilon,
            self.delta,
            rho=zcdp_of_sigma(worst, float(np.min(self._sigma))),
            rdp=functools.partial(gaussian_curve, unit),
            noise=Noise("gaussian", (unit,)),
        )


class RenyiGaussianMechanism(_Gaussian):
    r"""Gaussian noise calibrated for (alpha, epsilon_bar)-Rényi DP.

    :math:`\sigma^2 = \Delta_2^2\alpha/(2\bar\epsilon)` (Mironov 2017, Prop. 7).
    The privacy statement carries the whole Rényi curve
    :math:`\alpha' \mapsto \alpha'\Delta_2^2/(2\sigma^2)`, which the accountants use.

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
    alpha : float
        Rényi order, ``> 1``.
    epsilon_bar : float
        Rényi divergence bound at ``alpha``, ``> 0``.
    worst_case_epsilon_bar : float, optional
        Cap on the worst-case Rényi divergence at ``alpha``, for an estimate
        that carries a worst-case sensitivity :math:`\Delta_{wc}` (sampled with
        bounds). Default: 100 times ``epsilon_bar`` (the divergence grows as
        the square of the sensitivity: the worst-case sensitivity may be 10
        times the sampled one before the floor raises the noise).

    Notes
    -----
    **Worst case.** With :math:`\Delta_{wc}`, sigma is raised to at least
    :math:`\Delta_{wc}\sqrt{\alpha/(2\bar\epsilon_{cap})}` and the statement's
    ``worst_case`` is :math:`\rho_{wc} = \Delta_{wc}^2/(2\sigma^2)`-zCDP for
    every pair of neighbours, i.e. the Rényi curve :math:`\alpha'\rho_{wc}`
    (Mironov 2017, Prop. 7; Bun & Steinke 2016, Prop. 1.6), at most the cap at
    ``alpha``. A sampled sensitivity of 0 then releases with the floor's noise.
    Per coordinate, every :math:`\sigma_j` is floored alike and the worst case
    is stated from the least of them, with :math:`\Delta_{wc}` the l1 norm of
    the change over all coordinates (it bounds the l2 norm).
    """

    name = "Gaussian (Rényi)"

    def __init__(
        self,
        sensitivity,
        alpha: float,
        epsilon_bar: float,
        worst_case_epsilon_bar: float | None = None,
    ):
        self._sensitivity = resolve_sensitivity(
            sensitivity, self.accepted_norms, "RenyiGaussianMechanism", floor=True,
            per_coordinate_floor=True,
        )
        self.alpha = ORDER.check("alpha", alpha)
        self.epsilon_bar = POSITIVE.check("epsilon_bar", epsilon_bar)
        self.worst_case_epsilon_bar = (
            WORST_CASE_SQUARED_FACTOR * self.epsilon_bar
            if worst_case_epsilon_bar is None
            else POSITIVE.check("worst_case_epsilon_bar", worst_case_epsilon_bar)
        )
        unit = math.sqrt(0.5 * self.alpha / self.epsilon_bar)  # no 2 eps_bar overflow
        self._setup(unit, f"alpha={self.alpha!r}, epsilon_bar={self.epsilon_bar!r}")
        # the Rényi divergence alpha * rho at alpha: the cap as a zCDP rho
        self._floor_for_rho(
            self.worst_case_epsilon_bar / self.alpha, "worst_case_epsilon_bar / alpha"
        )

    def _privacy_statement(self) -> PrivacyStatement:
        return self._guarantee(None, None, self._zcdp_worst_case())


class ZCDPGaussianMechanism(_Gaussian):
    r"""Gaussian noise calibrated for rho-zCDP: :math:`\sigma^2 = \Delta_2^2/(2\rho)`.

    Bun & Steinke (2016), Prop. 1.6; sigma per unit of sensitivity is the least
    double with :math:`1/(2\sigma^2) \le \rho` exactly, and each sigma at least
    that times its sensitivity, so the rho stated is never below that of the noise.

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
    rho : float
        ``> 0``.
    worst_case_rho : float, optional
        Cap on the worst-case rho, for an estimate that carries a worst-case
        sensitivity :math:`\Delta_{wc}` (sampled with bounds). Default: 100
        times ``rho`` (rho grows as the square of the sensitivity, as for
        :class:`~sensampler.mechanisms.DiscreteGaussianMechanism`).

    Notes
    -----
    **Worst case.** With :math:`\Delta_{wc}`, sigma is raised to at least
    :math:`\Delta_{wc}/\sqrt{2\rho_{cap}}` and the statement's ``worst_case``
    is :math:`\Delta_{wc}^2/(2\sigma^2)`-zCDP for every pair of neighbours
    (Bun & Steinke 2016, Prop. 1.6, with :math:`\Delta_{wc}`), at most the
    cap; the random-DP statement keeps rho (more noise only helps), and a
    sampled sensitivity of 0 releases with the floor's noise. Per coordinate,
    every :math:`\sigma_j` is floored alike and the worst case is stated from
    the least of them, with :math:`\Delta_{wc}` the l1 norm of the change over
    all coordinates (it bounds the l2 norm).
    """

    name = "Gaussian (zCDP)"

    def __init__(self, sensitivity, rho: float, worst_case_rho: float | None = None):
        self._sensitivity = resolve_sensitivity(
            sensitivity, self.accepted_norms, "ZCDPGaussianMechanism", floor=True,
            per_coordinate_floor=True,
        )
        rho = RHO_TARGET.check("rho", rho)
        self.worst_case_rho = (
            WORST_CASE_SQUARED_FACTOR * rho
            if worst_case_rho is None
            else RHO_TARGET.check("worst_case_rho", worst_case_rho)
        )
        # the least unit sigma whose rho is at most the one asked, exactly
        self._setup(zcdp_floor_sigma(1.0, rho), f"rho={rho!r}")
        self._floor_for_rho(self.worst_case_rho, "worst_case_rho")

    def _privacy_statement(self) -> PrivacyStatement:
        return self._guarantee(None, None, self._zcdp_worst_case())
