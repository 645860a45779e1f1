"""Audit findings on the former module names (``sensampler._moved``): every
form of import a former name took must give the one module it now is, in a
fresh interpreter (nothing imported before)."""

import os
import subprocess
import sys

import pytest

import sensampler

ROOT = os.path.dirname(os.path.dirname(sensampler.__file__))

FORMER_SUBMODULES = [
    ("sensampler.experiments", "table", "sensampler.table"),
    ("sensampler.experiments", "batch", "sensampler.app.experiments.batch"),
    ("sensampler.experiments", "sweep", "sensampler.app.experiments.sweep"),
    ("sensampler", "release", "sensampler.app.release"),
    ("sensampler", "budget_file", "sensampler.app.budget_file"),
]


@pytest.mark.parametrize(("package", "child", "current"), FORMER_SUBMODULES)
def test_from_a_former_package_import_a_former_submodule(package, child, current):
    # `from sensampler.experiments import table` looked for
    # sensampler.app.experiments.table, which does not exist: ImportError
    code = (
        f"import sys\nfrom {package} import {child} as module\n"
        f"import {current}\n"
        f"assert module is sys.modules[{current!r}], module\n"
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
