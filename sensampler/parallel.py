"""Chunking, seeding and dispatch of sampling work through joblib.

The m pairs are cut into chunks whose size depends only on m, n, the record
size and the query kind (never on ``n_jobs``); chunk i draws from the i-th
child of one :class:`numpy.random.SeedSequence`. Results are therefore
bit-identical for any ``n_jobs`` and any joblib backend, Dask included. On a
Dask cluster that has no worker, at the start or after losing them all, a run
raises ``RuntimeError`` after :data:`DASK_WORKER_TIMEOUT` seconds instead of
waiting forever (:func:`iter_tasks`).

joblib is imported where work is dispatched to it, not with this module: a run
on one worker (``n_jobs=1``, or ``None`` outside any ``joblib.parallel_config``)
runs its chunks in a loop and never loads joblib (about 0.1 s of a first run).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time

import numpy as np

from ._lib.extras import require
from ._lib.validation import check_flag, check_n_jobs

__all__ = [
    "DASK_WORKER_TIMEOUT",
    "DEFAULT_CHUNK_BYTES",
    "GENERIC_CHUNK_PAIRS",
    "chunk_sizes",
    "pairs_per_chunk",
    "run_tasks",
    "iter_tasks",
    "child_seed",
    "effective_workers",
    "default_progress",
    "shutdown_workers",
    "watch_parent",
    "PARENT_CHECK_SECONDS",
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
    """Pairs per chunk: ``batch_size`` if given, else what fits in 8 MiB.

    Parameters
    ----------
    n : int
        Records per database.
    record_bytes : int
        Bytes per record.
    batched : bool
        Whether the query evaluates a whole stack at once.
    batch_size : int, optional
        Pairs per chunk asked for; returned as is when given.

    Returns
    -------
    int
        Pairs per chunk, ``>= 1``.
    """
    if batch_size is not None:
        return batch_size
    fit = max(1, DEFAULT_CHUNK_BYTES // max(1, n * record_bytes))
    return min(fit, MAX_CHUNK_PAIRS if batched else GENERIC_CHUNK_PAIRS)


def chunk_sizes(m: int, size: int) -> list[int]:
    """Split ``m`` pairs into chunks of ``size`` (the last one shorter).

    Parameters
    ----------
    m : int
        Number of pairs, ``>= 0``.
    size : int
        Pairs per chunk, ``>= 1``.

    Returns
    -------
    list of int
        The chunk sizes, summing to ``m``.
    """
    return [min(size, m - start) for start in range(0, m, size)]


def default_progress(stream=None) -> bool:
    """Whether progress bars are on by default (the command line's choice).

    Only when tqdm is installed (the ``progress`` extra) and ``stream``
    (default: ``sys.stderr``, where the bars go) is a terminal, so that logs
    and pipes never receive a bar's escape codes.

    Parameters
    ----------
    stream : file-like, optional
        Where the bars would go; default ``sys.stderr``.

    Returns
    -------
    bool
        True when tqdm is installed and ``stream`` is a terminal.
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


def progress_bar(total: int, desc: str, unit: str = "pair"):
    """A tqdm progress bar (needs the ``progress`` extra).

    Parameters
    ----------
    total : int
        The count the bar goes to.
    desc : str
        Its label.
    unit : str, default "pair"
        What it counts.

    Returns
    -------
    tqdm.tqdm
    """
    tqdm = require("tqdm.auto", "progress", "progress=True").tqdm
    return tqdm(total=total, desc=desc, unit=unit)


#: Seconds a Dask cluster may have no worker, at the start of a run or during it,
#: before :func:`iter_tasks` stops waiting with ``RuntimeError``.
DASK_WORKER_TIMEOUT = 30.0


def _one_worker(n_jobs: int | None) -> bool:
    """Whether a run on ``n_jobs`` has one worker whatever joblib's configuration.

    ``n_jobs=1`` is one worker, and so is ``None`` while joblib is not imported:
    only an enclosing ``joblib.parallel_config``, which needs joblib imported,
    gives ``None`` another meaning.
    """
    return n_jobs == 1 or (n_jobs is None and "joblib" not in sys.modules)


def effective_workers(n_jobs: int | None) -> int:
    """The workers a run on ``n_jobs`` uses: joblib's ``effective_n_jobs``, at least 1.

    joblib is imported only where it can change the answer (not for one worker).

    Parameters
    ----------
    n_jobs : int or None
        As in joblib; ``None`` defers to an enclosing ``joblib.parallel_config``.

    Returns
    -------
    int
        The number of workers, ``>= 1``.
    """
    if _one_worker(n_jobs):
        return 1
    from joblib import effective_n_jobs

    return max(1, effective_n_jobs(n_jobs))


def _dask_backend():
    """The active joblib Dask backend, or None."""
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    if type(backend).__name__ != "DaskDistributedBackend":
        return None
    return backend


def _no_workers_error(client, timeout: float, what: str) -> RuntimeError:
    """The one-line error of a Dask cluster that had no worker for ``timeout`` s."""
    return RuntimeError(
        f"the Dask cluster at {client.scheduler.address} {what} "
        f"(waited {timeout:g} s); start workers, or leave the dask backend."
    )


def _check_dask_workers(client, timeout: float) -> None:
    """Fail clearly if the Dask cluster has no worker after ``timeout`` s."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise _no_workers_error(client, timeout, "has no workers") from None


class _WorkerWatch:
    """Cancel a Dask run's tasks once its cluster has had no worker for ``timeout`` s.

    While the context is open, a daemon thread asks the scheduler for its
    workers (``client.nthreads()``, one small message) every
    ``min(1, timeout / 10)`` s. Once no worker was seen for ``timeout`` s,
    :attr:`expired` is set and every outstanding future of the joblib backend
    is cancelled, on every look until the context closes: joblib receives each
    cancelled future as a failed task and its generator raises, instead of
    waiting for a worker forever. Workers that come back within ``timeout`` s
    leave the run untouched. Closing the context stops and joins the thread, so
    that none outlives the run. A lost scheduler needs no watch: distributed
    then cancels the client's futures itself.
    """

    def __init__(self, backend, timeout: float):
        self._backend = backend
        self._timeout = timeout
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._watch, name="sensampler-dask-workers", daemon=True
        )
        self.expired = False

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        self._stop.set()
        self._thread.join()

    def _cancel_outstanding(self) -> None:
        # The backend's as_completed holds exactly the futures not yet done
        # (joblib's own abort_everything reads it the same way).
        waiting = self._backend.waiting_futures
        with waiting.lock:
            outstanding = list(waiting.futures)
        self._backend.client.cancel(outstanding)

    def _watch(self) -> None:
        interval = max(0.01, min(1.0, self._timeout / 10))
        seen = time.monotonic()
        while not self._stop.wait(interval):
            if not self.expired and self._backend.client.nthreads():
                seen = time.monotonic()
            elif time.monotonic() - seen >= self._timeout:
                self.expired = True
                self._cancel_outstanding()


def _watched(outputs, backend, total: int, timeout: float):
    """Yield ``outputs`` of a Dask run; ``RuntimeError`` if its workers are lost.

    Raises the one-line error of :func:`_no_workers_error` when the cluster had
    no worker for ``timeout`` s before all ``total`` results came back (the
    outstanding tasks are then cancelled, see :class:`_WorkerWatch`).
    """
    done = 0
    with _WorkerWatch(backend, timeout) as watch:
        try:
            for result in outputs:
                yield result
                done += 1
        except Exception:
            if not watch.expired:
                raise
    if watch.expired and done < total:
        raise _no_workers_error(
            backend.client,
            timeout,
            "lost every worker during the run and its outstanding tasks were cancelled",
        )


#: Seconds between a process worker's checks that the process that gave it its
#: tasks is still alive (:func:`watch_parent`).
PARENT_CHECK_SECONDS = 0.5
#: Exit code of a worker that ends because its parent is gone.
EXIT_PARENT_GONE = 1
_watched_parent: int | None = None
_watch_lock = threading.Lock()


def watch_parent(parent: int) -> None:
    """In a process worker started by ``parent``: exit as soon as ``parent`` is gone.

    Called by each task (:func:`iter_tasks` wraps them) with the pid of the
    process that dispatched it. In a worker process whose parent is that
    process (joblib's loky and multiprocessing workers), the first call starts
    a daemon thread that checks every :data:`PARENT_CHECK_SECONDS` seconds
    that the parent is still its parent, and ends the worker
    (``os._exit``) once it is not. A leader killed by SIGKILL, which can run no
    clean-up, then leaves no worker behind (and loky's resource tracker, which
    lives while a process holds its pipe, ends with the last of them); without
    this, loky keeps idle workers for minutes. In the dispatching process
    itself (threads) or in a worker someone else started (Dask), nothing is done.

    Parameters
    ----------
    parent : int
        The pid of the process that dispatched the task.
    """
    global _watched_parent
    if os.getpid() == parent or os.getppid() != parent:
        return
    with _watch_lock:
        if _watched_parent == parent:
            return
        _watched_parent = parent
    threading.Thread(
        target=_exit_without_parent,
        args=(parent,),
        name="sensampler-parent-watch",
        daemon=True,
    ).start()


def _exit_without_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(EXIT_PARENT_GONE)


def _watched_call(parent, func, *args):
    """``func(*args)`` in a worker that ends when ``parent`` does (:func:`watch_parent`)."""
    watch_parent(parent)
    return func(*args)


def _in_rounds(func, tasks, n_jobs, prefer):
    """Results in task order for backends without generator output.

    The tasks run in rounds of twice the workers, on one pool kept open across
    rounds, so results (and progress) come back round by round. Such backends
    (joblib's ``"multiprocessing"``) pickle with the standard library, which
    cannot send lambdas (as in built-in queries): each call is wrapped with
    ``joblib.wrap_non_picklable_objects`` (cloudpickle), as loky and Dask do.
    """
    from joblib import Parallel, delayed, wrap_non_picklable_objects

    with Parallel(n_jobs=n_jobs, prefer=prefer, return_as="list") as parallel:
        size = 2 * effective_workers(n_jobs)
        for start in range(0, len(tasks), size):
            yield from parallel(
                delayed(
                    wrap_non_picklable_objects(
                        functools.partial(_watched_call, os.getpid(), func, *t)
                    )
                )()
                for t in tasks[start : start + size]
            )


def iter_tasks(func, tasks, *, n_jobs=None, prefer=None, unordered=False):
    """Yield ``func(*task)`` for every task as joblib finishes them.

    In task order, or in order of completion with ``unordered=True``. Backends
    that cannot return generators (joblib's ``"multiprocessing"``) run in
    rounds instead (:func:`_in_rounds`, in task order).

    Under a Dask backend, a cluster that has no worker never makes the run wait
    forever: with none at the start, ``RuntimeError`` comes after
    :data:`DASK_WORKER_TIMEOUT` seconds; if every worker is lost during the run
    (Dask then holds the tasks until a worker comes), the outstanding tasks are
    cancelled and ``RuntimeError`` raised once the cluster has had no worker for
    :data:`DASK_WORKER_TIMEOUT` seconds. Workers that come back within that time
    let the run finish, with the same results. A watching thread
    (:class:`_WorkerWatch`) lives while the generator is consumed, and stops
    when it ends or is closed.

    Parameters
    ----------
    func : callable
        A module-level function, so that every backend can pickle it.
    tasks : iterable of tuple
        The arguments of each call.
    n_jobs : int, optional
        Workers, as in joblib; ``None`` defers to ``joblib.parallel_config``.
    prefer : {"threads", "processes"}, optional
        joblib's soft hint of backend.
    unordered : bool, default False
        Yield in order of completion rather than task order.

    Returns
    -------
    iterator
        The results ``func(*task)``.
    """
    from joblib import Parallel, delayed

    tasks = list(tasks)
    backend = _dask_backend()
    if backend is not None:
        _check_dask_workers(backend.client, DASK_WORKER_TIMEOUT)
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
    leader = os.getpid()
    outputs = parallel(delayed(_watched_call)(leader, func, *t) for t in tasks)
    if backend is None:
        return outputs
    return _watched(outputs, backend, len(tasks), DASK_WORKER_TIMEOUT)


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
        Every joblib backend works; under Dask, a cluster without workers for
        :data:`DASK_WORKER_TIMEOUT` seconds raises ``RuntimeError`` (see
        :func:`iter_tasks`).
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
    progress = check_flag("progress", progress)
    bar = progress_bar(sum(weights), desc, unit) if progress else None
    try:
        if len(tasks) == 1 or _one_worker(n_jobs):
            results = []
            for task, weight in zip(tasks, weights):
                results.append(func(*task))
                if bar is not None:
                    bar.update(weight)
            return results
        results = []
        outputs = iter_tasks(func, tasks, n_jobs=n_jobs, prefer=prefer)
        with contextlib.closing(outputs):
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

    Parameters
    ----------
    seed_sequence : numpy.random.SeedSequence
        The parent.
    index : int
        Which child, ``>= 0``.

    Returns
    -------
    numpy.random.SeedSequence
        The child.
    """
    return np.random.SeedSequence(
        seed_sequence.entropy,
        spawn_key=seed_sequence.spawn_key + (_SPAWN_TAG, index),
        pool_size=seed_sequence.pool_size,
    )


def shutdown_workers() -> None:
    """Stop joblib's reusable loky process workers now, if any were started.

    They otherwise outlive an interrupted run for a while (loky keeps them for
    reuse), with their semaphores and resource tracker. A process killed by
    SIGKILL cannot do this: its workers notice the lost parent on their own.
    """
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)
