"""Sampling plans and the sampler (small n and m): any arguments are refused by
name or give a plan whose numbers are finite and consistent."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sensampler import queries, sample_sensitivity, sampling_plan
from sensampler.distributions import Normal
from tests.property._contract import anything, junk, refused_or_result


@pytest.mark.slow
@given(anything, anything, st.sampled_from(["exact", "dkw", "x"]))
def test_sampling_plan(m, gamma, inequality):
    plan = refused_or_result(
        lambda: sampling_plan(m=m, gamma=gamma, inequality=inequality), "m", "gamma", "inequality"
    )
    if plan is not None:
        assert isinstance(plan.m, int) and 1 <= plan.k <= plan.m
        assert 0 < plan.gamma < 1 and np.isfinite(plan.rho)


# n and m stay small (a large n or m is a legitimate, memory-bound request).
small = st.one_of(junk, st.integers(-3, 30), st.floats(allow_nan=True))


@pytest.mark.slow
@given(small, small, st.one_of(junk, st.integers(-2, 2)))
def test_sample_sensitivity(n, m, n_jobs):
    estimate = refused_or_result(
        lambda: sample_sensitivity(
            queries.mean, Normal(), n, m=m, gamma=0.5, random_state=0, n_jobs=n_jobs
        ),
        "n",
        "m",
        "gamma",
        "n_jobs",
    )
    if estimate is not None:
        assert np.all(np.isfinite(estimate.sensitivity.value))
        assert m is None or estimate.m == m
