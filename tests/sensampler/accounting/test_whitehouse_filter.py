import math
import re

import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    WhitehouseFilter,
)
from sensampler.accounting._filter_rules import (
    whitehouse_filter_count,
    whitehouse_filter_statistic,
)
from sensampler.accounting._kov import homogeneous_count
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism


@pytest.mark.slow
@pytest.mark.parametrize("eps0, count", [(0.01, 349), (0.001, 34_937)])
def test_issue_counts_for_the_budget_one_and_one_in_a_million(eps0, count):
    f = WhitehouseFilter(1.0, 1e-6)
    f.compose(LaplaceMechanism(1.0, eps0), count=count)
    with pytest.raises(ExceededPrivacyBudgetError, match="W = "):
        f.spend(eps0)
    assert f.count == count == whitehouse_filter_count(eps0, 1.0, 1e-6)
    # between Rogers et al.'s filter and the exact non-adaptive optimum
    rogers = PrivacyFilter(1.0, 1e-6, rule="advanced")._repetitions(
        "advanced", eps0, 0.0
    )
    assert rogers < count <= homogeneous_count(eps0, 0.0, 1.0, 1e-6)


def test_rule_is_advanced_composition_with_its_constants():
    # sqrt(2 log(1/delta) sum eps^2) + sum eps^2 / 2 <= epsilon: adaptive epsilons
    epsilons = [0.05, 0.01, 0.1, 0.03, 0.08]
    f = WhitehouseFilter(1.0, 1e-6)
    for e in epsilons:
        f.spend(e)
    v = sum(e * e for e in epsilons)
    assert f.statistic == pytest.approx(math.sqrt(2 * math.log(1e6) * v) + v / 2)
    assert f.statistic == pytest.approx(whitehouse_filter_statistic(epsilons, 1e-6))
    assert f.remaining.epsilon == pytest.approx(1.0 - f.statistic)
    with pytest.raises(ExceededPrivacyBudgetError):
        f.spend(0.5)
    f.spend(0.01)  # a refused step is a null step: smaller ones may follow
    assert f.spent.epsilon == 1.0 and f.spent.delta == 1e-6


def test_only_pure_releases_are_admitted():
    f = WhitehouseFilter(1.0, 1e-6)
    with pytest.raises(ValueError, match="is not a pure epsilon-DP release"):
        f.spend(GaussianMechanism(1.0, 0.5, 1e-7))
    with pytest.raises(ValueError, match="admits pure releases only, got delta=1e-07"):
        f.spend(0.1, 1e-7)
    assert f.count == 0 and f.spent.epsilon == 0.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: WhitehouseFilter(1.0, 0.0), "delta must be > 0.0 and < 1.0"),
        (lambda: WhitehouseFilter(0.0, 1e-6), "epsilon must be > 0.0"),
        (lambda: WhitehouseFilter(1.0, 1e-6, gamma=1.5), "gamma must be"),
    ],
)
def test_bad_parameters(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
