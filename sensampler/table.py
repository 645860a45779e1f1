"""A small tidy table: rows of dicts with fixed columns, written as CSV atomically;
and the one writer of every file the project writes, with its one check of a
destination (:func:`check_output_file`)."""

from __future__ import annotations

import csv
import io
import os
import secrets
import stat

from ._display.page import table_html
from ._display.text import text_table
from ._lib import printing
from ._lib.extras import require

__all__ = [
    "ResultTable",
    "OutputFileError",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_output_file",
    "output_problem",
]


#: Prefix of the temporary file a write renames onto its destination:
#: ``.tmp-``, 16 hexadecimal digits, then the destination's own name.
TEMPORARY_PREFIX_BYTES = len(".tmp-") + 16
#: Limits used where the filesystem does not report its own (``os.pathconf``).
_NAME_MAX, _PATH_MAX = 255, 4096


def _kind(mode: int) -> str:
    """A file type in words."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _limit(folder: str, name: str, default: int) -> int:
    try:
        value = os.pathconf(folder, name)
    except (OSError, ValueError, AttributeError):  # not reported, or not POSIX
        return default
    return value if value and value > 0 else default


def output_problem(path, *, folder: bool = False) -> str | None:
    """Why the project must not write ``path``, or ``None`` when it may.

    The one check of every file the project writes (reports, figures, CSV
    files, run records, budget files and their locks) and of the folders it
    makes inside a results folder. ``path`` may be written when it is absent,
    or a regular file (``folder=True``: a folder) that is not a symbolic link;
    its parent is an existing folder the process may write; its name, with the
    temporary file's prefix (:data:`TEMPORARY_PREFIX_BYTES`), fits the
    filesystem's longest name (``os.pathconf`` ``PC_NAME_MAX``), and the
    temporary file's whole path its longest path (``PC_PATH_MAX``). A device,
    a FIFO, a socket, a folder and a link are refused, whatever they lead to:
    a temporary file renamed onto them would replace them (as root, ``/dev/null``
    itself), and a write through a link lands where the link points.
    Nothing is opened or created.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.
    folder : bool, default False
        Whether the destination is a folder the project makes (``runs/``).

    Returns
    -------
    str or None
        The problem in words, after "is" or "has" (``"is a FIFO (named pipe)"``),
        or ``None``.
    """
    path = os.fspath(path)
    name = os.path.basename(path)
    if name in ("", ".", ".."):
        kind = "folder" if folder else "file"
        return f"does not name a {kind} (it ends with a separator, '.' or '..')"
    parent = os.path.dirname(os.path.abspath(path))
    size = len(os.fsencode(name)) + TEMPORARY_PREFIX_BYTES
    longest = _limit(parent, "PC_NAME_MAX", _NAME_MAX)
    if size > longest:
        return (
            f"has a name of {size - TEMPORARY_PREFIX_BYTES} bytes: with the "
            f"{TEMPORARY_PREFIX_BYTES} of its temporary file, longer than the "
            f"{longest} this filesystem allows"
        )
    total = len(os.fsencode(os.path.join(parent, name))) + TEMPORARY_PREFIX_BYTES
    longest = _limit(parent, "PC_PATH_MAX", _PATH_MAX)
    if total >= longest:
        return (
            f"has a path of {total - TEMPORARY_PREFIX_BYTES} bytes: with its "
            f"temporary file's prefix, not shorter than the {longest} this "
            "filesystem allows"
        )
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except (OSError, ValueError) as exc:  # a null byte, a name too long, a loop
        return f"cannot be examined ({getattr(exc, 'strerror', None) or exc})"
    wanted = stat.S_ISDIR if folder else stat.S_ISREG
    if mode is not None and not wanted(mode):
        return f"is {_kind(mode)}, not a {'folder' if folder else 'regular file'}"
    if not os.path.isdir(parent):
        return f"is in {parent}, which is not an existing folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"is in {parent}, a folder this process cannot write"
    return None


class OutputFileError(ValueError):
    """A destination the project refuses to write (see :func:`check_output_file`)."""


def check_output_file(path, what: str = "path", *, folder: bool = False) -> str:
    """Return ``path`` (as a string) if the project may write it, or raise naming it.

    See :func:`output_problem` for the rule. Every writer calls it (through
    :func:`atomic_write_bytes`), and the commands and the release call it
    before any work, so that a destination refused costs nothing.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.
    what : str, default "path"
        The parameter or flag that named it, for the message.
    folder : bool, default False
        As in :func:`output_problem`.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        When ``path`` is not a path or is empty.
    OutputFileError
        A ``ValueError`` naming ``what``, ``path`` and the problem.
    """
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise TypeError(f"{what} must name a file, got {what}={path!r}.")
    path = os.fspath(path)
    problem = output_problem(path, folder=folder)
    if problem is not None:
        raise OutputFileError(
            f"{what}={path!r} {problem}: only a new name or a regular file of "
            "one's own is written; nothing was written."
        )
    return path


def atomic_write_bytes(path, data: bytes, *, before_replace=None) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one,
    never half of one (a temporary file in the same folder, fsynced, then renamed).

    ``path`` is checked first (:func:`check_output_file`): a device, a FIFO, a
    folder or a symbolic link is refused, not replaced, and the folder must
    exist. The file is created with mode 0o666 less the umask, like any other
    output. An ``OSError`` (a full disk, a missing permission) names ``path``.
    ``before_replace``, if given, is called with no argument right before the
    rename; an exception from it leaves ``path`` as it was.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.
    data : bytes
        The whole content.
    before_replace : callable, optional
        Called right before the rename.
    """
    path = check_output_file(path)
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".tmp-{secrets.token_hex(8)}{os.path.basename(path)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
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


def atomic_write_text(path, text: str, *, before_replace=None) -> None:
    """Write ``text``, encoded as UTF-8, as :func:`atomic_write_bytes` writes.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.
    text : str
        The whole content (line ends kept as they are).
    before_replace : callable, optional
        Called right before the rename.
    """
    atomic_write_bytes(path, text.encode("utf-8"), before_replace=before_replace)


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

        body = [
            [printing.cell(c, r[c]) for c in self.columns] for r in self.rows[:max_rows]
        ]
        lines = text_table([list(self.columns), *body])
        if len(self.rows) > max_rows:
            lines.append(f"... {len(self.rows) - max_rows} more rows")
        return "\n".join(lines)
