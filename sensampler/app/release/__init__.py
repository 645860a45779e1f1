r"""Release a statistic of your own data, with a sensitivity sampled from a population.

:func:`release_statistic` (and :func:`release_statistics` for several queries) does
the whole job a practitioner needs: it samples the query's sensitivity on
databases of the data's size drawn from a population model (a bootstrap of a
public table, a named model, a TOML file), calibrates a mechanism with it,
spends the release from a budget (a :class:`~sensampler.accounting.PrivacyFilter`
or a persistent :class:`~sensampler.app.budget_file.BudgetFile`) and releases once.

What is guaranteed is **random DP** (Hall, Rinaldo & Wasserman 2012; Rubinstein &
Aldà 2017, Thm. 3): the release is (epsilon, delta)-DP for replace-one
neighbours, except with probability gamma over the data drawn from the
population model (and over the sampling run). gamma is not delta: delta is a
probability over the mechanism's noise for *every* database; gamma is the chance
that the database is one for which the sampled sensitivity is too small, and then
nothing is guaranteed. Data the population model does not describe are not
covered. The number of records n is released as is: replace-one neighbours keep
it fixed.

``neighbours="add-remove"`` states everything for add/remove neighbours
instead (D and D with one record more): the sampled sensitivity, the
worst-case part, the quantile mechanism's utility sensitivity and a
private-bounds pre-pass all use that relation, and n >= 2 is required. The
mechanism is still calibrated for the data's n, which is published: the
statement covers pairs of n - 1 and n records, not the size itself. A budget
spends each statement under its own relation: a budget file's ledger, or a
filter holding replace-one statements, records an add/remove statement
converted by group privacy (:func:`~sensampler.privacy.to_replace_one`: twice
the epsilon, twice the gamma); a filter holding add/remove statements refuses
a replace-one release, which implies no add/remove guarantee.

What a release is asked for (epsilon, delta, gamma, the mechanism, the bounds,
the worst-case cap, the neighbouring relation, the sampling plan's inequality)
is one :class:`~sensampler.settings.ReleaseSettings`, documented there: every
function here takes it as ``settings`` or its fields as keywords
(``epsilon=0.5, bounds="0:250"``), and ``sensampler release`` builds it from its
flags.

Quantile queries (``median``, ``quantile:Q`` with one Q) are the exception:
they sample no sensitivity and release through the exponential mechanism over
public bounds (:class:`~sensampler.mechanisms.ExponentialQuantileMechanism`; by
default the population model's 0.0005 and 0.9995 quantiles), its weight scale
calibrated on pairs of neighbouring databases drawn from the population model
(:func:`~sensampler.quantile_calibration.calibrate_quantile`): epsilon-DP
except with probability gamma (random DP), and at most 4 epsilon-DP for every
pair (:class:`QuantileRelease`). Without a population, over private bounds
(a release over them is plain DP and samples nothing), or with a worst-case
cap at epsilon, it is the plain epsilon-DP mechanism, for every pair. A
quantile without bounds (``bounds="none"``) is refused: its sampled
sensitivity, a gap between order statistics, is about 0 under the model and
would publish a record the model never draws almost exactly.

``random_state`` seeds the sampling run only (it is stated, so the run can be
drawn again). The noise is never seeded: it comes from fresh operating-system
entropy (numpy for ``"laplace"`` and ``"gaussian"``, the OS's secure generator
for the discrete mechanisms), since noise that can be drawn again can be
subtracted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...accounting import PrivacyFilter
from ...privacy import size_words as size_words
from ...queries import Query
from ...settings import ReleaseSettings
from ..budget_file import BudgetFile
from ..report import check_report_path, release_report, write_report
from ._inputs import load_population
from ._preparing import DEFAULT_BOUNDS as DEFAULT_BOUNDS
from ._preparing import RELEASE_QUERY_NAMES as RELEASE_QUERY_NAMES
from ._preparing import population_words, prepare_releases, quantile_bounds
from ._records import GUARANTEE as GUARANTEE
from ._records import WORST_CASE_GUARANTEE as WORST_CASE_GUARANTEE
from ._records import QuantileRelease, Release
from ._running import PRIVATE_BOUNDS as PRIVATE_BOUNDS
from ._running import PreparedRelease
from ._running import sampling_run as sampling_run

__all__ = [
    "PreparedRelease",
    "QuantileRelease",
    "Release",
    "load_population",
    "population_words",
    "prepare_releases",
    "quantile_bounds",
    "release_statistic",
    "release_statistics",
]

def release_statistics(
    data,
    queries: Sequence[str | Query | Callable[[np.ndarray], Any]],
    population=None,
    settings: ReleaseSettings | None = None,
    *,
    budget: PrivacyFilter | BudgetFile | str | os.PathLike | None = None,
    column: str | None = None,
    random_state=None,
    n_jobs: int | None = None,
    report: str | os.PathLike | None = None,
    privacy_unit=None,
    **options: Any,
) -> tuple[Release, ...]:
    """Release several statistics of ``data``, each with its own sampled sensitivity.

    Each query spends ``(epsilon, delta)`` and its own sampling run's gamma;
    the budget is checked for all of them before anything is sampled, and
    again (authoritatively) before anything is released: either every query is
    released and spent, or none.

    Parameters
    ----------
    data : array-like of shape (n,)
        The private records, one finite number each (see
        :func:`sensampler.app.data_files.read_column` for a file's column).
    queries : sequence of str, Query or callable
        Queries by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.app.experiments.parse_query`) or as objects.
    population : Distribution, str, array-like or None
        The population model the data are assumed drawn from, or its spec
        (see :func:`load_population`); public records as an array are
        bootstrapped as a :class:`~sensampler.distributions.PublicSample`.
        ``None`` only with private bounds (``bounds="private:EPS0"``): the
        release is then plain DP, calibrated with the worst-case sensitivity
        over them (random DP holds for bounds fixed before the data are drawn,
        so a population given with private bounds is not used).
    settings : ReleaseSettings, optional
        What each release is asked for
        (:class:`~sensampler.settings.ReleaseSettings`: epsilon, delta, gamma,
        mechanism, granularity, bounds, worst_case_epsilon, neighbours,
        inequality); its epsilon is required.
    budget : PrivacyFilter, BudgetFile, path or None
        Where the releases are spent; a path is a :class:`BudgetFile` that
        must exist. ``None``: the default filter
        (:func:`sensampler.accounting.default_filter`), if one is set. A filter
        that is also the default filter records each release once; a different
        default is spent from as well. Every filter spent from is tried with
        all the releases before any is spent: all or nothing. A replace-one
        budget (a budget file, or a filter holding replace-one statements)
        records an add/remove statement converted by group privacy
        (:func:`sensampler.privacy.to_replace_one`: twice the epsilon and the
        gamma); a filter holding add/remove statements refuses a replace-one
        release. Likewise a budget (a filter or a budget file) holds one
        privacy unit: one holding person-level statements (``privacy_unit``)
        refuses a release about one record, and one holding record-level
        statements refuses a person-level release, before any work (neither
        implies the other as it is).
    column : str, optional
        The column of a ``bootstrap:FILE`` population; with ``data`` a table
        (a DataFrame, and ``privacy_unit`` a column's name), its released
        column too.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (query i uses child i); never the noise.
    n_jobs : int, optional
        Workers of the sampler.
    report : str or os.PathLike, optional
        An HTML file to write the release report to
        (:func:`sensampler.app.report.release_report`: statements in words,
        figures inline, no private record); its folder is checked before
        anything is sampled or spent.
    privacy_unit : array-like of shape (n,) or str, optional
        The person of each row of ``data`` (or, with ``data`` a table, the
        name of its column of person ids, as ``settings.privacy_unit`` is;
        ``population="bootstrap:FILE"`` then groups the public file by the
        same column, resampling whole persons): neighbours then differ in one
        person's rows (replace a person, or add/remove one), and every
        statement says so. ``population`` must model a person (its record is
        a person's rows, NaN-padded to L: a
        :class:`~sensampler.distributions.Persons`); each person's rows
        beyond L are dropped at random (seeded by ``random_state``, so the
        grouping can be drawn again), each value clipped to the bounds
        (``"auto"``: the model's values); the queries are person-level
        (:data:`sensampler.units.PERSON_QUERIES`: ``"sum"``, ``"mean"`` of
        rows, ``"count"`` of rows, ``"persons"``, ``"mean-of-totals"``, or a
        :mod:`sensampler.units` query), with worst cases at L derived there.
        Without it (the default) the unit is one record.
    **options
        Fields of :class:`~sensampler.settings.ReleaseSettings`
        (``epsilon=0.5, bounds="0:250"``), applied to ``settings``
        (:meth:`ReleaseSettings.build <sensampler.settings.ReleaseSettings.build>`).

    Returns
    -------
    tuple of Release
        One per query, in order.

    Raises
    ------
    ExceededPrivacyBudgetError
        When the budget would be exceeded; nothing is released or written.
    ValueError
        For a bad input, checked before anything is sampled or spent: among
        them a one-quantile query (``median``, ``quantile:Q``) without bounds.
    """
    prepared = prepare_releases(
        data, queries, population, ReleaseSettings.build(settings, **options),
        budget=budget, column=column, random_state=random_state, n_jobs=n_jobs,
        privacy_unit=privacy_unit,
    )
    if report is not None:
        ledger = prepared.budget.path if isinstance(prepared.budget, BudgetFile) else None
        check_report_path(report, inputs=[("budget file", ledger)])
    releases = prepared.run()
    if report is not None:
        write_report(report, release_report(releases, budget=prepared.budget))
    return releases


def release_statistic(
    data,
    query: str | Query | Callable[[np.ndarray], Any],
    population=None,
    settings: ReleaseSettings | None = None,
    *,
    budget: PrivacyFilter | BudgetFile | str | os.PathLike | None = None,
    column: str | None = None,
    random_state=None,
    n_jobs: int | None = None,
    report: str | os.PathLike | None = None,
    privacy_unit=None,
    **options: Any,
) -> Release:
    """Release one statistic of ``data`` with a sensitivity sampled from ``population``.

    :func:`release_statistics` with one ``query``.

    Parameters
    ----------
    data, population, settings, budget, column, random_state, n_jobs, report, \
privacy_unit, **options
        As in :func:`release_statistics`; ``**options`` are fields of
        :class:`~sensampler.settings.ReleaseSettings`.
    query : str, Query or callable
        The query by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.app.experiments.parse_query`) or as an object.

    Returns
    -------
    Release
        The private answer (``.value``), its statement (``.statement``,
        ``.guarantee`` in words) and the sampled sensitivity (``.estimate``).

    Examples
    --------
    >>> import numpy as np
    >>> from sensampler.app.release import release_statistic
    >>> data = np.random.default_rng(0).normal(170, 10, size=500)
    >>> r = release_statistic(data, "mean", "normal:loc=170,scale=10",
    ...                       epsilon=1.0, random_state=0)
    >>> bool(abs(r.value - data.mean()) < 5)
    True
    >>> r.guarantee.startswith("epsilon=1-DP for replace-one neighbours (n=500")
    True
    """
    return release_statistics(
        data, [query], population, settings, budget=budget, column=column,
        random_state=random_state, n_jobs=n_jobs, report=report,
        privacy_unit=privacy_unit, **options,
    )[0]
