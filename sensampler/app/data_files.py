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

__all__ = ["DataFileError", "read_column", "PARQUET_SUFFIXES"]

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
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise TypeError(f"path must name a file, got path={path!r}.")
    if not isinstance(column, str) or not column:
        raise TypeError(f"column must be a non-empty str, got column={column!r}.")
    path = os.fspath(path)
    if path.lower().endswith(PARQUET_SUFFIXES):
        values = _read_parquet(path, column)
    else:
        values = _read_csv(path, column)
    if values.size == 0:
        raise DataFileError(f"{path}: no records.")
    return values


def _read_csv(path: str, column: str) -> np.ndarray:
    values = array("d")
    line = 0
    try:
        lines = read_text_lines(path, "data file", MAX_DATA_FILE_BYTES, DataFileError)
        reader = csv.reader(lines, strict=True)
        header = next(reader, None)
        line = reader.line_num
        if header is None:
            raise DataFileError(f"{path}: empty file; expected a header row.")
        names = [name.strip() for name in header]
        if names.count(column) != 1:
            problem = "names twice" if names.count(column) else "has no"
            raise DataFileError(
                f"{path}: the header row (line {line}) {problem} column "
                f"{column!r} ({counted(len(names), 'column')}; column names are "
                "case-sensitive)."
            )
        index = names.index(column)
        record = 0
        for row in reader:
            line = reader.line_num
            if not row:  # a blank line
                continue
            record += 1
            where = f"{path}, line {line} (record {record})"
            values.append(_number(row, index, where, column))
    except csv.Error as exc:  # messages name the dialect, never a field
        raise DataFileError(f"{path}, line {line + 1}: not valid CSV ({exc}).") from None
    return np.frombuffer(values, dtype=float).copy()


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


def _read_parquet(path: str, column: str) -> np.ndarray:
    pd = require("pandas", "parquet", f"reading the Parquet file {path}")
    if not os.path.isfile(path):
        raise DataFileError(f"cannot read {path}: no such file.")
    try:
        frame = pd.read_parquet(path, columns=[column])
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
    if column not in frame.columns:
        raise DataFileError(f"{path}: has no column {column!r}.")
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
