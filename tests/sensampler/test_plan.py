import math
import re
from fractions import Fraction

import numpy as np
import pytest
from scipy import special, stats

from sensampler import certified_gamma, sampling_plan
from sensampler.plan import MAX_PAIRS
from tests.conftest import assert_below_in_se, assert_close_in_se


# ------------------------------------------------------------------ DKW (the paper)
def _diffpriv_gamma_mode(gamma):
    """The authors' R package, transcribed as formulas (Rubinstein & Aldà 2017, Cor. 7)."""
    rho = math.exp(special.lambertw(-gamma / (2 * math.exp(0.5)), -1).real + 0.5)
    m = math.ceil(math.log(1 / rho) / (2 * (gamma - rho) ** 2))
    lo = rho + math.sqrt(math.log(1 / rho) / (2 * m))
    return m, math.ceil(m * (1 - gamma + lo))


def test_dkw_reproduces_the_paper_authors_numbers():
    plan = sampling_plan(gamma=0.05, inequality="dkw")
    assert (plan.m, plan.k) == (1305, 1305)
    assert plan.gamma <= 0.05
    for gamma in (0.01, 0.05, 0.1, 0.2, 0.33):
        plan = sampling_plan(gamma=gamma, inequality="dkw")
        assert (plan.m, plan.k) == _diffpriv_gamma_mode(gamma)


def test_dkw_m_given_gives_the_lambert_w_floor():
    m = 1000
    rho = math.exp(special.lambertw(-1 / (4 * m), -1).real / 2)
    floor = rho + math.sqrt(math.log(1 / rho) / (2 * m))
    plan = sampling_plan(m=m, inequality="dkw")
    assert plan.k == m and plan.gamma == pytest.approx(floor, rel=1e-12)
    # the Lambert W choice is the minimiser of rho + sqrt(log(1/rho) / 2m)
    grid = np.linspace(1e-4, 0.2, 200_001)
    assert floor <= (grid + np.sqrt(np.log(1 / grid) / (2 * m))).min() + 1e-12


def test_dkw_explicit_k_certifies_one_minus_k_over_m_plus_the_floor():
    # k >= m (1 - gamma + floor)  <=>  gamma >= 1 - k/m + floor
    floor = sampling_plan(m=2000, inequality="dkw").gamma
    plan = sampling_plan(m=2000, k=1900, inequality="dkw")
    assert plan.gamma == pytest.approx(1 - 1900 / 2000 + floor)
    assert certified_gamma(2000, 1900, inequality="dkw") == plan.gamma


def test_dkw_both_given_chooses_k_as_the_package_does():
    m, gamma = 2000, 0.1
    floor = sampling_plan(m=m, inequality="dkw").gamma
    plan = sampling_plan(m=m, gamma=gamma, inequality="dkw")
    assert plan.k == math.ceil(m * (1 - gamma + floor))
    assert plan.gamma <= gamma


# ------------------------------------------------------------------------- exact
def _gamma_by_grid(m, k):
    """Second method: minimise beta + P[Bin(m, 1-beta) >= k] on a fine grid."""
    beta = np.linspace(1e-7, 1 - 1e-7, 400_001)
    return float(np.min(beta + stats.binom.sf(k - 1, m, 1 - beta)))


@pytest.mark.parametrize(
    "m, k",
    [(113, 113), (1305, 1264), (500, 480), (60, 58), (20, 19), (1000, 1000), (7, 5)],
)
@pytest.mark.slow
def test_exact_gamma_is_the_minimum_over_the_split(m, k):
    # The grid's spacing 2.5e-6 bounds how far its minimum can sit above the true one.
    assert certified_gamma(m, k) == pytest.approx(_gamma_by_grid(m, k), abs=5e-6)
    assert certified_gamma(m, k) <= _gamma_by_grid(m, k) + 1e-12


def test_exact_top_order_statistic_closed_form():
    # k = m: beta* = 1 - m^(-1/(m-1)), gamma = 1 - m^(-1/(m-1)) (1 - 1/m)
    for m in (2, 10, 113, 5000):
        assert certified_gamma(m, m) == pytest.approx(
            1 - m ** (-1 / (m - 1)) * (1 - 1 / m)
        )


def test_exact_gamma_mode_is_minimal():
    for gamma in (0.001, 0.01, 0.05, 0.2, 0.5):
        plan = sampling_plan(gamma=gamma)
        assert plan.k == plan.m
        assert plan.gamma <= gamma < certified_gamma(plan.m - 1, plan.m - 1)
        assert plan.gamma == pytest.approx(plan.beta + plan.rho)


