r"""The exponential quantile mechanism calibrated on its sampled privacy loss.

:class:`~sensampler.mechanisms.ExponentialQuantileMechanism` with weights
:math:`\exp(-t\,|c_j - qn|)` is :math:`2t\Delta u`-DP for every pair of
neighbouring databases (McSherry & Talwar 2007 [2]_, Thm. 6, at weight scale
t), so :math:`t = \epsilon/(2\Delta u)` makes it plain
epsilon-DP. The bound is tight for the worst pair, but on the pairs a
population model draws the privacy loss is smaller: the record that changes
usually moves the rank counts on a stretch of the grid that holds little of the
law's mass, so the normaliser barely moves and the loss is about t, not 2t.

:func:`calibrate_quantile` applies random DP (Rubinstein & Aldà 2017 [1]_,
Def. 2) to the mechanism itself: it draws m pairs of neighbouring databases
from the population model, computes each pair's exact privacy loss

.. math:: L(t) = \max_j \left|\log P_D(t_j) - \log P_{D'}(t_j)\right|

at every candidate scale t, and releases the largest t whose k-th largest
loss (the sampling plan's order statistic
:math:`G_{(k)}`, k = m the largest) is at most epsilon. The mechanism
is then epsilon-DP on every pair except with probability gamma over pairs
drawn from the population (the sampling plan's certified gamma), and
:math:`2t\Delta u`-DP for every pair (its worst-case part).

**Why choosing t from the samples keeps gamma.** The candidates are a fixed
finite set :math:`t_0 < t_1 < \dots < t_J` and each pair's statistic is the
running maximum :math:`\tilde L(t_i) = \max_{l \le i} L(t_l) \ge L(t_i)`,
non-decreasing in i. Let :math:`t^+` be the smallest candidate with
:math:`P(\tilde L(t^+) > \epsilon) > \gamma` (a fixed candidate: it depends
on the population only). If the released :math:`t \ge t^+`, then the k-th
largest :math:`\tilde L(t^+)` is at most the k-th largest
:math:`\tilde L(t) \le \epsilon` while more than gamma of the law lies above
epsilon: exactly the event the sampling plan bounds for the one fixed
statistic :math:`\tilde L(t^+)` (:mod:`sensampler.plan`). So the released t
has :math:`P(L(t) > \epsilon) \le P(\tilde L(t) > \epsilon) \le \gamma`
with the plan's confidence. :math:`t_0 = \epsilon/(2\Delta u)` (rounded
down) always passes, since :math:`L(t_0) \le \epsilon` for every pair.

**Exact loss per pair.** The two databases share all records but one (or
one is the other less one record, add/remove). The law of each depends on the
grid only through how many grid points have each count, and the counts of the
two databases differ by at most one, on the grid points between the two
records that differ: :mod:`sensampler._math.quantile_loss` computes every
pair's exact loss from these histograms (the same law the mechanism samples,
on the same clipped records) at a block of scales at once, in floating point
within :func:`margin` (its docstring bounds the error), with a margin of
:data:`MARGIN` times epsilon added to every loss before it is compared with
epsilon.

References
----------
.. [1] B. I. P. Rubinstein and F. Aldà, "Pain-Free Random Differential Privacy
   with Sensitivity Sampling", ICML 2017.
.. [2] F. McSherry and K. Talwar, "Mechanism Design via Differential
   Privacy", FOCS 2007.
"""

from __future__ import annotations

import math
import uuid
from fractions import Fraction

import numpy as np

from ._lib.domains import EPSILON_STATED
from ._lib.memory import check_fits
from ._lib.validation import as_seed_sequence, check_count
from ._math.quantile_loss import PairClasses, pair_classes
from ._math.rounding import float_down, float_up
from .bounds import Bounds
from .distributions import Distribution, PublicSample, as_distribution
from .mechanisms.quantile import (
    ExponentialQuantileMechanism,
    QuantileCalibration,
)
from .plan import check_plan_arguments, sampling_plan
from .privacy import NEIGHBOURS, SamplingRun
from .sampler import check_neighbours, next_ordinal, seed_of

