r"""Clipping bounds: one object for the sampled databases and the private data.

A sampled sensitivity follows the population model; where the model does not
describe the data (a tail it never reaches, an outlier, a one-row public
table) it can be 0 or tiny, and a release calibrated with it nearly exact.
:class:`Bounds` puts a worst-case floor under it. Every record, of every
sampled database and of the private data, is clipped to ``[low, high]``
through the same :meth:`Bounds.clip`, so that the query whose sensitivity is
sampled is the query released. For the built-in queries the sensitivity of
the clipped query over *every* pair of neighbours is then known analytically
(:func:`worst_case_sensitivity`), and a mechanism states a plain DP guarantee
from it beside the random-DP one (:attr:`PrivacyStatement.worst_case
<sensampler.privacy.PrivacyStatement>`).

Bounds come from three places:

``"population"`` (:meth:`Bounds.from_population`)
    The public population model, at no privacy cost: its support when the
    model is bounded and says so (uniform, Bernoulli, categorical), else the
    quantiles at a stated coverage, exact for a public table and, for any other
    model, the empirical quantiles of a large public sample drawn from it
    (stated as such).
``"given"`` (:meth:`Bounds.given`)
    Numbers the user vouches for, chosen without looking at the private data.
``"private"`` (:func:`private_bounds`)
    Estimated from the private data under pure DP, spending its own
    ``epsilon``: two exponential-mechanism quantiles (Smith 2011) over a fixed
    public grid of candidates, so no range needs to be known in advance.

Clipping changes the answer (a bias) where records fall outside; the share of
private records clipped is itself private and is not reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._display.estimates import bounds_html
from ._display.statements import statement_html
from ._lib import printing
from ._lib.domains import EPSILON, EPSILON_POINT, NEIGHBOUR_RELATIONS, PROBABILITY
from ._lib.validation import as_seed_sequence, check_choice, check_count, check_real
from .distributions import Distribution, as_distribution
from .distributions.univariate import Bernoulli, Categorical, Uniform
from .mechanisms import ExponentialMechanism
from .privacy import PrivacyStatement
from .queries import Query, as_query

__all__ = [
    "BOUND_SOURCES",
    "DEFAULT_COVERAGE",
    "PUBLIC_SAMPLE_SIZE",
    "Bounds",
    "ClippedPopulation",
    "check_private_bounds_epsilon",
    "private_bounds",
    "private_bounds_grid",
    "smallest_private_bounds_epsilon",
    "worst_case_sensitivity",
]

#: Where bounds can come from.
BOUND_SOURCES = ("population", "given", "private")

#: Share of the population model inside bounds taken from its quantiles: the
#: 0.0005 and 0.9995 quantiles. Wide enough that clipping moves a typical
#: release by little (heights: about 3.3 standard deviations on either side),
#: narrow enough that the worst-case sensitivity stays within a few times the
#: sampled one.
DEFAULT_COVERAGE = 0.999

#: Records of the public sample whose quantiles bound a model that knows no
#: quantile function (drawn from a fixed seed: the bounds are reproducible).
PUBLIC_SAMPLE_SIZE = 200_000

#: How far private bounds are widened beyond the two quantiles, in units of
#: their distance (or, for positive data, of the log of their ratio): for
#: log-normal incomes (sigma = 1, n = 1000, 0.7 of epsilon = 1 on the mean)
#: 1.5 about balances the clipping bias of the mean and its noise.
WIDEN = 1.5

#: Failure probability of each private quantile's accuracy guarantee, which
#: decides how far from the ends of the data the quantiles are taken.
PRIVATE_FAILURE = 0.001

#: Largest share q of the records below the lower private quantile (and above
#: the upper): beyond it the two quantiles close in on the median.
PRIVATE_MAX_SHARE = 0.25

#: The pre-pass is refused when even at :data:`PRIVATE_MAX_SHARE` its
#: quantiles cannot be located inside the data with probability at least
#: 1 - 0.01 each (see :func:`smallest_private_bounds_epsilon`).
PRIVATE_REFUSAL_FAILURE = 0.01


@dataclass(frozen=True)
class Bounds:
    """Clipping bounds ``[low, high]`` for scalar records, and where they came from.

    Parameters
    ----------
    low, high : float
        Finite, ``low < high``, with a finite width ``high - low``.
    source : {"population", "given", "private"}
        Where they came from (see the module docstring).
    coverage : float or None
        The share of the population (or data) they were chosen to hold, when
        taken from quantiles; ``None`` for a support or given bounds.
    epsilon : float
        What estimating them spent: ``> 0`` for private bounds, 0 otherwise.
    statement : PrivacyStatement or None
        The pure-DP statement of the private estimate (``None`` otherwise):
        spend it beside the release.
    note : str
        How they were obtained, in words.

    Examples
    --------
    >>> b = Bounds.given(0.0, 10.0)
    >>> b.clip([-5.0, 3.0, 12.0])
    array([ 0.,  3., 10.])
    """

    low: float
    high: float
    source: str = "given"
    coverage: float | None = None
    epsilon: float = 0.0
    statement: PrivacyStatement | None = None
    note: str = ""

    def __post_init__(self):
        low = check_real("low", self.low)
        high = check_real("high", self.high)
        if not high > low or not math.isfinite(high - low):
            raise ValueError(
                f"bounds must have low < high and a finite width, got low={low!r}, "
                f"high={high!r}; give wider bounds (--bounds LOW:HIGH) or bounds "
                "estimated from the private data (--bounds private:EPS0)."
            )
        check_choice("source", self.source, BOUND_SOURCES)
        if self.coverage is not None:
            object.__setattr__(
                self, "coverage", PROBABILITY.check("coverage", self.coverage)
            )
        epsilon = EPSILON_POINT.check("epsilon", self.epsilon)
        if (self.source == "private") != (epsilon > 0):
            raise ValueError(
                f"private bounds spend an epsilon > 0 and others none, got "
                f"source={self.source!r}, epsilon={epsilon!r}."
            )
        if self.statement is not None and not isinstance(
            self.statement, PrivacyStatement
        ):
            raise TypeError(
                f"statement must be a PrivacyStatement or None, got {self.statement!r}."
            )
        if not isinstance(self.note, str):
            raise TypeError(f"note must be a str, got {self.note!r}.")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "epsilon", epsilon)

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def clip(self, records) -> np.ndarray:
        """``records`` clipped to ``[low, high]``, as a new float array.

        Parameters
        ----------
        records : array_like
            Records (any shape; each number is clipped).

        Returns
        -------
        ndarray
            A new float array of the same shape.
        """
        return np.clip(np.asarray(records, dtype=float), self.low, self.high)

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the bounds, their source, what they spent."""
        statement = self.statement
        card = statement_html(statement) if statement else ""
        return bounds_html(self, card)

    def describe(self, unit: str | None = None) -> str:
        """The bounds and their source, in words.

        Parameters
        ----------
        unit : str, optional
            The data's unit, printed after the interval.

        Returns
        -------
        str
            ``[low, high]`` and how they were obtained.

        Examples
        --------
        >>> Bounds.given(140, 210).describe("cm")
        '[140, 210] cm (given)'
        """
        text = printing.with_unit(
            f"[{printing.value(self.low)}, {printing.value(self.high)}]", unit
        )
        return f"{text} ({self.note})" if self.note else text

    # ------------------------------------------------------------ constructors
    @classmethod
    def given(cls, low: float, high: float) -> Bounds:
        """Bounds the user vouches for (chosen without looking at the private data).

        Parameters
        ----------
        low, high : float
            ``low < high``, finite.

        Returns
        -------
        Bounds
        """
        return cls(low, high, "given", note="given")

    @classmethod
    def from_population(
        cls,
        population,
        coverage: float = DEFAULT_COVERAGE,
        *,
        size: int = PUBLIC_SAMPLE_SIZE,
    ) -> Bounds:
        """Bounds read from a public population model, at no privacy cost.

        * a bounded model that knows its support (:class:`Uniform`,
          :class:`Bernoulli`, a numeric :class:`Categorical`): the support;
        * a public table (:class:`~sensampler.distributions.Empirical` without
          weights): the exact quantiles of its rows at
          ``(1 - coverage) / 2`` and ``(1 + coverage) / 2``;
        * any other model: the same quantiles of ``size`` records drawn from it
          with a fixed seed (public: the model is), stated as empirical;
        * a model of persons (``person_rows``, a record is one person's rows):
          the bounds of its ``values`` law where it has one, else the above
          quantiles of the values of its persons' rows.

        Parameters
        ----------
        population : Distribution or compatible
            A population of scalar records, or of persons.
        coverage : float, default :data:`DEFAULT_COVERAGE`
            Share of the model between the bounds, ``0 < coverage < 1``.
        size : int, default :data:`PUBLIC_SAMPLE_SIZE`
            Records of the public sample, for a model without a support.

        Returns
        -------
        Bounds

        Raises
        ------
        ValueError
            For vector records, or when the quantiles coincide (a model with
            one value, such as a one-row table): no width to clip to.
        """
        dist = as_distribution(population)
        coverage = PROBABILITY.check("coverage", coverage)
        size = check_count("size", size)
        if dist.person_rows and isinstance(getattr(dist, "values", None), Distribution):
            return cls.from_population(dist.values, coverage, size=size)
        if tuple(getattr(dist, "record_shape", ())) != () and not dist.person_rows:
            raise ValueError(
                "bounds clip scalar records (or a person's rows), got a population "
                f"of records of shape {dist.record_shape}."
            )
        support = _support(dist)
        if support is not None:
            low, high = support
            return cls._checked(low, high, None, "the support of the population model")
        tails = ((1.0 - coverage) / 2.0, (1.0 + coverage) / 2.0)
        table = getattr(dist, "data", None)
        if isinstance(table, np.ndarray) and getattr(dist, "weights", 1) is None:
            values = np.asarray(table, dtype=float)
            values = values[~np.isnan(values)]  # a person's padding dropped
            how = f"quantiles of the {values.size} public rows"
        else:
            rng = np.random.default_rng(as_seed_sequence(0))
            values = np.asarray(dist.sample(size, random_state=rng), dtype=float)
            how = f"empirical quantiles of {size} records drawn from the population model"
            if dist.person_rows:  # the values of the persons' rows
                values, how = values[~np.isnan(values)], f"{how}' rows"
        low, high = (float(v) for v in np.quantile(values, tails))
        return cls._checked(low, high, coverage, f"{how}, coverage {coverage:g}")

    @classmethod
    def _checked(cls, low, high, coverage, note) -> Bounds:
        if not high > low:
            raise ValueError(
                f"the population model gives no width to clip to ({note}: "
                f"low={low!r}, high={high!r}); give bounds (--bounds LOW:HIGH) or "
                "estimate them from the private data (--bounds private:EPS0)."
            )
        return cls(low, high, "population", coverage, note=note)


