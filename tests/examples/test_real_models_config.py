"""examples/real_models.toml runs, and agrees with the example's own code path."""

import csv
import json
import math
import os
import re

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.mixture import GaussianMixture
from threadpoolctl import threadpool_limits

from sensampler import queries, sample_sensitivity
from sensampler.app.cli import main
from sensampler.app.experiments import STATISTICS, load_split, run_batch
from sensampler.distributions import Empirical, SklearnGaussianMixture
from sensampler.mechanisms import GaussianMechanism
from tests.conftest import assert_close_in_se

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "examples", "real_models.toml")
EPSILONS = [0.3, 3.0]
REPETITIONS = 200
M = 300

pytestmark = pytest.mark.slow  # batch runs of ridge fits, end to end


def _smaller(tmp_path):
    """The shipped config with fewer releases, pairs and epsilons."""
    text = open(CONFIG, encoding="utf-8").read()
    for key, value in [("repetitions", REPETITIONS), ("m", M), ("epsilon", EPSILONS)]:
        text, count = re.subn(rf"(?m)^{key} = [^#\n]*", f"{key} = {value} ", text)
        assert count == 1, key
    path = tmp_path / "real_models.toml"
    path.write_text(text)
    return path


def _example_data():
    """The example's parts (load_split is checked against the preprocessing written
    out in tests/sensampler/app/experiments/test_datasets.py)."""
    split = load_split("load_diabetes", public=0.4, train=0.7, seed=2017)
    return split.public, split.train, split.test


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("real_models")
    out = tmp_path / "out"
    config = _smaller(tmp_path)
    summary = run_batch(config, out)
    records = [json.loads(f.read_text()) for f in sorted((out / "runs").iterdir())]
    with open(out / "references.csv", newline="") as handle:
        references = {
            row["model"]: float(row["value"]) for row in csv.DictReader(handle)
        }
    return summary, records, references, (config, out)


def test_the_table_has_one_row_per_population_epsilon_and_statistic(batch):
    summary, records, *_ = batch
    assert len(summary) == 2 * len(EPSILONS) * len(STATISTICS)
    assert summary.column("population")[:: len(STATISTICS) * len(EPSILONS)] == [
        "diabetes_bootstrap",
        "diabetes_mixture",
    ]
    assert set(summary.column("measure")) == {"test_mse"}
    assert set(summary.column("n")) == {186} and set(summary.column("m")) == {M}
    assert all(math.isfinite(v) and v > 0 for v in summary.column("error"))


def test_references_are_the_examples(batch):
    public, train, test = _example_data()
    ridge = Ridge(alpha=10.0, fit_intercept=False)

    def test_mse(coef):
        return float(np.mean((test[:, :-1] @ coef - test[:, -1]) ** 2))

    coef = ridge.fit(train[:, :-1], train[:, -1]).coef_
    expected = {
        "non-private": test_mse(coef),
        "public data only": test_mse(ridge.fit(public[:, :-1], public[:, -1]).coef_),
        "constant": test_mse(np.zeros_like(coef)),
    }
    assert batch[2] == pytest.approx(expected, rel=1e-9)
    assert expected["non-private"] == pytest.approx(3235.9, abs=0.05)  # the notebook's


def test_sensitivities_and_test_errors_agree_with_the_examples_code_path(batch):
    # batch runs fit and draw on one BLAS thread (bit-identical for any n_jobs):
    # the example's path is run the same way, whatever this BLAS build threads
    with threadpool_limits(limits=1):
        _agree_with_the_examples_code_path(batch)


def _agree_with_the_examples_code_path(batch):
    summary, records, *_ = batch
    public, train, test = _example_data()
    query = queries.estimator(Ridge(alpha=10.0, fit_intercept=False))
    populations = {
        "diabetes_bootstrap": Empirical(public),
        "diabetes_mixture": SklearnGaussianMixture(
            GaussianMixture(3, covariance_type="full", random_state=2017).fit(public)
        ),
    }
    coef = query(train)
    rng = np.random.default_rng(2017)
    for record in records:
        name = record["settings"]["population"]
        # The example's call, with the run's seed (derived from the config's seed
        # and the run's key, as the batch does): the same sensitivity.
        seed = np.random.SeedSequence([2017, int(record["run_id"], 16)])
        estimate = sample_sensitivity(
            query,
            populations[name],
            len(train),
            gamma=0.05,
            m=M,
            norm="l2",
            random_state=seed.spawn(1)[0],
        )
        assert estimate.sensitivity.value == record["estimate"]["sensitivity"]
        for epsilon in EPSILONS:
            # The example's releases (10 times as many) against the batch's.
            mechanism = GaussianMechanism(estimate, epsilon, 1e-5, variant="analytic")
            errors = [
                float(np.mean((test[:, :-1] @ r - test[:, -1]) ** 2))
                for r in (
                    mechanism.release(coef, random_state=rng) for _ in range(2000)
                )
            ]
            rows = summary.where(population=name, epsilon=epsilon)
            mean, sd = (
                rows.where(statistic=s).rows[0]["error"] for s in ("mean", "std")
            )
            se = math.sqrt(sd**2 / REPETITIONS + np.var(errors) / len(errors))
            assert_close_in_se(mean, np.mean(errors), se)


def test_the_command_prints_the_table_and_the_references(batch, capsys):
    config, out = batch[3]
    assert main(["run", str(config), "--out", str(out), "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("diabetes_")]
    assert len(rows) == 2 * len(EPSILONS) and all(" test_mse " in r for r in rows)
    start = lines.index(f"scores without noise ({out / 'references.csv'}):")
    assert [line.split()[3] for line in lines[start + 3 :]] == [
        "non-private",
        "public",  # "public data only"
        "constant",
    ]
