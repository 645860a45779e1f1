"""The shared checks of sensampler._lib.validation, and every public ``progress``."""

import inspect
import os
import sys

import numpy as np
import pytest

import sensampler.app.cli  # noqa: F401 - loads every public module
from sensampler import SensitivitySampler, queries, sample_sensitivity
from sensampler._lib.validation import check_flag
from sensampler.app.demo import run_demo
from sensampler.app.experiments import error_vs_epsilon
from sensampler.app.experiments.batch import run_batch
from sensampler.app.experiments.sweep import sensitivity_sweep
from sensampler.audit import audit_estimate, compare_populations
from sensampler.distributions import Normal
from sensampler.parallel import run_tasks


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_check_flag_gives_a_bool(value):
    assert check_flag("progress", value) is bool(value)


@pytest.mark.parametrize("value", ["yes", "False", 1, 0, None, 1.0, [True]])
def test_check_flag_refuses_anything_else_by_name(value):
    with pytest.raises(TypeError, match=r"progress must be True or False, got progress="):
        check_flag("progress", value)


def _no_work(*args):  # pragma: no cover - must not be called
    raise AssertionError("called before progress was checked")


# Failed before: every public progress= took any value (``"no"`` is true and
# showed a bar, or needed tqdm), and some only after work was done.
_CALLS = {
    "sample_sensitivity": lambda p, tmp: sample_sensitivity(
        queries.mean, Normal(), 100, gamma=0.05, progress=p
    ),
    "SensitivitySampler": lambda p, tmp: SensitivitySampler(progress=p),
    "audit_estimate": lambda p, tmp: audit_estimate(
        sample_sensitivity(queries.mean, Normal(), 100, gamma=0.05, random_state=0),
        pairs=100,
        progress=p,
    ),
    "compare_populations": lambda p, tmp: compare_populations(
        queries.mean, {"normal": Normal()}, 100, 0.05, pairs=100, progress=p
    ),
    "sensitivity_sweep": lambda p, tmp: sensitivity_sweep(
        queries.mean, Normal(), 100, [1.0], {"one": 1.0}, repetitions=2, progress=p
    ),
    "error_vs_epsilon": lambda p, tmp: error_vs_epsilon(
        "mean", Normal(), 100, [1.0], repetitions=2, progress=p
    ),
    "run_demo": lambda p, tmp: run_demo(out_dir=os.path.join(tmp, "demo"), progress=p),
    "run_batch": lambda p, tmp: run_batch(
        os.path.join(tmp, "missing.toml"), os.path.join(tmp, "out"), progress=p
    ),
    "run_tasks": lambda p, tmp: run_tasks(_no_work, [(1,)], progress=p),
}


@pytest.mark.parametrize("name", sorted(_CALLS))
@pytest.mark.parametrize("value", ["no", 1, None])
def test_every_progress_parameter_is_checked_before_any_work(name, value, tmp_path):
    with pytest.raises(TypeError, match=r"progress must be True or False, got progress="):
        _CALLS[name](value, str(tmp_path))
    assert os.listdir(tmp_path) == []  # nothing written


def test_every_public_progress_parameter_is_tested():
    modules = {  # every public module loaded (the command line loads them all)
        m for n, m in list(sys.modules.items())
        if n.startswith("sensampler") and not any(p.startswith("_") for p in n.split("."))
    }
    found = set()
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            target = obj.__init__ if inspect.isclass(obj) else obj
            if callable(target):
                try:
                    parameters = inspect.signature(target).parameters
                except (TypeError, ValueError):
                    continue
                if "progress" in parameters:
                    found.add(name)
    assert found == set(_CALLS)
