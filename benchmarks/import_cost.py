"""The cost of a first use: a fresh interpreter's time above ``import numpy``.

For each path (``import sensampler``; a first sample; a sample and a Laplace
release; a first ``release_statistic`` of a mean; the command ``sensampler
release`` of a mean from a CSV file, its start-up included) prints the median
over fresh interpreters of the wall time and the CPU time (user + system, from
the child's ``rusage``) above a fresh interpreter that only imports numpy, and
the ratio to the goal (0.25 s for the two releases; the figures of the sample
paths are shown against the same goal). Each round runs the reference and every
path once, in that order, so a change of load hits all of them; the figure is
the median of the per-round differences.

The interpreters run in an empty folder (so the package comes from where the
interpreter installed it, not from the current folder) with the bytecode cached
in a temporary folder (``PYTHONPYCACHEPREFIX``), written by one warm-up round:
an installed package imports from bytecode, not from source.

    python benchmarks/import_cost.py              # 7 rounds, about half a minute
    python benchmarks/import_cost.py --rounds 15
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

#: The goal of a first release of a mean, above ``import numpy`` (seconds).
GOAL = 0.25

NUMPY = "import numpy"

#: The first sample and the Laplace release of tests/test_import_cost.py.
SAMPLE = (
    "from sensampler import queries, sample_sensitivity\n"
    "from sensampler.distributions import GaussianMixture\n"
    "heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])\n"
    "est = sample_sensitivity(queries.mean, heights, n=100, gamma=0.05)\n"
)
LAPLACE = (
    SAMPLE + "from sensampler.mechanisms import LaplaceMechanism\n"
    "LaplaceMechanism(est, epsilon=1.0).release(170.0)\n"
)
RELEASE = (
    "import numpy as np\n"
    "from sensampler.app.release import release_statistic\n"
    "data = np.random.default_rng(0).normal(170, 10, size=500)\n"
    "release_statistic(data, 'mean', 'normal:loc=170,scale=10', epsilon=1.0,"
    " random_state=0)\n"
)


def paths(folder: str) -> dict[str, list[str]]:
    """Each measured path as a command line (the reference first)."""
    python = [sys.executable, "-P"]
    cli = python + ["-m", "sensampler", "release", "--data"]
    cli += [os.path.join(folder, "data.csv"), "--column", "height", "--query", "mean"]
    cli += ["--population", "normal:loc=170,scale=10", "--epsilon", "1"]
    return {
        "import numpy (reference)": python + ["-c", NUMPY],
        "import sensampler": python + ["-c", "import numpy, sensampler"],
        "sample": python + ["-c", SAMPLE],
        "sample + Laplace release": python + ["-c", LAPLACE],
        "release_statistic mean": python + ["-c", RELEASE],
        "CLI release mean": cli,
    }


def run_once(
    command: list[str], env: dict[str, str], folder: str
) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh interpreter running ``command``."""
    start = time.perf_counter()
    child = subprocess.Popen(
        command,
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{command} failed:\n{stderr.decode()}")
    return wall, usage.ru_utime + usage.ru_stime


def write_data(folder: str) -> None:
    """A private CSV file of 500 heights."""
    with open(os.path.join(folder, "data.csv"), "w") as file:
        file.write("height\n")
        for i in range(500):
            file.write(f"{160 + (i * 37) % 30}.5\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="fresh runs per path")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        write_data(folder)
        env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(folder, "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        commands = paths(folder)
        for command in commands.values():  # warm-up: writes the bytecode
            run_once(command, env, folder)
        times = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, command in commands.items():
                times[name].append(run_once(command, env, folder))
    print(f"{sys.executable}: medians of {args.rounds} fresh interpreters")
    reference = times.pop("import numpy (reference)")
    walls, cpus = zip(*reference)
    print(
        f"import numpy: wall {statistics.median(walls):.3f} s, "
        f"CPU {statistics.median(cpus):.3f} s (the reference)"
    )
    print(f"{'above import numpy':26} {'wall (s)':>9} {'CPU (s)':>9} {'wall/goal':>10}")
    for name, pairs in times.items():
        wall = statistics.median(w - r for (w, _), (r, _) in zip(pairs, reference))
        cpu = statistics.median(c - r for (_, c), (_, r) in zip(pairs, reference))
        print(f"{name:26} {wall:9.3f} {cpu:9.3f} {wall / GOAL:10.2f}")
    print(f"goal: a first release of a mean <= {GOAL} s above import numpy")


if __name__ == "__main__":
    main()
