"""Every mechanism's release spends from the process-wide default filter, when set."""

import threading

import numpy as np
import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    RenyiFilter,
    default_filter,
)
from sensampler.audit import audit_mechanism
from sensampler.mechanisms import (
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
)


def test_without_a_default_nothing_is_recorded():
    assert np.isfinite(LaplaceMechanism(1.0, 0.5).release(1.0, random_state=0))


@pytest.mark.parametrize(
    "mechanism, value",
    [
        (LaplaceMechanism(1.0, 0.5), 1.0),
        (GaussianMechanism(1.0, 0.5, 1e-6), 1.0),
        (DiscreteLaplaceMechanism(1.0, 0.5, granularity=1.0), 3.0),
        (RandomizedResponse(2, 0.5), 1),
    ],
    ids=["laplace", "gaussian", "discrete-laplace", "randomized-response"],
)
def test_a_release_spends_from_the_default_filter(mechanism, value):
    # before: a notebook's releases spent nothing unless a filter was passed
    with default_filter(PrivacyFilter(1.0, 1e-5, rule="basic")) as budget:
        mechanism.release(value)
        assert budget.count == 1
        assert budget.spent.epsilon == pytest.approx(mechanism.privacy.epsilon)


def test_a_release_over_the_default_budget_is_refused_before_any_draw():
    class Watched(np.random.Generator):
        draws = 0

        def laplace(self, *args, **kwargs):
            Watched.draws += 1
            return super().laplace(*args, **kwargs)

    laplace = LaplaceMechanism(1.0, 0.6)
    with default_filter(PrivacyFilter(1.0, rule="basic")) as budget:
        laplace.release(1.0, random_state=Watched(np.random.PCG64(0)))
        with pytest.raises(ExceededPrivacyBudgetError):
            laplace.release(1.0, random_state=Watched(np.random.PCG64(1)))
        assert budget.count == 1 and Watched.draws == 1


def test_bad_arguments_are_refused_before_spending_from_the_default():
    with default_filter(PrivacyFilter(1.0)) as budget:
        with pytest.raises(ValueError, match="value"):
            LaplaceMechanism(1.0, 0.5).release(float("nan"))
        assert budget.count == 0


def test_an_explicit_filter_spends_once_not_twice():
    explicit, default = PrivacyFilter(1.0), PrivacyFilter(1.0)
    with default_filter(default):
        explicit.release(LaplaceMechanism(1.0, 0.25), 1.0, random_state=0)
    assert explicit.count == 1 and default.count == 0


def test_an_audit_of_synthetic_inputs_spends_nothing_from_the_default():
    with default_filter(RenyiFilter(1.0, 1e-6)) as budget:
        audit_mechanism(
            LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=2_000, synthetic=True
        )
        assert budget.count == 0


def test_a_user_subclass_spends_too():
    class Rounded(LaplaceMechanism):
        def release(self, value, *, random_state=None):
            return round(super().release(value, random_state=random_state), 1)

    with default_filter(PrivacyFilter(1.0)) as budget:
        Rounded(1.0, 0.1).release(1.0)
        assert budget.count == 1  # once, though both releases are wrapped


def test_threads_never_overspend_the_default():
    laplace = LaplaceMechanism(1.0, 0.1)
    admitted = []

    def spend():
        for _ in range(20):
            try:
                laplace.release(1.0)
            except ExceededPrivacyBudgetError:
                continue
            admitted.append(1)

    with default_filter(PrivacyFilter(1.0, rule="basic")) as budget:
        threads = [threading.Thread(target=spend) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # 0.1 ten times is 1.0 in exact arithmetic: exactly ten releases fit
        assert len(admitted) == budget.count == 10
