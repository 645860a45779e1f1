# %% [markdown]
# # Composition experiments and privacy filters
# An adversary sees releases on two neighbouring databases; composition theorems bound
# how fast they become distinguishable. Filters stop an adaptive analysis before a
# budget is exceeded (Rogers et al. 2016).

# %%
# %matplotlib inline
import matplotlib
import numpy as np

matplotlib.rcParams["figure.dpi"] = 110

# %%
from sensampler.app.experiments import composition_experiment
from sensampler.app.plotting import plot_composition
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism

mechs = [
    LaplaceMechanism(1, 0.5),
    LaplaceMechanism(1, 1.0),
    GaussianMechanism(1, 0.5, 0.01, variant="classic"),
]
for k in (1, 1000):
    result = composition_experiment(mechs * k, secret=1, random_state=0)
    print(
        f"k={k}: means {result.view_0.mean():.3f} vs {result.view_1.mean():.3f}; "
        f"basic composition ({result.epsilon_basic}, {result.delta_basic})"
    )
plot_composition(result)

# %% [markdown]
# ## Advanced composition, correctly
# The filters text drops the factor ε of the first term; the theorem gives smaller
# numbers here.

# %%
from sensampler.accounting import advanced_composition, basic_composition

for k in (3, 350):
    print(k, basic_composition(0.5, 0.0, k=k), advanced_composition(0.5, 0.0, k, 0.1))

# %% [markdown]
# ## Runs before the budget is spent

# %%
from sensampler.accounting import ExceededPrivacyBudgetError, PrivacyFilter

budget = PrivacyFilter(epsilon=0.2, delta=2e-30)
mech = LaplaceMechanism(1.0, 0.01)
runs = 0
while True:
    try:
        budget.release(mech, 1.0, random_state=runs)
        runs += 1
    except ExceededPrivacyBudgetError as err:
        print(runs, "releases;", err)
        break

# %% [markdown]
# In a notebook the filter shows what its rule has used of the budget, what is left
# and its ledger.

# %%
budget  # noqa: B018 - a notebook shows the last expression

# %%
from sensampler.app.experiments import runs_before_budget
from sensampler.app.plotting import plot_runs_before_budget

plot_runs_before_budget(runs_before_budget(np.geomspace(0.002, 0.2, 20)))
