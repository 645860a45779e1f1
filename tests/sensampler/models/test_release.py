"""The releases: output perturbation, sufficient statistics, the noise and the
released sensitivity's pairs (sensampler.models._release)."""


import numpy as np
import pytest
from sklearn.linear_model import Ridge

from sensampler._lib.validation import as_seed_sequence
from sensampler.accounting import PrivacyFilter
from sensampler.distributions import MultivariateNormal
from sensampler.models import RELEASE_PAIRS, PrivateEstimator
from sensampler.plan import sampling_plan
from tests.sensampler.models.estimators import (
    M,
    classification,
    logistic,
    regression,
    ridge,
)


def test_privacy_and_sensitivity_describe_the_release():
    X, y = regression(100)
    model = ridge(epsilon=0.5, select="private").fit(X, y)
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

@pytest.mark.slow
def test_released_attributes_differ_from_the_private_fit_by_the_noise():
    X, y = regression(100)
    model = ridge().fit(X, y)
    exact = Ridge(alpha=1.0).fit(X, y)
    assert not np.allclose(model.estimator_.coef_, exact.coef_)
    # non-released attributes come from the public fit, not the private one
    public = Ridge(alpha=1.0).fit(*regression(60, seed=1))
    assert model.estimator_.n_features_in_ == public.n_features_in_

@pytest.mark.slow
def test_the_noise_cannot_be_redrawn_from_the_models_own_seed():
    # before: noise came from random_state's fourth child, so anyone holding the
    # model (get_params, a pickle) could draw it again and subtract it
    X, y = regression(100)
    # select="private": the public model, if chosen, would release no noise at all
    one, two = ridge(select="private").fit(X, y), ridge(select="private").fit(X, y)
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

@pytest.mark.slow
def test_augment_fits_on_public_and_private_rows():
    X, y = regression(100)
    public = regression(60, seed=1)
    alone = ridge(public=public).fit(X, y)
    both = ridge(public=public, augment=True).fit(X, y)
    # one private record among 160 rows moves the fit less than among 100
    assert both.sensitivity_.sensitivity.value < alone.sensitivity_.sensitivity.value
    assert both.sensitivity_.n == 100  # the private rows are what is sampled
    assert np.isfinite(both.score(X, y))

@pytest.mark.slow
def test_non_released_attributes_come_from_the_public_fit_only():
    # LinearRegression keeps the singular values of the training X: released from
    # a private fit, they would publish the private data's geometry.
    from sklearn.linear_model import LinearRegression

    X, y = regression(100)
    public = regression(60, seed=1)
    model = ridge(LinearRegression(), public=public).fit(X, y)
    np.testing.assert_array_equal(
        model.estimator_.singular_, LinearRegression().fit(*public).singular_
    )
    assert not np.allclose(
        model.estimator_.singular_, LinearRegression().fit(X, y).singular_
    )

def test_sufficient_statistics_release():
    X, y = regression(400)
    model = ridge(fit_method="statistics", epsilon=5.0, select="private").fit(X, y)
    assert model.selected_["candidate"].startswith("sufficient statistics, penalty")
    assert "toward" not in model.selected_["candidate"]
    assert model.sensitivity_.query == "sufficient statistics X^T X, X^T y"
    assert model.score(*regression(500, seed=9)) > 0.8
    with pytest.raises(ValueError, match="fit_method='statistics' releases"):
        logistic(fit_method="statistics").fit(*classification(100))


# ---------------------------------------------------------- the released pairs
# PrivateEstimator samples its released sensitivity with RELEASE_PAIRS pairs
# when m is not given; the comparisons among candidates keep the fewest pairs.
# Before: every sampling run, the released one included, took the fewest pairs
# that certify gamma (113 at 0.05, the largest of them released); the order
# statistic of 1000 pairs at the same gamma (k = 971) is 0.65 times it on the
# shrunk fits of diabetes and breast cancer (benchmarks/model_value.py).
BETA = np.array([1.0, -2.0, 0.5])
# rows (x1, x2, x3, y) with y = x . BETA + N(0, 1)
COV = np.block([[np.eye(3), BETA[:, None]], [BETA[None, :], np.array([[BETA @ BETA + 1.0]])]])
ROWS = MultivariateNormal(np.zeros(4), COV)
N = 100


