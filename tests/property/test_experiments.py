"""The experiment entry points: any arguments, and any batch config, are refused by
name before anything is drawn or written, or give a table of finite numbers. Sizes
stay tiny (m, n and repetitions small), so each example takes milliseconds."""

import math
import os
import uuid

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sensampler import queries
from sensampler.app.experiments import (
    epsilon_vs_iterations,
    run_batch,
    sensitivity_sweep,
    vectorized_vs_sequential,
)
from sensampler.app.experiments.batch_config import load_config
from sensampler.distributions import Normal
from tests.property._contract import anything, junk, reals, refused_or_result

#: Grids of numbers: lists of hostile numbers, or something that is no grid.
grids = st.one_of(anything, st.lists(reals, max_size=3))


def _finite_table(table, *columns):
    for row in table.rows:
        for column in columns:
            assert math.isfinite(row[column]), row


@pytest.mark.slow
@example([1e-300], {"x": 1.0}, 2, (Normal(), 3))
@example([0.5], {"x": 1e308}, 2, (Normal(), 3))
@example([0.5], {"x": float("nan")}, 2, (Normal(), 3))
@example([0.5], {"x": "1.5"}, 2, (Normal(), 3))
@example([0.5], {}, 2, (Normal(), 3))
@example([0.5], {"x": [1.0, 2.0]}, 2, (Normal(), 3))
@example([0.5], {"x": 1.0}, 2**40, (np.arange(3.0), None))
@given(
    grids,
    st.one_of(junk, st.dictionaries(st.sampled_from(["a", "b"]), anything, max_size=2)),
    # Few repetitions, or more than memory holds (a large count that fits is a
    # legitimate, slow request).
    st.one_of(junk, st.integers(-2, 3), st.sampled_from([2**40, 2**70, 1.5, -0.0])),
    st.sampled_from([(Normal(), 3), (np.arange(3.0), None)]),
)
def test_error_vs_epsilon(epsilons, sensitivities, repetitions, data):
    table = refused_or_result(
        lambda: sensitivity_sweep(
            queries.mean,
            *data,
            epsilons,
            sensitivities,
            repetitions=repetitions,
            random_state=0,
            n_jobs=1,
        ),
        "epsilon",
        "sensitivit",
        "repetitions",
    )
    if table is not None:
        _finite_table(table, "epsilon", "value")


# n is small, or beyond any memory (a large n that fits is a legitimate request).
@pytest.mark.slow
@example(10**12)
@given(st.one_of(junk, st.integers(-3, 50), st.sampled_from([2**62, 2**63, 10**12])))
def test_error_vs_epsilon_sizes(n):
    table = refused_or_result(
        lambda: sensitivity_sweep(
            queries.median, Normal(), n, [1.0], {"x": 1.0}, repetitions=2, n_jobs=1
        ),
        "n",
    )
    if table is not None:
        _finite_table(table, "value")


@pytest.mark.slow
@example([2**53 + 1], 0.1, 1e-5)
@example([0.5], 0.1, 1e-5)
@example([1], 1e-300, 1e-300)
@example([25175], 2.0**63, 1.0931410885774852e-113)  # brentq: 100 steps too few
@example([83511], 5.630163858115348e-99, 0.5)  # epsilon below brentq's bracket
@example([3], 1.6465423740602031e75, 0.5)
@given(grids, anything, anything)
def test_vectorized_vs_sequential(ks, epsilon, delta):
    table = refused_or_result(
        lambda: vectorized_vs_sequential(ks, epsilon, delta), "ks", "epsilon", "delta"
    )
    if table is not None:
        _finite_table(table, "variance")


@pytest.mark.slow
@example([0.5], 200.0, 1e-5, 60.0)
@example([1], 1e-300, 1e-5, 60.0)
@example([1], 200.0, 1e-5, 1e300)
@example([1], 1e-150, 1e-5, 60.0)  # k / (2 sigma**2) overflows
@example([2**53], 200.0, 1e-5, 60.0)  # optimal composition: 64 PiB
@given(grids, anything, anything, anything)
def test_epsilon_vs_iterations(iterations, sigma, delta, alpha):
    table = refused_or_result(
        lambda: epsilon_vs_iterations(iterations, sigma, delta, alpha),
        "iterations",
        "sigma",
        "delta",
        "alpha",
    )
    if table is not None:
        _finite_table(table, "epsilon")


