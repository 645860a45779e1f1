"""A status line on a terminal: which step of a command runs, and for how long.

A command's steps (checking its inputs, sampling each query's sensitivity,
calibrating a quantile's scale, planning) can take from a second to minutes.
On a terminal, :class:`Status` keeps one line on stderr saying which step runs
and its seconds so far, redrawn every half second by a daemon thread, and
erases it when the step sequence ends or the command first prints its result.
The line is cut to the terminal's width, so that erasing it erases all of it.
It is off when stderr is not a terminal (a pipe, a log), with ``--json`` and
with ``--no-progress``, and for a command that draws tqdm bars instead.
No dependency: the bars of the ``progress`` extra are for counted work
(:func:`sensampler.parallel.progress_bar`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
import time

__all__ = ["Status", "add_status_flag", "status_wanted"]

#: Erases the terminal's current line and returns to its start.
ERASE = "\r\x1b[K"


def add_status_flag(p: argparse.ArgumentParser) -> None:
    """``--progress / --no-progress`` of a command that shows a status line."""
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show on stderr which step runs and for how long (default: when "
        "stderr is a terminal and --json is not given)",
    )


def status_wanted(args: argparse.Namespace, requested: bool | None, stream) -> bool:
    """Whether a command shows the status line.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags (``json``; ``bars`` and ``progress`` for a command
        that draws tqdm bars when ``progress`` is on).
    requested : bool or None
        ``--progress`` (True), ``--no-progress`` (False) or neither (None).
    stream : file-like
        Where the line goes (stderr).

    Returns
    -------
    bool
        False with ``--json``, ``--no-progress`` or a command's bars on; else
        True with ``--progress``, or when ``stream`` is a terminal.
    """
    if getattr(args, "json", False) or requested is False:
        return False
    if getattr(args, "bars", False) and getattr(args, "progress", False):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(requested) or bool(callable(isatty) and isatty())


class _Interrupting:
    """A text stream that ends ``status`` before its first write."""

    def __init__(self, stream, status: Status):
        self._stream, self._status = stream, status

    def write(self, text: str) -> int:
        self._status.stop()
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class Status:
    """The status line of command ``name`` on ``stream`` (a context manager).

    Parameters
    ----------
    name : str
        The command as typed (``sensampler release``), first on the line.
    enabled : bool
        Whether to show it (:func:`status_wanted`); off, every method does nothing.
    stream : file-like, optional
        Where the line goes (default ``sys.stderr``).
    every : float
        Seconds between redraws.
    """

    def __init__(self, name: str, *, enabled: bool, stream=None, every: float = 0.5):
        self.name, self.enabled, self.every = name, enabled, every
        self._stream = sys.stderr if stream is None else stream
        self._text, self._since = "", time.monotonic()
        self._lock, self._stopped = threading.Lock(), threading.Event()
        self._thread: threading.Thread | None = None
        self._stdout = None

    def __enter__(self) -> Status:
        if self.enabled:
            self._stdout, sys.stdout = sys.stdout, _Interrupting(sys.stdout, self)
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        if self._stdout is not None:
            sys.stdout, self._stdout = self._stdout, None

    def step(self, text: str) -> None:
        """Say that step ``text`` runs now (its seconds count from here)."""
        with self._lock:
            self._text, self._since = text, time.monotonic()
        self._draw()

    def stop(self) -> None:
        """Erase the line and draw no more (the command prints its result)."""
        if self._thread is None or self._stopped.is_set():
            return
        self._stopped.set()
        self._thread.join()
        with self._lock:
            self._stream.write(ERASE)
            self._stream.flush()

    def _tick(self) -> None:
        while not self._stopped.wait(self.every):
            self._draw()

    def _draw(self) -> None:
        if not self.enabled or self._stopped.is_set():
            return
        with self._lock:
            line = f"{self.name}: {self._text}"
            seconds = f" ({time.monotonic() - self._since:.0f} s)"
            room = shutil.get_terminal_size().columns - 1 - len(seconds)
            if len(line) > room:  # a wrapped line would not be erased
                line = line[: max(room - 1, 0)] + "…"
            self._stream.write(f"{ERASE}{line}{seconds}")
            self._stream.flush()
