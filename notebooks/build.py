"""Write the executed notebooks from the worked examples in ``examples/``.

    python notebooks/build.py            # every example
    python notebooks/build.py 03_laplace_with_a_sampled_sensitivity

Each example is a Python file in jupytext's percent format (``# %%`` starts a
code cell, ``# %% [markdown]`` a text cell), linted by ruff and run by the tests;
the notebook ``notebooks/<name>.ipynb`` is that file executed, outputs kept, and
is what the documentation site renders. Needs the ``notebooks`` extra.
"""

from __future__ import annotations

import glob
import os
import sys

import jupytext
import nbformat
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")


def example_names() -> list[str]:
    """Names of the worked examples, in order (file names without ``.py``)."""
    paths = sorted(glob.glob(os.path.join(EXAMPLES, "[0-9]*.py")))
    return [os.path.splitext(os.path.basename(p))[0] for p in paths]


def read_example(name: str) -> nbformat.NotebookNode:
    """The notebook of ``examples/<name>.py``, not executed."""
    nb = jupytext.read(os.path.join(EXAMPLES, f"{name}.py"), fmt="py:percent")
    nb.metadata = {
        "kernelspec": {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
    }
    for cell in nb.cells:
        cell.metadata = {}
    return nb


def build(name: str) -> str:
    """Execute ``examples/<name>.py`` as a notebook and write it; return its path."""
    nb = read_example(name)
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": HERE}},
    ).execute()
    path = os.path.join(HERE, f"{name}.ipynb")
    nbformat.write(nb, path)
    return path


if __name__ == "__main__":
    for name in sys.argv[1:] or example_names():
        print(build(name), file=sys.stderr)
