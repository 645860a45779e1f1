r"""How often fresh neighbouring pairs exceed a sampled sensitivity.

A sampled sensitivity :math:`G_{(k)}` is random DP with failure probability
gamma only if the private records come from the population it was sampled
from. :func:`audit_estimate` draws fresh pairs, from that population (a check
of the sampler) or from another one the user fears (a check of the model),
and counts the pairs whose sensitivity exceeds the released value. The count
is binomial with the exceedance rate
:math:`p = P[G > G_{(k)} \mid G_{(k)}]` of the realised estimate, so an exact
Clopper–Pearson interval bounds p (Clopper & Pearson 1934).

What p is compared with depends on the plan (:mod:`sensampler.plan`):

* ``"exact"`` and ``"dkw"`` are PAC statements: with probability at least
  :math:`1 - \rho` over the sampler, :math:`p \le \beta` (and
  :math:`\gamma = \beta + \rho`). An interval wholly above beta refutes the
  statement for this estimate under the audited population: that population
  is not the sampled one, or the sampler's rho event happened.
* ``"exchangeable"`` states :math:`E[p] \le \gamma` averaged over the sampler
  only (beta = gamma by convention): one estimate above gamma is no violation,
  but a population under which estimates are routinely above gamma is one the
  statement does not cover.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._display.audits import coverage_audit_html
from .._lib.domains import PROBABILITY
from .._lib.validation import as_seed_sequence, check_count, check_flag, check_n_jobs
from ..distributions import as_distribution
from ..estimate import SensitivityEstimate, SensitivityEstimates
from ..parallel import child_seed
from ..plan import MAX_PAIRS
from ..privacy import NEIGHBOURS
from ..sampler import check_neighbours, sample_sensitivity
from ._binomial import interval

__all__ = ["CoverageAudit", "audit_estimate", "MAX_AUDIT_PAIRS"]

#: Most fresh pairs one audit draws (the sampler's limit).
MAX_AUDIT_PAIRS = MAX_PAIRS
#: Child of the caller's seed that an audit draws from: never the seeds of the
#: sampling run itself, even when the same ``random_state`` is given to both.
_AUDIT_CHILD = 0xA0D1


@dataclass(frozen=True)
class CoverageAudit:
    """The result of :func:`audit_estimate`.

    Parameters
    ----------
    exceedances : int
        Fresh pairs whose sensitivity exceeds the released value (per
        coordinate estimates: in at least one coordinate).
    pairs : int
        Fresh pairs drawn.
    rate : float
        ``exceedances / pairs``.
    lower, upper : float
        Exact (Clopper–Pearson) interval on the exceedance rate, covering it
        with probability at least ``confidence``.
    confidence : float
    gamma : float
        The estimate's random-DP failure probability for its coordinates.
    beta : float
        The plan's bound on the exceedance rate (PAC plans: holds with
        probability at least ``1 - rho`` over the sampler); ``gamma`` for the
        exchangeable plan, where it bounds the rate on average only.
    rho : float
        The sampler's share of gamma (0 for the exchangeable plan).
    inequality : str
        The sampling plan's inequality.
    sensitivity : float or tuple of float
        The released value audited.
    population : str
        The population the fresh pairs came from.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of the fresh pairs.
    """

    exceedances: int
    pairs: int
    rate: float
    lower: float
    upper: float
    confidence: float
    gamma: float
    beta: float
    rho: float
    inequality: str
    sensitivity: float | tuple[float, ...]
    population: str
    neighbours: str = NEIGHBOURS

    @property
    def exceeds(self) -> bool:
        """The whole interval is above beta: the plan's inequality fails here."""
        return self.lower > self.beta

    @property
    def verdict(self) -> str:
        """``"exceeds beta"``, ``"within beta"`` or ``"inconclusive"``."""
        if self.exceeds:
            return "exceeds beta"
        return "within beta" if self.upper <= self.beta else "inconclusive"

    def to_dict(self) -> dict[str, Any]:
        """The fields, the verdict, JSON-friendly.

        Returns
        -------
        dict
            The fields and ``verdict``, in plain numbers, lists and strings.
        """
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        if isinstance(self.sensitivity, tuple):
            out["sensitivity"] = list(self.sensitivity)
        out["verdict"] = self.verdict
        return out

    def _repr_html_(self) -> str:
        """Notebook display: the interval on the exceedance rate against beta."""
        return coverage_audit_html(self)

    def __str__(self):
        return (
            f"{self.exceedances} of {self.pairs} fresh {self.neighbours} pairs from "
            f"{self.population} "
            f"exceed the sensitivity: rate {self.rate:.4g}, "
            f"{100 * self.confidence:g}% interval [{self.lower:.4g}, {self.upper:.4g}]"
            f"; beta={self.beta:.4g}, gamma={self.gamma:.4g} ({self.inequality}): "
            f"{self.verdict}"
        )


