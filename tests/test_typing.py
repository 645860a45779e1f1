"""Users' type checkers accept the public API and the README's examples (pyright).

The files checked are ``tests/typecheck/*_api.py`` (public-API usage with
``assert_type``) and every ```` ```python ```` block of the README, joined in order
as one script (a doctest block gives its source lines). The package is checked
as installed: pyright sees a tree of links laid out like the wheel, since it
cannot follow the import hook of an editable install.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # one pyright run checks every file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPING = os.path.join(ROOT, "tests", "typecheck")


def _pyright_command():
    # The environment's own pyright (the pip wrapper), never one found on the PATH.
    try:
        import pyright  # noqa: F401 - the pip wrapper, which bundles pyright itself
    except ImportError:
        pytest.skip("pyright is not installed (pip install 'sensampler[test]')")
    return [sys.executable, "-m", "pyright"]


def _installed_layout(target):
    """Links laid out as the wheel installs the source tree: ``sensampler/`` with
    the top-level ``distributions/`` folder as ``sensampler/distributions``."""
    package = target / "sensampler"
    package.mkdir()
    for name in os.listdir(os.path.join(ROOT, "sensampler")):
        if name != "__pycache__":
            os.symlink(os.path.join(ROOT, "sensampler", name), package / name)
    os.symlink(os.path.join(ROOT, "distributions"), package / "distributions")


def _readme_examples():
    """The README's Python blocks as one script (doctests: their source lines)."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        blocks = re.findall(r"```python\n(.*?)```", handle.read(), re.S)
    assert blocks, "the README has no Python example"
    lines = []
    for block in blocks:
        for line in block.splitlines():
            if ">>>" not in block:
                lines.append(line)
            elif line.startswith((">>> ", "... ")) or line in (">>>", "..."):
                lines.append(line[4:])
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def pyright_errors(tmp_path_factory):
    """{file name: [pyright error messages]} for every file checked."""
    command = _pyright_command()
    work = tmp_path_factory.mktemp("typing")
    _installed_layout(work)
    files = {name: os.path.join(TYPING, name) for name in os.listdir(TYPING)}
    for name, path in files.items():
        if name.endswith("_api.py"):
            shutil.copy(path, work / name)
    (work / "readme_examples.py").write_text(_readme_examples(), encoding="utf-8")
    config = {
        "typeCheckingMode": "standard",
        "reportMissingModuleSource": False,
        "include": [p.name for p in work.glob("*.py")],
    }
    (work / "pyrightconfig.json").write_text(json.dumps(config))
    out = subprocess.run(
        command + ["--outputjson", "--pythonpath", sys.executable],
        cwd=work,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        report = json.loads(out.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"pyright did not run: {out.stdout[-2000:]}{out.stderr[-2000:]}")
    errors = {p.name: [] for p in work.glob("*.py")}
    for diag in report["generalDiagnostics"]:
        if diag["severity"] == "error":
            line = diag["range"]["start"]["line"] + 1
            name = os.path.basename(diag["file"])
            errors.setdefault(name, []).append(f"{line}: {diag['message']}")
    return errors


def test_models_plans_norms_and_queries_type_check(pyright_errors):
    assert pyright_errors["models_api.py"] == []


def test_readme_examples_type_check(pyright_errors):
    assert pyright_errors["readme_examples.py"] == []


def test_sampler_mechanisms_and_accounting_type_check(pyright_errors):
    assert pyright_errors["release_api.py"] == []


def test_release_statistic_and_budget_files_type_check(pyright_errors):
    assert pyright_errors["release_statistic_api.py"] == []
