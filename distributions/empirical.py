r"""Bootstrap populations: records resampled from a public table.

:class:`Empirical` resamples the public rows as they are: a sensitivity sampled
from it holds *on average over public samples*, not for the one at hand (a
small public sample that happens to be narrow gives a small sensitivity).
:class:`PublicSample` makes the statement hold for the public sample at hand,
at a stated confidence, by the Bayesian bootstrap (Rubin 1981): see its Notes.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib.domains import PROBABILITY
from .._lib.validation import as_seed_sequence, check_flag
from ._base import Distribution
from ._near_copies import near_copy, row_keys
from .univariate import check_weights, weighted_moments

__all__ = [
    "Empirical",
    "PublicSample",
    "PUBLIC_CONFIDENCE",
    "minimum_public_rows",
    "range_failure",
    "check_not_private",
    "check_not_private_file",
    "shared_rows",
    "near_copy",
]

#: Default confidence over the public sample of a :class:`PublicSample`.
PUBLIC_CONFIDENCE = 0.9
#: Share of the public rows found among the private ones (continuous data) from
#: which the public table is taken for a copy of the private one.
PRIVATE_OVERLAP = 0.5


class Empirical(Distribution):
    """Records drawn with replacement from the rows of ``data``.

    Parameters
    ----------
    data : array-like of shape (N, ...) or pandas.DataFrame
        Public records; a 1-d array is a column of scalar records.
    weights : array-like of shape (N,), optional
        Probability of each row (uniform if omitted).
    person_rows : bool, default False
        Each row of ``data`` is one person's rows, NaN-padded
        (:func:`~sensampler.distributions.group_rows`): NaN is then allowed as
        the padding, and a person is drawn whole.
    """

    releases_gil = True

    def __init__(
        self, data: ArrayLike, weights: ArrayLike | None = None, *,
        person_rows: bool = False,
    ):
        try:
            table = np.asarray(data)
        except Exception as exc:  # noqa: BLE001 - re-raised with the parameter named
            raise TypeError(
                f"data must be array-like, got {type(data).__name__}."
            ) from exc
        if table.ndim == 0 or table.shape[0] == 0:
            raise ValueError(
                f"data must hold at least one record, got shape {table.shape}."
            )
        self.person_rows = check_flag("person_rows", person_rows)
        if self.person_rows:
            _check_persons(table)
        elif table.dtype.kind in "fc" and not np.all(np.isfinite(table)):
            raise ValueError("data must be finite; it holds NaN or infinite values.")
        self.data = table
        self.releases_gil = table.dtype != object
        self.record_shape = table.shape[1:]
        self.weights = (
            None
            if weights is None
            else check_weights("weights", weights, length=table.shape[0])
        )
        self._cumulative = None if weights is None else np.cumsum(self.weights)

    def _draw(self, shape, rng):
        n = self.data.shape[0]
        if self._cumulative is None:
            idx = rng.integers(n, size=shape)
        else:
            idx = np.minimum(
                np.searchsorted(self._cumulative, rng.random(size=shape), side="right"),
                n - 1,
            )
        return self.data[idx]

    @property
    def mean(self) -> float | np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``)."""
        return self._moments()[0]

    @property
    def var(self) -> float | np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        return self._moments()[1]

    def _moments(self):
        return weighted_moments(self.data, self.weights, label="Empirical data")

    def _params(self):
        return {"n_records": self.data.shape[0], "record_shape": self.record_shape}


def _check_persons(table: np.ndarray) -> None:
    """Persons as NaN-padded rows: real numbers, shape (persons, L), no
    infinity, at least one row each; or raise naming ``data``."""
    if table.dtype.kind not in "biuf" or table.ndim != 2:
        raise ValueError(
            "data of persons must be real numbers of shape (persons, L), got "
            f"{table.dtype} values of shape {table.shape}."
        )
    present = ~np.isnan(table.astype(float))
    if np.any(np.isinf(table)) or not np.all(present.any(axis=1)):
        raise ValueError(
            "data of persons must hold finite rows, at least one per person (NaN "
            "pads the unused slots), got an infinity or a person without a row."
        )


