"""The application layer: what reads files and flags and draws figures, on top of the core.

The command line (:mod:`~sensampler.app.cli`), releases of a statistic of a data
file (:mod:`~sensampler.app.release`), persistent budgets
(:mod:`~sensampler.app.budget_file`), data files (:mod:`~sensampler.app.data_files`),
the demo, reports, planning a release, figures and experiments (sweeps, batch
runs). The core (``sensampler`` outside this package) never imports it.

Like ``import sensampler``, ``import sensampler.app`` loads nothing more; the
modules load on first use.
"""

from __future__ import annotations

import importlib

#: Public modules, reachable as attributes (``sensampler.app.release``).
_SUBMODULES = (
    "budget_file",
    "cli",
    "data_files",
    "demo",
    "experiments",
    "planning",
    "plotting",
    "release",
    "report",
)

__all__: list[str] = []


def __getattr__(name: str) -> object:
    """Import a public module on first access (PEP 562)."""
    if name not in _SUBMODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = importlib.import_module(f".{name}", __name__)
    globals()[name] = value  # later accesses skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBMODULES))
