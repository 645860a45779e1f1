"""The worked examples run, and each notebook is its example, executed without error.

The examples (``examples/*.py``, jupytext percent format) are the source; the
notebooks in ``notebooks/`` are generated from them by ``notebooks/build.py``.
Running the examples as scripts executes the notebooks' code; the notebooks are
checked to hold exactly that code, executed, with no error output.
"""

import glob
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAMES = sorted(
    os.path.splitext(os.path.basename(p))[0]
    for p in glob.glob(os.path.join(ROOT, "examples", "[0-9]*.py"))
)


def test_every_example_has_its_notebook():
    assert NAMES, "no examples found"
    notebooks = glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))
    assert sorted(os.path.splitext(os.path.basename(p))[0] for p in notebooks) == NAMES


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_example_runs(name, tmp_path):
    pytest.importorskip("matplotlib")
    env = dict(os.environ, MPLBACKEND="Agg")
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", f"{name}.py")],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    # a sensitivity read as a plain number would warn: examples read .value
    assert "PrivacyLeakWarning" not in out.stderr, out.stderr[-3000:]
    if name == "06_real_models":  # a script prints its table and saves its figure
        assert "test MSE (bootstrap)" in out.stdout
        assert (tmp_path / "real_models.png").stat().st_size > 0


@pytest.mark.slow
def test_real_models_example_names_its_extras_on_a_core_install(tmp_path):
    example = os.path.join(ROOT, "examples", "06_real_models.py")
    hide = "import runpy, sys\nsys.modules['pandas'] = None\n"
    out = subprocess.run(
        [sys.executable, "-c", hide + f"runpy.run_path({example!r}, run_name='__main__')"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 1
    assert "pip install 'sensampler[pandas,plot]'" in out.stderr


def _build_module():
    pytest.importorskip("jupytext")
    pytest.importorskip("nbclient")
    spec = importlib.util.spec_from_file_location(
        "build", os.path.join(ROOT, "notebooks", "build.py")
    )
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_its_example_executed(name):
    nbformat = pytest.importorskip("nbformat")
    build = _build_module()
    stored = nbformat.read(os.path.join(ROOT, "notebooks", f"{name}.ipynb"), 4)
    expected = build.read_example(name)
    assert [(c.cell_type, c.source) for c in stored.cells] == [
        (c.cell_type, c.source) for c in expected.cells
    ], f"notebook out of date: run python notebooks/build.py {name}"
    code = [c for c in stored.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), "notebook not executed"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    # a figure a cell ends with is shown as an image, not as "<Figure size ...>"
    results = [o for c in code for o in c.outputs if o.output_type == "execute_result"]
    figures = [o for o in results if o.data["text/plain"].startswith("<Figure")]
    assert all("image/png" in o.data for o in figures)