def minimum_public_rows(gamma: float) -> int:
    r"""Fewest public rows that can support a statement at failure probability gamma.

    Parameters
    ----------
    gamma : float
        The statement's random-DP failure probability, ``0 < gamma < 1``.

    Returns
    -------
    int
        :math:`\lceil 2/\gamma - 1 \rceil` (39 for ``gamma=0.05``), at least 2.

    Notes
    -----
    A bootstrap draws only the N public rows. For records from a continuous
    population, a fresh record falls outside the range of N public rows drawn
    from the same population with probability exactly :math:`2/(N+1)` (its rank
    among N + 1 exchangeable draws is uniform [1]_), and a pair's differing
    record is such a record: a bootstrap never draws it (a smoothed one barely
    beyond the range), so nothing it samples speaks for those pairs. Below
    :math:`2/\gamma - 1` rows that share exceeds gamma on its own: more than
    gamma of the pairs lie where the sample says nothing, so it cannot support a
    statement at gamma for a query whose change grows with the differing record.
    The condition is a minimum, not a guarantee. It does not depend on the
    database size n because it concerns the differing record alone, while a
    distribution-free guarantee for a query of all n + 1 records of a pair would
    need whole disjoint blocks of n + 1 public rows (about 59 (n + 1) rows at
    gamma = 0.05 and confidence 0.95; see ``docs/guide/populations.md``), more
    than public samples usually hold: :class:`PublicSample` states what its
    statement rests on instead.

    References
    ----------
    .. [1] H. A. David and H. N. Nagaraja, *Order Statistics*, 3rd ed., Wiley,
       2003, Sec. 2.5 (distribution-free tolerance intervals).

    Examples
    --------
    >>> minimum_public_rows(0.05), minimum_public_rows(0.1)
    (39, 19)
    """
    gamma = PROBABILITY.check("gamma", gamma)
    return max(2, math.ceil(2.0 / gamma - 1.0 - 1e-9))


def range_failure(rows: int, gamma: float) -> float:
    r"""Chance that the range of ``rows`` public rows leaves more than gamma outside it.

    Parameters
    ----------
    rows : int
        N, the public rows (at least 2).
    gamma : float
        The statement's failure probability, ``0 < gamma < 1``.

    Returns
    -------
    float
        :math:`P[1 - C > \gamma] = (1-\gamma)^{N-1}(1 + (N-1)\gamma)`, where
        :math:`C = F(X_{(N)}) - F(X_{(1)})` is the population mass between the
        smallest and largest of N i.i.d. rows of any continuous law F:
        :math:`C \sim \mathrm{Beta}(N-1, 2)` (Wilks 1941 [1]_; [2]_). For a
        discrete law the mass strictly outside the range is smaller, so the
        value is an upper bound.

    Notes
    -----
    A (smoothed) bootstrap of the rows draws nothing (little) beyond their
    range, so a release from them says nothing about the mass there. That mass
    exceeds gamma with this probability whatever the law: a light tail and a
    heavy one the rows have not reached look alike. :class:`PublicSample` adds
    it to the posterior's failure probability (:meth:`PublicSample.stated_confidence`).

    References
    ----------
    .. [1] S. S. Wilks, "Determination of sample sizes for setting tolerance
       limits", *Annals of Mathematical Statistics* 12(1), 91-96, 1941.
    .. [2] H. A. David and H. N. Nagaraja, *Order Statistics*, 3rd ed., Wiley,
       2003, Sec. 7.2 (distribution-free tolerance intervals).

    Examples
    --------
    >>> round(range_failure(40, 0.05), 4), round(range_failure(200, 0.05), 6)
    (0.3991, 0.000404)
    """
    gamma = PROBABILITY.check("gamma", gamma)
    if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 2:
        raise ValueError(f"rows must be an int >= 2, got {rows!r}.")
    return math.exp((rows - 1) * math.log1p(-gamma)) * (1.0 + (rows - 1) * gamma)


