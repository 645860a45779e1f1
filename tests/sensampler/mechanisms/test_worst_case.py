"""The worst-case part of a statement, and the floor it puts under the noise."""

import math
import random
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.accounting import PrivacyFilter, RenyiAccountant, default_filter
from sensampler.audit import audit_mechanism
from sensampler.bounds import Bounds
from sensampler.distributions import Empirical, GaussianMixture, Normal
from sensampler.mechanisms import (
    CatastropheMechanism,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    ExponentialQuantileMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.mechanisms.gaussian import analytic_gaussian_sigma
from sensampler.privacy import PrivacyStatement, SamplingRun, to_replace_one

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
BOUNDS = Bounds.given(140.0, 200.0)  # width 60


def _estimate(population=HEIGHTS, n=500, bounds=BOUNDS, query=queries.mean, **kw):
    return sample_sensitivity(query, population, n, gamma=0.05, bounds=bounds,
                              random_state=0, **kw)


def _zero(bounds=BOUNDS, **kw):
    """A sampled sensitivity of 0: a one-row public table."""
    return _estimate(Empirical([171.0]), bounds=bounds, **kw)


# ----------------------------------------------------------------------- Laplace
def test_laplace_states_delta_wc_over_its_scale():
    est = _estimate()
    assert est.worst_case == 60 / 500
    mech = LaplaceMechanism(est, 1.0)
    worst = mech.privacy.worst_case
    # not floored here: scale = G_(k) / 1, epsilon_wc = 0.12 / scale
    assert mech.scale == est.sensitivity.value
    assert worst.epsilon == pytest.approx(0.12 / mech.scale, rel=1e-15)
    assert worst.epsilon >= 0.12 / mech.scale  # rounded up, never down
    assert worst.delta == 0.0 and worst.gamma == 0.0 and worst.source == "global"
    assert mech.privacy.epsilon == 1.0 and mech.privacy.gamma == est.gamma
    assert "records clipped to [140, 200]" in worst.mechanism


def test_a_sampled_zero_is_floored_at_the_cap():
    est = _zero()
    assert est.sensitivity.value == 0.0
    mech = LaplaceMechanism(est, 0.5)  # default cap: 10 x 0.5 = 5
    assert mech.worst_case_epsilon == 5.0
    assert mech.scale == pytest.approx(0.12 / 5.0)  # Delta_wc / cap
    assert mech.privacy.worst_case.epsilon <= 5.0
    assert mech.privacy.worst_case.epsilon == pytest.approx(5.0, rel=1e-15)
    assert mech.privacy.epsilon == 0.5  # never 0
    out = mech.release(171.0, random_state=0)
    assert out != 171.0


@pytest.mark.parametrize("cap", [0.1, 1.0, 3.0])
def test_the_cap_is_met_exactly(cap):
    mech = LaplaceMechanism(_estimate(), 1.0, worst_case_epsilon=cap)
    assert mech.privacy.worst_case.epsilon <= cap
    assert mech.scale >= 0.12 / cap


def test_worst_case_epsilon_is_checked():
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="worst_case_epsilon"):
            LaplaceMechanism(_estimate(), 1.0, worst_case_epsilon=bad)
    with pytest.raises(TypeError, match="worst_case_epsilon"):
        LaplaceMechanism(_estimate(), 1.0, worst_case_epsilon="5")


def test_a_global_or_unbounded_sensitivity_states_no_worst_case():
    assert LaplaceMechanism(1.0, 1.0).privacy.worst_case is None
    est = _estimate(bounds=None)
    assert LaplaceMechanism(est, 1.0).privacy.worst_case is None
    # a value taken from the estimate does not carry its worst case
    assert LaplaceMechanism(_estimate().sensitivity, 1.0).privacy.worst_case is None


# ---------------------------------------------------------- refused without bounds
@pytest.mark.parametrize(
    "build",
    [
        lambda e: LaplaceMechanism(e, 1.0),
        lambda e: GaussianMechanism(e, 1.0, 1e-6),
        lambda e: ZCDPGaussianMechanism(e, 0.5),
        lambda e: DiscreteLaplaceMechanism(e, 1.0, granularity=0.01),
        lambda e: DiscreteGaussianMechanism(e, rho=0.5, granularity=0.01),
        lambda e: ExponentialMechanism(e, 1.0),
    ],
)
def test_a_sampled_zero_without_bounds_is_refused_before_any_spend(build):
    est = _zero(bounds=None)
    budget = PrivacyFilter(10.0, 1e-3)
    with default_filter(budget):
        with pytest.raises(ValueError, match=re.escape("the sampled sensitivity is 0")):
            build(est)
    assert budget.count == 0


