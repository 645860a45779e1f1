"""What a fit checks before it spends, draws or reads the private data
(sensampler.models._setup): parameters, settings, data, data_norm, public rows."""

import re
import time

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import sensampler.models._sampling as sampling_module
from sensampler.accounting import (
    PrivacyFilter,
)
from sensampler.models import PrivateEstimator
from tests.sensampler.models.estimators import (
    M,
    classification,
    flip_model,
    labelled,
    logistic,
    private_rows,
    regression,
    ridge,
    shrinkable,
)


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
        ({"mechanism": "laplace"}, ValueError, "takes no delta, got delta=1e-05"),
        (
            {"mechanism": "laplace", "delta": 0.0, "norm": "l2"},
            ValueError,
            "mechanism='laplace' needs norm='l1', got norm='l2'.",
        ),
        ({"delta": 0.0}, ValueError, "needs delta > 0, got delta=0.0"),
        ({"m": 0}, ValueError, "'m' parameter"),
        ({"m": 5, "inequality": "exact"}, ValueError, "gamma=0.05 is below what m=5"),
        ({"inequality": "chernoff"}, ValueError, "'inequality' parameter"),
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

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled before validating")

    monkeypatch.setattr(sampling_module, "sample_sensitivity", no_sampling)
    X, y = regression(50)
    with pytest.raises(error, match=re.escape(message)):
        ridge(**params).fit(X, y)

def test_string_labels_are_refused_naming_y():
    X, y = classification(100)
    with pytest.raises(TypeError, match="y must hold numbers"):
        logistic().fit(X, np.where(y == 1, "yes", "no"))

def test_messages_quote_no_private_value():
    X, y = regression(50)
    with pytest.raises(ValueError) as info:
        ridge().fit(X[:, 0] + 0.123456789, y)
    message = str(info.value)
    assert "Expected 2D array" in message and "withheld" in message
    assert "0.123456789"[:6] not in message and "array=" not in message

def test_a_public_sample_too_small_for_the_plan_is_refused_before_any_spend():
    X, y = regression(100)
    budget = PrivacyFilter(1.5, 1e-4)
    with pytest.raises(ValueError, match="public sample has 10 row"):
        ridge(public=regression(10, seed=1)).fit(X, y, accountant=budget)
    assert len(budget.ledger) == 0

@pytest.mark.parametrize("population", ["bootstrap", "gaussian_mixture"])
def test_public_rows_that_are_the_private_rows_are_refused_before_any_spend(
    population,
):
    X, y = regression(100)
    budget = PrivacyFilter(1.5, 1e-4)
    with pytest.raises(ValueError, match="are the private records"):
        ridge(public=(X[::-1], y[::-1]), population=population).fit(
            X, y, accountant=budget
        )
    assert len(budget.ledger) == 0

@pytest.mark.slow
def test_public_rows_mostly_zero_keep_the_largest_norm_as_the_row_bound():
    # the median of the public norms is 0 here: clipping to it would leave no
    # bound, so the largest public norm is taken, and the worst case stays
    X_pub, y_pub = labelled(80, seed=1)
    X_pub[:50] = 0.0
    X, y = labelled(200)
    model = shrinkable(public=(X_pub, y_pub), select="shrunk").fit(X, y)
    bounds = model.sensitivity_.bounds
    assert bounds.high == float(np.max(np.linalg.norm(X_pub, axis=1)))
    assert "largest" in bounds.note and model.privacy_.worst_case is not None

@pytest.mark.slow
def test_a_given_data_norm_clips_the_rows():
    X, y = labelled(200)
    model = shrinkable(select="shrunk", data_norm=0.5).fit(X, y)
    assert model.sensitivity_.bounds.high == 0.5
    assert model.sensitivity_.bounds.source == "given"