class PublicSample(Empirical):
    r"""Public rows resampled, with a sensitivity that holds for *this* public sample.

    A sensitivity sampled from :class:`Empirical` holds on average over the
    public samples one might have had; for the one at hand the exceedance can
    be several times gamma (a narrow public sample gives a small sensitivity).
    :func:`sensampler.sample_sensitivity` on a ``PublicSample`` runs the
    sampling plan on B populations drawn from the Bayesian-bootstrap posterior
    given the rows (Rubin 1981 [1]_) and returns the run with the largest
    sensitivity: see the Notes for what it states.

    Parameters
    ----------
    data : array-like of shape (N, ...) or pandas.DataFrame
        Public records, drawn i.i.d. from the population the private data come
        from, and independently of the private data.
    confidence : float, default :data:`PUBLIC_CONFIDENCE`
        Confidence over the public sample requested of the posterior runs,
        ``0 < confidence < 1``; the plan's own rho is part of what it leaves.
        The confidence stated is lower where the rows are few: it also
        subtracts :func:`range_failure` (see the Notes).
    smooth : bool, default True
        Add Gaussian kernel noise to the columns of real numbers of each
        posterior population (the smoothed bootstrap, widths by Silverman's
        rule: :meth:`bandwidths`), so that it reaches between and a little
        beyond the rows; labels and whole numbers keep their values.
    person_rows : bool, default False
        Each row of ``data`` is one person's rows, NaN-padded
        (:func:`~sensampler.distributions.group_rows`): whole persons are
        resampled, as they are (no kernel), and every statement below holds
        with "row" read as "person".

    Notes
    -----
    The posterior populations are the rows with Dirichlet weights (and, with
    ``smooth``, a Gaussian kernel around each row [2]_); the argument below
    holds for any such model of the population given the rows.

    Write :math:`T(Q)` for the :math:`(1-\beta)`-quantile of a pair's sensitivity
    G under a population Q, with :math:`\beta` and :math:`\rho` the sampling
    plan's split of gamma (``inequality="exact"`` or ``"dkw"``: a run's order
    statistic :math:`\Delta_b` satisfies :math:`\Delta_b \ge T(Q_b)` except
    with probability :math:`\rho`, given :math:`Q_b`, independently of the
    other runs, which have their own seeds). Draw :math:`Q_1, \dots, Q_B` from
    the Bayesian-bootstrap posterior (weights :math:`\mathrm{Dirichlet}(1,
    \dots, 1)` on the N rows [1]_), run the plan once on each, and release
    :math:`\Delta = \max_b \Delta_b`. For a population :math:`Q_0` from the
    same posterior, :math:`T(Q_0), T(Q_1), \dots, T(Q_B)` are exchangeable, so
    :math:`R = \#\{b \ge 1 : T(Q_b) \ge T(Q_0)\}` is stochastically at least
    uniform on :math:`\{0, \dots, B\}` (ties only raise it): :math:`P[R \le
    r] \le (r+1)/(B+1)`. :math:`T(Q_0) > \Delta` needs each of those R runs to
    fail (a run b that holds gives :math:`\Delta \ge \Delta_b \ge T(Q_b) \ge
    T(Q_0)`), probability at most :math:`\rho^R` given R, a bound that
    decreases in R. Hence, with posterior probability at least
    :math:`1 - \alpha`, :math:`\alpha = \frac{1}{B+1}\sum_{r=0}^{B} \rho^r`
    (:meth:`alpha`; below the union bound :math:`1/(B+1) + \rho`), a fresh
    pair exceeds :math:`\Delta` with probability at most :math:`\beta \le
    \gamma`; B is the fewest runs with :math:`\alpha \le 1 -
    \text{confidence}` (:meth:`runs`).

    That is exact *under the Bayesian-bootstrap model* of the population;
    over repeated public samples from a real population it is approximate: the
    posterior has (almost) no mass beyond the rows' range, while the real mass
    there is more than gamma with probability :func:`range_failure` (Wilks
    1941, whatever the law), and a heavy tail the rows have not reached looks
    like a light one. The confidence stated (:meth:`stated_confidence`) is
    therefore :math:`1 - \alpha - \alpha_N`, :math:`\alpha_N` =
    :func:`range_failure` (N, gamma) (a union bound over the two ways to fail):
    0.507 at 40 rows and gamma 0.0498 (the least accepted), 0.870 at 100, 0.908
    from about 250. The frequentist coverage is measured in
    ``benchmarks/public_sample.py`` and ``benchmarks/public_sample_tails.py``
    (log-normal, Pareto and Student t tails at 40 rows) and stated in
    ``docs/guide/populations.md``. It also rests on the rows being drawn i.i.d.
    from the private data's population and independently of the private data
    (:func:`check_not_private` refuses the private data themselves). The cost
    is B runs instead of one. Only a single scalar sensitivity (an ``"l1"``,
    ``"l2"`` or ``"linf"`` norm of one output) is supported.

    ``inequality="exchangeable"`` certifies no quantile per run, only a joint
    statement averaged over the sampler: with it the rows are resampled as they
    are (one run, as :class:`Empirical`) and :meth:`basis` says that gamma then
    holds on average over public samples, not for this one.

    References
    ----------
    .. [1] D. B. Rubin, "The Bayesian Bootstrap", *Annals of Statistics* 9(1),
       130-134, 1981.
    .. [2] B. W. Silverman, *Density Estimation for Statistics and Data
       Analysis*, Chapman & Hall, 1986, Sec. 3.4 and 6.4 (the smoothed bootstrap).
    """

    def __init__(
        self,
        data: ArrayLike,
        *,
        confidence: float = PUBLIC_CONFIDENCE,
        smooth: bool = True,
        person_rows: bool = False,
    ):
        super().__init__(data, person_rows=person_rows)
        self.confidence = PROBABILITY.check("confidence", confidence)
        self.smooth = check_flag("smooth", smooth)

    @property
    def rows(self) -> int:
        """Number of public rows N."""
        return int(self.data.shape[0])

    def runs(self, rho: float) -> int:
        """Posterior populations B: the fewest with :meth:`alpha` ``<= 1 - confidence``.

        Parameters
        ----------
        rho : float
            The sampling plan's rho (each run's failure probability).

        Returns
        -------
        int
            Never more than the union bound's B, ``1/(B+1) + rho <= 1 -
            confidence`` (10 at the plan of gamma 0.05 and confidence 0.9, 20
            instead of 24 at confidence 0.95, 100 instead of 659 at 0.99).
        """
        alpha = 1.0 - self.confidence
        if not rho < alpha:
            raise ValueError(
                f"confidence={self.confidence!r} leaves {alpha:.4g} to fail, not more "
                f"than the sampling plan's rho={rho:.4g}; lower the confidence or "
                "raise the plan's m."
            )
        runs = 1  # alpha(B, rho) < 1 / ((B + 1)(1 - rho)): the loop ends
        while self.alpha(runs, rho) > alpha:
            runs += 1
        return runs

    @staticmethod
    def alpha(runs: int, rho: float) -> float:
        r"""Posterior probability that the largest of ``runs`` runs is too small.

        Parameters
        ----------
        runs : int
            B, the posterior populations.
        rho : float
            Each run's probability of an order statistic below its population's
            quantile (the sampling plan's rho).

        Returns
        -------
        float
            :math:`\frac{1}{B+1}\sum_{r=0}^{B} \rho^r` (the class Notes derive it).
        """
        return float(np.mean(float(rho) ** np.arange(runs + 1)))

    def stated_confidence(self, rho: float, gamma: float) -> float:
        """The confidence stated with B = :meth:`runs` runs.

        Parameters
        ----------
        rho : float
            The sampling plan's rho.
        gamma : float
            The sampling plan's gamma.

        Returns
        -------
        float
            ``1 - alpha(B, rho) - range_failure(N, gamma)``, at least 0 (the
            class Notes): below :attr:`confidence` where the N rows' range may
            leave more than gamma of the population outside it (0.507 at 40
            rows and the default plan of gamma 0.05, 0.870 at 100).
        """
        posterior = self.alpha(self.runs(rho), rho)
        return max(0.0, 1.0 - posterior - range_failure(self.rows, gamma))

    def posterior(self, count: int, random_state=None) -> list[Empirical]:
        """``count`` populations from the Bayesian-bootstrap posterior (Rubin 1981).

        Parameters
        ----------
        count : int
            Number of populations.
        random_state : None, int, SeedSequence or Generator
            Seeds the Dirichlet weights.

        Returns
        -------
        list of Empirical
            The rows with weights drawn from Dirichlet(1, ..., 1).
        """
        rng = np.random.default_rng(as_seed_sequence(random_state))
        weights = rng.dirichlet(np.ones(self.rows), size=count)
        widths = self.bandwidths() if self.smooth else None
        if widths is None or not np.any(widths > 0):
            return [
                Empirical(self.data, w / w.sum(), person_rows=self.person_rows)
                for w in weights
            ]
        return [_Smoothed(self.data, w / w.sum(), widths) for w in weights]

    def bandwidths(self) -> np.ndarray | None:
        r"""Kernel width of each column of the smoothed posterior populations.

        Returns
        -------
        ndarray of ``record_shape``, or None
            Silverman's rule :math:`0.9 \min(s, \mathrm{IQR}/1.34) N^{-1/5}`
            (Silverman 1986, eq. 3.31) for a column of real numbers with at least
            half of its values distinct and some not whole; 0 for the others
            (labels, counts, codes keep their values) and for persons
            (``person_rows``). ``None`` for records that are not numbers.
        """
        if self.data.dtype.kind not in "biuf":
            return None
        if self.person_rows:  # persons are resampled as they are
            return np.zeros(self.record_shape)
        table = self.data.astype(float).reshape(self.rows, -1)
        with np.errstate(over="ignore", invalid="ignore"):  # inf: left unsmoothed
            spread = table.std(axis=0, ddof=1) if self.rows > 1 else np.zeros(1)
            q75, q25 = np.percentile(table, [75, 25], axis=0)
            width = 0.9 * np.minimum(spread, (q75 - q25) / 1.34) * self.rows**-0.2
        distinct = np.array([np.unique(c).size for c in table.T])
        real = np.any(table != np.round(table), axis=0) & (2 * distinct >= self.rows)
        # a spread near float64's limit is left unsmoothed (noise could overflow;
        # standard normal draws stay far below 40 in magnitude)
        with np.errstate(over="ignore"):
            real &= np.isfinite(np.max(np.abs(table), axis=0) + 40.0 * width)
        return np.where(real, width, 0.0).reshape(self.record_shape)

    @property
    def _size(self) -> str:
        """The sample's size in words: its rows, or its persons (``person_rows``)."""
        return f"{self.rows} {'persons' if self.person_rows else 'rows'}"

    def check_plan(self, plan: Any) -> None:
        """Refuse a plan this public sample cannot support, before any work.

        Parameters
        ----------
        plan : SamplingPlan
            The sampling plan (its ``gamma``, ``rho`` and ``inequality``).

        Raises
        ------
        ValueError
            Fewer rows than :func:`minimum_public_rows`, or a confidence the
            plan's rho leaves no room for.
        """
        needed = minimum_public_rows(plan.gamma)
        if self.rows < needed:
            raise ValueError(
                f"the public sample has {self.rows} row(s); a statement at "
                f"gamma={plan.gamma:.4g} needs at least {needed} (a fresh record "
                "falls outside the range of N public rows with probability "
                "2/(N+1), where the bootstrap draws nothing): add public rows, or "
                "use a population model (e.g. normal:loc=...,scale=...)."
            )
        if plan.inequality != "exchangeable":
            self.runs(plan.rho)

    def basis(self, plan: Any) -> str:
        """What a statement sampled from this population rests on, in words.

        Parameters
        ----------
        plan : SamplingPlan
            The sampling plan of the run.

        Returns
        -------
        str
        """
        if plan.inequality == "exchangeable":
            return (
                f"gamma on average over public samples of {self._size}, not for "
                "this one (inequality='exchangeable' states nothing about one realised "
                "estimate; inequality='exact' states gamma for this public sample at a "
                "confidence)"
            )
        runs = self.runs(plan.rho)
        stated = self.stated_confidence(plan.rho, plan.gamma)
        confidence = math.floor(1000.0 * stated) / 1000.0
        outside = math.ceil(1000.0 * range_failure(self.rows, plan.gamma)) / 1000.0
        widths = self.bandwidths() if self.smooth else None
        kind = (
            "smoothed Bayesian bootstrap, Rubin 1981"
            if widths is not None and np.any(widths > 0)
            else "Bayesian bootstrap, Rubin 1981"
        )
        return (
            f"gamma for this public sample of {self._size} at confidence "
            f"{confidence:g} ({kind}: the largest of {runs} runs on posterior "
            f"populations, less {outside:g}, the chance that the rows' range leaves "
            "more than gamma of the population outside it, Wilks 1941; it rests on "
            "the public rows being drawn i.i.d. from the data's population, "
            "independently of the data)"
        )

    def sensitivity(
        self, run: Callable[[Empirical, Any], Any], plan: Any, random_state=None
    ) -> Any:
        """The largest of B sampled sensitivities, one per posterior population.

        Parameters
        ----------
        run : callable
            ``run(population, seed)`` samples the sensitivity from
            ``population`` with ``seed`` (a SeedSequence) and the plan ``plan``.
        plan : SamplingPlan
            The sampling plan ``run`` uses.
        random_state : None, int, SeedSequence or Generator
            Seeds the posterior weights and the B runs.

        Returns
        -------
        SensitivityEstimate
            The run with the largest sensitivity (its population is the posterior
            draw it sampled from).
        """
        populations = self.populations(plan, random_state)
        if plan.inequality == "exchangeable":  # a joint statement: the rows as they are
            return run(*populations[0])
        estimates = []
        for population, seed in populations:
            estimate = run(population, seed)
            value = getattr(getattr(estimate, "sensitivity", None), "value", None)
            if value is None or np.ndim(value) != 0:
                raise ValueError(
                    "a PublicSample population supports one scalar sensitivity "
                    "(an 'l1', 'l2' or 'linf' norm of one output); use Empirical "
                    "for tuple outputs or norm='coordinate'."
                )
            estimates.append(estimate)
        return max(estimates, key=lambda e: float(e.sensitivity.value))

    def populations(self, plan: Any, random_state=None) -> list[tuple[Empirical, Any]]:
        """The populations a sampling plan runs on, each with its seed.

        Checks the plan first (:meth:`check_plan`). ``inequality="exchangeable"``: the
        rows as they are (a joint statement); otherwise B = :meth:`runs`
        populations drawn from the posterior.

        Parameters
        ----------
        plan : SamplingPlan
            The sampling plan.
        random_state : None, int, SeedSequence or Generator
            Seeds the posterior weights and the runs.

        Returns
        -------
        list of (Empirical, SeedSequence)
        """
        self.check_plan(plan)
        if plan.inequality == "exchangeable":
            whole = Empirical(self.data, person_rows=self.person_rows)
            return [(whole, as_seed_sequence(random_state))]
        runs = self.runs(plan.rho)
        weights_seed, *seeds = as_seed_sequence(random_state).spawn(runs + 1)
        return list(zip(self.posterior(runs, weights_seed), seeds))

    def _params(self):
        return {**super()._params(), "confidence": self.confidence}