def _histogram_zero():
    """A per-coordinate histogram estimate with a bin the population never reaches
    (a sampled 0 there), records clipped to (140, 200): l1 worst case 2."""
    return _estimate(Normal(160.0, 3.0), query=queries.histogram(2, range=(140, 200)),
                     norm="coordinate")


def test_a_per_coordinate_estimate_carries_the_l1_worst_case():
    est = _histogram_zero()
    assert np.all(est.sensitivity.value == 0.0)  # no record ever crosses 170
    assert est.worst_case == 2.0  # one bin -1, another +1


def _histogram_pairs():
    # every replace-one change of a 2-bin histogram: one bin -1 and the other +1
    return [np.array([1.0, -1.0]), np.array([-1.0, 1.0]), np.zeros(2)]


def test_per_coordinate_laplace_floors_every_scale_and_states_the_worst_case():
    est = _histogram_zero()
    mech = LaplaceMechanism(est, 1.0)  # cap 10: every b_j >= 2 / 10
    assert np.all(mech.scale >= 0.2) and np.min(mech.scale) == pytest.approx(0.2)
    part = mech.privacy.worst_case
    # exact loss of each neighbouring change: sum_j |v_j| / b_j
    exact = max(float(np.sum(np.abs(v) / mech.scale)) for v in _histogram_pairs())
    assert exact <= part.epsilon <= 10.0
    assert mech.privacy.epsilon == 1.0 and mech.privacy.gamma == est.gamma
    for build in (lambda e: GaussianMechanism(e, 1.0, 1e-6),
                  lambda e: ZCDPGaussianMechanism(e, 0.5),
                  lambda e: RenyiGaussianMechanism(e, 2.0, 0.5),
                  lambda e: CatastropheMechanism(e, 1.0, 1e-6)):
        assert build(est).privacy.worst_case is not None


def test_per_coordinate_gaussian_worst_case_covers_every_change():
    est = _histogram_zero()
    mech = ZCDPGaussianMechanism(est, 0.5)  # cap 50: sigma_j >= 2 / sqrt(100)
    assert np.all(mech.sigma >= 0.2 * (1 - 1e-15))
    part = mech.privacy.worst_case
    # exact zCDP of each change: ||v / sigma||_2^2 / 2 (Bun & Steinke 2016, Prop. 1.6)
    exact = max(float(np.sum((v / mech.sigma) ** 2)) / 2 for v in _histogram_pairs())
    assert exact <= part.rho <= 50.0
    gauss = GaussianMechanism(est, 1.0, 1e-6)
    unit = float(np.min(gauss.sigma)) / 2.0
    assert gauss.privacy.worst_case.epsilon <= 10.0
    assert gauss.privacy.worst_case.rho == pytest.approx(1 / (2 * unit**2), rel=1e-12)


def test_a_per_coordinate_zero_without_bounds_is_still_refused():
    est = _estimate(Normal(160.0, 3.0), bounds=None, norm="coordinate",
                    query=queries.histogram(2, range=(140, 200)))
    for build in (lambda e: LaplaceMechanism(e, 1.0),
                  lambda e: ZCDPGaussianMechanism(e, 0.5),
                  lambda e: DiscreteLaplaceMechanism(e, 1.0, granularity=0.01)):
        with pytest.raises(ValueError, match="the sampled sensitivity is 0"):
            build(est)


# ------------------------------------------------------- zCDP and Rényi Gaussian
def _renyi_gaussian(alpha, shift, sigma):
    """D_alpha(N(shift, sigma^2) || N(0, sigma^2)) by quadrature at 40 digits
    (the definition, not the closed form alpha shift^2 / (2 sigma^2))."""
    mpmath.mp.dps = 40
    a, m, s = mpmath.mpf(alpha), mpmath.mpf(shift), mpmath.mpf(sigma)

    def integrand(x):
        return mpmath.npdf(x, m, s) ** a * mpmath.npdf(x, 0, s) ** (1 - a)

    total = mpmath.quad(integrand, [-mpmath.inf, 0, m, mpmath.inf])
    return float(mpmath.log(total) / (a - 1))


