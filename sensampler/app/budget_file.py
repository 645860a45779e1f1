"""A privacy budget kept in a file: the budget and ledger of a :class:`PrivacyFilter`.

The file is JSON::

    {"format": "sensampler-budget", "version": 1,
     "budget": {"epsilon": 1.0, "delta": 1e-06, "gamma": null, "rule": "basic"},
     "entries": [{"mechanism": "Laplace", "epsilon": 0.5, "delta": 0.0,
                  "gamma": 0.0499, "run_id": "...", "count": 1, "label": "mean",
                  "time": "2026-01-01T00:00:00Z"}],
     "checksum": "<sha256 of the rest>"}

Every read rebuilds the filter by replaying the entries, so what the file admits
is exactly what :class:`~sensampler.accounting.PrivacyFilter` admits. A
person-level entry says ``"privacy_unit": "person"`` (an entry without it is
about one record), and a file holds one privacy unit, as a filter does. A spend
(:meth:`BudgetFile.session`) holds an exclusive lock on ``FILE.lock`` from
reading the ledger to writing it, so two processes cannot both spend the last of
a budget; the new ledger is written to a temporary file in the same folder,
fsynced and renamed over the old one, so a crash leaves the old ledger or the
new one, never part of one; a temporary left behind by a process killed before
the rename is removed by the next spend, under the same lock.

One file, one ledger. A path through a symbolic link is resolved once, when the
:class:`BudgetFile` is made: the lock, the reads and the writes all use the real
file, so two links to one ledger share its lock and its entries. A file with
several hard links is refused by name: the atomic rename would give the name
written a new file and leave the other names on the old ledger (a budget split
in two), and the lock, kept beside one name, would not cover the others. Copy
the file, or use a symbolic link. The links are counted when the ledger is read
and again right before the rename, under the lock (a link made during a spend:
nothing is written); a link made in the instant between that count and the
rename is found after it (on POSIX, where the old file is held open): the old
file is then overwritten with a note that is not a budget file, so the other
name is refused rather than kept as a second ledger.

Only a regular file of at most :data:`MAX_BUDGET_FILE_BYTES` is read: a FIFO,
a device or a folder is refused by name before anything is read or locked.

The checksum detects corruption and careless edits; it does not authenticate:
anyone who can write the file can recompute it. Protect the file as you would
the data.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .._display.ledgers import budget_file_html
from .._lib.domains import DELTA_RELEASE, EPSILON, FILTER_RULES, PROBABILITY
from ..accounting import ExceededPrivacyBudgetError, LedgerEntry, PrivacyFilter
from ..privacy import NEIGHBOURS, PrivacyStatement
from ..table import atomic_write_text, output_problem
from ._input_files import check_not_special, open_input
from ._locks import lock, open_lock

__all__ = ["BudgetFile", "BudgetFileError", "replay_filter"]

_FORMAT = "sensampler-budget"
_VERSION = 1
#: Seconds a spend waits for another process's lock before giving up.
LOCK_TIMEOUT = 60.0
#: Largest budget file read (64 MiB: some 200 000 entries).
MAX_BUDGET_FILE_BYTES = 2**26
#: What the old file of a ledger becomes when a hard link to it was made in the
#: instant before a spend's rename: not a budget file, so that name is refused.
_REPLACED = "sensampler-budget-replaced"


class BudgetFileError(ValueError):
    """A budget file is missing, unreadable, corrupt or inconsistent (named)."""


def replay_filter(
    epsilon: float,
    delta: float,
    rule: str,
    gamma: float | None,
    entries: Iterable[LedgerEntry],
) -> PrivacyFilter:
    """A new :class:`~sensampler.accounting.PrivacyFilter` that has spent ``entries``.

    Parameters
    ----------
    epsilon, delta, rule, gamma
        The filter's budget and rule, as :class:`PrivacyFilter` takes them.
    entries : iterable of LedgerEntry
        Spends to record in order (a ledger's entries, or a file's).

    Returns
    -------
    PrivacyFilter

    Raises
    ------
    ExceededPrivacyBudgetError
        When the entries exceed the budget.

    Notes
    -----
    Each entry is replayed under its own neighbouring relation; an entry that
    states none (a spend given as numbers) under that of the entries that do
    (replace-one when none does), so that the replica holds the relation of
    the ledger it replays.
    """
    budget = PrivacyFilter(epsilon, delta, rule=rule, gamma=gamma)
    entries = tuple(entries)
    held = next((e.neighbours for e in entries if e.neighbours), NEIGHBOURS)
    for entry in entries:
        if entry.count == 0:  # a sampling run drawn, nothing released
            budget.record_run(entry.to_run(held))
        else:
            budget.compose(entry.to_statement(held), entry.count)
    return budget


def _checksum(content: dict) -> str:
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True)
class _Ledger:
    budget: dict
    entries: tuple[dict, ...]

    def filter(self) -> PrivacyFilter:
        entries = [LedgerEntry.from_dict(e) for e in self.entries]  # checked first
        b = self.budget
        return replay_filter(b["epsilon"], b["delta"], b["rule"], b["gamma"], entries)


class BudgetFile:
    """A persistent privacy budget: a JSON ledger replayed into a ``PrivacyFilter``.

    Parameters
    ----------
    path : str or os.PathLike
        The ledger file (``FILE.lock`` beside it is the lock).
    epsilon, delta : float, optional
        The budget to create the file with when it does not exist (``delta``
        defaults to 0); when it exists they must equal its budget or be omitted.
    gamma : float, optional
        A budget for the random-DP failure probabilities (``None``: tracked,
        not limited), used at creation only.
    rule : {"basic", "advanced", "auto"}, default "basic"
        The filter's rule (see :class:`~sensampler.accounting.PrivacyFilter`),
        used at creation only.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        gamma: float | None = None,
        rule: str = "basic",
    ):
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise TypeError(f"path must name a file, got path={path!r}.")
        self.path = os.fspath(path)
        # one ledger however it is reached: every read, lock and write uses the
        # real file (symbolic links resolved once, here)
        self._real = os.path.realpath(self.path)
        if epsilon is None and (delta is not None or gamma is not None):
            raise ValueError(
                "a budget file's delta and gamma are given with its epsilon, got "
                f"epsilon=None, delta={delta!r}, gamma={gamma!r}."
            )
        self._create = None
        if epsilon is not None:
            delta = 0.0 if delta is None else delta
            # the same checks as the filter itself, before anything is read
            PrivacyFilter(epsilon, delta, rule=rule, gamma=gamma)
            self._create = {
                "epsilon": EPSILON.check("epsilon", epsilon),
                "delta": DELTA_RELEASE.check("delta", delta),
                "gamma": None if gamma is None else PROBABILITY.check("gamma", gamma),
                "rule": FILTER_RULES.check("rule", rule),
            }

    def _repr_html_(self) -> str:
        """Notebook display: spent against the budget (the file is read, not changed)."""
        return budget_file_html(self)

    def __repr__(self):
        return f"BudgetFile({self.path!r})"

    # ----------------------------------------------------------------- reading
    def exists(self) -> bool:
        """Whether the ledger file exists.

        Returns
        -------
        bool
            True when the file exists.
        """
        return os.path.exists(self._real)

    def _named(self) -> str:
        """The file as the user named it, and its real path when a link leads there."""
        if os.path.abspath(self.path) == self._real:
            return self.path
        return f"{self.path} (the file {self._real})"

    def _load(self) -> _Ledger:
        """The ledger on disk, checked, or the one to create; raise naming the file."""
        if not os.path.exists(self._real):
            if self._create is None:
                raise BudgetFileError(
                    f"budget file {self._named()} does not exist; create it by giving "
                    "its budget (--budget-epsilon, and --budget-delta for "
                    "(epsilon, delta) releases)."
                )
            folder = os.path.dirname(self._real)
            if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
                raise BudgetFileError(
                    f"budget file {self._named()} cannot be created: {folder} is not a "
                    "writable folder."
                )
            return _Ledger(dict(self._create), ())
        ledger = self._parse()
        if self._create is not None:
            mine = {k: self._create[k] for k in ("epsilon", "delta")}
            theirs = {k: ledger.budget[k] for k in ("epsilon", "delta")}
            if mine != theirs:
                raise BudgetFileError(
                    f"budget file {self._named()} holds the budget epsilon="
                    f"{theirs['epsilon']!r}, delta={theirs['delta']!r}, not "
                    f"epsilon={mine['epsilon']!r}, delta={mine['delta']!r}; a "
                    "budget is set once (omit it, or use another file)."
                )
        return ledger

    def _parse(self) -> _Ledger:
        def bad(problem):
            return BudgetFileError(
                f"budget file {self._named()}: {problem}; refusing it."
            )

        # a regular file only, opened without blocking, read to a bound
        with open_input(
            self._real, "budget file", MAX_BUDGET_FILE_BYTES, BudgetFileError
        ) as handle:
            links = os.fstat(handle.fileno()).st_nlink
            try:
                text = None if links > 1 else handle.read(MAX_BUDGET_FILE_BYTES + 1)
            except OSError as exc:
                raise bad(f"cannot be read ({exc.strerror or exc})") from None
        if text is not None and len(text) > MAX_BUDGET_FILE_BYTES:
            raise bad(f"larger than {MAX_BUDGET_FILE_BYTES} bytes")
        try:
            record = None if text is None else json.loads(
                text.decode("utf-8"), parse_constant=_refuse_constant
            )
        except (UnicodeDecodeError, ValueError):
            raise bad("not valid JSON (corrupt or not a budget file)") from None
        except RecursionError:
            raise bad("nested too deeply to be a budget file") from None
        if links > 1:
            raise bad(
                f"it has {links} hard links, and a ledger reached by several names "
                "splits into several ledgers (copy it, or use a symbolic link)"
            )
        if isinstance(record, dict) and record.get("format") == _REPLACED:
            raise bad(
                "a hard link to an old ledger, made during a spend; the ledger is "
                f"{record.get('ledger')!r}"
            )
        if not isinstance(record, dict) or record.get("format") != _FORMAT:
            raise bad("not a sensampler budget file")
        content = {k: v for k, v in record.items() if k != "checksum"}
        if record.get("checksum") != _checksum(content):
            raise bad("checksum mismatch: it was edited or corrupted")
        if record.get("version") != _VERSION:
            raise bad(f"unsupported version {record.get('version')!r}")
        budget, entries = record.get("budget"), record.get("entries")
        if not isinstance(budget, dict) or not isinstance(entries, list):
            raise bad("no budget or no entries")
        ledger = _Ledger(budget, tuple(entries))
        try:
            ledger.filter()
        except ExceededPrivacyBudgetError:
            raise bad("its entries exceed its own budget") from None
        except (TypeError, ValueError, KeyError) as exc:
            raise bad(f"inconsistent ({exc})") from None
        return ledger

    def filter(self) -> PrivacyFilter:
        """The filter as the file stands (or as it would be created), not locked.

        Returns
        -------
        PrivacyFilter
            A copy of the ledger's filter; spending on it does not change the file.

        Raises
        ------
        BudgetFileError
            Naming the file, when it is missing (and no budget was given),
            unreadable, corrupt or inconsistent.
        """
        return self._load().filter()

    # ----------------------------------------------------------------- writing
    def check_writable(self) -> None:
        """Refuse a ledger or a lock that a spend could not write, before any spend.

        The real file (links resolved) and its lock ``FILE.lock`` must each be
        absent or a regular file, in an existing folder the process can write,
        with names the filesystem accepts
        (:func:`sensampler.table.output_problem`): a FIFO, a device or a
        folder in either place is refused by name, before a lock is made or
        anything is read. :func:`sensampler.release_statistics` and
        ``sensampler release`` call it while checking their inputs, and
        :meth:`session` again.

        Raises
        ------
        BudgetFileError
            Naming the file or its lock and the problem.
        """
        # a FIFO or a device: refused by name, without opening it
        check_not_special(self._real, "budget file", BudgetFileError)
        problem = output_problem(self._real)
        if problem is not None:
            raise BudgetFileError(
                f"budget file {self._named()} {problem}; nothing was written."
            )
        lock_path = self._real + ".lock"
        problem = output_problem(lock_path)
        if problem is not None:
            raise BudgetFileError(
                f"budget file lock {lock_path} {problem}; the lock must be a file "
                "that sensampler can create or open."
            )

    @contextlib.contextmanager
    def session(self) -> Iterator[BudgetSession]:
        """Lock the file, read it, and yield a :class:`BudgetSession` to spend from.

        Spends recorded in the session are written when the block ends without
        an exception (atomically, under the lock); on an exception nothing is
        written.
        """
        self.check_writable()
        with _locked(self._real + ".lock"):
            _remove_stale_temporaries(self._real)
            ledger = self._load()
            session = BudgetSession(ledger.filter())
            yield session
            if session.added:
                stamp = datetime.datetime.now(datetime.UTC)
                time_text = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
                new = [
                    {**entry.to_dict(), "label": label, "time": time_text}
                    for entry, label in session.added
                ]
                content = {
                    "format": _FORMAT,
                    "version": _VERSION,
                    "budget": ledger.budget,
                    "entries": [*ledger.entries, *new],
                }
                record = {**content, "checksum": _checksum(content)}
                self._replace(json.dumps(record, indent=1) + "\n")

    def _replace(self, text: str) -> None:
        """Write ``text`` over the ledger (under the lock), one ledger by one name.

        The old file's hard links are counted again right before the rename: a
        link made during the spend refuses the write (nothing written). On
        POSIX the old file is held open across the rename: if it still has a
        name afterwards (a link made in the instant between the count and the
        rename), it is overwritten with a note that is not a budget file, and
        that name is refused from then on.
        """
        old = None
        if os.name == "posix":
            try:
                old = os.open(self._real, os.O_RDWR | os.O_NONBLOCK)
            except FileNotFoundError:  # created by this spend
                old = None
            except PermissionError:  # a read-only ledger: found, not overwritten
                old = os.open(self._real, os.O_RDONLY | os.O_NONBLOCK)
            except OSError as exc:
                raise BudgetFileError(
                    f"budget file {self._named()} cannot be written "
                    f"({exc.strerror or exc}); nothing was written."
                ) from None

        def count_links():
            try:
                links = os.stat(self._real).st_nlink
            except FileNotFoundError:
                return
            if links > 1:
                raise BudgetFileError(
                    f"budget file {self._named()}: it gained {links - 1} hard "
                    "link(s) during the spend, and a ledger reached by several "
                    "names splits into several ledgers; nothing was written "
                    "(remove the other names)."
                )

        try:
            atomic_write_text(self._real, text, before_replace=count_links)
            if old is not None and os.fstat(old).st_nlink > 0:
                note = {"format": _REPLACED, "ledger": self._real}
                try:
                    os.ftruncate(old, 0)
                    os.pwrite(old, json.dumps(note).encode() + b"\n", 0)
                    os.fsync(old)
                except OSError:
                    raise BudgetFileError(
                        f"budget file {self._named()}: the spend is written, but "
                        "a hard link made during it still names the old ledger "
                        "and cannot be overwritten: delete that other name."
                    ) from None
        finally:
            if old is not None:
                os.close(old)


