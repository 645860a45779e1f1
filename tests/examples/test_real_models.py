"""The real-models example runs top to bottom and its table behaves."""

import os
import runpy

import numpy as np
import pytest

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "06_real_models.py")
pytestmark = pytest.mark.slow  # the example samples 2 x 1000 pairs of ridge fits


@pytest.fixture(scope="module")
def example():
    return runpy.run_path(EXAMPLE, run_name="example")


def test_table_has_one_row_per_epsilon_and_three_columns_per_population(example):
    table = example["table"]
    assert list(table.index) == example["EPSILONS"]
    assert table.shape == (len(example["EPSILONS"]), 3 * len(example["populations"]))
    assert np.all(np.isfinite(table.to_numpy()))


def test_error_decreases_with_epsilon_and_reaches_the_non_private_model(example):
    table, references = example["table"], example["references"]
    for name in example["populations"]:
        mse = table[f"test MSE ({name})"].to_numpy()
        sigma = table[f"sigma ({name})"].to_numpy()
        assert np.all(np.diff(sigma) < 0)
        # Each mean is over 200 releases; larger epsilon, smaller error on average.
        assert np.mean(np.diff(np.log(mse)) < 0) >= 0.8
        assert mse[0] > 10 * references["non-private"]
        assert 0.95 < mse[-1] / references["non-private"] < 1.05


def test_sensitivities_are_l2_estimates_of_the_training_size(example):
    n = len(example["train"])
    for estimate in example["estimates"].values():
        assert estimate.norm == "l2" and estimate.n == n
        assert estimate.gamma <= 0.05 and estimate.sensitivity.value > estimate.mean.value > 0


def test_figure_is_drawn_without_pyplot(example):
    from matplotlib.figure import Figure

    assert isinstance(example["fig"], Figure)
    assert len(example["fig"].axes) == 1
