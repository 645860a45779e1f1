"""PrivateEstimator: a scikit-learn meta-estimator releasing fitted attributes."""

import re

import numpy as np
import pytest
from sensampler.distributions import Empirical
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from sensampler._lib.validation import as_seed_sequence
from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
)
from sensampler.models import PrivateEstimator

M = 19  # the exchangeable plan's fewest pairs for gamma = 0.05: fast tests


def _regression(n, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ np.arange(1.0, d + 1) + rng.normal(size=n)
    return X, y


def _classification(n, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _ridge(estimator=None, **kwargs):
    params = dict(
        epsilon=1.0,
        delta=1e-5,
        public=_regression(60, seed=1),
        bound="exchangeable",
        m=M,
        random_state=0,
    )
    params.update(kwargs)
    return PrivateEstimator(estimator or Ridge(alpha=1.0), **params)


def _logistic(**kwargs):
    params = dict(
        epsilon=1.0,
        delta=1e-5,
        public=_classification(80, seed=1),
        bound="exchangeable",
        m=M,
        random_state=0,
    )
    params.update(kwargs)
    return PrivateEstimator(LogisticRegression(C=0.1), **params)


def test_fit_predict_score_regression():
    X, y = _regression(100)
    model = _ridge().fit(X, y)
    assert model.predict(X).shape == (100,)
    assert np.isfinite(model.score(X, y))
    assert model.attributes_ == ("coef_", "intercept_")
    assert model.n_features_in_ == 3
    assert not hasattr(model, "predict_proba")


def test_fit_predict_proba_classification():
    X, y = _classification(100)
    model = _logistic().fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (100, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.decision_function(X).shape == (100,)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert set(model.predict(X)) <= {0, 1}


def test_privacy_and_sensitivity_describe_the_release():
    X, y = _regression(100)
    model = _ridge(epsilon=0.5, select="private").fit(X, y)
    privacy, estimate = model.privacy_, model.sensitivity_
    assert (privacy.epsilon, privacy.delta) == (0.5, 1e-5)
    assert privacy.gamma == pytest.approx(0.05)  # (m - k + 1)/(m + 1) = 1/20
    assert estimate.m == M and estimate.n == 100 and estimate.norm == "l2"
    assert privacy.run.run_id == estimate.run.run_id
    # sigma = the sampled sensitivity times the analytic unit sigma
    assert model.mechanism_.sigma == pytest.approx(
        estimate.sensitivity.value * model.mechanism_.sigma / estimate.sensitivity.value
    )
    assert model.mechanism_.sigma > 0


def test_laplace_uses_the_l1_norm():
    X, y = _regression(100)
    model = _ridge(mechanism="laplace", delta=0.0).fit(X, y)
    assert model.sensitivity_.norm == "l1"
    assert model.privacy_.delta == 0.0


def test_released_attributes_differ_from_the_private_fit_by_the_noise():
    X, y = _regression(100)
    model = _ridge().fit(X, y)
    exact = Ridge(alpha=1.0).fit(X, y)
    assert not np.allclose(model.estimator_.coef_, exact.coef_)
    # non-released attributes come from the public fit, not the private one
    public = Ridge(alpha=1.0).fit(*_regression(60, seed=1))
    assert model.estimator_.n_features_in_ == public.n_features_in_


def test_attributes_named_and_fit_intercept_false():
    X, y = _regression(100)
    model = PrivateEstimator(
        Ridge(fit_intercept=False),
        epsilon=1.0,
        delta=1e-5,
        public=_regression(60, seed=1),
        bound="exchangeable",
        m=M,
        random_state=0,
    ).fit(X, y)
    assert model.attributes_ == ("coef_",)
    assert model.estimator_.intercept_ == 0.0  # not noised
    named = _ridge(attributes=["coef_"]).fit(X, y)
    assert named.attributes_ == ("coef_",)


@pytest.mark.parametrize("population", ["gaussian_mixture", "kde"])
def test_smooth_populations(population):
    X, y = _classification(100)
    model = _logistic(population=population).fit(X, y)
    assert model.population_.sample(50, random_state=0).shape == (50, 4)
    labels = model.population_.sample(200, random_state=0)[:, -1]
    assert set(labels) == {0.0, 1.0}
    Xr, yr = _regression(100)
    assert _ridge(population=population).fit(Xr, yr).predict(Xr).shape == (100,)


def test_population_object_is_used_as_given():
    X, y = _regression(100)
    rows = np.column_stack(_regression(60, seed=1))
    population = Empirical(rows)
    model = _ridge(population=population).fit(X, y)
    assert model.population_ is population
    with pytest.raises(ValueError, match=re.escape("rows of 4 columns")):
        _ridge(population=Empirical(rows[:, :2])).fit(X, y)


def test_same_random_state_same_sensitivity_for_any_n_jobs():
    X, y = _regression(100)
    one = _ridge(n_jobs=1).fit(X, y)
    two = _ridge(n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.sensitivity_.samples, two.sensitivity_.samples)
    other = _ridge(random_state=1).fit(X, y)
    assert not np.array_equal(one.sensitivity_.samples, other.sensitivity_.samples)


def test_the_noise_cannot_be_redrawn_from_the_models_own_seed():
    # before: noise came from random_state's fourth child, so anyone holding the
    # model (get_params, a pickle) could draw it again and subtract it
    X, y = _regression(100)
    # select="private": the public model, if chosen, would release no noise at all
    one, two = _ridge(select="private").fit(X, y), _ridge(select="private").fit(X, y)
    np.testing.assert_array_equal(one.sensitivity_.samples, two.sensitivity_.samples)
    assert not np.array_equal(one.estimator_.coef_, two.estimator_.coef_)
    seed = as_seed_sequence(one.get_params()["random_state"]).spawn(4)[3]
    names = one.attributes_
    released = np.concatenate([np.ravel(getattr(one.estimator_, a)) for a in names])
    redrawn = one.mechanism_.release(
        np.zeros(released.size), random_state=np.random.default_rng(seed)
    )
    private = Ridge().fit(X, y)
    exact = np.concatenate([np.ravel(getattr(private, a)) for a in names])
    assert not np.allclose(released - redrawn, exact)


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"epsilon": -1.0}, ValueError, "'epsilon' parameter"),
        ({"epsilon": float("inf")}, ValueError, "epsilon"),
        ({"delta": 1.0}, ValueError, "'delta' parameter"),
        ({"gamma": 0.0}, ValueError, "'gamma' parameter"),
        ({"public": None}, ValueError, "public=(X_pub, y_pub) is required"),
        ({"public": (np.ones((5, 2)), np.ones(5))}, ValueError, "3 features"),
        ({"population": "normal"}, ValueError, "'population' parameter"),
        ({"mechanism": "exponential"}, ValueError, "'mechanism' parameter"),
        ({"norm": "linf"}, ValueError, "'norm' parameter"),
        ({"mechanism": "laplace"}, ValueError, "delta must be 0, got delta=1e-05"),
        (
            {"mechanism": "laplace", "delta": 0.0, "norm": "l2"},
            ValueError,
            "mechanism='laplace' needs norm='l1', got norm='l2'.",
        ),
        ({"delta": 0.0}, ValueError, "needs 0 < delta < 1, got delta=0"),
        ({"m": 0}, ValueError, "'m' parameter"),
        ({"m": 5, "bound": "exact"}, ValueError, "gamma=0.05 is below what m=5"),
        ({"bound": "chernoff"}, ValueError, "'bound' parameter"),
        ({"random_state": -1}, ValueError, "'random_state' parameter"),
        ({"n_jobs": 0}, ValueError, "n_jobs=0"),
        ({"attributes": ["coef"]}, ValueError, "attributes must name fitted"),
        ({"attributes": ["coefs_"]}, ValueError, "no attribute 'coefs_'"),
        ({"tune": {"gamma": [1]}}, ValueError, "tune must name parameters"),
        ({"tune": {"alpha": []}}, ValueError, "tune must map the estimator's"),
        ({"select": "best"}, ValueError, "'select' parameter"),
        ({"fit_method": "objective"}, ValueError, "'fit_method' parameter"),
        (
            {"estimator": make_pipeline(FunctionTransformer(), Ridge()),
             "tune": {"alpha": [1.0]}},
            ValueError,
            "tune is not supported with a Pipeline as the estimator",
        ),
    ],
)
def test_bad_parameters_are_refused_before_sampling(params, error, message, monkeypatch):
    import sensampler.models as models

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled before validating")

    monkeypatch.setattr(models, "sample_sensitivity", no_sampling)
    X, y = _regression(50)
    with pytest.raises(error, match=re.escape(message)):
        _ridge(**params).fit(X, y)