@pytest.mark.slow
@pytest.mark.parametrize("zero", [False, True])
def test_zcdp_gaussian_states_its_worst_case_and_floors_sigma(zero):
    est = _zero(norm="l2") if zero else _estimate(norm="l2")
    worst = est.worst_case  # 60 / 500 = 0.12
    mech = ZCDPGaussianMechanism(est, 0.5)
    cap = 50.0  # 100 rho by default
    assert mech.privacy.rho == 0.5 and mech.privacy.gamma == est.gamma
    part = mech.privacy.worst_case
    assert part.gamma == 0.0 and part.source == "global" and part.epsilon is None
    # the floor: sigma >= worst / sqrt(2 cap), reached exactly for a sampled 0
    assert mech.sigma >= worst / math.sqrt(2 * cap) * (1 - 1e-15)
    if zero:
        assert mech.sigma == pytest.approx(worst / math.sqrt(2 * cap), rel=1e-15)
    # the stated rho is the Rényi divergence of the worst pair at every order
    for alpha in (1.5, 2.0, 8.0):
        exact = _renyi_gaussian(alpha, worst, mech.sigma)
        assert part.rdp(alpha) >= exact * (1 - 1e-12)
        assert part.rdp(alpha) == pytest.approx(exact, rel=1e-9)
    assert part.rho <= cap


def test_zcdp_gaussian_cap_is_met_exactly_and_checked():
    mech = ZCDPGaussianMechanism(_zero(norm="l2"), 0.5, worst_case_rho=3.0)
    assert mech.privacy.worst_case.rho <= 3.0
    assert mech.privacy.worst_case.rho == pytest.approx(3.0, rel=1e-15)
    with pytest.raises(ValueError, match="worst_case_rho"):
        ZCDPGaussianMechanism(_zero(norm="l2"), 0.5, worst_case_rho=0.0)


@pytest.mark.slow
def test_renyi_gaussian_caps_the_divergence_at_its_order():
    est = _zero(norm="l2")
    mech = RenyiGaussianMechanism(est, 4.0, 1.0, worst_case_epsilon_bar=20.0)
    part = mech.privacy.worst_case
    exact = _renyi_gaussian(4.0, est.worst_case, mech.sigma)
    assert part.rdp(4.0) >= exact * (1 - 1e-12) and exact <= 20.0 * (1 + 1e-12)
    assert exact == pytest.approx(20.0, rel=1e-9)  # the floor binds for a sampled 0
    default = RenyiGaussianMechanism(est, 4.0, 1.0).privacy.worst_case
    assert default.rdp(4.0) == pytest.approx(100.0, rel=1e-12)  # 100 epsilon_bar
    with pytest.raises(ValueError, match="worst_case_epsilon_bar"):
        RenyiGaussianMechanism(est, 4.0, 1.0, worst_case_epsilon_bar=-1.0)


# ------------------------------------------------------------------- catastrophe
def _laplace_hockey_stick(epsilon, shift, scale):
    """sup_S P[L + shift in S] - e^eps P[L in S], L ~ Laplace(scale), by quadrature."""
    mpmath.mp.dps = 40
    e, m, b = mpmath.mpf(epsilon), mpmath.mpf(shift), mpmath.mpf(scale)

    def density(x, centre):
        return mpmath.exp(-abs(x - centre) / b) / (2 * b)

    def gap(x):
        return max(mpmath.mpf(0), density(x, m) - mpmath.exp(e) * density(x, 0))

    return float(mpmath.quad(gap, [-mpmath.inf, 0, m, mpmath.inf]))


@pytest.mark.slow
def test_the_catastrophe_mechanism_states_epsilon_wc_and_delta_for_every_pair():
    # (eps_wc, delta)-DP: the catastrophe adds delta, the Laplace part nothing
    # at eps_wc = Delta_wc / b, and something just below it (tight).
    est = _zero()
    mech = CatastropheMechanism(est, 1.0, 1e-6)
    part = mech.privacy.worst_case
    assert part.delta == 1e-6 and part.rdp is None and part.rho is None
    assert part.epsilon == pytest.approx(10.0, rel=1e-15) and part.epsilon <= 10.0
    assert _laplace_hockey_stick(part.epsilon, est.worst_case, mech.scale) < 1e-30
    assert _laplace_hockey_stick(0.99 * part.epsilon, est.worst_case, mech.scale) > 1e-3
    assert mech.privacy.epsilon == 1.0 and mech.privacy.gamma == est.gamma


