"""The inputs of a person-level release (``privacy_unit``): the model of a
person, the person-level queries and the private rows grouped by person, all
checked before any work."""

from __future__ import annotations

import math

import numpy as np

from ... import distributions, units
from ...bounds import worst_case_sensitivity
from ...mechanisms._base import check_worst_case_epsilon
from ...mechanisms.accuracy import NOISE_MODELS
from ...parallel import child_seed
from ...queries import Query
from ...queries import quantile as row_quantile
from ...sampler import sample_sensitivity
from ...units import PERSON_QUERIES, PersonQuery
from ..specs import parse_query
from ._inputs import load_population

__all__ = [
    "GROUPING_CHILD",
    "cap_bias",
    "check_row_queries",
    "check_unit_inputs",
    "group_private_rows",
    "cap_candidates",
    "expected_cap_errors",
    "least_error_cap",
    "person_population",
    "person_queries",
    "table_inputs",
    "totals_quantile",
    "totals_quantile_inputs",
]

#: The child of a release's seed that chooses the rows dropped beyond the cap
#: (query i's sampling run uses child i).
GROUPING_CHILD = 2**31 - 1


def person_population(population, column: str | None = None,
                      unit_column: str | None = None):
    """The model of a person: a Distribution whose record is a person's rows
    (``person_rows``, NaN-padded to L = ``record_shape[0]``), or raise. A
    ``bootstrap:FILE`` population is the public file's persons, grouped by the
    privacy unit's column (``unit_column``, the private table's), whole persons
    resampled (:func:`~sensampler.distributions.public_persons`)."""
    if isinstance(population, str) and population.startswith("bootstrap:"):
        if unit_column is None:
            raise ValueError(
                f"population={population!r} with privacy_unit as an array: a public "
                "file of persons is grouped by the privacy unit's column; give the "
                "data as a table and privacy_unit as its column's name, or the model "
                "as sensampler.distributions.public_persons(values, ids)."
            )
        population = load_population(
            population, column=column, privacy_unit=unit_column
        )
    if population is None or isinstance(population, str):
        raise ValueError(
            "privacy_unit needs a population model of a person, whose record is a "
            "person's rows (sensampler.distributions.Persons(rows, values, cap), or "
            f"bootstrap:PUBLIC_FILE with the unit's column), got population={population!r}."
        )
    model = distributions.as_distribution(population)
    if not model.person_rows:
        raise ValueError(
            "privacy_unit needs a population model of a person, whose record is a "
            "person's rows (sensampler.distributions.Persons(rows, values, cap)), "
            f"got {type(model).__name__} (records of shape {model.record_shape})."
        )
    return model


def table_inputs(data, privacy_unit, settings, column: str | None):
    """``(values, ids, unit_column)``: the rows and the person of each, from the
    release's ``privacy_unit`` (an array of ids, or a column's name) or the
    settings' (a column's name). With a column's name, ``data`` is a table (a
    DataFrame) and ``column`` names its released column; without a unit,
    ``(data, None, None)``. Nothing of the data is quoted."""
    given = settings.privacy_unit
    if given is not None and privacy_unit is not None and not (
        isinstance(privacy_unit, str) and privacy_unit.strip() == given
    ):
        raise ValueError(
            f"privacy_unit is given twice: settings.privacy_unit={given!r} and the "
            "release's privacy_unit; give one."
        )
    name = privacy_unit.strip() if isinstance(privacy_unit, str) else given
    if name is None:
        return data, privacy_unit, None
    columns = getattr(data, "columns", None)
    if columns is None:
        raise TypeError(
            f"privacy_unit={name!r} names a column: data must then be a table (a "
            f"pandas DataFrame), got {type(data).__name__}; or give privacy_unit as "
            "an array of ids, one per row."
        )
    for what, wanted in (("column", column), ("privacy_unit", name)):
        if wanted is None or wanted not in columns:
            raise ValueError(
                f"{what}={wanted!r}: the table has no such column (a table's release "
                "needs column, the released column, and privacy_unit, the person "
                "of each row)."
            )
    if name == column:
        raise ValueError(
            f"privacy_unit={name!r} is the released column: give the column of the "
            "person ids."
        )
    return np.asarray(data[column]), np.asarray(data[name], dtype=object), name


