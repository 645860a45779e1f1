"""The private-bounds pre-pass refuses an epsilon too small for n, reading n only."""

import math
import re

import numpy as np
import pytest
from scipy import stats

from sensampler.accounting import PrivacyFilter
from sensampler.app.cli import main
from sensampler.app.release import release_statistic
from sensampler.bounds import (
    check_private_bounds_epsilon,
    private_bounds,
    private_bounds_grid,
    smallest_private_bounds_epsilon,
)


def _independent_smallest(n, du):
    # rank error of each quantile at eps0 / 2 (Dwork & Roth 2014, Thm. 3.11):
    # 2 du (ln R + ln(1 / beta)) / (eps0 / 2) <= n / 4, beta = 0.01, and
    # R = 2 (21 decades x 500 + 1) + 1 = 21003 candidates
    return 16 * du * (math.log(21003) + math.log(100)) / n


@pytest.mark.parametrize("n", [10, 1000, 123457])
def test_the_smallest_epsilon_is_the_utility_bound(n):
    assert smallest_private_bounds_epsilon(n) == pytest.approx(
        _independent_smallest(n, 1), rel=1e-12)
    assert smallest_private_bounds_epsilon(n, "add-remove") == pytest.approx(
        _independent_smallest(n, 2), rel=1e-12)


def test_a_pre_pass_that_cannot_work_is_refused_reading_n_only():
    # Before: at eps0 = 0.1, n = 1000, bounds beyond 1e7 in 47% of runs.
    message = ("epsilon=0.1 is too small for private bounds on n=1000 records "
               "(replace-one neighbours)")
    wild = np.random.default_rng(0).lognormal(10, 1, 1000)
    for data in (wild, np.full(1000, 7.0)):  # n alone decides
        with pytest.raises(ValueError, match=re.escape(message)):
            private_bounds(data, 0.1, random_state=0)
    with pytest.raises(ValueError, match=re.escape("Use epsilon >= 0.232922 (about 232.922/n)")):
        check_private_bounds_epsilon(0.1, 1000)
    assert check_private_bounds_epsilon(0.24, 1000) == 0.24
    with pytest.raises(ValueError, match=re.escape("add-remove")):
        check_private_bounds_epsilon(0.4, 1000, "add-remove")


@pytest.mark.slow
def test_at_the_smallest_epsilon_the_bounds_hold_the_data():
    # each quantile leaves the data with probability <= 0.01 at the threshold
    # (the utility bound): over 300 runs, both sides, p <= 0.02 per run; 20 or
    # more failures has probability below 1e-5 under that bound
    assert stats.binom.sf(19, 300, 0.02) < 1e-5
    data = np.random.default_rng(1).lognormal(10, 1, 1000)
    eps0 = smallest_private_bounds_epsilon(1000)
    failures = 0
    for seed in range(300):
        b = private_bounds(data, eps0, random_state=seed)
        failures += b.low > data.max() or b.high < data.min() or b.high > 1e7
    assert failures < 20


def test_the_release_refuses_before_anything_is_spent():
    data = np.random.default_rng(0).lognormal(10, 1, 1000)
    budget = PrivacyFilter(5.0, 0.0)
    with pytest.raises(ValueError, match=re.escape("eps0=0.1 is too small")):
        release_statistic(data, "mean", None, epsilon=0.9, bounds="private:0.1",
                          budget=budget)
    assert budget.count == 0


def test_the_command_line_exits_2(tmp_path, capsys):
    path = tmp_path / "incomes.csv"
    values = np.random.default_rng(0).lognormal(10, 1, 1000)
    path.write_text("income\n" + "\n".join(f"{v:.2f}" for v in values) + "\n")
    code = main(["release", "--data", str(path), "--column", "income",
                 "--epsilon", "0.9", "--bounds", "private:0.1"])
    err = capsys.readouterr().err
    assert code == 2 and "eps0=0.1 is too small" in err and "Traceback" not in err


# Audit finding: the docstring of the pre-pass refusal states the threshold the
# function computes (Dwork & Roth 2014, Thm. 3.11, at epsilon / 2 per quantile
# and a rank miss of at most n / 4: 16 du (ln R + ln 1/beta) / n).


def test_the_docstring_states_the_threshold_computed():
    """Failed: it said 8 du (...) / n (half the value computed) and its beta was a
    backspace character (a "\b" in a plain string)."""
    doc = smallest_private_bounds_epsilon.__doc__
    assert "\x08" not in doc
    assert r"16\Delta u(\ln R + \ln(1/\beta))/n" in doc
    n, beta = 1000, 0.01
    independent = 16 * (math.log(private_bounds_grid().size) + math.log(1 / beta)) / n
    assert math.isclose(smallest_private_bounds_epsilon(n), independent, rel_tol=1e-12)