# ---------------------------------------------------------------------- Gaussian
def _exact_delta(sigma, epsilon):
    """Balle & Wang (2018), Thm. 8, at 50 digits, unit sensitivity."""
    mpmath.mp.dps = 50
    s, e = mpmath.mpf(sigma), mpmath.mpf(epsilon)
    return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(
        -1 / (2 * s) - e * s
    )


@pytest.mark.parametrize("zero", [False, True])
def test_gaussian_worst_case_is_the_exact_epsilon_of_the_same_sigma(zero):
    est = _zero(norm="l2") if zero else _estimate(norm="l2")
    mech = GaussianMechanism(est, 1.0, 1e-6)
    worst = mech.privacy.worst_case
    unit = mech.sigma / est.worst_case
    assert worst.delta == 1e-6
    assert _exact_delta(unit, worst.epsilon) <= 1e-6  # holds
    assert _exact_delta(unit, worst.epsilon * (1 - 1e-6)) > 1e-6  # and is tight
    assert worst.epsilon <= 10.0 * (1 + 1e-9)
    if zero:
        assert worst.epsilon == pytest.approx(10.0, rel=1e-9)


# ---------------------------------------------------------------- discrete Laplace
def test_discrete_laplace_on_a_sampled_zero_states_its_epsilon_not_zero():
    # Before: scale 0, "epsilon=0" stated and recorded, the value released as is.
    mech = DiscreteLaplaceMechanism(_zero(), 0.5, granularity=0.001)
    assert mech.epsilon == 0.5 and mech.privacy.epsilon == 0.5
    worst = mech.privacy.worst_case
    # L_wc = 0.12 / 0.001 = 120 steps, t >= 120 / 5 = 24 steps
    assert mech.scale == pytest.approx(0.024, rel=1e-6)
    assert 0 < worst.epsilon <= 5.0 * (1 + 1e-12)
    assert mech.release(171.0, random_state=random.Random(0)) != 171.0


# ------------------------------------------------------------------- the statement
def test_the_statement_prints_both_parts_rounded_up():
    text = str(LaplaceMechanism(_estimate(), 1.0).privacy)
    assert "except with probability gamma=" in text
    assert re.search(r"worst case: epsilon=[0-9.]+-DP for every pair", text)


def test_a_worst_case_part_must_be_plain_dp():
    run = SamplingRun("r", 0.05)
    sampled = PrivacyStatement("m", 1.0, 0.0, run=run, source="sampled")
    with pytest.raises(ValueError, match="plain"):
        PrivacyStatement("m", 1.0, 0.0, run=run, source="sampled", worst_case=sampled)
    with pytest.raises(TypeError, match="worst_case must be a PrivacyStatement"):
        PrivacyStatement("m", 1.0, 0.0, run=run, source="sampled", worst_case=2.0)
    add_remove = PrivacyStatement("w", 2.0, 0.0, neighbours="add-remove")
    with pytest.raises(ValueError, match="neighbours"):
        PrivacyStatement("m", 1.0, 0.0, run=run, source="sampled", worst_case=add_remove)


def test_the_worst_case_travels_as_a_dp_event_and_through_conversions():
    pytest.importorskip("dp_accounting")
    est = _estimate(neighbours="add-remove")
    statement = LaplaceMechanism(est, 1.0).privacy
    worst = statement.worst_case
    assert worst.neighbours == "add-remove"
    event = worst.to_dp_event(neighbours="add-remove")  # no gamma: no allow_gamma
    assert event.noise_multiplier == pytest.approx(1.0 / worst.epsilon)
    converted = to_replace_one(statement)
    assert converted.worst_case.epsilon == 2 * worst.epsilon
    assert converted.worst_case.neighbours == "replace-one"