def person_queries(
    queries, cap: int, neighbours: str
) -> tuple[tuple[PersonQuery, ...], tuple[str, ...]]:
    """The person-level queries at the cap L, by name or as objects, and their
    names; one that no neighbour moves (the count of persons under replace-one
    neighbours, n itself) is refused: its answer is public, and no noise can be
    calibrated to a sensitivity of 0."""
    if isinstance(queries, (str, bytes)) or not isinstance(queries, (list, tuple)):
        raise TypeError(f"queries must be a sequence of queries, got {queries!r}.")
    if not queries:
        raise ValueError("queries must not be empty.")
    parsed = []
    for query in queries:
        if isinstance(query, str) and query.strip() in PERSON_QUERIES:
            parsed.append(PERSON_QUERIES[query.strip()](cap))
        elif isinstance(query, str) and query.strip().startswith("histogram:"):
            parsed.append(_person_histogram(query, cap))
        elif isinstance(query, PersonQuery) and query.cap >= cap:
            parsed.append(query)
        else:
            shown = query if isinstance(query, (str, Query)) else type(query).__name__
            raise ValueError(
                f"with a privacy unit, a query must be a person-level query "
                f"({', '.join(PERSON_QUERIES)}, histogram:BINS:LOW:HIGH, "
                f"{', '.join(TOTALS_QUANTILES)}, or one of "
                f"sensampler.units built with a cap >= the population's {cap} rows "
                f"per person), got {shown!r}."
            )
    names = tuple(q.strip() if isinstance(q, str) else p.name
                  for q, p in zip(queries, parsed))
    for name, query in zip(names, parsed):
        if query.worst_case(0.0, 1.0, 2, neighbours, "l1") == 0.0:
            raise ValueError(
                f"query {name!r} does not move between {neighbours} neighbours (n "
                "persons in each): its answer is n, published as is; release it "
                "under neighbours='add-remove'."
            )
    return tuple(parsed), names


#: Quantiles of per-person totals, by name: each person is one record (its
#: capped total), so the row-level exponential mechanism applies as it is.
TOTALS_QUANTILES = ("median-of-totals", "quantile-of-totals:Q")


def totals_quantile(query):
    """The row-level one-quantile query of a ``median-of-totals`` or
    ``quantile-of-totals:Q`` name, marked person-level; None for another."""
    if not isinstance(query, str):
        return None
    text = query.strip()
    if text == "median-of-totals":
        level = 0.5
    elif text.startswith("quantile-of-totals:"):
        try:
            level = float(text.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"bad query {text!r}: Q must be a number in [0, 1].") from None
    else:
        return None
    parsed = row_quantile(level)
    parsed.privacy_unit = "person"  # the statement's unit: one person, one total
    return parsed


def totals_quantile_inputs(groups: np.ndarray, queries, population):
    r"""A release of quantiles of per-person totals: ``(totals, parsed, names,
    model of a total)``, or None when no query asks for one.

    Each person is one record, its total :math:`T_i` (capped rows, as grouped),
    so neighbouring databases of persons are neighbouring databases of totals
    under the same relation, and the exponential mechanism over the totals
    clipped to public bounds (McSherry & Talwar 2007; Smith 2011 for
    quantiles) has the row-level worst case as it is: its utility moves by the
    row-level amount when one total changes. The model of a total is
    :func:`~sensampler.distributions.person_totals` of the model of a person.
    Mixed with other person-level queries, refused (one release call each).
    """
    parsed = [totals_quantile(q) for q in queries]
    if all(p is None for p in parsed):
        return None
    if any(p is None for p in parsed):
        raise ValueError(
            f"{' and '.join(TOTALS_QUANTILES)} read one total per person and cannot "
            "be released with other person-level queries in one call: release them "
            "on their own."
        )
    names = tuple(q.strip() for q in queries)
    totals = np.nansum(groups, axis=1)
    return totals, tuple(parsed), names, distributions.person_totals(population)


