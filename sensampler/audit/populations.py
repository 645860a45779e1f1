"""Cross-coverage: each candidate population's estimate audited under every other.

A user who fits several population models on public data (a bootstrap,
Gaussian mixtures of several sizes, kernel densities, a heavier-tailed
alternative) does not know which one the private records follow.
:func:`compare_populations` samples the sensitivity under each model and
audits each estimate on fresh pairs from each model; :func:`conservative_choice`
picks, by a stated rule, an estimate that stays covered under all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .._display.audits import comparison_html, population_choice_html
from .._lib.domains import PROBABILITY
from .._lib.validation import as_seed_sequence, check_count, check_flag, check_real
from ..estimate import SensitivityEstimate
from ..parallel import child_seed
from ..privacy import NEIGHBOURS
from ..sampler import check_neighbours, sample_sensitivity
from ..table import ResultTable
from .estimate import CoverageAudit, audit_estimate, population_model

__all__ = [
    "PopulationComparison",
    "compare_populations",
    "PopulationChoice",
    "conservative_choice",
]


@dataclass(frozen=True, eq=False)
class PopulationComparison:
    """The result of :func:`compare_populations`.

    Parameters
    ----------
    estimates : dict of str to SensitivityEstimate
        The estimate sampled under each population, by name.
    audits : dict of (str, str) to CoverageAudit
        ``audits[i, j]``: the estimate of population i audited on fresh pairs
        from population j.
    table : ResultTable
        One row per (estimate, audit) pair: ``estimated_under``,
        ``audited_under``, ``sensitivity``, ``gamma``, ``beta``, ``inequality``,
        ``exceedances``, ``pairs``, ``rate``, ``lower``, ``upper``,
        ``confidence``, ``verdict``, ``neighbours``.
    """

    estimates: dict[str, SensitivityEstimate]
    audits: dict[tuple[str, str], CoverageAudit]
    table: ResultTable

    @property
    def names(self) -> list[str]:
        """The populations, in the order given."""
        return list(self.estimates)

    def _repr_html_(self) -> str:
        """Notebook display: each audit's interval against beta, and the table."""
        return comparison_html(self)


def compare_populations(
    query: Callable,
    populations: Mapping[str, object],
    n: int,
    gamma: float,
    *,
    pairs: int,
    m: int | None = None,
    norm="l1",
    inequality: str = "exact",
    confidence: float = 0.99,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool = False,
    neighbours: str = NEIGHBOURS,
) -> PopulationComparison:
    """Sample the sensitivity under each population; audit each under every one.

    Parameters
    ----------
    query : callable or sensampler.queries.Query
        A query with one output (an array), as in
        :func:`~sensampler.sample_sensitivity`.
    populations : mapping of str to distribution
        Candidate population models by name (at least one).
    n : int
        Database size.
    gamma : float
        Random-DP failure probability of each estimate.
    pairs : int
        Fresh pairs of each audit (``len(populations)**2`` audits).
    m : int, optional
        Pairs of each sampling run (default: the fewest for ``gamma``).
    norm, inequality
        As in :func:`~sensampler.sample_sensitivity`.
    confidence : float, default 0.99
        Coverage of each audit's interval (each on its own, not jointly).
    random_state : None, int, SeedSequence or Generator
        Estimate i draws from child ``2 i`` of this seed, its audits from
        child ``2 i + 1``: every estimate is audited on the same fresh pairs of
        each population (common random numbers), which sharpens comparisons
        between estimates.
    n_jobs : int or None, default None
        Workers of every run, as in :func:`~sensampler.sample_sensitivity`.
    progress : bool, default False
        Show a progress bar of each sampling run and each audit (needs ``tqdm``).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of every sampling run and audit (as in
        :func:`~sensampler.sample_sensitivity`; ``"add-remove"`` needs
        ``n >= 2``).

    Returns
    -------
    PopulationComparison
        The estimates, the audits and the cross-coverage ``table`` (a
        :class:`~sensampler.table.ResultTable`; drawn by
        :func:`sensampler.app.plotting.plot_cross_coverage`).

    Raises
    ------
    TypeError, ValueError
        Naming the bad argument, before anything is drawn; ``ValueError`` for
        a query with several parts.
    """
    models = _population_models(populations)
    check_count("pairs", pairs)
    PROBABILITY.check("confidence", confidence)
    check_flag("progress", progress)
    neighbours = check_neighbours(neighbours, check_count("n", n))
    root = as_seed_sequence(random_state)

    estimates = {}
    for i, (name, model) in enumerate(models.items()):
        estimate = sample_sensitivity(
            query,
            model,
            n,
            gamma=gamma,
            m=m,
            norm=norm,
            inequality=inequality,
            neighbours=neighbours,
            random_state=child_seed(root, 2 * i),
            n_jobs=n_jobs,
            progress=progress,
        )
        if not isinstance(estimate, SensitivityEstimate):
            raise ValueError(
                f"compare_populations needs a query with one output; query "
                f"{estimate.query!r} has {len(estimate)} parts."
            )
        estimates[name] = estimate
    audits = {
        (i, j): audit_estimate(
            estimates[i],
            model,
            pairs=pairs,
            confidence=confidence,
            random_state=child_seed(root, 2 * k + 1),
            n_jobs=n_jobs,
            progress=progress,
        )
        for i in models
        for k, (j, model) in enumerate(models.items())
    }
    return PopulationComparison(estimates, audits, _cross_coverage_table(audits))


