"""Chunking, seeding and dispatch of sampling work through joblib.

The m pairs are cut into chunks whose size depends only on m, n, the record
size and the query kind (never on ``n_jobs``); chunk i draws from the i-th
child of one :class:`numpy.random.SeedSequence`. Results are therefore
bit-identical for any ``n_jobs`` and any joblib backend, Dask included.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from joblib import (
    Parallel,
    delayed,
    effective_n_jobs,
    wrap_non_picklable_objects,
)

from ._validation import check_n_jobs

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "GENERIC_CHUNK_PAIRS",
    "chunk_sizes",
    "pairs_per_chunk",
    "run_tasks",
    "iter_tasks",
    "child_seed",
    "default_progress",
]

#: Memory bound of one chunk's stack of databases (8 MiB), unless one database is
#: larger. A chunk's working set is about three times its stack (the stack, the
#: fresh records and the population's draw temporaries: 3.1x for the heights
#: mixture, measured with tracemalloc), so about 25 MiB a worker. Smaller stacks
#: (256 KiB) avoid the page faults of handing freed memory back to the kernel,
#: but their many more chunks cost threads 20-25% more CPU at n_jobs = 2, in
#: handing the GIL over between workers; 8 MiB keeps the CPU of n_jobs = 1 and 2
#: equal (benchmarks/run.py prints both).
DEFAULT_CHUNK_BYTES = 8 * 2**20
#: Largest chunk, in pairs, for a batched query (bounds the output arrays too).
MAX_CHUNK_PAIRS = 1 << 16
#: Chunk size for queries evaluated database by database (a Python loop per
#: pair dominates, so small chunks cost nothing and spread well over workers).
GENERIC_CHUNK_PAIRS = 32


def pairs_per_chunk(
    n: int, record_bytes: int, batched: bool, batch_size: int | None = None
) -> int:
    """Pairs per chunk: ``batch_size`` if given, else what fits in 8 MiB."""
    if batch_size is not None:
        return batch_size
    fit = max(1, DEFAULT_CHUNK_BYTES // max(1, n * record_bytes))
    return min(fit, MAX_CHUNK_PAIRS if batched else GENERIC_CHUNK_PAIRS)


def chunk_sizes(m: int, size: int) -> list[int]:
    """Split ``m`` pairs into chunks of ``size`` (the last one shorter)."""
    return [min(size, m - start) for start in range(0, m, size)]


def default_progress(stream=None) -> bool:
    """Whether progress bars are on by default (the command line's choice).

    Only when tqdm is installed (the ``progress`` extra) and ``stream``
    (default: ``sys.stderr``, where the bars go) is a terminal, so that logs
    and pipes never receive a bar's escape codes.
    """
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if not (callable(isatty) and isatty()):
        return False
    try:
        import tqdm  # noqa: F401 - only whether it is there
    except ImportError:
        return False
    return True


def _progress_bar(total, desc, unit="pair"):
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "progress=True needs tqdm: pip install 'sensampler[progress]'."
        ) from exc
    return tqdm(total=total, desc=desc, unit=unit)


#: Seconds :func:`iter_tasks` waits for a Dask cluster to have a worker.
DASK_WORKER_TIMEOUT = 30.0


def _dask_client():
    """The client of an active joblib Dask backend, or None."""
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    if type(backend).__name__ != "DaskDistributedBackend":
        return None
    return getattr(backend, "client", None)


def _check_dask_workers(timeout: float) -> None:
    """Fail clearly if the active Dask cluster has no worker after ``timeout`` s."""
    client = _dask_client()
    if client is None:
        return
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise RuntimeError(
            f"the Dask cluster at {client.scheduler.address} has no workers "
            f"(waited {timeout:g} s); start workers, or leave the dask backend."
        ) from None


def _in_rounds(func, tasks, n_jobs, prefer):
    """Results in task order for backends without generator output.

    The tasks run in rounds of twice the workers, on one pool kept open across
    rounds, so results (and progress) come back round by round. Such backends
    (joblib's ``"multiprocessing"``) pickle with the standard library, which
    cannot send lambdas (as in built-in queries): each call is wrapped with
    ``joblib.wrap_non_picklable_objects`` (cloudpickle), as loky and Dask do.
    """
    with Parallel(n_jobs=n_jobs, prefer=prefer, return_as="list") as parallel:
        size = 2 * max(1, effective_n_jobs(n_jobs))
        for start in range(0, len(tasks), size):
            yield from parallel(
                delayed(wrap_non_picklable_objects(functools.partial(func, *t)))()
                for t in tasks[start : start + size]
            )


def iter_tasks(func, tasks, *, n_jobs=None, prefer=None, unordered=False):
    """Yield ``func(*task)`` for every task as joblib finishes them.

    In task order, or in order of completion with ``unordered=True``. Backends
    that cannot return generators (joblib's ``"multiprocessing"``) run in
    rounds instead (:func:`_in_rounds`, in task order). Under a Dask backend, a
    cluster with no workers raises ``RuntimeError`` after
    :data:`DASK_WORKER_TIMEOUT` seconds instead of waiting forever.
    """
    tasks = list(tasks)
    _check_dask_workers(DASK_WORKER_TIMEOUT)
    try:
        parallel = Parallel(
            n_jobs=n_jobs,
            prefer=prefer,
            return_as="generator_unordered" if unordered else "generator",
        )
    except ValueError as exc:
        if "does not support return_as" not in str(exc):
            raise
        return _in_rounds(func, tasks, n_jobs, prefer)
    return parallel(delayed(func)(*t) for t in tasks)


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
        Every joblib backend works (see :func:`iter_tasks`).
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
    n_jobs = check_n_jobs(n_jobs)
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
        results = []
        outputs = iter_tasks(func, tasks, n_jobs=n_jobs, prefer=prefer)
        for result, weight in zip(outputs, weights):
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