__all__ = [
    "DEFAULT_PAIRS",
    "MARGIN",
    "SMALLEST_SCALE",
    "SampledLosses",
    "STEPS_PER_OCTAVE",
    "calibrate_quantile",
    "candidate_scales",
    "check_calibration",
    "check_cap",
    "margin",
    "pair_losses",
    "plain_scale",
    "select_scale",
]

#: Candidate scales: :math:`2^{u/16}` for integers u, the same for every
#: epsilon, kept where :math:`t_0 < 2^{u/16} \le 4 t_0` (a worst case of at
#: most 4 epsilon) and the cap allows.
STEPS_PER_OCTAVE = 16

#: Added to every computed loss, relative to epsilon, before it is compared
#: with epsilon, beside :func:`margin`'s term for n and t.
MARGIN = 1e-9

#: No candidates below this plain scale (epsilon below about 2e-301): the
#: losses' products would be subnormal numbers, whose relative error (4.8e-9
#: at epsilon = 1e-315, 6% at 1e-322) exceeds the margin.
SMALLEST_SCALE = 2.0**-1000

#: Copies of one run's (m, J) losses held besides the runs' own.
_LOSS_COPIES = 3

#: Peak bytes per union record of a chunk, with room to spare (measured 66 to
#: 98 with ``tracemalloc``, n = 500 to 1e6, pairs drawn and their losses at 34
#: scales: the records, their ranks, the sorted ranks and the histogram of
#: 3(n + 1) columns per pair, :mod:`sensampler._math.quantile_loss`).
_RECORD_BYTES = 200

#: Default pairs: at least this many when n is small (a finer order statistic
#: than the fewest pairs gamma needs), within :data:`_CHUNK_RECORDS` records.
DEFAULT_PAIRS = 2000

#: Union records per chunk of pairs (bounds the memory of one chunk).
_CHUNK_RECORDS = 2**21

def pair_losses(
    union: np.ndarray,
    in_first: np.ndarray,
    in_second: np.ndarray,
    mech: ExponentialQuantileMechanism,
    scales: np.ndarray,
) -> np.ndarray:
    r"""The exact privacy loss of ``mech``'s law at each scale, for each pair.

    Parameters
    ----------
    union : ndarray of shape (P, N)
        Each pair's records, both databases' together (the shared ones once).
    in_first, in_second : ndarray of bool, shape (P, N)
        Which of them belong to the first and to the second database.
    mech : ExponentialQuantileMechanism
        Gives q, the bounds and the grid.
    scales : ndarray of shape (J,)
        The weight scales t.

    Returns
    -------
    ndarray of shape (P, J)
        :math:`\max_j |\log P_D(t_j) - \log P_{D'}(t_j)|` per pair and scale
        (see the module docstring), in floating point.
    """
    return pair_classes(union, in_first, in_second, mech).losses(np.asarray(scales))


def _draw_pairs(dist: Distribution, size: int, n: int, neighbours: str, rng):
    """``size`` pairs as (union, in_first, in_second), drawn as the sampler draws
    them: D u {x} and D u {x'} (replace-one), or D u {x} and D (add/remove)."""
    stack = _finite(dist.sample_batch(size, n, rng)).reshape(size, n)
    position = rng.integers(n, size=size)
    rows = np.arange(size)
    if neighbours == "add-remove":
        in_first = np.ones((size, n), bool)
        in_second = in_first.copy()
        in_second[rows, position] = False
        return stack, in_first, in_second
    fresh = _finite(dist.sample(size, rng)).reshape(size, 1)
    union = np.concatenate([stack, fresh], axis=1)
    in_first = np.ones((size, n + 1), bool)
    in_first[:, n] = False
    in_second = np.ones((size, n + 1), bool)
    in_second[rows, position] = False
    return union, in_first, in_second


