"""The choice among candidate releases, on public data alone
(sensampler.models._select)."""


import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge

import sensampler.models._release as release_module
from tests.sensampler.models.estimators import (
    classification,
    labelled,
    logistic,
    regression,
    ridge,
    shrinkable,
)


def _no_private_fit(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("fitted on the private data")

    monkeypatch.setattr(release_module, "fit_private", refuse)

@pytest.mark.parametrize("make", [ridge, logistic])
@pytest.mark.slow
def test_public_model_wins_when_noise_swamps_the_private_data(make, monkeypatch):
    # epsilon = 0.001 on 100 private rows: the noise is hundreds of times the
    # coefficients, and the public model (60 or 80 rows) wins on synthetic data
    _no_private_fit(monkeypatch)
    model = make(epsilon=0.001)
    X, y = classification(100) if make is logistic else regression(100)
    model.fit(X, y)
    assert model.selected_["candidate"] == "public model"
    assert "no private data read" in model.selected_["reason"]
    public = clone(model.estimator).fit(*model.public)
    np.testing.assert_array_equal(model.estimator_.coef_, public.coef_)
    assert model.privacy_.epsilon == 0.0  # the public model reads no private data

@pytest.mark.slow
def test_private_release_wins_when_public_data_are_scarce():
    # 40 public rows (a public sample needs about 2 / gamma) in 20 dimensions
    # and noisy labels: the public model's 20 coefficients are poorly estimated
    def noisy(n, seed):
        X, y = regression(n, seed=seed, d=20)
        return X, y + np.random.default_rng(seed + 100).normal(scale=30.0, size=n)

    X, y = noisy(3000, 3)
    X_pub, y_pub = noisy(40, 4)
    model = ridge(public=(X_pub, y_pub), epsilon=50.0).fit(X, y)
    assert model.selected_["candidate"] != "public model"
    X_test, y_test = noisy(2000, 5)
    public = Ridge(alpha=1.0).fit(X_pub, y_pub)
    assert model.score(X_test, y_test) > public.score(X_test, y_test) + 0.01
    forced = ridge(public=(X_pub, y_pub), epsilon=50.0, select="private").fit(X, y)
    assert forced.selected_["candidate"] == "private fit"
    assert set(forced.selected_["candidates"]) == {"private fit"}

@pytest.mark.slow
def test_the_choice_reads_no_private_data():
    one = logistic(epsilon=0.5).fit(*classification(120, seed=7))
    two = logistic(epsilon=0.5).fit(*classification(120, seed=8))
    assert one.selected_ == two.selected_
    assert one.sensitivity_.sensitivity.value == two.sensitivity_.sensitivity.value

@pytest.mark.slow
def test_selected_lists_every_candidate_with_its_expected_score():
    model = logistic().fit(*classification(100))
    names = list(model.selected_["candidates"])
    assert names[:2] == ["public model", "private fit"]
    assert all("shrunk toward the public model" in name for name in names[2:])
    assert len(names) == 2 + 5  # SHRINK_FACTORS
    for row in model.selected_["candidates"].values():
        assert 0 <= row["expected accuracy"] <= 1 and row["standard error"] >= 0

@pytest.mark.slow
def test_a_classifier_without_probabilities_is_chosen_for_too():
    from sklearn.svm import LinearSVC

    # dual=False: the primal solver converges on any scikit-learn (1.3 defaults to
    # the dual one, whose result depends on the order of the rows)
    model = logistic().set_params(estimator=LinearSVC(C=0.1, dual=False))
    model.fit(*classification(150))
    assert set(model.selected_["candidates"]) == {"public model", "private fit"}
    assert model.predict(classification(10)[0]).shape == (10,)

@pytest.mark.slow
def test_a_public_model_released_is_the_same_for_any_private_data():
    # the (0, 0) statement: two private data sets of the same size, even of
    # another law, give the very same released model and choice
    one = shrinkable(epsilon=0.001).fit(*labelled(100, seed=5))
    X, y = labelled(100, seed=6)
    two = shrinkable(epsilon=0.001).fit(3.0 * X, 1.0 - y)
    assert one.selected_["candidate"] == two.selected_["candidate"] == "public model"
    assert one.selected_ == two.selected_
    np.testing.assert_array_equal(one.estimator_.coef_, two.estimator_.coef_)
    np.testing.assert_array_equal(one.estimator_.intercept_, two.estimator_.intercept_)


def test_private_fit_of_a_converged_l2_logistic_is_its_exact_minimiser():
    """A LogisticRegression whose solver converges on the public rows samples
    and releases the exact minimiser of its objective (Newton's method, the
    batched fast path); liblinear (another objective) and a solver stopped
    before it converges keep scikit-learn's own fit."""
    from types import SimpleNamespace

    from sensampler.models._fits import ShrunkLogisticRegression
    from sensampler.models._select import private_model

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(float)
    model = LogisticRegression(C=0.5)
    exact = private_model(SimpleNamespace(model=model, template=clone(model).fit(X, y)))
    assert isinstance(exact, ShrunkLogisticRegression)
    assert (exact.C, exact.penalize_intercept, exact.coef) == (0.5, False, None)
    for kept in (LogisticRegression(solver="liblinear"), LogisticRegression(max_iter=1)):
        setting = SimpleNamespace(model=kept, template=clone(kept).fit(X, y))
        assert private_model(setting) is kept
