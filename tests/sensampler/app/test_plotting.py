"""Every figure is read back: labels, legend entries, drawn lines and points, notes."""

import math
import os
import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from sensampler import queries, sample_sensitivity  # noqa: E402
from sensampler.app import plotting  # noqa: E402
from sensampler.app.experiments import (  # noqa: E402
    SD_DEFINITION,
    composition_experiment,
    epsilon_vs_iterations,
    runs_before_budget,
    sensitivity_sweep,
    vectorized_vs_sequential,
)
from sensampler.audit import compare_populations  # noqa: E402
from sensampler.distributions import GaussianMixture, Normal  # noqa: E402
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism  # noqa: E402
from sensampler.table import OutputFileError  # noqa: E402

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _notes(fig):
    # notes wrap to the figure's width: compare with the line breaks as spaces
    return " ".join(" ".join(t.get_text() for t in fig.texts).split())


def _check(fig, path, xscale="linear", yscale="linear"):
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and (ax.get_title() or fig._suptitle)
    assert (ax.get_xscale(), ax.get_yscale()) == (xscale, yscale)
    assert path.stat().st_size > 10_000


@pytest.fixture(scope="module")
def estimate():
    return sample_sensitivity(queries.identity, HEIGHTS, 1, gamma=0.05, random_state=0)


@pytest.mark.slow
def test_figures_leave_pyplot_and_the_backend_alone(tmp_path, estimate):
    import matplotlib.pyplot as plt

    backend = matplotlib.get_backend()
    before = plt.get_fignums()
    fig = plotting.plot_sensitivity_histogram(estimate, tmp_path / "h.png")
    assert matplotlib.get_backend() == backend
    assert plt.get_fignums() == before  # not registered with pyplot
    assert fig.canvas is not None


@pytest.mark.slow
def test_error_vs_epsilon_figure_draws_error_bars_and_states_sd(tmp_path, estimate):
    eps = [0.1, 0.3, 1.0, 3.0]
    sens = {"sampled": estimate, "mean + 1 sd": estimate.typical(1), "x": 5.0}
    table = sensitivity_sweep(
        queries.identity,
        Normal(170, 1),
        20,
        eps,
        sens,
        statistic=np.mean,
        repetitions=10,
        random_state=0,
    )
    fig = plotting.plot_error_vs_epsilon(table, tmp_path / "e.png", unit=" cm")
    ax = fig.axes[0]
    assert _legend(ax) == [
        f"sampled = {estimate.sensitivity.value:.4g} cm: random DP, gamma=0.04982",
        f"mean + 1 sd = {estimate.typical(1).value:.4g} cm: no guarantee",
        "x = 5 cm: as given",
    ]
    lines = ax.get_lines()
    assert len(lines) == 3
    bars = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(bars) == 3
    for line, label in zip(lines, sens):
        rows = table.where(sensitivity=label, statistic="mean")
        np.testing.assert_array_equal(line.get_xdata(), rows.column("epsilon"))
        np.testing.assert_array_equal(line.get_ydata(), rows.column("value"))
        assert all(v > 0 for v in rows.column("value"))  # nothing lost on log axes
    for bar, label in zip(bars, sens):  # one bar per epsilon from q05 to q95
        q05 = table.where(sensitivity=label, statistic="q05").column("value")
        q95 = table.where(sensitivity=label, statistic="q95").column("value")
        ends = [(seg[0][1], seg[1][1]) for seg in bar.get_segments()]
        np.testing.assert_allclose(sorted(ends), sorted(zip(q05, q95)), rtol=1e-12)
    assert SD_DEFINITION in _notes(fig) and "no random-DP guarantee" in _notes(fig)
    assert "5% to 95%" in _notes(fig)
    _check(fig, tmp_path / "e.png", "log", "log")


@pytest.mark.slow
def test_error_vs_epsilon_figure_has_one_panel_per_part(tmp_path):
    def pair(db):
        return (np.mean(db), np.median(db))

    table = sensitivity_sweep(
        pair, HEIGHTS, 20, [0.5, 1.0], {"one": 1.0}, repetitions=5, random_state=0
    )
    fig = plotting.plot_error_vs_epsilon(table, tmp_path / "p.png")
    assert [ax.get_title() for ax in fig.axes] == ["part 0", "part 1"]
    assert all(len(ax.get_lines()) == 1 for ax in fig.axes)
    assert "SD" not in _notes(fig) and SD_DEFINITION not in _notes(fig)


