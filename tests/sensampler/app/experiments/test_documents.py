import math
import re

import numpy as np
import pytest

from sensampler.accounting import advanced_composition, basic_composition
from sensampler.app.experiments import (
    composition_experiment,
    epsilon_vs_iterations,
    runs_before_budget,
    vectorized_vs_sequential,
)
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism, gaussian_epsilon
from tests.conftest import assert_close_in_se


def test_composition_experiment_views_separate():
    mechs = [
        LaplaceMechanism(1, 0.5),
        LaplaceMechanism(1, 1.0),
        GaussianMechanism(1, 0.5, 0.01, variant="classic"),
    ] * 1000
    result = composition_experiment(mechs, secret=1.0, random_state=0)
    assert result.view_0.shape == result.view_1.shape == (3000,)
    # noise means cancel: the gap of the views' means approaches the secret gap of 1
    se = math.sqrt(2 * np.var(np.r_[result.view_0 - 1, result.view_1 - 2]) / 3000)
    assert_close_in_se(result.mean_gap, 1.0, se)
    assert result.epsilon_basic == pytest.approx(2000.0)  # 1000 * (0.5 + 1 + 0.5)
    assert result.delta_basic == 1.0  # 1000 * 0.01 capped


def test_runs_before_budget_table():
    table = runs_before_budget([0.002, 0.02, 0.2])
    basic = table.where(rule="basic").column("runs")
    assert basic == [100, 10, 1]  # floor(0.2 / eps)
    assert table.where(rule="auto").column("runs") == [
        max(b, a) for b, a in zip(basic, table.where(rule="advanced").column("runs"))
    ]
    assert set(table.column("epsilon_budget")) == {0.2}
    assert set(table.column("delta_budget")) == {2e-30}


def test_vectorized_vs_sequential_cost_the_same_for_one_query():
    # Failed before: at k = 1 the sequential Gaussian cost ~100 times the vector one.
    table = vectorized_vs_sequential([1], epsilon=0.1, delta=1e-5)
    for privacy in ("pure", "approximate"):
        variances = table.where(privacy=privacy).column("variance")
        assert variances == pytest.approx([variances[0]] * len(variances), rel=1e-9)


def test_vectorized_vs_sequential_formulas():
    table = vectorized_vs_sequential([1, 10, 100], epsilon=0.1, delta=1e-5)
    pure = table.where(privacy="pure")
    assert pure.where(release="sequential").column("variance") == pure.where(
        release="vectorised"
    ).column("variance")
    assert pure.where(k=10).rows[0]["variance"] == pytest.approx(2 * (10 / 0.1) ** 2)
    assert all(math.isnan(d) for d in pure.column("delta"))
    approx = table.where(privacy="approximate", k=100)
    vec = approx.where(release="vectorised").rows[0]["variance"]
    exact = approx.where(composition="exact Gaussian").rows[0]["variance"]
    black_box = approx.where(composition="best of basic and advanced").rows[0]
    assert exact == pytest.approx(vec, rel=1e-12)
    # composing as black boxes costs more than the exact composition beyond k = 1
    assert black_box["variance"] > 10 * exact
    # the variants text's Cor. 3.21 form costs more than every valid method here
    text = 16 * 100 * math.log(2e5) * math.log(2.5e7) / 0.01
    assert text > black_box["variance"]
    with pytest.raises(ValueError, match=re.escape("epsilon must be > 0.0")):
        vectorized_vs_sequential([1], epsilon=0.0)


def test_exact_gaussian_composition_matches_dp_accounting():
    # k Gaussian releases with the per-release noise of the table, composed by
    # dp_accounting's PLD accountant: (epsilon, delta) is what they spend.
    dp_accounting = pytest.importorskip("dp_accounting")
    k, epsilon, delta = 20, 0.5, 1e-5
    table = vectorized_vs_sequential([k], epsilon=epsilon, delta=delta)
    variance = table.where(composition="exact Gaussian").rows[0]["variance"]
    accountant = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(
        dp_accounting.GaussianDpEvent(math.sqrt(variance)), count=k
    )  # noise multiplier = sigma / sensitivity 1
    assert accountant.get_delta(epsilon) == pytest.approx(delta, rel=0.02)


def test_black_box_composition_spends_the_budget():
    k, epsilon, delta = 50, 0.5, 1e-5
    row = (
        vectorized_vs_sequential([k], epsilon=epsilon, delta=delta)
        .where(composition="best of basic and advanced")
        .rows[0]
    )
    sigma = math.sqrt(row["variance"])
    basic = basic_composition(gaussian_epsilon(sigma, delta / k), delta / k, k)
    advanced = advanced_composition(
        gaussian_epsilon(sigma, delta / (2 * k)), delta / (2 * k), k, delta / 2
    )
    best = min(basic[0], advanced[0])
    assert best == pytest.approx(epsilon, rel=1e-6) and best <= epsilon * (1 + 1e-9)


