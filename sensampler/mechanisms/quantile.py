r"""The exponential mechanism for a quantile over a bounded range (Smith 2011).

Its privacy needs no sensitivity of the quantile itself (which can be as large
as the range): the utility of an output is how many records separate it from
the target rank, and one record moves that by at most one. The outputs are a
fixed public grid of points, between the bounds or, without bounds, the wide
log-spaced grid :func:`wide_grid` (no range known in advance), chosen with
exactly the exponential mechanism's probabilities (integer and rational
arithmetic), so the guarantee is plain (worst-case) epsilon-DP for every pair of
neighbouring databases, with no gamma: nothing is sampled.
"""

from __future__ import annotations

import bisect
import functools
import math
import random
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import numpy as np

from .._lib.domains import NEIGHBOUR_RELATIONS, PROBABILITY_CLOSED
from .._lib.validation import check_count
from .._math.curves import pure_dp_curve
from .._math.exact_sampling import SECURE_RANDOM, bernoulli_exp
from .._math.rounding import float_up
from ..privacy import PrivacyStatement, SamplingRun
from ._base import Mechanism, bounded_range_rdp, check_epsilon, pure_dp_zcdp

__all__ = [
    "ExponentialQuantileMechanism",
    "QuantileCalibration",
    "WIDE_GRID_DECADES",
    "WIDE_GRID_PER_DECADE",
    "check_bounds",
    "utility_sensitivity",
    "wide_grid",
]

#: Candidates per decade of :func:`wide_grid` (steps of 0.23%).
WIDE_GRID_PER_DECADE = 1000
#: The decades :func:`wide_grid` spans in absolute value: 10^-6 to 10^12.
WIDE_GRID_DECADES = (-6, 12)


@functools.lru_cache(maxsize=16)
def _even_grid(low: float, high: float, size: int) -> np.ndarray:
    """``size + 1`` points from ``low`` to ``high``, evenly spaced (read-only;
    kept: an audit releases one mechanism tens of thousands of times)."""
    steps = np.arange(size + 1) / size  # exact
    points = np.minimum(low + (high - low) * steps, high)
    points[-1] = high
    points.flags.writeable = False
    return points


def _bound(name: str, value) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"bounds must hold real numbers, got {name}={value!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"bounds must be finite, got {name}={value!r}.")
    return value


@functools.lru_cache(maxsize=1)
def wide_grid() -> np.ndarray:
    """The public candidates of a quantile released without bounds: 0 and
    ±10^(j/1000) from 10^-6 to 10^12.

    :data:`WIDE_GRID_PER_DECADE` candidates per decade (each 0.23% above the
    last) over the decades :data:`WIDE_GRID_DECADES`, both signs, and 0:
    36 003 points fixed in advance, the same for every database, so no range
    needs to be known (OpenDP's ``private_quantile`` takes such candidates).
    A value between 10^-6 and 10^12 in absolute value is at most 0.115% from
    a candidate; records beyond 10^12 count as above every candidate.

    Returns
    -------
    ndarray
        The candidates, increasing (read-only).
    """
    low, high = WIDE_GRID_DECADES
    steps = np.arange(low * WIDE_GRID_PER_DECADE, high * WIDE_GRID_PER_DECADE + 1)
    positive = 10.0 ** (steps / WIDE_GRID_PER_DECADE)
    grid = np.concatenate([-positive[::-1], [0.0], positive])
    grid.flags.writeable = False
    return grid


def utility_sensitivity(q: float, neighbours: str) -> float:
    r""":math:`\Delta u` of the rank utility: 1 for replace-one,
    :math:`\max(q, 1-q)` for add/remove (derived in
    :class:`ExponentialQuantileMechanism`), rounded up to a double (the
    sampler uses this float's exact value, so a rounding never weakens the
    guarantee)."""
    if neighbours == "replace-one":
        return 1.0
    return float_up(max(Fraction(q), 1 - Fraction(q)))


