"""Write and execute the notebooks, one per topic of the source documents.

    python notebooks/build.py          # rewrite every notebook, executed, outputs kept

Each notebook is kept as a list of (kind, source) cells below, so that its text
and code live in reviewable Python; the .ipynb files are the executed result.
"""

from __future__ import annotations

import os
import sys

import nbformat
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))
SETUP = """\
import numpy as np
import matplotlib
matplotlib.rcParams["figure.dpi"] = 72
import matplotlib.pyplot as plt
from sensampler.distributions import GaussianMixture, Normal, MultivariateNormal
from sensampler import queries, sample_sensitivity, sampling_plan"""

NOTEBOOKS = {
    "01_approximate_dp_and_the_gaussian_mechanism": [
        (
            "md",
            "# Approximate DP, the Gaussian mechanism and vector sensitivities\n"
            "(ε, δ)-DP lets a mechanism fail with probability δ. This notebook compares "
            "Laplace and Gaussian noise, samples L1 and L2 sensitivities of a vector "
            "query, audits the catastrophe mechanism, and checks advanced composition "
            "against Dwork & Roth, Thm 3.20.",
        ),
        ("code", SETUP),
        (
            "md",
            "## Laplace vs Gaussian noise at ε = 1\nThe classic Gaussian calibration "
            "holds only for ε < 1; at ε = 1 sensampler refuses it and the analytic "
            "calibration (Balle & Wang 2018) is used instead.",
        ),
        (
            "code",
            """\
from sensampler.mechanisms import LaplaceMechanism, GaussianMechanism
laplace = LaplaceMechanism(1.0, epsilon=1.0)
try:
    GaussianMechanism(1.0, epsilon=1.0, delta=1e-5, variant="classic")
except ValueError as err:
    print(err)
gauss = GaussianMechanism(1.0, epsilon=1.0, delta=1e-5, variant="analytic")
print(f"Laplace scale {laplace.scale:.3f}, analytic Gaussian sigma {gauss.sigma:.3f}")
zeros = np.zeros(100_000)
plt.hist(laplace.release(zeros, random_state=0), bins=100, alpha=0.6, label="Laplace")
plt.hist(gauss.release(zeros, random_state=1), bins=100, alpha=0.6, label="Gaussian")
plt.xlabel("noise"); plt.ylabel("count"); plt.legend(); plt.show()""",
        ),
        (
            "md",
            "## L1 and L2 sensitivity of a vector query\nA histogram of 10 bins over "
            "the heights: replacing one record moves at most two bins by one, so the "
            "L1 sensitivity is at most 2 and the L2 sensitivity at most √2. Sampling "
            "finds exactly that.",
        ),
        (
            "code",
            """\
heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
hist = queries.histogram(10, range=(140, 200))
for norm in ("l1", "l2"):
    est = sample_sensitivity(hist, heights, 200, gamma=0.05, norm=norm, random_state=0)
    print(norm, est.sensitivity, "mean", round(float(est.mean), 3))""",
        ),
        (
            "md",
            "## The catastrophe mechanism\nWith probability δ it publishes the data. "
            "It is (ε, δ)-DP, yet an audit with S = {the data} sees the data appear with "
            "probability δ on one database and never on its neighbour: no ε can "
            "account for that without δ.",
        ),
        (
            "code",
            """\
from sensampler.mechanisms import CatastropheMechanism
cat = CatastropheMechanism(1.0, epsilon=1.0, delta=0.01)
data = np.array([170.0, 181.0, 165.0])
rng = np.random.default_rng(0)
leaks = sum(isinstance(cat.release(data.mean(), data=data, random_state=rng), np.ndarray)
            for _ in range(10_000))
print(f"published the data in {leaks} of 10000 releases; statement: {cat.privacy}")""",
        ),
        (
            "md",
            "## Advanced composition\nThe shortcut 2ε√(2k ln(1/δ′)) only holds when the "
            "target ε′ < 1 (Dwork & Roth, Cor. 3.21). For ε = 1, k = 500 it claims "
            "214.6; the theorem gives 966.4, worse than basic composition (500).",
        ),
        (
            "code",
            """\
from sensampler.accounting import (advanced_composition, basic_composition,
                                   tightest_composition)
print("shortcut ", 2 * 1.0 * np.sqrt(2 * 500 * np.log(1e5)))
print("Thm 3.20 ", advanced_composition(1.0, 0.0, 500, 1e-5))
print("basic    ", basic_composition(1.0, 0.0, k=500))
print("tightest ", tightest_composition(1.0, 0.0, 500, 1e-5))""",
        ),
    ],
    "02_composition_renyi_and_zcdp": [
        (
            "md",
            "# Composition, Rényi DP and zCDP\nThe Gaussian mechanism's Rényi "
            "divergence is αΔ²/(2σ²): the sensitivity is squared. Here it is checked "
            "numerically, composed, and converted back to (ε, δ).",
        ),
        ("code", SETUP),
        (
            "code",
            """\
from scipy import integrate, stats
from sensampler.mechanisms import RenyiGaussianMechanism
mech = RenyiGaussianMechanism(2.0, alpha=4.0, epsilon_bar=2.0)   # sigma^2 = 4*4/(2*2) = 4
def renyi(alpha, sigma, shift):
    p, q = stats.norm(0, sigma), stats.norm(shift, sigma)
    f = lambda x: np.exp(alpha * p.logpdf(x) + (1 - alpha) * q.logpdf(x))
    return np.log(integrate.quad(f, -60, 60)[0]) / (alpha - 1)
for alpha in (2.0, 4.0, 8.0):
    print(alpha, round(mech.privacy.rdp(alpha), 6), round(renyi(alpha, mech.sigma, 2.0), 6))""",
        ),
        (
            "md",
            "## Composing 100 Gaussian releases\nRényi DP adds up at each order; "
            "zCDP adds up ρ. Both convert back to (ε, δ): the classic conversions "
            "(Mironov Prop 3; Bun & Steinke Prop 1.3) and the improved one of "
            "Canonne, Kamath & Steinke (2020).",
        ),
        (
            "code",
            """\
from sensampler.mechanisms import GaussianMechanism
from sensampler.accounting import RenyiAccountant, ZCDPAccountant, basic_composition
step = GaussianMechanism(1.0, 0.5, 1e-5, variant="classic")
renyi_acc, zcdp_acc = RenyiAccountant(), ZCDPAccountant()
renyi_acc.compose(step, count=100); zcdp_acc.compose(step, count=100)
print("basic      ", basic_composition(0.5, 1e-5, k=100))
print("Rényi      ", renyi_acc.epsilon_order(1e-5), "classic", renyi_acc.epsilon(1e-5, "classic"))
print("zCDP rho   ", zcdp_acc.rho, "eps", zcdp_acc.epsilon(1e-5), "classic",
      zcdp_acc.epsilon(1e-5, "classic"))""",
        ),
    ],
    "03_laplace_with_a_sampled_sensitivity": [
        (
            "md",
            "# The Laplace mechanism with a sampled sensitivity\nThe mean height has "
            "no bounded sensitivity. Sampling neighbouring databases from a population "
            "model gives a sensitivity that holds with probability 1 − γ (random DP, "
            "Rubinstein & Aldà 2017).",
        ),
        ("code", SETUP),
        (
            "code",
            """\
heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
print(heights, "mean", heights.mean, "std", round(heights.var ** 0.5, 2))
print("exact E|X - X'| =", round(heights.expected_abs_difference(), 2), "cm")
xs = np.linspace(120, 220, 500)
from scipy import stats
for (mu, sd), w in zip([(178, 7), (162, 6.5)], heights.weights):
    plt.plot(xs, w * stats.norm.pdf(xs, mu, sd))
plt.hist(heights.sample(100_000, random_state=0), bins=100, density=True, alpha=0.3)
plt.xlabel("height (cm)"); plt.ylabel("density"); plt.show()""",
        ),
        (
            "md",
            "## The sensitivity sampler\nThe paper's DKW plan needs m = 1305 pairs for "
            "γ = 0.05; the exact binomial plan certifies the same γ with 113.",
        ),
        (
            "code",
            """\
for bound in ("dkw", "exact"):
    est = sample_sensitivity(queries.identity, heights, n=1, gamma=0.05, bound=bound,
                             random_state=2017)
    print(est, "\\n")""",
        ),
        (
            "md",
            "## Error of the private mean against ε\nEach of 500 people reports a "
            "height with Laplace noise; the error of the mean shrinks as ε grows and "
            "grows with the sensitivity used.",
        ),
        (
            "code",
            """\
from sensampler.experiments import error_vs_epsilon
from sensampler.plotting import plot_error_vs_epsilon
df, sd = heights.expected_abs_difference(), heights.var ** 0.5
table = error_vs_epsilon(queries.identity, heights, 500, np.geomspace(0.01, 20, 25),
                         [("E[Δf]", df), ("E[Δf] + σ", df + sd), ("E[Δf] + 2σ", df + 2 * sd),
                          "sampled"], data=Normal(170, 1), statistic=np.mean,
                         repetitions=50, random_state=0)
plot_error_vs_epsilon(table, unit=" cm"); plt.show()""",
        ),
    ],
    "04_composition_experiments_and_filters": [
        (
            "md",
            "# Composition experiments and privacy filters\nAn adversary sees releases "
            "on two neighbouring databases; composition theorems bound how fast they "
            "become distinguishable. Filters stop an adaptive analysis before a budget "
            "is exceeded (Rogers et al. 2016).",
        ),
        ("code", SETUP),
        (
            "code",
            """\
from sensampler.mechanisms import LaplaceMechanism, GaussianMechanism
from sensampler.experiments import composition_experiment
from sensampler.plotting import plot_composition
mechs = [LaplaceMechanism(1, 0.5), LaplaceMechanism(1, 1.0),
         GaussianMechanism(1, 0.5, 0.01, variant="classic")]
for k in (1, 1000):
    result = composition_experiment(mechs * k, secret=1, random_state=0)
    print(f"k={k}: means {result.view_0.mean():.3f} vs {result.view_1.mean():.3f}; "
          f"basic composition ({result.epsilon_basic}, {result.delta_basic})")
plot_composition(result); plt.show()""",
        ),
        (
            "md",
            "## Advanced composition, correctly\nThe filters text drops the factor ε "
            "of the first term; the theorem gives smaller numbers here.",
        ),
        (
            "code",
            """\
from sensampler.accounting import advanced_composition, basic_composition
for k in (3, 350):
    print(k, basic_composition(0.5, 0.0, k=k), advanced_composition(0.5, 0.0, k, 0.1))""",
        ),
        ("md", "## Runs before the budget is spent"),
        (
            "code",
            """\
from sensampler.accounting import PrivacyFilter, ExceededPrivacyBudgetError
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
from sensampler.experiments import runs_before_budget
from sensampler.plotting import plot_runs_before_budget
plot_runs_before_budget(runs_before_budget(np.geomspace(0.002, 0.2, 20))); plt.show()""",
        ),
    ],
    "05_variants_of_dp": [
        (
            "md",
            "# Variants of DP: vectorising, Rényi and zCDP\nUnder ε-DP, k sequential "
            "queries cost as much as one vector query; under (ε, δ)-DP the vector "
            "Gaussian release is far cheaper. Rényi DP and zCDP compose Gaussian "
            "steps much more tightly than advanced composition.",
        ),
        ("code", SETUP),
        (
            "code",
            """\
from sensampler.experiments import vectorized_vs_sequential, epsilon_vs_iterations
from sensampler.plotting import plot_vectorized_vs_sequential, plot_epsilon_vs_iterations
plot_vectorized_vs_sequential(vectorized_vs_sequential(np.arange(1, 101))); plt.show()
table = epsilon_vs_iterations(np.arange(10, 501, 10), sigma=200.0, delta=1e-5, alpha=60)
plot_epsilon_vs_iterations(table); plt.show()""",
        ),
        (
            "md",
            "## Choosing α\nThe Rényi accountant searches the orders itself and "
            "reports the best one.",
        ),
        (
            "code",
            """\
from sensampler.accounting import RenyiAccountant
from sensampler.mechanisms import ZCDPGaussianMechanism
for k in (10, 100, 1000):
    acc = RenyiAccountant()
    acc.compose(ZCDPGaussianMechanism(1.0, 1 / (2 * 200.0**2)), count=k)
    print(k, acc.epsilon_order(1e-5))""",
        ),
    ],
}


def build(name, cells, execute=True):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell(src)
        if kind == "md"
        else nbformat.v4.new_code_cell(src)
        for kind, src in cells
    ]
    if execute:
        NotebookClient(
            nb,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": HERE}},
        ).execute()
    path = os.path.join(HERE, f"{name}.ipynb")
    nbformat.write(nb, path)
    return path


if __name__ == "__main__":
    for name, cells in NOTEBOOKS.items():
        print(build(name, cells), file=sys.stderr)
