"""Figures of estimates and experiments (needs matplotlib: ``sensampler[plot]``).

Every function draws on a new :class:`matplotlib.figure.Figure` of its own,
never through pyplot: the user's backend and pyplot's current figure are left
alone, and nothing needs closing. The figure is saved when ``path`` is given
(PNG, or the format of its suffix), written as every file of the project is
(:func:`sensampler.table.atomic_write_bytes`: a device, a FIFO, a folder or a
symbolic link at ``path`` is refused), and returned (a notebook shows it when
it is the cell's last value).
"""

from __future__ import annotations

import importlib.util
import io
import math
import os
import textwrap

import numpy as np

from .._lib import printing
from .._lib.extras import require
from ..table import atomic_write_bytes, check_output_file
from .experiments.sweep import NO_GUARANTEE, SD_DEFINITION

__all__ = [
    "available",
    "SKIPPED",
    "plot_error_vs_epsilon",
    "plot_sensitivity_histogram",
    "plot_composition",
    "plot_runs_before_budget",
    "plot_vectorized_vs_sequential",
    "plot_epsilon_vs_iterations",
    "plot_cross_coverage",
]


#: What the command line prints when it skips figures for want of matplotlib.
SKIPPED = "Figures skipped: pip install 'sensampler[plot]' to draw them."


def available() -> bool:
    """Whether matplotlib (the ``plot`` extra) is installed, without importing it.

    Returns
    -------
    bool
        True when matplotlib can be imported.
    """
    return importlib.util.find_spec("matplotlib") is not None


def _figure(ncols: int = 1):
    """A new figure (not registered with pyplot) and its axes."""
    figure = require("matplotlib.figure", "plot", "a figure")
    fig = figure.Figure(figsize=(8 * ncols, 5.5))
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def _finish(fig, axes, path, *, legend_title=None, note=None, legend_loc="best"):
    """Grid, legends, a note under the axes, layout; save if ``path`` is given."""
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(title=legend_title, framealpha=0.9, fontsize=8, loc=legend_loc)
    bottom = 0.0
    if note:
        # ~17 characters per inch at font size 8: wrap so that no line is cut off
        width = int(17 * fig.get_figwidth())
        note = "\n".join(textwrap.fill(line, width) for line in note.split("\n"))
        lines = note.count("\n") + 1
        fig.text(0.01, 0.01, note, fontsize=8, va="bottom", ha="left")
        bottom = min(0.4, 0.035 * lines + 0.01)
    fig.tight_layout(rect=(0.0, bottom, 1.0, 1.0))
    if path is not None:
        _save(fig, path)
    return fig


def _save(fig, path) -> None:
    """Save ``fig`` to ``path`` (its format from the suffix, PNG without one) as
    every file is written (:func:`sensampler.table.atomic_write_bytes`): drawn
    in memory, then renamed onto ``path``, which must be absent or a regular
    file (a device, a FIFO, a folder or a symbolic link is refused)."""
    path = check_output_file(path)
    suffix = os.path.splitext(path)[1][1:].lower()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=120, format=suffix or "png")
    atomic_write_bytes(path, buffer.getvalue())


def _fmt(value: float) -> str:
    return "per coordinate" if math.isnan(value) else f"{value:.4g}"


