"""What a sampling run sampled, so that fresh pairs can be drawn the same way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, eq=False)
class SamplingProblem:
    """What a sampling run sampled: enough to draw fresh pairs with the same engine.

    :func:`sensampler.audit.audit_estimate` draws fresh neighbouring pairs of
    the same query, size and norm, from the same population or another one,
    through :func:`sensampler.sample_sensitivity`, under the run's neighbouring
    relation (``run.neighbours``, which the audit repeats).

    Parameters
    ----------
    query : sensampler.queries.Query
        The query as the sampler evaluated it (its batching and additive
        declarations included).
    population : sensampler.distributions.Distribution
        The population the pairs were drawn from.
    n : int
        Database size.
    norm : sensampler.norms.SensitivityNorm
        The norm the sensitivities were measured in.
    options : tuple of (str, object)
        Further keyword arguments of :func:`~sensampler.sample_sensitivity`
        that a fresh run must repeat (``order_dependent`` when the run opted in).
    """

    query: Callable[..., Any]
    population: Any
    n: int
    norm: Any
    options: tuple[tuple[str, Any], ...] = ()