def _person_histogram(text: str, cap: int) -> PersonQuery:
    """``histogram:BINS:LOW:HIGH`` of all persons' rows at the cap, its text read
    as the row-level query's is (:func:`~sensampler.app.specs.parse_query`)."""
    parse_query(text)  # refused here, in the row-level query's words
    _, bins, low, high = text.strip().lower().split(":")
    return units.histogram(cap, int(bins), range=(float(low), float(high)))


def check_row_queries(parsed, names) -> None:
    """Refuse a person-level query in a release without a privacy unit: its
    statement would be about one person's rows of data that name no person."""
    for name, query in zip(names, parsed):
        if isinstance(query, PersonQuery):
            raise ValueError(
                f"query {name!r} is a person-level query: give privacy_unit (the "
                "person of each row) to release it."
            )


def check_unit_inputs(settings) -> None:
    """What a person-level release refuses in this version, before any work."""
    if settings.bounds.kind == "private":
        raise ValueError(
            "bounds='private:EPS0' estimates the bounds of one row's value, not of "
            "a person's rows: give bounds='auto' (from the model of a person) or "
            "'LOW:HIGH' with a privacy_unit."
        )


def group_private_rows(data: np.ndarray, privacy_unit, cap: int, root) -> np.ndarray:
    """The private rows as one NaN-padded record per person, rows beyond ``cap``
    dropped at random with the release's seed (child :data:`GROUPING_CHILD`)."""
    return distributions.group_rows(
        data, privacy_unit, cap, random_state=child_seed(root, GROUPING_CHILD)
    )


#: Queries whose answer on a database of P persons is a sum over them: their
#: bias for n persons is the model's per-person bias times n.
_SUMS = ("rows", "persons", "sum")


def cap_bias(query, population, bounds, n: int, uncapped=None):
    """The bias the contribution bounds introduce, read from the PUBLIC model.

    The expected answer over ``n`` persons drawn from ``population`` with at
    most L rows each (rows beyond dropped at random) and values clipped to
    ``bounds``, less the expected answer without the cap or the clipping:
    rows dropped and values clipped, never the private data. Read from the
    model's uncapped persons (``population.uncapped_rows()``:
    :class:`~sensampler.distributions.Persons` draws
    :data:`~sensampler.distributions.persons.BIAS_PERSONS` of them with a fixed
    public seed, :func:`~sensampler.distributions.public_persons` keeps its
    table); for the mean of rows, the ratio of the expected sums (its large-n
    bias). ``None`` for a model that keeps no uncapped persons, a query of
    :mod:`sensampler.units` not named here, or no bounds.
    """
    uncapped = getattr(population, "uncapped_rows", None)
    name = getattr(query, "name", "")
    known = name in (*_SUMS, "mean", "mean of totals") or name.startswith("histogram(")
    if uncapped is None or bounds is None or not known:
        return None
    values, ids = uncapped()
    person = np.unique(ids, return_inverse=True)[1].ravel()
    clipped = np.clip(values, bounds.low, bounds.high)
    groups = distributions.group_rows(clipped, person, query.cap, random_state=0)
    capped = query.evaluate(groups[None])[0]
    rows, totals = np.bincount(person), np.bincount(person, values)
    full = {
        "rows": rows.sum(), "persons": rows.size, "sum": totals.sum(),
        "mean": totals.sum() / rows.sum(), "mean of totals": totals.mean(),
    }.get(name)
    if full is None:  # a histogram: every row, unclipped, each its own slot
        full = query.func(values.reshape(1, -1, 1), None)[0]
    scale = n / rows.size if name in _SUMS or name.startswith("histogram(") else 1.0
    return scale * (np.asarray(capped, dtype=float) - np.asarray(full, dtype=float))


#: Candidate caps of :func:`least_error_cap`: at most this many, on a geometric
#: grid from 1 to the model's default cap.
CAP_CANDIDATES = 40

#: Databases of n persons resampled from the model's uncapped persons to read
#: the spread of what the cap moves (:func:`least_error_cap`).
CAP_DATABASES = 64

#: The fixed public seed of the draws that score the candidate caps.
CAP_CHOICE_SEED = 0