@pytest.mark.parametrize("data_norm", [np.inf, -1.0, 0.0, "all"])
def test_bad_data_norms_are_refused_before_any_work(data_norm, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("sampled")

    monkeypatch.setattr(sampling_module, "sample_sensitivity", refuse)
    with pytest.raises(ValueError, match="data_norm"):
        shrinkable(data_norm=data_norm).fit(*labelled(100))

def test_unknown_neighbours_are_refused():
    with pytest.raises(ValueError, match="neighbours"):
        shrinkable(neighbours="swap").fit(*labelled(100))

def _secret_frames():
    pd = pytest.importorskip("pandas")
    X, _ = private_rows(60)
    strings = pd.DataFrame({
        "a": pd.array([f"{v}" for v in X[:-1, 0]] + ["SECRETVAL"], dtype="string"),
        "b": X[:, 1],
    })
    objects = X.astype(object)
    objects[7, 1] = "SECRETVAL"
    return [strings, objects]

@pytest.mark.parametrize("which", [0, 1], ids=["pandas string", "numpy object"])
def test_a_private_string_cell_is_not_quoted(which):
    """Before: 'could not convert string to float: 'SECRETVAL'' quoted the
    private cell (scrub kept the first sentence, quotes and all)."""
    X = _secret_frames()[which]
    _, y = private_rows(60)
    try:
        flip_model(neighbours="replace-one").fit(X, y)
    except ValueError as exc:
        assert "SECRETVAL" not in str(exc)
        assert "refused by scikit-learn" in str(exc)
        assert "could not convert string to float: '…'" in str(exc)
    else:  # pandas 2.0's string column converts under scikit-learn 1.6: no message
        assert which == 0

def test_a_row_bound_whose_fit_overflows_is_refused_before_any_fit(monkeypatch):
    """Before: data_norm=1e308 ended in a bare OverflowError (sqrt(R**2 + 1) of
    the worst case) after the whole sampling (18 s at the default m)."""

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled before refusing the bound")

    monkeypatch.setattr(sampling_module, "sample_sensitivity", no_sampling)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(float)
    model = PrivateEstimator(
        LogisticRegression(), epsilon=1.0, delta=1e-5, public=(X[:100], y[:100]),
        data_norm=1e308, select="shrunk", random_state=0,
    )
    start = time.perf_counter()
    with pytest.raises(ValueError, match=re.escape("data_norm=1e+308 is too large")):
        model.fit(X[100:], y[100:])
    assert time.perf_counter() - start < 5.0

@pytest.mark.slow
def test_a_large_row_bound_below_the_limit_still_fits():
    """The refusal stops at the overflow: a large bound below it still fits,
    its worst case finite (math.hypot, where R**2 overflowed before)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(float)
    model = PrivateEstimator(
        LogisticRegression(), epsilon=1.0, delta=1e-5, public=(X[:100], y[:100]),
        data_norm=1e150, select="shrunk", random_state=0, m=19, inequality="exchangeable",
    ).fit(X[100:], y[100:])
    assert np.isfinite(model.privacy_.worst_case.epsilon)

@pytest.mark.parametrize(
    "copy, words",
    [
        (lambda rows: rows + 1e-9, "shifted or rescaled"),
        (lambda rows: np.round(rows, 1), "rounded"),
    ],
    ids=["+1e-9", "rounded"],
)
def test_public_rows_near_the_private_ones_are_refused_before_any_spend(copy, words):
    """Before: only the exact private rows were refused as the public data."""
    X, y = private_rows(200)
    budget = PrivacyFilter(10.0, 1e-3)
    rows = copy(np.column_stack([X, y]))
    with pytest.raises(ValueError, match=words):
        flip_model(public=(rows[:, :-1], rows[:, -1])).fit(X, y, accountant=budget)
    assert len(budget.ledger) == 0


# ------------------------------------------------------------------ settings=
def _settings(**kwargs):
    from sensampler.settings import ReleaseSettings

    values = dict(epsilon=0.5, delta=1e-5, mechanism="gaussian", inequality="exchangeable")
    values.update(kwargs)
    return ReleaseSettings(**values)


@pytest.mark.slow
def test_settings_supply_what_the_keywords_would():
    """settings= (issue 36) is the same release as its fields given as keywords:
    the same sampled sensitivity on the same seed, the same statement."""
    X, y = regression(100)
    keywords = ridge(epsilon=0.5, select="private").fit(X, y)
    record = PrivateEstimator(
        Ridge(alpha=1.0), settings=_settings(), public=regression(60, seed=1), m=M,
        random_state=0, select="private",
    ).fit(X, y)
    np.testing.assert_array_equal(
        record.sensitivity_.samples, keywords.sensitivity_.samples
    )
    assert (record.privacy_.epsilon, record.privacy_.delta) == (0.5, 1e-5)
    assert record.privacy_.gamma == keywords.privacy_.gamma


@pytest.mark.parametrize(
    ("settings", "keywords", "message"),
    [
        (_settings(), {"epsilon": 1.0}, "not both; got settings and epsilon=1.0"),
        (_settings(), {"inequality": "dkw"}, "not both; got settings and inequality"),
        (_settings(mechanism="discrete-laplace", delta=0.0), {}, "'gaussian' or 'laplace'"),
        (_settings(bounds="0:1"), {}, "data_norm="),
        (None, {"epsilon": None}, "epsilon is required"),
        (None, {"delta": None}, "delta is required"),
    ],
)
def test_settings_and_keywords_are_refused_before_sampling(
    settings, keywords, message, monkeypatch
):
    """settings= supplies the privacy fields: given with one of them too, or
    with what an estimator cannot take (a discrete mechanism, clipping bounds),
    it is refused before anything is sampled; without it epsilon and delta
    stay required."""

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled before validating")

    monkeypatch.setattr(sampling_module, "sample_sensitivity", no_sampling)
    params = dict(public=regression(60, seed=1), m=M, settings=settings)
    if settings is None:
        params.update(epsilon=1.0, delta=1e-5)
    params.update(keywords)
    with pytest.raises(ValueError, match=re.escape(message)):
        PrivateEstimator(Ridge(), **params).fit(*regression(50))
