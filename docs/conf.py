"""Sphinx configuration of sensampler's documentation (``make docs``).

The guide pages (``guide/*.md``) are written by hand; their code blocks run in
the test suite (``tests/test_documentation_examples.py``). Two kinds of page are
written here before the build, so neither can drift from its source: the API
pages from each public module's ``__all__`` (every public name is documented, a
new one needs no edit), and the executed notebooks of ``notebooks/``, rendered
with their outputs (not re-run).
"""

import glob
import importlib
import inspect
import os
import re
import shutil
import sys

from sphinx.pycode import ModuleAnalyzer

import sensampler

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

project = "sensampler"
author = "the sensampler developers"
copyright = "the sensampler developers"
version = release = sensampler.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "pydata_sphinx_theme"
html_title = f"sensampler {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "secondary_sidebar_items": [],
    "header_links_before_dropdown": 3,  # the guide's long titles fit one line
}
# Every page's left column lists the whole site (the theme's section navigation
# is empty on the guide's pages, which the root toctree lists).
templates_path = ["_templates"]
html_sidebars = {"**": ["sidebar-site-nav"]}
# Code blocks wrap instead of overflowing; notebook figures are shown readable.
html_static_path = ["_static"]
html_css_files = ["sensampler.css"]

autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# The checks ``tests/test_docstrings.py`` runs on every public callable: a
# docstring (GL08), a summary ending with a period (SS01, SS03), every parameter
# documented and none unknown (PR01, PR02), a Returns section where a function
# returns (RT01). A new public callable without them fails ``make docs``.
numpydoc_validation_checks = {"GL08", "SS01", "SS03", "PR01", "PR02", "RT01"}
# Private names (``_x``, ``__init__``) and what builtins define (exceptions'
# ``add_note``) are not ours to document.
numpydoc_validation_exclude = {r"(^|\.)_", r"\.(add_note|with_traceback)$"}
# Built-in query objects (``queries.mean``) are constants, documented by their
# ``#:`` comments; ``query(data)`` is described on the module's page.
numpydoc_validation_exclude |= {
    rf"^sensampler\.queries\.{name}$"
    for name in sensampler.queries.__all__
    if isinstance(getattr(sensampler.queries, name), sensampler.queries.Query)
}

nb_execution_mode = "off"  # the committed notebooks are already executed
myst_enable_extensions = ["dollarmath", "deflist"]
myst_heading_anchors = 3

#: Public modules and their one-line descriptions, in the order of the reference:
#: the core, then the application layer (``sensampler.app``) under the names its
#: modules are defined by (``api/index.rst`` presents the two).
API_MODULES = {
    "sensampler": "Sampling plans, the sensitivity sampler and its estimates",
    "sensampler.distributions": "Population models",
    "sensampler.queries": "Batched queries",
    "sensampler.norms": "Sensitivity norms",
    "sensampler.settings": "What a release is asked for: the settings record",
    "sensampler.mechanisms": "Mechanisms",
    "sensampler.mechanisms.choice": "Which mechanism a query gets",
    "sensampler.mechanisms.accuracy": "The accuracy of a mechanism's noise",
    "sensampler.accounting": "Composition and accounting",
    "sensampler.privacy": "Privacy statements and sampling runs",
    "sensampler.plan": "Sampling plans",
    "sensampler.parallel": "Chunking, seeding and parallel dispatch",
    "sensampler.audit": "Audits of mechanisms and sampled sensitivities",
    "sensampler.bounds": "Clipping bounds and worst-case sensitivities",
    "sensampler.quantile_calibration": "The exponential quantile mechanism at random DP",
    "sensampler.models": "Private scikit-learn estimators",
    "sensampler.app.release": "Releasing a statistic of your data",
    "sensampler.app.planning": "Planning a release from a target error",
    "sensampler.app.report": "Release and audit reports",
    "sensampler.app.budget_file": "Persistent privacy budgets",
    "sensampler.app.data_files": "Reading a column of a data file",
    "sensampler.app.experiments": "Experiments",
    "sensampler.app.plotting": "Figures",
}