def least_error_cap(population, queries, n: int, settings):
    r"""The model of a person at the cap L of least expected error.

    A model whose cap was not given (``given_cap`` False: the default, its
    count law's :data:`~sensampler.distributions.persons.CAP_LEVEL` quantile)
    is cut to the L, among :data:`CAP_CANDIDATES` integers on a geometric grid
    from 1 to that default, that minimises the release's expected absolute
    error against the answer with no cap and no clipping, on databases of n
    persons drawn from the model:

    .. math::

        E\,|f_L(D) - f(D) + b_L Z|, \qquad b_L = s(\epsilon, \delta)
        \max\bigl(\Delta_L,\; W_L\,s(\epsilon_{wc}, \delta) /
        s(\epsilon, \delta)\bigr),

    with Z the release mechanism's unit noise and s its scale for a
    sensitivity of 1 (:data:`~sensampler.mechanisms.accuracy.NOISE_MODELS`;
    the discrete mechanisms read as their continuous ones), :math:`\Delta_L`
    the sampled sensitivity at L (a sampling run as the release draws it) and
    :math:`W_L` the worst case, which raises the noise to meet the worst-case
    epsilon :math:`\epsilon_{wc}` (10 epsilon by default): the noise of the
    release's mechanism, cap included. :math:`f_L(D) - f(D)`, what the cap
    and the clipping move, is read on :data:`CAP_DATABASES` databases of n
    persons resampled from the model's uncapped persons (its mean is the cap's
    bias, :func:`cap_bias`; a histogram's is that bias alone); the error over
    the noise is exact (:func:`_biased_error`). Several queries share one L:
    the sum over queries of each error over its least.

    This costs no privacy: the choice reads the PUBLIC model only (its draws
    use the fixed public seed :data:`CAP_CHOICE_SEED`) and n, the number of
    persons the release's own sampling runs are drawn for; never the private
    rows. A given cap (``Persons(cap=...)``, ``public_persons(..., cap=...)``),
    a query given as an object (its cap is its own) and a release with no
    public bounds keep the model as it is.

    Parameters
    ----------
    population : Distribution
        The model of a person (``person_rows``).
    queries : sequence of str or PersonQuery
        The release's person-level queries, as given.
    n : int
        Persons in the private table.
    settings : ReleaseSettings
        The release's epsilon, delta, gamma, mechanism, norm, neighbours,
        inequality, bounds and worst-case epsilon.

    Returns
    -------
    Distribution
        ``population.with_cap(L)``, or ``population`` itself.
    """
    bounds = settings.bounds.resolve(population)
    if (getattr(population, "given_cap", True) or bounds is None
            or not all(isinstance(q, str) for q in queries)):
        return population
    candidates = cap_candidates(population.record_shape[0])
    errors = expected_cap_errors(population, queries, n, settings, bounds, candidates,
                                 exact=len(queries) > 1)
    least = np.min(errors, axis=0)
    score = np.sum(errors / np.where(least > 0.0, least, 1.0), axis=1)
    return population.with_cap(int(candidates[np.argmin(score)]))


def cap_candidates(top: int) -> np.ndarray:
    """The caps :func:`least_error_cap` considers: :data:`CAP_CANDIDATES`
    integers on a geometric grid from 1 to ``top``, ascending, no repeats."""
    return np.unique(np.round(np.geomspace(1, top, CAP_CANDIDATES)).astype(int))