def test_filter_refuses_an_over_budget_fit_and_spends_nothing(monkeypatch):
    import sensampler.models as models

    X, y = _regression(100)
    budget = PrivacyFilter(1.5, 1e-4)
    _ridge().fit(X, y, accountant=budget)
    spent = budget.spent
    assert spent.epsilon == pytest.approx(1.0)
    assert spent.gamma == pytest.approx(0.05)

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled over budget")

    monkeypatch.setattr(models, "sample_sensitivity", no_sampling)
    with pytest.raises(ExceededPrivacyBudgetError):
        _ridge().fit(X, y, accountant=budget)
    assert budget.spent == spent
    assert len(budget.ledger) == 1


def test_accountant_must_compose():
    X, y = _regression(50)
    with pytest.raises(TypeError, match="accountant must be a sensampler accountant"):
        _ridge().fit(X, y, accountant=object())


def test_private_classes_must_be_the_public_ones():
    X, y = _classification(100)
    with pytest.raises(ValueError, match=re.escape("exactly the public classes [0, 1]")):
        _logistic().fit(X, np.where(y == 1, 2, y))


def test_pandas_input_keeps_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = _regression(100)
    Xp, yp = _regression(60, seed=1)
    columns = ["a", "b", "c"]
    model = _ridge(public=(pd.DataFrame(Xp, columns=columns), pd.Series(yp)))
    model.fit(pd.DataFrame(X, columns=columns), pd.Series(y))
    assert list(model.feature_names_in_) == columns
    assert model.predict(pd.DataFrame(X, columns=columns)).shape == (100,)