def _write_if_changed(path, text):
    if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def _documented_at(module_name, name):
    """Where autosummary finds the ``#:`` comment documenting constant ``name``.

    A constant re-exported by a package is documented in the module defining it;
    autosummary only reads comments where it looks, so point it there.
    """
    value = getattr(sys.modules[module_name], name)
    for defining in sorted(sys.modules):
        if defining != module_name and not defining.startswith(module_name + "."):
            continue
        if getattr(sys.modules[defining], name, None) is not value:
            continue
        docs = ModuleAnalyzer.for_module(defining).find_attr_docs()
        if ("", name) in docs:
            if defining == module_name:
                return name
            return f"~{defining[len(module_name) + 1 :]}.{name}"
    return name


def _api_entry(module, name):
    obj = getattr(module, name)
    if inspect.isclass(obj) or inspect.isroutine(obj) or hasattr(obj, "__module__"):
        return name
    return _documented_at(module.__name__, name)


def _is_alias(obj, name):
    """A class exported under another name (autodoc cannot document its members)."""
    return inspect.isclass(obj) and obj.__name__ != name


def _write_api_pages():
    for module_name, title in API_MODULES.items():
        module = importlib.import_module(module_name)
        names = sorted(
            name
            for name in module.__all__
            if not name.startswith("_")
            and not isinstance(getattr(module, name), type(module))
        )
        heading = f"``{module_name}``: {title}"
        lines = [heading, "=" * len(heading), ""]
        lines += [
            f".. automodule:: {module_name}",
            "   :no-members:",
            "",
            f".. currentmodule:: {module_name}",
            "",
            ".. autosummary::",
            "   :toctree: generated",
            "",
        ]
        aliases = [name for name in names if _is_alias(getattr(module, name), name)]
        lines += [
            f"   {_api_entry(module, name)}" for name in names if name not in aliases
        ]
        if aliases:
            lines += ["", "Former names, kept as aliases:", ""]
            lines += [
                f"* ``{name}``: ``{getattr(module, name).__name__}``"
                for name in aliases
            ]
        _write_if_changed(
            os.path.join(HERE, "api", f"{module_name}.rst"), "\n".join(lines) + "\n"
        )


_TYPE_LINE = re.compile(r"^\s*[\w*][\w, *]* : \S")


def _escape_type_lines(app, what, name, obj, options, lines):
    """Escape reST markup in numpydoc type lines before numpydoc renders them.

    Shapes such as ``(m, *output_shape)`` would open an emphasis, and defaults
    such as ``"coef_"`` would name a link target.
    """
    for i, line in enumerate(lines):
        if _TYPE_LINE.match(line):
            head, _, kind = line.partition(" : ")
            kind = re.sub(r"(?<=[(,] )\*|(?<=\()\*", r"\\*", kind)
            kind = re.sub(r"(?<=\w)_(?=\W|$)", r"\\_", kind)
            lines[i] = f"{head} : {kind}"


def _constant_docs(app, what, name, obj, options, lines):
    """A constant re-exported from a module outside its package (e.g.
    ``sensampler.privacy.DEFAULT_ORDERS`` in ``sensampler.accounting``) gets the
    ``#:`` comment of its defining module, not its type's docstring."""
    if what != "data":
        return
    short = name.rpartition(".")[2]
    for defining in sorted(sys.modules):
        if not defining.startswith("sensampler"):
            continue
        if getattr(sys.modules[defining], short, None) is not obj:
            continue
        docs = ModuleAnalyzer.for_module(defining).find_attr_docs()
        if ("", short) in docs:
            lines[:] = list(docs["", short])
            return



def setup(app):
    app.connect("autodoc-process-docstring", _constant_docs, priority=300)
    # Before numpydoc (priority 500) turns the sections into reST.
    app.connect("autodoc-process-docstring", _escape_type_lines, priority=400)


def _copy_notebooks():
    target = os.path.join(HERE, "examples", "generated")
    os.makedirs(target, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))):
        shutil.copy2(path, target)


shutil.rmtree(os.path.join(HERE, "api", "generated"), ignore_errors=True)  # no stale
for _page in glob.glob(os.path.join(HERE, "api", "sensampler*.rst")):
    if os.path.basename(_page)[: -len(".rst")] not in API_MODULES:
        os.remove(_page)  # a module's page under a name it no longer has
_write_api_pages()
_copy_notebooks()