@pytest.mark.slow
def test_sensitivity_histogram_shows_the_released_run(tmp_path, estimate):
    typical = [estimate.typical(1), estimate.typical(2)]
    fig = plotting.plot_sensitivity_histogram(
        estimate, tmp_path / "h.png", typical=typical
    )
    ax = fig.axes[0]
    bars = ax.containers[0]
    assert sum(b.get_height() for b in bars) == estimate.m  # no sample dropped
    marked = [line.get_xdata()[0] for line in ax.get_lines()]
    assert marked == pytest.approx(
        [estimate.sensitivity, float(np.mean(estimate.samples))]
        + [t.value for t in typical]
    )
    legend = _legend(ax)
    assert legend[0] == f"the m = {estimate.m} sampled sensitivities"
    assert legend[1].startswith(f"released: order statistic k = {estimate.k} of m")
    assert all("no guarantee" in text for text in legend[2:])
    assert SD_DEFINITION in _notes(fig)
    _check(fig, tmp_path / "h.png")


@pytest.mark.slow
def test_composition_figure_explains_itself_and_a_capped_delta(tmp_path):
    mechs = [LaplaceMechanism(1, 0.5), GaussianMechanism(1, 0.5, 0.01, variant="classic")] * 120
    fig = plotting.plot_composition(
        composition_experiment(mechs, random_state=0), tmp_path / "c.png"
    )
    ax = fig.axes[0]
    assert "adversary's estimate" in ax.get_ylabel()
    assert _legend(ax) == [
        "releases on D: running mean",
        "true answer on D = 1",
        "releases on D′: running mean",
        "true answer on D′ = 2",
    ]
    assert len(ax.get_lines()) == 4 and ax.get_lines()[0].get_xdata().size == 240
    # 120 deltas of 0.01 sum to 1.2, capped at 1
    assert "δ = 1" in _notes(fig) and "meaningless" in _notes(fig)
    _check(fig, tmp_path / "c.png", "log")
    few = plotting.plot_composition(
        composition_experiment([LaplaceMechanism(1, 0.5)] * 5, random_state=0)
    )
    assert "meaningless" not in _notes(few) and "δ = 0" in _notes(few)


@pytest.mark.slow
def test_runs_before_budget_shows_the_budget_and_zeros(tmp_path):
    table = runs_before_budget([0.002, 0.02, 0.2])
    fig = plotting.plot_runs_before_budget(table, tmp_path / "r.png")
    ax = fig.axes[0]
    assert "ε = 0.2, δ = 2e-30" in ax.get_title()
    assert _legend(ax) == ["basic", "advanced", "auto"]
    for line, rule in zip(ax.get_lines(), ["basic", "advanced", "auto"]):
        assert list(line.get_ydata()) == table.where(rule=rule).column("runs")
        assert line.get_marker() not in (None, "None", "")
    assert 0 in table.where(rule="advanced").column("runs")
    low, _ = ax.get_ylim()
    assert low < 0  # zeros are inside the axes, not dropped
    _check(fig, tmp_path / "r.png", "log", "symlog")


@pytest.mark.slow
def test_vectorized_vs_sequential_states_its_parameters(tmp_path):
    table = vectorized_vs_sequential(np.arange(1, 30), epsilon=0.1, delta=1e-5)
    fig = plotting.plot_vectorized_vs_sequential(table, tmp_path / "v.png")
    ax = fig.axes[0]
    assert "ε = 0.1" in ax.get_title() and "δ = 1e-05" in ax.get_title()
    assert "Δ = 1" in ax.get_xlabel()
    legend = _legend(ax)
    assert len(legend) == len(ax.get_lines()) == 5
    assert sum("equal to the vector release" in text for text in legend) == 2
    assert any("exact Gaussian composition (Dong, Roth & Su 2022" in t for t in legend)
    styles = {(line.get_linestyle(), line.get_linewidth()) for line in ax.get_lines()}
    assert len(styles) >= 3  # coinciding curves are drawn differently
    _check(fig, tmp_path / "v.png", "linear", "log")


