# %% [markdown]
# # Composition, Rényi DP and zCDP
# The Gaussian mechanism's Rényi divergence is αΔ²/(2σ²): the sensitivity is squared.
# Here it is checked numerically, composed, and converted back to (ε, δ).

# %%
import numpy as np

# %%
from scipy import integrate, stats

from sensampler.mechanisms import RenyiGaussianMechanism

# sigma^2 = sensitivity^2 * alpha / (2 * epsilon_bar) = 4 * 4 / (2 * 2) = 4
mech = RenyiGaussianMechanism(2.0, alpha=4.0, epsilon_bar=2.0)


def renyi(alpha, sigma, shift):
    p, q = stats.norm(0, sigma), stats.norm(shift, sigma)

    def f(x):
        return np.exp(alpha * p.logpdf(x) + (1 - alpha) * q.logpdf(x))

    return np.log(integrate.quad(f, -60, 60)[0]) / (alpha - 1)


for alpha in (2.0, 4.0, 8.0):
    print(
        alpha,
        round(mech.privacy.rdp(alpha), 6),
        round(renyi(alpha, mech.sigma, 2.0), 6),
    )

# %% [markdown]
# ## Composing 100 Gaussian releases
# Rényi DP adds up at each order; zCDP adds up ρ. Both convert back to (ε, δ): the
# classic conversions (Mironov Prop 3; Bun & Steinke Prop 1.3) and the improved one of
# Canonne, Kamath & Steinke (2020).

# %%
from sensampler.accounting import RenyiAccountant, ZCDPAccountant, basic_composition
from sensampler.mechanisms import GaussianMechanism

step = GaussianMechanism(1.0, 0.5, 1e-5, variant="classic")
renyi_acc, zcdp_acc = RenyiAccountant(), ZCDPAccountant()
renyi_acc.compose(step, count=100)
zcdp_acc.compose(step, count=100)
print("basic      ", basic_composition(0.5, 1e-5, k=100))
print(
    "Rényi      ",
    renyi_acc.epsilon_order(1e-5),
    "classic",
    renyi_acc.epsilon(1e-5, "classic"),
)
print(
    "zCDP rho   ",
    zcdp_acc.rho,
    "eps",
    zcdp_acc.epsilon(1e-5),
    "classic",
    zcdp_acc.epsilon(1e-5, "classic"),
)
