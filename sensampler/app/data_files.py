"""One numeric column of a CSV or Parquet file, read without ever echoing a record.

Errors name the file, the line or record number and the problem, never a value
of the file: the file may be private, and an error message is often logged or
pasted where the data must not go. Not even the header is quoted, since a file
without one has a record in its first line.
"""

from __future__ import annotations

import csv
import math
import os
import re
from array import array

import numpy as np

from .._lib.extras import require
from .._lib.words import counted
from ._input_files import MAX_DATA_FILE_BYTES, read_text_lines

__all__ = ["DataFileError", "read_column", "read_person_rows", "PARQUET_SUFFIXES"]

#: File name endings read as Parquet (anything else is read as CSV).
PARQUET_SUFFIXES = (".parquet", ".pq")


class DataFileError(ValueError):
    """A data file cannot be read as a numeric column (the message names no value)."""


def read_column(path: str | os.PathLike, column: str) -> np.ndarray:
    """The finite numbers of ``column`` in a CSV (with a header row) or Parquet file.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV file (UTF-8, a header row naming the columns, comma-separated) or
        a Parquet file (name ending ``.parquet`` or ``.pq``; needs pandas and
        pyarrow).
    column : str
        The column's name.

    Returns
    -------
    ndarray of shape (N,)
        One float per record, ``N >= 1``.

    Raises
    ------
    DataFileError
        Naming the file, the line (CSV) or record and the problem; never a value.
    ImportError
        For a Parquet file without pandas (or without a Parquet engine).
    """
    return _read(path, column, None)[0]


def read_person_rows(
    path: str | os.PathLike, column: str, privacy_unit: str
) -> tuple[np.ndarray, np.ndarray]:
    """The numbers of ``column`` and the person of each row, read together.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV or Parquet file, as :func:`read_column` reads it.
    column : str
        The numeric column's name.
    privacy_unit : str
        The column naming the person of each row (any non-empty text: ids are
        compared as text).

    Returns
    -------
    values : ndarray of shape (N,)
        One float per row.
    ids : ndarray of shape (N,)
        The person of each row, as text.

    Raises
    ------
    DataFileError
        As :func:`read_column`, and for a row without a person (named by its
        line or record, never by a value).
    """
    if not isinstance(privacy_unit, str) or not privacy_unit:
        raise TypeError(
            f"privacy_unit must be a non-empty str, got privacy_unit={privacy_unit!r}."
        )
    if privacy_unit == column:
        raise ValueError(
            f"privacy_unit names the released column {column!r}: give the column of "
            "the person ids."
        )
    return _read(path, column, privacy_unit)


