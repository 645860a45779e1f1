r"""A person's rows as one record: the population model of a privacy unit.

Real tables hold several rows per person (purchases, visits, claims). After
contribution bounding a person holds at most L rows; a person is then ONE
record of shape ``(L,)``: its rows' values, then NaN in the unused slots.
Neighbouring databases of such records differ in one person's rows, so the
sampler, its plans and gamma, and the mechanisms work unchanged at the person
level (the person-level queries of :mod:`sensampler.units` read the padding).

:class:`Persons` draws persons from a count law of rows per person and a law of
one row's value; :func:`group_rows` turns a table of rows and person ids into
the padded groups, dropping rows beyond L at random.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib.validation import check_column, check_count, check_random_state
from ._base import Distribution, RandomStateLike
from .adapters import as_distribution
from .empirical import PUBLIC_CONFIDENCE, PublicSample

__all__ = [
    "CAP_LEVEL",
    "BIAS_PERSONS",
    "Persons",
    "PublicPersons",
    "contribution_cap",
    "group_rows",
    "person_totals",
    "public_persons",
]

#: The quantile of rows per person that :func:`contribution_cap` reads from a
#: count law: a person is cut to at most this many rows.
CAP_LEVEL = 0.999

#: Persons drawn, with a fixed public seed, to read a quantile of a count law
#: that states no quantile function.
_CAP_DRAWS = 200_000

#: Persons a model draws, all their rows, to read what the cap does
#: (:meth:`Persons.uncapped_rows`): public draws, at no privacy cost.
BIAS_PERSONS = 20_000


def _checked_counts(name: str, counts: np.ndarray) -> np.ndarray:
    """``counts`` as integers, or raise naming ``name``: whole numbers >= 1."""
    counts = np.asarray(counts)
    if counts.dtype.kind not in "biuf":
        raise ValueError(f"{name} must draw whole numbers of rows, got {counts.dtype}.")
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(counts.astype(float)) | (counts < 1) | (counts != np.round(counts))
    if np.any(bad):
        first = counts[bad].flat[0]
        raise ValueError(
            f"{name} must draw whole numbers of rows >= 1 (a person in a table has "
            f"at least one row), got {first!r}."
        )
    return counts.astype(np.int64)


def contribution_cap(rows: Any, level: float = CAP_LEVEL) -> int:
    """The ``level`` quantile of a count law of rows per person: a public cap L.

    Read from :data:`_CAP_DRAWS` persons drawn with a fixed seed (the law is
    public: this costs no privacy; scipy's own quantile function does not
    converge on heavy-tailed discrete laws such as Zipf's).

    Parameters
    ----------
    rows : Distribution or scipy frozen discrete law
        Rows per person, whole numbers ``>= 1``.
    level : float, default :data:`CAP_LEVEL`
        In ``(0, 1)``.

    Returns
    -------
    int
        At least 1.
    """
    if not isinstance(level, float) or not 0.0 < level < 1.0:
        raise ValueError(f"level must be a float in (0, 1), got level={level!r}.")
    law = as_distribution(rows)
    draws = law.sample(_CAP_DRAWS, random_state=np.random.default_rng(0))
    counts = _checked_counts("rows", draws)
    return int(np.quantile(counts, level, method="inverted_cdf"))


class Persons(Distribution):
    """Persons, each a group of rows: a count of rows and the rows' values.

    A record is one person's rows, shape ``(cap,)``: ``min(count, cap)`` values
    drawn i.i.d. from ``values`` followed by NaN, ``count`` drawn from ``rows``.
    Keeping the first ``cap`` of i.i.d. rows is dropping the rows beyond the
    cap at random, as :func:`group_rows` does to a table.

    Parameters
    ----------
    rows : Distribution or scipy frozen discrete law
        Rows per person: whole numbers ``>= 1`` (checked on every draw).
    values : Distribution or scipy frozen law
        One row's value (scalar records).
    cap : int, optional
        Most rows kept per person, ``>= 1``, kept as given by a release
        (:attr:`given_cap`). Default :func:`contribution_cap` of ``rows``, its
        :data:`CAP_LEVEL` quantile (public: no privacy cost), the largest cap a
        person-level release considers: it chooses the one of least expected
        error at or below it (:meth:`with_cap`).

    Examples
    --------
    >>> from scipy import stats
    >>> from sensampler.distributions import Persons, LogNormal
    >>> model = Persons(rows=stats.geom(0.4), values=LogNormal(3.0, 1.0), cap=4)
    >>> model.sample(2, random_state=0).shape
    (2, 4)
    """

    #: A record is one person's rows, NaN-padded to ``record_shape[0]``.
    person_rows = True

    def __init__(self, rows: Any, values: Any, cap: int | None = None):
        self.rows = as_distribution(rows)
        self.values = as_distribution(values)
        for name, law in (("rows", self.rows), ("values", self.values)):
            if tuple(law.record_shape) != ():
                raise ValueError(
                    f"{name} must draw one number per person (rows) or per row "
                    f"(values), got records of shape {law.record_shape}."
                )
        #: Whether the cap was given: a release keeps a given cap and chooses one
        #: at or below the default otherwise.
        self.given_cap = cap is not None
        self.cap = contribution_cap(rows) if cap is None else check_count("cap", cap)
        self.record_shape = (self.cap,)
        self.releases_gil = self.rows.releases_gil and self.values.releases_gil

    def _draw(self, shape, rng):
        counts = _checked_counts("rows", self.rows._draw(shape, rng))
        values = np.asarray(self.values._draw(shape + (self.cap,), rng), dtype=float)
        kept = np.arange(self.cap) < counts[..., None]
        return np.where(kept, values, np.nan)

    def with_cap(self, cap: int) -> Persons:
        """The same persons cut to at most ``cap`` rows each.

        Parameters
        ----------
        cap : int
            ``>= 1``.

        Returns
        -------
        Persons
        """
        return Persons(self.rows, self.values, cap=cap)

    def uncapped_rows(self, random_state: RandomStateLike = 0) -> tuple[np.ndarray, np.ndarray]:
        """All the rows of :data:`BIAS_PERSONS` persons drawn from the model, no
        cap: what the cap's bias is read from (public draws, no privacy cost).

        Parameters
        ----------
        random_state : None, int, SeedSequence or Generator, default 0
            Seeds the draws (a fixed public seed by default).

        Returns
        -------
        values : ndarray of shape (N,)
            Every row's value.
        ids : ndarray of shape (N,)
            The person of each row, ``0 .. BIAS_PERSONS - 1``.
        """
        rng = check_random_state(random_state)
        counts = _checked_counts("rows", self.rows._draw((BIAS_PERSONS,), rng))
        values = np.asarray(self.values._draw((int(counts.sum()),), rng), dtype=float)
        return values, np.repeat(np.arange(BIAS_PERSONS), counts)

    def _params(self) -> dict[str, Any]:
        return {"rows": self.rows, "values": self.values, "cap": self.cap}


def _checked_ids(ids: Any, size: int) -> np.ndarray:
    """The person ids, one per row, or raise naming ``privacy_unit``."""
    try:
        arr = np.asarray(ids)
    except (TypeError, ValueError):
        raise TypeError(
            f"privacy_unit must be a 1-d array of person ids, got {type(ids).__name__}."
        ) from None
    if arr.ndim != 1 or arr.size != size:
        raise ValueError(
            f"privacy_unit must hold one person id per row: {size} ids, got shape "
            f"{arr.shape}."
        )
    if arr.dtype.kind == "f":
        missing = ~np.isfinite(arr)
    elif arr.dtype.kind == "O":
        missing = np.array([v is None or v != v for v in arr], dtype=bool)
    else:
        missing = np.zeros(arr.size, dtype=bool)
    if np.any(missing):
        raise ValueError(
            f"privacy_unit must name a person on every row, got {int(missing.sum())} "
            "missing id(s) (None or NaN)."
        )
    return arr


def group_rows(
    values: ArrayLike, ids: ArrayLike, cap: int, random_state: RandomStateLike = None
) -> np.ndarray:
    """A table of rows and person ids as one NaN-padded record per person.

    Parameters
    ----------
    values : array-like of shape (N,)
        One finite number per row.
    ids : array-like of shape (N,)
        The person of each row (any sortable ids; no None or NaN).
    cap : int
        Most rows kept per person, ``>= 1``; a person's rows beyond it are
        dropped at random.
    random_state : None, int, SeedSequence or Generator
        Chooses the rows dropped (a release passes its own seed, so that the
        grouping can be drawn again).

    Returns
    -------
    ndarray of shape (persons, cap)
        One row per person (in the sorted order of the ids), its kept values
        first and NaN after.
    """
    cap = check_count("cap", cap)
    rows = check_column("values", values)  # no value named: they may be private
    person = np.unique(_checked_ids(ids, rows.size), return_inverse=True)[1].ravel()
    rng = check_random_state(random_state)
    order = rng.permutation(rows.size)  # a random order within each person
    order = order[np.argsort(person[order], kind="stable")]
    sorted_person = person[order]
    starts = np.flatnonzero(np.r_[True, sorted_person[1:] != sorted_person[:-1]])
    rank = np.arange(rows.size) - np.repeat(starts, np.diff(np.r_[starts, rows.size]))
    kept = rank < cap
    out = np.full((starts.size, cap), np.nan)
    out[sorted_person[kept], rank[kept]] = rows[order[kept]]
    return out


def public_persons(
    values: ArrayLike,
    ids: ArrayLike,
    cap: int | None = None,
    *,
    confidence: float = PUBLIC_CONFIDENCE,
) -> PublicSample:
    """A public table of rows and person ids, bootstrapped a whole person at a time.

    The model of a person for a person-level release: a
    :class:`~sensampler.distributions.PublicSample` of the persons' NaN-padded
    rows (``person_rows=True``), so the public-sample confidence of a row-level
    release holds at the person level (its N is the number of persons).

    Parameters
    ----------
    values : array-like of shape (N,)
        The public rows' values.
    ids : array-like of shape (N,)
        The person of each public row.
    cap : int, optional
        Most rows per person, ``>= 1``, kept as given by a release; default the
        :data:`CAP_LEVEL` quantile of the public persons' row counts, the
        largest cap a person-level release considers (it chooses the one of
        least expected error at or below it). Rows beyond it are dropped at random
        with a fixed seed (the table is public).
    confidence : float, default :data:`PUBLIC_CONFIDENCE`
        As in :class:`~sensampler.distributions.PublicSample`.

    Returns
    -------
    PublicSample
    """
    counts = np.unique(_checked_ids(ids, np.size(values)), return_counts=True)[1]
    given = cap is not None
    if cap is None:
        cap = int(np.quantile(counts, CAP_LEVEL, method="inverted_cdf"))
    groups = group_rows(values, ids, cap, random_state=0)
    public = PublicPersons(groups, (values, ids), confidence=confidence)
    public.given_cap = given
    return public


class PublicPersons(PublicSample):
    """A :class:`PublicSample` of whole public persons (:func:`public_persons`),
    which keeps the public table itself: every row, before the cap.

    Parameters
    ----------
    groups : ndarray of shape (persons, L)
        The persons' rows, capped and NaN-padded (:func:`group_rows`).
    table : (values, ids)
        The public rows and the person of each, before the cap.
    confidence : float, default :data:`PUBLIC_CONFIDENCE`
        As in :class:`PublicSample`.
    """

    def __init__(self, groups, table, *, confidence: float = PUBLIC_CONFIDENCE):
        super().__init__(groups, confidence=confidence, person_rows=True)
        values, ids = table
        self._table = (np.asarray(values, dtype=float), _checked_ids(ids, np.size(values)))
        #: Whether the cap was given (:func:`public_persons` sets it).
        self.given_cap = True

    def with_cap(self, cap: int) -> PublicPersons:
        """The same public persons cut to at most ``cap`` rows each.

        Parameters
        ----------
        cap : int
            ``>= 1``.

        Returns
        -------
        PublicPersons
        """
        return public_persons(*self._table, cap, confidence=self.confidence)

    def uncapped_rows(self, random_state: RandomStateLike = None):
        """The public table itself, every row: what the cap's bias is read from.

        Parameters
        ----------
        random_state : object, optional
            Unused: the table is not drawn (the signature of
            :meth:`Persons.uncapped_rows`).

        Returns
        -------
        values, ids : ndarray of shape (N,)
        """
        values, ids = self._table
        return values.copy(), ids.copy()


class PersonTotals(Distribution):
    """Each person's total (the sum of its capped rows) under a model of a person.

    A scalar record per person: what a quantile of per-person totals reads.

    Parameters
    ----------
    persons : Distribution
        A model of a person (``person_rows``: NaN-padded rows).
    """

    def __init__(self, persons: Distribution):
        self.persons = persons
        self.record_shape = ()
        self.releases_gil = persons.releases_gil

    def _draw(self, shape, rng):
        return np.nansum(self.persons._draw(shape, rng), axis=-1)

    def _params(self) -> dict[str, Any]:
        return {"persons": self.persons}


def person_totals(persons: Distribution) -> Distribution:
    """The law of a person's total under ``persons``, a model of a person.

    A public table of persons (a :class:`PublicSample` of whole persons, such as
    :func:`public_persons`) gives the :class:`PublicSample` of its persons'
    totals, at the same confidence: resampling a whole person and summing its
    rows is resampling its total, so the public-sample statement carries over
    with N the number of public persons. Any other model gives
    :class:`PersonTotals`.

    Parameters
    ----------
    persons : Distribution
        A model of a person (``person_rows``).

    Returns
    -------
    Distribution
        Scalar records: one total per person.
    """
    if not getattr(persons, "person_rows", False):
        raise ValueError(
            f"persons must be a model of a person (person_rows), got {persons!r}."
        )
    if isinstance(persons, PublicSample):
        return PublicSample(np.nansum(persons.data, axis=1), confidence=persons.confidence)
    return PersonTotals(persons)
