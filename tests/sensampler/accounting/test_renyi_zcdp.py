import math
import re

import numpy as np
import pytest
from scipy import optimize

from sensampler.accounting import RenyiAccountant, ZCDPAccountant, rdp_to_dp, zcdp_to_dp
from sensampler.accounting._kov import heterogeneous_epsilon, homogeneous_epsilon
from sensampler.mechanisms import (
    CatastropheMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
    analytic_gaussian_delta,
)
from sensampler.privacy import PrivacyStatement

dpa = pytest.importorskip("dp_accounting")


def _exact_gaussian_epsilon(sigma, k, delta):
    """k Gaussian steps of noise sigma (sensitivity 1) are exactly one Gaussian step of
    noise sigma / sqrt(k); its exact epsilon at delta (Balle & Wang 2018, Thm. 8)."""
    s = sigma / math.sqrt(k)
    return optimize.brentq(
        lambda e: analytic_gaussian_delta(s, e) - delta, 0.0, 1e4, xtol=1e-12
    )


@pytest.mark.parametrize("k", [1, 10, 100, 1000])
def test_gaussian_composition_against_dp_accounting_and_the_exact_curve(k):
    mech = GaussianMechanism(1.0, 0.5, 1e-5, variant="analytic")
    acc = RenyiAccountant()
    acc.compose(mech, count=k)
    peer = dpa.rdp.RdpAccountant(orders=list(acc.orders))
    peer.compose(dpa.GaussianDpEvent(mech.sigma), k)
    ours = acc.epsilon(1e-6)
    assert ours == pytest.approx(peer.get_epsilon(1e-6), rel=1e-9)
    exact = _exact_gaussian_epsilon(mech.sigma, k, 1e-6)
    assert exact <= ours <= 1.3 * exact + 0.05  # valid, and not far from optimal
    z = ZCDPAccountant()
    z.compose(mech, count=k)
    assert z.rho == pytest.approx(k / (2 * mech.sigma**2))
    assert exact <= z.epsilon(1e-6) <= z.epsilon(1e-6, method="classic")


def test_laplace_composition_against_dp_accounting():
    mech = LaplaceMechanism(1.0, 0.3)
    acc = RenyiAccountant()
    acc.compose(mech, 50)
    peer = dpa.rdp.RdpAccountant(orders=list(acc.orders))
    peer.compose(dpa.LaplaceDpEvent(mech.scale), 50)
    assert acc.epsilon(1e-6) == pytest.approx(peer.get_epsilon(1e-6), rel=1e-9)
    assert acc.epsilon(1e-6) < 50 * 0.3  # better than basic composition


def test_every_gaussian_variant_composes():
    acc = RenyiAccountant()
    for mech in (
        GaussianMechanism(1.0, 0.5, 1e-5),
        RenyiGaussianMechanism(1.0, 10, 0.5),
        ZCDPGaussianMechanism(1.0, 0.05),
    ):
        acc.compose(mech)
    # total RDP at alpha is sum alpha / (2 sigma_i^2)
    sigmas = [GaussianMechanism(1.0, 0.5, 1e-5).sigma, math.sqrt(10), math.sqrt(10)]
    alpha = acc.orders[10]
    assert acc.rdp[10] == pytest.approx(sum(alpha / (2 * s**2) for s in sigmas))


def test_improved_conversion_beats_the_classic_one():
    acc = RenyiAccountant()
    acc.compose(GaussianMechanism(1.0, 0.5, 1e-5), 100)
    eps, order = acc.epsilon_order(1e-5)
    classic = acc.epsilon(1e-5, method="classic")
    assert eps < classic and order in acc.orders


def test_classic_conversion_is_mironov_prop_3():
    # (alpha, eps_bar)-RDP -> (eps_bar + log(1/delta)/(alpha - 1), delta)-DP
    eps, order = rdp_to_dp([0.5], 1e-5, orders=[10.0], method="classic")
    assert eps == pytest.approx(0.5 + math.log(1e5) / 9) and order == 10.0


