"""Reading an input file without letting it take the machine.

Every file the package reads on a user's behalf (a data CSV, a public CSV, a
TOML config or population, a budget file named on the command line) goes
through here, with the limits below in one place:

- only a regular file is opened: a FIFO, a device (``/dev/zero``), a socket or
  a directory is refused by name, before anything is read (it is opened
  non-blocking, so that a FIFO without a writer cannot hang the command);
- a file larger than its limit is refused before it is read, and a file that
  grows past it while being read is refused when it does;
- a line longer than :data:`MAX_LINE_BYTES` is refused when it is reached, so a
  file without line breaks holds at most that much in memory.

Errors name the file and the line, never its content: a data file may be
private.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Iterator
from typing import BinaryIO

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_DATA_FILE_BYTES",
    "MAX_TOML_BYTES",
    "InputFileError",
    "check_not_special",
    "open_input",
    "read_lines",
    "read_text_lines",
    "read_toml",
]

#: Longest line of a CSV file, in bytes (1 MiB: a record of 100 000 numbers).
MAX_LINE_BYTES = 2**20
#: Largest CSV file read as data or as a public sample (1 GiB: about 10**8
#: records of one number, 0.8 GB once read as float64).
MAX_DATA_FILE_BYTES = 2**30
#: Largest TOML file (config, population, settings): 16 MiB.
MAX_TOML_BYTES = 2**24

#: The UTF-8 byte-order mark some editors write first.
BOM = b"\xef\xbb\xbf"


class InputFileError(ValueError):
    """An input file that is not read: not a regular file, too large, bad text."""


def _kind(mode: int) -> str:
    """A file type in words (for a file that is not a regular file)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refusal(what: str, path: str, mode: int) -> str:
    return (
        f"{what} {path} is {_kind(mode)}, not a regular file: only regular "
        "files are read (a stream could hang the command or never end)."
    )


def check_not_special(path: str, what: str, error: type[Exception] = InputFileError):
    """Refuse ``path`` if it exists and is not a regular file (a missing file passes).

    For files another module opens later (a budget file, created when
    missing): this check does not open the file, so it cannot block on a FIFO.

    Parameters
    ----------
    path : str
        The file.
    what : str
        What the file is, for the message (e.g. ``"--budget-file"``).
    error : type, default InputFileError
        The exception raised.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise error(_refusal(what, path, mode))


def open_input(
    path: str,
    what: str,
    limit: int,
    error: type[Exception] = InputFileError,
) -> BinaryIO:
    """Open a regular file of at most ``limit`` bytes for binary reading.

    Parameters
    ----------
    path : str
        The file.
    what : str
        What the file is, for messages (e.g. ``"--data"``).
    limit : int
        Largest size accepted, in bytes.
    error : type, default InputFileError
        The exception raised for a file that is refused.

    Returns
    -------
    file object
        Opened in binary mode, blocking, positioned at the start.

    Raises
    ------
    error
        For a missing or unreadable file, one that is not a regular file, or one
        larger than ``limit``.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(_refusal(what, path, info.st_mode))
        if info.st_size > limit:
            raise error(_too_large(what, path, limit))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _too_large(what: str, path: str, limit: int) -> str:
    return f"{what} {path} is larger than {limit} bytes ({limit / 2**20:g} MiB), the limit."


def read_lines(
    handle: BinaryIO,
    what: str,
    path: str,
    limit: int,
    error: type[Exception] = InputFileError,
) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line number, line)`` of a binary file, each line bounded.

    Lines keep their terminator. A line longer than :data:`MAX_LINE_BYTES`, or
    a file growing past ``limit`` bytes as it is read, raises ``error`` naming
    the line, without reading further.
    """
    total = 0
    number = 0
    while True:
        line = handle.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        total += len(line)
        if total > limit:
            raise error(_too_large(what, path, limit))
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            raise error(
                f"{what} {path}, line {number}: longer than {MAX_LINE_BYTES} bytes "
                "(the limit of one line; is it a text file with line breaks?)."
            )
        yield number, line


def read_text_lines(
    path: str,
    what: str,
    limit: int,
    error: type[Exception] = InputFileError,
) -> Iterator[str]:
    """Yield the lines of a UTF-8 text file, bounded as :func:`read_lines` bounds them.

    The file is opened by :func:`open_input`; a byte-order mark on the first
    line is dropped, and each line is decoded on its own, so that a byte that
    is not UTF-8 is reported with its own line number.
    """
    with open_input(path, what, limit, error) as handle:
        for number, line in read_lines(handle, what, path, limit, error):
            if number == 1:
                line = line.removeprefix(BOM)
            try:
                yield line.decode("utf-8")
            except UnicodeDecodeError:
                raise error(f"{path}, line {number}: not UTF-8 text.") from None


def read_toml(path, what: str = "config") -> dict:
    """The tables of a TOML file; errors name the file and the problem.

    Only a regular file of at most :data:`MAX_TOML_BYTES` is read. A leading
    UTF-8 byte-order mark (written by some editors; TOML 1.0 has no word for
    it) is skipped.

    Raises
    ------
    ValueError
        For a file that cannot be read or is not TOML.
    """
    path = os.fspath(path)
    with open_input(path, what, MAX_TOML_BYTES) as handle:
        data = handle.read(MAX_TOML_BYTES + 1)
    if len(data) > MAX_TOML_BYTES:
        raise InputFileError(_too_large(what, path, MAX_TOML_BYTES))
    data = data.removeprefix(BOM)
    try:
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: malformed TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not a TOML text file (invalid UTF-8 at byte {exc.start})."
        ) from None
