"""The public modules that moved, and the import hook that keeps their names.

The application layer (the command line, releases, budget and data files, the
demo, reports, planning, figures, experiments) lives in :mod:`sensampler.app`,
apart from the core. Its modules keep their public names: ``sensampler.release``
*is* ``sensampler.app.release`` (the same module object, so a monkeypatch, a
pickle or an ``isinstance`` check sees one module), and nothing is imported
before it is asked for. :data:`MOVED` is the one table of moved names; the lazy
attributes of :mod:`sensampler` and the import hook below both read it. Type
checkers do not run import hooks: a stub at each former name
(``sensampler/release.pyi``, ``sensampler/experiments/batch.pyi``, ...)
re-exports the module it now is (``tests/sensampler/test_moved.py`` checks that
the stubs and this table agree).

The hook is a meta path finder and loader by duck typing, not a subclass of
``importlib.abc``'s classes: that module alone would load some fifty modules at
``import sensampler``.
"""

from __future__ import annotations

import importlib
import sys
from importlib.machinery import ModuleSpec

__all__ = ["MOVED", "new_name", "install"]

PACKAGE = __name__.rpartition(".")[0]

#: Former module name -> the module it is now, both relative to the package.
#: A name below a moved package moves with it (``experiments.batch`` is
#: ``app.experiments.batch``) unless listed itself (``ResultTable``'s module,
#: a record the core returns, left the experiments for the core).
MOVED = {
    "budget_file": "app.budget_file",
    "cli": "app.cli",
    "data_files": "app.data_files",
    "demo": "app.demo",
    "experiments": "app.experiments",
    "experiments.table": "table",
    "planning": "app.planning",
    "plotting": "app.plotting",
    "release": "app.release",
    "report": "app.report",
}


def new_name(fullname: str) -> str | None:
    """The module a former name now is, or None if ``fullname`` did not move.

    Parameters
    ----------
    fullname : str
        An absolute module name, e.g. ``"sensampler.experiments.batch"``, or a
        name inside a module (``"sensampler.release.release_statistic"``, as the
        documentation's cross-references write it).

    Returns
    -------
    str or None
        The absolute name of the module it is now
        (``"sensampler.app.experiments.batch"``), or None.
    """
    head, _, rest = fullname.partition(".")
    if head != PACKAGE or not rest:
        return None
    parts = rest.split(".")
    for cut in range(len(parts), 0, -1):  # the longest listed prefix
        moved = MOVED.get(".".join(parts[:cut]))
        if moved is not None:
            return ".".join([PACKAGE, moved, *parts[cut:]])
    return None


class _MovedModuleFinder:
    """Import a former name as the module it now is (a meta path finder and loader)."""

    def find_spec(self, fullname, path=None, target=None):
        """A spec for a former name, or None for any other name (the usual search).

        Parameters
        ----------
        fullname : str
            The module being imported.
        path, target
            Unused (the meta path finder protocol).

        Returns
        -------
        importlib.machinery.ModuleSpec or None
            The spec whose loader gives the moved module.
        """
        current = new_name(fullname)
        if current is None:
            return None
        return ModuleSpec(fullname, self, loader_state=current)

    def create_module(self, spec):
        """The moved module itself, imported under its current name.

        Parameters
        ----------
        spec : importlib.machinery.ModuleSpec
            The spec :meth:`find_spec` made.

        Returns
        -------
        module
            The module, also registered under the former name by the import system.
        """
        module = importlib.import_module(spec.loader_state)
        spec.loader_state = module.__spec__  # restored by exec_module
        return module

    def exec_module(self, module):
        """Give the module back its own spec (the import system set the alias's).

        Parameters
        ----------
        module : module
            The module :meth:`create_module` returned, already executed.
        """
        module.__spec__ = module.__spec__.loader_state

    def get_code(self, fullname):
        """For ``python -m`` with a former name: run the module it now is as ``__main__``.

        Parameters
        ----------
        fullname : str
            The former name given to ``python -m`` (``"sensampler.cli"``).

        Returns
        -------
        code
            Code that runs the moved module as ``__main__`` under its own name,
            so its relative imports resolve.
        """
        source = f"import runpy\nrunpy.run_module({new_name(fullname)!r}, "
        source += "run_name='__main__', alter_sys=True)\n"
        return compile(source, f"<{fullname}>", "exec")


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once, even after a reload).

    First, so that ``import sensampler.experiments.batch`` finds the module
    already imported as ``sensampler.app.experiments.batch`` instead of loading
    a second copy from the moved package's folder.
    """
    sys.meta_path[:] = [
        finder
        for finder in sys.meta_path
        if type(finder).__qualname__ != _MovedModuleFinder.__qualname__
        or type(finder).__module__ != __name__
    ]
    sys.meta_path.insert(0, _MovedModuleFinder())
