"""The code stays within the project's lint rules (ruff, configured in pyproject.toml)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ruff_finds_nothing():
    # The environment's own ruff, at the version pyproject.toml declares; never one
    # found first on the PATH, whose rules may differ.
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    if not os.path.exists(ruff):
        pytest.skip("ruff is not installed (pip install 'sensampler[test]')")
    out = subprocess.run(
        [
            ruff,
            "check",
            "sensampler",
            "tests",
            "benchmarks",
            "notebooks",
            "examples",
            "docs",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
