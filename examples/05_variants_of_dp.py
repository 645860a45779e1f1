# %% [markdown]
# # Variants of DP: vectorising, Rényi and zCDP
# Under ε-DP, k sequential queries cost as much as one vector query. Under (ε, δ)-DP,
# k Gaussian releases composed exactly (Dong, Roth & Su 2022) cost as much as the
# vector Gaussian release; composed as black boxes (basic or advanced composition)
# they cost more. Rényi DP and zCDP compose Gaussian steps much more tightly than
# advanced composition.

# %%
# %matplotlib inline
import matplotlib
import numpy as np

matplotlib.rcParams["figure.dpi"] = 110

# %%
from sensampler.app.experiments import epsilon_vs_iterations, vectorized_vs_sequential
from sensampler.app.plotting import (
    plot_epsilon_vs_iterations,
    plot_vectorized_vs_sequential,
)

plot_vectorized_vs_sequential(vectorized_vs_sequential(np.arange(1, 101)))

# %%
table = epsilon_vs_iterations(np.arange(10, 501, 10), sigma=200.0, delta=1e-5, alpha=60)
plot_epsilon_vs_iterations(table)

# %% [markdown]
# ## Choosing α
# The Rényi accountant searches the orders itself and reports the best one.

# %%
from sensampler.accounting import RenyiAccountant
from sensampler.mechanisms import ZCDPGaussianMechanism

for k in (10, 100, 1000):
    acc = RenyiAccountant()
    acc.compose(ZCDPGaussianMechanism(1.0, 1 / (2 * 200.0**2)), count=k)
    print(k, acc.epsilon_order(1e-5))