def check_bounds(bounds) -> tuple[float, float]:
    """``(low, high)`` read from a pair or from an object with ``.low`` and ``.high``.

    Parameters
    ----------
    bounds : tuple of two reals, or object with ``low`` and ``high`` attributes
        The range, ``low < high``, both finite, with ``high - low`` finite.

    Returns
    -------
    (low, high) : (float, float)

    Raises
    ------
    TypeError
        For anything else, or bounds that are not real numbers.
    ValueError
        For non-finite bounds, ``low >= high`` or a width that overflows.

    Examples
    --------
    >>> check_bounds((140, 210))
    (140.0, 210.0)
    """
    if hasattr(bounds, "low") and hasattr(bounds, "high"):
        low, high = bounds.low, bounds.high
    elif isinstance(bounds, (tuple, list)) and len(bounds) == 2:
        low, high = bounds
    else:
        raise TypeError(
            "bounds must be a (low, high) pair or an object with .low and .high, "
            f"got {bounds!r}."
        )
    low, high = _bound("low", low), _bound("high", high)
    if not low < high:
        raise ValueError(
            f"bounds must have low < high (a range of positive width), got "
            f"low={low!r}, high={high!r}."
        )
    if not math.isfinite(high - low):
        raise ValueError(
            f"bounds must have a finite width high - low, got low={low!r}, "
            f"high={high!r}."
        )
    return low, high


@dataclass(frozen=True)
class QuantileCalibration:
    r"""A weight scale for :class:`ExponentialQuantileMechanism`, sampled from a
    population model: random DP with gamma, and a worst case of its own.

    Made by :func:`sensampler.quantile_calibration.calibrate_quantile`, which
    derives it (Rubinstein & Aldà 2017's random DP applied to the mechanism's
    own privacy loss); the mechanism reads it as given.

    Parameters
    ----------
    q : float
        The quantile it was calibrated for.
    low, high : float
        The bounds.
    epsilon : float
        The random-DP epsilon: on a pair of neighbours drawn from the
        population, the privacy loss at ``scale`` is at most epsilon except
        with probability ``run.gamma``.
    neighbours : {"replace-one", "add-remove"}
        The relation of the pairs drawn.
    scale : float
        t: candidate :math:`t_j` has weight :math:`\exp(-t\,|c_j - qn|)`;
        at least :math:`\epsilon/(2\Delta u)`, the scale of the plain
        epsilon-DP mechanism, and at most 4 times it (a worst case of at most
        4 epsilon; the mechanism checks both).
    run : SamplingRun
        The sampling run: its plan (m, k), gamma (> 0), seed and the order
        statistic of the privacy loss it released (exactly one).
    population : str
        The population model the pairs were drawn from, in words.
    n : int, optional
        Records of the databases drawn (replace-one: both; add/remove: the
        larger): the random-DP statement holds for databases of this size.
        ``None``: not recorded, not checked.
    """

    q: float
    low: float
    high: float
    epsilon: float
    neighbours: str
    scale: float
    run: SamplingRun
    population: str = ""
    n: int | None = None

    def __post_init__(self):
        PROBABILITY_CLOSED.check("q", self.q)
        check_bounds((self.low, self.high))
        check_epsilon(self.epsilon)
        NEIGHBOUR_RELATIONS.check("neighbours", self.neighbours)
        if not isinstance(self.run, SamplingRun):
            raise TypeError(f"run must be a SamplingRun, got {self.run!r}.")
        if self.n is not None:
            object.__setattr__(self, "n", check_count("n", self.n))
        if not (isinstance(self.scale, float) and math.isfinite(self.scale)
                and self.scale > 0):
            raise ValueError(f"scale must be a finite float > 0, got {self.scale!r}.")
        if self.run.neighbours != self.neighbours:
            raise ValueError(
                f"neighbours={self.neighbours!r} differ from the run's, "
                f"{self.run.neighbours!r}."
            )
        if not isinstance(self.population, str):
            raise TypeError(f"population must be a str, got {self.population!r}.")
        if self.run.gamma == 0.0:  # no plan certifies it: plain DP at a sampled scale
            raise ValueError(
                "run.gamma must be > 0: a sampled scale holds except with the "
                f"probability its plan certifies, got gamma={self.run.gamma!r}."
            )
        if len(self.run.released) != 1 or any(
            loss > self.epsilon for loss in self.run.released
        ):
            raise ValueError(
                "run.released must hold the order statistic of the privacy loss at "
                f"the scale, at most epsilon={self.epsilon!r}, got "
                f"{self.run.released!r}."
            )


