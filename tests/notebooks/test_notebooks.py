"""Each notebook matches its source in notebooks/build.py and runs without an error."""

import importlib.util
import os

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location(
    "build", os.path.join(ROOT, "notebooks", "build.py")
)
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)


@pytest.mark.parametrize("name", sorted(build.NOTEBOOKS))
def test_notebook_is_current_and_runs(name):
    path = os.path.join(ROOT, "notebooks", f"{name}.ipynb")
    stored = nbformat.read(path, as_version=4)
    sources = [c.source for c in stored.cells]
    assert sources == [src for _, src in build.NOTEBOOKS[name]], (
        "notebook out of date: run python notebooks/build.py"
    )
    assert all(
        not out.get("output_type") == "error"
        for c in stored.cells
        if c.cell_type == "code"
        for out in c.outputs
    )
    fresh = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        fresh,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": os.path.dirname(path)}},
    ).execute()  # raises CellExecutionError on any failing cell
