"""The population models fitted on the public rows (sensampler.models._populations)."""

import re

import numpy as np
import pytest

from sensampler.distributions import Empirical
from tests.sensampler.models.estimators import (
    classification,
    logistic,
    regression,
    ridge,
)


@pytest.mark.parametrize("population", ["gaussian_mixture", "kde"])
@pytest.mark.slow
def test_smooth_populations(population):
    X, y = classification(100)
    model = logistic(population=population).fit(X, y)
    assert model.population_.sample(50, random_state=0).shape == (50, 4)
    labels = model.population_.sample(200, random_state=0)[:, -1]
    assert set(labels) == {0.0, 1.0}
    Xr, yr = regression(100)
    assert ridge(population=population).fit(Xr, yr).predict(Xr).shape == (100,)

@pytest.mark.slow
def test_population_object_is_used_as_given():
    X, y = regression(100)
    rows = np.column_stack(regression(60, seed=1))
    population = Empirical(rows)
    model = ridge(population=population).fit(X, y)
    assert model.population_ is population
    with pytest.raises(ValueError, match=re.escape("rows of 4 columns")):
        ridge(population=Empirical(rows[:, :2])).fit(X, y)

@pytest.mark.slow
def test_the_default_bootstrap_states_gamma_for_the_public_sample():
    from sensampler.distributions import PublicSample

    X, y = regression(100)
    model = ridge(inequality="exact", m=None, gamma=0.1).fit(X, y)  # 12 runs of 47
    assert isinstance(model.population_, PublicSample)
    assert model.population_.basis(model.sensitivity_.plan).startswith(
        "gamma for this public sample of 60 rows at confidence 0.893 (smoothed "
        "Bayesian bootstrap"
    )
    with pytest.raises(ValueError, match="the public sample has 10 row"):
        ridge(inequality="exact", m=None, public=regression(10, seed=1)).fit(X, y)