class ExponentialQuantileMechanism(Mechanism):
    r"""A q-quantile of a data column by the exponential mechanism on a public grid.

    Smith (2011), Sec. 3, with the outputs restricted to a fixed public grid
    and sampled exactly. The candidate outputs are the G + 1 equally spaced
    points

    .. math:: t_j = \mathrm{low} + j\,(\mathrm{high} - \mathrm{low})/G,
              \quad j = 0..G, \quad G = 2^{14} = 16384,

    (:attr:`grid_size`; the resolution is :math:`(\mathrm{high} - \mathrm{low})
    / 16384`, 0.0061% of the range: 0.0043 for bounds (140, 210)). They depend
    on the bounds only, never on the data. **Without bounds** (``bounds=None``)
    the candidates are the wide public grid :func:`wide_grid` (0 and
    :math:`\pm 10^{j/1000}` from :math:`10^{-6}` to :math:`10^{12}`, G = 36 002;
    low and high are :math:`\mp 10^{12}`): fixed before any data, so everything
    below holds unchanged, at the whole epsilon, with no bounds to pay for
    (a pre-pass estimating them from the data would spend part of epsilon). It
    needs no range known in advance, at a resolution of 0.23% of the value.
    With the n records clipped to [low, high] and
    :math:`c_j = \#\{x : x < t_j\}`, candidate :math:`t_j` has the utility
    :math:`u(D, t_j) = -|c_j - qn|` and is chosen with probability

    .. math:: P_D(t_j) \propto \exp\!\left(\frac{\epsilon\, u(D, t_j)}{2\Delta u}\right).

    **Sensitivity of the utility** (unchanged by the grid: it holds for every
    fixed output t). Let c(t) be the number of records below t.

    * *Replace-one* (n fixed): replacing one record changes c(t) by -1, 0 or
      +1, so :math:`|u(D, t) - u(D', t)| \le 1`: :math:`\Delta u = 1`.
    * *Add/remove*: adding a record x gives :math:`c' = c + b`,
      :math:`b = [x < t] \in \{0, 1\}`, and :math:`n' = n + 1`, so
      :math:`(c' - qn') - (c - qn) = b - q \in \{-q, 1 - q\}` and
      :math:`|u(D, t) - u(D', t)| \le \max(q, 1 - q)` (removal alike):
      :math:`\Delta u = \max(q, 1 - q)`, 1/2 for the median.

    **Privacy.** The output set is the grid, the same for every database, and
    for each :math:`t_j` the log-ratio :math:`\log P_D(t_j)/P_{D'}(t_j)` is
    :math:`\epsilon (u(D,t_j) - u(D',t_j))/(2\Delta u)` (in
    :math:`[-\epsilon/2, \epsilon/2]`) minus the log-ratio of the normalisers
    (each moves by at most a factor :math:`e^{\epsilon/2}`), hence at most
    epsilon in absolute value: pure epsilon-DP for **every** pair of
    neighbouring databases (McSherry & Talwar 2007, Thm. 6; Dwork & Roth 2014,
    Thm. 3.10, with the counting measure on the grid). The privacy loss ranges
    over an interval of width epsilon, so the mechanism is
    epsilon-bounded-range, hence :math:`\epsilon^2/8`-zCDP (Cesar & Rogers
    2021; :func:`~sensampler.mechanisms._base.bounded_range_rdp`).

    **Tight at replace-one.** The factor 2 cannot be dropped, and no smaller
    :math:`\Delta u` holds: a replacement moves c(t) by -1 on an interval
    that can hold the output t on one side of the quantile (u rises by 1) and
    most of the law's mass on the other (u falls by 1, the normaliser by
    :math:`e^{-\epsilon/2}`). For the records (0.001, 0.002, 0.999) and
    (0.0005, 0.001, 0.002) on [0, 1] the exact loss is epsilon, and 2 epsilon
    with weights :math:`\exp(\epsilon u/\Delta u)`. OpenDP's quantile score
    (stability :math:`2\max(\alpha, 1-\alpha)` per symmetric-distance unit
    in the InfDifferenceDistance, replace-one at distance 2) and diffprivlib's
    ``quantile`` (sensitivity 1 with the factor 2) calibrate the same law, and
    permute-and-flip (McKenna & Sheldon 2020) with the same utility is no
    more accurate on a grid this fine (measured:
    ``benchmarks/medians.py``).

    **Exact sampling.** The law above is sampled exactly, so the statement
    holds for the implementation and not only for the ideal algorithm (no
    floating-point leak: Mironov 2012). epsilon and q are floats, hence exact
    dyadic rationals, and so is :math:`\delta_j = \epsilon\,(|c_j - qn| -
    \min_k |c_k - qn|)/(2\Delta u) \ge 0`, computed in integers. Rejection
    sampling: draw j uniformly on {0..G} (an exact integer draw) and accept
    it with probability :math:`e^{-\delta_j}` (an exact
    Bernoulli(:math:`e^{-\gamma}`) for rational :math:`\gamma`: Canonne,
    Kamath & Steinke 2020, Algorithm 1), else start again. An accepted j has
    probability proportional to :math:`e^{-\delta_j}`, which is
    :math:`P_D(t_j)`. At least one candidate has :math:`\delta_j = 0`, so a
    draw needs at most G + 1 proposals on average (far fewer where several
    grid points lie near the quantile). The output is the float
    :math:`t_j`, a function of j alone. The running time is random and
    depends on the data (it hides no timing).

    **Calibrated on a population model** (``calibration=``, made by
    :func:`sensampler.quantile_calibration.calibrate_quantile`): the weights
    are :math:`\exp(-t\,|c_j - qn|)` with a sampled scale
    :math:`t \ge \epsilon/(2\Delta u)`, the largest of fixed candidates
    whose privacy loss, computed exactly on pairs of neighbouring databases
    drawn from the model, stays at most epsilon except with probability gamma
    (random DP, Rubinstein & Aldà 2017). The statement is then
    (epsilon, gamma)-random DP, and its worst-case part is plain
    :math:`2t\Delta u`-DP for every pair (the argument above at scale t;
    :attr:`worst_case_epsilon`, at most 4 epsilon), ``2tΔu``-bounded range.
    On the heights of the source documents (n = 500, epsilon = 1, gamma =
    0.05) t is 1.24 times the plain scale: the median's error falls by a
    fifth, at a worst case of 1.24-DP (``benchmarks/medians.py``). The
    random-DP part holds for databases of the calibration's n records: a
    replace-one release of another size is refused (at add/remove the size is
    private and is not checked: calibrate for the size you release).

    The bounds are public: choose them without looking at the data (from a
    public population model, or a domain's physical limits). Records outside
    them are clipped, which biases a quantile near a bound, not the privacy.

    Parameters
    ----------
    q : float
        The quantile, ``0 <= q <= 1`` (0.5: the median).
    bounds : (low, high), object with ``.low`` and ``.high``, or None
        The output range, finite, ``low < high`` (e.g. a
        ``sensampler.bounds.Bounds``); ``None``: the wide public grid
        :func:`wide_grid` (no calibration).
    epsilon : float
        ``> 0``.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation the statement holds for; it sets
        :attr:`utility_sensitivity`.
    calibration : QuantileCalibration, optional
        A sampled scale for this q, these bounds, epsilon and neighbours
        (checked; given bounds only); ``None`` (default): the plain
        epsilon-DP mechanism.

    Attributes
    ----------
    low, high : float
        The bounds.
    utility_sensitivity : float
        :math:`\Delta u`: 1 for replace-one, :math:`\max(q, 1-q)` for add/remove
        (the nearest float at or above it; the sampler uses this float's exact
        rational value, so a rounding never weakens the guarantee).
    grid_size : int
        G: the outputs are the G + 1 points :attr:`grid` (2^14 between bounds,
        36 002 on the wide grid).
    wide : bool
        Whether the grid is :func:`wide_grid` (``bounds=None``).

    Notes
    -----
    ``release(value)`` takes the private **data column** (any number n >= 0
    of finite records; n = 0 gives a uniform draw on the grid), not an exact
    answer: the mechanism reads the data itself. Error messages never quote a
    record. With ``random_state=None`` the draws come from the operating
    system's secure generator (:class:`random.SystemRandom`); an int, a numpy
    ``Generator`` or ``SeedSequence`` seeds a :class:`random.Random` (for
    reproducible research), and a :class:`random.Random` is used as given.

    References
    ----------
    .. [1] A. Smith, "Privacy-preserving statistical estimation with optimal
       convergence rates", Proc. 43rd ACM STOC, 2011.
    .. [2] F. McSherry and K. Talwar, "Mechanism Design via Differential
       Privacy", Proc. 48th IEEE FOCS, 2007.
    .. [3] M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating:
       Unifying Privacy Loss Composition for Data Analytics", ALT 2021.
    .. [4] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.
    .. [5] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sensampler.mechanisms import ExponentialQuantileMechanism
    >>> mech = ExponentialQuantileMechanism(0.5, (140, 210), epsilon=1.0)
    >>> print(mech.privacy)
    exponential quantile: epsilon=1-DP (replace-one neighbours)
    >>> data = np.random.default_rng(0).normal(170, 8, size=1000)
    >>> out = mech.release(data, random_state=1)
    >>> bool(abs(out - np.median(data)) < 2), bool(out in mech.grid)
    (True, True)
    """

    name = "exponential quantile"
    grid_size = 2**14

    def __init__(
        self,
        q: float,
        bounds,
        epsilon: float,
        *,
        neighbours="replace-one",
        calibration: QuantileCalibration | None = None,
    ):
        self.q = PROBABILITY_CLOSED.check("q", q)
        self.wide = bounds is None
        if self.wide:
            self.grid_size = wide_grid().size - 1
            self.low, self.high = float(wide_grid()[0]), float(wide_grid()[-1])
        else:
            self.low, self.high = check_bounds(bounds)
        self.epsilon = check_epsilon(epsilon)
        self.neighbours = NEIGHBOUR_RELATIONS.check("neighbours", neighbours)
        self.utility_sensitivity = utility_sensitivity(self.q, self.neighbours)
        self.calibration = self._check_calibration(calibration)

    def _check_calibration(self, calibration) -> QuantileCalibration | None:
        if calibration is None:
            return None
        if not isinstance(calibration, QuantileCalibration):
            raise TypeError(
                "calibration must be a QuantileCalibration or None, got "
                f"{calibration!r}."
            )
        if self.wide:
            raise ValueError(
                "calibration needs given bounds: a scale sampled over bounds does not "
                "hold on the wide grid (bounds=None)."
            )
        mine = (self.q, self.low, self.high, self.epsilon, self.neighbours)
        theirs = (
            calibration.q, calibration.low, calibration.high, calibration.epsilon,
            calibration.neighbours,
        )
        if mine != theirs:
            raise ValueError(
                "calibration was made for (q, low, high, epsilon, neighbours)="
                f"{theirs!r}, not this mechanism's {mine!r}."
            )
        if calibration.scale < self.epsilon / (2.0 * self.utility_sensitivity):
            raise ValueError(
                f"calibration.scale={calibration.scale!r} is below the plain "
                "epsilon-DP scale epsilon / (2 * utility_sensitivity): make it with "
                "calibrate_quantile."
            )
        plain = Fraction(self.epsilon) / (2 * Fraction(self.utility_sensitivity))
        if Fraction(calibration.scale) > 4 * plain:  # no candidate lies above it
            raise ValueError(
                f"calibration.scale={calibration.scale!r} is above 4 times the plain "
                "epsilon-DP scale (a worst case above 4 epsilon): make it with "
                "calibrate_quantile."
            )
        return calibration

    @property
    def scale(self) -> Fraction:
        r"""t, exactly: candidate :math:`t_j` has weight :math:`\exp(-t|c_j - qn|)`.

        :math:`\epsilon/(2\Delta u)` (plain epsilon-DP), or the sampled
        :attr:`calibration`'s ``scale``.
        """
        if self.calibration is not None:
            return Fraction(self.calibration.scale)
        return Fraction(self.epsilon) / (2 * Fraction(self.utility_sensitivity))

    @property
    def worst_case_epsilon(self) -> float:
        r""":math:`2 t \Delta u`, rounded up: the epsilon that holds for every pair.

        Equal to epsilon for the plain mechanism; above it for a sampled
        :attr:`calibration` (McSherry & Talwar 2007, Thm. 6, at weight scale t).
        """
        return float_up(2 * self.scale * Fraction(self.utility_sensitivity))

    def _privacy_statement(self) -> PrivacyStatement:
        worst = self.worst_case_epsilon
        plain = PrivacyStatement(
            self.name,
            worst,
            0.0,
            rho=pure_dp_zcdp(worst, 8.0),
            rdp=bounded_range_rdp(worst),
            source="global",
            neighbours=self.neighbours,
        )
        if self.calibration is None:
            return plain
        return PrivacyStatement(
            self.name,
            self.epsilon,
            0.0,
            rho=pure_dp_zcdp(self.epsilon, 2.0),
            rdp=functools.partial(pure_dp_curve, self.epsilon),
            run=self.calibration.run,
            source="sampled",
            neighbours=self.neighbours,
            worst_case=plain,
        )

    @property
    def grid(self) -> np.ndarray:
        """The G + 1 candidate outputs, ``low`` to ``high``, from the bounds alone
        (:func:`wide_grid` without bounds)."""
        if self.wide:
            return wide_grid()
        return _even_grid(self.low, self.high, self.grid_size)

    def _value_array(self, value) -> np.ndarray:
        # the private data: messages give the shape, never a record
        if isinstance(value, (str, bytes)):
            raise TypeError("value must be the data column (an array of numbers), "
                            "got a str.")
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise TypeError(
                "value must be the data column (a 1-d array of numbers), got "
                f"{type(value).__name__}."
            ) from None
        if arr.ndim != 1:
            raise ValueError(
                f"value must be the data column (1-d, one number per record), got "
                f"shape {arr.shape}."
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError("value must be finite; the data hold NaN or infinity.")
        return arr

    def output_law(self, value) -> tuple[np.ndarray, np.ndarray]:
        """The law :meth:`release` samples on the data column ``value``.

        The output is ``grid[j]`` with probability ``probabilities[j]`` (see
        the class). For planning on databases drawn from a public population
        model (:func:`sensampler.app.planning.plan_release`); applied to private
        data it releases them exactly.

        Parameters
        ----------
        value : array_like of shape (n,)
            A data column, finite.

        Returns
        -------
        grid : ndarray of shape (G + 1,)
            The candidate outputs, :attr:`grid`.
        probabilities : ndarray of shape (G + 1,)
            The chance of each, summing to 1 (in floating point: a chance
            below about e^-745 of the largest shows as 0).
        """
        sizes, distances = self.count_classes(value)
        chances = self.class_probabilities(sizes, distances)
        return self.grid, np.repeat(chances / sizes, sizes)

    def count_classes(self, value) -> tuple[np.ndarray, np.ndarray]:
        r"""The grid grouped by count: what the law depends on, at any epsilon.

        :math:`c_j` does not decrease with j, so the grid points of equal
        count form consecutive runs, the classes; points of a class are
        equally likely. Depends on the data, ``q`` and the bounds only, not
        on epsilon: planning computes it once per database
        (:func:`sensampler.app.planning.plan_release`).

        Parameters
        ----------
        value : array_like of shape (n,)
            A data column, finite.

        Returns
        -------
        sizes : ndarray of int
            The number of grid points in each class, in grid order (summing to
            G + 1).
        distances : ndarray of float
            :math:`|c - qn|` of each class.
        """
        data = self._value_array(value)
        _, classes, sizes = self._classes(data)
        return sizes, np.abs(classes - self.q * data.size)

    def _classes(self, data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r"""Where each class starts on the grid, its count :math:`c` and its size.

        :math:`c_j`, the clipped records below grid point j, does not decrease
        with j, so its runs are the classes. With :math:`p_i` the first grid
        point above record i, :math:`c_j = \#\{i : p_i \le j\}`: the classes
        start at 0 and at the distinct :math:`p_i \le G`, in O(n log G) work
        rather than a count per grid point.
        """
        records = np.sort(np.clip(data, self.low, self.high))
        points = self.grid_size + 1
        first_above = np.searchsorted(self.grid, records, side="right")
        starts = np.unique(np.append(first_above[first_above < points], 0))
        counts = np.searchsorted(first_above, starts, side="right")
        return starts, counts, np.diff(np.append(starts, points))

    def class_probabilities(self, sizes, distances) -> np.ndarray:
        r"""The chance of each class of :meth:`count_classes` at this epsilon.

        Class k holds :math:`m_k` points of weight :math:`\exp(-\epsilon
        (d_k - \min d)/(2\Delta u))` each (the class docstring's law).

        Parameters
        ----------
        sizes, distances : ndarray
            As :meth:`count_classes` returns them.

        Returns
        -------
        ndarray
            Summing to 1 (in floating point: a chance below about e^-745 of
            the largest shows as 0).
        """
        scale = float(self.scale)
        with np.errstate(over="ignore", invalid="ignore"):
            gap = distances - distances.min()
            log_weights = np.where(gap == 0, 0.0, -gap * scale)
        weights = sizes * np.exp(log_weights)
        return weights / weights.sum()

    def check_release(self, value, *, random_state=None):
        """Validate a release's inputs without drawing anything.

        Parameters
        ----------
        value : array_like of shape (n,)
            The data column.
        random_state : None, int, numpy.random.Generator, numpy.random.SeedSequence, optional
            ``None``: the operating system's secure generator; a
            :class:`random.Random` is also taken.

        Returns
        -------
        (value, source) : (ndarray, random.Random or numpy.random.Generator)
            The checked data and the source :meth:`release` draws from: the
            secure generator for ``None``, a ``random.Random`` as given, else
            the numpy generator (which seeds a ``random.Random``).

        Raises
        ------
        TypeError, ValueError
            Naming the bad ``value`` or ``random_state``.
        """
        if random_state is None or isinstance(random_state, random.Random):
            data = self._checked_value(value)
            source = SECURE_RANDOM if random_state is None else random_state
        else:
            data, source = super().check_release(value, random_state=random_state)
        self._check_size(data)
        return data, source

    def _check_size(self, data: np.ndarray) -> None:
        """Refuse replace-one data of another size than the calibration's n.

        The sampled scale keeps gamma for databases of n records only (the
        loss grows with n once records crowd the grid: a scale sampled at
        n = 500 on the heights, gamma = 0.05, loses more than epsilon on 54
        of 400 fresh pairs at n = 20 000, 13.5%). At replace-one the size is
        public, the same for both databases of a pair; at add/remove it is
        not (refusing one size would tell it), so it is not checked there.
        """
        cal = self.calibration
        if (cal is not None and cal.n is not None and self.neighbours == "replace-one"
                and data.size != cal.n):
            raise ValueError(
                f"value holds {data.size} records, but the calibration's scale was "
                f"sampled for databases of n={cal.n} records: calibrate for this n."
            )

    def release(self, value, *, random_state=None) -> float:
        """The private q-quantile of the data column ``value``: a grid point.

        Parameters
        ----------
        value : array_like of shape (n,)
            The private records, finite (clipped to the bounds here).
        random_state : None, int, numpy.random.Generator, numpy.random.SeedSequence, optional
            Source of the randomness; ``None`` (default): the operating
            system's secure generator; a :class:`random.Random` is also taken.

        Returns
        -------
        float
            A point of :attr:`grid`.
        """
        data, source = self.check_release(value, random_state=random_state)
        if not isinstance(source, random.Random):  # a numpy generator: seeds one
            source = random.Random(int.from_bytes(source.bytes(32), "little"))
        grid = self.grid
        starts, classes, _ = self._classes(data)
        starts = starts.tolist()
        # |c - qn| = |c D - N| / D with qn = N / D exactly (q is a dyadic rational)
        target = Fraction(self.q) * data.size
        whole, parts = target.numerator, target.denominator

        def distance(k: int) -> int:
            return abs(int(classes[k]) * parts - whole)

        # |c D - N| is convex in c and the counts ascend: the least is at a class
        # beside N / D (the float search may miss by one place: two more tried)
        at = int(np.searchsorted(classes, whole / parts))
        closest = min(distance(k) for k in range(max(at - 2, 0), min(at + 2, len(classes))))
        scale = self.scale
        while True:
            j = source.randrange(self.grid_size + 1)
            k = bisect.bisect_right(starts, j) - 1
            gamma = Fraction(scale.numerator * (distance(k) - closest),
                             scale.denominator * parts)
            if bernoulli_exp(gamma, source):
                return float(grid[j])
