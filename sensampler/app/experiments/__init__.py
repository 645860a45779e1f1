"""Experiments: error-vs-epsilon sweeps on the release path (and of given
sensitivities, for studies of the sampler), batch runs, data sets shipped with scikit-learn,
and the source documents' studies."""

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
from ..specs import MECHANISMS, accepted_norms, mechanism_from_name
from .release_sweep import error_vs_epsilon
from .sweep import (
    SD_DEFINITION,
    STATISTICS,
    sensitivity_sweep,
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