def _finite(records) -> np.ndarray:
    """The population's draws as floats, refused if one is NaN or infinite (the
    mechanism releases finite data only: such a pair is no pair of databases)."""
    records = np.asarray(records, dtype=float)
    if not np.all(np.isfinite(records)):
        raise ValueError(
            "population drew NaN or infinite records: the mechanism takes finite "
            "data only, so the population model does not describe them."
        )
    return records


def _chunks(dist, mech, n: int, m: int, seed):
    """The m pairs' classes, chunk by chunk (drawn lazily)."""
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_RECORDS // (n + 1))
    for start in range(0, m, per_chunk):
        drawn = _draw_pairs(dist, min(per_chunk, m - start), n, mech.neighbours, rng)
        yield pair_classes(*drawn, mech)


def plain_scale(epsilon: float, utility_sensitivity: float) -> float:
    r""":math:`t_0 = \epsilon/(2\Delta u)` rounded down to a double: every pair's
    loss at it is at most epsilon.

    Parameters
    ----------
    epsilon, utility_sensitivity : float
        The mechanism's (:attr:`ExponentialQuantileMechanism.utility_sensitivity`).

    Returns
    -------
    float
    """
    return float_down(Fraction(epsilon) / (2 * Fraction(utility_sensitivity)))


def candidate_scales(
    epsilon: float, utility_sensitivity: float, cap: float | None = None
) -> np.ndarray:
    r"""The candidate scales: :math:`2^{u/16}` for integers u, above :math:`t_0`
    (:func:`plain_scale`), at most :math:`4t_0`, with a worst case
    :math:`2t\Delta u` (rounded up) finite and at most ``cap``.

    Parameters
    ----------
    epsilon, utility_sensitivity : float
        The mechanism's.
    cap : float, optional
        The largest worst-case epsilon allowed; ``None``: 4 epsilon.

    Returns
    -------
    ndarray
        Increasing; empty when the cap allows none, or :math:`t_0 <`
        :data:`SMALLEST_SCALE` (the plain mechanism).
    """
    t0 = plain_scale(epsilon, utility_sensitivity)
    if t0 < SMALLEST_SCALE:
        return np.empty(0)
    lowest = math.floor(STEPS_PER_OCTAVE * math.log2(t0))
    with np.errstate(over="ignore"):  # beyond the largest double: inf, dropped
        scales = 2.0 ** (np.arange(lowest, lowest + 2 * STEPS_PER_OCTAVE + 2)
                         / STEPS_PER_OCTAVE)
    du = Fraction(utility_sensitivity)
    cap = math.inf if cap is None else cap
    worst = {float(t): float_up(2 * Fraction(float(t)) * du)
             for t in scales[np.isfinite(scales)]}
    return np.array(
        [t for t, w in worst.items() if t0 < t <= 4 * t0 and math.isfinite(w)
         and w <= cap],
        dtype=float,
    )


def margin(epsilon: float, scales: np.ndarray, n: int) -> np.ndarray:
    r"""What is added to a computed loss at each scale before the comparison with
    epsilon: :data:`MARGIN` epsilon, plus :math:`t\,(n + 2)\,2^{-44}`.

    The distances :math:`|c - qn|` (of size up to n) are exact to a few units
    in the last place, :math:`(n + 2) 2^{-52}`, and enter the loss times t; the
    normalisers' log-ratio is computed with an error relative to t: every loss
    of :func:`pair_losses` is within :math:`t (n + 2) 2^{-46}`, a quarter of
    this term (derived in :mod:`sensampler._math.quantile_loss`).

    Parameters
    ----------
    epsilon : float
        The mechanism's epsilon.
    scales : ndarray
        The scales t.
    n : int
        Records per database.

    Returns
    -------
    ndarray
        The margin at each scale.
    """
    return MARGIN * epsilon + scales * ((n + 2) * 2.0**-44)


