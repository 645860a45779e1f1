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
