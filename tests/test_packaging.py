"""What users install: the wheel's contents, the floors CI checks, the core install.

The core install (no extras) is simulated by hiding the extras from a fresh
interpreter (``sys.modules[name] = None`` makes ``import name`` fail), since the
test environment has them all.
"""

import glob
import importlib
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import tomllib
import zipfile

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import sensampler
from sensampler.parallel import default_progress

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(args, cwd, env=None):
    """Run ``python *args`` without stdin; the completed process, output as text."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        return tomllib.load(handle)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("building needs setuptools >= 77.0.3 (in the test extra)")
    out_dir = tmp_path_factory.mktemp("wheel")
    out = _run(
        ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet"]
        + ["--wheel-dir", str(out_dir), ROOT],
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    (path,) = glob.glob(str(out_dir / "sensampler-*.whl"))
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


@pytest.mark.slow
def test_wheel_installs_one_top_level_package(wheel):
    tops = {name.split("/")[0] for name in wheel if not name.endswith(".dist-info")}
    tops = {t for t in tops if not t.endswith(".dist-info")}
    assert tops == {"sensampler"}  # never a top-level `distributions` package
    assert "sensampler/distributions/__init__.py" in wheel  # from distributions/


#: Folders of the source tree -> where the wheel installs them (setup.py).
SOURCE_FOLDERS = {"sensampler": "sensampler", "distributions": "sensampler/distributions"}


def _source_modules():
    """Every module and package marker of the source tree, as wheel paths."""
    found = set()
    for folder, installed in SOURCE_FOLDERS.items():
        base = os.path.join(ROOT, folder)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            for name in filenames:
                if name.endswith(".py"):
                    path = os.path.relpath(os.path.join(dirpath, name), base)
                    found.add(f"{installed}/{path.replace(os.sep, '/')}")
    return found


@pytest.mark.slow
def test_wheel_holds_every_package_and_module_of_the_source_tree(wheel):
    # Before: the packages were listed by hand and sensampler.audit was left out,
    # so `pip install .` gave a command line that crashed on import.
    modules = _source_modules()
    assert "sensampler/audit/__init__.py" in modules
    assert "sensampler/app/experiments/__init__.py" in modules  # a sub-package's
    assert "sensampler/distributions/empirical.py" in modules  # distributions/
    assert sorted(modules - set(wheel)) == []
    shipped = {name for name in wheel if name.endswith((".py", ".pyi"))}
    assert not any(name.endswith(".pyi") for name in shipped)  # no stubs of old names
    assert sorted(shipped - modules) == []  # nothing stale (an old build/ folder)


def test_the_suite_tests_the_installed_package():
    # `make test` and CI install the built wheel and say so: the tests must then
    # import it, not the source tree (pytest's --import-mode=append, python -P).
    if os.environ.get("SENSAMPLER_TEST_INSTALLED") != "1":
        pytest.skip("set by `make test` and CI, which install the built wheel")
    where = os.path.realpath(sensampler.__file__)
    source = os.path.realpath(os.path.join(ROOT, "sensampler"))
    assert not where.startswith(source + os.sep), where
    assert os.sep + "site-packages" + os.sep in where


@pytest.mark.slow
def test_wheel_ships_types_license_and_main(wheel):
    assert "sensampler/py.typed" in wheel
    assert "sensampler/__main__.py" in wheel
    assert any(re.search(r"\.dist-info/licenses/LICENSE$", n) for n in wheel)


@pytest.mark.slow
def test_sdist_holds_tests_examples_notebooks_and_docs(tmp_path):
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("building needs setuptools >= 77.0.3 (in the test extra)")
    build = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    out = _run(["-c", build, str(tmp_path)], cwd=ROOT)
    assert out.returncode == 0, out.stderr
    with tarfile.open(tmp_path / out.stdout.split()[-1]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for wanted in [
        "LICENSE",
        "tests/test_packaging.py",
        "tests/typecheck/models_api.py",
        "examples/03_laplace_with_a_sampled_sensitivity.py",
        "notebooks/03_laplace_with_a_sampled_sensitivity.ipynb",
        "notebooks/build.py",
        "docs/conf.py",
        "docs/index.rst",
        ".ci/minimum-constraints.txt",
        "setup.py",
        "distributions/empirical.py",  # the design's top level, as in the repository
    ]:
        assert wanted in names
    assert not [n for n in names if "generated" in n or n.startswith("docs/_build")]


def test_the_console_script_names_a_function_of_the_package():
    # The command line lives in sensampler.app.cli: the entry point follows it.
    scripts = _pyproject()["project"]["scripts"]
    module, _, function = scripts["sensampler"].partition(":")
    assert module == "sensampler.app._console"
    assert callable(getattr(importlib.import_module(module), function))


def test_license_is_an_spdx_expression():
    project = _pyproject()["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    with open(os.path.join(ROOT, "LICENSE"), encoding="utf-8") as handle:
        text = handle.read()
    assert "BSD 3-Clause" in text and "the sensampler developers" in text


def _floors(requirements):
    """{name: floor} of the requirements that apply on Python 3.11 (CI's minimum)."""
    floors = {}
    for text in requirements:
        req = Requirement(text)
        if req.marker and not req.marker.evaluate({"python_version": "3.11"}):
            continue
        (floor,) = [s.version for s in req.specifier if s.operator == ">="]
        floors[req.name.lower()] = Version(floor)
        if req.name == "dask" and "distributed" in req.extras:
            floors["distributed"] = Version(floor)  # dask[distributed]: both projects
    return floors


def test_minimum_constraints_pin_every_declared_floor():
    project = _pyproject()["project"]
    declared = _floors(project["dependencies"])
    declared.update(_floors(project["optional-dependencies"]["test"]))
    with open(os.path.join(ROOT, ".ci", "minimum-constraints.txt")) as handle:
        pins = {}
        for line in handle:
            if line.strip() and not line.startswith("#"):
                name, version = line.strip().split("==")
                pins[name.lower()] = Version(version)
    assert {name: pins.get(name) for name in declared} == declared
    # beyond our floors, only what keeps the floors' run free of warnings
    assert set(pins) - set(declared) == {"pyparsing"}


def _run_without(modules, code, cwd):
    """Run ``code`` in a fresh interpreter where ``modules`` cannot be imported."""
    hide = "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    return _run(["-c", "import sys\n" + hide + textwrap.dedent(code)], cwd, env)


EXTRAS = ["tqdm", "tqdm.auto", "matplotlib", "matplotlib.pyplot", "pandas", "dask"]


def test_core_install_runs_sample(tmp_path):
    out = _run_without(
        EXTRAS,
        """
        from sensampler.app.cli import main
        sys.exit(main(["sample", "--n", "50", "--gamma", "0.2", "--seed", "0"]))
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "sensitivity" in out.stdout
    assert out.stderr == ""  # no bar: tqdm is missing (and stderr is a pipe)


@pytest.mark.slow
def test_core_install_runs_the_demo_and_skips_figures(tmp_path):
    out = _run_without(
        EXTRAS,
        """
        from sensampler.app.cli import main
        sys.exit(main(["demo", "--out", "results"]))
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    skipped = [line for line in out.stdout.splitlines() if "skipped" in line]
    assert skipped == ["Figures skipped: pip install 'sensampler[plot]' to draw them."]
    written = sorted(os.listdir(tmp_path / "results"))
    assert written and not [name for name in written if name.endswith(".png")]
    assert "\x1b[" not in out.stderr and "\r" not in out.stderr


def test_core_install_sweeps_and_skips_the_figure(tmp_path):
    out = _run_without(
        EXTRAS,
        """
        from sensampler.app.cli import main
        sys.exit(main(["sensitivity-sweep", "--n", "50", "--epsilons", "0.5,1",
                       "--repetitions", "5", "--out", "results", "--seed", "0"]))
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == (
        "Figures skipped: pip install 'sensampler[plot]' to draw them."
    )
    assert sorted(os.listdir(tmp_path / "results")) == ["error_vs_epsilon.csv"]


def test_python_m_sensampler_is_the_command(tmp_path):
    out = _run(["-m", "sensampler", "--version"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"sensampler {sensampler.__version__}"


class _Stream:
    def __init__(self, tty):
        self.tty = tty

    def isatty(self):
        return self.tty


def test_progress_bars_by_default_only_on_a_terminal_with_tqdm(monkeypatch):
    pytest.importorskip("tqdm")
    assert default_progress(_Stream(True)) is True
    assert default_progress(_Stream(False)) is False  # a log or a pipe
    assert default_progress(object()) is False  # no isatty at all
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the core install
    assert default_progress(_Stream(True)) is False
