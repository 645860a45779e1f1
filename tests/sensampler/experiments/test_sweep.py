import math
import re

import numpy as np
import pytest
from sensampler.distributions import GaussianMixture, Normal

from sensampler import queries, sample_sensitivity
from sensampler.experiments import STATISTICS, ResultTable, error_vs_epsilon

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def test_table_shape_and_columns():
    table = error_vs_epsilon(
        queries.mean,
        HEIGHTS,
        100,
        [0.1, 1.0],
        ["sampled", "mean", 0.5],
        repetitions=20,
        random_state=0,
    )
    assert isinstance(table, ResultTable)
    assert len(table) == 3 * 2 * len(STATISTICS)
    assert table.columns == [
        "sensitivity",
        "sensitivity_value",
        "mechanism",
        "epsilon",
        "delta",
        "repetitions",
        "statistic",
        "value",
    ]
    assert set(table.column("sensitivity")) == {
        "sampled (gamma=0.0498)",
        "E[Δf]",
        "0.5",
    }


def test_laplace_error_matches_theory(seed):
    # mean |Lap(b)| = b with b = Delta / eps: a fixed database isolates the noise.
    table = error_vs_epsilon(
        queries.mean,
        HEIGHTS,
        10,
        [0.5, 2.0],
        [1.5],
        repetitions=4000,
        data=np.full(10, 170.0),
        random_state=seed,
    )
    for eps in (0.5, 2.0):
        b = 1.5 / eps
        mean = table.where(epsilon=eps, statistic="mean").rows[0]["value"]
        assert abs(mean - b) < 6 * b / math.sqrt(4000)  # sd of |Lap(b)| is b


def test_gaussian_mechanisms_in_a_sweep():
    table = error_vs_epsilon(
        queries.mean,
        Normal(),
        50,
        [0.5, 2.0],
        ["sampled"],
        mechanism="analytic",
        delta=1e-6,
        repetitions=50,
        random_state=0,
    )
    assert set(table.column("mechanism")) == {"analytic"}
    with pytest.raises(
        ValueError, match="the classic Gaussian needs every epsilon < 1"
    ):
        error_vs_epsilon(
            queries.mean, Normal(), 50, [0.5, 2.0], mechanism="gaussian", delta=1e-6
        )
    with pytest.raises(ValueError, match="mechanism='analytic' needs delta"):
        error_vs_epsilon(queries.mean, Normal(), 50, [0.5], mechanism="analytic")


def test_deterministic_for_any_n_jobs():
    kw = dict(repetitions=30, random_state=3)
    a, b = (
        error_vs_epsilon(
            queries.median,
            HEIGHTS,
            51,
            [0.1, 0.3, 1.0],
            ["sampled", "mean+1sd"],
            n_jobs=jobs,
            **kw,
        )
        for jobs in (1, 2)
    )
    assert a == b


def test_source_document_experiment_ordering():
    # 002: larger sensitivities mean more noise: E[df] < E[df] + sigma < E[df] + 2 sigma.
    df, sd = HEIGHTS.expected_abs_difference(), math.sqrt(HEIGHTS.var)
    table = error_vs_epsilon(
        queries.identity,
        HEIGHTS,
        500,
        [0.05, 0.5, 5.0],
        [("a", df), ("b", df + sd), ("c", df + 2 * sd)],
        data=Normal(170, 1),
        statistic=np.mean,
        repetitions=200,
        random_state=1,
    )
    for eps in (0.05, 0.5, 5.0):
        errors = table.where(epsilon=eps, statistic="mean").column("value")
        assert errors[0] < errors[1] < errors[2]


def test_estimates_and_labels_are_accepted():
    est = sample_sensitivity(queries.mean, HEIGHTS, 100, gamma=0.1, random_state=0)
    table = error_vs_epsilon(
        queries.mean,
        HEIGHTS,
        100,
        [1.0],
        [est, ("custom", 0.2)],
        repetitions=10,
        random_state=0,
    )
    assert table.where(sensitivity="custom").rows[0]["sensitivity_value"] == 0.2
    assert table.rows[0]["sensitivity_value"] == est.sensitivity


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(epsilons=[0.0, 1.0]), ValueError, "epsilons must be > 0"),
        (
            dict(sensitivities=["median"]),
            ValueError,
            "sensitivities must be numbers, estimates, 'sampled', 'mean' or 'mean+Ksd'",
        ),
        (dict(sensitivities=[-1.0]), ValueError, "sensitivities must be >= 0.0"),
        (dict(sensitivities=[]), ValueError, "sensitivities must not be empty."),
        (dict(mechanism="staircase"), ValueError, "mechanism must be one of"),
        (dict(repetitions=0), ValueError, "repetitions must be an integer >= 1"),
        (dict(statistic=3), TypeError, "statistic must be callable"),
    ],
)
def test_bad_inputs(kwargs, exc, message):
    args = dict(epsilons=[1.0], sensitivities=[1.0])
    args.update(kwargs)
    with pytest.raises(exc, match=re.escape(message)):
        error_vs_epsilon(
            queries.mean,
            HEIGHTS,
            10,
            args.pop("epsilons"),
            args.pop("sensitivities"),
            **args,
        )


def test_result_table_csv_round_trip(tmp_path):
    table = ResultTable([{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}])
    path = tmp_path / "t.csv"
    table.to_csv(path)
    assert path.read_text() == "a,b\n1,0.5\n2,1.5\n"
    assert table.where(a=2).column("b") == [1.5]
    assert "a  b" in table.format()
