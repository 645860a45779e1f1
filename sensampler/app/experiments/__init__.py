"""Experiments: error-vs-epsilon sweeps on the release path (and of given
sensitivities, for studies of the sampler), batch runs, data sets shipped with
scikit-learn, and the source documents' studies.

The names and modules load on first use (PEP 562), as in :mod:`sensampler.app`:
a command that needs one experiment never loads the source documents' studies
(scipy.optimize and the accountants) nor the batch runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lib.lazy import lazy_attributes

if TYPE_CHECKING:  # what type checkers see; at run time the names load lazily
    from ..specs import MECHANISMS, accepted_norms, mechanism_from_name
    from .batch import run_batch
    from .batch_config import BatchConfig, load_config, parse_config
    from .datasets import DatasetSplit, load_split
    from .documents import (
        CompositionExperiment,
        composition_experiment,
        epsilon_vs_iterations,
        runs_before_budget,
        vectorized_vs_sequential,
    )
    from .release_sweep import error_vs_epsilon
    from .sweep import SD_DEFINITION, STATISTICS, sensitivity_sweep

#: Public names: name -> the module that defines it (relative to this package).
_NAMES = {
    "error_vs_epsilon": ".release_sweep",
    "sensitivity_sweep": ".sweep",
    "SD_DEFINITION": ".sweep",
    "STATISTICS": ".sweep",
    "mechanism_from_name": "..specs",
    "accepted_norms": "..specs",
    "MECHANISMS": "..specs",
    "run_batch": ".batch",
    "load_config": ".batch_config",
    "parse_config": ".batch_config",
    "BatchConfig": ".batch_config",
    "load_split": ".datasets",
    "DatasetSplit": ".datasets",
    "CompositionExperiment": ".documents",
    "composition_experiment": ".documents",
    "runs_before_budget": ".documents",
    "vectorized_vs_sequential": ".documents",
    "epsilon_vs_iterations": ".documents",
}

#: Modules, reachable as attributes (``sensampler.app.experiments.batch``).
_SUBMODULES = (
    "batch", "batch_config", "datasets", "documents", "release_sweep", "sweep",
)

__all__ = [
    "error_vs_epsilon",
    "sensitivity_sweep",
    "SD_DEFINITION",
    "mechanism_from_name",
    "accepted_norms",
    "MECHANISMS",
    "STATISTICS",
    "run_batch",
    "load_config",
    "parse_config",
    "BatchConfig",
    "load_split",
    "DatasetSplit",
    "CompositionExperiment",
    "composition_experiment",
    "runs_before_budget",
    "vectorized_vs_sequential",
    "epsilon_vs_iterations",
]


__getattr__, __dir__ = lazy_attributes(__name__, _NAMES, _SUBMODULES, __all__)
