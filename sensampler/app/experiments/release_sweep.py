"""Error of what a release publishes, against epsilon: a sweep on the release path.

:func:`error_vs_epsilon` takes what :func:`~sensampler.app.release.release_statistic`
takes (a query, a population model, n and one
:class:`~sensampler.settings.ReleaseSettings`: bounds, the worst-case cap, the
neighbours, the mechanism of each query, the calibrated quantile mechanism) and
measures, over many databases drawn from a model, the error of the value the
release would publish, beside each release's random-DP and worst-case epsilon
and the price of a worst-case guarantee.

**Calibrate once, release many.** What calibrates a release (the sampled
sensitivity, a quantile's sampled scale) depends on the population model, n,
the settings and epsilon, never on the private data: the sweep computes it once
per epsilon (the sampled sensitivity once for every epsilon, since it does not
depend on epsilon; a quantile's scales from one set of sampled pairs, whose
losses serve every epsilon), from the seed a release with the same
``random_state`` uses, and reuses it for every repetition. The releases of one calibration share its
failure event: with probability gamma over the model's data the calibration is
one for which the statement fails, and then it fails for every release made
with it. Their gammas are neither independent nor added: it is one event. A
sweep measures error, and spends nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from ..._lib.validation import (
    as_seed_sequence,
    check_count,
    check_flag,
    check_n_jobs,
)
from ...bounds import private_bounds
from ...distributions import as_distribution
from ...mechanisms import GaussianMechanism, LaplaceMechanism, analytic_gaussian_sigma
from ...mechanisms.choice import quantile_level_of
from ...parallel import child_seed, run_tasks
from ...quantile_calibration import SampledLosses, plain_scale
from ...sampler import MAX_N
from ...settings import ReleaseSettings
from ...table import ResultTable
from ..release._inputs import check_population, load_population, parse_queries
from ..release._preparing import check_model_inputs
from ..release._running import (
    Calibrated,
    calibrated_mechanism,
    needs_private_bounds,
    samples_a_scale,
    sampling_run,
)
from ..release._units import (
    check_unit_inputs,
    least_error_cap,
    person_population,
    person_queries,
    totals_quantile,
)
from .sweep import STATISTICS, check_databases_fit, check_epsilon_grid, error_statistics

__all__ = ["PreparedSweep", "error_vs_epsilon", "prepare_sweep"]


#: The child of the root whose children seed the calibrations after the first.
_CALIBRATION_CHILD = 2**32 - 2


class _Model(NamedTuple):
    """What a sampling run of the release reads (:func:`sampling_run`)."""

    population: Any
    settings: ReleaseSettings
    root: np.random.SeedSequence
    n_jobs: int | None


def _check_epsilons(settings: ReleaseSettings, epsilons) -> list[ReleaseSettings]:
    """The settings at each epsilon of the grid, each checked (a Gaussian
    calibration at every epsilon, a cap above it)."""
    if settings.epsilon is not None:
        raise ValueError(
            "a sweep takes its epsilons as epsilons=[...], got also "
            f"epsilon={settings.epsilon!r} in the settings."
        )
    return [replace(settings, epsilon=float(e)) for e in check_epsilon_grid(epsilons)]


def _source(data, population, n: int | None, column: str | None):
    """Where each repetition's database comes from: a fixed database (an array),
    or n records drawn from ``data`` (a population or its spec, as a release
    takes one; the model by default)."""
    if data is None:
        if population is None:
            raise ValueError(
                "a sweep without a population needs data: a population to draw "
                "each repetition's database from, or one database."
            )
        data = population
    if isinstance(data, np.ndarray):
        arr = np.asarray(data, dtype=float)
        if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
            raise ValueError(
                "data must be a non-empty 1-d array of finite numbers (one "
                f"database), got shape {arr.shape}."
            )
        if n is not None and check_count("n", n) != arr.size:
            raise ValueError(f"n={n} differs from the database's {arr.size} records.")
        return arr, arr.size
    if isinstance(data, str):
        data = load_population(data, column=column, name="data")
    source = as_distribution(data)
    if tuple(source.record_shape) != ():
        raise ValueError(
            f"data draws records of shape {tuple(source.record_shape)}, but a "
            "release reads one number per record."
        )
    n = check_count("n", n)
    if n > MAX_N:
        raise ValueError(f"n must be <= MAX_N={MAX_N}, got n={n}.")
    return source, n


def _price(calibrated: Calibrated, settings: ReleaseSettings) -> float:
    """How many times the noise of a worst-case guarantee at the release's
    epsilon (same bounds) exceeds this release's: the worst-case sensitivity's
    noise over the mechanism's, or the plain quantile scale's; 1 for a plain
    release, NaN where there is no worst case (no bounds) or for the discrete
    mechanisms."""
    epsilon, delta, mech = settings.require_epsilon(), settings.delta, calibrated.mechanism
    if calibrated.kind == "exponential":
        if calibrated.calibration is None:
            return 1.0
        return calibrated.calibration.scale / plain_scale(epsilon, mech.utility_sensitivity)
    if calibrated.estimate is None:
        return 1.0
    worst = getattr(calibrated.estimate, "worst_case", None)
    if worst is None:
        return math.nan
    if isinstance(mech, LaplaceMechanism):
        return worst / epsilon / float(np.max(mech.scale))
    if isinstance(mech, GaussianMechanism):
        return worst * analytic_gaussian_sigma(epsilon, delta) / float(np.max(mech.sigma))
    return math.nan


def _worst_case_epsilon(statement) -> float:
    """What holds for every pair: a plain statement's epsilon, a sampled one's
    worst case (NaN without bounds)."""
    if statement.run is None:
        return float(statement.epsilon)
    worst = statement.worst_case
    return math.nan if worst is None else float(worst.epsilon)


def _columns(ones: list[Calibrated], settings: ReleaseSettings) -> dict:
    """The columns of one epsilon's rows: what its releases state (over several
    calibrations: the largest gamma and worst case, the mean price)."""
    statements = [one.statement for one in ones]
    return {
        "mechanism": ones[0].kind,
        "epsilon": settings.epsilon,
        "total_epsilon": settings.epsilon,
        "delta": float(statements[0].delta or 0.0),
        "gamma": max(float(s.gamma) if s.run is not None else 0.0 for s in statements),
        "worst_case_epsilon": max(_worst_case_epsilon(s) for s in statements),
        "price": float(np.mean([_price(one, settings) for one in ones])),
    }


def _cell(query, calibrated: list, databases, exact, known, settings, seed):
    """The errors of one epsilon's releases, one per repetition: each database's
    release (repetition r with calibration r mod K of the K in ``calibrated``;
    clipped to the bounds, as the release clips) against its exact answer
    (unclipped: the clipping's bias counts). Over private bounds (a query other
    than a quantile), each repetition draws its own bounds first (plain DP),
    from the same seed."""
    rng = np.random.default_rng(seed)
    errors = np.empty(len(databases))
    for r, database in enumerate(databases):
        one, bounds = calibrated[r % len(calibrated)], known
        if one is None:  # private bounds, drawn first
            bounds = private_bounds(
                database, settings.bounds.private_epsilon,
                neighbours=settings.neighbours, random_state=rng,
            )
            one = calibrated_mechanism(
                query, database.size, exact[r].size, bounds, settings, None
            )
        if one.kind == "exponential":
            reads = database
        else:
            reads = np.asarray(query(database if bounds is None else bounds.clip(database)),
                               dtype=float)
        value = one.release(reads, random_state=rng)
        errors[r] = float(np.linalg.norm(np.ravel(np.asarray(value) - exact[r])))
    return error_statistics(errors)


def _calibrations(query, model: _Model, per_epsilon, n, size, known):
    """Each epsilon's mechanism, calibrated once, from child 0 of the root, as a
    release of one query with the same ``random_state``: the sampled sensitivity
    (one run for every epsilon: it does not depend on epsilon) or the quantile's
    scale (one :class:`~sensampler.quantile_calibration.SampledLosses` for every
    epsilon: the same pairs and losses as one calibration per epsilon, drawn
    once; the settings differ in epsilon only)."""
    level = quantile_level_of(query)
    estimate = losses = None
    if level is None and model.population is not None:
        estimate = sampling_run(model, query, n, model.settings.norm, known, 0)
    out = []
    for settings in per_epsilon:
        calibration = None
        if known is not None and samples_a_scale(query, settings, model.population):
            if losses is None:
                losses = SampledLosses(
                    level, (known.low, known.high), model.population, n,
                    gamma=settings.gamma, inequality=settings.inequality,
                    neighbours=settings.neighbours,
                    random_state=child_seed(model.root, 0),
                    epsilons=[s.require_epsilon() for s in per_epsilon],
                )
            calibration = losses.calibration(
                settings.require_epsilon(), settings.worst_case_epsilon
            )
        if needs_private_bounds([query], settings):
            out.append(None)  # built per repetition, over its own bounds
            continue
        out.append(calibrated_mechanism(
            query, n, size, known, settings, model.population,
            estimate=estimate, calibration=calibration,
        ))
    return out


def error_vs_epsilon(
    query,
    population,
    n: int | None,
    epsilons,
    settings: ReleaseSettings | None = None,
    *,
    data=None,
    column: str | None = None,
    repetitions: int = 100,
    calibrations: int = 1,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool = False,
    **options: Any,
) -> ResultTable:
    """Error of what :func:`~sensampler.app.release.release_statistic` publishes,
    over a grid of epsilons: the release path, calibrated once per epsilon.

    For each epsilon the release's mechanism is built as the release builds it
    (the same bounds, clipping, worst-case cap, neighbours, mechanism by query
    and calibrated quantile mechanism; see the module's docstring for the
    reuse of one calibration), then every repetition's database is released
    with it and its error measured against the database's exact answer.

    Parameters
    ----------
    query : str, Query or callable
        One query, as :func:`~sensampler.app.release.release_statistic` takes it
        (``"mean"``, ``"median"``, ``"quantile:0.9"``, ...).
    population : Distribution, str, array-like or None
        The population model the release samples, as the release takes it;
        ``None`` only over private bounds.
    n : int or None
        Records of each database (``None`` with a fixed database).
    epsilons : array-like of float > 0
        The grid; each is a release's epsilon (``settings.epsilon`` stays None).
    settings : ReleaseSettings, optional
        What each release is asked for, as in
        :func:`~sensampler.app.release.release_statistic`. With
        ``privacy_unit`` (the column of the person in a ``bootstrap:FILE``
        population; any name with a model of a person such as
        :class:`~sensampler.distributions.Persons`), the sweep is at the person
        level: each database is n persons drawn from the model of a person (at
        most its own cap of rows each), the query a person-level one
        (:data:`sensampler.units.PERSON_QUERIES`, ``histogram:BINS:LOW:HIGH``).
        The row at epsilon e releases at the cap L a release of n persons at e
        chooses (:func:`~sensampler.app.release._units.least_error_cap`; a
        given cap at every epsilon), on each person's first L rows (column
        ``cap``), and its error is against the answer on the persons at the
        model's own cap, unclipped: it counts what the cap L moves.
    data : Distribution, str, ndarray or None, optional
        Where each repetition's database comes from: ``None`` (the population
        model), another population (data the model does not describe exactly),
        or one database (a 1-d array) released in every repetition.
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    repetitions : int, default 100
        Databases (and releases) per epsilon; every epsilon sees the same ones.
    calibrations : int, default 1
        Independent calibrations K per epsilon (repetition r is released with
        calibration r mod K): 1, the first (that of a release with the same
        ``random_state``), measures the error given that calibration; K =
        ``repetitions`` measures what independent releases give, averaged over
        the calibration's own randomness (a sampled sensitivity's spread across
        seeds can move the error by tens of percent), at K times the cost of
        calibrating.
    random_state : None, int, SeedSequence or Generator
        Child 0 seeds the calibration (as a release's first query), child 1 the
        databases, child 2 + j the noise at the j-th epsilon: the table is the
        same for any ``n_jobs``.
    n_jobs : int, optional
        Workers of the sampling run and of the epsilons.
    progress : bool, default False
        A progress bar over the epsilons.
    **options
        Fields of :class:`~sensampler.settings.ReleaseSettings`.

    Returns
    -------
    ResultTable
        One row per epsilon and statistic (of :data:`STATISTICS`): ``query``,
        ``mechanism`` (``laplace``, ``gaussian``, ``exponential``, ...),
        ``epsilon`` (the random-DP epsilon of each release, plain DP when
        ``gamma`` is 0), ``total_epsilon`` (with a private-bounds pre-pass's
        epsilon, which each repetition spends first), ``delta``, ``gamma``,
        ``worst_case_epsilon`` (what holds for every pair; NaN without
        bounds), ``price`` (how many times more noise a worst-case guarantee
        at ``epsilon`` with the same bounds would add; 1 for a plain release),
        ``bounds``, ``repetitions``, ``error`` (``absolute``, or ``l2`` for a
        vector answer), ``statistic`` and ``value``.

    Examples
    --------
    >>> from sensampler.app.experiments import error_vs_epsilon
    >>> table = error_vs_epsilon("mean", "heights", 500, [0.5, 1.0],
    ...                          repetitions=20, random_state=0)
    >>> sorted(set(table.column("epsilon")))
    [0.5, 1.0]
    """
    progress = check_flag("progress", progress)
    return prepare_sweep(
        query, population, n, epsilons, settings, data=data, column=column,
        repetitions=repetitions, calibrations=calibrations, random_state=random_state,
        n_jobs=n_jobs, **options,
    ).run(progress=progress)


@dataclass(frozen=True)
class PreparedSweep:
    """A sweep whose inputs are all checked (:func:`prepare_sweep`); :meth:`run`
    draws the databases, calibrates once per epsilon and releases."""

    query: Any
    name: str
    source: Any  # a population, or one database
    n: int
    per_epsilon: tuple[ReleaseSettings, ...]
    model: _Model
    known: Any
    repetitions: int
    calibrations: int = 1
    #: A person-level sweep's cap L, query and model of a person at each
    #: epsilon: cut at the L a release at that epsilon chooses
    #: (:func:`least_error_cap`); empty for a record-level sweep (``query`` and
    #: ``model`` at every epsilon).
    capped: tuple[tuple[int, Any, Any], ...] = ()

    def run(self, *, progress: bool = False) -> ResultTable:
        """The table of :func:`error_vs_epsilon` (``progress``: a bar over the
        epsilons)."""
        query, root, n = self.query, self.model.root, self.n
        if isinstance(self.source, np.ndarray):
            databases = np.broadcast_to(self.source, (self.repetitions, n))
        else:
            rng = np.random.default_rng(child_seed(root, 1))
            databases = self.source.sample_batch(self.repetitions, n, rng)
        exact = [np.asarray(query(database), dtype=float) for database in databases]
        roots = [root] + [  # the first as a release of the same seed
            child_seed(child_seed(root, _CALIBRATION_CHILD), c)
            for c in range(1, self.calibrations)
        ]
        capped = self.capped or ((None, query, self.model.population),) * len(
            self.per_epsilon)
        calibrated: list = [None] * len(capped)
        for cap in dict.fromkeys(one[0] for one in capped):  # one calibration per cap
            at = [j for j, one in enumerate(capped) if one[0] == cap]
            _, at_query, population = capped[at[0]]
            per_calibration = [
                _calibrations(at_query, self.model._replace(root=r, population=population),
                              [self.per_epsilon[j] for j in at], n, exact[0].size,
                              self.known)
                for r in roots
            ]
            for j, ones in zip(at, zip(*per_calibration)):
                calibrated[j] = list(ones)
        tasks = [
            (at_query, ones, databases if cap is None else databases[..., :cap], exact,
             self.known, settings, child_seed(root, 2 + j))
            for j, ((cap, at_query, _), ones, settings) in enumerate(
                zip(capped, calibrated, self.per_epsilon))
        ]
        results = run_tasks(
            _cell, tasks, n_jobs=self.model.n_jobs, progress=progress,
            desc="sweep", unit="epsilon",
        )
        return _table(self.name, calibrated, self.per_epsilon, results, self.known,
                      self.repetitions, exact[0].size, [one[0] for one in capped])


def prepare_sweep(
    query,
    population,
    n: int | None,
    epsilons,
    settings: ReleaseSettings | None = None,
    *,
    data=None,
    column: str | None = None,
    repetitions: int = 100,
    calibrations: int = 1,
    random_state=None,
    n_jobs: int | None = None,
    **options: Any,
) -> PreparedSweep:
    """Check every input of :func:`error_vs_epsilon` as a release would, at every
    epsilon; draw nothing.

    Parameters
    ----------
    query, population, n, epsilons, settings, data, column, repetitions, \
calibrations, random_state, n_jobs, **options
        As in :func:`error_vs_epsilon`.

    Returns
    -------
    PreparedSweep
        ``.run()`` gives the table.
    """
    base = ReleaseSettings.build(settings, **options)
    per_epsilon = _check_epsilons(base, epsilons)
    if base.privacy_unit is not None:
        parsed, names, loaded, source, n = _person_inputs(query, population, n, column,
                                                          data, base)
    else:
        parsed, names = parse_queries([query])
        spec, loaded = population, check_population(population, column)
        if isinstance(spec, str) and spec.startswith("bootstrap:") and data is None:
            data = loaded
        source, n = _source(data, loaded, n, column)
    repetitions = check_count("repetitions", repetitions)
    calibrations = check_count("calibrations", calibrations)
    if calibrations > repetitions:
        raise ValueError(
            f"calibrations must be <= repetitions={repetitions}, got "
            f"calibrations={calibrations}."
        )
    n_jobs = check_n_jobs(n_jobs)
    root = as_seed_sequence(random_state)
    capped = () if base.privacy_unit is None else _capped(query, loaded, n, per_epsilon)
    for j, one in enumerate(per_epsilon):  # every check of the release, at every epsilon
        at_parsed, at_model = (parsed, loaded) if not capped else (capped[j][1:2],
                                                                  capped[j][2])
        used, known = check_model_inputs(names, at_parsed, at_model, n, one, n_jobs)
    shape = tuple(getattr(source, "record_shape", ()))  # (L,) for persons
    check_databases_fit(shape, n, repetitions, settings=len(per_epsilon), n_jobs=n_jobs)
    return PreparedSweep(
        parsed[0], names[0], source, n, tuple(per_epsilon),
        _Model(used, base, root, n_jobs), known, repetitions, calibrations, capped,
    )


def _person_inputs(query, population, n, column, data, settings: ReleaseSettings):
    """A person-level sweep's query, name, model of a person (also the source
    of its databases) and n, checked as a person-level release checks them."""
    if data is not None:
        raise ValueError(
            "a person-level sweep (privacy_unit) draws each database of n persons "
            "from the model of a person: give no data."
        )
    if totals_quantile(query) is not None:
        raise ValueError(
            f"query {query.strip()!r} is released on its own and is not swept in "
            "this version; sweep a person-level query (sum, mean, count, ...)."
        )
    check_unit_inputs(settings)
    model = person_population(population, column, settings.privacy_unit)
    parsed, names = person_queries([query], model.record_shape[0], settings.neighbours)
    n = check_count("n", n)
    if n > MAX_N:
        raise ValueError(f"n must be <= MAX_N={MAX_N}, got n={n}.")
    return parsed, names, model, model, n


def _capped(query, model, n: int, per_epsilon) -> tuple:
    """A person-level sweep's ``(L, query, model of a person)`` at each epsilon:
    the cap L a release of n persons at that epsilon chooses
    (:func:`~sensampler.app.release._units.least_error_cap`, from the public
    model only), the query at L and the model cut at L."""
    out = []
    for settings in per_epsilon:
        at = least_error_cap(model, [query], n, settings)
        (parsed,), _ = person_queries([query], at.record_shape[0], settings.neighbours)
        out.append((at.record_shape[0], parsed, at))
    return tuple(out)


def _bounds_text(settings: ReleaseSettings, known) -> str:
    """The bounds in a cell: their kind, and the interval when known."""
    if known is None:
        return str(settings.bounds)
    return f"{settings.bounds.kind} {known.low:.6g}:{known.high:.6g}"


def _table(name, calibrated, per_epsilon, results, known, repetitions, size, caps):
    """One row per epsilon and statistic (a person-level sweep's with its cap L)."""
    rows = []
    error = "absolute" if size == 1 else "l2"
    for ones, settings, stats, cap in zip(calibrated, per_epsilon, results, caps):
        if ones[0] is None:  # private bounds: plain DP at epsilon, the pre-pass apart
            columns = {
                "mechanism": settings.mechanism, "epsilon": settings.epsilon,
                "total_epsilon": settings.epsilon + settings.bounds.private_epsilon,
                "delta": settings.delta, "gamma": 0.0,
                "worst_case_epsilon": settings.epsilon, "price": 1.0,
            }
        else:
            columns = _columns(ones, settings)
        for statistic in STATISTICS:
            rows.append({
                "query": name, **columns, **({} if cap is None else {"cap": cap}),
                "bounds": _bounds_text(settings, known),
                "repetitions": repetitions, "error": error,
                "statistic": statistic, "value": float(stats[statistic]),
            })
    return ResultTable(rows)
