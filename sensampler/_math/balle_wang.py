r"""Balle & Wang's exact delta of the Gaussian mechanism, evaluated once.

:func:`delta_with_error` evaluates Thm. 8 of Balle & Wang (2018) for noise
``sigma`` per unit of L2 sensitivity, with a bound on its evaluation error: the
Gaussian mechanisms calibrate with it, and the accountants' exact composition of
Gaussian steps (one Gaussian of noise :math:`1/\mu`) certifies with it.

References
----------
.. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising",
   ICML 2018.
"""

from __future__ import annotations

import math

from .._lib.scipy_compat import special

__all__ = ["MAX_M", "delta_with_error"]

#: Relative accuracy assumed of each evaluation of scipy's ``ndtr`` and ``erfcx``
#: (Cephes and the Faddeeva package achieve a few ulps, i.e. below 1e-15).
_FUNCTION_ACCURACY = 1e-13
_UNIT_ROUNDOFF = 2.0**-53
_SQRT2 = math.sqrt(2.0)
#: Largest :math:`m = 1/(2\sigma) + \epsilon\sigma` at which the relative error
#: bound of :func:`delta_with_error` is used: there it is below 2e-3,
#: small enough for its first-order argument.
MAX_M = 1e6
#: Beyond :math:`|a| \ge 40` the Gaussian tails are below :math:`e^{-800}`, far
#: under the smallest double.
_TAIL = 40.0
#: Absolute error of the few roundings that may fall among subnormal doubles
#: (each at most :math:`2^{-1074}`), added to every error bound.
_UNDERFLOW = 2.0**-1071


def delta_with_error(sigma: float, epsilon: float) -> tuple[float, float]:
    r"""Balle & Wang's delta for sensitivity 1, and a bound on its evaluation error.

    With :math:`a = \tfrac{1}{2\sigma} - \epsilon\sigma` and
    :math:`b = -\tfrac{1}{2\sigma} - \epsilon\sigma`, Thm. 8 of Balle & Wang
    (2018) gives :math:`\delta = \Phi(a) - e^{\epsilon}\Phi(b)`. Since
    :math:`b^2/2 = a^2/2 + \epsilon` and :math:`\Phi(x) =
    \tfrac12 e^{-x^2/2}\,\mathrm{erfcx}(-x/\sqrt2)`,

    .. math:: \delta = T_1 - T_2, \quad
              T_2 = \tfrac12 e^{-a^2/2}\,\mathrm{erfcx}(-b/\sqrt2), \quad
              T_1 = \tfrac12 e^{-a^2/2}\,\mathrm{erfcx}(-a/\sqrt2)
              \ (a < 0), \ \Phi(a)\ (a \ge 0),

    with no overflow and no factor :math:`e^\epsilon`.

    Error bound. Let :math:`u = 2^{-53}`, :math:`m = \tfrac{1}{2\sigma} +
    \epsilon\sigma \ge |a|, |b|` and :math:`\tau` the accuracy of each library
    evaluation (:data:`_FUNCTION_ACCURACY`). The computed ``a`` and ``b`` are
    within :math:`2um` of the exact ones, so:

    * :math:`a^2/2` is within :math:`2um^2 + um^2/2`, which ``exp`` turns into
      that relative error plus :math:`u`;
    * erfcx moves by a relative :math:`2um \cdot |\mathrm{erfcx}'/\mathrm{erfcx}|
      /\sqrt2 \le 2um(4m + 1.5)/\sqrt2` (on :math:`x \ge 0`,
      :math:`\mathrm{erfcx}' = 2x\,\mathrm{erfcx} - 2/\sqrt\pi` and
      :math:`\mathrm{erfcx}(x) \ge \tfrac{2}{\sqrt\pi}/(x + \sqrt{x^2 + 2})`),
      and Φ on :math:`a \ge 0` by at most :math:`0.8 \cdot 2um` (as
      :math:`\varphi/\Phi \le 0.8` there);
    * each evaluation adds :math:`\tau`, each product and the subtraction
      :math:`u`.

    Each term is therefore within a relative
    :math:`r = \tau + 8u(1 + (2m + 1)m)`, which exceeds the sum of these first
    order terms; the returned bound :math:`2r(T_1 + T_2)` absorbs the second
    order ones (for :math:`m \le` :data:`MAX_M`, :math:`r < 2\cdot10^{-3}`)
    and holds however much the subtraction cancels. Roundings among subnormal
    doubles add at most :data:`_UNDERFLOW`. Tests compare it with 50-digit
    mpmath over a grid of (epsilon, delta).

    Far tails. When the computed a is beyond :math:`\pm(40 + 2um)`, the exact
    a is beyond :math:`\pm 40`: for :math:`a \le -40`, :math:`0 \le \delta \le
    T_1 \le \tfrac12 e^{-800}` and the result is 0; for :math:`a \ge 40`,
    :math:`1 \ge \delta \ge \Phi(40) - T_2 \ge 1 - e^{-800}` (:math:`T_2 \le
    \tfrac12 e^{-a^2/2}`, as erfcx is at most 1 on non-negative arguments) and
    the result is 1, the nearest double to the exact delta either way, for any
    m (error 0).
    Otherwise, for :math:`m >` :data:`MAX_M` no bound is claimed (``inf``).

    Returns
    -------
    (delta, error) : (float, float)
        ``delta`` (clipped at 0) and a bound on :math:`|\tilde\delta - \delta|`
        (``inf`` where none is known).
    """
    m = 0.5 / sigma + epsilon * sigma
    a = 0.5 / sigma - epsilon * sigma
    margin = _TAIL + 2.0 * _UNIT_ROUNDOFF * m
    if a <= -margin:
        return 0.0, 0.0
    if a >= margin:
        return 1.0, 0.0
    b = -0.5 / sigma - epsilon * sigma
    half_exp = 0.5 * math.exp(-0.5 * a * a)
    t2 = half_exp * float(special.erfcx(-b / _SQRT2))
    t1 = (
        float(special.ndtr(a))
        if a >= 0
        else half_exp * float(special.erfcx(-a / _SQRT2))
    )
    value = max(t1 - t2, 0.0)
    if m > MAX_M:
        return value, math.inf
    rel = _FUNCTION_ACCURACY + 8.0 * _UNIT_ROUNDOFF * (1.0 + (2.0 * m + 1.0) * m)
    return value, 2.0 * rel * (t1 + t2) + _UNDERFLOW
