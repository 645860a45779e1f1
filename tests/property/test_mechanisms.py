"""Every mechanism: any sensitivity and privacy parameters are refused by name, or
the mechanism releases finite values and states finite privacy."""

import random
from functools import partial

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sensampler import mechanisms as mech
from sensampler._lib.domains import DELTA_STATED, EPSILON_STATED, RHO
from tests.property._contract import anything, assert_finite, refused_or_result

CONSTRUCTORS = {
    "laplace": (
        lambda s, a, b: mech.LaplaceMechanism(s, a),
        ("sensitivity", "epsilon"),
    ),
    "gaussian": (
        lambda s, a, b: mech.GaussianMechanism(s, a, b),
        ("sensitivity", "epsilon", "delta"),
    ),
    "renyi": (
        lambda s, a, b: mech.RenyiGaussianMechanism(s, a, b),
        ("sensitivity", "alpha", "epsilon_bar"),
    ),
    "zcdp": (
        lambda s, a, b: mech.ZCDPGaussianMechanism(s, a),
        ("sensitivity", "rho"),
    ),
    "exponential": (
        lambda s, a, b: mech.ExponentialMechanism(s, a),
        ("sensitivity", "epsilon"),
    ),
    "discrete_laplace": (
        lambda s, a, b: mech.DiscreteLaplaceMechanism(s, a, granularity=b),
        ("sensitivity", "epsilon", "granularity"),
    ),
    "discrete_gaussian": (
        lambda s, a, b: mech.DiscreteGaussianMechanism(s, rho=a, granularity=b),
        ("sensitivity", "rho", "granularity"),
    ),
}


def _release(mechanism, value):
    if isinstance(mechanism, mech.ExponentialMechanism):
        return mechanism.release([0.0, 1.0], random_state=0)
    if isinstance(
        mechanism, (mech.DiscreteLaplaceMechanism, mech.DiscreteGaussianMechanism)
    ):
        return mechanism.release(value, random_state=random.Random(0))
    return mechanism.release(value, random_state=0)


@pytest.mark.slow
@example("zcdp", 0.0, 1e308, 0.0, 0.0)
@example("laplace", 0.0, 1e308, 0.0, 0.0)
@example("exponential", 0.0, 1e308, 0.0, 0.0)
@example("discrete_gaussian", 0.0, 1.0, 1.0, "x")
@example("exponential", 1.502160562774372e-252, 5.400847462320803e56, 0.0, 0.0)
@example("exponential", (), 1.0, 0.0, 0.0)
@given(
    st.sampled_from(sorted(CONSTRUCTORS)),
    anything,
    anything,
    anything,
    st.one_of(st.floats(-1e6, 1e6), anything),
)
def test_mechanisms(name, sensitivity, a, b, value):
    build, names = CONSTRUCTORS[name]
    mechanism = refused_or_result(lambda: build(sensitivity, a, b), *names)
    if mechanism is None:
        return
    privacy = mechanism.privacy
    for field in ("epsilon", "delta", "rho"):
        number = getattr(privacy, field)
        if number is not None:
            assert_finite(number)
    _assert_frozen_and_in_domain(mechanism)
    released = refused_or_result(lambda: _release(mechanism, value), "value")
    if released is not None:
        assert_finite(np.asarray(released, dtype=float))


def _assert_frozen_and_in_domain(mechanism):
    """The statement's numbers lie in their declared domains, its Rényi curve is
    >= 0, and no attribute of the mechanism can be changed."""
    privacy = mechanism.privacy
    assert privacy is mechanism.privacy
    if privacy.epsilon is not None:
        assert EPSILON_STATED.contains(privacy.epsilon)
        assert DELTA_STATED.contains(privacy.delta)
    if privacy.rho is not None:
        assert RHO.contains(privacy.rho)
    if privacy.rdp is not None:
        for alpha in (1.01, 2.0, 64.0, 1e6):
            assert privacy.rdp(alpha) >= 0  # RenyiCurve raises otherwise
    for name in [*vars(mechanism), "epsilon", "sigma"]:
        with pytest.raises(AttributeError, match="immutable"):
            setattr(mechanism, name, 0.0)
    assert mechanism.privacy is privacy


@pytest.mark.slow
@given(anything, anything)
def test_randomized_response(k, epsilon):
    mechanism = refused_or_result(
        lambda: mech.RandomizedResponse(k, epsilon), "k", "epsilon"
    )
    if mechanism is not None:
        released = refused_or_result(
            lambda: mechanism.release(0, random_state=0), "value"
        )
        if released is not None:
            assert 0 <= int(released) < mechanism.k
        _assert_frozen_and_in_domain(mechanism)


@pytest.mark.slow
@example(None, 0.0)
@example(float("inf"), 344835293843634.7)
@example(1.3786992686744257e-194, 2.2250738585e-313)
@example(6.9e299, 2.7e-297)
@example(1e308, 1.0)
@given(anything, anything)
def test_calibration_functions(a, b):
    for func, names in (
        (mech.classic_gaussian_sigma, ("epsilon", "delta")),
        (mech.analytic_gaussian_sigma, ("epsilon", "delta")),
        (mech.analytic_gaussian_delta, ("sigma", "epsilon")),
        (mech.gaussian_epsilon, ("sigma", "delta")),
        (mech.laplace_rdp, ("alpha", "ratio")),
    ):
        result = refused_or_result(partial(func, a, b), *names)
        if result is not None:
            assert isinstance(result, float)
            assert not np.isnan(result)
