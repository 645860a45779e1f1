import math
import re
import threading
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.accounting import ExceededPrivacyBudgetError, PrivacyFilter
from sensampler.accounting.filters import advanced_filter_bound
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.privacy import PrivacyStatement, SamplingRun

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _runs(f, eps):
    count = 0
    while True:
        try:
            f.spend(eps)
        except ExceededPrivacyBudgetError:
            return count
        count += 1


def test_refused_spend_records_nothing():
    f = PrivacyFilter(1.0, 0.0, rule="basic")
    f.spend(0.6)
    before = f.spent
    with pytest.raises(ExceededPrivacyBudgetError, match="epsilon 1.2 > 1"):
        f.spend(0.6)
    assert f.spent == before and f.count == 1
    assert f.remaining.epsilon == pytest.approx(0.4)


def test_advanced_filter_bound_formula():
    # Rogers et al. Thm 5.1, homogeneous: k eps (e^eps - 1)/2 + sqrt((k eps^2 + H)(2 +
    # ln(k eps^2 / H + 1)) ln(2/delta_g)), H = eps_g^2 / (28.04 ln(1/delta_g)).
    eps, k, eg, dg = 0.01, 500, 1.0, 1e-6
    h = eg**2 / (28.04 * math.log(1 / dg))
    expected = k * eps * math.expm1(eps) / 2 + math.sqrt(
        (k * eps**2 + h) * (2 + math.log(k * eps**2 / h + 1)) * math.log(2 / dg)
    )
    assert advanced_filter_bound([eps] * k, eg, dg) == pytest.approx(expected)


@pytest.mark.slow
def test_runs_before_budget_experiment_of_the_filters_text():
    # 003: global (0.2, 2e-30), Laplace spends eps in [0.002, 0.2): runs until halt.
    for eps in (0.002, 0.01, 0.05, 0.1):
        basic = _runs(PrivacyFilter(0.2, 2e-30, rule="basic"), eps)
        advanced = _runs(PrivacyFilter(0.2, 2e-30, rule="advanced"), eps)
        auto = _runs(PrivacyFilter(0.2, 2e-30), eps)
        assert basic == math.floor(0.2 / eps + 1e-9)
        assert auto == max(basic, advanced)
    # With a looser budget and many small spends the advanced filter wins.
    f = PrivacyFilter(10.0, 1e-5)
    n = _runs(f, 0.01)
    assert f.active_rule == "advanced" and n > 1000


def test_auto_rule_is_fixed_at_the_first_spend():
    f = PrivacyFilter(10.0, 1e-5)
    assert f.active_rule is None
    f.spend(0.01)
    assert f.active_rule == "advanced"
    f.spend(1.0)  # a large spend later does not switch the rule back
    assert f.active_rule == "advanced"


def test_release_spends_before_drawing_noise():
    f = PrivacyFilter(1.0, 0.0, rule="basic")
    mech = LaplaceMechanism(1.0, 0.6)
    f.release(mech, 3.0, random_state=0)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ExceededPrivacyBudgetError):
        f.release(mech, 3.0, random_state=rng)
    assert rng.bit_generator.state == state  # no noise drawn
    assert f.count == 1


def test_mechanisms_are_read_not_retyped():
    f = PrivacyFilter(1.0, 1e-4, rule="basic")
    f.spend(GaussianMechanism(1.0, 0.5, 1e-5))
    assert f.spent[:2] == (0.5, 1e-5)
    with pytest.raises(ValueError, match="states Rényi/zCDP privacy"):
        f.spend(ZCDPGaussianMechanism(1.0, 0.1))


def test_gamma_is_counted_once_per_sampling_run():
    a = sample_sensitivity(queries.mean, HEIGHTS, 100, gamma=0.05, random_state=0)
    b = sample_sensitivity(queries.mean, HEIGHTS, 100, gamma=0.01, random_state=1)
    f = PrivacyFilter(10.0, 0.0, rule="basic")
    for _ in range(3):
        f.spend(LaplaceMechanism(a, 0.5))
    assert f.spent.gamma == pytest.approx(a.gamma)
    f.spend(LaplaceMechanism(b, 0.5))
    assert f.spent.gamma == pytest.approx(a.gamma + b.gamma)
    capped = PrivacyFilter(10.0, 0.0, gamma=0.055)
    capped.spend(LaplaceMechanism(a, 0.5))
    with pytest.raises(ExceededPrivacyBudgetError, match="over the budget gamma=0.055"):
        capped.spend(LaplaceMechanism(b, 0.5))
    assert capped.count == 1


def test_typical_sensitivity_is_refused():
    est = sample_sensitivity(queries.mean, HEIGHTS, 100, gamma=0.05, random_state=0)
    f = PrivacyFilter(10.0)
    with pytest.raises(ValueError, match="carries no privacy guarantee"):
        f.release(LaplaceMechanism(est.mean, 0.5), 170.0)
    assert f.count == 0


