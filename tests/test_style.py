"""The code stays within the project's lint rules (ruff, configured in pyproject.toml)
and holds no control characters."""

import os
import pathlib
import subprocess
import sys

import pytest

import sensampler

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
            "distributions",
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


def test_no_source_file_holds_control_characters():
    """Audit finding: a "\\b" in a plain string put a backspace character in a
    docstring (that of ``smallest_private_bounds_epsilon``), where a beta was meant."""
    root = pathlib.Path(sensampler.__file__).parent
    bad = [
        str(p.relative_to(root)) for p in root.rglob("*.py")
        if any(c in p.read_text() for c in "\x00\x07\x08\x0b\x0c")
    ]
    assert bad == []
