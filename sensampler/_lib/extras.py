"""Optional dependencies: import one, or say which extra installs it.

>>> require("math", "plot", "counting").sqrt(4.0)
2.0
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, extra: str, what: str, *, also: str = "") -> ModuleType:
    """Import ``module``, or raise an :class:`ImportError` naming the extra.

    Parameters
    ----------
    module : str
        The dotted module to import (``"matplotlib.figure"``); its top-level
        package is the one the message names.
    extra : str
        The extra of sensampler that installs it (``"plot"``).
    what : str
        What needs it, the subject of the message (``"a figure"``).
    also : str, default ""
        Further packages to name after the extra on the install line.

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ImportError
        ``"{what} needs {package}: pip install 'sensampler[{extra}]'."``,
        chained to the original error.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = module.split(".")[0]
        raise ImportError(
            f"{what} needs {package}: pip install "
            f"'sensampler[{extra}]'{' ' + also if also else ''}."
        ) from exc
