r"""The exponential mechanism for a quantile over a bounded range (Smith 2011).

Its privacy needs no sensitivity of the quantile itself (which can be as large
as the range): the utility of an output is how many records separate it from
the target rank, and one record moves that by at most one. The guarantee is
plain (worst-case) epsilon-DP for every pair of neighbouring databases, with
no gamma: nothing is sampled.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from .._domains import NEIGHBOUR_RELATIONS, PROBABILITY_CLOSED
from ..privacy import PrivacyStatement
from ._base import Mechanism, bounded_range_rdp, check_epsilon, pure_dp_zcdp

__all__ = ["ExponentialQuantileMechanism", "check_bounds"]


def _bound(name: str, value) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"bounds must hold real numbers, got {name}={value!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"bounds must be finite, got {name}={value!r}.")
    return value


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


class ExponentialQuantileMechanism(Mechanism):
    r"""A q-quantile of a data column by the exponential mechanism over [low, high].

    Smith (2011), Sec. 3; the same algorithm as diffprivlib's
    ``tools.quantile``. The n records are clipped to [low, high] and sorted,
    :math:`z_1 \le \dots \le z_n`, with :math:`z_0 = \mathrm{low}` and
    :math:`z_{n+1} = \mathrm{high}`. Every output t in the gap
    :math:`(z_i, z_{i+1})`, ``i = 0..n``, has i records below it and the
    utility :math:`u(D, t) = -|i - qn|`. The output has the density

    .. math:: p_D(t) \propto \exp\!\left(\frac{\epsilon\, u(D, t)}{2\Delta u}\right)
              \quad \text{on } [\mathrm{low}, \mathrm{high}],

    sampled exactly: a gap is chosen with probability proportional to its
    length times :math:`\exp(\epsilon u_i/(2\Delta u))` (in log space, by the
    Gumbel-max trick: no weight overflows or underflows for any epsilon or
    n), then a point uniformly in it.

    **Sensitivity of the utility.** Fix an output t and let c(t) be the number
    of records below it.

    * *Replace-one* (n fixed): replacing one record changes c(t) by -1, 0 or
      +1, so :math:`|u(D, t) - u(D', t)| \le 1`: :math:`\Delta u = 1`.
    * *Add/remove*: adding a record x gives :math:`c' = c + b`,
      :math:`b = [x < t] \in \{0, 1\}`, and :math:`n' = n + 1`, so
      :math:`(c' - qn') - (c - qn) = b - q \in \{-q, 1 - q\}` and
      :math:`|u(D, t) - u(D', t)| \le \max(q, 1 - q)` (removal alike):
      :math:`\Delta u = \max(q, 1 - q)`, 1/2 for the median.

    **Privacy.** For every t, the log-density ratio
    :math:`\log p_D(t)/p_{D'}(t)` is :math:`\epsilon (u(D,t) - u(D',t))/(2\Delta u)`
    (in :math:`[-\epsilon/2, \epsilon/2]`) minus the log-ratio of the
    normalisers (each normaliser moves by at most a factor
    :math:`e^{\epsilon/2}`), hence at most epsilon in absolute value:
    pure epsilon-DP for **every** pair of neighbouring databases (McSherry &
    Talwar 2007, Thm. 6; Dwork & Roth 2014, Thm. 3.10, with Lebesgue measure
    as base measure). The statement is a worst-case one: no gamma, no
    population model. The privacy loss ranges over an interval of width
    epsilon, so the mechanism is epsilon-bounded-range, hence
    :math:`\epsilon^2/8`-zCDP (Cesar & Rogers 2021;
    :func:`~sensampler.mechanisms._base.bounded_range_rdp`), as
    :class:`~sensampler.mechanisms.ExponentialMechanism`.

    The bounds are public: choose them without looking at the data (from a
    public population model, or a domain's physical limits). Records outside
    them are clipped, which biases a quantile near a bound, not the privacy.

    Parameters
    ----------
    q : float
        The quantile, ``0 <= q <= 1`` (0.5: the median).
    bounds : (low, high) or object with ``.low`` and ``.high``
        The output range, finite, ``low < high`` (e.g. a
        ``sensampler.bounds.Bounds``).
    epsilon : float
        ``> 0``.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation the statement holds for; it sets
        :attr:`utility_sensitivity`.

    Attributes
    ----------
    low, high : float
        The bounds.
    utility_sensitivity : float
        :math:`\Delta u`: 1 for replace-one, :math:`\max(q, 1-q)` for add/remove.

    Notes
    -----
    ``release(value)`` takes the private **data column** (any number n >= 0
    of finite records; n = 0 gives a uniform draw on [low, high]), not an
    exact answer: the mechanism reads the data itself. Error messages never
    quote a record. Numpy's generators serve reproducible research, not
    hardened releases (no defence against floating-point attacks).

    References
    ----------
    .. [1] A. Smith, "Privacy-preserving statistical estimation with optimal
       convergence rates", Proc. 43rd ACM STOC, 2011.
    .. [2] F. McSherry and K. Talwar, "Mechanism Design via Differential
       Privacy", Proc. 48th IEEE FOCS, 2007.
    .. [3] M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating:
       Unifying Privacy Loss Composition for Data Analytics", ALT 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from sensampler.mechanisms import ExponentialQuantileMechanism
    >>> mech = ExponentialQuantileMechanism(0.5, (140, 210), epsilon=1.0)
    >>> print(mech.privacy)
    exponential quantile: epsilon=1-DP (replace-one neighbours)
    >>> data = np.random.default_rng(0).normal(170, 8, size=1000)
    >>> bool(abs(mech.release(data, random_state=1) - np.median(data)) < 2)
    True
    """

    name = "exponential quantile"

    def __init__(self, q: float, bounds, epsilon: float, *, neighbours="replace-one"):
        self.q = PROBABILITY_CLOSED.check("q", q)
        self.low, self.high = check_bounds(bounds)
        self.epsilon = check_epsilon(epsilon)
        self.neighbours = NEIGHBOUR_RELATIONS.check("neighbours", neighbours)
        self.utility_sensitivity = (
            1.0 if self.neighbours == "replace-one" else max(self.q, 1.0 - self.q)
        )

    def _privacy_statement(self) -> PrivacyStatement:
        return PrivacyStatement(
            self.name,
            self.epsilon,
            0.0,
            rho=pure_dp_zcdp(self.epsilon, 8.0),
            rdp=bounded_range_rdp(self.epsilon),
            source="global",
            neighbours=self.neighbours,
        )

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

    def _log_weights(self, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gaps' edges (n + 2) and their log-weights (n + 1), up to a constant."""
        edges = np.concatenate(
            ([self.low], np.sort(np.clip(data, self.low, self.high)), [self.high])
        )
        lengths = np.diff(edges)
        n = data.size
        utility = -np.abs(np.arange(n + 1) - self.q * n)
        open_gap = lengths > 0  # at least one: low < high
        top = utility[open_gap].max()
        scale = self.epsilon / (2.0 * self.utility_sensitivity)
        # Shifted by the best open gap's utility, which leaves the law unchanged;
        # a product that overflows is -inf, a gap of probability below e^-700.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            shifted = np.where(utility == top, 0.0, (utility - top) * scale)
            log_weights = np.where(open_gap, np.log(lengths) + shifted, -np.inf)
        return edges, log_weights

    def output_law(self, value) -> tuple[np.ndarray, np.ndarray]:
        """The law :meth:`release` samples on the data column ``value``.

        The output is uniform on gap i, ``[edges[i], edges[i + 1]]``, chosen
        with probability ``probabilities[i]`` (see the class). For planning on
        databases drawn from a public population model
        (:func:`sensampler.planning.plan_release`); applied to private data it
        releases them exactly.

        Parameters
        ----------
        value : array_like of shape (n,)
            A data column, finite.

        Returns
        -------
        edges : ndarray of shape (n + 2,)
            ``low``, the clipped records sorted, ``high``.
        probabilities : ndarray of shape (n + 1,)
            The chance of each gap, summing to 1.
        """
        edges, log_weights = self._log_weights(self._value_array(value))
        weights = np.exp(log_weights - log_weights.max())
        return edges, weights / weights.sum()

    def release(self, value, *, random_state=None) -> float:
        """The private q-quantile of the data column ``value``.

        Parameters
        ----------
        value : array_like of shape (n,)
            The private records, finite (clipped to the bounds here).
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the randomness; ``None`` (default) draws fresh entropy.

        Returns
        -------
        float
            A point of [low, high].
        """
        data, rng = self.check_release(value, random_state=random_state)
        edges, log_weights = self._log_weights(data)
        i = int(np.argmax(log_weights + rng.gumbel(size=log_weights.shape)))
        point = edges[i] + rng.random() * (edges[i + 1] - edges[i])
        return float(min(point, edges[i + 1]))
