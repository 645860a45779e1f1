"""The package's module graph is acyclic, with no imports of sensampler modules
inside functions (so no import cycle hides behind a lazy import), and the core
never imports the application layer (``sensampler.app``)."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = {"sensampler": "sensampler", "sensampler.distributions": "distributions"}


def _modules():
    """{module name: path} of every module of the installed package."""
    found = {}
    for package, folder in PACKAGES.items():
        base = os.path.join(ROOT, folder)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            rel = os.path.relpath(dirpath, base)
            prefix = package if rel == "." else f"{package}.{rel.replace(os.sep, '.')}"
            for name in filenames:
                if name.endswith(".py"):
                    module = (
                        prefix if name == "__init__.py" else f"{prefix}.{name[:-3]}"
                    )
                    found[module] = os.path.join(dirpath, name)
    return found


MODULES = _modules()

#: Modules of other parts of the package that still import sensampler modules
#: inside functions (the command line keeps its start-up light this way). Strict:
#: a module that no longer does must leave this list.
NESTED_IMPORTS_PENDING = {
}


def _resolve(module, node):
    """Absolute names a node imports (``from . import x`` gives ``pkg.x`` too)."""
    is_package = MODULES[module].endswith("__init__.py")
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        parts = module.split(".")
        keep = len(parts) - node.level + (1 if is_package else 0)
        base = ".".join(parts[:keep])
        target = f"{base}.{node.module}" if node.module else base
    else:
        target = node.module
    return [target] + [f"{target}.{alias.name}" for alias in node.names]


def _edges(module, source=None):
    """(imported sensampler modules at module level, those imported in functions).

    ``source`` replaces the module's file (to test the scan itself).
    """
    if source is None:
        with open(MODULES[module], encoding="utf-8") as fh:
            source = fh.read()
    tree = ast.parse(source)
    top, nested = set(), []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                targets = _resolve(module, child)
                targets = [t for t in targets if t in MODULES]
                if in_function:
                    nested.extend(targets)
                else:
                    top.update(t for t in targets if t != module)
            visit(child, inner)

    visit(tree, False)
    return top, nested


def test_modules_are_found():
    for name in ("sensampler.privacy", "sensampler.estimate", "sensampler.accounting"):
        assert name in MODULES
    assert "sensampler.distributions.univariate" in MODULES


@pytest.mark.parametrize(
    "module",
    [
        pytest.param(
            m,
            marks=pytest.mark.xfail(
                m in NESTED_IMPORTS_PENDING,
                reason="imports sensampler modules inside functions",
                strict=True,
            ),
        )
        for m in sorted(MODULES)
    ],
)
def test_no_sensampler_import_inside_a_function(module):
    assert _edges(module)[1] == []


def test_module_graph_is_acyclic():
    # imports inside functions count too: a lazy import does not break a cycle
    graph = {m: _edges(m)[0] | set(_edges(m)[1]) - {m} for m in MODULES}
    state = {}  # 1: on the stack, 2: done

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_privacy_is_a_leaf_and_accounting_reads_statements_only():
    graph = {m: _edges(m)[0] for m in MODULES}
    leaves = {
        "sensampler._lib.validation",
        "sensampler._lib.domains",
        "sensampler._lib.extras",
        "sensampler._lib",
        "sensampler._lib.printing",
        "sensampler._display.page",
        "sensampler._display.statements",
        "sensampler._math.curves",
        "sensampler._math.rounding",
    }
    # the package and its private modules are one unit: what they import from
    # outside it is leaves only
    privacy = {m for m in MODULES if m.split(".")[:2] == ["sensampler", "privacy"]}
    assert {"sensampler.privacy", "sensampler.privacy._statement"} <= privacy
    outside = set().union(*(graph[m] for m in privacy)) - privacy
    assert outside <= leaves
    assert graph["sensampler._lib.extras"] == graph["sensampler._math.curves"] == set()
    assert graph["sensampler._math.rounding"] == set()
    # the one number-printing policy reads only the rounding helpers
    assert graph["sensampler._lib.printing"] == {"sensampler._math.rounding"}
    display = {m for m in MODULES if m.startswith("sensampler._display.")}
    assert "sensampler._display.statements" in display
    for module in display:  # the HTML reads records by their attributes only
        assert graph[module] <= display | {
            "sensampler._math.rounding", "sensampler._lib", "sensampler._lib.printing"
        }, module
    assert graph["sensampler._lib.domains"] <= {"sensampler._lib.validation"}
    for module in MODULES:
        if module.startswith("sensampler.accounting"):
            assert not any(t.startswith("sensampler.mechanisms") for t in graph[module])


def test_the_default_budget_module_is_a_leaf():
    # mechanisms and accounting both read it, and neither imports the other
    assert _edges("sensampler._lib.default_budget")[0] == set()


#: Entry points outside the application layer that start it: ``python -m
#: sensampler`` runs the command line.
APP_ENTRY_POINTS = {"sensampler.__main__"}


def _is_app(module):
    return module == "sensampler.app" or module.startswith("sensampler.app.")


def _core_imports_of_app(module, source=None):
    top, nested = _edges(module, source)
    return sorted(t for t in top | set(nested) if _is_app(t))


def test_the_core_never_imports_the_application_layer():
    core = [m for m in MODULES if not _is_app(m) and m not in APP_ENTRY_POINTS]
    assert "sensampler.audit.populations" in core and "sensampler.table" in core
    assert {m: _core_imports_of_app(m) for m in core if _core_imports_of_app(m)} == {}


@pytest.mark.parametrize(
    "line",
    [
        "from ..app.release import release_statistic",
        "from ..app import plotting",
        "from .. import app",
        "import sensampler.app.cli",
        "from sensampler.app.experiments.batch import run_batch",
    ],
)
def test_the_layer_check_sees_every_form_of_import(line):
    # Before the move, sensampler.audit.populations imported
    # sensampler.table (the application layer) for ResultTable.
    assert _core_imports_of_app("sensampler.audit.populations", line + "\n") != []
    fine = "from ..table import ResultTable\n"
    assert _core_imports_of_app("sensampler.audit.populations", fine) == []
