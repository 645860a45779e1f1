"""One BLAS thread while sampling work runs, for bit-identical results.

A matrix product or a model fit can round differently when BLAS splits it over
another number of threads; joblib's process workers run a limited number of
threads while the calling process runs one per core. Sampling chunks, estimator
fits and batch runs therefore run with BLAS (and OpenMP) on one thread
everywhere, so that one ``random_state`` gives one result for any ``n_jobs``
and backend; small products and fits are also faster so.
"""

from __future__ import annotations

import functools

__all__ = ["one_thread"]


@functools.cache
def _controller():
    # threadpoolctl is installed with scikit-learn; one controller per process
    # (about 3 ms to build), each limit then costs about 25 microseconds.
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_thread():
    """A context manager that runs BLAS and OpenMP on one thread inside it."""
    return _controller().limit(limits=1)
