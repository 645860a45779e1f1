"""Plan a release from a target error, before any private data are read.

:func:`plan_release` answers "what epsilon do I need for an error of 0.1 cm?"
(and the reverse, "what error will epsilon = 0.5 give?") from the population
model alone. It draws ``runs`` independent sampling runs of the query's
sensitivity on databases of ``n`` records from the population, exactly as
:func:`sensampler.app.release.release_statistic` would draw one, and computes the
error of the noise the mechanism would add with each of them.

**What "error" means here.** The error is the noise only: :math:`|M(D) - f(D)|`,
the distance between the private release and the exact answer on the same
data. It is not the distance to a population parameter (the sampling error of
``f(D)`` itself is the same with or without privacy). For a vector query it is
the error of each coordinate.

**It accounts for nothing.** The plan reads no private record and releases
nothing: it spends no epsilon, no delta and no gamma, and records nothing in any
budget. The sampling runs it draws are its own; the release draws a fresh one.
This holds only if the population is public: a bootstrap of the private file
itself (``bootstrap:private.csv``) would read private records without spending,
as it would in the release.

**It follows the release's settings.** :func:`plan_release` takes the record a
release takes (:class:`~sensampler.settings.ReleaseSettings`, or its fields as
keywords), with ``epsilon`` left to the plan where a target error is given.
The noise's law is the core's (:mod:`sensampler.mechanisms.accuracy`): a
:class:`~sensampler.mechanisms.accuracy.NoiseModel` per mechanism (Laplace and
the analytic Gaussian), or one of one's own (``noise_model=``).

**Quantiles follow the release.** A query the release answers by the
exponential mechanism over public bounds
(:func:`sensampler.mechanisms.choice.quantile_level_of` decides, for both) is planned
with that mechanism, whose error does not scale with a sensitivity:
:class:`~sensampler.mechanisms.accuracy.QuantileErrorModel` draws ``runs``
databases of ``n`` records from the population and computes, on each, the
exact law of the mechanism's output
(:meth:`~sensampler.mechanisms.ExponentialQuantileMechanism.output_law`, the
law :meth:`~sensampler.mechanisms.ExponentialQuantileMechanism.release`
samples), with the weight scale the release calibrates on the population
(:class:`~sensampler.quantile_calibration.SampledLosses`: one set of pairs
drawn once, the scale chosen at each epsilon as the release chooses it). Such a
plan states the release's random DP (gamma, m and k of the scale's sampling
plan) and its worst case; no sensitivity is sampled. Where no scale beats the
plain one, the plan states plain epsilon-DP and m, k and gamma do not apply.

**Bounds and the worst-case floor follow the release.** A release clips the
records to its bounds (by default read from the population model) in the data
and in every sampled database, and raises its noise so that its worst-case
epsilon stays within ``worst_case_epsilon`` (10 times epsilon by default). The
plan does the same: its sampling runs draw clipped databases, and each run's
noise is raised to that floor, so that a floor which binds (a heavy tail, wide
bounds, a low cap) shows in the planned error.

**A plan states what the release will.** Its guarantee is the release's, in
the release's words (a public sample's basis included); its worst case is the
one the release of each sampling run states (the largest over the runs, within
the cap); and where the epsilon, or the worst case, is beyond what anyone
would call private (above :data:`NOT_PRIVATE_EPSILON` = 10), its text, card
and JSON say so (:attr:`ReleasePlan.warning`).
"""

from ._prepare import PreparedPlan, plan_release, prepare_plan
from ._release_plan import (
    ACCOUNTS_FOR_NOTHING,
    ERROR_MEANING,
    NOT_PRIVATE_EPSILON,
    ReleasePlan,
)

__all__ = [
    "ACCOUNTS_FOR_NOTHING",
    "ERROR_MEANING",
    "NOT_PRIVATE_EPSILON",
    "PreparedPlan",
    "ReleasePlan",
    "plan_release",
    "prepare_plan",
]
