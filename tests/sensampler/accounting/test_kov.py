import itertools
import math
import re

import mpmath
import numpy as np
import pytest

from sensampler.accounting import optimal_composition
from sensampler.accounting._kov import (
    heterogeneous_epsilon,
    homogeneous_count,
    homogeneous_delta,
    homogeneous_epsilon,
)


def _mp_delta(epsilon, delta, k, epsilon_prime):
    """Brute force at 50 digits: 1 - (1-delta)^k (1 - sum_l Bin pmf (1 - e^(e'-L))_+)."""
    with mpmath.workdps(50):
        e, ep = mpmath.mpf(epsilon), mpmath.mpf(epsilon_prime)
        total = mpmath.mpf(0)
        for l in range(k + 1):
            loss = (k - 2 * l) * e
            if loss > ep:
                pmf = (
                    mpmath.binomial(k, l)
                    * mpmath.exp((k - l) * e)
                    / (1 + mpmath.e**e) ** k
                )
                total += pmf * (1 - mpmath.exp(ep - loss))
        keep = (1 - mpmath.mpf(delta)) ** k
        return 1 - keep * (1 - total)


def _mp_epsilon(epsilon, delta, k, target):
    """Bisection on the brute-force profile, to 1e-13 in epsilon'."""
    lo, hi = 0.0, k * epsilon
    if _mp_delta(epsilon, delta, k, 0.0) <= target:
        return 0.0
    while hi - lo > 1e-13 * max(1.0, hi):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if _mp_delta(epsilon, delta, k, mid) <= target else (mid, hi)
    return hi


CASES = [
    (0.5, 0.0, 100, 1e-5),
    (0.1, 0.0, 200, 1e-6),
    (1.0, 0.0, 10, 1e-3),
    (0.3, 1e-7, 50, 1e-5),
    (2.0, 0.0, 3, 0.05),
    (0.05, 1e-9, 400, 1e-6),
]


@pytest.mark.slow
@pytest.mark.parametrize("epsilon, delta, k, target", CASES)
def test_homogeneous_epsilon_matches_high_precision_brute_force(
    epsilon, delta, k, target
):
    ours = homogeneous_epsilon(epsilon, delta, k, target)
    exact = _mp_epsilon(epsilon, delta, k, target)
    assert ours == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert ours >= exact - 1e-12 * max(1.0, exact)  # never below, up to the bisection
    assert float(_mp_delta(epsilon, delta, k, ours)) <= target * (1 + 1e-12)


def test_issue_figure_exact_epsilon_below_the_grid_value():
    # KOV at eps = 0.5, k = 100, delta' = 1e-5: the grid {(k - 2i) eps} gives 32.0;
    # the exact profile crosses 1e-5 at 31.17.
    assert optimal_composition(0.5, 0.0, 100, 1e-5)[0] == homogeneous_epsilon(
        0.5, 0.0, 100, 1e-5
    )
    assert homogeneous_epsilon(0.5, 0.0, 100, 1e-5) == pytest.approx(31.1729, abs=1e-4)


@pytest.mark.parametrize("epsilon, delta, k, target", CASES)
@pytest.mark.slow
def test_homogeneous_epsilon_matches_dp_accounting_pld(epsilon, delta, k, target):
    # Second method: the privacy-loss distribution of the (eps, delta) dominating
    # pair, composed k times by dp_accounting; the losses +-eps sit on its grid.
    from dp_accounting.pld import common, privacy_loss_distribution

    pld = privacy_loss_distribution.from_privacy_parameters(
        common.DifferentialPrivacyParameters(epsilon, delta),
        value_discretization_interval=epsilon / 1000,
    ).self_compose(k)
    theirs = pld.get_epsilon_for_delta(target)
    # agreement to ~1e-11 is measured; 1e-8 leaves room for its own rounding
    assert homogeneous_epsilon(epsilon, delta, k, target) == pytest.approx(
        theirs, rel=1e-8
    )


def test_homogeneous_epsilon_agrees_with_the_theorem_at_its_points():
    # At delta' = delta_i of KOV Thm 3.3, epsilon' = (k - 2i) eps exactly.
    epsilon, k = 0.2, 60
    for i in (1, 5, 12, 20):
        target = homogeneous_delta(epsilon, 0.0, k, (k - 2 * i) * epsilon)
        assert homogeneous_epsilon(epsilon, 0.0, k, target) == pytest.approx(
            (k - 2 * i) * epsilon, rel=1e-9
        )
        # and never above the grid answer for any budget
        assert (
            homogeneous_epsilon(epsilon, 0.0, k, target * 1.5)
            <= optimal_composition(epsilon, 0.0, k, target * 1.5)[0]
        )


@pytest.mark.parametrize("epsilon, delta, k, target", CASES)
def test_homogeneous_epsilon_is_tight(epsilon, delta, k, target):
    eps = homogeneous_epsilon(epsilon, delta, k, target)
    assert homogeneous_delta(epsilon, delta, k, eps) <= target
    if eps > 0:
        assert homogeneous_delta(epsilon, delta, k, eps * (1 - 1e-9)) > target


def test_homogeneous_edge_cases():
    assert homogeneous_epsilon(0.5, 0.0, 10, 1.0) == 0.0
    assert homogeneous_epsilon(0.0, 0.0, 10, 1e-5) == 0.0
    assert homogeneous_epsilon(0.5, 0.0, 10, 0.0) == pytest.approx(5.0)
    # 1 - (1 - 1e-3)^10 = 0.00996 > 1e-3: no epsilon' fits
    assert homogeneous_epsilon(0.5, 1e-3, 10, 1e-3) == math.inf
    assert homogeneous_epsilon(1.0, 0.0, 1, 1e-9) == pytest.approx(1.0)
    assert homogeneous_delta(1.0, 0.0, 5, 5.0) == 0.0