def select_scale(
    losses: list[np.ndarray], scales: np.ndarray, mech: ExponentialQuantileMechanism,
    k: int, n: int,
) -> tuple[float, float] | None:
    r"""The largest candidate scale whose order statistic of the running-maximum
    loss is at most epsilon, with that order statistic; ``None`` if none is.

    Parameters
    ----------
    losses : list of ndarray of shape (m, J)
        The pairs' losses at ``scales``, one array per population (a public
        sample's posterior runs: the largest order statistic is kept).
    scales : ndarray of shape (J,)
        :func:`candidate_scales`, increasing.
    mech : ExponentialQuantileMechanism
        Its epsilon.
    k : int
        The rank released, ``1 <= k <= m`` (k = m: the largest).
    n : int
        Records per database (sets the floating-point :func:`margin`).

    Returns
    -------
    (scale, order statistic) or None
    """
    if scales.size == 0:
        return None
    kth = np.max(
        [
            np.partition(np.maximum.accumulate(part, axis=1), k - 1, axis=0)[k - 1]
            for part in losses
        ],
        axis=0,
    )
    passing = np.flatnonzero(kth + margin(mech.epsilon, scales, n) <= mech.epsilon)
    if passing.size == 0:
        return None
    return float(scales[passing[-1]]), float(kth[passing[-1]])


def calibrate_quantile(
    q: float,
    bounds: Bounds | tuple[float, float],
    epsilon: float,
    population,
    n: int,
    *,
    gamma: float | None = None,
    m: int | None = None,
    k: int | None = None,
    inequality: str = "exact",
    neighbours: str = NEIGHBOURS,
    worst_case_epsilon: float | None = None,
    random_state=None,
) -> QuantileCalibration | None:
    r"""Sample the weight scale of the exponential quantile mechanism at random DP.

    Parameters
    ----------
    q : float
        The quantile, ``0 <= q <= 1``.
    bounds : (low, high) or Bounds
        The mechanism's public bounds.
    epsilon : float
        The random-DP epsilon, ``> 0``.
    population : Distribution or array_like
        The public population model of scalar records (a
        :class:`~sensampler.distributions.PublicSample` runs the plan on its
        posterior populations and keeps the smallest scale, as
        :func:`~sensampler.sample_sensitivity` keeps the largest sensitivity).
    n : int
        Records in the private database.
    gamma, m, k, inequality
        The sampling plan, as :func:`~sensampler.sample_sensitivity` takes it.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
    worst_case_epsilon : float, optional
        Cap on the worst case :math:`2t\Delta u`; default 4 epsilon (the
        largest candidate), never below epsilon.
    random_state : None, int, SeedSequence or Generator
        Seeds the pairs (same seed: same calibration).

    Returns
    -------
    QuantileCalibration
        The scale, with its sampling run (gamma, m, k, seed, the order
        statistic of the loss released).

    Raises
    ------
    TypeError, ValueError
        Naming the bad argument, before anything is drawn.

    Examples
    --------
    >>> from sensampler.distributions import GaussianMixture
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> cal = calibrate_quantile(0.5, (140, 210), 1.0, heights, 500, gamma=0.05,
    ...                          random_state=0)
    >>> bool(0.5 < cal.scale < 1.0), cal.run.m, cal.run.k
    (True, 2000, 1931)
    """
    mech, dist, n, plan = check_calibration(
        q, bounds, epsilon, population, n, gamma=gamma, m=m, k=k, inequality=inequality,
        neighbours=neighbours,
    )
    scales = _scales(mech, worst_case_epsilon)
    root = as_seed_sequence(random_state)
    runs = [_Pairs(*ps, mech, n, plan.m, scales) for ps in _populations(dist, plan, root)]
    return _chosen(
        mech, scales, runs, plan, n, _words(dist, plan),
        lambda: {"run_id": uuid.uuid4().hex, "seed": seed_of(root),
                 "ordinal": next_ordinal()},
    )