def _part(result, estimate: SensitivityEstimate) -> SensitivityEstimate:
    """The fresh run's estimate of the same part as ``estimate``."""
    if isinstance(result, SensitivityEstimates):
        return result[estimate.part]
    return result


def audit_estimate(
    estimate: SensitivityEstimate,
    population: object = None,
    *,
    pairs: int,
    confidence: float = 0.99,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool = False,
    neighbours: str | None = None,
) -> CoverageAudit:
    r"""Rate at which fresh neighbouring pairs exceed a sampled sensitivity.

    Draws ``pairs`` fresh neighbouring pairs of the estimate's query, database
    size, norm and neighbouring relation (``estimate.run.neighbours``:
    replace-one or add/remove pairs, as the run drew) from ``population``
    with the sampler's own engine (:func:`sensampler.sample_sensitivity`:
    chunked, parallel, bit-identical for any ``n_jobs`` and joblib backend,
    Dask included, and O(pairs) for additive queries), and counts those whose sensitivity exceeds
    ``estimate.sensitivity``.

    Parameters
    ----------
    estimate : SensitivityEstimate
        An estimate returned by :func:`~sensampler.sample_sensitivity` (or a
        part of a multi-part result), which carries its sampling problem.
    population : distribution, optional
        Where the fresh pairs come from (anything
        :func:`~sensampler.distributions.as_distribution` accepts). Default:
        the estimate's own population, which checks the sampler; another one
        measures how gamma degrades if the records come from it.
    pairs : int
        Fresh pairs, ``1 <= pairs <= MAX_AUDIT_PAIRS``, and at least the number
        of parts or coordinates the run released jointly (``estimate.parts``).
    confidence : float, default 0.99
        Coverage of the interval, ``0 < confidence < 1``.
    random_state : None, int, SeedSequence or Generator
        Same value, same result. The audit draws from a child of this seed,
        so passing the sampling run's own seed still gives fresh pairs.
    n_jobs : int or None, default None
        Workers, as in :func:`~sensampler.sample_sensitivity`.
    progress : bool, default False
        Show a progress bar of the fresh pairs (needs ``tqdm``).
    neighbours : {"replace-one", "add-remove"}, optional
        The relation of the fresh pairs. Default: the estimate's own
        (``estimate.run.neighbours``), which checks what its gamma states;
        the other one measures whether the estimate also covers those pairs,
        which its gamma does not state (add/remove needs the estimate's
        ``n >= 2``).

    Returns
    -------
    CoverageAudit
        ``rate``, its interval ``lower``/``upper``, the counts, and the plan's
        ``gamma`` and ``beta`` to compare with.

    Raises
    ------
    TypeError, ValueError
        Naming the bad argument, before anything is drawn; ``ValueError`` for
        an estimate that carries no sampling problem (built by hand, or
        unpickled).

    Notes
    -----
    A fresh pair exceeds the estimate when its sensitivity is strictly above
    the released value, in at least one coordinate for a per-coordinate
    (``norm="coordinate"``) estimate; its ``gamma`` and ``beta`` are then those
    of all its coordinates together (a union bound: the part's plan times the
    number of coordinates). The count is binomial(pairs, p) given the
    estimate, so the two-sided Clopper–Pearson interval covers p with
    probability at least ``confidence`` (atoms in the law of the sensitivity
    included). The fresh run counts as a sampling run of this process
    (``SamplingRun.ordinal``) though nothing is released from it.

    Examples
    --------
    >>> from sensampler import queries, sample_sensitivity
    >>> from sensampler.distributions import Normal
    >>> est = sample_sensitivity(queries.mean, Normal(), 200, gamma=0.05,
    ...                          random_state=1)
    >>> audit = audit_estimate(est, pairs=100_000, random_state=2)
    >>> audit.verdict
    'within beta'
    """
    problem, dist = _audited_problem(estimate, population)
    pairs = check_count("pairs", pairs)
    if pairs > MAX_AUDIT_PAIRS:
        raise ValueError(
            f"pairs must be <= MAX_AUDIT_PAIRS={MAX_AUDIT_PAIRS}, got pairs={pairs}."
        )
    confidence = PROBABILITY.check("confidence", confidence)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_flag("progress", progress)
    neighbours = check_neighbours(
        estimate.run.neighbours if neighbours is None else neighbours, problem.n
    )
    if pairs < estimate.parts:
        raise ValueError(
            f"pairs must be >= the {estimate.parts} parts or coordinates the "
            f"run released jointly, got pairs={pairs}."
        )
    fresh = sample_sensitivity(
        problem.query,
        dist,
        problem.n,
        m=pairs,
        k=pairs,
        norm=problem.norm,
        inequality="exchangeable",
        neighbours=neighbours,
        random_state=child_seed(as_seed_sequence(random_state), _AUDIT_CHILD),
        n_jobs=n_jobs,
        progress=progress,
        **dict(problem.options),
    )
    exceedances = _exceedances(_part(fresh, estimate).samples, estimate)
    return _coverage_audit(estimate, exceedances, pairs, confidence, dist, neighbours)


