"""Batch runs on the release path: ``[run] path = "release"`` measures what a
release publishes, with its bounds, cap and quantile mechanism, and the summary
carries both epsilons of every release."""

import math
import os

import pytest

from sensampler.app.experiments import error_vs_epsilon, run_batch
from sensampler.app.experiments.batch import _seed
from sensampler.app.experiments.batch_config import parse_config

GRID = {
    "population": ["heights"],
    "query": ["mean", "median"],
    "n": [300],
    "gamma": [0.05],
    "mechanism": ["laplace"],
    "epsilon": [0.5, 2.0],
}


def _config(**run):
    return {"run": {"path": "release", "repetitions": 20, **run}, "grid": dict(GRID)}


def _rows(summary, **where):
    return [r for r in summary.rows if all(r[k] == v for k, v in where.items())]


@pytest.mark.slow
def test_a_release_run_is_the_sweep_of_the_release_and_states_both_epsilons(tmp_path):
    """Before, a batch knew no bounds, cap or quantile mechanism: a median was
    swept with Laplace noise on a sampled sensitivity, and the summary had one
    epsilon."""
    config = parse_config(_config(worst_case_epsilon=3.0), source="c.toml")
    summary = run_batch(config, tmp_path)
    (median,) = [run for run in config.runs if run.query_name == "median"]
    table = error_vs_epsilon(
        median.query, median.population, 300, [0.5, 2.0], median.release,
        repetitions=20, random_state=_seed(median).spawn(1)[0], n_jobs=1,
    )
    for row in table.where(statistic="mean").rows:
        (got,) = _rows(summary, query="median", epsilon=row["epsilon"], statistic="mean")
        assert got["error"] == row["value"]
        assert got["worst_case_epsilon"] == row["worst_case_epsilon"]
        assert got["released_by"] == "exponential"
    for row in _rows(summary, statistic="mean"):
        assert row["epsilon"] <= row["worst_case_epsilon"] <= 3.0 + 1e-12
        assert row["price"] >= 1.0


def test_the_sensitivity_path_states_no_worst_case(tmp_path):
    config = {"run": {"repetitions": 5}, "grid": {**GRID, "query": ["mean"]}}
    summary = run_batch(parse_config(config, source="c.toml"), tmp_path)
    assert all(math.isnan(row["worst_case_epsilon"]) for row in summary.rows)
    assert {row["released_by"] for row in summary.rows} == {"laplace"}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"run": {"bounds": "auto"}, "grid": GRID}, r"needs \[run\] path = 'release'"),
        (_config(m=200), r"\[run\] m is not for \[run\] path = 'release'"),
        ({**_config(), "grid": {**GRID, "norm": ["l1"]}}, r"\[grid\] norm is not for"),
        ({**_config(), "grid": {**GRID, "mechanism": ["gaussian"]}}, "has no release"),
        (_config(worst_case_epsilon=-1.0), "worst_case_epsilon"),
        (_config(bounds="2:1"), "bounds"),
        (_config(path="other"), "path"),
        ({"run": {"path": "release", "privacy_unit": "customer"}, "grid": dict(GRID)},
         "privacy_unit = 'customer' needs a model of a person"),
    ],
)
def test_a_bad_release_config_is_refused_naming_the_file(config, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_config(config, source="c.toml")
    assert str(info.value).startswith("c.toml")


PURCHASES = os.path.join(os.path.dirname(__file__), *[os.pardir] * 4, "examples", "data")


def _person_config(**run):
    return {
        "run": {"path": "release", "repetitions": 10, "privacy_unit": "customer", **run},
        "populations": {"shop": {
            "kind": "Empirical", "column": "amount",
            "path": os.path.join(PURCHASES, "public_purchases.csv"),
        }},
        "grid": {**GRID, "population": ["shop"], "query": ["sum", "mean"]},
    }


@pytest.mark.slow
def test_a_person_level_release_run_is_the_person_level_sweep(tmp_path):
    """Issue 40: [run] privacy_unit was refused; a release-path run now releases
    person-level statistics as sensampler release --privacy-unit does, its
    population the shipped public purchases grouped by customer, and the
    summary names the unit."""
    config = parse_config(_person_config(), source="c.toml")
    summary = run_batch(config, tmp_path)
    (run,) = [r for r in config.runs if r.query_name == "sum"]
    assert run.population.person_rows and run.population.data.shape[0] == 100
    table = error_vs_epsilon(
        "sum", run.population, 300, [0.5, 2.0], run.release,
        repetitions=10, random_state=_seed(run).spawn(1)[0], n_jobs=1,
    )
    for row in table.where(statistic="mean").rows:
        (got,) = _rows(summary, query="sum", epsilon=row["epsilon"], statistic="mean")
        assert got["error"] == row["value"]
        assert got["worst_case_epsilon"] == row["worst_case_epsilon"]
    assert {row["privacy_unit"] for row in summary.rows} == {"person"}


def test_a_record_level_summary_names_its_unit(tmp_path):
    config = {"run": {"repetitions": 5}, "grid": {**GRID, "query": ["mean"]}}
    summary = run_batch(parse_config(config, source="c.toml"), tmp_path)
    assert {row["privacy_unit"] for row in summary.rows} == {"record"}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"grid": {**GRID, "population": ["shop"], "query": ["median"]}},
         "person-level query"),
        ({"run": {"path": "release", "privacy_unit": "nobody"}}, "nobody"),
    ],
)
def test_a_bad_person_level_config_is_refused_naming_the_file(change, message):
    config = _person_config()
    config.update(change)
    with pytest.raises(ValueError, match=message) as info:
        parse_config(config, source="c.toml")
    assert str(info.value).startswith("c.toml")