#: Candidates computed together before the search checks for a failing one.
_BLOCK = 4


class _Pairs:
    """One population's m pairs, drawn chunk by chunk when needed, each scale's
    losses computed once; given ``scales``, several chunks are not all kept
    (each one's losses at all of them at once, as one calibration needs)."""

    def __init__(self, dist, seed, mech, n: int, m: int, scales=None):  # noqa: D107
        self._draws = _chunks(dist, mech, n, m, seed)
        self.count = -(-m // max(1, _CHUNK_RECORDS // (n + 1)))
        self._once = scales if self.count > 1 else None
        self._chunks: list[PairClasses | None] = []
        self._losses: list[dict[float, np.ndarray]] = []

    def chunk_losses(self, i: int, scales: np.ndarray) -> np.ndarray:
        """(P_i, J): chunk i's losses at ``scales`` (drawn if need be)."""
        while len(self._chunks) <= i:
            self._chunks.append(next(self._draws))
            self._losses.append({})
            if self._once is not None:
                self.chunk_losses(len(self._chunks) - 1, self._once)
                self._chunks[-1] = None
        cache = self._losses[i]
        missing = np.array([float(t) for t in scales if float(t) not in cache])
        if missing.size:
            cache.update(zip(missing.tolist(), self._chunks[i].losses(missing).T))
        return np.stack([cache[float(t)] for t in scales], axis=1).reshape(-1, scales.size)

    def losses(self, scales: np.ndarray) -> np.ndarray:
        """(m, J): every pair's losses at ``scales``."""
        return np.concatenate([self.chunk_losses(i, scales) for i in range(self.count)])


def _first_failing(runs: list[_Pairs], scales, epsilon: float, plan, n: int) -> int:
    r"""The index of the least candidate that :func:`select_scale` would find
    failing on every pair's losses (``scales.size``: none), computing fewer.

    A candidate fails once more than m - k pairs of a run have a running
    maximum r with ``not r + margin <= epsilon`` (the k-th smallest is above),
    and so do the larger ones (r and the margin grow with t): blocks of
    :data:`_BLOCK` candidates, chunk by chunk, until the first failing one,
    drawing no chunk after it. The prefix left passes as on all the losses."""
    allowed = plan.m - plan.k
    bound = margin(epsilon, scales, n)
    for start in range(0, scales.size, _BLOCK):
        stop = min(start + _BLOCK, scales.size)
        for run in runs:
            failed = np.zeros(stop, int)
            for i in range(run.count):
                running = np.maximum.accumulate(run.chunk_losses(i, scales[:stop]), axis=1)
                failed += np.sum(~(running + bound[:stop] <= epsilon), axis=0)
                stop = min(stop, int(np.argmax(np.append(failed > allowed, True))))
                failed = failed[:stop]
                if stop == 0:
                    return 0
        if stop < min(start + _BLOCK, scales.size):
            return stop
    return scales.size


def _scales(mech: ExponentialQuantileMechanism, worst_case_epsilon) -> np.ndarray:
    """:func:`candidate_scales` of ``mech`` under the checked cap."""
    return candidate_scales(
        mech.epsilon, mech.utility_sensitivity,
        check_cap(worst_case_epsilon, mech.epsilon),
    )


def _chosen(mech, scales, runs, plan, n, words, identity):
    """The calibration :func:`select_scale` gives on the losses of ``runs``, or
    None; its run has the plan's numbers and ``identity()`` (id, seed, ordinal)."""
    scales = scales[:_first_failing(runs, scales, mech.epsilon, plan, n)]
    if scales.size == 0:  # no candidate passes: the plain mechanism
        return None
    chosen = select_scale([run.losses(scales) for run in runs], scales, mech, plan.k, n)
    if chosen is None:
        return None
    run = SamplingRun(
        gamma=plan.gamma, rho=plan.rho, inequality=plan.inequality, m=plan.m, k=plan.k,
        neighbours=mech.neighbours, released=(chosen[1],), **identity(),
    )
    return QuantileCalibration(
        mech.q, mech.low, mech.high, mech.epsilon, mech.neighbours, chosen[0], run,
        words, n,
    )


def check_cap(worst_case_epsilon, epsilon: float) -> float | None:
    """``worst_case_epsilon`` checked: ``None`` (4 epsilon, the largest
    candidate), or a number at least epsilon (every candidate's worst case is
    above epsilon).

    Parameters
    ----------
    worst_case_epsilon : float or None
    epsilon : float

    Returns
    -------
    float or None
    """
    if worst_case_epsilon is None:
        return None
    cap = EPSILON_STATED.check("worst_case_epsilon", worst_case_epsilon)
    if cap < epsilon:
        raise ValueError(
            f"worst_case_epsilon must be >= epsilon={epsilon!r} (the worst case "
            f"of every candidate scale is above it), got worst_case_epsilon={cap!r}."
        )
    return cap


def check_calibration(
    q: float,
    bounds,
    epsilon: float,
    population,
    n: int,
    *,
    gamma: float | None = None,
    m: int | None = None,
    k: int | None = None,
    inequality: str = "exact",
    neighbours: str = NEIGHBOURS,
):
    """Check every input of :func:`calibrate_quantile`, and its memory; draw nothing.

    The default m: :data:`DEFAULT_PAIRS` within :data:`_CHUNK_RECORDS` records,
    at least the fewest pairs gamma needs.

    Parameters
    ----------
    q, bounds, epsilon, population, n, gamma, m, k, inequality, neighbours
        As in :func:`calibrate_quantile`.

    Returns
    -------
    (mechanism, population, n, plan)
        The plain mechanism, the population as a Distribution, n and the
        sampling plan.

    Raises
    ------
    TypeError, ValueError
        Naming the bad argument; or when the pairs would not fit in memory.
    """
    mech = ExponentialQuantileMechanism(q, bounds, epsilon, neighbours=neighbours)
    dist = as_distribution(population)
    if tuple(dist.record_shape) != ():
        raise ValueError(
            "a quantile is calibrated on scalar records, got a population of records "
            f"of shape {dist.record_shape}."
        )
    n = check_count("n", n)
    check_neighbours(neighbours, n)
    m, gamma, k = check_plan_arguments(m, gamma, k, inequality)
    if m is None:
        m = max(sampling_plan(gamma=gamma, inequality=inequality).m,
                min(DEFAULT_PAIRS, _CHUNK_RECORDS // (n + 1)))
    plan = sampling_plan(m=m, gamma=gamma, k=k, inequality=inequality)
    if isinstance(dist, PublicSample):
        dist.check_plan(plan)
    pairs = min(plan.m, max(1, _CHUNK_RECORDS // (n + 1)))
    runs = (
        dist.runs(plan.rho)
        if isinstance(dist, PublicSample) and plan.inequality != "exchangeable"
        else 1
    )
    scales = 2 * STEPS_PER_OCTAVE + 2
    check_fits(
        f"the pairs of a quantile's calibration (n={n} records, {pairs} pair(s) at "
        f"a time, m={plan.m} pairs, {runs} run(s))",
        pairs * (n + 2) * _RECORD_BYTES
        + 8 * plan.m * scales * (runs + _LOSS_COPIES),
        "lower n or m, or give worst_case_epsilon=epsilon (the plain mechanism "
        "samples nothing)",
    )
    return mech, dist, n, plan


def _words(dist, plan) -> str:
    """The population the pairs came from, in words (a public sample's basis)."""
    return dist.basis(plan) if isinstance(dist, PublicSample) else repr(dist)


class SampledLosses:
    r"""Pairs drawn once from a population, kept to calibrate at any epsilon.

    What :func:`calibrate_quantile` computes for one epsilon, for many: the
    pairs are drawn chunk by chunk when first needed, and each scale's losses
    are computed once, when first needed (:func:`_first_failing`), the same at
    any epsilon (the candidates :math:`2^{u/16}` are one grid). The pairs'
    classes are kept (:math:`3(n + 1)` numbers per pair and population), or,
    when ``epsilons`` are given and the pairs take several chunks, each chunk's
    losses at every candidate of those epsilons are computed at once and the
    chunk is dropped, as :func:`calibrate_quantile` does. Every calibration
    equals :func:`calibrate_quantile`'s with the same arguments but its run's
    identity. For planning (:func:`sensampler.app.planning.plan_release`),
    which searches epsilon, and the sweep over epsilons
    (:mod:`sensampler.app.experiments.release_sweep`); a release calibrates
    with :func:`calibrate_quantile` on pairs of its own.

    Parameters
    ----------
    q, bounds, population, n, gamma, m, k, inequality, neighbours, random_state
        As in :func:`calibrate_quantile`.
    epsilons : sequence of float, optional
        The only epsilons :meth:`calibration` will be asked (with any cap).

    Attributes
    ----------
    plan : SamplingPlan
        The sampling plan of every calibration.
    """

    def __init__(
        self, q, bounds, population, n, *, gamma=None, m=None, k=None,
        inequality="exact", neighbours=NEIGHBOURS, random_state=None, epsilons=None,
    ):
        mech, dist, n, self.plan = check_calibration(
            q, bounds, 1.0, population, n, gamma=gamma, m=m, k=k, inequality=inequality,
            neighbours=neighbours,
        )
        scales, self._epsilons = None, None
        if epsilons is not None:
            mechs = [ExponentialQuantileMechanism(mech.q, (mech.low, mech.high), e,
                                                  neighbours=neighbours) for e in epsilons]
            self._epsilons = frozenset(one.epsilon for one in mechs)
            scales = np.unique(np.concatenate([_scales(one, None) for one in mechs]))
        self._q, self._bounds, self._neighbours = mech.q, (mech.low, mech.high), neighbours
        self._n = n
        self._words = _words(dist, self.plan)
        root = as_seed_sequence(random_state)
        self._runs = [_Pairs(*ps, mech, n, self.plan.m, scales)
                      for ps in _populations(dist, self.plan, root)]

    def calibration(
        self, epsilon: float, worst_case_epsilon: float | None = None
    ) -> QuantileCalibration | None:
        """The calibration at ``epsilon`` on the kept pairs (no run identity).

        Parameters
        ----------
        epsilon : float
            ``> 0``; one of ``epsilons`` if they were given.
        worst_case_epsilon : float, optional
            As in :func:`calibrate_quantile`.

        Returns
        -------
        QuantileCalibration or None
            As :func:`calibrate_quantile` returns it; its run is anonymous.
        """
        mech = ExponentialQuantileMechanism(
            self._q, self._bounds, epsilon, neighbours=self._neighbours
        )
        if self._epsilons is not None and mech.epsilon not in self._epsilons:
            raise ValueError(
                f"epsilon must be one of the epsilons the losses were sampled for, "
                f"{sorted(self._epsilons)}, got epsilon={epsilon!r}."
            )
        return _chosen(
            mech, _scales(mech, worst_case_epsilon), self._runs, self.plan, self._n,
            self._words, lambda: {"run_id": None},
        )


def _populations(dist: Distribution, plan, root: np.random.SeedSequence):
    """``(population, seed)`` pairs the plan runs on: ``dist`` itself, or a public
    sample's posterior draws (:meth:`~sensampler.distributions.PublicSample.populations`)."""
    if isinstance(dist, PublicSample):
        return dist.populations(plan, root)
    return [(dist, root)]
