# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Private scikit-learn estimators
#
# `sensampler.models.PrivateEstimator` wraps a scikit-learn estimator. Its `fit`
# fits a population model on public data, samples the L2 sensitivity of the
# fitted coefficients over neighbouring training sets of the private size
# (Rubinstein & Aldà, ICML 2017), fits the estimator on the private data and
# releases its coefficients through the Gaussian mechanism (analytic
# calibration). The fitted object then predicts and scores like the estimator.
#
# The guarantee is *random* differential privacy: (ε, δ)-DP with probability at
# least 1 − γ over neighbouring data drawn from the population. It rests on the
# private records coming from the population the public data describe.

# %%
import pandas as pd
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler.accounting import ExceededPrivacyBudgetError, PrivacyFilter
from sensampler.app.experiments import load_split
from sensampler.models import PrivateEstimator

SEED = 2017
split = load_split("load_breast_cancer", seed=SEED)
(X_pub, y_pub), (X, y), (X_test, y_test) = [
    (part[:, :-1], part[:, -1]) for part in (split.public, split.train, split.test)
]
print(f"public {len(X_pub)}, private training {len(X)}, test {len(X_test)}")

# %% [markdown]
# ## A private logistic regression at ε = 1
#
# `public=(X_pub, y_pub)` gives the public data; the default population is the
# bootstrap of its rows (`population="gaussian_mixture"` or `"kde"` fit a smooth
# model instead, one per class for a classifier).

# %%
model = PrivateEstimator(
    LogisticRegression(C=0.03, max_iter=1000),
    epsilon=1.0,
    delta=1e-5,
    public=(X_pub, y_pub),
    random_state=SEED,
)
model.fit(X, y)
print(model.privacy_)
print(model.sensitivity_.summary())
print(f"test accuracy {model.score(X_test, y_test):.3f}")

# %% [markdown]
# ## Choosing the penalty on public data, at no privacy cost
#
# A stronger penalty lowers the sensitivity (less noise) and raises the bias.
# `tune` searches a grid on the public data only: for each candidate it samples
# the sensitivity, fits on 70 % of the public rows, releases 20 times and scores
# on the other 30 %. The winner's sensitivity is then sampled afresh.
# `augment=True` also fits the released model on the public and private rows
# together, with the public rows fixed in every sampled database.

# %%
rows = []
for augment in (False, True):
    tuned = PrivateEstimator(
        LogisticRegression(max_iter=1000),
        epsilon=1.0,
        delta=1e-5,
        public=(X_pub, y_pub),
        tune={"C": [0.003, 0.01, 0.03, 0.1, 1.0]},
        augment=augment,
        random_state=SEED,
    ).fit(X, y)
    rows.append(
        {
            "augment": augment,
            "chosen C": tuned.best_params_["C"],
            "sensitivity": tuned.sensitivity_.sensitivity.value,
            "test accuracy": tuned.score(X_test, y_test),
        }
    )
search = pd.DataFrame(tuned.tuning_results_)
print(search.assign(C=[p["C"] for p in search.pop("params")]).round(4).to_string())
pd.DataFrame(rows).round(4)

# %% [markdown]
# ## Every fit on private data spends privacy
#
# A hyperparameter search on the *private* data (`GridSearchCV`) is one release
# per candidate and fold. Pass an accountant or a filter to `fit`: a filter
# refuses a fit over its budget before sampling anything, and spends nothing.

# %%
budget = PrivacyFilter(epsilon=2.5, delta=1e-4)
ridge = PrivateEstimator(
    Ridge(alpha=30.0, fit_intercept=False),
    epsilon=1.0,
    delta=1e-5,
    public=(X_pub, y_pub),
    random_state=SEED,
)
for attempt in range(3):
    try:
        ridge.fit(X, y, accountant=budget)
        print(f"fit {attempt + 1}: spent {budget.spent}")
    except ExceededPrivacyBudgetError as error:
        print(f"fit {attempt + 1} refused: {error}")

# %% [markdown]
# ## Against the peers
#
# `benchmarks/peers.py` (`pip install 'sensampler[peers]'`) measures the same
# tasks with diffprivlib's and OpenDP's estimators, whose guarantee is plain DP
# from bounds on paper; the documentation page "sensampler or a bound?" shows
# its table and says when each is the right tool.