def _remove_stale_temporaries(path: str) -> None:
    """Remove what a write of ``path`` killed before its rename left behind.

    Called under the ledger's lock, so no other spend is writing one now; the
    names are those of :func:`~sensampler.table.atomic_write_text`
    (``.tmp-`` and 16 hexadecimal digits before the file's own name).
    """
    folder, name = os.path.split(path)
    stale = re.compile(r"\.tmp-[0-9a-f]{16}" + re.escape(name))
    for entry in os.listdir(folder):
        if stale.fullmatch(entry):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(folder, entry))


class BudgetSession:
    """Spends recorded while a :class:`BudgetFile` is locked.

    Attributes
    ----------
    filter : PrivacyFilter
        The file's filter, with this session's spends.
    added : list of (LedgerEntry, str)
        The spends of this session and their labels.
    """

    def __init__(self, privacy_filter: PrivacyFilter):
        self.filter = privacy_filter
        self.added: list[tuple[LedgerEntry, str]] = []

    def spend(self, statement: PrivacyStatement, label: str = "") -> None:
        """Record one release of ``statement``, or raise and record nothing.

        Raises
        ------
        ExceededPrivacyBudgetError
            When the budget would be exceeded.
        ValueError
            For a statement under add/remove neighbours: the file's ledger is
            replace-one (convert it with
            :func:`sensampler.privacy.to_replace_one`).
        """
        if statement.neighbours != "replace-one":
            raise ValueError(
                f"{statement.mechanism} holds for {statement.neighbours} neighbours; "
                "a budget file's ledger is replace-one: spend "
                "sensampler.privacy.to_replace_one(statement) instead."
            )
        before = len(self.filter.ledger)
        self.filter.compose(statement)
        self.added.extend((entry, label) for entry in self.filter.ledger[before:])


@contextlib.contextmanager
def _locked(lock_path: str, timeout: float = LOCK_TIMEOUT):
    """Hold an exclusive OS lock on ``lock_path`` (released on exit or by a crash)."""
    fd = open_lock(
        lock_path,
        lambda why: BudgetFileError(
            f"budget file lock {lock_path} {why}; the lock must be a file that "
            "sensampler can create or open."
        ),
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                lock(fd)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise BudgetFileError(
                        f"budget file lock {lock_path} is held by another process "
                        f"for more than {timeout:g} s; try again later."
                    ) from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