def test_epsilon_vs_iterations_ordering():
    table = epsilon_vs_iterations([100, 500], sigma=200.0, delta=1e-5, alpha=60)
    for k in (100, 500):
        part = {r["method"]: r["epsilon"] for r in table.where(iterations=k)}
        assert part["Rényi DP (best order)"] <= part["Rényi DP (alpha=60)"]
        assert part["zCDP (improved conversion)"] <= part["zCDP (classic conversion)"]
        assert part["optimal composition"] <= part["advanced composition"]
        assert part["zCDP (classic conversion)"] < part["advanced composition"]
    # the variants text's RDP line: k alpha / (2 sigma^2) + log(1/delta) / (alpha - 1)
    assert set(table.column("sigma")) == {200.0}
    rdp60 = table.where(iterations=500, method="Rényi DP (alpha=60)").rows[0]["epsilon"]
    assert rdp60 == pytest.approx(500 * 60 / (2 * 200.0**2) + math.log(1e5) / 59)


def test_bad_inputs():
    with pytest.raises(ValueError, match="mechanisms must not be empty"):
        composition_experiment([])
    with pytest.raises(ValueError, match="epsilons must be > 0"):
        runs_before_budget([0.0])
    with pytest.raises(ValueError, match="alpha must be > 1.0"):
        epsilon_vs_iterations([10], alpha=1.0)


@pytest.mark.parametrize(
    "function, name",
    [(vectorized_vs_sequential, "ks"), (epsilon_vs_iterations, "iterations")],
)
@pytest.mark.parametrize("values", [[0.5], [1.5, 2], []])
def test_counts_must_be_integers_and_the_message_names_them(function, name, values):
    # Failed before: [0.5] gave "ZeroDivisionError: float division by zero".
    with pytest.raises(ValueError, match=rf"^{name} must .*got {name}="):
        function(values)


# ------------------------------------------------ arguments beyond float64 or memory
def test_vectorized_vs_sequential_refuses_variances_beyond_float64():
    # sigma ~ 1.5e303 at epsilon = delta = 1e-300: its square overflows.
    with pytest.raises(
        ValueError,
        match=re.escape(
            "the noise variance at epsilon=1e-300, delta=1e-300 exceeds the largest "
            "float64"
        ),
    ):
        vectorized_vs_sequential([1], 1e-300, 1e-300)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"sigma": 1e-300}, "sigma=1e-300 is out of range: 2 sigma**2 = 0.0"),
        ({"sigma": 1e300}, "sigma=1e+300 is out of range: 2 sigma**2 = inf"),
        ({"sigma": 1e-150}, "the epsilons of iterations=1 at sigma=1e-150"),
    ],
)
def test_epsilon_vs_iterations_refuses_sigmas_beyond_float64(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        epsilon_vs_iterations([1], **kwargs)


def test_epsilon_vs_iterations_refuses_more_iterations_than_it_can_compose():
    with pytest.raises(
        ValueError, match=re.escape("iterations must be <= MAX_ITERATIONS=1000000")
    ):
        epsilon_vs_iterations([2**53])


@pytest.mark.parametrize(
    "k, epsilon, delta",
    [
        # Bisecting [1e-12, 2**63] down to xtol 1e-15 took more than brentq's
        # default 100 iterations; an epsilon below 1e-12 fell outside the bracket.
        (25175, 2.0**63, 1.0931410885774852e-113),
        (3, 1.6465423740602031e75, 0.5),
        (83511, 5.630163858115348e-99, 0.5),
    ],
)
def test_advanced_composition_step_is_found_at_any_epsilon_scale(k, epsilon, delta):
    table = vectorized_vs_sequential([k], epsilon, delta)
    variances = [row["variance"] for row in table.rows]
    assert all(math.isfinite(v) and v > 0 for v in variances)


# --------------------------------------------------------------- reliability
def test_runs_before_budget_refuses_a_study_that_never_ends():
    # Failed before: epsilons=[1e-9] ran for hours (about 7.5 h at 135 us a release).
    from sensampler.app.experiments.documents import MAX_RELEASES

    with pytest.raises(ValueError, match=re.escape(f"MAX_RELEASES={MAX_RELEASES}")):
        runs_before_budget([1e-9])
    # basic composition admits 0.2 / 1.9e-7 = 1 052 631 releases: over the cap
    with pytest.raises(ValueError, match="up to 1.05e\\+06 releases"):
        runs_before_budget([1.9e-7], rules=("basic",))


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", [0.003, 0.001, 0.0004])
def test_the_release_cap_bounds_the_releases_made(epsilon):
    from sensampler.app.experiments.documents import _most_releases

    for row in runs_before_budget([epsilon], random_state=0):
        bound = _most_releases(epsilon, row["rule"], 0.2, 2e-30)
        assert row["runs"] <= bound < 3 * row["runs"] + 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"epsilon_budget": -1}, "epsilon_budget must be >= 0.0, got epsilon_budget=-1.0."),
        ({"delta_budget": 2.0}, "delta_budget must be"),
        ({"rules": ("fast",)}, "rules must be one of"),
    ],
)
def test_runs_before_budget_names_its_parameters(kwargs, message):
    # Failed before: epsilon_budget=-1 was reported as "epsilon".
    with pytest.raises(ValueError, match=re.escape(message)):
        runs_before_budget([0.1], **kwargs)


def test_composition_experiment_refuses_what_is_not_a_mechanism():
    # Failed before: AttributeError: 'str' object has no attribute 'release'.
    with pytest.raises(TypeError, match=re.escape("mechanisms[1] must be a mechanism")):
        composition_experiment([LaplaceMechanism(1.0, 1.0), "laplace"])
