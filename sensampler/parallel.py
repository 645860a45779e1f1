"""Chunking, seeding and dispatch of sampling work through joblib.

The m pairs are cut into chunks whose size depends only on m, n, the record
size and the query kind (never on ``n_jobs``); chunk i draws from the i-th
child of one :class:`numpy.random.SeedSequence`. Results are therefore
bit-identical for any ``n_jobs`` and any joblib backend, Dask included.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed

__all__ = [
    "CACHE_CHUNK_BYTES",
    "DEFAULT_CHUNK_BYTES",
    "GENERIC_CHUNK_PAIRS",
    "chunk_sizes",
    "pairs_per_chunk",
    "run_tasks",
    "child_seed",
]

#: Memory bound of one chunk's stack of databases (8 MiB), unless a single
#: database is larger. A chunk's working set is about three times its stack (the
#: stack, the fresh records and the population's draw temporaries: 3.1x for the
#: heights mixture, measured with tracemalloc).
DEFAULT_CHUNK_BYTES = 8 * 2**20
#: Stack of a chunk whose databases are small enough (256 KiB). Chunks this size
#: reuse the memory freed by the previous chunk: sampling at n = 10^4 takes no
#: page faults, where stacks of 1 MiB or 8 MiB make glibc hand freed memory back
#: to the kernel and fault it in again for every chunk (300 000 and 110 000
#: faults, 15-30% of the CPU time, for m = 4000). Faults cost threads of one
#: process more than processes, and the freeing runs under the GIL.
CACHE_CHUNK_BYTES = 2**18
#: Largest chunk, in pairs, for a batched query (bounds the output arrays too).
MAX_CHUNK_PAIRS = 1 << 16
#: Chunk size for queries evaluated database by database (a Python loop per
#: pair dominates, so small chunks cost nothing and spread well over workers).
GENERIC_CHUNK_PAIRS = 32


def pairs_per_chunk(
    n: int, record_bytes: int, batched: bool, batch_size: int | None = None
) -> int:
    """Pairs per chunk: ``batch_size`` if given, else what fits the chunk bounds.

    Parameters
    ----------
    n : int
        Records per database.
    record_bytes : int
        Bytes of one record.
    batched : bool
        Whether the query evaluates a whole stack at once.
    batch_size : int, optional
        The caller's choice, returned as is.

    Returns
    -------
    int
        ``batch_size``; else, when a database fits in
        :data:`CACHE_CHUNK_BYTES`, as many pairs as keep the stack within it,
        otherwise within :data:`DEFAULT_CHUNK_BYTES` (at least one pair); at most
        :data:`MAX_CHUNK_PAIRS` for a batched query and
        :data:`GENERIC_CHUNK_PAIRS` for another. The size never depends on
        ``n_jobs``, so neither do the results.
    """
    if batch_size is not None:
        return batch_size
    database = max(1, n * record_bytes)
    bound = CACHE_CHUNK_BYTES if database <= CACHE_CHUNK_BYTES else DEFAULT_CHUNK_BYTES
    fit = max(1, bound // database)
    return min(fit, MAX_CHUNK_PAIRS if batched else GENERIC_CHUNK_PAIRS)


def chunk_sizes(m: int, size: int) -> list[int]:
    """Split ``m`` pairs into chunks of ``size`` (the last one shorter)."""
    return [min(size, m - start) for start in range(0, m, size)]


def _progress_bar(total, desc, unit="pair"):
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "progress=True needs tqdm: pip install 'sensampler[progress]'."
        ) from exc
    return tqdm(total=total, desc=desc, unit=unit)


def run_tasks(
    func,
    tasks,
    *,
    n_jobs=None,
    progress=False,
    weights=None,
    desc="sampling",
    unit="pair",
    prefer=None,
):
    """Run ``func(*task)`` for every task, in order, through joblib.

    Parameters
    ----------
    func : callable
        Module-level function, so that every backend can pickle it.
    tasks : list of tuple
        Arguments for each call.
    n_jobs : int or None
        As in joblib; ``None`` defers to an enclosing ``joblib.parallel_config``.
    progress : bool
        Show a tqdm bar advanced by ``weights[i]`` when task i finishes.
    weights : list of int, optional
        Progress weight of each task (default 1).
    desc, unit : str
        Label and unit of the progress bar.
    prefer : {"threads", "processes"}, optional
        joblib's soft hint for the default backend; an enclosing
        ``joblib.parallel_config`` still decides.

    Returns
    -------
    list
        The results, in task order.
    """
    weights = weights or [1] * len(tasks)
    bar = _progress_bar(sum(weights), desc, unit) if progress else None
    try:
        if len(tasks) == 1 or n_jobs == 1:
            results = []
            for task, weight in zip(tasks, weights):
                results.append(func(*task))
                if bar is not None:
                    bar.update(weight)
            return results
        parallel = Parallel(n_jobs=n_jobs, return_as="generator", prefer=prefer)
        results = []
        for result, weight in zip(parallel(delayed(func)(*t) for t in tasks), weights):
            results.append(result)
            if bar is not None:
                bar.update(weight)
        return results
    finally:
        if bar is not None:
            bar.close()


#: First spawn-key word of sensampler's child seeds, apart from ``SeedSequence.spawn``'s.
_SPAWN_TAG = 0x5E45


def child_seed(seed_sequence: np.random.SeedSequence, index: int):
    """The ``index``-th child seed of ``seed_sequence``.

    Unlike ``SeedSequence.spawn`` it keeps no state: the same parent gives the
    same children however often it is used, so one ``random_state`` always
    reproduces one result.
    """
    return np.random.SeedSequence(
        seed_sequence.entropy,
        spawn_key=seed_sequence.spawn_key + (_SPAWN_TAG, index),
        pool_size=seed_sequence.pool_size,
    )