def _pairs_data(n, seed):
    rows = ROWS.sample(n, random_state=seed)
    return rows[:, :-1], rows[:, -1]


def _pairs_model(**kwargs):
    params = dict(epsilon=1.0, delta=1e-5, public=_pairs_data(60, 1), population=ROWS,
                  random_state=0)
    params.update(kwargs)
    return PrivateEstimator(Ridge(alpha=1.0), **params)


@pytest.mark.slow
def test_the_released_sensitivity_takes_release_pairs():
    X, y = _pairs_data(N, 2)
    release = sampling_plan(m=RELEASE_PAIRS, gamma=0.05)
    for select in ("auto", "private", "shrunk"):
        model = _pairs_model(select=select).fit(X, y)
        if model.privacy_.epsilon == 0.0:  # the public model: nothing released
            continue
        assert (model.sensitivity_.m, model.sensitivity_.k) == (1000, release.k) == (
            1000, 971)
        assert model.privacy_.gamma == pytest.approx(release.gamma, rel=1e-12)
        assert model.privacy_.gamma <= 0.05
    statistics = _pairs_model(fit_method="statistics", select="private").fit(X, y)
    assert statistics.sensitivity_.m == 1000


@pytest.mark.slow
def test_a_given_m_is_used_for_every_run():
    X, y = _pairs_data(N, 2)
    model = _pairs_model(m=113, select="private").fit(X, y)
    assert (model.sensitivity_.m, model.sensitivity_.k) == (113, 113)
    # a plan already above RELEASE_PAIRS (dkw: 1305 pairs) is kept as it is
    dkw = _pairs_model(inequality="dkw", select="private").fit(X, y)
    assert dkw.sensitivity_.m == sampling_plan(gamma=0.05, inequality="dkw").m == 1305


@pytest.mark.slow
def test_the_budget_is_charged_the_gamma_the_release_states():
    X, y = _pairs_data(N, 2)
    budget = PrivacyFilter(1.5, 1e-4)
    model = _pairs_model(select="private").fit(X, y, accountant=budget)
    assert budget.spent.gamma == pytest.approx(model.privacy_.gamma, rel=1e-12)


@pytest.mark.slow
def test_the_released_sensitivity_keeps_gamma_on_fresh_pairs():
    # The private ridge fit released at its sampled sensitivity: on 4 000 fresh
    # replace-one pairs drawn from the population its coefficients move more
    # than the sensitivity on at most gamma of them (6 standard errors).
    X, y = _pairs_data(N, 2)
    model = _pairs_model(select="private").fit(X, y)
    fewest = _pairs_model(select="private", m=113).fit(X, y)
    value = float(model.sensitivity_.sensitivity.value)
    assert value < float(fewest.sensitivity_.sensitivity.value)
    rng = np.random.default_rng(5)
    moves = []
    for _ in range(4000):
        rows = ROWS.sample(N + 1, random_state=rng)
        a, b = rows[:-1], np.concatenate([rows[:-2], rows[-1:]])
        fits = [Ridge(alpha=1.0).fit(r[:, :-1], r[:, -1]) for r in (a, b)]
        flat = [np.concatenate([f.coef_, [f.intercept_]]) for f in fits]
        moves.append(np.linalg.norm(flat[0] - flat[1]))
    moves = np.asarray(moves)
    share = np.mean(moves > value)
    gamma = model.privacy_.gamma
    assert share <= gamma + 6 * np.sqrt(gamma * (1 - gamma) / moves.size)
    # the test can fail: 0.8 times the sensitivity is exceeded far more often
    assert np.mean(moves > 0.8 * value) > share