# ------------------------------------------------------------------ the accountant
def test_accountants_report_the_worst_case_total():
    first = LaplaceMechanism(_estimate(), 1.0)
    second = LaplaceMechanism(_zero(), 0.5)
    for acc in (PrivacyFilter(10.0, 0.0), RenyiAccountant()):
        acc.compose(first)
        acc.compose(second, count=2)
        total = acc.worst_case()
        expected = first.privacy.worst_case.epsilon + 2 * (
            second.privacy.worst_case.epsilon
        )
        assert total.epsilon == pytest.approx(expected, rel=1e-12)
        assert total.epsilon >= expected and total.gamma == 0.0
        assert acc.ledger[0].worst_case_epsilon == first.privacy.worst_case.epsilon
        acc.compose(LaplaceMechanism(_estimate(bounds=None), 1.0))
        assert acc.worst_case() is None  # a release with no worst case


def test_a_global_release_is_its_own_worst_case():
    acc = PrivacyFilter(10.0, 0.0)
    acc.compose(LaplaceMechanism(1.0, 0.5))
    acc.spend(0.25)
    assert acc.worst_case().epsilon == 0.75


# ------------------------------------------------------------------------- audits
def _outlier_pair():
    rng = np.random.default_rng(5)
    data = rng.normal(170.0, 10.0, 500)
    data[0] = 987654.321
    other = data.copy()
    other[0] = 140.0  # the outlier's neighbour: the record replaced
    return data, other


@pytest.mark.slow
def test_the_outlier_moves_the_maximum_within_the_worst_case():
    # quantile:1 of a column holding 987654.321 was released ~exactly (987647)
    data, other = _outlier_pair()
    bounds = Bounds.from_population(Normal(170.0, 10.0))
    query = queries.quantile(1.0)
    est = _estimate(Normal(170.0, 10.0), bounds=bounds, query=query)
    mech = LaplaceMechanism(est, 0.5)
    a, b = query(bounds.clip(data)), query(bounds.clip(other))
    assert a <= bounds.high < 1000.0
    worst = _WorstCase(mech)
    result = audit_mechanism(worst, a, b, releases=40_000, random_state=1)
    assert result.stated == mech.privacy.worst_case.epsilon
    assert not result.violated


@pytest.mark.slow
def test_the_outlier_breaks_the_random_dp_epsilon_but_not_the_worst_case():
    # The pair differing in the outlier is the rare pair random DP leaves out:
    # the realised epsilon exceeds the random-DP epsilon, never the worst case.
    data, other = _outlier_pair()
    bounds = Bounds.from_population(Normal(170.0, 10.0))
    est = _estimate(Normal(170.0, 10.0), bounds=bounds)
    mech = LaplaceMechanism(est, 1.0)
    a, b = queries.mean(bounds.clip(data)), queries.mean(bounds.clip(other))
    realised = abs(a - b) / mech.scale  # Laplace: exactly |a - b| / scale
    assert 1.0 < realised <= mech.privacy.worst_case.epsilon
    audit = audit_mechanism(mech, a, b, releases=200_000, random_state=2)
    assert audit.violated  # the random-DP epsilon does not hold for this pair
    assert not audit_mechanism(_WorstCase(mech), a, b, releases=200_000,
                               random_state=2).violated


class _WorstCase:
    """A mechanism read with its worst-case statement (for audits at epsilon_wc)."""

    def __init__(self, mech):
        self.privacy = mech.privacy.worst_case
        self.release = mech.release


# -------------------------------------------------------------- discrete Gaussian
@pytest.mark.parametrize("zero", [False, True])
def test_discrete_gaussian_states_a_worst_case_zcdp_and_floors_sigma(zero):
    est = _zero(norm="l2") if zero else _estimate(norm="l2")
    mech = DiscreteGaussianMechanism(est, rho=0.125, granularity=0.001)
    worst = mech.privacy.worst_case
    # S_wc = ceil(0.12 / 0.001)^2 = 120^2 grid steps; rho_wc = S_wc / (2 sigma^2)
    sigma2 = (mech.sigma / 0.001) ** 2
    assert worst.epsilon is None and worst.gamma == 0.0
    assert worst.rho == pytest.approx(120**2 / (2 * sigma2), rel=1e-9)
    assert worst.rho <= 12.5 * (1 + 1e-12)  # the default cap: 100 rho
    assert mech.privacy.rho == (0.125 if zero else mech.rho)
    if zero:
        assert worst.rho == pytest.approx(12.5, rel=1e-9)
    assert "worst case: rho=" in str(mech.privacy)


