"""PrivateEstimator as a scikit-learn estimator: fit, predict, parameters,
pipelines, tags, scikit-learn's own checks, accountants and threads."""

import re

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_info

import sensampler.models._sampling as sampling_module
from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
)
from sensampler.models import SKLEARN_CHECKS_NOT_APPLICABLE, PrivateEstimator
from tests.sensampler.models.estimators import (
    M,
    classification,
    logistic,
    regression,
    ridge,
    shrinkable,
)


@pytest.mark.slow
def test_fit_predict_score_regression():
    X, y = regression(100)
    model = ridge().fit(X, y)
    assert model.predict(X).shape == (100,)
    assert np.isfinite(model.score(X, y))
    assert model.attributes_ == ("coef_", "intercept_")
    assert model.n_features_in_ == 3
    assert not hasattr(model, "predict_proba")

@pytest.mark.slow
def test_fit_predict_proba_classification():
    X, y = classification(100)
    model = logistic().fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (100, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.decision_function(X).shape == (100,)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert set(model.predict(X)) <= {0, 1}

@pytest.mark.slow
def test_laplace_uses_the_l1_norm():
    X, y = regression(100)
    model = ridge(mechanism="laplace", delta=0.0).fit(X, y)
    assert model.sensitivity_.norm == "l1"
    assert model.privacy_.delta == 0.0

@pytest.mark.slow
def test_attributes_named_and_fit_intercept_false():
    X, y = regression(100)
    model = PrivateEstimator(
        Ridge(fit_intercept=False),
        epsilon=1.0,
        delta=1e-5,
        public=regression(60, seed=1),
        inequality="exchangeable",
        m=M,
        random_state=0,
    ).fit(X, y)
    assert model.attributes_ == ("coef_",)
    assert model.estimator_.intercept_ == 0.0  # not noised
    named = ridge(attributes=["coef_"]).fit(X, y)
    assert named.attributes_ == ("coef_",)

@pytest.mark.slow
def test_filter_refuses_an_over_budget_fit_and_spends_nothing(monkeypatch):

    X, y = regression(100)
    budget = PrivacyFilter(1.5, 1e-4)
    ridge().fit(X, y, accountant=budget)
    spent = budget.spent
    assert spent.epsilon == pytest.approx(1.0)
    assert spent.gamma == pytest.approx(0.05)

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled over budget")

    monkeypatch.setattr(sampling_module, "sample_sensitivity", no_sampling)
    with pytest.raises(ExceededPrivacyBudgetError):
        ridge().fit(X, y, accountant=budget)
    assert budget.spent == spent
    assert len(budget.ledger) == 1

def test_accountant_must_compose():
    X, y = regression(50)
    with pytest.raises(TypeError, match="accountant must be a sensampler accountant"):
        ridge().fit(X, y, accountant=object())

@pytest.mark.slow
def test_private_classes_must_be_the_public_ones():
    X, y = classification(100)
    with pytest.raises(ValueError, match=re.escape("exactly the public classes [0, 1]")):
        logistic().fit(X, np.where(y == 1, 2, y))

@pytest.mark.slow
def test_pandas_input_keeps_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = regression(100)
    Xp, yp = regression(60, seed=1)
    columns = ["a", "b", "c"]
    model = ridge(public=(pd.DataFrame(Xp, columns=columns), pd.Series(yp)))
    model.fit(pd.DataFrame(X, columns=columns), pd.Series(y))
    assert list(model.feature_names_in_) == columns
    assert model.predict(pd.DataFrame(X, columns=columns)).shape == (100,)

@pytest.mark.slow
def test_pipeline_clone_and_params():
    X, y = regression(100)
    pipe = make_pipeline(FunctionTransformer(), ridge())
    pipe.set_params(privateestimator__epsilon=2.0).fit(X, y)
    assert pipe[-1].privacy_.epsilon == 2.0
    assert pipe.predict(X).shape == (100,)
    model = ridge()
    copy = clone(model)
    assert copy.get_params()["epsilon"] == 1.0 and copy is not model
    assert not hasattr(copy, "estimator_")
    model.set_params(estimator__alpha=5.0)
    assert model.estimator.alpha == 5.0

@pytest.mark.slow
def test_a_fit_charged_to_the_default_filter_is_recorded_once():
    # issue 28: fit(accountant=F) inside default_filter(F) recorded two entries.
    X, y = regression(100)
    f = PrivacyFilter(1.5, 1e-4, rule="basic")
    with default_filter(f):
        ridge().fit(X, y, accountant=f)
    assert f.count == 1 and f.spent.epsilon == 1.0

def test_tags_follow_the_wrapped_estimator():
    from sklearn.base import is_classifier, is_regressor

    assert is_regressor(ridge()) and not is_classifier(ridge())
    assert is_classifier(logistic())

def _not_applicable(estimator):
    """SKLEARN_CHECKS_NOT_APPLICABLE for ``estimator``: the checks on a
    classifier's own labels pass for a regressor."""
    return {
        name: why
        for name, why in SKLEARN_CHECKS_NOT_APPLICABLE.items()
        if is_classifier(estimator) or not why.startswith("a classifier's labels")
    }


@pytest.mark.slow
@parametrize_with_checks(
    [ridge(), logistic()], expected_failed_checks=_not_applicable
)
def test_sklearn_checks(estimator, check):
    """scikit-learn's own checks, every one run: those that cannot apply are
    expected to fail, with the reason SKLEARN_CHECKS_NOT_APPLICABLE gives
    (before, an allow-list skipped 79 of them)."""
    check(estimator)


@pytest.mark.slow
def test_pipeline_preprocessing_is_fitted_on_public_data():
    from sklearn.preprocessing import StandardScaler

    X, y = classification(200)
    X_pub, y_pub = classification(80, seed=1)
    shift = lambda a: a * 100.0 + 50.0  # noqa: E731
    model = PrivateEstimator(
        make_pipeline(StandardScaler(), LogisticRegression(C=0.1)), epsilon=1.0,
        delta=1e-5, public=(shift(X_pub), y_pub), inequality="exchangeable", m=M,
        random_state=0,
    ).fit(shift(X), y)
    scaler = model.estimator_[0]
    np.testing.assert_allclose(scaler.mean_, shift(X_pub).mean(axis=0))
    assert model.predict(shift(X)).shape == (200,)
    assert model.score(shift(X), y) > 0.6
    with pytest.raises(ValueError, match="tune is not supported with a Pipeline"):
        clone(model).set_params(tune={"C": [1.0]}).fit(shift(X), y)

class _Recording(Ridge):
    """Ridge recording the largest BLAS/OpenMP thread count during each fit."""

    seen: list = []

    def fit(self, X, y, sample_weight=None):
        _Recording.seen.append(max(i["num_threads"] for i in threadpool_info()))
        return super().fit(X, y, sample_weight)

@pytest.mark.slow
def test_fit_runs_blas_on_one_thread():
    # the fit on the public data and the choice ran with every BLAS thread
    _Recording.seen = []
    shrinkable(_Recording(), public=regression(60, seed=1)).fit(*regression(100))
    assert _Recording.seen and set(_Recording.seen) == {1}
