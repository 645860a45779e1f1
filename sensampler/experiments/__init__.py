"""Experiments: error-vs-epsilon sweeps, batch runs, and the source documents' studies."""

from .batch import run_batch
from .documents import (
    CompositionExperiment,
    composition_experiment,
    epsilon_vs_iterations,
    runs_before_budget,
    vectorized_vs_sequential,
)
from .sweep import MECHANISMS, STATISTICS, error_vs_epsilon, make_mechanism
from .table import ResultTable

__all__ = [
    "error_vs_epsilon",
    "make_mechanism",
    "MECHANISMS",
    "STATISTICS",
    "run_batch",
    "ResultTable",
    "CompositionExperiment",
    "composition_experiment",
    "runs_before_budget",
    "vectorized_vs_sequential",
    "epsilon_vs_iterations",
]