def test_pipeline_clone_and_params():
    X, y = _regression(100)
    pipe = make_pipeline(FunctionTransformer(), _ridge())
    pipe.set_params(privateestimator__epsilon=2.0).fit(X, y)
    assert pipe[-1].privacy_.epsilon == 2.0
    assert pipe.predict(X).shape == (100,)
    model = _ridge()
    copy = clone(model)
    assert copy.get_params()["epsilon"] == 1.0 and copy is not model
    assert not hasattr(copy, "estimator_")
    model.set_params(estimator__alpha=5.0)
    assert model.estimator.alpha == 5.0


def test_tuning_spends_nothing_from_the_default_filter():
    # issue 28: tuning released every candidate TUNING_RELEASES times through the
    # default filter (41 entries, epsilon 41 for one private fit of epsilon 1).
    X, y = _regression(100)
    grid = {"alpha": [1.0, 100.0]}
    with default_filter(PrivacyFilter(2.0, 1e-4, rule="basic")) as budget:
        _ridge(Ridge(fit_intercept=False), tune=grid, epsilon=1.0).fit(X, y)
    assert budget.count == 1
    assert budget.spent.epsilon == 1.0 and budget.spent.delta == 1e-5


def test_a_fit_charged_to_the_default_filter_is_recorded_once():
    # issue 28: fit(accountant=F) inside default_filter(F) recorded two entries.
    X, y = _regression(100)
    f = PrivacyFilter(1.5, 1e-4, rule="basic")
    with default_filter(f):
        _ridge().fit(X, y, accountant=f)
    assert f.count == 1 and f.spent.epsilon == 1.0