def test_many_threads_never_exceed_the_budget():
    f = PrivacyFilter(1.0, 0.0, rule="basic")
    accepted = []
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        for _ in range(100):
            try:
                f.spend(0.003)
                accepted.append(1)
            except ExceededPrivacyBudgetError:
                pass

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(accepted) == f.count == 333  # floor(1 / 0.003)
    assert f.spent.epsilon <= 1.0


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(epsilon=0.0), ValueError, "epsilon must be > 0.0, got epsilon=0.0."),
        (dict(epsilon=1.0, delta=1.0), ValueError, "delta must be >= 0.0 and < 1.0"),
        (dict(epsilon=1.0, delta=-0.1), ValueError, "delta must be >= 0.0 and < 1.0"),
        (
            dict(epsilon=1.0, rule="odometer"),
            ValueError,
            "rule must be one of 'auto', 'basic'",
        ),
        (
            dict(epsilon=1.0, delta=0.5, rule="advanced"),
            ValueError,
            "the advanced filter needs 0 < delta < 1/e",
        ),
        (dict(epsilon=1.0, gamma=1.0), ValueError, "gamma must be > 0.0 and < 1.0"),
    ],
)
def test_bad_budgets(kwargs, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        PrivacyFilter(**kwargs)


def test_bad_spends():
    f = PrivacyFilter(1.0)
    with pytest.raises(ValueError, match="epsilon must be >= 0.0, got epsilon=-0.5."):
        f.spend(-0.5)
    with pytest.raises(ValueError, match="delta must be >= 0.0 and < 1.0"):
        f.spend(0.1, delta=2.0)
    with pytest.raises(
        TypeError, match="expected a mechanism with a privacy statement"
    ):
        f.spend("0.1")
    assert f.count == 0


@pytest.mark.parametrize(
    "budget, spend, times",
    [(1.0, 0.1, 10), (1.0, 0.2, 5), (1.0, 0.001, 1000), (0.3, 0.1, 3), (1.0, 1 / 3, 3)],
)
def test_an_evenly_split_budget_is_spent_in_full(budget, spend, times):
    f = PrivacyFilter(budget, rule="basic")
    for _ in range(times):
        f.spend(spend)
    assert f.count == times
    with pytest.raises(ExceededPrivacyBudgetError):
        f.spend(spend)
    d = PrivacyFilter(1.0, budget * 1e-6, rule="basic")
    for _ in range(times):
        d.spend(0.0, delta=spend * 1e-6)
    assert d.count == times


@pytest.mark.parametrize(
    "budget, spends",
    [
        (1.0, [0.1] * 10 + [1e-15]),
        (0.3, [0.1, 0.1, 0.1 + 1e-15]),
        (1.0, [1.0 + 1e-15]),
        (1.0, [0.5, 0.5 + 2**-50]),
    ],
)
def test_a_genuinely_larger_sum_is_refused(budget, spends):
    f = PrivacyFilter(budget, rule="basic")
    for eps in spends[:-1]:
        f.spend(eps)
    with pytest.raises(ExceededPrivacyBudgetError):
        f.spend(spends[-1])
    assert f.count == len(spends) - 1


def test_over_spending_is_bounded_by_input_rounding():
    # Whatever is accepted exceeds the budget by less than 2**-51 of it.
    f = PrivacyFilter(1.0, rule="basic")
    f.spend(1.0 + 2**-52)  # the next float above 1: a rounding of 1
    assert f.spent.epsilon <= 1.0 * (1 + 2**-51)
    with pytest.raises(ExceededPrivacyBudgetError):
        PrivacyFilter(1.0, rule="basic").spend(1.0 + 2**-50)


@pytest.mark.parametrize(
    "value", [np.float32(0.25), Fraction(1, 4), Decimal("0.25"), np.float64(0.25), 0]
)
def test_any_real_is_a_spend(value):
    f = PrivacyFilter(1.0, rule="basic")
    f.spend(value, delta=Fraction(0))
    assert f.spent.epsilon == pytest.approx(float(value))


def test_exact_decimal_and_fraction_spends():
    f = PrivacyFilter(1.0, rule="basic")
    for _ in range(10):
        f.spend(Decimal("0.1"))
    g = PrivacyFilter(1.0, rule="basic")
    for _ in range(3):
        g.spend(Fraction(1, 3))
    assert f.count == 10 and g.count == 3
    with pytest.raises(ValueError, match="epsilon must be finite"):
        f.spend(Decimal("NaN"))


def test_advanced_spent_is_the_guarantee_and_the_statistic_is_separate():
    # Rogers et al. Thm 5.1 proves (eps_g, delta_g), not (K, sum delta).
    f = PrivacyFilter(1.0, 1e-6, rule="advanced")
    for _ in range(147):
        f.spend(0.01)
    assert tuple(f.spent) == (1.0, 1e-6)
    assert "Rogers" in f.spent.method
    assert f.statistic == pytest.approx(advanced_filter_bound([0.01] * 147, 1.0, 1e-6))
    assert f.statistic == pytest.approx(0.9964, abs=1e-4)
    assert f.remaining.epsilon == pytest.approx(1.0 - f.statistic)
    assert f.epsilon(1e-6) == 1.0 and f.epsilon(1e-7) == math.inf
    assert f.delta(1.0) == 1e-6 and f.delta(0.5) == 1.0
    fresh = PrivacyFilter(1.0, 1e-6, rule="advanced")
    assert tuple(fresh.spent) == (0.0, 0.0) and fresh.statistic == 0.0


def test_basic_spent_and_statistic():
    f = PrivacyFilter(1.0, 1e-5, rule="basic")
    f.spend(0.25, 1e-6)
    f.spend(0.5)
    assert tuple(f.spent) == (0.75, 1e-6) and f.statistic == 0.75
    assert tuple(f.remaining) == (0.25, pytest.approx(9e-6))
    assert f.epsilon(1e-6) == 0.75 and f.delta(0.75) == 1e-6


def test_filter_compose_is_all_or_nothing():
    f = PrivacyFilter(1.0, rule="basic")
    mech = LaplaceMechanism(1.0, 0.1)
    with pytest.raises(ExceededPrivacyBudgetError, match="11 times"):
        f.compose(mech, count=11)
    assert f.count == 0
    f.compose(mech, count=10)
    assert f.count == 10 and f.ledger[0].count == 10


def test_repr_shows_budget_spent_and_count():
    f = PrivacyFilter(1.0, 1e-5, rule="basic")
    f.spend(0.5)
    assert repr(f) == (
        "PrivacyFilter(budget=(epsilon=1, delta=1e-05), rule='basic', "
        "spent=(epsilon=0.5, delta=0), count=1, gamma=0)"
    )


# ------------------------------------------------------- overflow (no OverflowError)
def test_a_spend_that_fits_a_large_budget_is_accepted():
    f = PrivacyFilter(1000, rule="basic")
    f.spend(800)  # e^800 overflows a double: the advanced drift is inf, not an error
    assert f.spent.epsilon == 800.0
    with pytest.raises(ExceededPrivacyBudgetError, match="epsilon 1600 > 1000"):
        f.spend(800)


def test_a_spend_that_does_not_fit_is_refused_not_overflowing():
    f = PrivacyFilter(1.0)
    with pytest.raises(ExceededPrivacyBudgetError, match="epsilon 1000 > 1"):
        f.spend(1000)
    assert f.count == 0


def test_a_huge_budget_does_not_overflow():
    f = PrivacyFilter(1e200, 1e-5)
    f.spend(0.1)
    assert f.spent.epsilon == 0.1
    g = PrivacyFilter(1e200, 1e-5, rule="advanced")
    g.spend(0.1)  # H = eps_g^2 / (28.04 log(1/delta)) overflows; K does not
    assert 0.0 < g.statistic < 1e200
    with pytest.raises(ExceededPrivacyBudgetError, match="K = inf"):
        g.spend(1e150)  # its drift e^(1e150) is infinite: refused, not an error
    assert math.isinf(advanced_filter_bound([800.0], 1000.0, 1e-5))


@pytest.mark.parametrize("value", ["x", {}, [[1.0], [1.0, 2.0]]])
def test_a_release_of_no_number_is_refused_naming_value_and_spends_nothing(value):
    budget = PrivacyFilter(1.0, 1e-5)
    message = f"value must be a number or an array of numbers, got {value!r}."
    with pytest.raises(TypeError, match=re.escape(message)):
        budget.release(LaplaceMechanism(1.0, 0.1), value)
    assert budget.count == 0 and not budget.ledger


def _printed(text, name):
    return float(re.search(rf"\b{name}=([0-9.]+(?:e[+-]?[0-9]+)?)", text).group(1))


def test_printed_spends_round_up_and_what_is_left_rounds_down():
    # issue 28: printed totals rounded to nearest, below what was spent
    f = PrivacyFilter(1.0, 1e-6, rule="basic", gamma=0.2)
    f.compose(PrivacyStatement("Laplace", 0.1, 0.0, run=SamplingRun("a", 0.0996810255),
                               source="sampled"))
    f.spend(0.2)
    spent = f.spent
    assert spent.epsilon == 0.1 + 0.2 > 0.3
    text = repr(f)
    assert _printed(text.split("spent=")[1], "epsilon") >= spent.epsilon
    assert _printed(text.split("count=")[1], "gamma") >= spent.gamma
    left = f.remaining
    assert _printed(str(left), "epsilon") <= left.epsilon
    assert _printed(str(left), "gamma") <= left.gamma
    assert "gamma=0.1003 left" in str(left)  # 0.2 - 0.0996810255 = 0.1003189745
