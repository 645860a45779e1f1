"""Audit findings on planning a release: what a plan prints must agree with
what the planned release will state.

Each test failed until its finding was fixed."""

import re

import pytest

from sensampler.app.planning import plan_release
from sensampler.privacy import format_upper

POP = "normal:loc=170,scale=10"


def test_a_median_plan_is_for_the_mechanism_the_release_uses():
    try:
        plan = plan_release("median", POP, 500, target_error=0.1, runs=10,
                            random_state=0)
    except ValueError:
        return  # refused, naming the exponential mechanism: a valid fix
    assert plan.mechanism == "exponential"
    # no sampled sensitivity; the release's scale is calibrated on the
    # population, and the plan states that guarantee, with the scale's gamma
    assert plan.sensitivity is None and plan.sensitivities == ()
    assert 0 < plan.gamma <= 0.05 and "except with probability gamma" in plan.guarantee


def test_a_plan_prints_gamma_as_the_release_states_it():
    plan = plan_release("mean", POP, 200, epsilon=1.0, runs=5, random_state=0)
    assert plan.gamma == pytest.approx(0.0498142, rel=1e-5)
    text = plan.text()
    shown = re.search(r"gamma=([0-9.e-]+)", text).group(1)
    assert shown == format_upper(plan.gamma, 4)
    card = plan._repr_html_()
    assert f"gamma={format_upper(plan.gamma, 4)}" in card