def _support(dist: Distribution) -> tuple[float, float] | None:
    """The support of a bounded model that states it, else None."""
    if isinstance(dist, Uniform):
        return dist.low, dist.high
    if isinstance(dist, Bernoulli):
        return 0.0, 1.0
    if isinstance(dist, Categorical) and dist.values.dtype.kind in "biuf":
        return float(np.min(dist.values)), float(np.max(dist.values))
    return None


# ------------------------------------------------------------ private bounds
#: Candidates per decade of :func:`private_bounds_grid` (steps of 0.46%).
GRID_PER_DECADE = 500


def private_bounds_grid() -> np.ndarray:
    """The public candidates of :func:`private_bounds`: 0 and ±10^(j/500).

    :data:`GRID_PER_DECADE` candidates per decade (steps of 0.46%) from 1e-6
    to 1e15 in absolute value, both signs, and 0: 21003 candidates fixed in
    advance, so choosing among them needs no range known beforehand.

    Returns
    -------
    ndarray
        The candidates, increasing.
    """
    steps = np.arange(-6 * GRID_PER_DECADE, 15 * GRID_PER_DECADE + 1)
    positive = 10.0 ** (steps / GRID_PER_DECADE)
    return np.concatenate([-positive[::-1], [0.0], positive])


def _rank_utility(data: np.ndarray, grid: np.ndarray, target: float) -> np.ndarray:
    """``-|#{x <= c} - target|`` for every candidate c (sorted data)."""
    below = np.searchsorted(data, grid, side="right")
    return -np.abs(below - target)