@dataclass(frozen=True)
class PopulationChoice:
    """The result of :func:`conservative_choice`.

    Parameters
    ----------
    name : str
        The population whose estimate is chosen.
    sensitivity : float
        Its sensitivity (the sum of the coordinates for a per-coordinate one).
    worst_upper : float
        The largest upper confidence bound on its exceedance rate over every
        audited population.
    limit : float
        ``multiple * gamma``, the largest ``worst_upper`` the rule accepts.
    qualified : bool
        Whether ``worst_upper <= limit``; False when no estimate met the rule
        and the one with the smallest ``worst_upper`` was returned instead.
    """

    name: str
    sensitivity: float
    worst_upper: float
    limit: float
    qualified: bool

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the worst upper bound against the limit."""
        return population_choice_html(self)


def conservative_choice(
    comparison: PopulationComparison, multiple: float = 2.0
) -> PopulationChoice:
    r"""The smallest estimate whose worst cross-coverage is within ``multiple`` gammas.

    For each population i, its worst case is
    :math:`w_i = \max_j \mathrm{upper}_{ij}`, the largest upper confidence
    bound on the rate at which fresh pairs from any candidate population j
    exceed estimate i. Among the estimates with
    :math:`w_i \le \mathrm{multiple} \cdot \gamma_i` the one with the smallest
    sensitivity (least noise) is chosen; if none qualifies, the one with the
    smallest :math:`w_i` (ties: the larger sensitivity), marked
    ``qualified=False``: then no candidate is safe under all the others, and
    more public data or a heavier-tailed model is the better answer.

    The rule buys robustness to the listed models only: a population outside
    the candidates can be worse still. Upper bounds, not rates, are compared,
    so that audit noise does not favour an estimate.

    Parameters
    ----------
    comparison : PopulationComparison
        From :func:`compare_populations`.
    multiple : float, default 2.0
        ``>= 1``: how much worse than its own gamma an estimate may be covered
        under another candidate (1: no worse at all).

    Returns
    -------
    PopulationChoice
    """
    if not isinstance(comparison, PopulationComparison):
        raise TypeError(
            f"comparison must be a PopulationComparison, got {comparison!r}."
        )
    multiple = check_real("multiple", multiple, low=1.0)
    options = []
    for name, estimate in comparison.estimates.items():
        audits = [a for (i, _), a in comparison.audits.items() if i == name]
        worst = max(a.upper for a in audits)
        limit = min(1.0, multiple * audits[0].gamma)
        size = float(np.sum(estimate.sensitivity.value))
        options.append(PopulationChoice(name, size, worst, limit, worst <= limit))
    qualified = [o for o in options if o.qualified]
    if qualified:
        return min(qualified, key=lambda o: o.sensitivity)
    return min(options, key=lambda o: (o.worst_upper, -o.sensitivity))


def _population_models(populations) -> dict:
    """``populations`` as population models by name, or raise naming it."""
    if not isinstance(populations, Mapping) or not populations:
        raise TypeError(
            "populations must be a non-empty mapping of names to population "
            f"models, got {populations!r}."
        )
    models = {}
    for name, population in populations.items():
        if not isinstance(name, str):
            raise TypeError(f"populations must be keyed by str names, got {name!r}.")
        models[name] = population_model(population)
    return models


def _cross_coverage_table(audits: dict[tuple[str, str], CoverageAudit]) -> ResultTable:
    """One row per (estimated under, audited under) pair of populations."""
    rows = []
    for (i, j), audit in audits.items():
        value = audit.sensitivity
        rows.append(
            {
                "estimated_under": i,
                "audited_under": j,
                "sensitivity": value if isinstance(value, float) else str(list(value)),
                "gamma": audit.gamma,
                "beta": audit.beta,
                "inequality": audit.inequality,
                "exceedances": audit.exceedances,
                "pairs": audit.pairs,
                "rate": audit.rate,
                "lower": audit.lower,
                "upper": audit.upper,
                "confidence": audit.confidence,
                "verdict": audit.verdict,
                "neighbours": audit.neighbours,
            }
        )
    return ResultTable(rows)
