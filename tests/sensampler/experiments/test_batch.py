import json
import re
import signal
import subprocess
import sys
import time

import pytest

from sensampler.experiments import run_batch
from sensampler.experiments.batch import load_config

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


def test_parallel_batch_equals_serial(tmp_path):
    config = _write(tmp_path)
    assert run_batch(config, tmp_path / "a", n_jobs=1) == run_batch(
        config, tmp_path / "b", n_jobs=2
    )


@pytest.mark.slow
def test_interrupted_batch_loses_and_redoes_nothing(tmp_path):
    config = _write(tmp_path, reps=40000)  # each run takes a moment
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "sensampler.cli",
        "run",
        str(config),
        "--out",
        str(out),
        "--n-jobs",
        "1",
        "--no-progress",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runs = out / "runs"
    deadline = time.time() + 120
    while time.time() < deadline:
        done = [f for f in runs.glob("*.json")] if runs.exists() else []
        if len(done) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert b"interrupted; finished work is kept" in err
    kept = {f.name: (f.stat().st_mtime_ns, f.read_text()) for f in runs.glob("*.json")}
    assert 3 <= len(kept) < 16
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