#: A tiny config that runs: one run, m and repetitions small.
BASE = {
    "run": {"seed": "0", "repetitions": "2", "delta": "1e-6", "inequality": '"exact"'},
    "grid": {
        "population": '["normal"]',
        "query": '["mean"]',
        "n": "[5]",
        "gamma": "[0.5]",
        "mechanism": '["laplace"]',
        "epsilon": "[1.0]",
    },
}
#: TOML values, from the sensible to the hostile.
toml_values = st.sampled_from(
    [
        "0",
        "-1",
        "1.5",
        "nan",
        "inf",
        "true",
        '"abc"',
        '""',
        "[]",
        "[0.05, 1.5]",
        "[0.5, 0.5]",
        '["l7"]',
        '["l2"]',
        '["heights", "x"]',
        '["median", "mean"]',
        "[5, 9223372036854775807]",
        "[1e-300]",
        "9223372036854775807",
        '{kind = "Normal"}',
        '[{kind = "Normal"}]',
        '["analytic"]',
        '["classic"]',
        "[2.0]",
        '"dkw"',
        "[1, 2.5]",
    ]
)
keys = st.sampled_from(
    [("run", k) for k in ("seed", "repetitions", "delta", "inequality", "m", "other")]
    + [
        ("grid", k)
        for k in (
            "population",
            "query",
            "n",
            "gamma",
            "norm",
            "mechanism",
            "epsilon",
            "other",
        )
    ]
)
edits = st.lists(
    st.tuples(keys, st.one_of(st.none(), toml_values)), min_size=1, max_size=3
)
tables = st.sampled_from(
    ["", "populations = 3\n", "run = 5\n", "[populations.x]\nkind = 'Normal'\n"]
)


def _toml(edits, extra):
    config = {section: dict(entries) for section, entries in BASE.items()}
    for (section, key), value in edits:
        if value is None:
            config[section].pop(key, None)
        else:
            config[section][key] = value
    text = extra
    for section, entries in config.items():
        text += f"[{section}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
    return text


@pytest.mark.slow
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example([(("grid", "gamma"), "[0.5, 1.5]")], "")
@example([(("grid", "n"), "[5, 9223372036854775807]")], "")
@example([(("grid", "norm"), '["l7"]')], "")
@example([(("run", "seed"), '"abc"')], "")
@example([(("grid", "population"), '[{kind = "Normal"}]')], "")
@example([(("grid", "epsilon"), "[1e-300]")], "")
# a run the machine cannot hold (16 GiB here): refused by load_config
@example([(("run", "m"), "1000000000")], "")
@example([(("run", "repetitions"), "100000000")], "")
# estimators that cannot fit the population: refused by load_config, by name
@example([(("grid", "query"), '["q"]')], '[queries.q]\nkind = "estimator"\nmodel = "Ridge"\n')
@example(
    [(("grid", "query"), '["q"]'), (("grid", "population"), '["x"]')],
    '[queries.q]\nkind = "estimator"\nmodel = "LogisticRegression"\n'
    '[populations.x]\nkind = "MultivariateNormal"\nmean = [0, 0]\n'
    "cov = [[1, 0], [0, 1]]\n",
)
@given(edits, tables)
def test_batch_configs(tmp_path, monkeypatch, edits, extra):
    from sensampler._lib import memory as _memory

    monkeypatch.setattr(_memory, "physical_memory", lambda: 16 * 2**30)
    folder = tmp_path / uuid.uuid4().hex
    folder.mkdir()
    path = folder / "config.toml"
    path.write_text(_toml(edits, extra))
    out = folder / "out"
    names = [str(path)] + [key for (_, key), _ in edits]
    config = refused_or_result(lambda: load_config(path), *names)
    if config is None:  # what load_config refuses, run_batch refuses before work
        with pytest.raises((ValueError, TypeError)):
            run_batch(path, out, n_jobs=1)
        assert not (out / "runs").exists() or not os.listdir(out / "runs")
        return
    table = refused_or_result(lambda: run_batch(path, out, n_jobs=1), *names)
    if table is None:
        runs = out / "runs"
        assert not runs.exists() or not os.listdir(runs), os.listdir(runs)
    else:
        assert config is not None
        values = np.array([row["error"] for row in table.rows], dtype=float)
        assert np.all(np.isfinite(values))