class _Smoothed(Empirical):
    """Weighted rows plus Gaussian noise of ``widths`` per column (a kernel
    density with the rows' weights: the smoothed bootstrap)."""

    def __init__(self, data, weights, widths):
        super().__init__(data, weights)
        self.widths = widths

    def _draw(self, shape, rng):
        rows = super()._draw(shape, rng).astype(float)
        return rows + self.widths * rng.standard_normal(rows.shape)


def _is_block(public: list, private: list) -> bool:
    """``public`` is a contiguous run of ``private`` (a head, tail or slice)."""
    size = len(public)
    if size == 0 or size > len(private):
        return False
    for start in range(len(private) - size + 1):
        if (
            private[start] == public[0]
            and private[start + size - 1] == public[-1]
            and private[start : start + size] == public
        ):
            return True
    return False


def shared_rows(public: ArrayLike, private: ArrayLike) -> str | None:
    """How the public rows are the private ones, in words, or None.

    Parameters
    ----------
    public, private : array-like of shape (N, ...) and (n, ...)
        The population's rows and the private records.

    Returns
    -------
    str or None
        ``None`` when the tables look independent (or cannot be compared as
        numbers, so cannot be the same).

    Notes
    -----
    Refused: the same multiset of rows (the private data, perhaps reordered); one
    table a contiguous block of the other (a head, tail or slice of the private
    file, or the private file with rows appended); and, for continuous data (at
    least 90 % distinct values on both sides, where an exact match between
    independent draws has probability 0), a share of at least
    :data:`PRIVATE_OVERLAP` of the smaller table found in the other. Discrete
    data legitimately share values (ages, counts), so for them only the first
    two count.
    """
    try:
        pub, priv = row_keys(np.asarray(public)), row_keys(np.asarray(private))
    except (TypeError, ValueError):
        return None  # not numbers: not the private records
    pub_counts, priv_counts = Counter(pub), Counter(priv)
    if pub_counts == priv_counts:
        return "are the private records (the same rows)"
    if _is_block(pub, priv):
        return "are a contiguous block of the private records"
    if _is_block(priv, pub):
        return "hold the private records as a contiguous block"
    continuous = (
        len(pub_counts) >= 0.9 * len(pub) and len(priv_counts) >= 0.9 * len(priv)
    )
    shared = sum(min(c, priv_counts[key]) for key, c in pub_counts.items())
    smaller = min(len(pub), len(priv))
    if continuous and shared >= PRIVATE_OVERLAP * smaller:
        return (
            f"share {shared} rows with the private records ({len(pub)} public, "
            f"{len(priv)} private)"
        )
    return None