def test_tune_picks_a_penalty_on_public_data_only():
    X, y = _regression(100)
    grid = {"alpha": [1.0, 100.0, 10000.0]}
    # no intercept: a huge penalty leaves coefficients near 0 (an intercept would
    # stay the mean of y, whose sensitivity no penalty lowers)
    model = _ridge(Ridge(fit_intercept=False), tune=grid, epsilon=0.5).fit(X, y)
    assert model.best_params_["alpha"] in grid["alpha"]
    assert model.estimator_.alpha == model.best_params_["alpha"]
    results = model.tuning_results_
    assert [r["params"]["alpha"] for r in results] == grid["alpha"]
    # a much stronger penalty lowers the sampled sensitivity
    sens = [r["sensitivity"] for r in results]
    assert sens[0] > 10 * sens[2]
    # the winner's sensitivity is sampled afresh, not reused from the search
    best = results[grid["alpha"].index(model.best_params_["alpha"])]
    assert model.sensitivity_.sensitivity.value != best["sensitivity"]


def test_tags_follow_the_wrapped_estimator():
    from sklearn.base import is_classifier, is_regressor

    assert is_regressor(_ridge()) and not is_classifier(_ridge())
    assert is_classifier(_logistic())


# scikit-learn's own checks. The public data fix the number of features (three
# here) and each check builds its own data, so the checks that fit cannot apply;
# those on parameters, cloning and the estimator's API do. See
# sensampler.models.SKLEARN_CHECKS_NOT_APPLICABLE.
_APPLICABLE = {
    "check_no_attributes_set_in_init",
    "check_parameters_default_constructible",
    "check_get_params_invariance",
    "check_set_params",
    "check_estimator_repr",
    "check_estimator_cloneable",
    "check_estimator_tags_renamed",
    "check_valid_tag_types",
    "check_estimator_sparse_tag",
    "check_mixin_order",
    "check_do_not_raise_errors_in_init_or_set_params",
    "check_estimators_unfitted",
}


#: Before 1.6 this check builds the estimator from its class, without epsilon.
_BUILDS_FROM_CLASS = {"check_parameters_default_constructible"}


@parametrize_with_checks([_ridge(), _logistic()])
def test_sklearn_checks(estimator, check):
    import sklearn

    name = getattr(check, "func", check).__name__
    if name not in _APPLICABLE:
        pytest.skip("fits on data of its own width: see SKLEARN_CHECKS_NOT_APPLICABLE")
    old = tuple(int(p) for p in sklearn.__version__.split(".")[:2]) < (1, 6)
    if old and name in _BUILDS_FROM_CLASS:
        pytest.skip("epsilon and delta have no default: SKLEARN_CHECKS_NOT_APPLICABLE")
    check(estimator)


def test_augment_fits_on_public_and_private_rows():
    X, y = _regression(100)
    public = _regression(60, seed=1)
    alone = _ridge(public=public).fit(X, y)
    both = _ridge(public=public, augment=True).fit(X, y)
    # one private record among 160 rows moves the fit less than among 100
    assert both.sensitivity_.sensitivity.value < alone.sensitivity_.sensitivity.value
    assert both.sensitivity_.n == 100  # the private rows are what is sampled
    assert np.isfinite(both.score(X, y))


def test_string_labels_are_refused_naming_y():
    X, y = _classification(100)
    with pytest.raises(TypeError, match="y must hold numbers"):
        _logistic().fit(X, np.where(y == 1, "yes", "no"))


