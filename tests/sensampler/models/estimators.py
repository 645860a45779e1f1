"""Data and estimators shared by the tests of :mod:`sensampler.models`."""

import numpy as np
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler.models import PrivateEstimator

M = 19  # the exchangeable plan's fewest pairs for gamma = 0.05: fast tests

# The flip (issue 37): with this seed, 134 private rows release the public model
# and 135 (an add/remove neighbour: the same rows and one more) a private fit.
FLIP = 134


def regression(n, seed=0, d=3):
    """Features N(0, I) and a linear target with unit noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ np.arange(1.0, d + 1) + rng.normal(size=n)
    return X, y


def classification(n, seed=0, d=3):
    """Features N(0, I) and integer labels 0/1 from the first feature."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def labelled(n, seed=0, d=3, classes=2):
    """Features N(0, I) and float labels of ``classes`` balanced classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.5 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y.astype(float)


def ridge(estimator=None, **kwargs):
    """A fast PrivateEstimator of a ridge regression (60 public rows)."""
    params = dict(
        epsilon=1.0,
        delta=1e-5,
        public=regression(60, seed=1),
        inequality="exchangeable",
        m=M,
        random_state=0,
    )
    params.update(kwargs)
    return PrivateEstimator(estimator or Ridge(alpha=1.0), **params)


def logistic(**kwargs):
    """A fast PrivateEstimator of a logistic regression (80 public rows)."""
    params = dict(
        epsilon=1.0,
        delta=1e-5,
        public=classification(80, seed=1),
        inequality="exchangeable",
        m=M,
        random_state=0,
    )
    params.update(kwargs)
    return PrivateEstimator(LogisticRegression(C=0.1), **params)


def shrinkable(estimator=None, public=None, **kwargs):
    """A fast PrivateEstimator of a logistic regression on :func:`labelled` data."""
    params = dict(
        epsilon=1.0,
        delta=1e-5,
        public=public or labelled(80, seed=1),
        inequality="exchangeable",
        m=M,
        random_state=0,
    )
    params.update(kwargs)
    return PrivateEstimator(estimator or LogisticRegression(C=0.1), **params)


def flip_data():
    """The 2 000 rows of the flip."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    return X, X @ [1.0, -2.0] + rng.normal(size=2000)


def flip_model(**kwargs):
    """The flip's ridge under add/remove neighbours (100 public rows)."""
    X, y = flip_data()
    params = dict(
        epsilon=1.0, delta=1e-5, public=(X[:100], y[:100]), m=M,
        inequality="exchangeable", random_state=0, neighbours="add-remove",
    )
    params.update(kwargs)
    return PrivateEstimator(Ridge(alpha=1.0), **params)


def private_rows(n):
    """The flip's first ``n`` private rows."""
    X, y = flip_data()
    return X[100 : 100 + n], y[100 : 100 + n]