def _read(path, column: str, unit: str | None) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`read_column`, and the person of each row when ``unit`` names a column."""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise TypeError(f"path must name a file, got path={path!r}.")
    if not isinstance(column, str) or not column:
        raise TypeError(f"column must be a non-empty str, got column={column!r}.")
    path = os.fspath(path)
    if path.lower().endswith(PARQUET_SUFFIXES):
        values, ids = _read_parquet(path, column, unit)
    else:
        values, ids = _read_csv(path, column, unit)
    if values.size == 0:
        raise DataFileError(f"{path}: no records.")
    return values, ids


def _header_index(path: str, names: list[str], column: str, line: int) -> int:
    if names.count(column) != 1:
        problem = "names twice" if names.count(column) else "has no"
        raise DataFileError(
            f"{path}: the header row (line {line}) {problem} column "
            f"{column!r} ({counted(len(names), 'column')}; column names are "
            "case-sensitive)."
        )
    return names.index(column)


def _person(row: list[str], index: int, where: str, unit: str) -> str:
    text = row[index].strip() if index < len(row) else ""
    if not text:
        raise DataFileError(f"{where}: column {unit!r} (the privacy unit) is empty.")
    return text


def _read_csv(path: str, column: str, unit: str | None):
    values = array("d")
    ids: list[str] | None = None if unit is None else []
    line = 0
    try:
        lines = read_text_lines(path, "data file", MAX_DATA_FILE_BYTES, DataFileError)
        reader = csv.reader(lines, strict=True)
        header = next(reader, None)
        line = reader.line_num
        if header is None:
            raise DataFileError(f"{path}: empty file; expected a header row.")
        names = [name.strip() for name in header]
        index = _header_index(path, names, column, line)
        person = None if unit is None else _header_index(path, names, unit, line)
        record = 0
        for row in reader:
            line = reader.line_num
            if not row:  # a blank line
                continue
            record += 1
            where = f"{path}, line {line} (record {record})"
            values.append(_number(row, index, where, column))
            if ids is not None:
                ids.append(_person(row, person, where, unit))
    except csv.Error as exc:  # messages name the dialect, never a field
        raise DataFileError(f"{path}, line {line + 1}: not valid CSV ({exc}).") from None
    out = np.frombuffer(values, dtype=float).copy()
    return out, None if ids is None else np.array(ids, dtype=object)


#: A number as a data file may write it: ASCII digits, an optional sign, point
#: and exponent (no digit separators such as ``1_000``, no other scripts' digits,
#: both of which Python's ``float`` accepts).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: What ``float`` reads as not finite.
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)


def _number(row: list[str], index: int, where: str, column: str) -> float:
    if index >= len(row):
        raise DataFileError(f"{where}: no value for column {column!r}.")
    text = row[index].strip()
    if not text:
        raise DataFileError(f"{where}: column {column!r} is empty.")
    if _NUMBER.fullmatch(text):
        value = float(text)
    elif _NOT_FINITE.fullmatch(text):
        value = math.nan
    else:
        raise DataFileError(
            f"{where}: column {column!r} is not a number (ASCII decimal or "
            "scientific notation, such as -12.5 or 1.25e3)."
        )
    if not math.isfinite(value):
        raise DataFileError(f"{where}: column {column!r} is not a finite number.")
    return value


def _read_parquet(path: str, column: str, unit: str | None):
    pd = require("pandas", "parquet", f"reading the Parquet file {path}")
    if not os.path.isfile(path):
        raise DataFileError(f"cannot read {path}: no such file.")
    try:
        frame = pd.read_parquet(path, columns=[column] if unit is None else [column, unit])
    except ImportError as exc:
        raise ImportError(
            f"reading the Parquet file {path} needs a Parquet engine: pip install "
            "'sensampler[parquet]'."
        ) from exc
    except Exception as exc:  # noqa: BLE001 - the engine's message may quote data
        raise DataFileError(
            f"{path}: cannot read column {column!r} as Parquet "
            f"({type(exc).__name__}; is the column there?)."
        ) from None
    for name in (column, unit):
        if name is not None and name not in frame.columns:
            raise DataFileError(f"{path}: has no column {name!r}.")
    return _parquet_values(pd, path, frame, column), _parquet_ids(path, frame, unit)


def _parquet_ids(path: str, frame, unit: str | None) -> np.ndarray | None:
    """The person of each record as text (None without a unit column)."""
    if unit is None:
        return None
    series = frame[unit]
    missing = series.isna().to_numpy()
    ids = series.astype(str).str.strip().to_numpy(dtype=object)
    empty = missing | (ids == "")
    if empty.any():
        record = int(np.argmax(empty)) + 1
        raise DataFileError(
            f"{path}, record {record}: column {unit!r} (the privacy unit) is missing."
        )
    return ids


def _parquet_values(pd, path: str, frame, column: str) -> np.ndarray:
    series = frame[column]
    if series.dtype.kind not in "iuf":
        numeric = pd.to_numeric(series, errors="coerce")
        bad = numeric.isna() & series.notna()
        if series.dtype.kind == "b" or bad.any():
            record = 1 if series.dtype.kind == "b" else int(np.argmax(bad.to_numpy())) + 1
            raise DataFileError(
                f"{path}, record {record}: column {column!r} is not a number."
            )
        series = numeric
    values = series.to_numpy(dtype=float, na_value=np.nan)
    finite = np.isfinite(values)
    if not finite.all():
        record = int(np.argmin(finite)) + 1
        problem = "is missing" if np.isnan(values[record - 1]) else "is not a finite number"
        raise DataFileError(f"{path}, record {record}: column {column!r} {problem}.")
    return values