@pytest.mark.slow
def test_epsilon_vs_iterations_keeps_every_curve_visible(tmp_path):
    table = epsilon_vs_iterations([10, 50, 100], sigma=200.0)
    fig = plotting.plot_epsilon_vs_iterations(table, tmp_path / "i.png")
    ax = fig.axes[0]
    methods = list(dict.fromkeys(table.column("method")))
    assert _legend(ax) == methods
    lines = ax.get_lines()
    assert len(lines) == len(methods)
    assert len({(line.get_linestyle(), line.get_marker()) for line in lines}) == len(
        lines
    )
    for line, method in zip(lines, methods):
        assert list(line.get_ydata()) == table.where(method=method).column("epsilon")
    assert "σ = 200 per step" in ax.get_title()
    _check(fig, tmp_path / "i.png")


@pytest.mark.slow
def test_figures_without_a_path_are_returned_unsaved(estimate):
    fig = plotting.plot_sensitivity_histogram(estimate)
    assert isinstance(fig, Figure) and math.isfinite(fig.get_figwidth())


@pytest.mark.slow
def test_errors_near_the_float64_limit_plot_without_warnings(tmp_path):
    # Failed before: epsilon=1e-300 (errors ~1e300) overflowed in the log axes.
    table = sensitivity_sweep(
        queries.identity,
        np.array([1.0]),
        None,
        [1e-300, 1.0],
        {"one": 1.0},
        repetitions=20,
        random_state=0,
    )
    with warnings.catch_warnings():
        # Numerical warnings only: old matplotlib releases warn about their own
        # use of pyparsing, which is not what this test is about.
        warnings.simplefilter("error", RuntimeWarning)
        plotting.plot_error_vs_epsilon(table, tmp_path / "huge.png")
    assert (tmp_path / "huge.png").stat().st_size > 0


@pytest.mark.slow
def test_plot_cross_coverage_draws_one_cell_per_audit(tmp_path):
    comparison = compare_populations(
        queries.mean,
        {"narrow": Normal(0.0, 1.0), "wide": Normal(0.0, 3.0)},
        50,
        0.05,
        pairs=1_000,
        random_state=0,
    )
    path = tmp_path / "cross.png"
    fig = plotting.plot_cross_coverage(comparison.table, path)
    assert path.exists() and path.stat().st_size > 0
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["narrow", "wide"]
    assert len(ax.texts) == 4


@pytest.mark.slow
def test_the_composition_note_rounds_its_epsilon_and_delta_up():
    # Before: basic composition's epsilon 0.123441 was printed 0.1234 (to nearest);
    # epsilon and delta are printed as every statement prints them
    fig = plotting.plot_composition(
        composition_experiment(
            [GaussianMechanism(1, 0.123441, 1.23451e-5, variant="classic")],
            random_state=0,
        )
    )
    assert "ε = 0.123441, δ = 1.24e-05." in _notes(fig), _notes(fig)


# ------------------------------------------- a figure is never written through a link
# Issue 37, files the release writes (the commands' side: cli/test_cli.py; the one
# writer's check: tests/sensampler/test_table.py).


@pytest.mark.slow
def test_a_figure_is_written_atomically_and_never_through_a_link(tmp_path):
    """savefig opened the path itself: it wrote through a link or into a FIFO."""
    table = runs_before_budget([0.02, 0.2])
    target = tmp_path / "theirs.png"
    target.write_bytes(b"theirs")
    os.symlink(target, tmp_path / "fig.png")
    with pytest.raises(OutputFileError, match="is a symbolic link"):
        plotting.plot_runs_before_budget(table, tmp_path / "fig.png")
    assert target.read_bytes() == b"theirs"
    plotting.plot_runs_before_budget(table, tmp_path / "new.png")
    assert (tmp_path / "new.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plotting.plot_runs_before_budget(table, tmp_path / "new.svg")
    assert b"<svg" in (tmp_path / "new.svg").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fig.png", "new.png", "new.svg", "theirs.png"
    ]
