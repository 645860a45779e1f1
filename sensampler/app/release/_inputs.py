"""The inputs of a release, checked before any work: the private data, the
queries and the population model (loaded from a spec, a TOML file or a public
table)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ... import distributions
from ..._lib.validation import check_column
from ...distributions.empirical import check_not_private
from ...queries import as_query
from .._input_files import read_toml
from ..data_files import PARQUET_SUFFIXES, read_column, read_person_rows
from ..specs import build_population, parse_population, parse_query

__all__ = [
    "check_data",
    "check_population",
    "check_public_sample",
    "load_population",
    "parse_queries",
]


def _typed(name: str, value: str) -> str:
    """``name`` given ``value``, as the caller typed it: ``--flag value`` for a
    flag, ``name='value'`` for a parameter."""
    return f"{name} {value}" if name.startswith("--") else f"{name}={value!r}"


def load_population(
    spec: str,
    *,
    column: str | None = None,
    name: str = "population",
    column_name: str = "column",
    privacy_unit: str | None = None,
):
    """A population model from a flag's text.

    Parameters
    ----------
    spec : str
        ``bootstrap:FILE`` (the records of ``column`` in a public CSV or
        Parquet file, resampled: :class:`~sensampler.distributions.Empirical`),
        a TOML file (name ending ``.toml``) with a ``[population]`` table, or a
        model as the other commands take it (``heights``,
        ``normal:loc=170,scale=10``; see
        :func:`~sensampler.app.experiments.parse_population`).
    column : str, optional
        The column of a ``bootstrap:`` file.
    name, column_name : str, default "population", "column"
        What the errors call ``spec`` and ``column``: a parameter, or a flag as
        typed (``"--population"``, ``"--column"``).
    privacy_unit : str, optional
        The column naming the person of each row of a ``bootstrap:`` file: its
        persons are then resampled whole
        (:func:`~sensampler.distributions.public_persons`).

    Returns
    -------
    sensampler.distributions.Distribution
    """
    if not isinstance(spec, str) or not spec.strip():
        raise TypeError(f"{name} must be a non-empty str, got {spec!r}.")
    if spec.startswith("bootstrap:"):
        path = spec[len("bootstrap:") :]
        if column is None:
            raise ValueError(
                f"{_typed(name, spec)} needs {column_name}: the column to bootstrap."
            )
        if privacy_unit is not None:
            return distributions.public_persons(
                *read_person_rows(path, column, privacy_unit)
            )
        return distributions.PublicSample(read_column(path, column))
    if spec.lower().endswith(".toml"):
        table = read_toml(spec, "population file")
        if not isinstance(table.get("population"), dict):
            raise ValueError(f"{spec}: needs a [population] table.")
        return build_population(table["population"])
    if spec.lower().endswith((".csv", *PARQUET_SUFFIXES)) and ":" not in spec:
        raise ValueError(
            f"{_typed(name, spec)} names a data file, not a model: write "
            f"'bootstrap:{spec}' to resample its column as the population."
        )
    return parse_population(spec)


def _query_name(query, given) -> str:
    if isinstance(given, str):
        return given.strip()
    return str(getattr(query, "name", None) or getattr(given, "__name__", "query"))


def parse_queries(queries) -> tuple[tuple, tuple[str, ...]]:
    """The queries (names parsed, objects checked) and their names."""
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Sequence):
        raise TypeError(f"queries must be a sequence of queries, got {queries!r}.")
    if not queries:
        raise ValueError("queries must not be empty.")
    parsed = tuple(
        as_query(parse_query(q) if isinstance(q, str) else q) for q in queries
    )
    return parsed, tuple(_query_name(q, given) for q, given in zip(parsed, queries))


def check_data(data) -> np.ndarray:
    """The private records as a 1-d float array, checked (never quoted)."""
    if isinstance(data, (str, bytes)):
        raise TypeError(
            "data must be an array of numbers (read a file with "
            "sensampler.app.data_files.read_column), got a str."
        )
    return check_column("data", data)


def check_population(population, column):
    """The population model, loaded and checked to draw one number per record
    (``None`` stays ``None``)."""
    if population is None:
        return None
    if isinstance(population, str):
        population = load_population(population, column=column)
    given = population
    population = distributions.as_distribution(population)
    if type(population) is distributions.Empirical and population is not given:
        # public records as an array: gamma for this public sample, as bootstrap:
        population = distributions.PublicSample(population.data)
    shape = tuple(getattr(population, "record_shape", ()))
    if shape != ():
        raise ValueError(
            f"population draws records of shape {shape}, but the data hold one "
            "number per record."
        )
    return population


def check_public_sample(population, data: np.ndarray, plan, spec=None) -> None:
    """Refuse a bootstrap of the private data (or of a near copy of them), or a
    public sample too small for the plan, before any work; ``spec``: the
    population as given, named in the message when it is a str."""
    if isinstance(population, distributions.Empirical):
        public = population.data
        if population.person_rows:  # persons: their rows' values
            public = public[~np.isnan(public)]
        check_not_private(public, data, spec if isinstance(spec, str) else None)
    if isinstance(population, distributions.PublicSample):
        population.check_plan(plan)

