import re
import threading
import time

import joblib
import numpy as np
import pytest

from sensampler import parallel, queries, sample_sensitivity
from sensampler.distributions import GaussianMixture
from sensampler.parallel import (
    DEFAULT_CHUNK_BYTES,
    GENERIC_CHUNK_PAIRS,
    child_seed,
    chunk_sizes,
    effective_workers,
    iter_tasks,
    pairs_per_chunk,
    run_tasks,
)

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def test_chunks_cover_m_and_depend_on_sizes_only():
    assert chunk_sizes(10, 4) == [4, 4, 2]
    assert sum(chunk_sizes(1305, 97)) == 1305
    # 8 MiB of float64 records of n = 10^4: 104 pairs a chunk
    assert pairs_per_chunk(10**4, 8, batched=True) == DEFAULT_CHUNK_BYTES // (8 * 10**4)
    assert pairs_per_chunk(10**6, 8, batched=True) == 1
    assert pairs_per_chunk(10, 8, batched=False) == GENERIC_CHUNK_PAIRS
    assert pairs_per_chunk(10, 8, batched=True, batch_size=7) == 7


def test_child_seeds_are_stateless_and_distinct():
    root = np.random.SeedSequence(5)
    a = [np.random.default_rng(child_seed(root, i)).random() for i in range(3)]
    b = [np.random.default_rng(child_seed(root, i)).random() for i in range(3)]
    assert a == b and len(set(a)) == 3


def test_memory_stays_bounded_by_the_chunk(monkeypatch):
    # Record the largest stack any chunk draws for n = 10^5, m = 300.
    seen = []
    original = GaussianMixture.sample_batch

    def spy(self, batch, size, random_state=None):
        out = original(self, batch, size, random_state)
        seen.append(out.nbytes)
        return out

    monkeypatch.setattr(GaussianMixture, "sample_batch", spy)
    sample_sensitivity(queries.mean, HEIGHTS, 10**5, m=300, random_state=0)
    assert max(seen) <= DEFAULT_CHUNK_BYTES


def test_progress_bar_with_parallel_workers(capsys):
    kw = dict(m=400, random_state=1, batch_size=50)
    quiet = sample_sensitivity(queries.mean, HEIGHTS, 100, **kw)
    shown = sample_sensitivity(
        queries.mean, HEIGHTS, 100, n_jobs=2, progress=True, **kw
    )
    np.testing.assert_array_equal(quiet.samples, shown.samples)
    assert "400/400" in capsys.readouterr().err


def test_run_tasks_keeps_order_and_defers_to_parallel_config():
    tasks = [(i,) for i in range(20)]
    assert run_tasks(abs, tasks) == list(range(20))
    with joblib.parallel_config(backend="threading", n_jobs=2):
        assert run_tasks(abs, tasks) == list(range(20))


def test_effective_workers_defers_to_parallel_config():
    """One worker needs no joblib (``n_jobs=1``, or ``None`` before joblib is
    imported: tests/test_import_cost.py); inside a ``parallel_config``, ``None``
    is its ``n_jobs``, as joblib's own ``effective_n_jobs`` says."""
    assert effective_workers(1) == 1
    assert effective_workers(None) == joblib.effective_n_jobs(None) == 1
    with joblib.parallel_config(backend="threading", n_jobs=2):
        assert effective_workers(None) == joblib.effective_n_jobs(None) == 2


@pytest.mark.slow
def test_generic_queries_run_in_parallel_chunks():
    kw = dict(m=200, random_state=4)
    serial = sample_sensitivity(np.median, HEIGHTS, 31, n_jobs=1, **kw)
    parallel = sample_sensitivity(np.median, HEIGHTS, 31, n_jobs=2, **kw)
    np.testing.assert_array_equal(serial.samples, parallel.samples)


@pytest.mark.dask
@pytest.mark.slow
def test_dask_cluster_gives_the_serial_estimate_bit_for_bit():
    distributed = pytest.importorskip("distributed")
    kw = dict(gamma=0.01, random_state=2024, batch_size=64)
    serial = sample_sensitivity(queries.mean, HEIGHTS, 500, n_jobs=1, **kw)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        with joblib.parallel_config(backend="dask"):
            on_cluster = sample_sensitivity(queries.mean, HEIGHTS, 500, n_jobs=-1, **kw)
        assert len(client.scheduler_info()["workers"]) == 2
    np.testing.assert_array_equal(serial.samples, on_cluster.samples)
    assert serial.sensitivity == on_cluster.sensitivity


def _square(x):
    return x * x


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["multiprocessing", "loky", "threading"])
def test_every_joblib_backend_runs_tasks_in_order_with_progress(backend, capsys):
    # joblib's "multiprocessing" backend cannot return generators: the tasks
    # then run in rounds, still in order and still advancing the progress bar.
    pytest.importorskip("tqdm")
    tasks = [(i,) for i in range(11)]
    with joblib.parallel_config(backend=backend, n_jobs=2):
        assert run_tasks(_square, tasks, progress=True, desc="squares") == [
            i * i for i in range(11)
        ]
    assert "squares: 100%" in capsys.readouterr().err


@pytest.mark.slow
def test_multiprocessing_backend_gives_the_serial_estimate():
    kw = dict(m=100, random_state=5, batch_size=16)
    serial = sample_sensitivity(queries.mean, HEIGHTS, 40, n_jobs=1, **kw)
    with joblib.parallel_config(backend="multiprocessing", n_jobs=2):
        pooled = sample_sensitivity(queries.mean, HEIGHTS, 40, **kw)
    np.testing.assert_array_equal(serial.samples, pooled.samples)


