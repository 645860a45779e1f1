"""Audit findings on the worst-case parts of the Gaussian mechanism: the rho and
the noise per unit of sensitivity it states for every pair must bound the
exact ones, Delta_wc^2 / (2 min_j sigma_j^2) and min_j sigma_j / Delta_wc
(checked with exact fractions)."""

from fractions import Fraction

import numpy as np

from sensampler import queries, sample_sensitivity
from sensampler.bounds import Bounds
from sensampler.distributions import Normal
from sensampler.mechanisms import GaussianMechanism


def _estimates():
    for width in (60.0, 61.3, 77.7, 33.3):
        yield sample_sensitivity(
            queries.mean, Normal(170, 10), 500, gamma=0.05,
            bounds=Bounds.given(140.0, 140.0 + width), random_state=0,
        )


def test_the_gaussian_worst_case_rho_and_noise_are_rounded_the_safe_way():
    # 1 / (2 unit^2) with unit = sigma / Delta_wc, both rounded to nearest:
    # the stated rho was below Delta_wc^2 / (2 sigma^2) for 122 of these 240
    rho_below, unit_above = [], []
    for est in _estimates():
        worst = Fraction(est.worst_case)
        for epsilon in np.linspace(0.1, 3.0, 60):
            mech = GaussianMechanism(est, float(epsilon), 1e-6)
            part = mech.privacy.worst_case
            sigma = Fraction(float(np.min(mech.sigma)))
            if Fraction(part.rho) < worst**2 / (2 * sigma**2):
                rho_below.append(epsilon)
            if Fraction(part.noise.scales[0]) > sigma / worst:
                unit_above.append(epsilon)
    assert rho_below == []
    assert unit_above == []
