"""Hand-made privacy records: any numbers are refused by name, or lie in their
declared domains."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sensampler._lib.domains import DELTA_STATED, EPSILON_STATED, GAMMA, RHO, RUN_RHO
from sensampler.privacy import PrivacyBound, PrivacyStatement, SamplingRun
from tests.property._contract import anything, refused_or_result

maybe = st.one_of(st.none(), anything)


@pytest.mark.slow
@given(maybe, maybe, maybe)
def test_statements(epsilon, delta, rho):
    statement = refused_or_result(
        lambda: PrivacyStatement("x", epsilon, delta, rho=rho), "epsilon", "delta", "rho"
    )
    if statement is None:
        return
    assert (statement.epsilon is None) == (statement.delta is None)
    if statement.epsilon is not None:
        assert EPSILON_STATED.contains(statement.epsilon)
        assert DELTA_STATED.contains(statement.delta)
    assert statement.rho is None or RHO.contains(statement.rho)


@pytest.mark.slow
@given(anything, anything, anything)
def test_bounds(epsilon, delta, gamma):
    bound = refused_or_result(
        lambda: PrivacyBound(epsilon, delta, gamma), "epsilon", "delta", "gamma"
    )
    if bound is not None:
        assert EPSILON_STATED.contains(bound.epsilon)
        assert DELTA_STATED.contains(bound.delta)
        assert GAMMA.contains(bound.gamma) or bound.gamma == float("inf")


@pytest.mark.slow
@given(anything, anything, anything, anything, anything)
def test_runs(gamma, rho, m, k, ordinal):
    run = refused_or_result(
        lambda: SamplingRun("r", gamma, rho, "exact", m, k, None, ordinal),
        "gamma",
        "rho",
        "m",
        "k",
        "ordinal",
    )
    if run is not None:
        assert GAMMA.contains(run.gamma) and RUN_RHO.contains(run.rho)
        assert 0 <= run.k <= run.m and run.ordinal >= 0
        assert all(type(v) is int for v in (run.m, run.k, run.ordinal))
