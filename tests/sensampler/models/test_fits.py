"""The fits behind PrivateEstimator (sensampler.models._fits): shrinkage, sufficient
statistics, messages, and the logistic worst case checked by brute force."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler import queries, sample_sensitivity
from sensampler.audit import audit_estimate
from sensampler.distributions import Empirical
from sensampler.models._fits import (
    ShrunkLogisticRegression,
    ShrunkRidge,
    Statistics,
    logistic_worst_case,
    scrub,
)


def _classification(n, seed=0, d=3, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.5 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y.astype(float)


def test_shrunk_logistic_without_centre_is_sklearns_l2_logistic():
    X, y = _classification(200)
    ours = ShrunkLogisticRegression(C=0.3, fit_intercept=False).fit(X, y)
    ref = LogisticRegression(C=0.3, fit_intercept=False, tol=1e-12, max_iter=10_000)
    ref.fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_shrunk_logistic_multinomial_matches_sklearn():
    X, y = _classification(300, classes=3)
    ours = ShrunkLogisticRegression(C=0.5, fit_intercept=False).fit(X, y)
    ref = LogisticRegression(C=0.5, fit_intercept=False, tol=1e-12, max_iter=10_000)
    ref.fit(X, y)
    # scikit-learn 1.3's lbfgs stops about 2e-5 from the optimum (newer ones
    # within 1e-6): the tolerance is the reference's, not ours
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-4)


def test_shrinkage_pulls_toward_the_centre():
    X, y = _classification(200)
    centre = np.array([[0.0, 3.0, -3.0]])
    weak = ShrunkLogisticRegression(C=100.0, coef=centre, fit_intercept=False).fit(X, y)
    strong = ShrunkLogisticRegression(C=1e-4, coef=centre, fit_intercept=False).fit(X, y)
    assert np.abs(strong.coef_ - centre).max() < 1e-2
    assert np.abs(weak.coef_ - centre).max() > 1.0


def test_shrunk_logistic_refuses_labels_outside_classes():
    X, y = _classification(50)
    with pytest.raises(ValueError, match="labels outside classes"):
        ShrunkLogisticRegression(classes=np.array([0.0, 1.0])).fit(X, y + 1)


def test_shrunk_ridge_is_ridge_of_the_residual():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 4))
    y = X @ [1.0, 2.0, 0.0, -1.0] + 3.0 + rng.normal(size=100)
    centre = np.array([0.5, 0.5, 0.5, 0.5])
    ours = ShrunkRidge(alpha=7.0, coef=centre).fit(X, y)
    ref = Ridge(alpha=7.0).fit(X, y - X @ centre)
    np.testing.assert_allclose(ours.coef_, ref.coef_ + centre, rtol=1e-10)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-10)
    np.testing.assert_allclose(
        ShrunkRidge(alpha=7.0).fit(X, y).coef_, Ridge(alpha=7.0).fit(X, y).coef_
    )


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_statistics_solve_without_noise_is_ridge(fit_intercept):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 3))
    y = X @ [1.0, -2.0, 0.5] + 1.0 + rng.normal(size=80)
    stats = Statistics(3, fit_intercept, weight=0.1)
    vector = stats.record_map(np.column_stack([X, y])).sum(axis=0)
    coef, intercept = stats.solve(vector, 5.0)
    ref = Ridge(alpha=5.0, fit_intercept=fit_intercept).fit(X, y)
    np.testing.assert_allclose(coef, ref.coef_, rtol=1e-8)
    np.testing.assert_allclose(intercept, ref.intercept_, atol=1e-8)
    # the upper triangle of X^T X and X^T y, unpacked
    gram, xty = stats.unpack(vector)
    u = np.column_stack([X, np.ones(80)]) if fit_intercept else X
    np.testing.assert_allclose(gram, u.T @ u)
    np.testing.assert_allclose(xty, u.T @ y)


def test_scrub_drops_values_keeps_the_advice():
    message = (
        "Expected 2D array, got 1D array instead:\narray=[-1.15683011 0.3].\n"
        "Reshape your data"
    )
    assert scrub(message) == "Expected 2D array, got 1D array instead:"
    assert "7.25" not in scrub("Unknown label 7.25 in y")


# Coverage of the new fits' sampled sensitivities: fresh pairs from the same
# population exceed the released sensitivity at a rate of at most beta (the exact
# plan at gamma = 0.05 certifies beta + rho = gamma, rho = 0.0085), within six
# binomial standard errors at beta.
def _coverage(query, population, n, pairs, seed):
    estimate = sample_sensitivity(
        query, population, n, gamma=0.05, norm="l2", random_state=seed
    )
    audit = audit_estimate(estimate, pairs=pairs, random_state=seed + 1)
    beta = audit.beta
    se = np.sqrt(beta * (1 - beta) / pairs)
    assert audit.rate < beta + 6 * se, (audit.rate, beta)
    return estimate, audit


def test_statistics_sensitivity_covers_fresh_pairs():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    rows = np.column_stack([X, X @ [1.0, 0.0, -1.0, 2.0] + rng.normal(size=60)])
    stats = Statistics(4, True, weight=0.5)
    query = queries.additive(stats.record_map, name="statistics")
    estimate, audit = _coverage(query, Empirical(rows), 300, 20_000, 11)
    # the additive query's change is that of one record's map: check one pair by hand
    a, b = stats.record_map(rows[:2])
    assert np.linalg.norm(a - b) <= np.max(estimate.samples) + 1e-12
    assert audit.rate > 0  # the estimate is a quantile, not a bound on paper


@pytest.mark.slow
def test_shrunk_logistic_sensitivity_covers_fresh_pairs():
    X, y = _classification(80, seed=4)
    public = LogisticRegression(C=1.0).fit(X, y)
    model = ShrunkLogisticRegression(
        C=0.05, coef=public.coef_, intercept=public.intercept_, classes=public.classes_
    )
    query = queries.estimator(model, attribute="coef_")
    _coverage(query, Empirical(np.column_stack([X, y])), 150, 1500, 12)



# ------------------------------------------------- the bound, checked by brute force
def _theta(model):
    return np.concatenate([model.coef_.ravel(), model.intercept_.ravel()])


@pytest.mark.slow
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



def test_batched_logistic_fit_is_the_fit_database_by_database_from_any_start():
    """fit_batch (Newton's method on a whole stack, the sampler's fast path)
    must give each database's own fit to machine precision, whatever the
    start: the sampled sensitivity is the released fit's."""
    X, y = _classification(300, seed=3, d=4)
    public = LogisticRegression(C=1.0).fit(X[:50], y[:50])
    model = ShrunkLogisticRegression(
        C=0.2, coef=public.coef_, intercept=public.intercept_,
        classes=public.classes_, row_bound=2.0,
    )
    rows = np.column_stack([X, y])
    rng = np.random.default_rng(0)
    stack = np.stack([rows[rng.choice(300, 120)] for _ in range(6)])
    one_by_one = np.stack([
        np.concatenate([(f := model.fit(db[:, :-1], db[:, -1])).coef_[0], f.intercept_])
        for db in stack
    ])
    far = rng.normal(scale=3.0, size=one_by_one.shape)
    for start in (None, far, one_by_one):
        np.testing.assert_allclose(
            model.fit_batch(stack, start), one_by_one, rtol=0, atol=1e-9
        )