def expected_cap_errors(population, queries, n, settings, bounds, caps,
                        exact: bool = True) -> np.ndarray:
    """The expected absolute error of each query (columns) at each cap (rows),
    as :func:`least_error_cap` scores them.

    With ``exact`` False, a query's error at a cap whose error under the
    worst-case floor alone is no less than the least error found (a lower
    bound: the error grows with the noise, and the sampled sensitivity only
    raises it) is that lower bound, its sampling run skipped: the least error
    and its cap are the same."""
    name = settings.mechanism.removeprefix("discrete-")
    noise = NOISE_MODELS[name]
    epsilon, delta = settings.epsilon, settings.delta or 0.0
    unit = noise.unit_scale(epsilon, delta)
    floor = noise.unit_scale(
        check_worst_case_epsilon(settings.worst_case_epsilon, epsilon), delta
    )
    values, ids = population.uncapped_rows()
    person = np.unique(ids, return_inverse=True)[1].ravel()
    drawn = np.random.default_rng(CAP_CHOICE_SEED).integers(
        0, person.max() + 1, size=(CAP_DATABASES, n)
    )
    # the first L slots of a grouping at the largest cap are the grouping at L
    # (the same random order within each person, cut at L)
    widest = distributions.group_rows(
        np.clip(values, bounds.low, bounds.high), person, int(max(caps)), random_state=0
    )
    errors = np.zeros((len(caps), len(queries)))
    for j, text in enumerate(queries):
        parsed = [person_queries([text], int(cap), settings.neighbours)[0][0]
                  for cap in caps]
        moved = [_cap_moves(query, widest[:, :cap], (values, person), drawn,
                            population.with_cap(int(cap)), bounds)
                 for query, cap in zip(parsed, caps)]
        worst = [worst_case_sensitivity(query, bounds, n, settings.neighbours,
                                        settings.norm) for query in parsed]
        errors[:, j] = [np.mean(np.sum(_biased_error(name, m, w * floor), axis=-1))
                        for m, w in zip(moved, worst)]
        least = np.inf
        for i in np.argsort(errors[:, j], kind="stable"):
            if not exact and errors[i, j] >= least:
                break
            sampled = sample_sensitivity(
                parsed[i], population.with_cap(int(caps[i])), n, gamma=settings.gamma,
                norm=settings.norm, inequality=settings.inequality,
                neighbours=settings.neighbours, bounds=bounds,
                random_state=CAP_CHOICE_SEED,
            ).sensitivity.value
            scale = max(float(np.max(sampled)) * unit, worst[i] * floor)
            errors[i, j] = np.mean(np.sum(_biased_error(name, moved[i], scale), axis=-1))
            least = min(least, errors[i, j])
    return errors


def _cap_moves(query, groups, uncapped, drawn, model, bounds) -> np.ndarray:
    """``f_L(D) - f(D)`` on each database of ``drawn`` (rows of person
    indices), shape ``(databases, coordinates)``; a histogram's is its bias."""
    values, person = uncapped
    rows, totals = np.bincount(person), np.bincount(person, values)
    n = drawn.shape[1]
    full = {
        "rows": lambda: rows[drawn].sum(axis=1),
        "persons": lambda: np.full(drawn.shape[0], float(n)),
        "sum": lambda: totals[drawn].sum(axis=1),
        "mean": lambda: totals[drawn].sum(axis=1) / rows[drawn].sum(axis=1),
        "mean of totals": lambda: totals[drawn].mean(axis=1),
    }.get(query.name)
    if full is None:
        bias = cap_bias(query, model, bounds, n, (values, person))
        return np.zeros((1, 1)) if bias is None else np.atleast_1d(bias)[None]
    capped = np.asarray(query.evaluate(groups[drawn]), dtype=float)
    return (capped - full()).reshape(drawn.shape[0], -1)


def _biased_error(name: str, bias, scale: float) -> np.ndarray:
    """``E|c + scale Z|`` for each c of ``bias``, Z the unit noise of ``name``.

    Laplace: ``|c| + b exp(-|c| / b)``; Gaussian:
    ``|c| erf(|c| / (sigma sqrt 2)) + sigma sqrt(2 / pi) exp(-c^2 / (2 sigma^2))``
    (the means of the folded Laplace and folded normal laws).
    """
    c = np.abs(np.asarray(bias, dtype=float))
    if scale == 0.0:
        return c
    if name == "laplace":
        return c + scale * np.exp(-c / scale)
    erf = np.frompyfunc(math.erf, 1, 1)  # scipy.special costs a release 0.1 s
    return (c * erf(c / (scale * np.sqrt(2.0))).astype(float)
            + scale * np.sqrt(2.0 / np.pi) * np.exp(-0.5 * (c / scale) ** 2))
