"""The search of tune, on public data at no privacy cost (sensampler.models._tune)."""


import pytest
from sklearn.linear_model import Ridge

from sensampler.accounting import PrivacyFilter, default_filter
from tests.sensampler.models.estimators import (
    classification,
    logistic,
    regression,
    ridge,
)


@pytest.mark.slow
def test_tuning_spends_nothing_from_the_default_filter():
    # issue 28: tuning released every candidate TUNING_RELEASES times through the
    # default filter (41 entries, epsilon 41 for one private fit of epsilon 1).
    X, y = regression(100)
    grid = {"alpha": [1.0, 100.0]}
    with default_filter(PrivacyFilter(2.0, 1e-4, rule="basic")) as budget:
        ridge(Ridge(fit_intercept=False), tune=grid, epsilon=1.0).fit(X, y)
    assert budget.count == 1
    assert budget.spent.epsilon == 1.0 and budget.spent.delta == 1e-5

@pytest.mark.slow
def test_tune_picks_a_penalty_on_public_data_only():
    X, y = regression(100)
    grid = {"alpha": [1.0, 100.0, 10000.0]}
    # no intercept: a huge penalty leaves coefficients near 0 (an intercept would
    # stay the mean of y, whose sensitivity no penalty lowers)
    model = ridge(Ridge(fit_intercept=False), tune=grid, epsilon=0.5).fit(X, y)
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


@pytest.mark.slow
def test_tuning_samples_scores_the_model_the_release_fits(monkeypatch):
    """An L2 logistic regression's candidates are sampled and scored as the
    release fits them: the exact minimiser (ShrunkLogisticRegression), a stack of
    databases at a time. Before, tune sampled scikit-learn's solver database by
    database (notebook 07's search of five penalties: 195 s of CPU, 30 s after),
    a model the release never fits."""
    from sensampler.models import _tune
    from sensampler.models._fits import ShrunkLogisticRegression

    sampled = []
    real_sample = _tune.sample

    def spy(query, setting, seed):
        sampled.append(query)
        return real_sample(query, setting, seed)

    monkeypatch.setattr(_tune, "sample", spy)
    X, y = classification(120, seed=3)
    model = logistic(tune={"C": [0.1, 1.0]}).fit(X, y)
    assert len(sampled) == 2 and all(query.batched for query in sampled)
    assert all(
        isinstance(query.inner.estimator, ShrunkLogisticRegression) for query in sampled
    )
    assert model.best_params_["C"] in (0.1, 1.0)
