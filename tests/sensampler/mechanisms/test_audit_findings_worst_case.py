"""Audit findings on the rho the Gaussian mechanisms state: for every pair (the
worst case) and for the sampled pairs, it must bound the exact one of the
noise drawn, Delta^2 / (2 sigma^2), and the noise per unit of sensitivity must
not exceed min_j sigma_j / Delta (checked with exact fractions)."""

from fractions import Fraction

import numpy as np
import pytest
from sensampler.distributions import Normal

from sensampler import queries, sample_sensitivity
from sensampler.audit import audit_mechanism
from sensampler.bounds import Bounds
from sensampler.mechanisms import (
    ExponentialQuantileMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)


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


def _exact_rho(sensitivity, sigma):
    """sum_j Delta_j^2 / (2 sigma_j^2), exactly (Bun & Steinke 2016, Prop. 1.6)."""
    pairs = zip(np.ravel(sensitivity), np.ravel(sigma))
    return sum(Fraction(float(d)) ** 2 / (2 * Fraction(float(s)) ** 2) for d, s in pairs)


@pytest.mark.parametrize("per_coordinate", [False, True])
def test_the_gaussian_rho_bounds_that_of_its_sigma(per_coordinate):
    # the rho was 0.5 / unit**2 and sigma = unit * Delta, both rounded to
    # nearest: for about half of 200 zCDP mechanisms the stated rho was an ulp
    # or two below Delta^2 / (2 sigma^2) of the noise drawn
    rng = np.random.default_rng(20261126)
    below = []
    for _ in range(100):
        sensitivity = (
            rng.uniform(0.1, 10.0, 3) if per_coordinate else float(rng.uniform(0.1, 10.0))
        )
        rho = float(rng.uniform(0.01, 2.0))
        for mech in (
            ZCDPGaussianMechanism(sensitivity, rho),
            GaussianMechanism(sensitivity, rho, 1e-6),
            RenyiGaussianMechanism(sensitivity, 4.0, rho),
        ):
            if Fraction(mech.privacy.rho) < _exact_rho(sensitivity, mech.sigma):
                below.append((type(mech).__name__, sensitivity, rho))
        assert ZCDPGaussianMechanism(sensitivity, rho).privacy.rho <= rho
    assert below == []


def test_the_rho_of_a_pure_statement_is_never_below_its_square():
    # epsilon * (epsilon / 2) rounded to nearest: 242 of 500 Laplace statements
    # stated a rho below epsilon^2 / 2 (Bun & Steinke 2016, Prop. 3.3)
    rng = np.random.default_rng(20261126)
    below = []
    for epsilon in rng.uniform(0.01, 1.9, 300):
        epsilon = float(epsilon)
        laplace = LaplaceMechanism(1.0, epsilon).privacy
        quantile = ExponentialQuantileMechanism(0.5, (0.0, 1.0), epsilon).privacy
        exact = Fraction(epsilon) ** 2
        if Fraction(laplace.rho) < exact / 2 or Fraction(quantile.rho) < exact / 8:
            below.append(epsilon)
    assert below == []
    est = next(_estimates())
    for epsilon in rng.uniform(0.01, 1.0, 50):
        worst = LaplaceMechanism(est, float(epsilon)).privacy.worst_case
        assert Fraction(worst.rho) >= min(
            Fraction(worst.epsilon), Fraction(worst.epsilon) ** 2 / 2
        )


def test_the_per_coordinate_laplace_worst_case_holds_where_it_is_tight():
    # the l1 worst case put whole on the coordinate of least noise: the stated
    # Delta_wc / min_j b_j is reached there, and a statement of half the shift
    # (a copy that understates its worst case) is caught by the same audit
    est = sample_sensitivity(queries.quantile([0.25, 0.75]), Normal(170, 10), 200,
                             gamma=0.05, norm="coordinate",
                             bounds=Bounds.given(140.0, 200.0), random_state=0)
    mech = LaplaceMechanism(est, 1.0, worst_case_epsilon=2.0)
    stated = mech.privacy.worst_case.epsilon
    j = int(np.argmin(mech.scale))
    shift = np.zeros(2)
    shift[j] = est.worst_case
    kept = lambda out: out[:, j]  # noqa: E731
    audit = audit_mechanism(mech, np.zeros(2), shift, releases=200_000,
                            statistic=kept, random_state=1)
    assert stated == 2.0 and 1.9 < audit.epsilon_lower <= stated
    weakened = audit_mechanism(mech, np.zeros(2), 2 * shift, releases=200_000,
                               statistic=kept, random_state=2)
    assert weakened.epsilon_lower > stated
