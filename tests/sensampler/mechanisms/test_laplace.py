import math
import re

import numpy as np
import pytest
from scipy import integrate, stats
from sensampler.distributions import GaussianMixture, MultivariateNormal

from sensampler import queries, sample_sensitivity
from sensampler.mechanisms import CatastropheMechanism, LaplaceMechanism, laplace_rdp
from sensampler.privacy import PrivacyLeakWarning

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def test_scale_is_sensitivity_over_epsilon():
    assert LaplaceMechanism(2.0, 0.5).scale == 4.0  # 2 / 0.5
    assert LaplaceMechanism(0.0, 1.0).release(3.0, random_state=0) == 3.0


def test_per_coordinate_scales_spend_exactly_epsilon_and_minimise_variance():
    delta = np.array([1.0, 8.0, 27.0])
    mech = LaplaceMechanism(delta, 1.0)
    np.testing.assert_allclose(mech.scale, [14.0, 28.0, 42.0])  # cbrt * (1 + 4 + 9)
    assert np.sum(delta / mech.scale) == pytest.approx(1.0)  # privacy loss bound = eps
    # any other allocation with the same loss bound has larger total variance
    uniform = np.full(3, delta.sum())  # scale ||Delta||_1 / eps
    assert np.sum(delta / uniform) == pytest.approx(1.0)
    assert np.sum(mech.scale**2) < np.sum(uniform**2)


def test_noise_is_laplace_distributed():
    mech = LaplaceMechanism(2.0, 0.5)
    noise = mech.release(np.zeros(50_000), random_state=123)
    # Fixed seed, so the p-value is fixed; 1e-4 is far below what a correct scale gives.
    assert stats.kstest(noise, stats.laplace(0, 4.0).cdf).pvalue > 1e-4
    assert stats.kstest(noise, stats.laplace(0, 3.6).cdf).pvalue < 1e-4


def test_empirical_privacy_audit():
    # P[M(0) in S] <= e^eps P[M(1) in S] for S = (t, inf), with binomial slack.
    eps, n = 0.7, 400_000
    mech = LaplaceMechanism(1.0, eps)
    a = mech.release(np.zeros(n), random_state=1)
    b = mech.release(np.ones(n), random_state=2)
    for t in np.linspace(-3, 4, 15):
        pa, pb = np.mean(a > t), np.mean(b > t)
        slack = 5 * math.sqrt(pb / n) + 5 * math.exp(eps) * math.sqrt(pa / n)
        assert pb <= math.exp(eps) * pa + slack
        assert (1 - pa) <= math.exp(eps) * (1 - pb) + slack


def _renyi_by_quadrature(alpha, b):
    def integrand(x):
        lp, lq = stats.laplace(0, b).logpdf(x), stats.laplace(1, b).logpdf(x)
        return math.exp(alpha * lp + (1 - alpha) * lq)

    value, _ = integrate.quad(integrand, -40 * b, 40 * b, points=[0, 1], limit=400)
    return math.log(value) / (alpha - 1)


@pytest.mark.parametrize("alpha, b", [(1.5, 0.5), (2.0, 1.0), (5.0, 3.0), (20.0, 2.0)])
def test_renyi_curve_matches_quadrature(alpha, b):
    assert laplace_rdp(alpha, b) == pytest.approx(
        _renyi_by_quadrature(alpha, b), rel=1e-7
    )
    assert laplace_rdp(alpha, b) <= 1 / b  # never above the pure-DP epsilon


def test_estimate_goes_straight_in_and_carries_gamma():
    est = sample_sensitivity(queries.mean, HEIGHTS, 500, gamma=0.05, random_state=0)
    mech = LaplaceMechanism(est, 0.5)
    assert mech.scale == est.sensitivity / 0.5
    privacy = mech.privacy
    assert privacy.gamma == est.gamma and privacy.run == est.run
    assert "random DP" in str(privacy) and "epsilon=0.5-DP" in str(privacy)


def test_mean_sensitivity_is_marked_as_no_guarantee():
    est = sample_sensitivity(queries.mean, HEIGHTS, 500, gamma=0.05, random_state=0)
    mech = LaplaceMechanism(est.mean, 0.5)
    assert not mech.privacy.guaranteed
    assert "no privacy guarantee" in str(mech.privacy)


def test_per_coordinate_mean_is_marked_too():
    pop = MultivariateNormal([0, 0], np.eye(2))
    est = sample_sensitivity(
        queries.mean, pop, 50, gamma=0.05, norm="coordinate", random_state=0
    )
    assert not LaplaceMechanism(est.mean, 1.0).privacy.guaranteed
    assert not LaplaceMechanism(est.mean[1], 1.0).privacy.guaranteed
    sampled = LaplaceMechanism(est.sensitivity, 1.0).privacy
    assert sampled.source == "sampled" and sampled.gamma == est.gamma
    with pytest.warns(PrivacyLeakWarning):  # a plain array is a global bound
        plain = np.asarray(est.sensitivity)
    assert LaplaceMechanism(plain, 1.0).privacy.source == "global"


def test_per_coordinate_estimate():
    pop = MultivariateNormal([0, 0], np.diag([1.0, 4.0]))
    est = sample_sensitivity(
        queries.mean, pop, 50, gamma=0.05, norm="coordinate", random_state=0
    )
    mech = LaplaceMechanism(est, 1.0)
    assert mech.release(np.zeros(2), random_state=0).shape == (2,)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "value must have the shape of the per-coordinate sensitivity (2,)"
        ),
    ):
        mech.release(np.zeros(3))


@pytest.mark.parametrize(
    "args, exc, message",
    [
        ((1.0, 0.0), ValueError, "epsilon must be > 0.0, got epsilon=0.0."),
        ((1.0, -1), ValueError, "epsilon must be > 0.0, got epsilon=-1.0."),
        ((-1.0, 1.0), ValueError, "sensitivity must be >= 0.0, got sensitivity=-1.0."),
        ((np.inf, 1.0), ValueError, "sensitivity must be finite, got sensitivity=inf."),
        (
            ("1", 1.0),
            TypeError,
            "sensitivity must be a number, an array or a SensitivityEstimate",
        ),
        (([1.0, -2.0], 1.0), ValueError, "sensitivity must be >= 0"),
    ],
)
def test_bad_parameters(args, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        LaplaceMechanism(*args)


def test_wrong_norm_is_refused():
    est = sample_sensitivity(queries.mean, HEIGHTS, 50, m=50, norm="l2", random_state=0)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "LaplaceMechanism needs a sensitivity in "
            "the l1 or coordinate norm, got an "
            "estimate with norm='l2'."
        ),
    ):
        LaplaceMechanism(est, 1.0)


def test_bad_value_draws_nothing():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="value must be finite"):
        LaplaceMechanism(1.0, 1.0).release(np.nan, random_state=rng)
    assert rng.bit_generator.state == state


def test_catastrophe_mechanism_is_eps_delta_but_publishes_the_data():
    mech = CatastropheMechanism(1.0, 1.0, 0.01)
    data = np.array([170.0, 180.0])
    outs = [mech.release(data.mean(), data=data, random_state=s) for s in range(5000)]
    leaked = np.mean([isinstance(o, np.ndarray) for o in outs])
    # P[data published] = delta: an audit with S = {the data itself} sees
    # P[M(x) in S] = delta > e^eps * 0 = e^eps P[M(x') in S]: no pure DP, only delta.
    assert abs(leaked - 0.01) < 5 * math.sqrt(0.01 * 0.99 / 5000)
    assert mech.privacy.delta == 0.01 and mech.privacy.rdp is None