def test_homogeneous_count_issue_figures():
    # budget (1, 1e-6), pure steps: the issue's non-adaptive KOV counts
    assert homogeneous_count(0.01, 0.0, 1.0, 1e-6) == 562
    assert homogeneous_epsilon(0.01, 0.0, 563, 1e-6) > 1.0


# ------------------------------------------------------------------ heterogeneous
def _exact_delta_product(epsilons, deltas, epsilon_prime):
    """Hockey-stick divergence of the product of the steps' dominating pairs, by
    enumerating the 2^k randomized-response outcomes (Murtagh & Vadhan 2016)."""
    total = 0.0
    for signs in itertools.product((1, -1), repeat=len(epsilons)):
        p, loss = 1.0, 0.0
        for s, e in zip(signs, epsilons):
            p *= math.exp(e) / (1 + math.exp(e)) if s == 1 else 1 / (1 + math.exp(e))
            loss += s * e
        total += p * max(0.0, -math.expm1(epsilon_prime - loss))
    keep = math.prod(1 - d for d in deltas)
    return 1 - keep * (1 - total)


def test_heterogeneous_formula_and_homogeneous_case():
    eps, delta = heterogeneous_epsilon([0.1] * 100, [0.0] * 100, 1e-5)
    mu = 100 * 0.1 * math.expm1(0.1) / (math.exp(0.1) + 1)
    drv = mu + math.sqrt(2 * 100 * 0.01 * math.log(1e5))
    kov = mu + math.sqrt(2 * 100 * 0.01 * math.log(math.e + math.sqrt(1.0) / 1e-5))
    assert eps == pytest.approx(min(10.0, drv, kov), rel=1e-14) and delta == 1e-5
    # valid, hence above the exact homogeneous optimum
    for e, k, d in [(0.1, 100, 1e-5), (0.5, 40, 1e-6), (0.01, 5000, 1e-6)]:
        het, _ = heterogeneous_epsilon([e] * k, [0.0] * k, d)
        assert het >= homogeneous_epsilon(e, 0.0, k, d)


@pytest.mark.parametrize("seed_offset", range(4))
def test_heterogeneous_bound_holds_by_brute_force(seed_offset):
    rng = np.random.default_rng(1234 + seed_offset)
    k = 10
    epsilons = rng.uniform(0.05, 0.8, size=k).tolist()
    deltas = rng.uniform(0, 1e-4, size=k).tolist()
    for slack in (1e-1, 1e-3, 1e-6):
        eps, delta = heterogeneous_epsilon(epsilons, deltas, slack)
        assert _exact_delta_product(epsilons, deltas, eps) <= delta + 1e-15


def test_heterogeneous_brute_force_matches_homogeneous_profile():
    # the enumeration (second method) reproduces the closed homogeneous profile
    # (homogeneous_delta is raised by its pmf round-off bound, 1e-12 + 9e-14)
    for ep in (0.0, 0.7, 2.0, 3.3):
        exact = _exact_delta_product([0.4] * 9, [1e-4] * 9, ep)
        ours = homogeneous_delta(0.4, 1e-4, 9, ep)
        assert exact * (1 - 1e-15) <= ours <= exact * (1 + 2e-12) + 1e-16


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (
            lambda: homogeneous_epsilon(-1.0, 0.0, 10, 1e-5),
            ValueError,
            "epsilon must be >= 0.0, got epsilon=-1.0.",
        ),
        (
            lambda: homogeneous_epsilon(1.0, 1.0, 10, 1e-5),
            ValueError,
            "delta must be >= 0.0 and < 1.0, got delta=1.0.",
        ),
        (
            lambda: homogeneous_epsilon(1.0, 0.0, 0, 1e-5),
            ValueError,
            "k must be an integer >= 1, got k=0.",
        ),
        (
            lambda: homogeneous_epsilon(1.0, 0.0, 10, 2.0),
            ValueError,
            "target_delta must be >= 0.0 and <= 1.0, got target_delta=2.0.",
        ),
        (
            lambda: heterogeneous_epsilon([1.0], [0.0, 0.0], 1e-5),
            ValueError,
            "epsilons and deltas must be non-empty and of equal length, got 1 and 2.",
        ),
        (
            lambda: heterogeneous_epsilon([1.0], [0.0], 0.0),
            ValueError,
            "delta_slack must be > 0.0 and < 1.0, got delta_slack=0.0.",
        ),
        (
            lambda: homogeneous_count(0.0, 0.0, 1.0, 1e-6),
            ValueError,
            "epsilon and delta are both 0: every count fits the budget.",
        ),
    ],
)
def test_refusals(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


@pytest.mark.slow
def test_exact_laws_beyond_max_steps_are_refused_or_skipped():
    from sensampler.accounting._kov import MAX_EXACT_STEPS, homogeneous_count

    with pytest.raises(ValueError, match=re.escape("k must be <= 1000000 for the")):
        homogeneous_epsilon(0.1, 0.0, MAX_EXACT_STEPS + 1, 1e-5)
    # the count that fits is certified up to the limit only
    assert homogeneous_count(1e-9, 0.0, 1.0, 1e-6) == MAX_EXACT_STEPS