def _rank_miss(epsilon: float, sensitivity: float, failure: float) -> float:
    """Rank error of one exponential-mechanism quantile over the grid, at most
    ``2 du (ln R + ln(1/beta)) / epsilon`` with probability ``1 - beta`` (Dwork
    & Roth 2014, Thm. 3.11; R the grid's size)."""
    size = private_bounds_grid().size
    return 2 * sensitivity * (math.log(size) - math.log(failure)) / epsilon


def _utility_sensitivity(neighbours: str) -> float:
    """Sensitivity of the rank utility: 1 under replace-one, 2 under add/remove."""
    return 1.0 if neighbours == "replace-one" else 2.0


def smallest_private_bounds_epsilon(n: int, neighbours: str = "replace-one") -> float:
    r"""The smallest epsilon :func:`private_bounds` accepts for ``n`` records.

    Each of the pre-pass's two quantiles gets half of epsilon; the
    exponential mechanism over the R = 21 003 candidates of
    :func:`private_bounds_grid` misses the target rank by at most
    :math:`M = 2\Delta u(\ln R + \ln(1/\beta))/(\epsilon/2)` with probability
    at least :math:`1 - \beta` (Dwork & Roth 2014, Thm. 3.11). The target rank
    is at most :math:`qn` from the end of the data, with :math:`q \le` 0.25
    (:data:`PRIVATE_MAX_SHARE`): when :math:`M > qn`, a candidate outside
    the data (all of equal, worst utility, and there are thousands of them on
    a grid spanning 42 decades) is no longer excluded, and the bounds may land
    anywhere up to :math:`10^{15}`. So epsilon must be at least
    :math:`16\Delta u(\ln R + \ln(1/\beta))/n`, with :math:`\beta` = 0.01
    (:data:`PRIVATE_REFUSAL_FAILURE`): about 233/n under replace-one
    (:math:`\Delta u = 1`) and 466/n under add/remove (:math:`\Delta u = 2`).

    It reads n only, never the data: under replace-one n is public (the
    neighbours have the same size), and under add/remove every release
    publishes it (its statement says so).

    Parameters
    ----------
    n : int
        Number of private records, ``>= 1``.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"

    Returns
    -------
    float
        The smallest epsilon, ``> 0``.

    Examples
    --------
    >>> round(smallest_private_bounds_epsilon(1000), 4)
    0.2329
    """
    n = check_count("n", n)
    neighbours = NEIGHBOUR_RELATIONS.check("neighbours", neighbours)
    sensitivity = _utility_sensitivity(neighbours)
    # M(epsilon) <= 0.25 n with M(epsilon) = 2 * M(1) / epsilon for epsilon / 2
    return 2 * _rank_miss(1.0, sensitivity, PRIVATE_REFUSAL_FAILURE) / (
        PRIVATE_MAX_SHARE * n
    )


