"""Gaussian mechanisms: classic and analytic (epsilon, delta), Rényi and zCDP calibrations."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from .._validation import check_choice, check_random_state, check_real
from ._base import (
    Mechanism,
    PrivacyGuarantee,
    check_delta,
    check_epsilon,
    resolve_sensitivity,
)

__all__ = [
    "GaussianMechanism",
    "RenyiGaussianMechanism",
    "ZCDPGaussianMechanism",
    "classic_gaussian_sigma",
    "analytic_gaussian_sigma",
    "analytic_gaussian_delta",
    "gaussian_epsilon",
]

_L2_NORMS = ("l2", "l1", "coordinate")  # L1 bounds L2 from above


def classic_gaussian_sigma(epsilon: float, delta: float) -> float:
    r"""Noise for sensitivity 1: :math:`\sigma = \sqrt{2\ln(1.25/\delta)}/\epsilon`.

    Dwork & Roth (2014), Thm. A.1, proved for :math:`0 < \epsilon < 1`; the theorem
    asks :math:`c^2 > 2\ln(1.25/\delta)` and the boundary value holds too, as the
    exact privacy curve of the Gaussian mechanism is continuous in sigma
    (Balle & Wang 2018, Thm. 8).
    """
    if not epsilon < 1.0:
        raise ValueError(
            "the classic Gaussian calibration is proved for epsilon < 1 "
            f"(Dwork & Roth 2014, Thm. A.1), got epsilon={epsilon!r}; use "
            "variant='analytic' for epsilon >= 1."
        )
    return math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def analytic_gaussian_delta(sigma: float, epsilon: float) -> float:
    r"""Smallest delta for which N(0, sigma^2) noise on sensitivity 1 is (epsilon, delta)-DP.

    Balle & Wang (2018), Thm. 8:
    :math:`\delta(\sigma) = \Phi(\tfrac{1}{2\sigma} - \epsilon\sigma)
    - e^{\epsilon}\Phi(-\tfrac{1}{2\sigma} - \epsilon\sigma)`, evaluated in log space.
    """
    a = 0.5 / sigma - epsilon * sigma
    b = -0.5 / sigma - epsilon * sigma
    log_a, log_b = special.log_ndtr(a), epsilon + special.log_ndtr(b)
    if log_b >= log_a:
        return 0.0
    return math.exp(log_a) * -math.expm1(log_b - log_a)


def analytic_gaussian_sigma(epsilon: float, delta: float) -> float:
    """Smallest sigma (sensitivity 1) with ``analytic_gaussian_delta(sigma, epsilon) <= delta``.

    Solved by ``brentq`` on the log of the exact condition to a relative
    tolerance of 1e-12 in sigma, then rounded up until the condition holds, so
    the returned sigma is never below the exact one.
    """

    def excess(log_sigma):
        d = analytic_gaussian_delta(math.exp(log_sigma), epsilon)
        return (math.log(d) if d > 0 else -1e300) - math.log(delta)

    lo, hi = -1.0, 1.0
    while excess(lo) <= 0:
        lo -= 2.0
    while excess(hi) > 0:
        hi += 2.0
    log_sigma = optimize.brentq(excess, lo, hi, xtol=1e-13, rtol=1e-13)
    sigma = math.exp(log_sigma)
    while analytic_gaussian_delta(sigma, epsilon) > delta:
        sigma *= 1 + 1e-12
    return sigma


def gaussian_epsilon(sigma: float, delta: float) -> float:
    """Smallest epsilon for which N(0, sigma^2) noise on sensitivity 1 is (epsilon, delta)-DP.

    Inverts Balle & Wang's exact condition (Thm. 8) in epsilon by ``brentq``
    (``analytic_gaussian_delta`` decreases in epsilon), rounded up so the
    condition holds.
    """
    sigma = check_real("sigma", sigma, low=0.0, low_strict=True)
    delta = check_real(
        "delta", delta, low=0.0, high=1.0, low_strict=True, high_strict=True
    )
    if analytic_gaussian_delta(sigma, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while analytic_gaussian_delta(sigma, hi) > delta:
        hi *= 2.0
    eps = optimize.brentq(
        lambda e: analytic_gaussian_delta(sigma, e) - delta,
        0.0,
        hi,
        xtol=1e-14,
        rtol=1e-14,
    )
    while analytic_gaussian_delta(sigma, eps) > delta:
        eps = eps * (1 + 1e-13) + 1e-300
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


class _Gaussian(Mechanism):
    """Shared by the Gaussian mechanisms: noise sigma * s_j, Rényi curve alpha / (2 sigma_1^2)."""

    accepted_norms = ("l2", "l1", "coordinate")

    def _setup(self, unit_sigma):
        delta = self._sensitivity.value
        self._unit_sigma = unit_sigma  # sigma for L2 sensitivity 1
        self._sigma = (
            unit_sigma * _per_coordinate_scales(delta)
            if self._sensitivity.per_coordinate
            else unit_sigma * delta
        )

    @property
    def sensitivity(self):
        return self._sensitivity.value

    @property
    def sigma(self):
        """Noise standard deviation (per coordinate for per-coordinate sensitivities)."""
        return self._sigma

    @property
    def scale(self):
        return self._sigma

    def renyi_epsilon(self, alpha: float) -> float:
        r""":math:`\alpha/(2\sigma^2)` for L2 sensitivity 1 (Mironov 2017, Prop. 7)."""
        return alpha / (2.0 * self._unit_sigma**2)

    @property
    def rho(self) -> float:
        r"""zCDP parameter :math:`\Delta_2^2/(2\sigma^2)` (Bun & Steinke 2016, Prop. 1.6)."""
        return 1.0 / (2.0 * self._unit_sigma**2)

    def _guarantee(self, epsilon, delta):
        s = self._sensitivity
        return PrivacyGuarantee(
            self.name,
            epsilon,
            delta,
            s.gamma,
            s.run_id,
            rho=self.rho,
            rdp=self.renyi_epsilon,
            guaranteed=s.guaranteed,
        )

    def release(self, value, random_state=None):
        """Return ``value`` plus Gaussian noise (same shape); draws nothing on bad input."""
        arr = self._check_value(value, self._sensitivity)
        rng = check_random_state(random_state)
        out = arr + rng.standard_normal(size=arr.shape) * self._sigma
        return float(out) if out.ndim == 0 else out


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
        ``0 < delta < 1``.
    variant : {"classic", "analytic"}, default "classic"
        ``"classic"``: :math:`\sigma = \Delta_2\sqrt{2\ln(1.25/\delta)}/\epsilon`
        (Dwork & Roth 2014, Thm. A.1). ``"analytic"``: the smallest sigma meeting
        the exact condition of Balle & Wang (2018), Thm. 8, for every epsilon > 0.

    Examples
    --------
    >>> round(GaussianMechanism(1.0, 0.5, 1e-5).sigma, 4)
    9.6896
    >>> round(GaussianMechanism(1.0, 0.5, 1e-5, variant="analytic").sigma, 4)
    7.0318
    """

    def __init__(
        self, sensitivity, epsilon: float, delta: float, variant: str = "classic"
    ):
        self._sensitivity = resolve_sensitivity(
            sensitivity, _L2_NORMS, "GaussianMechanism"
        )
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.variant = check_choice("variant", variant, ("classic", "analytic"))
        self.name = f"Gaussian ({variant})"
        unit = (
            classic_gaussian_sigma if variant == "classic" else analytic_gaussian_sigma
        )(self.epsilon, self.delta)
        self._setup(unit)

    @property
    def privacy(self) -> PrivacyGuarantee:
        return self._guarantee(self.epsilon, self.delta)


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
    """

    name = "Gaussian (Rényi)"

    def __init__(self, sensitivity, alpha: float, epsilon_bar: float):
        self._sensitivity = resolve_sensitivity(
            sensitivity, _L2_NORMS, "RenyiGaussianMechanism"
        )
        self.alpha = check_real("alpha", alpha, low=1.0, low_strict=True)
        self.epsilon_bar = check_real(
            "epsilon_bar", epsilon_bar, low=0.0, low_strict=True
        )
        self._setup(math.sqrt(self.alpha / (2.0 * self.epsilon_bar)))

    @property
    def privacy(self) -> PrivacyGuarantee:
        return self._guarantee(None, None)


class ZCDPGaussianMechanism(_Gaussian):
    r"""Gaussian noise calibrated for rho-zCDP: :math:`\sigma^2 = \Delta_2^2/(2\rho)`.

    Bun & Steinke (2016), Prop. 1.6.

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
    rho : float
        ``> 0``.
    """

    name = "Gaussian (zCDP)"

    def __init__(self, sensitivity, rho: float):
        self._sensitivity = resolve_sensitivity(
            sensitivity, _L2_NORMS, "ZCDPGaussianMechanism"
        )
        rho = check_real("rho", rho, low=0.0, low_strict=True)
        self._setup(math.sqrt(1.0 / (2.0 * rho)))

    @property
    def privacy(self) -> PrivacyGuarantee:
        return self._guarantee(None, None)
