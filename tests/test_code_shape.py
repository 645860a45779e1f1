"""The package stays easy to carry on: small modules and functions, a root that
shows its layers (issue 36's limits, checked on every run).

Code lines are the lines of a function that are not blank, not comments and
not its docstring.
"""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("sensampler", "distributions")

#: Largest function, in code lines: the core, and the application layer.
MAX_CORE_FUNCTION, MAX_APP_FUNCTION = 60, 80
#: Largest module, in lines.
MAX_MODULE = 800
#: Most modules directly in the package root.
MAX_ROOT_MODULES = 12


def _sources():
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            for name in filenames:
                if name.endswith(".py"):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, ROOT), path


def _code_lines(lines, node):
    body = node.body
    skip = set()
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        skip = set(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(
        1
        for number in range(node.lineno, node.end_lineno + 1)
        if number not in skip
        and lines[number - 1].strip()
        and not lines[number - 1].strip().startswith("#")
    )


def _too_long(rel, source):
    limit = MAX_APP_FUNCTION if rel.startswith("sensampler/app/") else MAX_CORE_FUNCTION
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            count = _code_lines(lines, node)
            if count > limit:
                yield f"{rel}:{node.lineno} {node.name}: {count} code lines > {limit}"


def test_no_function_is_too_long():
    found = []
    for rel, path in _sources():
        with open(path, encoding="utf-8") as handle:
            found += _too_long(rel.replace(os.sep, "/"), handle.read())
    assert found == []


def test_no_module_is_too_long():
    found = []
    for rel, path in _sources():
        with open(path, encoding="utf-8") as handle:
            count = len(handle.read().splitlines())
        if count > MAX_MODULE:
            found.append(f"{rel}: {count} lines > {MAX_MODULE}")
    assert found == []


def test_the_package_root_holds_few_modules():
    root = os.path.join(ROOT, "sensampler")
    modules = sorted(name for name in os.listdir(root) if name.endswith(".py"))
    assert len(modules) <= MAX_ROOT_MODULES, modules


def test_the_scan_counts_code_lines_only():
    source = 'def f():\n    """Doc.\n\n    More.\n    """\n    # a comment\n\n    return 1\n'
    lines = source.splitlines()
    (node,) = ast.parse(source).body
    assert _code_lines(lines, node) == 2  # the def line and the return
    long_body = "def g():\n" + "    x = 1\n" * 61
    assert list(_too_long("sensampler/plan.py", long_body)) != []
    assert list(_too_long("sensampler/app/cli/_plan.py", long_body)) == []
