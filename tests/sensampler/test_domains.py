"""Each parameter domain is declared once, checks by name, and prints itself."""

import math
import os
import re

import numpy as np
import pytest

from sensampler import plan, privacy
from sensampler._lib import domains as _domains
from sensampler._lib.domains import (
    DELTA_STATED,
    DELTA_TARGET,
    EPSILON,
    EPSILON_STATED,
    GAMMA,
    ORDER,
    ORDER_OR_INF,
    PLAN_BOUNDS,
    Choice,
    Interval,
)
from sensampler.accounting import RenyiFilter
from sensampler.accounting._filter_rules import renyi_filter_budget
from sensampler.app.experiments import MECHANISMS
from sensampler.mechanisms import GaussianMechanism

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize(
    "domain, text",
    [
        (EPSILON, "(0, inf)"),
        (EPSILON_STATED, "[0, inf]"),
        (DELTA_TARGET, "(0, 1)"),
        (DELTA_STATED, "[0, 1]"),
        (GAMMA, "[0, 1]"),
        (ORDER, "(1, inf)"),
        (ORDER_OR_INF, "(1, inf]"),
    ],
)
def test_text_form(domain, text):
    assert str(domain) == text


@pytest.mark.parametrize(
    "domain, inside, outside",
    [
        (EPSILON, [1e-300, 1.0, 1e308], [0.0, -1.0, math.inf, math.nan]),
        (EPSILON_STATED, [0.0, 1.0, math.inf], [-1e-300, -math.inf, math.nan]),
        (DELTA_TARGET, [1e-300, 0.5, 1 - 1e-16], [0.0, 1.0, math.nan]),
        (DELTA_STATED, [0.0, 1.0], [-1e-300, 1 + 1e-15, math.inf]),
        (ORDER, [1 + 1e-15, 2.0], [1.0, math.inf]),
        (ORDER_OR_INF, [1 + 1e-15, math.inf], [1.0, -math.inf]),
    ],
)
def test_check_and_contains_agree_at_the_edges(domain, inside, outside):
    for value in inside:
        assert domain.contains(value) and domain.check("x", value) == value
    for value in outside:
        assert not domain.contains(value)
        with pytest.raises(ValueError, match=re.escape("x must be")):
            domain.check("x", value)


@pytest.mark.parametrize("value", [True, np.bool_(True), "1", None, b"1", [1.0]])
def test_non_numbers_are_refused_by_type(value):
    assert not EPSILON_STATED.contains(value)
    with pytest.raises(TypeError, match=re.escape("epsilon must be a real number")):
        EPSILON_STATED.check("epsilon", value)


def test_messages_name_the_parameter_rule_and_value():
    message = "delta must be > 0.0 and < 1.0, got delta=1.0."
    with pytest.raises(ValueError, match=re.escape(message)):
        DELTA_TARGET.check("delta", 1.0)
    message = "bound must be one of 'exact', 'dkw', 'exchangeable', got bound='x'."
    with pytest.raises(ValueError, match=re.escape(message)):
        PLAN_BOUNDS.check("bound", "x")


def test_choices():
    assert str(PLAN_BOUNDS) == "{'exact', 'dkw', 'exchangeable'}"
    assert PLAN_BOUNDS.contains("dkw") and not PLAN_BOUNDS.contains(None)
    assert list(PLAN_BOUNDS) == ["exact", "dkw", "exchangeable"]


def test_each_fact_is_declared_once():
    # the public tuples are the domains' own values, not copies that can drift
    assert plan.BOUNDS is PLAN_BOUNDS.values
    assert privacy.SOURCES is _domains.SOURCES.values
    assert privacy.NOISE_KINDS is _domains.NOISE_KINDS.values
    assert privacy.NEIGHBOURS in _domains.NEIGHBOUR_RELATIONS


def test_every_declared_domain_is_a_domain():
    for name in _domains.__all__:
        value = getattr(_domains, name)
        assert isinstance(value, (Interval, Choice, type)), name


def test_the_gaussian_variants_are_one_vocabulary():
    listed = ", ".join(repr(v) for v in _domains.GAUSSIAN_VARIANTS)
    with pytest.raises(ValueError, match=re.escape(f"variant must be one of {listed},")):
        GaussianMechanism(1.0, 0.5, 1e-6, variant="exact")
    for variant in _domains.GAUSSIAN_VARIANTS:
        assert GaussianMechanism(1.0, 0.5, 1e-6, variant=variant).variant == variant
    # the guide names every variant, as the contract writes it
    with open(os.path.join(ROOT, "docs", "guide", "mechanisms.md"), encoding="utf-8") as fh:
        guide = fh.read()
    named = " | ".join(f'"{v}"' for v in _domains.GAUSSIAN_VARIANTS)
    assert f"variant={named}" in guide
    # the experiments' mechanism names reach every variant, and no other
    named = {fixed.get("variant") for cls, fixed in MECHANISMS.values()}
    assert named - {None} == set(_domains.GAUSSIAN_VARIANTS)


def test_the_conversions_to_epsilon_delta_are_one_vocabulary():
    listed = ", ".join(repr(v) for v in _domains.DP_CONVERSIONS)
    calls = [
        ("method", lambda bad: privacy.zcdp_to_dp(0.5, 1e-6, bad)),
        ("method", lambda bad: privacy.rdp_to_dp(lambda a: 0.5 * a, 1e-6, method=bad)),
        ("conversion", lambda bad: RenyiFilter(1.0, 1e-6, conversion=bad)),
        ("conversion", lambda bad: renyi_filter_budget(1.0, 1e-6, 10.0, bad)),
    ]
    for name, call in calls:
        with pytest.raises(ValueError, match=re.escape(f"{name} must be one of {listed},")):
            call("tight")
        for conversion in _domains.DP_CONVERSIONS:
            call(conversion)