def test_exact_needs_about_ten_times_fewer_pairs_than_dkw():
    assert sampling_plan(gamma=0.05).m == 113
    assert sampling_plan(gamma=0.05, inequality="dkw").m / sampling_plan(gamma=0.05).m > 10


def test_exact_m_and_gamma_give_the_smallest_k():
    plan = sampling_plan(m=1305, gamma=0.05)
    assert plan.gamma <= 0.05 < certified_gamma(1305, plan.k - 1)


def test_explicit_k_certifies_its_gamma():
    plan = sampling_plan(m=500, k=490)
    assert plan.gamma == certified_gamma(500, 490)
    assert sampling_plan(m=500, k=490, gamma=0.5).k == 490


def test_k_one_certifies_nothing():
    assert certified_gamma(100, 1) == 1.0


@pytest.mark.slow
def test_exact_bound_by_simulation(seed):
    # G ~ Uniform(0, 1), so F(G_(k)) = G_(k) and the tail mass above it is 1 - G_(k).
    # The binomial bound is attained for a continuous G: the rate of the sampler's own
    # failure, "tail mass > beta", must equal rho; the joint failure must stay <= gamma.
    rng = np.random.default_rng(seed)
    for m, k in [(113, 113), (200, 190)]:
        plan = sampling_plan(m=m, k=k)
        trials = 40_000
        kth = np.partition(rng.random((trials, m)), k - 1, axis=1)[:, k - 1]
        sampler_fails = np.mean(1 - kth > plan.beta)
        se = math.sqrt(plan.rho * (1 - plan.rho) / trials)
        assert_close_in_se(sampler_fails, plan.rho, se)
        pair_fails = np.mean(rng.random(trials) > kth)  # a fresh pair above G_(k)
        assert_below_in_se(pair_fails, plan.gamma, math.sqrt(plan.gamma / trials))


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(), ValueError, "give gamma, m, or both (got neither)."),
        (dict(gamma=0.0), ValueError, "gamma must be > 0.0 and < 1.0, got gamma=0.0."),
        (dict(gamma=1.0), ValueError, "gamma must be > 0.0 and < 1.0, got gamma=1.0."),
        (
            dict(gamma=-0.1),
            ValueError,
            "gamma must be > 0.0 and < 1.0, got gamma=-0.1.",
        ),
        (dict(gamma="0.05"), TypeError, "gamma must be a real number, got '0.05'."),
        (dict(m=0), ValueError, "m must be an integer >= 1, got m=0."),
        (dict(m=10.5), TypeError, "m must be an integer, got 10.5."),
        (dict(m=10, k=11), ValueError, "k must be between 1 and m=10, got k=11."),
        (dict(m=10, k=0), ValueError, "k must be an integer >= 1, got k=0."),
        (dict(gamma=0.1, k=5), ValueError, "k needs m: give m as well as k=5."),
        (
            dict(m=10, gamma=0.01),
            ValueError,
            "gamma=0.01 is below what m=10 pairs can certify under the exact bound; the minimum",
        ),
        (
            dict(m=10, gamma=0.01, inequality="dkw"),
            ValueError,
            "gamma=0.01 is below what m=10 pairs can certify under the dkw bound",
        ),
        (
            dict(m=100, k=50, gamma=0.01),
            ValueError,
            "more than the gamma=0.01 asked for",
        ),
        (dict(m=1), ValueError, "m=1 pairs certify no gamma below 1"),
        (
            dict(m=2**63, gamma=0.05),
            ValueError,
            f"m must be <= MAX_PAIRS={MAX_PAIRS}, got m={2**63}.",
        ),
        (
            dict(gamma=1e-300),
            ValueError,
            f"gamma=1e-300 needs more than MAX_PAIRS={MAX_PAIRS} pairs under the "
            "exact bound; the smallest gamma it allows is 2.17233e-08.",
        ),
        (
            dict(gamma=1e-18),
            ValueError,
            "gamma=1e-18 needs more than MAX_PAIRS",
        ),
        (
            dict(gamma=1e-14, inequality="dkw"),
            ValueError,
            "gamma=1e-14 needs more than MAX_PAIRS",
        ),
        (
            dict(gamma=1e-300, inequality="dkw"),
            ValueError,
            "gamma=1e-300 needs more than MAX_PAIRS",
        ),
        (
            dict(gamma=1e-300, inequality="exchangeable"),
            ValueError,
            f"gamma=1e-300 needs more than MAX_PAIRS={MAX_PAIRS} pairs under the "
            "exchangeable bound; the smallest gamma it allows is 1e-09.",
        ),
        (
            dict(gamma=0.1, inequality="hoeffding"),
            ValueError,
            "inequality must be one of 'exact', 'dkw', 'exchangeable', got inequality='hoeffding'.",
        ),
    ],
)
def test_refusals(kwargs, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        sampling_plan(**kwargs)


def test_plan_to_dict():
    d = sampling_plan(gamma=0.05).to_dict()
    assert set(d) == {"m", "k", "gamma", "rho", "beta", "inequality"}


def test_certified_gamma_refuses_m_above_the_limit():
    with pytest.raises(ValueError, match=re.escape("m must be <= MAX_PAIRS")):
        certified_gamma(10**30, 10**30 - 5)



@pytest.mark.slow
def test_exact_gamma_mode_takes_k_m_as_the_search_over_k_would():
    # The exact plan for gamma alone returns k = m without searching k; the
    # search, run when m is given, agrees on a grid down to m = 2.
    for gamma in np.geomspace(3e-8, 0.74, 60):
        plan = sampling_plan(gamma=float(gamma))
        assert plan == sampling_plan(m=plan.m, gamma=float(gamma))
        assert plan.k == plan.m and certified_gamma(plan.m - 1, plan.m - 1) > gamma


# ------------------------------------------------------------ hostile but valid inputs
@pytest.mark.parametrize("inequality", ["exact", "exchangeable", "dkw"])
def test_the_smallest_gamma_at_the_limit_is_planned(inequality):
    # (the exchangeable floor 1/(MAX_PAIRS + 1) is rounded below its exact value,
    # so gamma is taken a hair above it)
    floor = sampling_plan(m=MAX_PAIRS, inequality=inequality).gamma * (1 + 1e-12)
    plan = sampling_plan(gamma=floor, inequality=inequality)
    assert MAX_PAIRS - 1 <= plan.m <= MAX_PAIRS and plan.gamma <= floor


@pytest.mark.parametrize("inequality", ["exact", "exchangeable", "dkw"])
def test_every_gamma_mode_plan_certifies_its_gamma(inequality):
    # Down to the limit: each plan's own gamma never exceeds the one asked for.
    floor = sampling_plan(m=MAX_PAIRS, inequality=inequality).gamma
    for gamma in np.geomspace(floor * 1.0001, 0.9, 40):
        plan = sampling_plan(gamma=float(gamma), inequality=inequality)
        assert plan.gamma <= gamma and plan.k == plan.m <= MAX_PAIRS


def test_exact_at_the_limit_chooses_k_by_the_normal_law():
    # m = 1e9, gamma = 0.05: beta + P[Bin(m, 1 - beta) >= k] with k = m (1 - beta) +
    # z sqrt(m beta (1 - beta)); the plan's k sits within a few standard deviations
    # of m (1 - 0.05), and its own gamma is below 0.05.
    plan = sampling_plan(m=10**9, gamma=0.05)
    sd = math.sqrt(10**9 * 0.05 * 0.95)
    assert 0 < plan.k - 0.95 * 10**9 < 6 * sd
    assert plan.gamma <= 0.05
    z = (plan.k - 1 - 10**9 * (1 - plan.beta)) / math.sqrt(
        10**9 * plan.beta * (1 - plan.beta)
    )
    assert plan.rho == pytest.approx(stats.norm.sf(z), rel=1e-2)


# ------------------------------------------------------------------ exchangeable
def test_exchangeable_issue_figures():
    assert sampling_plan(gamma=0.05, inequality="exchangeable").m == 19
    assert sampling_plan(gamma=0.001, inequality="exchangeable").m == 999
    assert sampling_plan(gamma=0.2, inequality="exchangeable").m == 4
    plan = sampling_plan(gamma=0.05, inequality="exchangeable")
    assert (plan.k, plan.gamma, plan.rho, plan.beta) == (19, 0.05, 0.0, 0.05)


@pytest.mark.parametrize("m, k", [(19, 19), (100, 96), (7, 1), (999, 990)])
def test_exchangeable_gamma_is_the_rank_law(m, k):
    plan = sampling_plan(m=m, k=k, inequality="exchangeable")
    assert plan.gamma == certified_gamma(m, k, inequality="exchangeable")
    assert plan.gamma == pytest.approx((m - k + 1) / (m + 1), rel=1e-15)


def test_exchangeable_modes():
    # m given: k = m, gamma = 1/(m + 1)
    plan = sampling_plan(m=49, inequality="exchangeable")
    assert (plan.k, plan.gamma) == (49, 0.02)
    # both given: smallest k with (m - k + 1)/(m + 1) <= gamma, i.e. k >= 96 for
    # m = 100, gamma = 0.05 (5/101 <= 0.05 < 6/101)
    plan = sampling_plan(m=100, gamma=0.05, inequality="exchangeable")
    assert plan.k == 96 and plan.gamma <= 0.05 < certified_gamma(
        100, 95, "exchangeable"
    )
    # gamma given: the fewest pairs, 1/(m + 1) <= gamma < 1/m, in exact arithmetic
    # on the float gamma (float 1e-6 lies just below 1/10**6, so m = 10**6)
    for gamma in (0.3, 0.05, 0.01, 0.00123, 1e-6):
        plan = sampling_plan(gamma=gamma, inequality="exchangeable")
        assert plan.gamma <= gamma
        assert Fraction(1, plan.m + 1) <= Fraction(gamma) < Fraction(1, plan.m)
    with pytest.raises(ValueError, match="the minimum is gamma=0.0909091"):
        sampling_plan(m=10, gamma=0.01, inequality="exchangeable")


def test_exchangeable_needs_the_fewest_pairs():
    for gamma in (0.05, 0.001):
        ms = [sampling_plan(gamma=gamma, inequality=b).m for b in ("exchangeable", "exact")]
        assert ms[0] < ms[1]


def _exceed_rate(draw, m, k, trials, rng):
    """Rate at which a fresh draw exceeds G_(k) of m draws, over ``trials`` runs."""
    values = draw((trials, m + 1), rng)
    kth = np.partition(values[:, :m], k - 1, axis=1)[:, k - 1]
    return np.mean(values[:, m] > kth)


@pytest.mark.parametrize("m, k", [(19, 19), (30, 25), (9, 5)])
@pytest.mark.slow
def test_exchangeable_bound_is_attained_for_a_continuous_g(seed, m, k):
    rng = np.random.default_rng(seed)
    trials = 200_000
    rate = _exceed_rate(lambda size, r: r.lognormal(size=size), m, k, trials, rng)
    gamma = certified_gamma(m, k, inequality="exchangeable")
    assert_close_in_se(rate, gamma, math.sqrt(gamma * (1 - gamma) / trials))


def _discrete_exceed_probability(pmf, m, k):
    """Exact P[G_{m+1} > G_(k)] for G on 0..len(pmf)-1: sum over v of
    P[G_(k) = v] P[G > v], with P[G_(k) <= v] = P[Bin(m, F(v)) >= k]."""
    cdf = np.minimum(np.cumsum(pmf), 1.0)
    at_most = stats.binom.sf(k - 1, m, cdf)
    at = np.diff(np.concatenate([[0.0], at_most]))
    return float(np.sum(at * (1 - cdf)))


@pytest.mark.parametrize("m, k", [(19, 19), (30, 25), (9, 5)])
@pytest.mark.slow
def test_exchangeable_bound_holds_with_ties(seed, m, k):
    # G ~ Binomial(3, 0.2): four atoms, ties everywhere. The rate matches the exact
    # probability (second method) and stays below (m - k + 1)/(m + 1).
    rng = np.random.default_rng(seed)
    trials = 200_000
    rate = _exceed_rate(
        lambda size, r: r.binomial(3, 0.2, size=size), m, k, trials, rng
    )
    exact = _discrete_exceed_probability(stats.binom.pmf(np.arange(4), 3, 0.2), m, k)
    gamma = certified_gamma(m, k, inequality="exchangeable")
    assert_close_in_se(rate, exact, math.sqrt(exact * (1 - exact) / trials))
    assert exact <= gamma
    assert_below_in_se(rate, gamma, math.sqrt(gamma * (1 - gamma) / trials))


def test_each_plan_states_its_meaning():
    meanings = {
        b: sampling_plan(gamma=0.05, inequality=b).meaning
        for b in ("exact", "exchangeable", "dkw")
    }
    assert "PAC statement about the realised estimate" in meanings["exact"]
    assert "averaged over the sampler" in meanings["exchangeable"]
    assert "Rubinstein & Alda (2017, Thm. 3)" in meanings["dkw"]
