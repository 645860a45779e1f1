"""Operating-system locks on files: one run at a time on a results folder or a ledger."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

from ..table import output_problem

__all__ = ["lock", "exclusive", "open_lock"]


def open_lock(lock_path: str, refuse: Callable[[str], Exception]) -> int:
    """Open (or create) the lock file ``lock_path`` and return its descriptor.

    Parameters
    ----------
    lock_path : str
        The lock file.
    refuse : callable
        Called with why it cannot be opened (``"is a folder, not a regular
        file"``, ``"cannot be opened (...)"``); what it returns is raised.

    Returns
    -------
    int
        The open descriptor (closing it releases a lock taken on it).

    Notes
    -----
    A lock is a file the project writes: what
    :func:`sensampler.table.output_problem` refuses (a folder, a FIFO, a
    device, a symbolic link) is refused here, and the file is opened without
    following a link made meanwhile (``O_NOFOLLOW``) or blocking on a FIFO.
    """
    problem = output_problem(lock_path)
    if problem is not None:
        raise refuse(problem)
    flags = (
        os.O_RDWR
        | os.O_CREAT
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
    )
    try:
        return os.open(lock_path, flags, 0o666)
    except OSError as exc:
        raise refuse(f"cannot be opened ({exc.strerror or exc})") from None


@contextlib.contextmanager
def exclusive(out_dir: str) -> Iterator[None]:
    """Hold an OS lock on ``OUT/.lock`` (released on exit, or by the OS on a crash).

    Parameters
    ----------
    out_dir : str
        The folder of a run; it must exist.

    Raises
    ------
    ValueError
        When another process holds the lock, or the lock cannot be opened (a
        folder in its place), naming the folder and the lock.
    """
    lock_path = os.path.join(out_dir, ".lock")
    fd = open_lock(
        lock_path,
        lambda why: ValueError(
            f"out_dir={out_dir!r}: its lock {lock_path} {why}; remove it or "
            "choose another folder."
        ),
    )
    try:
        try:
            lock(fd)
        except OSError:
            raise ValueError(
                f"out_dir={out_dir!r} is in use by another sensampler run (lock "
                f"{lock_path}); wait for it to finish or choose another folder."
            ) from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def lock(fd: int) -> None:
    """Take a non-blocking exclusive lock on ``fd``; OSError if another holds it.

    Parameters
    ----------
    fd : int
        An open file descriptor (``fcntl.flock``; on Windows ``msvcrt.locking``
        of its first byte).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
