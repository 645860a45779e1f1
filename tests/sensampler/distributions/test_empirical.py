import re

import numpy as np
import pytest

from sensampler.distributions import Empirical
from tests.conftest import assert_moments


def test_bootstrap_rows_come_from_the_table(seed):
    table = np.arange(12.0).reshape(6, 2)
    d = Empirical(table)
    draws = d.sample_batch(4, 50, seed)
    assert draws.shape == (4, 50, 2)
    rows = {tuple(r) for r in table}
    assert all(tuple(r) in rows for r in draws.reshape(-1, 2))
    assert_moments(d, seed)


def test_weighted_bootstrap(seed):
    d = Empirical([1.0, 2.0, 3.0], weights=[0.0, 0.25, 0.75])
    assert d.mean == pytest.approx(2.75)
    x = d.sample(10_000, seed)
    assert set(np.unique(x)) <= {2.0, 3.0}
    assert_moments(d, seed)


def test_accepts_dataframe_like_objects():
    class Table:  # anything with __array__, as a pandas DataFrame has
        def __array__(self, dtype=None, copy=None):
            return np.array([[1.0, 2.0], [3.0, 4.0]])

    assert Empirical(Table()).record_shape == (2,)


@pytest.mark.parametrize(
    "args, message",
    [
        (([],), "data must hold at least one record"),
        (([1.0, np.nan],), "data must be finite"),
        (([1.0, 2.0], [0.5, 0.6]), "weights must sum to 1"),
        (([1.0, 2.0], [1.0]), "weights must have 2 entries"),
    ],
)
def test_bad_parameters(args, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Empirical(*args)


def test_moments_without_spurious_overflow():
    d = Empirical([1.7e308, 1.7e308])
    assert d.mean == 1.7e308 and d.var == 0.0  # the sum 3.4e308 overflows
    assert Empirical([1.7e308, -1.7e308]).var == np.inf  # 1.7e308**2


def test_moments_of_labels_are_refused():
    with pytest.raises(TypeError, match="Empirical data are not numbers"):
        _ = Empirical(np.array(["a", "b"])).mean


def test_records_of_no_field_have_empty_moments():
    d = Empirical([()])  # shape (1, 0)
    assert d.mean.shape == (0,) and d.var.shape == (0,)
