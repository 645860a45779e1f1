r"""The sampler's chunks: the sensitivities of a chunk of neighbouring pairs.

A chunk is one task of :func:`sensampler.parallel.run_tasks`: a picklable
:class:`ChunkJob` that names its query, population, seed and first pair, and
:func:`sample_chunk` (the full path, a stack of databases per chunk) or
:func:`sample_additive_chunk` (an additive query's fast path, no database
drawn) turns it into one array of sensitivities per leaf of the query's output.
See :mod:`sensampler.sampler` for the algorithm (Rubinstein & Aldà 2017,
Algorithm 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._lib.structure import Spec, evaluate
from .._lib.threads import one_thread
from ..distributions import Distribution
from ..norms import SensitivityNorm
from ..privacy import NEIGHBOURS
from ..queries import Query

__all__ = ["ChunkJob", "sample_additive_chunk", "sample_chunk"]

@dataclass(frozen=True)
class ChunkJob:
    """What one chunk of pairs needs: a picklable record for any joblib backend."""

    query: Query
    distribution: Distribution
    n: int
    size: int
    seed: np.random.SeedSequence
    norm: SensitivityNorm
    start: int
    reproduce: str
    spec: Spec
    shapes: tuple[tuple[int, ...], ...]
    neighbours: str = NEIGHBOURS


def _differences(first: list[np.ndarray], second: list[np.ndarray]):
    """``first - second`` leaf by leaf; an overflow gives inf, which the norm refuses."""
    with np.errstate(over="ignore", invalid="ignore"):
        return [a - b for a, b in zip(first, second)]


def _norms(job: ChunkJob, diffs: list[np.ndarray]) -> list[np.ndarray]:
    """Norms of the pairs' output differences, checked: one array per leaf."""
    size = job.size
    out = []
    pairs = f"pairs {job.start}..{job.start + size - 1}"
    for diff, shape in zip(diffs, job.shapes):
        try:
            g = job.norm(diff.reshape(size, -1))
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"norm {job.norm.name!r} refused the output differences of "
                f"{pairs}: {str(exc).rstrip('.')}; {job.reproduce}."
            ) from exc
        if job.norm.per_coordinate:
            g = g.reshape((size,) + shape)
        if not np.all(np.isfinite(g)) or np.any(g < 0):
            raise ValueError(
                f"norm {job.norm.name!r} returned a negative, NaN or inf value "
                f"on {pairs}."
            )
        out.append(g)
    return out


def sample_chunk(job: ChunkJob) -> list[np.ndarray]:
    """Sensitivities of ``job.size`` independent neighbouring pairs: one array per leaf.

    The n records of each database are i.i.d., so the differing record may be
    taken at any position: it is drawn uniformly per pair and overwritten in
    place with :math:`x'` (the rest of the stack, D, is never copied). Under
    add/remove neighbours the record at that position is removed instead
    (:func:`_sample_add_remove`).
    """
    with one_thread():
        if job.neighbours == "add-remove":
            return _sample_add_remove(job)
        return _sample_full(job)


def _sample_full(job: ChunkJob) -> list[np.ndarray]:
    size, n = job.size, job.n
    rng = np.random.default_rng(job.seed)
    stack = job.distribution.sample_batch(size, n, rng)  # D u {x}
    fresh = job.distribution.sample(size, rng)  # x'
    position = rng.integers(n, size=size)  # where x sits in each pair
    if not stack.flags.writeable:
        stack = stack.copy()
    check = (job.reproduce, job.spec, job.shapes)
    # evaluate copies every output: a query's reused buffer cannot change them.
    _, first = evaluate(job.query, stack, job.start, "D u {x}", *check)
    stack[np.arange(size), position] = fresh  # D u {x'}
    _, second = evaluate(job.query, stack, job.start, "D u {x'}", *check)
    return _norms(job, _differences(first, second))


def _sample_add_remove(job: ChunkJob) -> list[np.ndarray]:
    r"""Add/remove pairs: :math:`D \cup \{x\}` of n i.i.d. records, and D, the
    same records less the one at a position drawn uniformly per pair (the others
    keep their order), so D is n - 1 i.i.d. records and x sits anywhere."""
    size, n = job.size, job.n
    rng = np.random.default_rng(job.seed)
    stack = job.distribution.sample_batch(size, n, rng)  # D u {x}
    position = rng.integers(n, size=size)  # where x sits in each pair
    keep = np.ones((size, n), dtype=bool)
    keep[np.arange(size), position] = False
    # D is copied before f sees the stack: a query that reorders its input in
    # place cannot change which record is removed.
    smaller = stack[keep].reshape((size, n - 1) + stack.shape[2:])  # D
    check = (job.reproduce, job.spec, job.shapes)
    _, first = evaluate(job.query, stack, job.start, "D u {x}", *check)
    del stack
    _, second = evaluate(job.query, smaller, job.start, "D", *check)
    return _norms(job, _differences(first, second))


def sample_additive_chunk(job: ChunkJob) -> list[np.ndarray]:
    r"""Sensitivities of ``job.size`` pairs of an additive query, drawing no database.

    For :math:`f(D) = a_n \sum_i g(d_i) + b`, with :math:`a_n = 1` ("sum") or
    :math:`1/n` ("mean"), the one-record databases give
    :math:`f(\{x\}) = a_1 g(x) + b`, hence
    :math:`f(D \cup \{x\}) - f(D \cup \{x'\}) = (a_n / a_1)
    (f(\{x\}) - f(\{x'\}))` for every D: the pair needs x and x' only, drawn
    from the chunk's own generator (2 ``size`` records, x's then x''s). The
    law of the sensitivities is the full path's; the random numbers are not.

    Under add/remove (sums only: a mean's change depends on D), the change
    :math:`f(D \cup \{x\}) - f(D) = g(x)` is the same for every D, so each
    pair takes D = {y} of one fresh record: :math:`f(\{y, x\}) - f(\{y\})`
    (2 ``size`` records, y's then x's), whose law is the full path's.
    """
    with one_thread():
        return _sample_additive(job)


def _sample_additive(job: ChunkJob) -> list[np.ndarray]:
    size = job.size
    rng = np.random.default_rng(job.seed)
    check = (job.reproduce, job.spec, job.shapes)
    if job.neighbours == "add-remove":  # a sum: D = {y}, then {y, x}
        records = job.distribution.sample(2 * size, rng)
        pairs = np.stack([records[:size], records[size:]], axis=1)  # a copy
        _, first = evaluate(job.query, pairs, job.start, "{y, x}", *check)
        single = records[:size, None]  # {y}, apart from what f saw first
        _, second = evaluate(job.query, single, job.start, "{y}", *check)
        return _norms(job, _differences(first, second))
    records = job.distribution.sample(2 * size, rng)[:, None]  # one-record databases
    _, first = evaluate(job.query, records[:size], job.start, "{x}", *check)
    _, second = evaluate(job.query, records[size:], job.start, "{x'}", *check)
    diffs = _differences(first, second)
    if job.query.additive == "mean":  # a_n / a_1 = 1 / n
        diffs = [d / float(job.n) for d in diffs]
    return _norms(job, diffs)
