from threadpoolctl import threadpool_info

from sensampler._lib.threads import one_thread


def _blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_blas_runs_on_one_thread_inside_and_as_before_after():
    before = _blas_threads()
    with one_thread():
        assert set(_blas_threads()) <= {1}
        with one_thread():  # nested, as in worker threads of a limited caller
            assert set(_blas_threads()) <= {1}
        assert set(_blas_threads()) <= {1}
    assert _blas_threads() == before