def test_zcdp_conversions():
    # Bun & Steinke Prop 1.3: rho + 2 sqrt(rho log(1/delta))
    assert zcdp_to_dp(0.1, 1e-5, "classic") == pytest.approx(
        0.1 + 2 * math.sqrt(0.1 * math.log(1e5))
    )
    # improved: the minimum over alpha of the CKS conversion of alpha rho, found on a grid
    alphas = np.linspace(1.001, 200, 400_000)
    grid = np.min(
        alphas * 0.1
        + np.log1p(-1 / alphas)
        - (math.log(1e-5) + np.log(alphas)) / (alphas - 1)
    )
    assert zcdp_to_dp(0.1, 1e-5) == pytest.approx(grid, abs=1e-6)


def test_variants_document_experiment_values():
    # 004: sigma = 200, delta = 1e-5, zCDP: eps = x rho + 2 sqrt(x rho log(1/delta))
    rho = 1 / (2 * 200.0**2)
    z = ZCDPAccountant()
    z.compose(ZCDPGaussianMechanism(1.0, rho), count=500)
    assert z.epsilon(1e-5, "classic") == pytest.approx(
        500 * rho + 2 * math.sqrt(500 * rho * math.log(1e5))
    )


def test_catastrophe_and_typical_sensitivities_are_refused():
    with pytest.raises(ValueError, match="satisfies no finite Rényi DP"):
        RenyiAccountant().compose(CatastropheMechanism(1.0, 1.0, 1e-3))
    with pytest.raises(ValueError, match="has no zCDP guarantee"):
        ZCDPAccountant().compose(CatastropheMechanism(1.0, 1.0, 1e-3))


