"""Every figure draws headless, with labelled axes, log scales where needed, and a PNG."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from sensampler.distributions import GaussianMixture  # noqa: E402

from sensampler import plotting, queries, sample_sensitivity  # noqa: E402
from sensampler.experiments import (  # noqa: E402
    composition_experiment,
    epsilon_vs_iterations,
    error_vs_epsilon,
    runs_before_budget,
    vectorized_vs_sequential,
)
from sensampler.mechanisms import LaplaceMechanism  # noqa: E402

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _check(fig, path, xlog=False, ylog=False):
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    assert (ax.get_xscale() == "log") == xlog and (ax.get_yscale() == "log") == ylog
    assert path.stat().st_size > 10_000
    matplotlib.pyplot.close(fig)


def test_error_vs_epsilon_figure(tmp_path):
    table = error_vs_epsilon(
        queries.mean,
        HEIGHTS,
        50,
        [0.1, 1.0],
        ["sampled", "mean"],
        repetitions=10,
        random_state=0,
    )
    fig = plotting.plot_error_vs_epsilon(table, tmp_path / "e.png", unit=" cm")
    assert len(fig.axes[0].get_legend().get_texts()) == 2
    _check(fig, tmp_path / "e.png", xlog=True, ylog=True)


def test_sensitivity_histogram_marks_the_order_statistic(tmp_path):
    est = sample_sensitivity(queries.mean, HEIGHTS, 50, gamma=0.05, random_state=0)
    fig = plotting.plot_sensitivity_histogram(est, tmp_path / "h.png")
    lines = [l.get_xdata()[0] for l in fig.axes[0].get_lines()]
    assert (
        pytest.approx(est.sensitivity) in lines
        and pytest.approx(float(est.mean)) in lines
    )
    _check(fig, tmp_path / "h.png")


def test_document_figures(tmp_path):
    figs = [
        (
            plotting.plot_composition(
                composition_experiment([LaplaceMechanism(1, 0.5)] * 50, random_state=0),
                tmp_path / "c.png",
            ),
            "c.png",
            True,
            False,
        ),
        (
            plotting.plot_runs_before_budget(
                runs_before_budget([0.01, 0.1]), tmp_path / "r.png"
            ),
            "r.png",
            True,
            True,
        ),
        (
            plotting.plot_vectorized_vs_sequential(
                vectorized_vs_sequential(np.arange(1, 20)), tmp_path / "v.png"
            ),
            "v.png",
            False,
            True,
        ),
        (
            plotting.plot_epsilon_vs_iterations(
                epsilon_vs_iterations([10, 50]), tmp_path / "i.png"
            ),
            "i.png",
            False,
            False,
        ),
    ]
    for fig, name, xlog, ylog in figs:
        _check(fig, tmp_path / name, xlog=xlog, ylog=ylog)
