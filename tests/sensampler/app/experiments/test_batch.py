import collections
import csv
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys

import pytest
from threadpoolctl import threadpool_limits

from sensampler.app.experiments import (
    STATISTICS,
    batch_config,
    batch_release,
    run_batch,
)
from sensampler.app.experiments.batch_config import load_config, parse_config
from sensampler.app.experiments.datasets import load_split

CONFIG = """
[run]
seed = 3
repetitions = {reps}
delta = 1e-6

[grid]
population = ["heights", "adults"]
query = ["mean", "median"]
n = [50, 200]
gamma = [0.05]
mechanism = ["laplace", "analytic"]
epsilon = [0.1, 1.0]

[populations.adults]
kind = "Normal"
loc = 170
scale = 10
"""


def _write(tmp_path, reps=20, name="config.toml"):
    path = tmp_path / name
    path.write_text(CONFIG.format(reps=reps))
    return path


@pytest.mark.slow
def test_batch_runs_and_resumes_without_redoing(tmp_path):
    config = _write(tmp_path)
    out = tmp_path / "out"
    first = run_batch(config, out)
    files = sorted((out / "runs").iterdir())
    assert len(files) == 16  # 2 populations x 2 queries x 2 n x 2 mechanisms
    stamps = {f.name: f.stat().st_mtime_ns for f in files}
    lines = []
    second = run_batch(config, out, log=lines.append)
    assert second == first
    assert "16 already done, 0 to do" in lines[0]
    assert {f.name: f.stat().st_mtime_ns for f in (out / "runs").iterdir()} == stamps
    assert (out / "summary.csv").read_text().startswith("population,query,n,gamma,norm")


def test_a_grid_n_beyond_memory_is_refused_before_the_first_run(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        CONFIG.format(reps=2).replace("n = [50, 200]", "n = [5, 9223372036854775807]")
    )
    with pytest.raises(
        ValueError,
        match=re.escape(f"{path}: [grid] n = 9223372036854775807: repetitions=2"),
    ):
        run_batch(path, tmp_path / "out")
    assert not (tmp_path / "out" / "runs").exists()


@pytest.mark.slow
def test_parallel_batch_equals_serial(tmp_path):
    config = _write(tmp_path)
    assert run_batch(config, tmp_path / "a", n_jobs=1) == run_batch(
        config, tmp_path / "b", n_jobs=2
    )


@pytest.mark.slow
def test_interrupted_batch_loses_and_redoes_nothing(tmp_path):
    config = _write(tmp_path, reps=2000)  # each run takes a moment (0.1 to 0.3 s)
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "sensampler",
        "run",
        str(config),
        "--out",
        str(out),
        "--n-jobs",
        "1",
        "--no-progress",
    ]
    # On a loaded machine the batch may finish its last runs before the signal
    # reaches it: then nothing was interrupted, and it is tried again afresh.
    for _ in range(3):
        shutil.rmtree(out, ignore_errors=True)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Driven by the run's own log, one line per finished run (written to
        # disk before the line), not by watching the folder: interrupt after
        # the third.
        log = []
        while sum(line.startswith(b"finished run") for line in log) < 3:
            line = proc.stderr.readline()
            assert line, b"".join(log)  # the run ended before three runs finished
            log.append(line)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if proc.returncode != 0:
            break
    assert proc.returncode == 130, err
    assert b"interrupted; finished runs are kept" in err
    runs = out / "runs"
    kept = {f.name: (f.stat().st_mtime_ns, f.read_text()) for f in runs.glob("*.json")}
    finished = sum(line.startswith(b"finished run") for line in log + err.splitlines())
    assert len(kept) == finished and 3 <= finished < 16
    for text in (v[1] for v in kept.values()):
        json.loads(text)  # every file on disk is whole
    resumed = run_batch(config, out)
    for name, (stamp, text) in kept.items():
        assert (runs / name).stat().st_mtime_ns == stamp  # not redone
        assert (runs / name).read_text() == text
    assert not list(runs.glob(".tmp-*"))
    assert resumed == run_batch(config, tmp_path / "uninterrupted")


