import math
import re

import numpy as np
import pytest

from sensampler.experiments import (
    composition_experiment,
    epsilon_vs_iterations,
    runs_before_budget,
    vectorized_vs_sequential,
)
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism


def test_composition_experiment_views_separate():
    mechs = [
        LaplaceMechanism(1, 0.5),
        LaplaceMechanism(1, 1.0),
        GaussianMechanism(1, 0.5, 0.01),
    ] * 1000
    result = composition_experiment(mechs, secret=1.0, random_state=0)
    assert result.view_0.shape == result.view_1.shape == (3000,)
    # noise means cancel: the gap of the views' means approaches the secret gap of 1
    se = math.sqrt(2 * np.var(np.r_[result.view_0 - 1, result.view_1 - 2]) / 3000)
    assert abs(result.mean_gap - 1.0) < 6 * se
    assert result.epsilon_basic == pytest.approx(2000.0)  # 1000 * (0.5 + 1 + 0.5)
    assert result.delta_basic == 1.0  # 1000 * 0.01 capped


def test_runs_before_budget_table():
    table = runs_before_budget([0.002, 0.02, 0.2])
    basic = table.where(rule="basic").column("runs")
    assert basic == [100, 10, 1]  # floor(0.2 / eps)
    assert table.where(rule="auto").column("runs") == [
        max(b, a) for b, a in zip(basic, table.where(rule="advanced").column("runs"))
    ]


def test_vectorized_vs_sequential_formulas():
    table = vectorized_vs_sequential([1, 10, 100], epsilon=0.1, delta=1e-5)
    pure = table.where(privacy="pure")
    assert pure.where(release="sequential").column("variance") == pure.where(
        release="vectorised"
    ).column("variance")
    approx = table.where(privacy="approximate", k=100)
    seq = approx.where(release="sequential").rows[0]["variance"]
    vec = approx.where(release="vectorised").rows[0]["variance"]
    # the variants text: 16 k ln(2/delta) ln(2.5 k/delta) / eps^2 and 2 k ln(1.25/delta)/eps^2
    assert seq == pytest.approx(16 * 100 * math.log(2e5) * math.log(2.5e7) / 0.01)
    assert vec == pytest.approx(2 * 100 * math.log(1.25e5) / 0.01)
    with pytest.raises(ValueError, match=re.escape("epsilon must be > 0.0 and < 1.0")):
        vectorized_vs_sequential([1], epsilon=2.0)


def test_epsilon_vs_iterations_ordering():
    table = epsilon_vs_iterations([100, 500], sigma=200.0, delta=1e-5, alpha=60)
    for k in (100, 500):
        part = {r["method"]: r["epsilon"] for r in table.where(iterations=k)}
        assert part["Rényi DP (best order)"] <= part["Rényi DP (alpha=60)"]
        assert part["zCDP (improved conversion)"] <= part["zCDP (classic conversion)"]
        assert part["optimal composition"] <= part["advanced composition"]
        assert part["zCDP (classic conversion)"] < part["advanced composition"]
    # the variants text's RDP line: k alpha / (2 sigma^2) + log(1/delta) / (alpha - 1)
    rdp60 = table.where(iterations=500, method="Rényi DP (alpha=60)").rows[0]["epsilon"]
    assert rdp60 == pytest.approx(500 * 60 / (2 * 200.0**2) + math.log(1e5) / 59)


def test_bad_inputs():
    with pytest.raises(ValueError, match="mechanisms must not be empty"):
        composition_experiment([])
    with pytest.raises(ValueError, match="epsilons must be > 0"):
        runs_before_budget([0.0])
    with pytest.raises(ValueError, match="alpha must be > 1.0"):
        epsilon_vs_iterations([10], alpha=1.0)