def check_not_private(
    public: ArrayLike, private: ArrayLike, name: str | None = None
) -> None:
    """Refuse a population whose rows are the private records, or a near copy.

    Parameters
    ----------
    public, private : array-like
        The population's rows and the private records.
    name : str, optional
        How the population was given (e.g. ``"bootstrap:heights.csv"``), for the
        message; default: its number of rows.

    Raises
    ------
    ValueError
        Saying why (see :func:`shared_rows` and :func:`near_copy`); no value is
        quoted.
    """
    reason = shared_rows(public, private) or near_copy(public, private)
    if reason is not None:
        what = f"population {name}" if name else f"population of {len(public)} rows"
        raise ValueError(
            f"the {what}: its rows {reason}: a sensitivity sampled from the "
            "private data depends on them, and the statement would not say so; "
            "bootstrap from public rows drawn independently of the private data."
        )


def _digest(path: str) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def check_not_private_file(population_path: str, data_path: str) -> None:
    """Refuse a bootstrap file that is the private data file.

    Parameters
    ----------
    population_path, data_path : str
        The ``bootstrap:`` file and the private data file (both already read).

    Raises
    ------
    ValueError
        The same file (after resolving links, hard links included) or the same
        content (SHA-256).
    """
    same = os.path.realpath(population_path) == os.path.realpath(data_path)
    try:
        same = same or os.path.samefile(population_path, data_path)
    except OSError:
        pass  # a missing file is reported by whoever reads it
    if same:
        raise ValueError(
            f"the population file {population_path} is the private data file "
            f"{data_path}: a sensitivity sampled from the private data depends on "
            "them; bootstrap from public rows drawn independently of the data."
        )
    if (
        os.path.isfile(population_path)
        and os.path.isfile(data_path)
        and os.path.getsize(population_path) == os.path.getsize(data_path)
        and _digest(population_path) == _digest(data_path)
    ):
        raise ValueError(
            f"the population file {population_path} has the same content as the "
            f"private data file {data_path}: a sensitivity sampled from the private "
            "data depends on them; bootstrap from public rows drawn independently "
            "of the data."
        )