@pytest.mark.parametrize(
    "text, message",
    [
        ("[grid\npopulation = 1", "malformed TOML"),
        ("[run]\nseed = 1\n", "missing the [grid] table"),
        (
            "[grid]\npopulation=['heights']\nquery=['mean']\nn=[10]\ngamma=[0.05]\n"
            "mechanism=['laplace']\n",
            "[grid] needs 'epsilon'",
        ),
        (
            "[grid]\npopulation=['heights']\nquery=['mean']\nn=[10]\ngamma=[0.05]\n"
            "mechanism=['laplace']\nepsilon=[1.0]\ncolour=['red']\n",
            "unknown [grid] key(s) ['colour']",
        ),
        (
            "[grid]\npopulation=['mars']\nquery=['mean']\nn=[10]\ngamma=[0.05]\n"
            "mechanism=['laplace']\nepsilon=[1.0]\n",
            "unknown population 'mars'",
        ),
        (
            "[grid]\npopulation=['heights']\nquery=['mode']\nn=[10]\ngamma=[0.05]\n"
            "mechanism=['laplace']\nepsilon=[1.0]\n",
            "unknown query 'mode'",
        ),
        ("[sweep]\nx=1\n", "unknown table(s) ['sweep']"),
    ],
)
def test_malformed_configs(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(path) and run_batch(path, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing ran


SMALL = """
[run]
seed = 1
repetitions = 5

[grid]
population = ["heights"]
query = ["mean"]
n = [30, 60]
gamma = [0.1]
mechanism = ["laplace", "analytic"]
epsilon = [1.0]
"""


def _small(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def test_damaged_run_files_are_named_and_run_again(tmp_path):
    config, out = _small(tmp_path), tmp_path / "out"
    first = run_batch(config, out)
    files = sorted((out / "runs").glob("*.json"))
    assert len(files) == 4
    truncated, edited, stripped, kept = files
    record = json.loads(edited.read_text())
    truncated.write_text(truncated.read_text()[:100])
    record["rows"][0]["value"] += 1.0  # valid JSON, wrong content
    edited.write_text(json.dumps(record))
    del record["checksum"]
    stripped.write_text(json.dumps(record))
    stamp = kept.stat().st_mtime_ns
    lines = []
    assert run_batch(config, out, log=lines.append) == first
    damaged = sorted(line for line in lines if "cannot be trusted" in line)
    expected = sorted(
        [
            f"run file {truncated} cannot be trusted (unreadable (JSONDecodeError: ",
            f"run file {edited} cannot be trusted (checksum mismatch: the file was "
            "changed or damaged); running it again",
            f"run file {stripped} cannot be trusted (no checksum); running it again",
        ]
    )
    assert len(damaged) == 3
    for line, start in zip(damaged, expected):
        assert line.startswith(start) and line.endswith("; running it again")
    assert lines[3] == "4 runs: 1 already done, 3 to do"
    assert kept.stat().st_mtime_ns == stamp


def test_a_run_file_of_another_run_is_not_used(tmp_path):
    config, out = _small(tmp_path), tmp_path / "out"
    first = run_batch(config, out)
    a, b = sorted((out / "runs").glob("*.json"))[:2]
    a.write_text(b.read_text())  # a valid checksum, but another config key
    lines = []
    assert run_batch(config, out, log=lines.append) == first
    assert (
        f"run file {a} cannot be trusted (it belongs to another run); running it again"
        in lines
    )


def test_second_run_on_a_locked_folder_is_refused_and_harms_nothing(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    config, out = _small(tmp_path), tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    in_flight = out / "runs" / ".tmp-0123abcdrun.json"  # the first run's file
    in_flight.write_text("{")
    with open(out / ".lock", "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(
            ValueError,
            match=re.escape(
                f"out_dir={str(out)!r} is in use by another sensampler run (lock "
                f"{out / '.lock'}); wait for it to finish or choose another folder."
            ),
        ):
            run_batch(config, out)
        assert in_flight.exists() and not list((out / "runs").glob("[!.]*.json"))
    assert len(run_batch(config, out)) > 0  # free again: runs, and cleans up
    assert not in_flight.exists()
    with open(out / ".lock", "w") as holder:  # released when the run ended
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)


@pytest.mark.slow
def test_a_running_process_holds_the_lock(tmp_path):
    config, out = _write(tmp_path, reps=40000), tmp_path / "out"
    cmd = [sys.executable, "-m", "sensampler", "run", str(config), "--out"]
    first = subprocess.Popen(
        [*cmd, str(out), "--n-jobs", "1", "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # The plan line is logged with the lock held, before the first run.
        assert first.stderr.readline().startswith(b"16 runs")
        second = subprocess.run(
            [*cmd, str(out), "--no-progress"], capture_output=True, timeout=120
        )
        assert second.returncode == 2
        assert b"is in use by another sensampler run" in second.stderr
        assert first.poll() is None  # the first one is unharmed
    finally:
        first.kill()
        first.communicate()


def test_outputs_respect_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        out = tmp_path / "out"
        run_batch(_small(tmp_path), out)
    finally:
        os.umask(old)
    for path in [out / "summary.csv", *(out / "runs").glob("*.json")]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o640, path


def test_binary_config_names_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    with pytest.raises(ValueError, match=re.escape(f"{path}: not a TOML text file")):
        run_batch(path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


GRID = (
    "[grid]\npopulation=['heights']\nquery=['mean']\nn=[10]\ngamma=[0.05]\n"
    "mechanism=['laplace']\nepsilon=[1.0]\n"
)


def _with(key, value, text=GRID):
    lines = [line for line in text.splitlines() if not line.startswith(f"{key}=")]
    return "\n".join(lines) + f"\n{key}={value}\n"


@pytest.mark.parametrize(
    "text, exc, message",
    [
        (
            "populations = 3\n" + GRID,
            TypeError,
            "populations must be a table [populations], got 3.",
        ),
        ("run = 5\n" + GRID, TypeError, "run must be a table [run], got 5."),
        (
            "[run]\nseed = -1\n" + GRID,
            ValueError,
            "[run] seed: must be an integer >= 0, got -1.",
        ),
        (
            "[run]\nseed = 1.5\n" + GRID,
            TypeError,
            "[run] seed: must be an integer >= 0, got 1.5.",
        ),
        (
            "[run]\nseed = 'abc'\n" + GRID,
            TypeError,
            "[run] seed: must be an integer >= 0, got 'abc'.",
        ),
        (
            "[run]\nrepetitions = 0\n" + GRID,
            ValueError,
            "[run] repetitions: must be an integer >= 1, got 0.",
        ),
        (
            "[run]\ndelta = 2.0\n" + GRID,
            ValueError,
            "[run] delta: must be a real number in (0, 1), got 2.0.",
        ),
        (
            "[run]\ninequality = 'tight'\n" + GRID,
            ValueError,
            "[grid] gamma = 0.05 with [run] inequality = 'tight': inequality must be one of",
        ),
        (
            _with("population", "[{kind = 'Normal'}]"),
            TypeError,
            "[grid] population: must be a string naming a preset or a "
            "[populations.NAME] table, got {'kind': 'Normal'}.",
        ),
        (
            _with("norm", "['l7']"),
            ValueError,
            "[grid] norm: must be one of 'l1', 'l2', 'linf', 'coordinate', got 'l7'.",
        ),
        (
            _with("norm", "['linf']"),
            ValueError,
            "[grid] norm ['linf'] fits none of the mechanisms ['laplace']: no run "
            "to do.",
        ),
        (
            _with("gamma", "[0.05, 1.5]"),
            ValueError,
            "[grid] gamma: must be a real number in (0, 1), got 1.5.",
        ),
        (
            _with("gamma", "[1e-300]"),
            ValueError,
            "[grid] gamma = 1e-300 with [run] inequality = 'exact':",
        ),
        (
            _with("n", "[0]"),
            ValueError,
            "[grid] n: must be an integer >= 1 or 'private', got 0.",
        ),
        (_with("n", "[10, 10]"), ValueError, "[grid] n: repeated value(s) 10."),
        (
            _with("epsilon", "[-1.0]"),
            ValueError,
            "[grid] epsilon: must be a finite real number > 0, got -1.0.",
        ),
        (
            _with("epsilon", "[nan]"),
            ValueError,
            "[grid] epsilon: must be a finite real number > 0, got nan.",
        ),
        (
            _with("mechanism", "['gaussian']", _with("epsilon", "[2.0]")),
            ValueError,
            "[grid] mechanism 'gaussian' at epsilon = 2.0:",
        ),
        (
            _with("mechanism", "['exponential']"),
            ValueError,
            "[grid] mechanism: must be one of 'laplace', 'gaussian', 'analytic', "
            "got 'exponential'.",
        ),
        (
            _with("query", "[3]"),
            TypeError,
            "[grid] query: must be a query name or a [queries.NAME] table (a string), "
            "got 3.",
        ),
        (
            _with("population", "['p']") + "[populations.p]\nkind='Normal'\nscale=-1\n",
            ValueError,
            "[populations.p] 'p':",
        ),
        (
            _with("population", "['p']")
            + "[populations.p]\nkind='Empirical'\npath='nowhere.csv'\n",
            ValueError,
            "[populations.p] 'p':",
        ),
        (
            GRID + "[populations]\np = 3\n",
            TypeError,
            "[populations.p] must be a table, got 3.",
        ),
    ],
)
def test_every_bad_config_is_refused_before_any_run(tmp_path, text, exc, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(exc, match=re.escape(f"{path}: {message}")):
        run_batch(path, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing ran, nothing written


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"out_dir": None}, TypeError, "out_dir must be a path to a folder, got None."),
        ({"out_dir": ""}, ValueError, "out_dir must not be empty, got out_dir=''."),
        (
            {"n_jobs": 0},
            ValueError,
            "n_jobs must be None or a non-zero integer, got n_jobs=0.",
        ),
    ],
)
def test_bad_arguments_are_refused_first(tmp_path, kwargs, exc, message):
    kwargs = {"out_dir": tmp_path / "out", **kwargs}
    with pytest.raises(exc, match=re.escape(message)):
        run_batch(_small(tmp_path), **kwargs)
    assert not (tmp_path / "out").exists()


def test_configs_without_the_newer_keys_keep_their_run_ids(tmp_path):
    # The ids of SMALL's runs before data sets, estimator queries, m and scores
    # existed: run folders written then resume without redoing anything.
    runs = load_config(_small(tmp_path)).runs
    assert [run.run_id for run in runs] == [
        "7c3cb8b240af5ee1",
        "29220751e182f259",
        "bbedc796f15f70db",
        "a693b301879e780a",
    ]


REAL = """
[run]
seed = 4
repetitions = 10
m = 120

[grid]
population = ["boot", "mix"]
query = ["ridge"]
n = ["private"]
gamma = [0.1]
norm = ["l2"]
mechanism = ["analytic"]
epsilon = [1.0, 10.0]

[datasets.diabetes]
loader = "load_diabetes"
seed = 4

[populations.boot]
kind = "Empirical"
dataset = "diabetes"

[populations.mix]
kind = "SklearnGaussianMixture"
dataset = "diabetes"
components = 2

[queries.ridge]
kind = "estimator"
model = "Ridge"
params = { alpha = 10.0, fit_intercept = false }

[errors]
score = "test_mse"
data = "diabetes"
"""


def _real(tmp_path, text=REAL):
    path = tmp_path / "real.toml"
    path.write_text(text)
    return path


@pytest.mark.slow
def test_a_real_models_config_runs_scores_and_resumes(tmp_path):
    config, out = _real(tmp_path), tmp_path / "out"
    summary = run_batch(config, out)
    split = load_split("load_diabetes", seed=4)
    n = len(split.train)
    assert len(summary) == 2 * 2 * len(STATISTICS)  # populations x epsilons
    assert set(summary.column("measure")) == {"test_mse"}
    assert set(summary.column("n")) == {n} and set(summary.column("m")) == {120}
    for record in (json.loads(f.read_text()) for f in (out / "runs").iterdir()):
        estimate = record["estimate"]
        assert (estimate["n"], estimate["m"], estimate["norm"]) == (n, 120, "l2")
        assert record["settings"]["datasets"]["diabetes"] == {
            "loader": "load_diabetes",
            "public": 0.4,
            "train": 0.7,
            "seed": 4,
            "standardise": "public",
        }
    references = (out / "references.csv").read_text().splitlines()
    assert references[0] == "query,data,score,model,value"
    assert [line.split(",")[3] for line in references[1:]] == [
        "non-private",
        "public data only",
        "constant",
    ]
    lines = []
    assert run_batch(config, out, log=lines.append) == summary
    assert "2 runs: 2 already done, 0 to do" in lines[0]
    assert run_batch(config, tmp_path / "parallel", n_jobs=2) == summary
    run_batch(_small(tmp_path), out)  # another config, without a score
    assert not (out / "references.csv").exists()


@pytest.mark.slow
def test_a_classifier_is_scored_by_its_test_accuracy(tmp_path):
    text = (
        REAL.replace('"load_diabetes"', '"load_breast_cancer"')
        .replace('["boot", "mix"]', '["boot"]')
        .replace('model = "Ridge"', 'model = "LogisticRegression"')
        .replace("alpha = 10.0", "C = 0.1")
        .replace('"test_mse"', '"test_accuracy"')
        .replace("m = 120", "m = 47")  # the fewest pairs for gamma = 0.1
    )
    out = tmp_path / "out"
    # lbfgs on 239 x 30 rows: one BLAS thread is faster than many on a busy machine.
    with threadpool_limits(limits=1):
        summary = run_batch(_real(tmp_path, text), out)
    assert set(summary.column("measure")) == {"test_accuracy"}
    means = summary.where(statistic="mean").column("error")
    assert len(means) == 2 and all(0 <= v <= 1 for v in means)
    with open(out / "references.csv", newline="") as handle:
        refs = {row["model"]: float(row["value"]) for row in csv.DictReader(handle)}
    # Breast cancer: a linear model is right about 95% of the time; the constant
    # (class 0, malignant, about 37% of the rows) far less often.
    assert refs["non-private"] > 0.9 and refs["constant"] < 0.5


def test_a_changed_split_is_another_run(tmp_path):
    first = load_config(_real(tmp_path)).runs
    changed = REAL.replace(
        "seed = 4\n\n[populations.boot]", "seed = 5\n\n[populations.boot]"
    )
    assert changed != REAL
    second = load_config(_real(tmp_path, changed)).runs
    assert not {run.run_id for run in first} & {run.run_id for run in second}


def _edit(key, value, text=REAL):
    """REAL with the line ``key = ...`` replaced (``value`` None: removed)."""
    pattern = re.compile(rf"(?m)^{re.escape(key)} = .*\n")
    assert len(pattern.findall(text)) == 1, key
    return pattern.sub("" if value is None else f"{key} = {value}\n", text)


@pytest.mark.parametrize(
    "text, exc, message",
    [
        (
            _edit("loader", "'fetch_openml'"),
            ValueError,
            "[datasets.diabetes] loader: must be one of 'load_diabetes', "
            "'load_breast_cancer', 'load_iris', 'load_wine', got 'fetch_openml'.",
        ),
        (
            _edit("loader", None),
            ValueError,
            "[datasets.diabetes] needs 'loader'.",
        ),
        (
            REAL.replace("seed = 4\n\n[pop", "seed = 4\nsize = 3\n\n[pop"),
            ValueError,
            "unknown [datasets.diabetes] key(s) ['size']; keys: loader, public, "
            "train, seed, standardise.",
        ),
        (
            REAL.replace('"load_diabetes"', '"load_diabetes"\npublic = 1.0'),
            ValueError,
            "[datasets.diabetes] public: must be a real number in (0, 1), got 1.0.",
        ),
        (
            REAL.replace('"load_diabetes"', '"load_diabetes"\nstandardise = "all"'),
            ValueError,
            "[datasets.diabetes] standardise: must be one of 'public', 'none', "
            "got 'all'.",
        ),
        (
            _edit("m", "0"),
            ValueError,
            "[run] m: must be an integer >= 1, got 0.",
        ),
        (
            _edit("m", "10"),
            ValueError,
            "[grid] gamma = 0.1 with [run] inequality = 'exact', [run] m = 10: ",
        ),
        (
            _edit("n", "['all']"),
            TypeError,
            "[grid] n: must be an integer >= 1 or 'private', got 'all'.",
        ),
        (
            _edit("n", "[100]"),
            ValueError,
            "[grid] n = 100: the releases are trained on the private training part "
            "of [errors] data = 'diabetes', of 186 rows; use n = 'private'.",
        ),
        (
            _edit("model", "'SVC'"),
            ValueError,
            "[queries.ridge] 'ridge': model must be one of 'LinearRegression', "
            "'Ridge', 'Lasso', 'ElasticNet', 'LogisticRegression', got model='SVC'.",
        ),
        (
            REAL.replace('kind = "estimator"', 'kind = "forest"'),
            ValueError,
            "[queries.ridge] 'ridge': a query table has kind = 'estimator', got "
            "kind='forest'.",
        ),
        (
            _edit("params", "{ alpah = 1.0, fit_intercept = false }"),
            ValueError,
            "[queries.ridge] 'ridge': bad params for Ridge: ",
        ),
        (
            _edit("params", "{ alpha = -1.0, fit_intercept = false }"),
            ValueError,
            "[grid] query 'ridge' on the data set 'diabetes': Ridge cannot be fitted "
            "on data of shape (176, 11) with target=-1: The 'alpha' parameter",
        ),
        (
            _edit("params", "{ alpha = 1.0 }"),
            ValueError,
            "[errors] score = 'test_mse' scores released coefficients without an "
            "intercept: [grid] query 'ridge' must be a [queries.NAME] estimator with "
            "params fit_intercept = false.",
        ),
        (
            _edit("score", "'test_accuracy'"),
            ValueError,
            "[errors] score: score='test_accuracy' needs a classification data set, "
            "got loader='load_diabetes' (regression).",
        ),
        (
            _edit("score", "'r2'"),
            ValueError,
            "[errors] score: must be one of 'test_mse', 'test_accuracy', got 'r2'.",
        ),
        (
            _edit("data", None),
            ValueError,
            "[errors] score = 'test_mse' needs data = NAME, the [datasets.NAME] "
            "whose test part scores the releases.",
        ),
        (
            _edit("data", "'cancer'"),
            ValueError,
            "[errors] data = 'cancer' names no [datasets.NAME] table; data sets: "
            "diabetes.",
        ),
        (
            _edit("components", "0"),
            ValueError,
            "[populations.mix] 'mix': components must be an integer >= 1, got "
            "components=0.",
        ),
        (
            REAL.replace("components = 2", "components = 2\nbandwidth = 1.0"),
            ValueError,
            "[populations.mix] 'mix': unknown key(s) ['bandwidth'] for "
            "SklearnGaussianMixture; keys: kind, dataset, components, "
            "covariance_type, seed.",
        ),
        (
            REAL.replace("components = 2", "components = 2\ncovariance_type = 'x'"),
            ValueError,
            "[populations.mix] 'mix': covariance_type must be one of 'full', "
            "'tied', 'diag', 'spherical', got covariance_type='x'.",
        ),
        (
            REAL.replace('model = "Ridge"', 'model = "Ridge"\nattribute = "x"'),
            ValueError,
            "[queries.ridge] 'ridge': unknown query key(s) ['attribute']; keys: "
            "kind, model, params.",
        ),
        (
            _edit("params", "3"),
            ValueError,
            "[queries.ridge] 'ridge': params must be a table, got params=3.",
        ),
        (
            _edit("components", None),
            ValueError,
            "[populations.mix] 'mix': SklearnGaussianMixture needs components.",
        ),
        (
            REAL.replace('kind = "Empirical"', 'kind = "Normal"'),
            ValueError,
            "[populations.boot] 'boot': a population with a dataset has kind "
            "Empirical, SklearnGaussianMixture, got kind='Normal'.",
        ),
        (
            REAL.replace(
                'dataset = "diabetes"\n\n[populations.mix]',
                'dataset = "x"\n\n[populations.mix]',
            ),
            ValueError,
            "[populations.boot] 'boot': dataset='x' names no data set; data sets: "
            "diabetes.",
        ),
        (
            REAL.replace('["boot", "mix"]', '["boot", "heights"]'),
            ValueError,
            "population 'heights' draws records of shape (), [errors] data = "
            "'diabetes' has records of shape (11,).",
        ),
        (
            REAL.replace('"private"', '"private", 186'),
            ValueError,
            "[grid] n: 'private' is 186 for population 'boot', also listed.",
        ),
        (
            REAL.replace("[errors]", "[other]"),
            ValueError,
            "unknown table(s) ['other']",
        ),
        (
            REAL.replace("[errors]\n", "")
            .replace('score = "test_mse"\n', "")
            .replace('data = "diabetes"\n', "")
            .replace('["boot", "mix"]', '["heights"]'),
            ValueError,
            "[grid] n = 'private' needs a data set: population 'heights' has no "
            "dataset and there is no [errors] data.",
        ),
    ],
)
def test_every_bad_real_models_config_is_refused_before_any_run(
    tmp_path, text, exc, message
):
    path = _real(tmp_path, text)
    with pytest.raises(exc, match=re.escape(f"{path}: {message}")):
        run_batch(path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------- reliability
ONE_RUN = """
[grid]
population = "{population}"
query = "{query}"
n = 100
gamma = 0.05
mechanism = "laplace"
epsilon = 1.0
{extra}
[populations.two]
kind = "MultivariateNormal"
mean = [0, 0]
cov = [[1, 0], [0, 1]]
"""


def _one_run(tmp_path, population="heights", query="mean", extra=""):
    path = tmp_path / "c.toml"
    path.write_text(ONE_RUN.format(population=population, query=query, extra=extra))
    return path


def test_a_config_the_machine_cannot_hold_is_refused_at_check_time(
    tmp_path, monkeypatch
):
    # Failed before: m = 1e9 passed every check; the run was then killed by the
    # out-of-memory killer after 103 s (24 GB resident).
    from sensampler._lib import memory as _memory

    monkeypatch.setattr(_memory, "physical_memory", lambda: 16 * 2**30)
    path = _one_run(tmp_path, extra="[run]\nm = 1000000000\n")
    with pytest.raises(ValueError, match=re.escape("m=1000000000 pairs of 1 sens")):
        load_config(path)
    # the sweep's repetitions too: 5e6 databases of 100 records are 4 GB, which
    # fit twice over in 16 GiB (the old check), not the five copies measured
    path = _one_run(tmp_path, extra="[run]\nrepetitions = 5000000\n")
    with pytest.raises(ValueError, match=re.escape("repetitions=5000000 databases")):
        load_config(path)


@pytest.mark.parametrize(
    "population, model, params, message",
    [
        ("heights", "Ridge", "", "Ridge cannot be fitted on data of shape (100, 1)"),
        ("two", "LogisticRegression", "", "Unknown label type: continuous"),
        ("two", "Ridge", "params = {alpha = -1.0}", "The 'alpha' parameter of Ridge"),
    ],
)
def test_estimators_that_cannot_fit_the_population_are_refused_at_check_time(
    tmp_path, population, model, params, message
):
    # Failed before: load_config passed; each failed during the run (exit 1).
    extra = f'[queries.q]\nkind = "estimator"\nmodel = "{model}"\n{params}\n'
    path = _one_run(tmp_path, population=population, query="q", extra=extra)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: the run of population {population!r}")


def test_a_config_with_a_byte_order_mark_reads(tmp_path):
    # Failed before: "malformed TOML: Invalid statement (at line 1, column 1)".
    path = _one_run(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert [run.query_name for run in load_config(path).runs] == ["mean"]


def test_a_full_disk_names_the_file(tmp_path, monkeypatch):
    # Failed before: "[Errno 28] No space left on device", no file named.
    path = _one_run(tmp_path, extra="[run]\nrepetitions = 3\n")

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "out"
    with pytest.raises(OSError, match=r"cannot write .*/runs/[0-9a-f]{16}\.json: No "):
        run_batch(path, out)
    assert list((out / "runs").iterdir()) == []  # no temporary file left


@pytest.mark.slow
def test_the_summary_is_identical_for_any_n_jobs_the_run_ids_are_not(tmp_path):
    config = _write(tmp_path, reps=3)
    run_batch(config, tmp_path / "a", n_jobs=1)
    run_batch(config, tmp_path / "b", n_jobs=2)
    summary = [(tmp_path / d / "summary.csv").read_bytes() for d in "ab"]
    assert summary[0] == summary[1]
    for file in (tmp_path / "a" / "runs").glob("*.json"):
        a, b = (json.loads((tmp_path / d / "runs" / file.name).read_text()) for d in "ab")
        assert a["rows"] == b["rows"]
        assert a["estimate"]["sensitivity"] == b["estimate"]["sensitivity"]
        assert a["estimate"]["run_id"] != b["estimate"]["run_id"]  # random


def test_a_forged_checksum_is_accepted_as_documented(tmp_path):
    # The checksum detects accidents, not forgery (module docstring).
    from sensampler.app.experiments import batch

    path = _one_run(tmp_path, extra="[run]\nrepetitions = 3\n")
    out = tmp_path / "out"
    run_batch(path, out)
    (file,) = (out / "runs").glob("*.json")
    record = json.loads(file.read_text())
    record["rows"][0]["value"] = -1.0
    content = {k: v for k, v in record.items() if k != "checksum"}
    file.write_text(json.dumps({**content, "checksum": batch._checksum(content)}))
    assert run_batch(path, out).rows[0]["error"] == -1.0
    assert "detects accidents, not forgery" in " ".join(batch.__doc__.split())


# ------------------------------------------------------- private estimators
PRIVATE_ESTIMATOR = """
[run]
seed = 5
repetitions = 4
m = 40

[grid]
population = ["boot"]
query = ["ridge"]
n = ["private"]
gamma = [0.5]
norm = ["l2"]
mechanism = ["analytic"]
epsilon = [1.0, 10.0]

[datasets.diabetes]
loader = "load_diabetes"
seed = 4

[populations.boot]
kind = "Empirical"
dataset = "diabetes"

[queries.ridge]
kind = "private_estimator"
model = "Ridge"
params = { alpha = 10.0 }
tune = { alpha = [3.0, 30.0] }
augment = true

[errors]
score = "test_mse"
data = "diabetes"
"""


@pytest.mark.slow
def test_a_private_estimator_is_fitted_released_and_scored(tmp_path):
    from sklearn.linear_model import Ridge

    path = _real(tmp_path, PRIVATE_ESTIMATOR)
    summary = run_batch(path, tmp_path / "out")
    rows = [r for r in summary.rows if r["statistic"] == "mean"]
    assert [r["epsilon"] for r in rows] == [1.0, 10.0]
    assert all(r["measure"] == "test_mse" and r["n"] == 186 for r in rows)
    assert all(r["sensitivity"] > 0 and r["m"] == 40 for r in rows)
    references = (tmp_path / "out" / "references.csv").read_text()
    split = load_split("load_diabetes", seed=4)
    public = Ridge(alpha=10.0).fit(split.public[:, :-1], split.public[:, -1])
    mse = ((public.predict(split.test[:, :-1]) - split.test[:, -1]) ** 2).mean()
    assert f"public data only,{float(mse)!r}" in references
    assert "non-private, public + private" in references


@pytest.mark.slow
def test_the_shipped_private_estimator_config_runs_from_the_command_line(tmp_path):
    shipped = os.path.join(
        os.path.dirname(__file__), *[os.pardir] * 4, "examples",
        "private_estimators.toml",
    )
    with open(shipped, encoding="utf-8") as handle:
        text = handle.read()
    for key, value in (
        ("repetitions", "2"), ("m", "30"), ("gamma", "[0.5]"), ("epsilon", "[1.0]")
    ):
        text = _edit(key, value, text)
    path = _real(tmp_path, text)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "sensampler", "run", str(path), "--out", str(out)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    with open(out / "summary.csv", newline="") as handle:
        (mean,) = [r for r in csv.DictReader(handle) if r["statistic"] == "mean"]
    assert mean["measure"] == "test_accuracy" and 0.5 < float(mean["error"]) <= 1


@pytest.mark.slow
def test_a_private_estimator_summary_is_identical_for_any_n_jobs(tmp_path):
    text = _edit("tune", None, _edit("epsilon", "[1.0]", _edit("m", "20", PRIVATE_ESTIMATOR)))
    text = text.replace('["boot"]', '["boot", "boot2"]') + (
        '\n[populations.boot2]\nkind = "Empirical"\ndataset = "diabetes"\n'
    )
    path = _real(tmp_path, text)
    run_batch(path, tmp_path / "a", n_jobs=1)
    run_batch(path, tmp_path / "b", n_jobs=2)
    summary = [(tmp_path / d / "summary.csv").read_bytes() for d in "ab"]
    assert summary[0] == summary[1]


@pytest.mark.parametrize(
    "text, exc, message",
    [
        (
            _edit("model", "'SVC'", PRIVATE_ESTIMATOR),
            ValueError,
            "[queries.ridge] 'ridge': model must be one of 'LinearRegression', "
            "'Ridge', 'Lasso', 'ElasticNet', 'LogisticRegression', got model='SVC'.",
        ),
        (
            _edit("augment", "1", PRIVATE_ESTIMATOR),
            ValueError,
            "[queries.ridge] 'ridge': augment must be true or false, got augment=1.",
        ),
        (
            _edit("tune", "{ C = [1.0] }", PRIVATE_ESTIMATOR),
            ValueError,
            "[queries.ridge] 'ridge': tune must map parameters of Ridge to "
            "non-empty lists of values, got tune={'C': [1.0]}.",
        ),
        (
            _edit("tune", "{ alpha = [] }", PRIVATE_ESTIMATOR),
            ValueError,
            "[queries.ridge] 'ridge': tune must map parameters of Ridge to "
            "non-empty lists of values, got tune={'alpha': []}.",
        ),
        (
            _edit("tune", "{ alpha = [-1.0] }", PRIVATE_ESTIMATOR),
            ValueError,
            "[grid] query 'ridge' on the data set 'diabetes': ",
        ),
        (
            _edit("augment", "true\nnoise = 2", PRIVATE_ESTIMATOR),
            ValueError,
            "[queries.ridge] 'ridge': unknown query key(s) ['noise']; keys: kind, "
            "model, params, tune, augment.",
        ),
        (
            _edit("mechanism", '["gaussian"]', PRIVATE_ESTIMATOR),
            ValueError,
            "[queries.ridge] kind = 'private_estimator' releases with [grid] "
            "mechanism 'analytic', 'laplace', got 'gaussian'.",
        ),
        (
            _edit("norm", '["linf"]', PRIVATE_ESTIMATOR),
            ValueError,
            "[queries.ridge] kind = 'private_estimator' samples the 'l1' or 'l2' "
            "sensitivity, got [grid] norm 'linf'.",
        ),
        (
            _edit("score", None, _edit("data", None, PRIVATE_ESTIMATOR)),
            ValueError,
            "[queries.ridge] kind = 'private_estimator' needs [errors] score and "
            "data",
        ),
    ],
)
def test_every_bad_private_estimator_config_is_refused_before_any_run(
    tmp_path, text, exc, message
):
    path = _real(tmp_path, text)
    with pytest.raises(exc, match=re.escape(f"{path}: {message}")):
        run_batch(path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _count_builds(monkeypatch):
    """Count the data sets loaded, the populations and queries built and the
    config files read while a batch is checked and run."""
    calls = collections.Counter()

    def counting(name, built):
        def counted(*args, **kwargs):
            calls[name] += 1
            return built(*args, **kwargs)

        return counted

    # the populations and queries are built through batch_release (a person-level
    # run's are read as a person-level release reads them)
    for module, name in ((batch_config, "load_split"), (batch_release, "build_population"),
                         (batch_release, "build_query"), (batch_config, "read_toml")):
        monkeypatch.setattr(module, name, counting(name, getattr(module, name)))
    return calls


def test_a_config_is_checked_once_then_flows_down(tmp_path, monkeypatch):
    """Each data set, population and query of a config is built once, when it is
    checked; the runs take them from the record.

    Failed before: the checks built the query 3 times (built, fitted on the
    public part, probed), and every run loaded its data sets and built its
    population and query again from the raw tables.
    """
    calls = _count_builds(monkeypatch)
    load_config(_real(tmp_path))
    assert calls == {"read_toml": 1, "load_split": 1, "build_population": 2,
                     "build_query": 1}
    calls.clear()
    run_batch(_small(tmp_path), tmp_path / "out", n_jobs=1)  # 4 runs
    assert calls == {"read_toml": 1, "build_population": 1, "build_query": 1}


def test_run_batch_takes_the_checked_record_and_reads_nothing_again(
    tmp_path, monkeypatch
):
    """run_batch takes the record load_config made and runs it as is: the file
    is not read again (it may be gone), and the results are those of the path.

    Failed before: load_config returned the raw tables, which run_batch refused
    ("config_path must be a path"); it took a path only and read it again.
    """
    path = _small(tmp_path)
    config = load_config(path)
    path.unlink()
    calls = _count_builds(monkeypatch)
    from_record = run_batch(config, tmp_path / "record", n_jobs=1)
    assert sum(calls.values()) == 0
    path = _small(tmp_path)
    assert from_record == run_batch(path, tmp_path / "path", n_jobs=1)
    assert sorted(os.listdir(tmp_path / "record" / "runs")) == sorted(
        os.listdir(tmp_path / "path" / "runs")
    )


def test_parse_config_checks_a_table_without_changing_it(tmp_path):
    """parse_config is the one check, for tables as for files: errors name the
    source given, and the caller's table is left as it was (scalars of [grid]
    are not turned into lists, defaults are not written into it).

    Failed before: there was no function that checked a table; the file's
    tables were checked and changed in place.
    """
    import copy
    import tomllib

    table = tomllib.loads(_one_run(tmp_path).read_text())
    before = copy.deepcopy(table)
    config = parse_config(table, source="mine")
    assert table == before
    assert config.source == "mine" and config.options.repetitions == 50
    assert [(run.population_name, run.query_name, run.n) for run in config.runs] == [
        ("heights", "mean", 100)
    ]
    table["grid"]["gamma"] = 1.5
    with pytest.raises(ValueError, match=re.escape("mine: [grid] gamma: must be")):
        parse_config(table, source="mine")


def test_the_run_command_reads_its_config_once(tmp_path, monkeypatch, capsys):
    """``sensampler run`` checks the config before the work (a usage error) and
    runs that very record.

    Failed before: the command read and checked the file, then run_batch read
    and checked it a second time.
    """
    from sensampler.app.cli import main

    calls = _count_builds(monkeypatch)
    path = _one_run(tmp_path, extra="[run]\nrepetitions = 3\n")
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--json"]) == 0
    assert calls["read_toml"] == 1 and calls["build_population"] == 1
    assert json.loads(capsys.readouterr().out)


# ------------------------------------------------------------- neighbours
def test_run_neighbours_samples_every_run_for_that_relation(tmp_path):
    path = tmp_path / "add_remove.toml"
    path.write_text(SMALL.replace("[run]\n", '[run]\nneighbours = "add-remove"\n'))
    out = tmp_path / "out"
    run_batch(path, out)
    records = [json.loads(f.read_text()) for f in sorted((out / "runs").glob("*.json"))]
    assert len(records) == 4
    for record in records:
        assert record["settings"]["neighbours"] == "add-remove"
        assert record["estimate"]["neighbours"] == "add-remove"
    # replace-one given explicitly is the default: the same runs, the same ids
    explicit = tmp_path / "explicit.toml"
    explicit.write_text(SMALL.replace("[run]\n", '[run]\nneighbours = "replace-one"\n'))
    ids = [run.run_id for run in load_config(explicit).runs]
    assert ids == [run.run_id for run in load_config(_small(tmp_path)).runs]


def test_the_summary_has_a_neighbours_column(tmp_path):
    # Before: the relation was in the run files only, not in summary.csv.
    path = tmp_path / "add_remove.toml"
    path.write_text(SMALL.replace("[run]\n", '[run]\nneighbours = "add-remove"\n'))
    summary = run_batch(path, tmp_path / "ar", n_jobs=1)
    assert {row["neighbours"] for row in summary.rows} == {"add-remove"}
    default = run_batch(_small(tmp_path), tmp_path / "ro", n_jobs=1)
    assert {row["neighbours"] for row in default.rows} == {"replace-one"}
    with open(tmp_path / "ro" / "summary.csv", newline="") as handle:
        header = next(csv.reader(handle))
    assert header[:7] == ["population", "query", "n", "gamma", "norm", "mechanism",
                          "neighbours"]


@pytest.mark.parametrize(
    "text, exc, message",
    [
        ("[run]\nneighbours='swap'\n" + GRID, ValueError, "[run] neighbours: must be"),
        ("[run]\nneighbours=2\n" + GRID, TypeError, "[run] neighbours: must be"),
        (
            "[run]\nneighbours = 'add-remove'\n" + _with("n", "[10, 1]"),
            ValueError,
            "the run of population 'heights', query 'mean', n = 1, gamma = 0.05, "
            "norm = 'l1': neighbours='add-remove' needs n >= 2",
        ),
        (
            PRIVATE_ESTIMATOR.replace("[run]\n", "[run]\nneighbours = 'add-remove'\n"),
            ValueError,
            "[queries.ridge] kind = 'private_estimator' samples replace-one pairs "
            "only, got [run] neighbours = 'add-remove'.",
        ),
    ],
)
def test_a_bad_neighbours_key_is_refused_before_any_run(tmp_path, text, exc, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(exc, match=re.escape(f"{path}: {message}")):
        run_batch(path, tmp_path / "out")
    assert not (tmp_path / "out").exists()