def test_a_discrete_gaussian_release_meets_the_epsilon_cap():
    from sensampler.app.release import release_statistic

    data = np.random.default_rng(0).normal(170, 10, 500)
    r = release_statistic(data, "mean", Empirical([171.0]), epsilon=1.0, delta=1e-6,
                          mechanism="discrete-gaussian", bounds=(140.0, 200.0))
    worst = r.statement.worst_case
    assert worst.delta == 1e-6 and 9.9 < worst.epsilon <= 10.0
    assert r.statement.epsilon <= 1.0


def test_a_per_coordinate_zero_with_a_worst_case_is_floored():
    # A hand-made per-coordinate estimate with a worst case: every coordinate's
    # scale is raised to the floor, so no coordinate is released exactly.
    est = _estimate(query=queries.histogram(2, range=(140, 200)), norm="coordinate")
    fake = type(est)(
        np.zeros_like(est.samples), est.run.__class__(None, est.gamma, m=est.m, k=est.k),
        est.plan, est.norm, est.n, bounds=BOUNDS, worst_case=2.0,
    )
    mech = LaplaceMechanism(fake, 1.0)
    assert np.all(mech.scale == pytest.approx(0.2)) and mech.privacy.worst_case.epsilon <= 10


@pytest.mark.slow
def test_the_gaussian_worst_case_stays_within_its_cap_to_the_last_ulp():
    # Before: the floor analytic_gaussian_sigma(cap, delta) * worst, rounded,
    # then the stated epsilon certified (rounded up), landed up to ~5e-14
    # relative above the cap (18 of 3 600 random draws; e.g. cap
    # 0.6213768120235997, delta 1.6544e-08 stated 0.6213768120236113).
    est = _zero(bounds=Bounds.given(0.0, 1e4), n=200)  # the floor binds
    cap, delta = 0.6213768120235997, 1.6544026395034733e-08
    mech = GaussianMechanism(est, 0.5, delta, worst_case_epsilon=cap)
    assert mech.privacy.worst_case.epsilon <= cap
    rng = random.Random(3)
    over = 0
    for _ in range(400):
        cap = rng.uniform(0.05, 5.0)
        delta = 10 ** rng.uniform(-12, -3)
        mech = GaussianMechanism(est, cap / rng.uniform(1.0, 10.0), delta,
                                 worst_case_epsilon=cap)
        over += mech.privacy.worst_case.epsilon > cap
        # raised by at most a few relative 2^-40 steps above the floor
        floor = analytic_gaussian_sigma(cap, delta) * est.worst_case
        assert mech.sigma <= floor * (1 + 1e-11)
    assert over == 0


# ------------------------------------------------- rho rounded the safe way
# Audit findings on the rho the mechanisms state for every pair (the worst
# case): it must bound the exact one of the noise drawn, Delta^2 / (2 sigma^2),
# and the noise per unit of sensitivity must not exceed min_j sigma_j / Delta
# (checked with exact fractions).


def _estimates():
    for width in (60.0, 61.3, 77.7, 33.3):
        yield sample_sensitivity(
            queries.mean, Normal(170, 10), 500, gamma=0.05,
            bounds=Bounds.given(140.0, 140.0 + width), random_state=0,
        )


@pytest.mark.slow
def test_the_gaussian_worst_case_rho_and_noise_are_rounded_the_safe_way():
    """1 / (2 unit^2) with unit = sigma / Delta_wc, both rounded to nearest: the stated
    rho was below Delta_wc^2 / (2 sigma^2) for 122 of these 240."""
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


def test_the_rho_of_a_pure_statement_is_never_below_its_square():
    """Epsilon * (epsilon / 2) rounded to nearest: 242 of 500 Laplace statements stated
    a rho below epsilon^2 / 2 (Bun & Steinke 2016, Prop. 3.3)."""
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


@pytest.mark.slow
def test_the_per_coordinate_laplace_worst_case_holds_where_it_is_tight():
    """The l1 worst case put whole on the coordinate of least noise: the stated Delta_wc
    / min_j b_j is reached there, and a statement of half the shift (a copy that
    understates its worst case) is caught by the same audit."""
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
