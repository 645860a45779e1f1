"""A package's public names and modules, loaded on first use (PEP 562).

What SciPy's ``lazy_loader`` does for its subpackages: ``import sensampler``
costs what the names used cost, not every module's imports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str, names: Mapping[str, str], submodules: Iterable[str], public: Iterable[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : mapping
        Public name -> the module defining it, relative to ``package``
        (``"sweep"`` or ``".sweep"``: a module of the package; ``"..specs"``:
        of its parent).
    submodules : iterable of str
        Modules of ``package`` reachable as attributes.
    public : iterable of str
        The package's ``__all__``.

    Returns
    -------
    (__getattr__, __dir__)
        ``__getattr__`` imports a name or module on first access and stores it
        in the package, so that later accesses skip it.
    """
    names = {name: m if m.startswith(".") else f".{m}" for name, m in names.items()}
    submodules, public = tuple(submodules), tuple(public)

    def __getattr__(name: str) -> object:  # noqa: N807 - PEP 562's name
        if name in names:
            value = getattr(importlib.import_module(names[name], package), name)
        elif name in submodules:
            value = importlib.import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807 - PEP 562's name
        return sorted(set(vars(sys.modules[package])) | set(public) | set(submodules))

    return __getattr__, __dir__