def test_reports_carry_gamma():
    from sensampler import queries, sample_sensitivity
    from sensampler.distributions import Normal

    est = sample_sensitivity(
        queries.mean, Normal(), 100, gamma=0.05, norm="l2", random_state=0
    )
    acc = RenyiAccountant()
    acc.compose(GaussianMechanism(est, 0.5, 1e-5), count=10)
    report = acc.report(1e-5)
    assert report.gamma == est.gamma and report.delta == 1e-5


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (
            lambda: RenyiAccountant(orders=[0.5, 2.0]),
            ValueError,
            "orders must be non-empty and all > 1",
        ),
        (
            lambda: RenyiAccountant().compose(LaplaceMechanism(1, 1), count=0),
            ValueError,
            "count must be an integer >= 1",
        ),
        (
            lambda: RenyiAccountant().epsilon(1.5),
            ValueError,
            "delta must be >= 0.0 and <= 1.0",
        ),
        (
            lambda: RenyiAccountant().epsilon(-0.1),
            ValueError,
            "delta must be >= 0.0 and <= 1.0",
        ),
        (
            lambda: rdp_to_dp([1.0], 1e-5, orders=[1.0]),
            ValueError,
            "orders must be non-empty and all > 1",
        ),
        (lambda: zcdp_to_dp(-1.0, 1e-5), ValueError, "rho must be >= 0.0"),
        (
            lambda: ZCDPAccountant().epsilon(2.0),
            ValueError,
            "delta must be >= 0.0 and <= 1.0",
        ),
    ],
)
def test_bad_inputs(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_privacy_statement_converts_at_any_delta():
    gauss = GaussianMechanism(1.0, 0.5, 1e-5, variant="analytic")
    # its own statement where delta fits, else the best of the Rényi curve and rho
    assert gauss.privacy.epsilon_for(1e-5) <= 0.5
    rdp_only = rdp_to_dp(gauss.privacy.rdp, 1e-7)[0]
    rho_only = zcdp_to_dp(gauss.privacy.rho, 1e-7)
    assert gauss.privacy.epsilon_for(1e-7) == min(rdp_only, rho_only)
    zc = ZCDPGaussianMechanism(1.0, 0.1)
    assert zc.privacy.epsilon_for(1e-5) <= zcdp_to_dp(0.1, 1e-5, "classic")
    with pytest.raises(ValueError, match="states no guarantee at delta=1e-09"):
        CatastropheMechanism(1.0, 1.0, 1e-3).privacy.epsilon_for(1e-9)


@pytest.mark.parametrize("k", [1, 10, 100])
def test_delta_of_epsilon_is_valid_and_inverts_epsilon(k):
    mech = GaussianMechanism(1.0, 0.5, 1e-5, variant="analytic")
    renyi, zcdp = RenyiAccountant(), ZCDPAccountant()
    renyi.compose(mech, count=k)
    zcdp.compose(mech, count=k)
    s = mech.sigma / math.sqrt(k)  # k steps are one step of noise sigma / sqrt(k)
    for acc in (renyi, zcdp):
        eps = acc.epsilon(1e-6)
        assert acc.delta(eps) == pytest.approx(1e-6, rel=1e-4)
        for e in (0.5 * eps, eps, 2 * eps):
            assert analytic_gaussian_delta(s, e) <= acc.delta(e) <= 1.0
    # CKS Prop. 12 in delta, minimised over the orders, computed here directly
    a = renyi.orders
    log_d = (a - 1) * (renyi.rdp - 1.0 + np.log1p(-1 / a)) - np.log(a)
    assert renyi.delta(1.0) == pytest.approx(min(1.0, math.exp(log_d.min())))


# -------------------------------------------------------- pure-DP ledgers are capped
def test_one_laplace_release_through_zcdp_is_epsilon_dp():
    # rho = 1/2 converts to 4.73 at delta = 1e-5; the release is 1-DP
    acc = ZCDPAccountant()
    acc.compose(LaplaceMechanism(1.0, 1.0))
    assert acc._own_epsilon(1e-5, "improved") == pytest.approx(4.7284, abs=1e-4)
    assert acc.epsilon(1e-5) <= 1.0
    assert acc.delta(1.0) == 0.0  # basic composition: 1-DP, delta 0
    assert acc.report(1e-5).method.startswith(("basic", "optimal"))


def test_renyi_accountant_is_capped_by_the_exact_optimal_composition():
    # 100 Laplace releases at epsilon 0.1: Rényi 4.533, KOV's exact optimum 4.307
    acc = RenyiAccountant()
    acc.compose(LaplaceMechanism(1.0, 0.1), count=100)
    assert acc.epsilon_order(1e-5)[0] == pytest.approx(4.533, abs=1e-3)
    assert acc.epsilon(1e-5) == homogeneous_epsilon(0.1, 0.0, 100, 1e-5)
    assert acc.report(1e-5).method == "optimal (Kairouz et al. 2017, Thm. 3.3)"
    assert acc.delta(acc.epsilon(1e-5)) <= 1e-5 * (1 + 1e-9)


def test_mixed_pure_ledgers_use_the_heterogeneous_bound():
    acc = ZCDPAccountant()
    acc.compose(LaplaceMechanism(1.0, 0.1), count=50)
    acc.compose(ExponentialMechanism(1.0, 0.2), count=50)
    eps, _ = heterogeneous_epsilon([0.1] * 50 + [0.2] * 50, [0.0] * 100, 1e-5)
    assert acc.epsilon(1e-5) == min(eps, 15.0, acc._own_epsilon(1e-5, "improved"))


def test_a_gaussian_release_lifts_the_cap():
    acc = RenyiAccountant()
    acc.compose(LaplaceMechanism(1.0, 1.0))
    acc.compose(GaussianMechanism(1.0, 0.5, 1e-6))
    assert acc.epsilon(1e-5) == acc.epsilon_order(1e-5)[0]


def test_a_pure_ledger_beyond_the_exact_law_keeps_its_other_bounds():
    from sensampler.mechanisms import LaplaceMechanism

    acc = RenyiAccountant()
    acc.compose(LaplaceMechanism(1.0, 1e-4), count=2 * 10**6)
    assert acc.epsilon(1e-5) == pytest.approx(acc.epsilon_order(1e-5)[0])
    assert acc.epsilon(1e-5) < 200.0  # basic: 200
    assert 1e-5 < acc.delta(0.3) < 1.0


# ------------------------------------- statements without a curve: the implied one
def _hand_curve(epsilon, rho, alpha):
    """By hand: epsilon-DP is (alpha, min(epsilon, alpha epsilon^2 / 2))-RDP, rho-zCDP
    is (alpha, alpha rho)-RDP; the smaller of those that hold."""
    values = [] if rho is None else [alpha * rho]
    if epsilon is not None:
        values.append(min(epsilon, alpha * epsilon * epsilon / 2))
    return min(values)


@pytest.mark.parametrize(
    "epsilon, delta, rho",
    [
        (0.01, 0.0, 5e-5),  # audit finding: refused as "no finite Rényi DP"
        (0.5, 0.0, None),  # min(0.5, alpha / 8)
        (0.1, 0.0, 1.0),  # the pure curve is the smaller
        (0.1, 1e-6, 0.01),  # delta > 0: the zCDP curve alone
        (None, None, 0.02),
    ],
)
def test_a_statement_without_a_curve_composes_with_the_curve_it_implies(
    epsilon, delta, rho
):
    acc = RenyiAccountant()
    acc.compose(PrivacyStatement("x", epsilon, delta, rho=rho), count=3)
    pure = epsilon if delta == 0.0 else None
    expected = [3 * _hand_curve(pure, rho, a) for a in acc.orders]
    np.testing.assert_allclose(acc.rdp, expected, rtol=1e-15, atol=0)
    assert len(acc.ledger) == 1


def test_the_audit_statement_by_hand():
    # min(0.01, alpha 5e-5): 1e-4 at alpha 2, 0.01 at alpha 256
    acc = RenyiAccountant(orders=[2.0, 256.0])
    acc.compose(PrivacyStatement("x", 0.01, 0.0, rho=5e-5))
    assert acc.rdp.tolist() == [1e-4, 0.01]
    assert acc.epsilon(0.0) == 0.01  # the pure cap still holds


def test_an_approximate_statement_alone_is_still_refused():
    acc = RenyiAccountant()
    with pytest.raises(ValueError, match="satisfies no finite Rényi DP"):
        acc.compose(PrivacyStatement("x", 0.1, 1e-6))
    assert len(acc.ledger) == 0


@pytest.mark.parametrize("epsilon, expected", [(0.5, 0.125), (3.0, 3.0)])
def test_zcdp_accountant_reads_a_pure_statement_without_rho(epsilon, expected):
    # epsilon-DP is min(epsilon, epsilon^2 / 2)-zCDP; before: "has no zCDP guarantee"
    z = ZCDPAccountant()
    z.compose(PrivacyStatement("x", epsilon, 0.0), count=2)
    assert z.rho == 2 * expected
    with pytest.raises(ValueError, match="has no zCDP guarantee"):
        z.compose(PrivacyStatement("x", 0.1, 1e-6))
    assert len(z.ledger) == 1


def test_a_curve_beyond_the_largest_double_gives_no_bound_not_an_error():
    acc = RenyiAccountant()
    acc.compose(PrivacyStatement("x", None, None, rho=1e308))
    assert np.isinf(acc.rdp[-1]) and acc.epsilon(1e-5) >= 1e308


def test_zcdp_to_delta_of_a_huge_rho_is_one_without_warnings():
    import warnings

    from sensampler.accounting import zcdp_to_delta

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # before: scipy's overflow warnings
        assert zcdp_to_delta(1e308, 1.0) == 1.0
