# %% [markdown]
# # The Laplace mechanism with a sampled sensitivity
# The mean height has no bounded sensitivity. Sampling neighbouring databases from a
# population model gives a sensitivity that holds with probability 1 − γ (random DP,
# Rubinstein & Aldà 2017).

# %%
# %matplotlib inline
import matplotlib
import numpy as np
from matplotlib.figure import Figure

from sensampler import queries, sample_sensitivity
from sensampler.distributions import GaussianMixture, Normal

matplotlib.rcParams["figure.dpi"] = 110

# %%
heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
print(heights, "mean", heights.mean, "std", round(heights.var**0.5, 2))
print("exact E|X - X'| =", round(heights.expected_abs_difference(), 2), "cm")
from scipy import stats


def population_figure(population, components, size=100_000):
    """A figure: a histogram of draws, the mixture's density over it and the
    weighted component densities that sum to it."""
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    draws = population.sample(size, random_state=0)
    ax.hist(draws, bins=100, density=True, alpha=0.3, label=f"{size:,} draws")
    xs = np.linspace(120, 220, 500)
    parts = [w * stats.norm.pdf(xs, mu, sd) for (mu, sd), w in zip(components, population.weights)]
    ax.plot(xs, sum(parts), color="black", label="mixture density")
    for ((mu, sd), w), part in zip(zip(components, population.weights), parts):
        ax.plot(xs, part, linestyle="--", label=f"{w:g} × N({mu}, {sd}²)")
    ax.set_xlabel("height (cm)")
    ax.set_ylabel("density")
    ax.legend(fontsize="small")
    return fig


population_figure(heights, [(178, 7), (162, 6.5)])

# %% [markdown]
# ## The sensitivity sampler
# The paper's DKW plan needs m = 1305 pairs for γ = 0.05; the exact binomial plan
# certifies the same γ with 113.

# %%
for inequality in ("dkw", "exact"):
    est = sample_sensitivity(
        queries.identity, heights, n=1, gamma=0.05, inequality=inequality, random_state=2017
    )
    print(est, "\n")

# %% [markdown]
# ## Error of the private mean against ε
# Each of 500 people reports a height with Laplace noise; the error of the mean
# shrinks as ε grows and grows with the sensitivity used. Only the sampled
# sensitivity (the order statistic of the exact plan) is random DP; the mean and the
# offsets mean + K sd (sd = standard deviation of the sampled sensitivities, ddof=0)
# are typical values with no guarantee, shown for comparison.

# %%
from sensampler.app.experiments import sensitivity_sweep
from sensampler.app.plotting import plot_error_vs_epsilon

est = sample_sensitivity(queries.identity, heights, 1, gamma=0.05, random_state=0)
table = sensitivity_sweep(
    queries.identity,
    Normal(170, 1),
    500,
    np.geomspace(0.01, 20, 25),
    {
        "sampled": est,
        **{t.label: t for t in (est.typical(k) for k in (0, 1, 2))},
    },
    statistic=np.mean,
    repetitions=50,
    random_state=0,
)
plot_error_vs_epsilon(table, unit=" cm")

# %% [markdown]
# ## In a notebook: estimates, statements and budgets show themselves
# An estimate shows its sampled sensitivities with G₍ₖ₎ and their mean marked, its
# sampling plan (m, k, γ, ρ, β) what γ certifies, a mechanism its noise and its
# privacy statement, a card in plain words (what is protected, what γ means, who is
# left unprotected), a filter what its rule has used of the budget and what is left.

# %%
from sensampler.accounting import PrivacyFilter
from sensampler.mechanisms import LaplaceMechanism

est_mean = sample_sensitivity(queries.mean, heights, 500, gamma=0.05, random_state=0)
est_mean  # noqa: B018 - a notebook shows the last expression

# %%
est_mean.plan  # noqa: B018

# %%
laplace = LaplaceMechanism(est_mean, epsilon=0.5)
laplace  # noqa: B018

# %%
budget = PrivacyFilter(1.0)
budget.compose(laplace)
budget  # noqa: B018

# %% [markdown]
# ## Planning a release from a target error
# Before any private data are read: the ε whose expected error (the noise only,
# |release − exact answer|) is 0.1 cm for the mean of 500 heights, from the population
# model alone. The plan spends nothing.

# %%
from sensampler.app.planning import plan_release

plan_release("mean", heights, 500, target_error=0.1, random_state=0)
