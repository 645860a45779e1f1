"""The former names of the application layer's modules: the same modules, lazily."""

import importlib
import os
import pickle
import subprocess
import sys

import pytest

import sensampler
from sensampler import _moved
from sensampler.app import release as release_module
from sensampler.app.experiments import batch


@pytest.mark.parametrize(
    ("former", "current"),
    [
        ("sensampler.release", "sensampler.app.release"),
        ("sensampler.cli", "sensampler.app.cli"),
        ("sensampler.experiments", "sensampler.app.experiments"),
        ("sensampler.experiments.batch", "sensampler.app.experiments.batch"),
        ("sensampler.experiments.table", "sensampler.table"),
        ("sensampler.release.nothing", "sensampler.app.release.nothing"),
    ],
)
def test_a_former_name_is_the_module_it_now_is(former, current):
    assert _moved.new_name(former) == current


@pytest.mark.parametrize(
    "name",
    ["sensampler", "sensampler.sampler", "sensampler.releases", "release", "numpy.cli"],
)
def test_other_names_did_not_move(name):
    assert _moved.new_name(name) is None


def test_the_moved_module_keeps_its_own_name_and_spec():
    import sensampler.release as former

    assert former is release_module is sensampler.release
    assert former.__name__ == former.__spec__.name == "sensampler.app.release"
    assert former.__spec__.origin.endswith("release.py")
    import sensampler.experiments.batch as former_batch

    assert former_batch is batch and batch.__spec__.name == batch.__name__
    assert importlib.reload(former) is release_module


def test_a_monkeypatch_through_a_former_name_patches_the_module_used(monkeypatch):
    monkeypatch.setattr("sensampler.release.RELEASE_MECHANISMS", ("patched",))
    assert release_module.RELEASE_MECHANISMS == ("patched",)


def test_a_pickle_made_before_the_move_still_loads():
    from sensampler.experiments import ResultTable

    table = ResultTable([{"epsilon": 1.0}])
    now = pickle.dumps(table, protocol=0)  # names the class's module in plain text
    assert b"sensampler.table\n" in now
    before = now.replace(b"sensampler.table\n", b"sensampler.experiments.table\n")
    assert pickle.loads(before) == table
    function = pickle.dumps(release_module.release_statistic, protocol=0)
    function = function.replace(b"sensampler.app.release\n", b"sensampler.release\n")
    assert b"sensampler.release\n" in function and b"app" not in function
    assert pickle.loads(function) is release_module.release_statistic


def test_installing_twice_leaves_one_finder():
    _moved.install()
    _moved.install()
    finders = [f for f in sys.meta_path if type(f).__module__ == _moved.__name__]
    assert len(finders) == 1 and sys.meta_path[0] is finders[0]


def test_python_m_runs_a_former_name(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "sensampler.cli", "--version"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"sensampler {sensampler.__version__}"


def _former_public_modules():
    """{former name: current name} of every public module of the moved packages."""
    root = os.path.dirname(sensampler.__file__)
    found = {}
    for former, current in _moved.MOVED.items():
        found[f"sensampler.{former}"] = f"sensampler.{current}"
        folder = os.path.join(root, *current.split("."))
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if name.endswith(".py") and not name.startswith("_"):
                module = name[:-3]
                found[f"sensampler.{former}.{module}"] = f"sensampler.{current}.{module}"
    return found


def test_a_stub_gives_type_checkers_each_former_name():
    # The finder works at run time only; a type checker reads files. Each former
    # name has a stub re-exporting the module it now is, and nothing else does.
    root = os.path.dirname(sensampler.__file__)
    expected = {}
    for former, current in _former_public_modules().items():
        path = os.path.join(root, *former.split(".")[1:])
        path = os.path.join(path, "__init__.pyi") if os.path.isdir(path) else path + ".pyi"
        expected[os.path.relpath(path, root).replace(os.sep, "/")] = (
            f'"""The former name of {current}, for type checkers."""\n\n'
            f"from {current} import *  # noqa: F403\n"
            f"from {current} import __all__ as __all__\n"
        )
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".pyi"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    found[os.path.relpath(path, root).replace(os.sep, "/")] = handle.read()
    assert "experiments/batch.pyi" in expected and "release.pyi" in expected
    assert found == expected
    for former, current in _former_public_modules().items():
        assert _moved.new_name(former) == current
