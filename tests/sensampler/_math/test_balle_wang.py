"""Balle & Wang's delta is evaluated in one place: the Gaussian mechanisms and the
accountants' exact composition of Gaussian steps agree on one step."""

import math

import mpmath
import pytest

from sensampler._math.balle_wang import delta_with_error
from sensampler.accounting._exact_gaussian import gaussian_delta
from sensampler.mechanisms.gaussian import analytic_gaussian_delta


def _exact(sigma, epsilon):
    """Balle & Wang (2018), Thm. 8, at 50 digits."""
    with mpmath.workdps(50):
        s, e = mpmath.mpf(sigma), mpmath.mpf(epsilon)
        a, b = 1 / (2 * s) - e * s, -1 / (2 * s) - e * s
        return mpmath.ncdf(a) - mpmath.exp(e) * mpmath.ncdf(b)


@pytest.mark.parametrize("sigma", [0.05, 0.3, 1.0, 4.0, 50.0])
@pytest.mark.parametrize("epsilon", [0.0, 0.1, 1.0, 5.0])
def test_one_gaussian_step_has_the_mechanisms_delta(sigma, epsilon):
    # Before: the accountant evaluated the same formula in log space on its own.
    one_step = gaussian_delta(1.0 / sigma, epsilon)
    mechanism = analytic_gaussian_delta(sigma, epsilon)
    exact = _exact(sigma, epsilon)
    assert one_step >= exact
    assert mechanism >= exact or (mechanism == 0.0 and exact < 1e-320)
    value, error = delta_with_error(sigma, epsilon)
    # the same evaluation; the accountant adds 1e-300 for the tails the
    # mechanism rounds to the nearest double, 0
    assert one_step == pytest.approx(mechanism, rel=1e-12, abs=2e-300)
    assert abs(value - exact) <= error + 2.0**-1074  # far tails: the nearest double


def test_beyond_the_bound_the_accountant_still_certifies():
    # mu / 2 + epsilon / mu > MAX_M outside the far tails (a = mu/2 - epsilon/mu
    # = 0 at epsilon = mu^2 / 2): the log-space evaluation takes over.
    mu = 4e6
    epsilon = mu * mu / 2.0
    assert delta_with_error(1.0 / mu, epsilon)[1] == math.inf
    assert 0.0 <= gaussian_delta(mu, epsilon) <= 1.0
    assert gaussian_delta(mu, epsilon) >= float(_exact(1.0 / mu, epsilon))
