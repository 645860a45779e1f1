"""Hand-made records shared by the tests of :mod:`sensampler.estimate`."""

import numpy as np

from sensampler.estimate import SensitivityEstimate, SensitivityValue
from sensampler.plan import sampling_plan
from sensampler.privacy import SamplingRun

RUN = SamplingRun("run-1", gamma=0.05, rho=0.01, m=4, k=4, seed=(7, ()), ordinal=3)
OTHER = SamplingRun("run-2", gamma=0.05, rho=0.01, m=4, k=4)


def sampled_value(value=2.0, run=RUN):
    """A sampled value of ``run``, in the l1 norm."""
    return SensitivityValue(value, "sampled", run, "l1", "G_(k)")


def estimate_of(samples=(1.0, 4.0, 2.0, 3.0), run=RUN, **kw):
    """An estimate of four samples of a scalar query at n = 10."""
    return SensitivityEstimate(
        np.asarray(samples), run, sampling_plan(m=4), "l1", 10, **kw
    )


def vector_estimate(values=(1.0, 2.0, 3.0), run=RUN):
    """A per-coordinate estimate whose coordinates' order statistics are ``values``."""
    samples = np.tile(np.asarray(values), (4, 1))
    return SensitivityEstimate(samples, run, sampling_plan(m=4), "coordinate", 10)