@pytest.mark.slow
def test_iter_tasks_unordered_yields_every_result():
    with joblib.parallel_config(backend="multiprocessing", n_jobs=2):
        got = sorted(iter_tasks(_square, [(i,) for i in range(7)], unordered=True))
    assert got == [i * i for i in range(7)]


@pytest.mark.slow
@pytest.mark.dask
def test_dask_cluster_without_workers_fails_clearly_after_a_bounded_wait(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(parallel, "DASK_WORKER_TIMEOUT", 2.0)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        cluster.scale(0)
        _wait_until(lambda: not client.scheduler_info()["workers"])
        # The run gives up by the library's own timeout (the message names it);
        # no assertion on the wall time, which a loaded machine stretches.
        with joblib.parallel_config(backend="dask"):
            with pytest.raises(
                RuntimeError,
                match=re.escape(
                    f"the Dask cluster at {cluster.scheduler_address} has no "
                    "workers (waited 2 s); start workers, or leave the dask backend."
                ),
            ):
                run_tasks(_square, [(i,) for i in range(4)], n_jobs=-1)


def _slow_median(x):
    time.sleep(0.002)
    return float(np.median(x))


def _slow_square(x):
    time.sleep(0.3)
    return x * x


def _scheduler_task_count(dask_scheduler):
    return len(dask_scheduler.tasks)


def _one_worker_cluster(distributed):
    # Two threads, so that joblib dispatches to the cluster (one thread in all
    # would make it run the tasks in the calling thread).
    return distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    )


def _wait_until(condition, polls=1000):
    """Wait for ``condition``, asking it at most ``polls`` times (a hang guard,
    counted in polls, not seconds, so that a loaded machine does not fail it)."""
    for _ in range(polls):
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"the cluster did not get there in {polls} polls")


def _run_on_dask_in_thread(run):
    """Start ``run()`` under the dask backend in a thread that a hang cannot block."""
    outcome = {}

    def target():
        try:
            with joblib.parallel_config(backend="dask"):
                outcome["result"] = run()
        except Exception as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, outcome


def _watch_threads():
    return [t for t in threading.enumerate() if t.name == "sensampler-dask-workers"]


@pytest.mark.slow
@pytest.mark.dask
@pytest.mark.parametrize("unordered", [False, True], ids=["sample", "unordered"])
def test_dask_cluster_losing_every_worker_mid_run_fails_after_a_bounded_wait(
    monkeypatch, unordered
):
    # Dask holds the tasks of a lost worker until another one comes: the run
    # must give up (cancelling them) once no worker was seen for the timeout.
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(parallel, "DASK_WORKER_TIMEOUT", 2.0)
    with (
        _one_worker_cluster(distributed) as cluster,
        distributed.Client(cluster) as client,
    ):
        if unordered:  # as batch runs consume them

            def run():
                tasks = [(i,) for i in range(20)]
                return list(iter_tasks(_slow_square, tasks, n_jobs=-1, unordered=True))

        else:

            def run():
                return sample_sensitivity(
                    _slow_median, HEIGHTS, 31, m=2000, random_state=0, n_jobs=-1
                )

        thread, outcome = _run_on_dask_in_thread(run)
        _wait_until(lambda: any(client.processing().values()))
        cluster.scale(0)
        thread.join(timeout=20)
        assert not thread.is_alive(), "the run still waits for a worker"
        assert "result" not in outcome
        error = outcome["error"]
        assert isinstance(error, RuntimeError)
        assert str(error) == (
            f"the Dask cluster at {cluster.scheduler_address} lost every worker "
            "during the run and its outstanding tasks were cancelled (waited 2 s); "
            "start workers, or leave the dask backend."
        )
        assert not _watch_threads()
        # Nothing of the run is left on the scheduler, and the client still works.
        _wait_until(lambda: client.run_on_scheduler(_scheduler_task_count) == 0)
        cluster.scale(1)
        client.wait_for_workers(1, timeout=20)
        with joblib.parallel_config(backend="dask"):
            squares = run_tasks(_square, [(i,) for i in range(4)], n_jobs=-1)
        assert squares == [0, 1, 4, 9]


@pytest.mark.dask
@pytest.mark.slow
def test_dask_worker_replaced_within_the_wait_gives_the_serial_estimate(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(parallel, "DASK_WORKER_TIMEOUT", 15.0)
    kw = dict(m=640, random_state=7)
    serial = sample_sensitivity(_slow_median, HEIGHTS, 31, n_jobs=1, **kw)
    with (
        _one_worker_cluster(distributed) as cluster,
        distributed.Client(cluster) as client,
    ):
        thread, outcome = _run_on_dask_in_thread(
            lambda: sample_sensitivity(_slow_median, HEIGHTS, 31, n_jobs=-1, **kw)
        )
        _wait_until(lambda: any(client.processing().values()))
        cluster.scale(0)
        _wait_until(lambda: not client.nthreads())
        assert thread.is_alive()  # the run waits, without a worker
        cluster.scale(1)
        thread.join(timeout=20)
        assert not thread.is_alive()
    assert "error" not in outcome
    np.testing.assert_array_equal(serial.samples, outcome["result"].samples)
    assert serial.sensitivity == outcome["result"].sensitivity
    assert not _watch_threads()


@pytest.mark.slow
def test_shutdown_workers_stops_the_reusable_loky_workers():
    from joblib.externals.loky import get_reusable_executor, reusable_executor

    executor = get_reusable_executor(max_workers=1)
    pids = list(executor.submit(lambda: 1) and executor._processes)
    assert pids
    parallel.shutdown_workers()
    assert reusable_executor._executor is None or not executor._processes
    parallel.shutdown_workers()  # nothing left: a no-op