def test_non_released_attributes_come_from_the_public_fit_only():
    # LinearRegression keeps the singular values of the training X: released from
    # a private fit, they would publish the private data's geometry.
    from sklearn.linear_model import LinearRegression

    X, y = _regression(100)
    public = _regression(60, seed=1)
    model = _ridge(LinearRegression(), public=public).fit(X, y)
    np.testing.assert_array_equal(
        model.estimator_.singular_, LinearRegression().fit(*public).singular_
    )
    assert not np.allclose(
        model.estimator_.singular_, LinearRegression().fit(X, y).singular_
    )


def test_the_default_bootstrap_states_gamma_for_the_public_sample():
    from sensampler.distributions import PublicSample

    X, y = _regression(100)
    model = _ridge(bound="exact", m=None, gamma=0.1).fit(X, y)  # 12 runs of 47
    assert isinstance(model.population_, PublicSample)
    assert model.population_.basis(model.sensitivity_.plan).startswith(
        "gamma for this public sample of 60 rows at confidence 0.893 (smoothed "
        "Bayesian bootstrap"
    )
    with pytest.raises(ValueError, match="the public sample has 10 row"):
        _ridge(bound="exact", m=None, public=_regression(10, seed=1)).fit(X, y)


# ------------------------------------------------- choosing the released model
def _no_private_fit(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("fitted on the private data")

    monkeypatch.setattr(PrivateEstimator, "_fit_private", refuse)


@pytest.mark.parametrize("make", [_ridge, _logistic])
def test_public_model_wins_when_noise_swamps_the_private_data(make, monkeypatch):
    # epsilon = 0.001 on 100 private rows: the noise is hundreds of times the
    # coefficients, and the public model (60 or 80 rows) wins on synthetic data
    _no_private_fit(monkeypatch)
    model = make(epsilon=0.001)
    X, y = _classification(100) if make is _logistic else _regression(100)
    model.fit(X, y)
    assert model.selected_["candidate"] == "public model"
    assert "no private data read" in model.selected_["reason"]
    public = clone(model.estimator).fit(*model.public)
    np.testing.assert_array_equal(model.estimator_.coef_, public.coef_)
    assert model.privacy_.epsilon == 0.0  # the public model reads no private data


def test_private_release_wins_when_public_data_are_scarce():
    # 40 public rows (a public sample needs about 2 / gamma) in 20 dimensions
    # and noisy labels: the public model's 20 coefficients are poorly estimated
    def noisy(n, seed):
        X, y = _regression(n, seed=seed, d=20)
        return X, y + np.random.default_rng(seed + 100).normal(scale=30.0, size=n)

    X, y = noisy(3000, 3)
    X_pub, y_pub = noisy(40, 4)
    model = _ridge(public=(X_pub, y_pub), epsilon=50.0).fit(X, y)
    assert model.selected_["candidate"] != "public model"
    X_test, y_test = noisy(2000, 5)
    public = Ridge(alpha=1.0).fit(X_pub, y_pub)
    assert model.score(X_test, y_test) > public.score(X_test, y_test) + 0.01
    forced = _ridge(public=(X_pub, y_pub), epsilon=50.0, select="private").fit(X, y)
    assert forced.selected_["candidate"] == "private fit"
    assert set(forced.selected_["candidates"]) == {"private fit"}


def test_the_choice_reads_no_private_data():
    one = _logistic(epsilon=0.5).fit(*_classification(120, seed=7))
    two = _logistic(epsilon=0.5).fit(*_classification(120, seed=8))
    assert one.selected_ == two.selected_
    assert one.sensitivity_.sensitivity.value == two.sensitivity_.sensitivity.value


def test_selected_lists_every_candidate_with_its_expected_score():
    model = _logistic().fit(*_classification(100))
    names = list(model.selected_["candidates"])
    assert names[:2] == ["public model", "private fit"]
    assert all("shrunk toward the public model" in name for name in names[2:])
    assert len(names) == 2 + 5  # SHRINK_FACTORS
    for row in model.selected_["candidates"].values():
        assert 0 <= row["expected accuracy"] <= 1 and row["standard error"] >= 0


def test_sufficient_statistics_release():
    X, y = _regression(400)
    model = _ridge(fit_method="statistics", epsilon=5.0, select="private").fit(X, y)
    assert model.selected_["candidate"].startswith("sufficient statistics, penalty")
    assert "toward" not in model.selected_["candidate"]
    assert model.sensitivity_.query == "sufficient statistics X^T X, X^T y"
    assert model.score(*_regression(500, seed=9)) > 0.8
    with pytest.raises(ValueError, match="fit_method='statistics' releases"):
        _logistic(fit_method="statistics").fit(*_classification(100))


# ----------------------------------------------------------------- messages
def test_unscaled_features_get_advice_to_standardise():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    model = PrivateEstimator(
        LogisticRegression(), epsilon=1.0, delta=1e-5, public=(X[:60], y[:60]),
        bound="exchangeable", m=M, random_state=0,
    )
    with pytest.warns(Warning), pytest.raises(ValueError) as info:
        model.fit(X[60:], y[60:])
    message = str(info.value)
    assert "Standardise the features with statistics of the public data" in message
    assert "make_pipeline(StandardScaler(), LogisticRegression(...))" in message
    assert "order_dependent" not in message


def test_pipeline_preprocessing_is_fitted_on_public_data():
    from sklearn.preprocessing import StandardScaler

    X, y = _classification(200)
    X_pub, y_pub = _classification(80, seed=1)
    shift = lambda a: a * 100.0 + 50.0  # noqa: E731
    model = PrivateEstimator(
        make_pipeline(StandardScaler(), LogisticRegression(C=0.1)), epsilon=1.0,
        delta=1e-5, public=(shift(X_pub), y_pub), bound="exchangeable", m=M,
        random_state=0,
    ).fit(shift(X), y)
    scaler = model.estimator_[0]
    np.testing.assert_allclose(scaler.mean_, shift(X_pub).mean(axis=0))
    assert model.predict(shift(X)).shape == (200,)
    assert model.score(shift(X), y) > 0.6
    with pytest.raises(ValueError, match="tune is not supported with a Pipeline"):
        clone(model).set_params(tune={"C": [1.0]}).fit(shift(X), y)


def test_messages_quote_no_private_value():
    X, y = _regression(50)
    with pytest.raises(ValueError) as info:
        _ridge().fit(X[:, 0] + 0.123456789, y)
    message = str(info.value)
    assert "Expected 2D array" in message and "withheld" in message
    assert "0.123456789"[:6] not in message and "array=" not in message


def test_a_classifier_without_probabilities_is_chosen_for_too():
    from sklearn.svm import LinearSVC

    # dual=False: the primal solver converges on any scikit-learn (1.3 defaults to
    # the dual one, whose result depends on the order of the rows)
    model = _logistic().set_params(estimator=LinearSVC(C=0.1, dual=False))
    model.fit(*_classification(150))
    assert set(model.selected_["candidates"]) == {"public model", "private fit"}
    assert model.predict(_classification(10)[0]).shape == (10,)


def test_a_public_sample_too_small_for_the_plan_is_refused_before_any_spend():
    X, y = _regression(100)
    budget = PrivacyFilter(1.5, 1e-4)
    with pytest.raises(ValueError, match="public sample has 10 row"):
        _ridge(public=_regression(10, seed=1)).fit(X, y, accountant=budget)
    assert len(budget.ledger) == 0


@pytest.mark.parametrize("population", ["bootstrap", "gaussian_mixture"])
def test_public_rows_that_are_the_private_rows_are_refused_before_any_spend(
    population,
):
    X, y = _regression(100)
    budget = PrivacyFilter(1.5, 1e-4)
    with pytest.raises(ValueError, match="are the private records"):
        _ridge(public=(X[::-1], y[::-1]), population=population).fit(
            X, y, accountant=budget
        )
    assert len(budget.ledger) == 0
