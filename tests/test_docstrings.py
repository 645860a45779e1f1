"""Every public callable has a numpydoc docstring that passes numpydoc's validator.

The public callables are the classes and functions named in each public
module's ``__all__``, with the public methods and properties their classes
define. ``docs/conf.py`` runs the same checks in the docs build
(``numpydoc_validation_checks``).
"""

import ast
import functools
import importlib
import inspect
import os

import pytest

validate = pytest.importorskip(
    "numpydoc.validate", reason="needs the docs extra: sensampler[docs]"
)

#: Public modules whose ``__all__`` is the public API.
PUBLIC_MODULES = (
    "sensampler",
    "sensampler.accounting",
    "sensampler.mechanisms",
    "sensampler.audit",
    "sensampler.models",
    "sensampler.bounds",
    "sensampler.privacy",
    "sensampler.plan",
    "sensampler.parallel",
    "sensampler.norms",
    "sensampler.queries",
    "sensampler.estimate",
    "sensampler.sampler",
    "sensampler.distributions",
    "sensampler.app.release",
    "sensampler.app.planning",
    "sensampler.app.report",
    "sensampler.app.budget_file",
    "sensampler.app.data_files",
    "sensampler.app.experiments",
    "sensampler.app.plotting",
)

#: The checks run here and in the docs build: a docstring (GL08), a one-line
#: summary ending with a period (SS01, SS03), every parameter documented and no
#: unknown one (PR01, PR02), a Returns section where a function returns (RT01).
CHECKS = ("GL08", "SS01", "SS03", "PR01", "PR02", "RT01")


def _ours(obj):
    return getattr(obj, "__module__", "").startswith("sensampler")


def _members(cls):
    """Public methods and properties ``cls`` defines or inherits from sensampler."""
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        for owner in cls.__mro__:
            if name in vars(owner):
                raw = vars(owner)[name]
                break
        else:
            continue
        if not _ours(owner):
            continue
        if isinstance(raw, (classmethod, staticmethod)):
            raw = raw.__func__
        if isinstance(raw, (property, functools.cached_property)) or (
            inspect.isfunction(raw)
        ):
            yield f"{owner.__module__}.{owner.__qualname__}.{name}", raw


@functools.cache
def public_callables():
    """``{qualified name: object}`` of every public callable, each object once."""
    found = {}
    seen = set()

    def add(name, obj):
        if id(obj) not in seen:
            seen.add(id(obj))
            found[name] = obj

    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            # Constants and query instances (``queries.mean``) are data, documented
            # by their ``#:`` comments; modules have their own pages.
            if not (inspect.isclass(obj) or inspect.isroutine(obj)) or not _ours(obj):
                continue
            add(f"{obj.__module__}.{obj.__qualname__}", obj)
            if inspect.isclass(obj):
                for member_name, member in _members(obj):
                    add(member_name, member)
    return found


def docstring_errors(obj):
    """The errors of ``CHECKS`` numpydoc's validator finds in ``obj``'s docstring."""
    report = validate.validate(validate.get_doc_object(obj))
    return [(code, message) for code, message in report["errors"] if code in CHECKS]


def test_public_api_is_large():
    # A broken collector would make the test below pass vacuously.
    assert len(public_callables()) > 250


def test_docs_build_runs_the_same_checks():
    conf = os.path.join(os.path.dirname(os.path.dirname(__file__)), "docs", "conf.py")
    with open(conf, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    checks = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets]
        == ["numpydoc_validation_checks"]
    ]
    assert checks == [set(CHECKS)]


@pytest.mark.parametrize("name", sorted(public_callables()))
def test_docstring_is_valid(name):
    errors = docstring_errors(public_callables()[name])
    assert not errors, "\n".join(f"{name}: {code} {msg}" for code, msg in errors)


def test_mechanism_class_signature_is_its_constructors():
    # The metaclass's __call__(*args, **kwargs) would otherwise be what help(),
    # the docs and the validator above read.
    from sensampler.mechanisms import GaussianMechanism, Mechanism

    assert list(inspect.signature(GaussianMechanism).parameters) == [
        "sensitivity",
        "epsilon",
        "delta",
        "variant",
        "worst_case_epsilon",
    ]
    assert not inspect.signature(Mechanism).parameters
