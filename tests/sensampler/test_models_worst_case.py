"""PrivateEstimator's worst-case part, neighbours, public-model statement, threads."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge
from threadpoolctl import threadpool_info

from sensampler.audit import audit_mechanism
from sensampler.mechanisms.gaussian import gaussian_epsilon
from sensampler.models import PrivateEstimator
from sensampler.models._fits import ShrunkLogisticRegression, logistic_worst_case

M = 19  # the exchangeable plan's fewest pairs for gamma = 0.05: fast tests


def _classification(n, seed=0, d=3, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.5 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y.astype(float)


def _regression(n, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X @ np.arange(1.0, d + 1) + rng.normal(size=n)


def _model(estimator=None, public=None, **kwargs):
    params = dict(
        epsilon=1.0,
        delta=1e-5,
        public=public or _classification(80, seed=1),
        bound="exchangeable",
        m=M,
        random_state=0,
    )
    params.update(kwargs)
    return PrivateEstimator(estimator or LogisticRegression(C=0.1), **params)


def _theta(model):
    return np.concatenate([model.coef_.ravel(), model.intercept_.ravel()])


# ------------------------------------------------- the bound, checked by brute force
@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("neighbours", ["replace-one", "add-remove"])
def test_logistic_worst_case_bounds_every_pair_tried(classes, fit_intercept, neighbours):
    # Chaudhuri, Monteleoni & Sarwate (2011), Cor. 8: 2CL (replace-one), CL
    # (add/remove), L = sqrt(R^2 + 1) (x 2^0.5 multinomial). Brute force over
    # random and extreme records (norm R, either label, any direction).
    rng = np.random.default_rng(11)
    d, n, R, C = 3, 40, 2.0, 0.5
    bound = logistic_worst_case(C, R, d, fit_intercept, classes, neighbours, "l2")
    worst = 0.0
    for trial in range(60):
        X, y = _classification(n - 1, seed=trial, d=d, classes=classes)
        centre = rng.normal(scale=3.0, size=(1 if classes == 2 else classes, d))
        fit = ShrunkLogisticRegression(
            C=C, coef=centre, fit_intercept=fit_intercept, classes=np.arange(classes),
            row_bound=R,
        )
        records = []
        for _ in range(2):
            x = rng.normal(size=d)
            x *= R * rng.choice([1.0, 3.0]) / np.linalg.norm(x)  # beyond R: clipped
            records.append((x, float(rng.integers(classes))))
        (x1, y1), (x2, y2) = records
        one = _theta(fit.fit(np.vstack([X, x1]), np.append(y, y1)))
        if neighbours == "replace-one":
            two = _theta(fit.fit(np.vstack([X, x2]), np.append(y, y2)))
        else:
            two = _theta(fit.fit(X, y))
        worst = max(worst, float(np.linalg.norm(one - two)))
    assert worst <= bound
    assert worst > 0.2 * bound  # the brute force reaches the scale of the bound


def test_logistic_worst_case_is_reached_by_opposite_records():
    # no intercept, a centre theta_0 = (1000 / R) e2: x = R u labelled 0 and
    # x' = R w labelled 1, u and w at angles +-0.1 rad from e1 toward +-e2, are
    # both confidently misclassified (scores about +-100), so their gradients
    # are R u and -R w, and the minimiser moves by about 2 C R cos(0.1)
    d, n, R, C, phi = 3, 30, 2.0, 0.01, 0.1
    e1, e2 = np.eye(3)[0], np.eye(3)[1]
    u, w = np.cos(phi) * e1 + np.sin(phi) * e2, np.cos(phi) * e1 - np.sin(phi) * e2
    X, y = _classification(n - 1, seed=3, d=d)
    fit = ShrunkLogisticRegression(
        C=C, coef=(1000.0 / R) * e2[None, :], fit_intercept=False, row_bound=R,
        classes=np.array([0.0, 1.0]),
    )
    one = _theta(fit.fit(np.vstack([X, R * u]), np.append(y, 0.0)))
    two = _theta(fit.fit(np.vstack([X, R * w]), np.append(y, 1.0)))
    bound = logistic_worst_case(C, R, d, False, 2, "replace-one", "l2")
    assert bound == pytest.approx(2 * C * R)
    assert 0.95 * bound < np.linalg.norm(one - two) <= bound


def test_logistic_worst_case_in_l1_is_sqrt_p_times_l2():
    l2 = logistic_worst_case(0.3, 2.0, 4, True, 3, "replace-one", "l2")
    l1 = logistic_worst_case(0.3, 2.0, 4, True, 3, "replace-one", "l1")
    assert l1 == pytest.approx(l2 * np.sqrt(3 * 5))
    assert l2 == pytest.approx(2 * 0.3 * np.sqrt(2.0) * np.sqrt(5.0))


# ---------------------------------------------------------------- PrivateEstimator
def test_public_rows_mostly_zero_keep_the_largest_norm_as_the_row_bound():
    # the median of the public norms is 0 here: clipping to it would leave no
    # bound, so the largest public norm is taken, and the worst case stays
    X_pub, y_pub = _classification(80, seed=1)
    X_pub[:50] = 0.0
    X, y = _classification(200)
    model = _model(public=(X_pub, y_pub), select="shrunk").fit(X, y)
    bounds = model.sensitivity_.bounds
    assert bounds.high == float(np.max(np.linalg.norm(X_pub, axis=1)))
    assert "largest" in bounds.note and model.privacy_.worst_case is not None


def test_shrunk_logistic_release_states_a_worst_case_part():
    X, y = _classification(200)
    model = _model(select="shrunk").fit(X, y)
    estimate, statement = model.sensitivity_, model.privacy_
    # bounds="public": the public rows' median norm (ROW_BOUND_QUANTILE)
    R = float(np.median(np.linalg.norm(model.public[0], axis=1)))
    C = float(model.selected_["candidate"].rsplit("C=", 1)[1])
    assert estimate.bounds.high == R
    assert estimate.worst_case == logistic_worst_case(C, R, 3, True, 2, "replace-one", "l2")
    assert np.all(estimate.samples <= estimate.worst_case)
    worst = statement.worst_case
    assert worst is not None and worst.run is None and worst.source == "global"
    # the Gaussian noise per unit of the worst-case sensitivity gives that epsilon
    unit = float(model.mechanism_.sigma) / estimate.worst_case
    assert worst.epsilon == pytest.approx(gaussian_epsilon(unit, 1e-5), rel=1e-9)
    assert worst.epsilon <= 10.0 + 1e-9  # the default cap: 10 epsilon
    assert "for every pair of neighbours" in model.selected_["worst case"]


def test_the_cap_raises_the_noise_and_a_larger_cap_lowers_it():
    X, y = _classification(200)
    capped = _model(select="shrunk", epsilon=0.3).fit(X, y)
    loose = _model(select="shrunk", epsilon=0.3, worst_case_epsilon=1e6).fit(X, y)
    assert capped.selected_["candidate"] == loose.selected_["candidate"]
    assert capped.privacy_.worst_case.epsilon <= 3.0 + 1e-9
    assert float(capped.mechanism_.sigma) >= float(loose.mechanism_.sigma)
    assert capped.privacy_.epsilon == loose.privacy_.epsilon == 0.3


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(select="private"), "intercept unpenalised"),
        (dict(select="shrunk", bounds=None), "bounds=None"),
    ],
)
def test_no_worst_case_part_is_said_in_words(kwargs, words):
    model = _model(**kwargs).fit(*_classification(200))
    assert model.privacy_.worst_case is None
    assert model.sensitivity_.worst_case is None
    assert model.selected_["worst case"].startswith("no worst-case part")
    assert words in model.selected_["worst case"]


def test_ridge_has_no_worst_case_part():
    model = _model(Ridge(), public=_regression(60, seed=1), select="shrunk")
    model.fit(*_regression(200))
    assert model.privacy_.worst_case is None
    assert "not Lipschitz" in model.selected_["worst case"]


def test_given_bounds_clip_the_rows():
    X, y = _classification(200)
    model = _model(select="shrunk", bounds=0.5).fit(X, y)
    assert model.sensitivity_.bounds.high == 0.5
    assert model.sensitivity_.bounds.source == "given"


@pytest.mark.parametrize("bounds", [np.inf, -1.0, 0.0, "all"])
def test_bad_bounds_are_refused_before_any_work(bounds, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("sampled")

    monkeypatch.setattr(PrivateEstimator, "_sample", refuse)
    with pytest.raises(ValueError, match="bounds"):
        _model(bounds=bounds).fit(*_classification(100))


def test_add_remove_neighbours_reach_the_estimate_and_the_statement():
    X, y = _classification(200)
    model = _model(select="shrunk", neighbours="add-remove").fit(X, y)
    assert model.sensitivity_.run.neighbours == "add-remove"
    assert model.privacy_.neighbours == "add-remove"
    assert model.privacy_.worst_case.neighbours == "add-remove"
    C = float(model.selected_["candidate"].rsplit("C=", 1)[1])
    R = model.sensitivity_.bounds.high
    assert model.sensitivity_.worst_case == pytest.approx(C * np.sqrt(R**2 + 1))


def test_unknown_neighbours_are_refused():
    with pytest.raises(ValueError, match="neighbours"):
        _model(neighbours="swap").fit(*_classification(100))


def test_public_model_release_states_zero(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("fitted on the private data")

    monkeypatch.setattr(PrivateEstimator, "_fit_private", refuse)
    model = _model(epsilon=0.001).fit(*_classification(100))
    assert model.selected_["candidate"] == "public model"
    assert model.privacy_.epsilon == 0.0 and model.privacy_.delta == 0.0
    assert model.privacy_.run is None and model.privacy_.guaranteed
    assert model.privacy_.rho == 0.0  # composes as ZCDpEvent(0) in dp_accounting
    assert model.privacy_.to_dp_event() is not None
    assert "0-DP" in model.selected_["worst case"]


# ------------------------------------------------------------------------ threads
class _Recording(Ridge):
    """Ridge recording the largest BLAS/OpenMP thread count during each fit."""

    seen: list = []

    def fit(self, X, y, sample_weight=None):
        _Recording.seen.append(max(i["num_threads"] for i in threadpool_info()))
        return super().fit(X, y, sample_weight)


def test_fit_runs_blas_on_one_thread():
    # the fit on the public data and the choice ran with every BLAS thread
    _Recording.seen = []
    _model(_Recording(), public=_regression(60, seed=1)).fit(*_regression(100))
    assert _Recording.seen and set(_Recording.seen) == {1}


def test_a_public_model_released_is_the_same_for_any_private_data():
    # the (0, 0) statement: two private data sets of the same size, even of
    # another law, give the very same released model and choice
    one = _model(epsilon=0.001).fit(*_classification(100, seed=5))
    X, y = _classification(100, seed=6)
    two = _model(epsilon=0.001).fit(3.0 * X, 1.0 - y)
    assert one.selected_["candidate"] == two.selected_["candidate"] == "public model"
    assert one.selected_ == two.selected_
    np.testing.assert_array_equal(one.estimator_.coef_, two.estimator_.coef_)
    np.testing.assert_array_equal(one.estimator_.intercept_, two.estimator_.intercept_)


def test_an_outlier_moves_the_release_within_its_worst_case_statement():
    # issue 27: a private record far outside the population (features 100 times
    # the public norm), replaced by a typical one. Clipped, it moves the
    # released coefficients by at most the worst-case sensitivity, and an
    # empirical audit of the mechanism on the two exact fits does not refute
    # the worst-case epsilon.
    X, y = _classification(200)
    model = _model(select="shrunk", epsilon=0.5).fit(X, y)
    C = float(model.selected_["candidate"].rsplit("C=", 1)[1])
    public = LogisticRegression(C=0.1).fit(*model.public)
    fit = ShrunkLogisticRegression(
        C=C, coef=public.coef_, intercept=public.intercept_, classes=public.classes_,
        row_bound=model.sensitivity_.bounds.high,
    )
    outlier = np.vstack([X[:-1], 100.0 * model.sensitivity_.bounds.high * np.ones(3)])
    a = _theta(fit.fit(outlier, np.append(y[:-1], 0.0)))
    b = _theta(fit.fit(X, y))
    assert np.linalg.norm(a - b) <= model.sensitivity_.worst_case
    result = audit_mechanism(model.mechanism_, a, b, releases=20_000, random_state=1)
    assert result.epsilon_lower <= model.privacy_.worst_case.epsilon
    # the audit's power: unclipped, the outlier's fit refutes the worst case
    unclipped = _theta(fit.set_params(row_bound=None).fit(outlier, np.append(y[:-1], 0.0)))
    result = audit_mechanism(
        model.mechanism_, unclipped, b, releases=20_000, random_state=1
    )
    assert result.epsilon_lower > model.privacy_.worst_case.epsilon
