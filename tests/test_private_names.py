"""No module of the package uses another module's private (underscore) names.

A name shared between modules gets a public home: a public name, in a private
module if it is not part of the API (``sensampler.app._locks.lock``). Private
modules themselves may be imported; their underscore names may not.
"""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("sensampler", "distributions")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _sources():
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            for name in filenames:
                if name.endswith(".py"):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, ROOT), path


def _is_module(path: str, node: ast.ImportFrom, name: str) -> bool:
    """Whether ``from <node> import name`` imports a submodule (a file or folder)."""
    if not node.level:  # "from sensampler import _x": resolve from the root
        base = os.path.join(ROOT, *(node.module or "").split(".")[1:])
    else:
        base = os.path.dirname(path)
        for _ in range(node.level - 1):
            base = os.path.dirname(base)
        if node.module:
            base = os.path.join(base, *node.module.split("."))
    return os.path.exists(os.path.join(base, name + ".py")) or os.path.isdir(
        os.path.join(base, name)
    )


def _uses_of_private_names(rel: str, path: str, source: str):
    tree = ast.parse(source)
    modules = set()  # local names bound to the package's modules
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] == "sensampler"
        ):
            for alias in node.names:
                if _is_module(path, node, alias.name):
                    modules.add(alias.asname or alias.name)
                elif _private(alias.name):
                    yield f"{rel}:{node.lineno}: imports {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sensampler":
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _private(node.attr)
        ):
            yield f"{rel}:{node.lineno}: uses {node.value.id}.{node.attr}"


def test_no_module_uses_another_modules_private_names():
    found = []
    for rel, path in _sources():
        with open(path, encoding="utf-8") as handle:
            found += _uses_of_private_names(rel, path, handle.read())
    assert found == []


def test_the_scan_finds_what_it_looks_for():
    source = (
        "from ...sampler import _probe_full\n"
        "from .. import plotting\n"
        "from ... import _lib\n"
        "from ..._lib.domains import EPSILON\n"
        "plotting._figure()\n"
        "_lib.domains\n"
    )
    path = os.path.join(ROOT, "sensampler", "app", "cli", "__init__.py")
    assert list(_uses_of_private_names("cli.py", path, source)) == [
        "cli.py:1: imports _probe_full",
        "cli.py:5: uses plotting._figure",
    ]
