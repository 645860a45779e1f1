"""A small tidy table: rows of dicts with fixed columns, written as CSV atomically."""

from __future__ import annotations

import csv
import io
import os
import secrets

from ._display.page import table_html
from ._display.text import text_table
from ._lib.extras import require

__all__ = ["ResultTable", "atomic_write_text"]


def atomic_write_text(path, text: str, *, before_replace=None) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file or the new one,
    never half of one (a temporary file in the same folder, fsynced, then renamed).
    The file is created with mode 0o666 less the umask, like any other output.
    An ``OSError`` (a full disk, a missing permission) names ``path``.
    ``before_replace``, if given, is called with no argument right before the
    rename; an exception from it leaves ``path`` as it was."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".tmp-{secrets.token_hex(8)}{os.path.basename(path)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # e.g. a full disk
            raise OSError(exc.errno, f"cannot write {path}: {exc.strerror}") from None
        raise


class ResultTable:
    """Tidy results: one row per setting and statistic.

    Parameters
    ----------
    rows : list of dict
        All rows share the same keys (the columns, in the first row's order).
    """

    def __init__(self, rows):
        self.rows = [dict(r) for r in rows]
        self.columns = list(self.rows[0]) if self.rows else []

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __eq__(self, other):
        return isinstance(other, ResultTable) and self.rows == other.rows

    def column(self, name):
        """The values of one column, in row order.

        Parameters
        ----------
        name : str
            The column.

        Returns
        -------
        list
            Its values, in row order.
        """
        return [r[name] for r in self.rows]

    def where(self, **conditions) -> ResultTable:
        """Rows whose columns equal the given values.

        Parameters
        ----------
        **conditions
            Column names and the values they must equal.

        Returns
        -------
        ResultTable
            The matching rows, in order.
        """
        return ResultTable(
            [r for r in self.rows if all(r.get(k) == v for k, v in conditions.items())]
        )

    def to_csv(self, path=None) -> str:
        """The CSV text; written atomically to ``path`` if given.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Where to write the CSV.

        Returns
        -------
        str
            The CSV text.
        """
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        text = buffer.getvalue()
        if path is not None:
            atomic_write_text(path, text)
        return text

    def to_pandas(self):
        """A pandas DataFrame (needs pandas: ``sensampler[pandas]``).

        Numeric columns stay numeric: tables mark a missing number (the delta of
        a Laplace release, the coordinate of a whole-answer error) as NaN.

        Returns
        -------
        pandas.DataFrame
            One row per row of the table.
        """
        pd = require("pandas", "pandas", "ResultTable.to_pandas")
        return pd.DataFrame(self.rows, columns=self.columns)

    def _repr_html_(self) -> str:
        """Notebook display: the first rows as an HTML table."""
        return table_html(self)

    def __repr__(self):
        return f"ResultTable({len(self.rows)} rows: {', '.join(self.columns)})"

    def format(self, max_rows: int = 20) -> str:
        """A plain-text rendering of the first ``max_rows`` rows.

        Parameters
        ----------
        max_rows : int, default 20
            Rows shown.

        Returns
        -------
        str
            The rendering, one line per row after a header.
        """

        def cell(v):
            return f"{v:.5g}" if isinstance(v, float) else str(v)

        body = [[cell(r[c]) for c in self.columns] for r in self.rows[:max_rows]]
        lines = text_table([list(self.columns), *body])
        if len(self.rows) > max_rows:
            lines.append(f"... {len(self.rows) - max_rows} more rows")
        return "\n".join(lines)