# Log axes over errors near the float64 limit (epsilon = 1e-300) overflow in
# matplotlib's margins: harmless, the limits are clipped.
@np.errstate(over="ignore")
def plot_error_vs_epsilon(table, path=None, *, unit="", title=None):
    """Error of the private answer against epsilon (log-log), one line and 5%–95%
    error bars per sensitivity, one panel per part of the query's output.

    Reads the ``error == "l2"`` rows of :func:`~sensampler.app.experiments.sensitivity_sweep`:
    the line is the mean error over the repetitions, a bar spans its q05 and q95.
    Bands of several sensitivities would overlap into one mass, so each
    sensitivity draws its bars at about eight of the epsilons, staggered so that
    no two sensitivities' bars share an epsilon when the grid allows it.
    Sensitivities that are typical values are marked "no guarantee" in the legend,
    and the note under the axes states what "sd" means.

    Parameters
    ----------
    table : ResultTable
        What :func:`~sensampler.app.experiments.sensitivity_sweep` returns.
    path : str or os.PathLike, optional
        Where to save the figure (its format from the suffix).
    unit : str, default ""
        Unit of the answers, shown on the axis.
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (saved to ``path`` if given).
    """
    rows = table.where(error="l2")
    if not len(rows):
        raise ValueError("the table has no rows with error='l2' to plot.")
    parts = list(dict.fromkeys(rows.column("part")))
    fig, axes = _figure(len(parts))
    for ax, part in zip(axes, parts):
        labels = list(dict.fromkeys(rows.where(part=part).column("sensitivity")))
        for i, label in enumerate(labels):
            sub = rows.where(part=part, sensitivity=label)
            series = {
                name: np.array(sub.where(statistic=name).column("value"))
                for name in ("mean", "q05", "q95")
            }
            eps = np.array(sub.where(statistic="mean").column("epsilon"))
            order = np.argsort(eps)
            first = sub.rows[0]
            guarantee = (
                "no guarantee"
                if first["guarantee"].startswith("none")
                else first["guarantee"]
            )
            (line,) = ax.plot(
                eps[order],
                series["mean"][order],
                marker=".",
                label=f"{label} = {_fmt(first['sensitivity_value'])}{unit}: "
                f"{guarantee}",
            )
            step = max(len(eps) // 8, 1)
            at = order[(i * step // len(labels)) % step :: step]
            mean = series["mean"][at]
            ax.errorbar(
                eps[at],
                mean,
                yerr=[
                    np.maximum(mean - series["q05"][at], 0),
                    np.maximum(series["q95"][at] - mean, 0),
                ],
                fmt="none",
                ecolor=line.get_color(),
                elinewidth=1.2,
                alpha=0.8,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("privacy parameter ε")
        ax.set_ylabel(
            "error of the private answer "
            f"(L2 norm; absolute for a scalar){f' [{unit.strip()}]' if unit else ''}"
        )
        if part:
            ax.set_title(f"part {part}")
    first = rows.rows[0]
    delta = "" if math.isnan(first["delta"]) else f", δ = {first['delta']:g}"
    heading = title or (
        f"Error of the private answer vs ε ({first['mechanism']} mechanism{delta})"
    )
    if len(parts) == 1:
        axes[0].set_title(heading)
    else:
        fig.suptitle(heading)
    note = (
        f"Line: mean error over {first['repetitions']} repetitions; bars: 5% to 95% "
        "of the errors."
    )
    if NO_GUARANTEE in rows.column("guarantee"):
        note += (
            "\nmean and mean + K sd are typical values with no random-DP guarantee; "
            f"{SD_DEFINITION}."
        )
    return _finish(fig, axes, path, legend_title="sensitivity", note=note)


def plot_sensitivity_histogram(estimate, path=None, *, typical=(), unit="", title=None):
    """Histogram of the sampled sensitivities of one run, with the released order
    statistic, the mean and any typical values (``estimate.typical(sd)``) marked.

    Parameters
    ----------
    estimate : SensitivityEstimate
        A scalar estimate (any norm but ``"coordinate"``): the run whose
        sensitivity is released.
    typical : sequence of SensitivityValue, optional
        Offsets such as ``estimate.typical(2)`` to mark (no guarantee).
    unit : str, default ""
        Unit of the sensitivities, shown on the axis.
    path : str or os.PathLike, optional
        Where to save the figure (its format from the suffix).
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (saved to ``path`` if given).
    """
    samples = np.asarray(estimate.samples, dtype=float)
    if samples.ndim != 1:
        raise ValueError(
            "plot_sensitivity_histogram needs a scalar estimate, got samples of "
            f"shape {samples.shape}."
        )
    fig, (ax,) = _figure()
    counts, _, _ = ax.hist(
        samples,
        bins=min(60, max(10, samples.size // 10)),
        range=(samples.min(), samples.max()),
        color="0.7",
        label=f"the m = {estimate.m} sampled sensitivities",
    )
    ax.axvline(
        estimate.sensitivity.value,
        color="tab:red",
        linewidth=2,
        label=f"released: order statistic k = {estimate.k} of m = {estimate.m}, "
        f"{estimate.sensitivity.value:.4g}{unit} (random DP, γ = {estimate.gamma:.3g})",
    )
    ax.axvline(
        float(np.mean(samples)),
        color="tab:blue",
        linestyle="--",
        label=f"mean = {float(np.mean(samples)):.4g}{unit} (no guarantee)",
    )
    for value, style in zip(typical, (":", "-.", (0, (1, 3)), (0, (5, 5)))):
        ax.axvline(
            float(value.value),
            color="tab:purple",
            linestyle=style,
            label=f"{value.label} = {float(value.value):.4g}{unit} (no guarantee)",
        )
    ax.set_xlabel(
        f"sensitivity ‖f(D∪x) − f(D∪x′)‖ ({estimate.norm})"
        f"{f' [{unit.strip()}]' if unit else ''}"
    )
    ax.set_ylabel("number of neighbouring pairs")
    ax.set_ylim(top=1.6 * counts.max())  # room for the legend above the bars
    ax.set_title(
        title
        or f"Sampled sensitivity of '{estimate.query}', n = {estimate.n} "
        f"({estimate.inequality} plan, m = {estimate.m})"
    )
    note = SD_DEFINITION + "." if len(typical) else None
    return _finish(fig, [ax], path, note=note)


def plot_composition(result, path=None, *, title=None):
    """The adversary's two views: running means of the releases on D (b=0) and D'
    (b=1), which separate as mechanisms compose; says so when basic composition's
    delta reaches 1 (a guarantee that allows anything).

    Parameters
    ----------
    result : CompositionExperiment
        What :func:`~sensampler.app.experiments.composition_experiment` returns.
    path : str or os.PathLike, optional
        Where to save the figure (its format from the suffix).
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (saved to ``path`` if given).
    """
    fig, (ax,) = _figure()
    k = np.arange(1, result.view_0.size + 1)
    for view, secret, color, name in (
        (result.view_0, result.secret, "tab:blue", "D"),
        (result.view_1, result.secret + 1, "tab:orange", "D′"),
    ):
        ax.plot(
            k,
            np.cumsum(view) / k,
            color=color,
            label=f"releases on {name}: running mean",
        )
        ax.axhline(
            secret,
            color=color,
            linestyle=":",
            linewidth=1,
            label=f"true answer on {name} = {secret:g}",
        )
    ax.set_xscale("log")
    ax.set_xlabel("number of composed releases k")
    ax.set_ylabel(
        "mean of the first k releases\n(the adversary's estimate of the true answer)"
    )
    ax.set_title(
        title or f"Composition experiment: {k[-1]} releases on neighbouring databases"
    )
    note = (
        f"Basic composition (Dwork & Roth 2014, Thm. 3.16) of the {k[-1]} releases: "
        f"ε = {printing.epsilon(result.epsilon_basic)}, "
        f"δ = {printing.delta(result.delta_basic)}."
    )
    if result.delta_basic >= 1.0:
        note += (
            "\nThe deltas sum past 1 and are capped at δ = 1: a meaningless "
            "guarantee (it allows any outcome), as the separating views show."
        )
    return _finish(fig, [ax], path, note=note)


def plot_runs_before_budget(table, path=None, *, title=None):
    """Releases a privacy filter allows against the per-release epsilon, per rule.

    The y axis is linear below 1 and logarithmic above (``symlog``), so a rule
    that allows no release is drawn at 0 instead of vanishing.

    Parameters
    ----------
    table : ResultTable
        What the experiment of the same name returns.
    path : str or os.PathLike, optional
        Where to save the figure (its format from the suffix).
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (saved to ``path`` if given).
    """
    fig, (ax,) = _figure()
    styles = {
        "basic": dict(linewidth=4, alpha=0.5, marker="o"),
        "advanced": dict(marker="s", markersize=4),
        "auto": dict(color="black", linestyle=":", marker="x"),
    }
    for rule in dict.fromkeys(table.column("rule")):
        part = table.where(rule=rule)
        ax.plot(
            part.column("epsilon"),
            part.column("runs"),
            label=rule,
            **styles.get(rule, {"marker": "."}),
        )
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(-0.3, 2.0 * max(table.column("runs")) + 1.0)
    ax.set_xlabel("ε of each Laplace release (sensitivity 1)")
    ax.set_ylabel("releases before the budget is spent (0 = none)")
    first = table.rows[0]
    ax.set_title(
        title
        or "Privacy filters: releases allowed by the budget "
        f"ε = {first['epsilon_budget']:g}, δ = {first['delta_budget']:g}"
    )
    note = (
        "Filters of Rogers, Roth, Ullman & Vadhan (2016): basic, the ε's add up "
        "(Thm. 3.6); advanced (Thm. 5.1); auto follows the better rule.\n"
        "y axis linear below 1, logarithmic above: zeros are drawn."
    )
    return _finish(fig, [ax], path, legend_title="filter rule", note=note)


_VECTOR_STYLES = {
    ("pure", "none"): dict(color="tab:blue", linestyle="--", marker="o", markevery=9),
    ("pure", "basic"): dict(color="tab:blue", linewidth=5, alpha=0.35),
    ("approximate", "none"): dict(
        color="tab:green", linestyle="--", marker="s", markevery=9
    ),
    ("approximate", "exact Gaussian"): dict(color="tab:green", linewidth=5, alpha=0.35),
    ("approximate", "best of basic and advanced"): dict(color="tab:red"),
}
_VECTOR_LABELS = {
    ("pure", "none"): "ε-DP: one vector release (Laplace, Δ₁ = k)",
    ("pure", "basic"): "ε-DP: k releases, basic composition (Thm. 3.16)",
    ("approximate", "none"): "(ε, δ)-DP: one vector release (Gaussian, Δ₂ = √k)",
    ("approximate", "exact Gaussian"): "(ε, δ)-DP: k releases, exact Gaussian "
    "composition (Dong, Roth & Su 2022, Cor. 3.3)",
    ("approximate", "best of basic and advanced"): "(ε, δ)-DP: k releases as black "
    "boxes, best of basic and advanced (Thm. 3.20)",
}


def plot_vectorized_vs_sequential(table, path=None, *, title=None):
    """Noise variance per answer for k queries: k composed releases vs one vector
    release, with the privacy parameters and the theorems named.

    Parameters
    ----------
    table : ResultTable
        What the experiment of the same name returns.
    path : str or os.PathLike, optional
        Where to save the figure (its format from the suffix).
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (saved to ``path`` if given).
    """
    fig, (ax,) = _figure()
    curves = {}
    for key in dict.fromkeys(zip(table.column("privacy"), table.column("composition"))):
        part = table.where(privacy=key[0], composition=key[1])
        curves[key] = (np.array(part.column("k")), np.array(part.column("variance")))
    for key, (k, variance) in curves.items():
        label = _VECTOR_LABELS.get(key, f"{key[0]}: {key[1]}")
        vector = curves.get((key[0], "none"))
        if key[1] != "none" and vector is not None and np.allclose(variance, vector[1]):
            label += " — equal to the vector release"
        ax.plot(k, variance, label=label, **_VECTOR_STYLES.get(key, {}))
    ax.set_yscale("log")
    ax.set_xlabel("number of queries k (each of sensitivity Δ = 1)")
    ax.set_ylabel("noise variance of each answer")
    first = table.where(privacy="approximate").rows or table.rows
    eps, delta = first[0]["epsilon"], first[0]["delta"]
    ax.set_title(
        title
        or f"k queries at a total ε = {eps:g} (δ = {delta:g} for the Gaussian, 0 for "
        "Laplace)\ncomposed releases vs one vector-valued release"
    )
    note = (
        "Gaussians calibrated exactly (Balle & Wang 2018, Thm. 8). At k = 1, one and k "
        "releases cost the same under each model; composing Gaussians exactly loses nothing, "
        "black-box composition theorems do. Theorem numbers: Dwork & Roth 2014."
    )
    return _finish(fig, [ax], path, note=note, legend_loc="lower right")


_ITERATION_STYLES = [
    dict(linestyle="-", marker="o"),
    dict(linestyle="--", marker="s"),
    dict(linestyle="-.", marker="^"),
    dict(linestyle=":", marker="D", markersize=9, markerfacecolor="none"),
    dict(linestyle=(0, (5, 1, 1, 1, 1, 1)), marker="v"),
    dict(linestyle=(0, (1, 1)), marker="x", markersize=8),
]


def plot_epsilon_vs_iterations(table, path=None, *, title=None):
    """Total epsilon of k Gaussian steps under each accounting method; every
    method has its own line style and marker, so curves that nearly coincide
    stay visible.

    Parameters
    ----------
    table : ResultTable
        What the experiment of the same name returns.
    path : str or os.PathLike, optional
        Where to save the figure (its format from the suffix).
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (saved to ``path`` if given).
    """
    fig, (ax,) = _figure()
    methods = list(dict.fromkeys(table.column("method")))
    for i, method in enumerate(methods):
        part = table.where(method=method)
        ks = part.column("iterations")
        ax.plot(
            ks,
            part.column("epsilon"),
            label=method,
            markevery=max(1, len(ks) // 10),
            **_ITERATION_STYLES[i % len(_ITERATION_STYLES)],
        )
    first = table.rows[0]
    ax.set_xlabel("iterations k of the Gaussian mechanism")
    ax.set_ylabel(f"total ε at δ = {first['delta']:g}")
    ax.set_title(
        title
        or "Composition of Gaussian steps under the variants of DP\n"
        f"(noise σ = {first['sigma']:g} per step, sensitivity 1, total δ = "
        f"{first['delta']:g})"
    )
    return _finish(fig, [ax], path, legend_title="accounting")


def plot_cross_coverage(table, path=None, *, title=None):
    """Heat map of cross-coverage: the rate at which fresh pairs from population j
    (columns) exceed the estimate sampled under population i (rows), in units of
    that estimate's gamma, each cell annotated with the rate and its interval.

    Reads the table of :func:`sensampler.audit.compare_populations`
    (``comparison.table``). Colours run from 0 to 2 gamma and saturate above:
    a cell above 1 gamma is covered worse than the estimate states.

    Parameters
    ----------
    table : ResultTable
        The ``table`` of :func:`sensampler.audit.compare_populations`.
    path : str or os.PathLike, optional
        Where to save the figure (its format from the suffix).
    title : str, optional
        Title of the figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (saved to ``path`` if given).
    """
    rows = list(dict.fromkeys(table.column("estimated_under")))
    cols = list(dict.fromkeys(table.column("audited_under")))
    if not rows:
        raise ValueError("the table has no rows to plot.")
    ratio = np.full((len(rows), len(cols)), np.nan)
    fig, (ax,) = _figure()
    for r in table:
        i, j = rows.index(r["estimated_under"]), cols.index(r["audited_under"])
        ratio[i, j] = r["rate"] / r["gamma"]
        ax.text(
            j,
            i,
            f"{100 * r['rate']:.3g}%\n[{100 * r['lower']:.3g}, {100 * r['upper']:.3g}]",
            ha="center",
            va="center",
            fontsize=8,
        )
    image = ax.imshow(ratio, cmap="RdYlGn_r", vmin=0.0, vmax=2.0)
    fig.colorbar(image, ax=ax, label="exceedance rate / γ of the estimate")
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("fresh pairs drawn from")
    ax.set_ylabel("sensitivity sampled under")
    first = table.rows[0]
    ax.set_title(
        title
        or f"Cross-coverage of sampled sensitivities (γ = {first['gamma']:.3g}, "
        f"{first['pairs']} pairs per cell)"
    )
    note = (
        f"Each cell: the exceedance rate and its {100 * first['confidence']:g}% "
        "Clopper-Pearson interval."
    )
    _finish(fig, [ax], None, note=note)
    ax.grid(False)  # no grid over the cells
    if path is not None:
        _save(fig, path)
    return fig
