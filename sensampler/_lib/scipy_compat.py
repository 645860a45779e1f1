"""SciPy's submodules, imported on first use.

``scipy.special`` alone takes about 0.25 s to import, as long as a first
sampling run and release take without it, and most calls never need it (the
exact plan at k = m, the Laplace mechanism). Modules import the proxies below
in its place (``from ._scipy import special``) and pay for SciPy when a
function first reads an attribute of it.

>>> float(special.expit(0.0))
0.5
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["optimize", "special", "stats"]


class _OnFirstUse(ModuleType):
    """A module object that imports the named module when an attribute is read."""

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.__name__), attr)


optimize: Any = _OnFirstUse("scipy.optimize")
special: Any = _OnFirstUse("scipy.special")
stats: Any = _OnFirstUse("scipy.stats")
