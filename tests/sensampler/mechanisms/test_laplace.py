import math
import re

import numpy as np
import pytest
from scipy import integrate, stats

from sensampler import queries, sample_sensitivity
from sensampler.distributions import GaussianMixture, MultivariateNormal
from sensampler.mechanisms import CatastropheMechanism, LaplaceMechanism, laplace_rdp
from sensampler.privacy import PrivacyLeakWarning
from tests.conftest import assert_close_in_se

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
    # P[M(0) in S] <= e^eps P[M(1) in S] for S = (t, inf), with a slack of 6
    # binomial standard errors on each side: crossed by chance with probability
    # ~1e-9 per comparison (tests.conftest.false_failure_rate(6, sides=1)).
    eps, n = 0.7, 400_000
    mech = LaplaceMechanism(1.0, eps)
    a = mech.release(np.zeros(n), random_state=1)
    b = mech.release(np.ones(n), random_state=2)
    for t in np.linspace(-3, 4, 15):
        pa, pb = np.mean(a > t), np.mean(b > t)
        slack = 6 * math.sqrt(pb / n) + 6 * math.exp(eps) * math.sqrt(pa / n)
        assert pb <= math.exp(eps) * pa + slack
        assert (1 - pa) <= math.exp(eps) * (1 - pb) + slack


def _renyi_by_quadrature(alpha, b):
    def integrand(x):
        lp, lq = stats.laplace(0, b).logpdf(x), stats.laplace(1, b).logpdf(x)
        return math.exp(alpha * lp + (1 - alpha) * lq)

    value, _ = integrate.quad(integrand, -40 * b, 40 * b, points=[0, 1], limit=400)
    return math.log(value) / (alpha - 1)


@pytest.mark.slow
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


@pytest.mark.slow
def test_catastrophe_mechanism_is_eps_delta_but_publishes_the_data():
    mech = CatastropheMechanism(1.0, 1.0, 0.01)
    data = np.array([170.0, 180.0])
    outs = [mech.release(data.mean(), data=data, random_state=s) for s in range(5000)]
    leaked = np.mean([isinstance(o, np.ndarray) for o in outs])
    # P[data published] = delta: an audit with S = {the data itself} sees
    # P[M(x) in S] = delta > e^eps * 0 = e^eps P[M(x') in S]: no pure DP, only delta.
    assert_close_in_se(leaked, 0.01, math.sqrt(0.01 * 0.99 / 5000))
    assert mech.privacy.delta == 0.01 and mech.privacy.rdp is None


def _product_renyi_by_quadrature(alpha, scales, shifts):
    """Second method: Rényi divergence of independent coordinates, each by
    quadrature of Laplace(0, b_j) against Laplace(Delta_j, b_j)."""
    return sum(
        _renyi_by_quadrature(alpha, b / d) for b, d in zip(scales, shifts) if d > 0
    )


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [1.5, 2.0, 8.0, 32.0])
def test_per_coordinate_curve_is_the_exact_product_curve(alpha):
    # issue figure: sensitivities (1, 2, 3) at epsilon = 1, alpha = 2 give 0.31,
    # where the generic pure-DP curve min(eps, alpha eps^2 / 2) gives 1.0
    delta = np.array([1.0, 2.0, 3.0])
    mech = LaplaceMechanism(delta, 1.0)
    exact = _product_renyi_by_quadrature(alpha, mech.scale, delta)
    assert mech.privacy.rdp(alpha) == pytest.approx(exact, rel=1e-7)
    assert mech.privacy.rdp(alpha) <= min(1.0, alpha / 2)
    if alpha == 2.0:
        assert round(mech.privacy.rdp(alpha), 2) == 0.31


def test_per_coordinate_noise_record():
    delta = np.array([1.0, 0.0, 8.0])
    mech = LaplaceMechanism(delta, 0.5)
    noise = mech.privacy.noise
    assert noise.kind == "laplace" and noise.scales[1] == math.inf
    # scale over sensitivity per coordinate; the losses Delta_j / b_j add up to eps
    assert noise.scales[0] == pytest.approx(mech.scale[0] / 1.0)
    assert noise.scales[2] == pytest.approx(mech.scale[2] / 8.0)
    assert sum(1 / r for r in noise.scales) == pytest.approx(0.5)
    assert LaplaceMechanism(2.0, 0.5).privacy.noise.scales == (2.0,)  # b / Delta


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: LaplaceMechanism(1.0, 1e-320),
            "the noise scale for sensitivity=1.0, epsilon=1e-320 is not finite",
        ),
        (
            lambda: LaplaceMechanism(1e308, 0.5),
            "the noise scale for sensitivity=1e+308, epsilon=0.5 is not finite",
        ),
        (
            lambda: CatastropheMechanism(1.0, 1e-320, 0.1),
            "the noise scale for sensitivity=1.0, epsilon=1e-320 is not finite",
        ),
    ],
)
def test_overflowing_scales_are_refused(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


@pytest.mark.parametrize(
    "sensitivity, epsilon",
    [(0.0, 1e308), (1.0, 1.3407807929942597e154), (1.0, 1e308), ([1.0, 2.0], 1e300)],
)
def test_a_huge_epsilon_states_finite_privacy(sensitivity, epsilon):
    from sensampler.accounting import RenyiAccountant, ZCDPAccountant

    mech = LaplaceMechanism(sensitivity, epsilon)
    privacy = mech.privacy
    # epsilon-DP gives D_alpha <= epsilon <= alpha epsilon: epsilon-zCDP, the
    # smaller than epsilon^2 / 2 here
    assert privacy.rho == epsilon
    for alpha in (1.05, 2.0, 1024.0):
        assert 0.0 < privacy.rdp(alpha) <= epsilon
    for accountant in (RenyiAccountant(), ZCDPAccountant()):
        accountant.compose(mech)
        assert math.isfinite(accountant.epsilon(1e-6))
        assert accountant.epsilon(1e-6) <= epsilon


def test_laplace_rdp_validates_by_name():
    with pytest.raises(TypeError, match=re.escape("alpha must be a real number")):
        laplace_rdp(None, 1.0)
    with pytest.raises(ValueError, match=re.escape("alpha must be > 1.0, got")):
        laplace_rdp(1.4e-194, 2.2e-313)
    with pytest.raises(ValueError, match=re.escape("ratio must be > 0.0, got")):
        laplace_rdp(2.0, 0.0)
    assert laplace_rdp(2.0, math.inf) == 0.0
    assert laplace_rdp(math.inf, 4.0) == 0.25


@pytest.mark.parametrize(
    "alpha, ratio", [(6.9e299, 2.7e-297), (1e308, 1.0), (2.0, 1e-300), (1e6, 1e-3)]
)
def test_laplace_rdp_is_capped_by_the_max_divergence(alpha, ratio):
    # D_alpha <= D_inf = 1/ratio; main gave inf, "math domain error" or an
    # overflow warning where an exponent overflows
    value = laplace_rdp(alpha, ratio)
    assert math.isfinite(value) and 0.0 < value <= 1.0 / ratio
    # and tends to 1/ratio for large orders (Mironov 2017, Table II)
    assert value == pytest.approx(1.0 / ratio, rel=1e-3)


def test_laplace_rdp_agrees_with_the_closed_form_in_range():
    # Mironov 2017, Prop. 6 at alpha = 2, lambda = 1: log(2/3 e + 1/3 e^-2)
    expected = math.log(2.0 / 3.0 * math.e + math.exp(-2.0) / 3.0)
    assert laplace_rdp(2.0, 1.0) == pytest.approx(expected, rel=1e-14)