def check_private_bounds_epsilon(
    epsilon: float, n: int, neighbours: str = "replace-one", *, name: str = "epsilon"
) -> float:
    """``epsilon`` checked, and refused below :func:`smallest_private_bounds_epsilon`.

    Reads n only, before anything is drawn or spent.

    Parameters
    ----------
    epsilon : float
        The pre-pass's epsilon.
    n : int
        Number of private records.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
    name : str, default "epsilon"
        The parameter's name in the message.

    Returns
    -------
    float
        ``epsilon``.

    Raises
    ------
    ValueError
        Naming the parameter, its value, n and the smallest epsilon that works.
    """
    epsilon = EPSILON.check(name, epsilon)
    smallest = smallest_private_bounds_epsilon(n, neighbours)
    if epsilon < smallest:
        raise ValueError(
            f"{name}={epsilon!r} is too small for private bounds on n={n} records "
            f"({neighbours} neighbours): each quantile of the pre-pass would miss "
            "its rank by more than a quarter of the records, so the bounds could "
            "fall far outside the data; nothing was spent. Use "
            f"{name} >= {printing.epsilon(smallest)} (about "
            f"{printing.epsilon(smallest * n)}/n), or public bounds (LOW:HIGH)."
        )
    return epsilon


def private_bounds(
    data,
    epsilon: float,
    *,
    neighbours: str = "replace-one",
    random_state=None,
) -> Bounds:
    r"""Clipping bounds estimated from the private data under pure DP.

    Two quantiles :math:`q` and :math:`1 - q`, each chosen by the exponential
    mechanism (McSherry & Talwar 2007; for quantiles Smith 2011) with half of
    ``epsilon``, over the fixed public grid :func:`private_bounds_grid` of R
    candidates, with utility :math:`u(D, c) = -|\#\{x \in D : x \le c\} -
    qn|`. Replacing one record moves every count by at most 1 (n is public
    under replace-one), so :math:`\Delta u = 1`; under add/remove the count
    moves by 1 and the target :math:`qn` by q, so :math:`\Delta u = 2` is
    used. Each choice is then (epsilon/2)-DP (Dwork & Roth 2014, Thm. 3.10),
    both together epsilon-DP (basic composition): a plain DP statement, with
    no gamma, returned in ``statement`` to be spent beside the release.

    The exponential mechanism misses the best rank by at most
    :math:`M = 2\Delta u (\ln R + \ln(1/\beta))/\epsilon'` with probability
    at least :math:`1 - \beta` (Dwork & Roth 2014, Thm. 3.11; here
    :math:`\epsilon' = \epsilon/2`, :math:`\beta` =
    :data:`PRIVATE_FAILURE`), so tail quantiles cannot be located with few
    records or a small epsilon: q is :math:`M/n`, between 0.005 and 0.25 (a
    public choice: n is public). An epsilon below
    :func:`smallest_private_bounds_epsilon` (about 233/n under replace-one),
    where even q = 0.25 leaves the quantiles free to fall far outside the
    data, is refused before anything is drawn. When the two choices coincide they are set
    to the grid neighbours. The bounds are then widened (public
    post-processing): for a positive lower quantile l and upper h, to
    :math:`[l/r, h r]` with :math:`r = (h/l)^{1.5}` (for skewed positive data
    such as incomes), else by :math:`1.5 (h - l)` on each side
    (:data:`WIDEN`).

    The draws go through :class:`~sensampler.mechanisms.ExponentialMechanism`:
    with a default budget set, each spends from it.

    Parameters
    ----------
    data : array_like of shape (n,)
        The private records, finite.
    epsilon : float
        What the estimate spends, ``> 0``.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The relation of the statement.
    random_state : None, int, SeedSequence or Generator
        Source of the mechanism's noise (``None``: fresh entropy; a seed is
        for tests only: noise that can be drawn again can be subtracted).

    Returns
    -------
    Bounds
        Source ``"private"``, with ``epsilon`` and its ``statement``.
    """
    epsilon = EPSILON.check("epsilon", epsilon)
    neighbours = NEIGHBOUR_RELATIONS.check("neighbours", neighbours)
    arr = np.sort(np.asarray(data, dtype=float).ravel())
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError("data must be a non-empty array of finite numbers.")
    check_private_bounds_epsilon(epsilon, arr.size, neighbours)
    grid = private_bounds_grid()
    sensitivity = _utility_sensitivity(neighbours)
    mech = ExponentialMechanism(sensitivity, epsilon / 2)
    rng = np.random.default_rng(as_seed_sequence(random_state))
    miss = _rank_miss(epsilon / 2, sensitivity, PRIVATE_FAILURE)
    q = min(PRIVATE_MAX_SHARE, max(0.005, miss / arr.size))
    picks = [
        mech.release(_rank_utility(arr, grid, share * arr.size), random_state=rng)
        for share in (q, 1.0 - q)
    ]
    lo, hi = min(picks), max(picks)
    if lo == hi:  # widen to the neighbouring candidates
        lo, hi = max(0, lo - 1), min(grid.size - 1, hi + 1)
    low, high = float(grid[lo]), float(grid[hi])
    if low > 0:
        ratio = (high / low) ** WIDEN
        low, high = low / ratio, high * ratio
    else:
        spread = WIDEN * (high - low)
        low, high = low - spread, high + spread
    statement = PrivacyStatement(
        "private bounds (exponential mechanism, 2 quantiles)",
        epsilon,
        0.0,
        neighbours=neighbours,
    )
    return Bounds(
        low,
        high,
        "private",
        1.0 - 2.0 * q,
        epsilon=epsilon,
        statement=statement,
        note=(
            f"quantiles {q:.3g} and {1 - q:.3g} of the private data under "
            f"epsilon={epsilon:g}-DP, widened"
        ),
    )


