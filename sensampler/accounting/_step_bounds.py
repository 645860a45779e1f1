r"""Every valid bound of a composition of PLD steps other than the PLD itself.

The privacy-loss-distribution bound is certified only where its round-off is
small against the target (:mod:`~sensampler.accounting.pld`); these bounds hold
everywhere, and the accountant reports the smallest valid one, naming it:

* the exact Gaussian composition, when every step is Gaussian
  (:mod:`~sensampler.accounting._exact_gaussian`);
* basic composition (Dwork & Roth 2014, Thm. 3.16), when no step is Gaussian:
  a Laplace step of scale b is (1/b)-DP;
* the exact optimal composition (Kairouz, Oh & Viswanath 2017, Thm. 3.3) when
  every step has the same (epsilon, delta), and their Thm. 3.5 for different
  pure steps (:mod:`~sensampler.accounting._kov`);
* the Rényi conversion (Canonne, Kamath & Steinke 2020, Prop. 12) of the summed
  Rényi curves when no step is (epsilon, delta) with delta > 0: a Gaussian step
  :math:`\alpha/(2\sigma^2)` (Mironov 2017, Prop. 7), a pure or Laplace step
  :math:`\min(\epsilon, \alpha\epsilon^2/2)` (Bun & Steinke 2016, Prop. 3.3).

Each function returns ``(value, method)`` pairs; an empty ledger is 0.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy import DEFAULT_ORDERS, rdp_to_dp
from ._exact_gaussian import gaussian_delta, gaussian_epsilon, gaussian_mu
from ._kov import (
    MAX_EXACT_STEPS,
    heterogeneous_epsilon,
    homogeneous_delta,
    homogeneous_epsilon,
)

__all__ = ["epsilon_bounds", "delta_bounds"]

BASIC = "basic (Dwork & Roth 2014, Thm. 3.16)"
OPTIMAL = "optimal (Kairouz et al. 2017, Thm. 3.3)"
HETEROGENEOUS = "heterogeneous (Kairouz et al. 2017, Thm. 3.5)"
GAUSSIAN = "exact Gaussian composition (Balle & Wang 2018, Thm. 8)"
RENYI = "Rényi DP (Mironov 2017; conversion of Canonne et al. 2020)"


def _dp_steps(steps):
    """(epsilon, delta, count) of every step, or None when a step is Gaussian."""
    out = []
    for kind, params, count in steps:
        if kind == "gaussian":
            return None
        epsilon = 1.0 / params[0] if kind == "laplace" else params[0]
        out.append((epsilon, params[1] if kind == "epsilon_delta" else 0.0, count))
    return out


def _basic(dp):
    with np.errstate(over="ignore"):
        epsilon = math.fsum(e * c for e, _, c in dp) if dp else 0.0
    return epsilon, min(1.0, math.fsum(d * c for _, d, c in dp))


def _merged(dp):
    """{(epsilon, delta): count} of the (epsilon, delta) steps."""
    merged: dict[tuple[float, float], int] = {}
    for e, d, c in dp:
        merged[(e, d)] = merged.get((e, d), 0) + c
    return merged


def _exact_law(merged) -> bool:
    """Whether the exact optimal composition applies: one repeated (epsilon, delta)
    with delta < 1 (a step of delta = 1 guarantees nothing: basic composition
    says so) and at most MAX_EXACT_STEPS steps."""
    if len(merged) != 1:
        return False
    (_, d), c = next(iter(merged.items()))
    return d < 1.0 and c <= MAX_EXACT_STEPS


def _rdp_curve(steps):
    """Summed Rényi curve at DEFAULT_ORDERS, or None with an (epsilon, delta) step."""
    total = np.zeros_like(DEFAULT_ORDERS)
    for kind, params, count in steps:
        if kind == "epsilon_delta":
            return None
        with np.errstate(over="ignore"):  # a huge curve is inf: no bound from it
            if kind == "gaussian":
                curve = DEFAULT_ORDERS / params[0] / params[0] / 2.0
            else:
                e = 1.0 / params[0] if kind == "laplace" else params[0]
                curve = e * np.minimum(1.0, DEFAULT_ORDERS * e / 2.0)
            total = total + count * curve
    return total


def epsilon_bounds(steps, delta: float) -> list[tuple[float, str]]:
    """(epsilon, method) of every valid bound at ``delta`` (``0 <= delta <= 1``)."""
    if all(kind == "gaussian" for kind, _, _ in steps):
        mu = gaussian_mu((p[0], c) for _, p, c in steps)
        return [(gaussian_epsilon(mu, delta) if delta > 0 else math.inf, GAUSSIAN)]
    bounds = []
    dp = _dp_steps(steps)
    if dp is not None:
        eps, dlt = _basic(dp)
        bounds.append((eps if dlt <= delta else math.inf, BASIC))
        merged = _merged(dp)
        n = sum(merged.values())
        if _exact_law(merged):
            (e, d), c = next(iter(merged.items()))
            bounds.append((homogeneous_epsilon(e, d, c, delta), OPTIMAL))
        elif 0.0 < delta < 1.0 and n <= MAX_EXACT_STEPS and not any(
            d for _, d in merged
        ):
            eps_list = np.repeat([e for e, _ in merged], list(merged.values()))
            eps, _ = heterogeneous_epsilon(eps_list, np.zeros(eps_list.size), delta)
            bounds.append((eps, HETEROGENEOUS))
    curve = _rdp_curve(steps)
    if curve is not None and 0.0 < delta < 1.0:
        bounds.append((rdp_to_dp(curve, delta)[0], RENYI))
    return bounds


def delta_bounds(steps, epsilon: float) -> list[tuple[float, str]]:
    """(delta, method) of every valid bound at ``epsilon >= 0``."""
    if all(kind == "gaussian" for kind, _, _ in steps):
        mu = gaussian_mu((p[0], c) for _, p, c in steps)
        return [(gaussian_delta(mu, epsilon), GAUSSIAN)]
    bounds = [(1.0, "trivial")]
    dp = _dp_steps(steps)
    if dp is not None:
        eps, dlt = _basic(dp)
        if eps <= epsilon:
            bounds.append((dlt, BASIC))
        merged = _merged(dp)
        if _exact_law(merged):
            (e, d), c = next(iter(merged.items()))
            bounds.append((homogeneous_delta(e, d, c, epsilon), OPTIMAL))
    return bounds
