"""Figures of estimates and experiments (needs matplotlib: ``sensampler[plot]``).

Every function draws on a new figure, saves it as PNG when ``path`` is given
(headless, with the Agg backend), and returns the figure.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "plot_error_vs_epsilon",
    "plot_sensitivity_histogram",
    "plot_composition",
    "plot_runs_before_budget",
    "plot_vectorized_vs_sequential",
    "plot_epsilon_vs_iterations",
]


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "figures need matplotlib: pip install 'sensampler[plot]'."
        ) from exc
    if matplotlib.get_backend().lower() not in (
        "agg",
        "module://matplotlib_inline.backend_inline",
    ):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _new_axes():
    return _pyplot().subplots(figsize=(8, 5))


def _finish(fig, ax, path, legend_title=None):
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(title=legend_title, frameon=False)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def plot_error_vs_epsilon(table, path=None, *, unit="", title=None):
    """Mean absolute error against epsilon (log-log), one line per sensitivity."""
    fig, ax = _new_axes()
    for label in dict.fromkeys(table.column("sensitivity")):
        part = table.where(sensitivity=label)
        eps = np.array(part.where(statistic="mean").column("epsilon"))
        order = np.argsort(eps)
        mean = np.array(part.where(statistic="mean").column("value"))[order]
        value = part.rows[0]["sensitivity_value"]
        ax.plot(eps[order], mean, marker=".", label=f"{label} = {value:.4g}{unit}")
    mech = table.rows[0]["mechanism"] if len(table) else ""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("privacy parameter ε")
    ax.set_ylabel(f"absolute error{f' ({unit.strip()})' if unit.strip() else ''}")
    reps = table.rows[0]["repetitions"] if len(table) else ""
    ax.set_title(
        title
        or f"Error of the private answer vs ε ({mech} mechanism, mean of "
        f"{reps} repetitions)"
    )
    return _finish(fig, ax, path, legend_title="sensitivity")


def plot_sensitivity_histogram(estimate, path=None, *, unit="", title=None):
    """Histogram of the sampled sensitivities, with the released order statistic
    and the mean marked."""
    fig, ax = _new_axes()
    samples = np.asarray(estimate.samples, dtype=float)
    ax.hist(
        samples,
        bins=min(60, max(10, samples.size // 10)),
        color="0.7",
        label=f"{estimate.m} sampled sensitivities",
    )
    ax.axvline(
        float(estimate.mean),
        color="tab:blue",
        linestyle="--",
        label=f"mean = {float(estimate.mean):.4g}{unit} (no guarantee)",
    )
    ax.axvline(
        float(estimate.sensitivity),
        color="tab:red",
        label=f"released: order statistic k={estimate.k} of m={estimate.m} = "
        f"{float(estimate.sensitivity):.4g}{unit} (γ = {estimate.gamma:.3g})",
    )
    ax.set_xlabel(
        f"sensitivity ‖f(D∪x) − f(D∪x′)‖ ({estimate.norm}){unit and f' [{unit.strip()}]'}"
    )
    ax.set_ylabel("number of neighbouring pairs")
    ax.set_title(
        title
        or f"Sampled sensitivity of '{estimate.query}', n = {estimate.n} "
        f"({estimate.bound} plan)"
    )
    return _finish(fig, ax, path)


def plot_composition(result, path=None, *, title=None):
    """The adversary's two views: running means of the releases on D (b=0) and D'
    (b=1), which separate as mechanisms compose."""
    fig, ax = _new_axes()
    k = np.arange(1, result.view_0.size + 1)
    ax.plot(
        k,
        np.cumsum(result.view_0) / k,
        label=f"database D (secret = {result.secret:g})",
    )
    ax.plot(
        k,
        np.cumsum(result.view_1) / k,
        label=f"neighbour D′ (secret = {result.secret + 1:g})",
    )
    ax.axhline(result.secret, color="0.5", linewidth=0.8)
    ax.axhline(result.secret + 1, color="0.5", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("number of composed releases k")
    ax.set_ylabel("running mean of the adversary's view")
    ax.set_title(
        title
        or f"Composition experiment: after {k[-1]} releases, basic "
        f"composition gives ε = {result.epsilon_basic:.4g}"
    )
    return _finish(fig, ax, path)


def plot_runs_before_budget(table, path=None, *, title=None):
    """Releases a privacy filter allows against the per-release epsilon, per rule."""
    fig, ax = _new_axes()
    styles = {
        "basic": dict(linewidth=4, alpha=0.5),
        "advanced": dict(marker="."),
        "auto": dict(color="black", linestyle=":", marker="x"),
    }
    for rule in dict.fromkeys(table.column("rule")):
        part = table.where(rule=rule)
        ax.plot(
            part.column("epsilon"),
            part.column("runs"),
            label=rule,
            **styles.get(rule, {}),
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ε of each Laplace release")
    ax.set_ylabel("releases before the budget is spent")
    budget_note = "auto follows the better rule"
    ax.set_title(
        title or f"Privacy filters: releases allowed by a fixed budget ({budget_note})"
    )
    return _finish(fig, ax, path, legend_title="filter rule")


def plot_vectorized_vs_sequential(table, path=None, *, title=None):
    """Noise variance for k queries: k composed releases vs one vector release."""
    fig, ax = _new_axes()
    styles = {
        "sequential": dict(linestyle="-", linewidth=4, alpha=0.5),
        "vectorised": dict(linestyle="--"),
    }
    colors = {"pure": "tab:blue", "approximate": "tab:green"}
    for privacy in ("pure", "approximate"):
        for release in ("sequential", "vectorised"):
            part = table.where(privacy=privacy, release=release)
            ax.plot(
                part.column("k"),
                part.column("variance"),
                color=colors[privacy],
                label=f"{'ε-DP, Laplace' if privacy == 'pure' else '(ε, δ)-DP, Gaussian'}"
                f" — {release}",
                **styles[release],
            )
    ax.set_yscale("log")
    ax.set_xlabel("number of queries k")
    ax.set_ylabel("noise variance per answer")
    ax.set_title(
        title
        or "k queries: composed releases vs one vector-valued release\n"
        "(under ε-DP the two coincide)"
    )
    return _finish(fig, ax, path)


def plot_epsilon_vs_iterations(table, path=None, *, title=None):
    """Total epsilon of k Gaussian steps under each accounting method."""
    fig, ax = _new_axes()
    for method in dict.fromkeys(table.column("method")):
        part = table.where(method=method)
        ax.plot(part.column("iterations"), part.column("epsilon"), label=method)
    delta = table.rows[0]["delta"] if len(table) else ""
    ax.set_xlabel("iterations k of the Gaussian mechanism")
    ax.set_ylabel(f"total ε at δ = {delta:g}")
    ax.set_title(title or "Composition of Gaussian steps under the variants of DP")
    return _finish(fig, ax, path, legend_title="accounting")