# ------------------------------------------------------------ the sampler's side
class ClippedPopulation(Distribution):
    """A population whose records are clipped to ``bounds``: the sampled databases.

    Parameters
    ----------
    population : Distribution
        The model of scalar records.
    bounds : Bounds
    """

    def __init__(self, population: Distribution, bounds: Bounds):
        self.population = population
        self.bounds = bounds
        self.record_shape = population.record_shape
        self.releases_gil = population.releases_gil

    def _draw(self, shape, rng):
        return self.bounds.clip(self.population._draw(shape, rng))

    def _params(self) -> dict[str, Any]:
        return {"population": self.population, "bounds": self.bounds.describe()}


def worst_case_sensitivity(
    query: Query | Any, bounds: Bounds, n: int, neighbours: str, norm: str
) -> float | None:
    """Sensitivity of ``query`` on records clipped to ``bounds``, over every pair.

    Analytic, for the built-in queries (``Query.worst_case``; the derivations
    are in :mod:`sensampler.queries`): mean :math:`w/n`; sum w (replace-one)
    or :math:`\\max(|a|, |b|)` (add/remove); count 1; histogram 2 in l1 (1
    under add/remove); a quantile w; variance :math:`w^2/(n - ddof)`, w the
    width ``b - a``. ``None`` for any other query or norm: no worst-case part.

    Parameters
    ----------
    query : Query or callable
    bounds : Bounds
    n : int
        Database size (the larger database's under add/remove).
    neighbours : {"replace-one", "add-remove"}
    norm : str
        The norm's name (``"l1"``, ``"l2"``, ``"linf"``; others give None).

    Returns
    -------
    float or None
    """
    rule = getattr(as_query(query), "worst_case", None)
    if rule is None or not isinstance(norm, str):
        return None
    value = rule(bounds.low, bounds.high, n, neighbours, norm)
    if value is None or not math.isfinite(value):
        return None
    return float(value)
