"""Shared test helpers: one seed by default, many with SENSAMPLER_SEEDS=all."""

import math
import os
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# Property tests (tests/property): "ci" (default) keeps the whole run to a minute
# or two on two cores; "long" searches far more (``--hypothesis-profile long``).
# The deadline turns a call that runs away (a hang) into a failure. "ci" draws
# the same examples on every run (derandomize): a clone is green or red for
# what it holds, not for the draw; "long" draws new ones each time to search.
settings.register_profile(
    "ci",
    max_examples=150,
    derandomize=True,
    deadline=10_000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile(
    "long",
    max_examples=2_000,
    deadline=10_000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile("ci")

# Subprocesses started by the tests (the console script, ``python -c``) import
# the installed package, never the source tree of their working folder: the
# source tree is not the installed layout (distributions/ is installed as
# sensampler.distributions), like ``python -P`` for the suite itself.
os.environ["PYTHONSAFEPATH"] = "1"

SEEDS = range(20) if os.environ.get("SENSAMPLER_SEEDS") == "all" else [20261121]


@pytest.fixture(params=SEEDS)
def seed(request):
    return request.param


def false_failure_rate(z, sides=2):
    """Chance that a normal estimate lies more than ``z`` standard errors off
    (beyond one side of its mean, or either): ``sides * P[Z > z]``."""
    return sides * 0.5 * math.erfc(z / math.sqrt(2.0))


def assert_close_in_se(observed, expected, se, z=6.0):
    """Assert ``|observed - expected| < z * se`` elementwise.

    Six standard errors are crossed by chance with probability ~2e-9 per
    coordinate (:func:`false_failure_rate`), so a failure means a wrong
    formula, not bad luck; the fixed seed only makes the run repeatable. The
    failure message states the rate.
    """
    observed, expected, se = map(np.asarray, (observed, expected, se))
    assert np.all(np.abs(observed - expected) < z * se), (
        f"more than {z} standard errors apart (by chance with probability "
        f"{false_failure_rate(z):.1e} per coordinate)",
        observed,
        expected,
        se,
    )


def assert_below_in_se(observed, bound, se, z=6.0):
    """Assert ``observed <= bound + z * se`` elementwise: an upper bound, checked
    on an estimate of standard error ``se``.

    An estimate whose mean is at the bound exceeds it by six standard errors
    with probability ~1e-9 per coordinate (one side, :func:`false_failure_rate`),
    and one whose mean is below it less often.
    """
    observed, bound, se = map(np.asarray, (observed, bound, se))
    assert np.all(observed <= bound + z * se), (
        f"more than {z} standard errors above the bound (by chance with "
        f"probability {false_failure_rate(z, sides=1):.1e} per coordinate)",
        observed,
        bound,
        se,
    )


def assert_moments(dist, seed, n=200_000):
    """Check the sample mean and variance of ``dist`` against its own mean and var."""
    x = dist.sample(n, random_state=seed).astype(float)
    mean, var = np.asarray(dist.mean, float), np.asarray(dist.var, float)
    assert_close_in_se(x.mean(axis=0), mean, np.sqrt(var / n))
    sq = (x - mean) ** 2
    assert_close_in_se(sq.mean(axis=0), var, sq.std(axis=0) / np.sqrt(n) + 1e-12)


def traced_peak(call):
    """Peak bytes traced (numpy reports its buffers to tracemalloc) during call()."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