def test_logistic_without_penalised_intercept_is_sklearns_minimiser():
    """penalize_intercept=False is scikit-learn's L2 objective (intercept out of
    the penalty): the private fit of a LogisticRegression releases its exact
    minimiser, which scikit-learn's solver approximates."""
    X, y = _classification(200, seed=1)
    X[:, 1] += 2.0  # an intercept far from 0
    ours = ShrunkLogisticRegression(C=0.7, penalize_intercept=False).fit(X, y)
    ref = LogisticRegression(C=0.7, tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-6)


def _hessian(Z, theta, C, mask):
    """The binary objective's Hessian, written out row by row (independently)."""
    prob = 1.0 / (1.0 + np.exp(-Z @ theta))
    return C * sum(w * np.outer(z, z) for w, z in zip(prob * (1 - prob), Z)) + np.diag(mask)


def test_swap_inverse_is_the_inverse_hessian_of_the_neighbour():
    """A neighbour's fit starts from the first fit's inverse Hessian with the
    swapped row updated (two Sherman-Morrison updates, no Hessian computed):
    it must be the inverse of the neighbour's own Hessian at the same point."""
    from sensampler.models._fits import swap_inverse

    rng = np.random.default_rng(4)
    Z = np.concatenate([rng.normal(size=(3, 40, 4)), np.ones((3, 40, 1))], axis=2)
    theta, mask, C = rng.normal(scale=0.5, size=(3, 5)), np.ones(5), 0.7
    new = np.column_stack([rng.normal(size=(3, 4)), np.ones(3)])
    inverse = np.stack([np.linalg.inv(_hessian(z, t, C, mask)) for z, t in zip(Z, theta)])
    swapped = swap_inverse(inverse, theta, Z[:, 7], new, C)
    for b in range(3):
        neighbour = Z[b].copy()
        neighbour[7] = new[b]
        expected = np.linalg.inv(_hessian(neighbour, theta[b], C, mask))
        np.testing.assert_allclose(swapped[b], expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("penalize_intercept", [True, False])
def test_newton_binary_finds_the_minimiser_from_any_inverse(penalize_intercept):
    """newton_binary keeps a database's inverse Hessian while its steps shrink
    (chord and BFGS steps, gradients only): whatever matrix it starts from
    (the identity, a poor positive definite one, NaN: computed), it must stop
    at the minimiser, to machine precision, with the intercept penalised or
    not (scikit-learn's objective)."""
    X, y = _classification(300, seed=5, d=4)
    model = ShrunkLogisticRegression(
        C=0.5, classes=np.array([0.0, 1.0]), penalize_intercept=penalize_intercept
    )
    rng = np.random.default_rng(1)
    stack = np.stack([np.column_stack([X, y])[rng.choice(300, 150)] for _ in range(4)])
    one_by_one = np.stack([
        np.concatenate([(f := model.fit(db[:, :-1], db[:, -1])).coef_[0], f.intercept_])
        for db in stack
    ])
    A = rng.normal(size=(4, 5, 5))
    for inverse in (
        np.broadcast_to(np.eye(5), (4, 5, 5)),
        np.matmul(A, A.transpose(0, 2, 1)) + 0.1 * np.eye(5),
        np.full((4, 5, 5), np.nan),
    ):
        theta, last = model.solve_batch(*model.design(stack), None, inverse)
        np.testing.assert_allclose(theta, one_by_one, rtol=0, atol=1e-9)
        assert np.all(np.isfinite(last))