def _audited_problem(estimate, population):
    """``(problem, population model)`` of an audit, checked: one estimate that
    carries its sampling problem, and records of the problem's shape."""
    if isinstance(estimate, SensitivityEstimates):
        raise TypeError(
            "estimate must be one SensitivityEstimate, got the estimates of "
            f"{len(estimate)} parts; index a part (result[0] or result['name'])."
        )
    if not isinstance(estimate, SensitivityEstimate):
        raise TypeError(f"estimate must be a SensitivityEstimate, got {estimate!r}.")
    problem = estimate.problem
    if problem is None:
        raise ValueError(
            "estimate carries no sampling problem (it was built by hand or "
            "unpickled): audit an estimate returned by sample_sensitivity."
        )
    dist = problem.population if population is None else population_model(population)
    if dist.record_shape != problem.population.record_shape:
        raise ValueError(
            f"population draws records of shape {dist.record_shape}, the "
            f"estimate's population of shape {problem.population.record_shape}: "
            "the query's sensitivity under one says nothing of the other."
        )
    return problem, dist


def _exceedances(samples: np.ndarray, estimate: SensitivityEstimate) -> int:
    """Fresh pairs whose sensitivity is above the estimate's (in a coordinate)."""
    above = samples > np.asarray(estimate.sensitivity.value)
    if above.ndim > 1:
        above = above.reshape(samples.shape[0], -1).any(axis=1)
    return int(np.count_nonzero(above))


def _coverage_audit(
    estimate, exceedances: int, pairs: int, confidence: float, dist, neighbours: str
) -> CoverageAudit:
    """The audit's record: the rate, its interval, and the plan's numbers for all
    the estimate's coordinates together (a union bound)."""
    sensitivity = np.asarray(estimate.sensitivity.value)
    per_coordinate = estimate.problem.norm.per_coordinate
    coordinates = sensitivity.size if per_coordinate else 1
    lower, upper = interval(exceedances, pairs, confidence)
    plan = estimate.plan
    return CoverageAudit(
        exceedances=exceedances,
        pairs=pairs,
        rate=exceedances / pairs,
        lower=lower,
        upper=upper,
        confidence=confidence,
        gamma=min(1.0, coordinates * plan.gamma),
        beta=min(1.0, coordinates * plan.beta),
        rho=min(1.0, coordinates * plan.rho),
        inequality=plan.inequality,
        sensitivity=(
            float(sensitivity) if sensitivity.ndim == 0 else tuple(sensitivity.tolist())
        ),
        population=repr(dist),
        neighbours=neighbours,
    )


def population_model(population):
    """``population`` as a distribution, or raise naming it.

    Parameters
    ----------
    population : Distribution or array-like
        What :func:`~sensampler.distributions.as_distribution` accepts.

    Returns
    -------
    Distribution
    """
    try:
        return as_distribution(population)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith("population"):
            raise
        raise type(exc)(f"population: {exc}") from exc
