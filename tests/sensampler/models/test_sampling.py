"""The fitted attributes' sampled sensitivity (sensampler.models._sampling)."""


import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from sensampler.models import PrivateEstimator
from tests.sensampler.models.estimators import (
    M,
    regression,
    ridge,
)


@pytest.mark.slow
def test_same_random_state_same_sensitivity_for_any_n_jobs():
    X, y = regression(100)
    one = ridge(n_jobs=1).fit(X, y)
    two = ridge(n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.sensitivity_.samples, two.sensitivity_.samples)
    other = ridge(random_state=1).fit(X, y)
    assert not np.array_equal(one.sensitivity_.samples, other.sensitivity_.samples)

def test_unscaled_features_get_advice_to_standardise():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    model = PrivateEstimator(
        LogisticRegression(), epsilon=1.0, delta=1e-5, public=(X[:60], y[:60]),
        inequality="exchangeable", m=M, random_state=0,
    )
    with pytest.warns(Warning), pytest.raises(ValueError) as info:
        model.fit(X[60:], y[60:])
    message = str(info.value)
    assert "Standardise the features with statistics of the public data" in message
    assert "make_pipeline(StandardScaler(), LogisticRegression(...))" in message
    assert "order_dependent" not in message


@pytest.mark.slow
def test_binary_logistic_fits_are_sampled_by_stack_not_database_by_database(
    monkeypatch,
):
    """The sampled sensitivity of a binary logistic fit calls the batched solver
    once per stack of databases, never the per-database fit (the speed of
    PrivateEstimator, benchmarks/private_estimator.py), and finds the same
    sensitivity on the same seed as the per-database path."""
    from sensampler.distributions import PublicSample
    from sensampler.models._fits import ShrunkLogisticRegression
    from sensampler.models._sampling import Concatenated
    from sensampler.plan import sampling_plan

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(float)
    public = LogisticRegression().fit(X, y)
    model = ShrunkLogisticRegression(
        C=0.1, coef=public.coef_, intercept=public.intercept_, classes=public.classes_
    )
    names = ("coef_", "intercept_")
    fixed = np.empty((0, 4))

    class _Setting:
        population = PublicSample(np.column_stack([X, y]))
        n, norm, neighbours, n_jobs, data_norm = 60, "l2", "replace-one", 1, None
        plan = sampling_plan(m=40, gamma=0.05, inequality="exchangeable")
        estimator_name = "LogisticRegression"

    from sensampler.models._sampling import sample

    calls = []
    fit = ShrunkLogisticRegression.fit
    monkeypatch.setattr(
        ShrunkLogisticRegression, "fit",
        lambda self, X, y: calls.append(1) or fit(self, X, y),
    )
    seed = np.random.SeedSequence(5)
    fast = sample(Concatenated(model, names, fixed), _Setting, seed)
    assert calls == []
    slow_query = Concatenated(model, names, fixed)
    slow_query.batched = False
    slow = sample(slow_query, _Setting, seed)
    assert len(calls) >= 2 * 40
    np.testing.assert_allclose(
        fast.sensitivity.value, slow.sensitivity.value, rtol=1e-9
    )


def test_neighbouring_stack_is_fitted_without_a_hessian(monkeypatch):
    """The second stack of a chunk (each database one row from the first's)
    starts from the first's minimisers and inverse Hessians, the swapped row
    updated (ShrunkLogisticRegression.swap_inverse): no Hessian is computed,
    and the fits are still each database's own, to machine precision."""
    from sensampler.models import _fits
    from sensampler.models._fits import ShrunkLogisticRegression
    from sensampler.models._sampling import Concatenated

    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(float)
    public = LogisticRegression().fit(X[:50], y[:50])
    model = ShrunkLogisticRegression(
        C=0.3, coef=public.coef_, intercept=public.intercept_, classes=public.classes_
    )
    query = Concatenated(model, ("coef_", "intercept_"), np.column_stack([X, y])[:10])
    stack = np.stack([np.column_stack([X, y])[rng.choice(400, 60)] for _ in range(5)])
    query.evaluate(stack)
    fresh = np.column_stack([X + 0.5, y])[:5]  # rows of no database
    stack[np.arange(5), rng.integers(60, size=5)] = fresh
    hessians = []
    hessian = _fits._binary_hessian
    monkeypatch.setattr(
        _fits, "_binary_hessian", lambda Z, *rest: hessians.append(len(Z)) or hessian(Z, *rest)
    )
    second = query.evaluate(stack)
    assert hessians == []
    rows = np.concatenate([np.broadcast_to(query.fixed, (5, 10, 4)), stack], axis=1)
    np.testing.assert_allclose(second, model.fit_batch(rows), rtol=0, atol=1e-9)
