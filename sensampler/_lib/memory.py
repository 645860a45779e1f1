"""What the sampler and the sweep hold in memory, and the refusal of what does not fit.

Every figure below is a measured peak, not a guess: ``tracemalloc`` peaks of one
call in a fresh process (numpy reports its buffers to ``tracemalloc``), on
numpy 2 / Python 3.11, with ``n_jobs=1``. The models round each figure up, and
a run is refused, before anything is drawn, when its model exceeds the memory
available to the process (:func:`available_memory`: the least of physical
memory, the kernel's ``MemAvailable``, the room under ``RLIMIT_AS`` and under a
cgroup limit; other processes may still take memory after the check).

Sampler (:func:`sampler_bytes`), per sensitivity: 32.1 bytes at m = 4e6 for
``queries.mean`` (one part), 32.9 bytes per sensitivity at m = 1e5 for a
10-bin histogram with ``norm="coordinate"`` (ten parts): each float64
sensitivity is held four times at the end (the chunks' results, their
concatenation, the estimate's own copy and its sorted copy). Per worker, one
chunk's working set: about three times its stack of databases
(:data:`sensampler.parallel.DEFAULT_CHUNK_BYTES`, 8 MiB; 3.1x for the heights
mixture), or, when one database is larger than a chunk, about four times one
database (the full path at n = 2e6: 2.02x for a median of a normal, 3.14x of
the heights mixture, 4.02x for ``queries.identity``).

Sweep (:func:`sweep_bytes`): the repetitions' databases held at once, 1.13x
their size for a mean of a normal, 2.0x for a median, 3.13x for any query on
the heights mixture (its draw temporaries), 4.12x for a histogram; the
answers, 2.9x their size for ``queries.identity`` (the true answers and, per
setting being released, the releases and their differences); and the result
rows, 1044 bytes each (measured at 400 020 rows).

The measurements are reproduced by ``tests/sensampler/_lib/test_memory.py``, which
checks that each model is not below a footprint measured at a small size.
"""

from __future__ import annotations

import os

import numpy as np

from ..parallel import DEFAULT_CHUNK_BYTES, effective_workers
from .words import counted

try:
    import resource
except ImportError:  # not on Windows
    resource = None

__all__ = [
    "SENSITIVITY_BYTES",
    "CHUNK_COPIES",
    "DATABASE_COPIES",
    "SWEEP_DATABASE_COPIES",
    "SWEEP_ANSWER_COPIES",
    "ROW_BYTES",
    "STATISTIC_ROWS",
    "physical_memory",
    "available_memory",
    "UNCHECKED_BYTES",
    "check_fits",
    "database_bytes",
    "sampler_bytes",
    "sweep_bytes",
    "check_database_fits",
    "check_sampling_fits",
    "record_bytes_of",
]

#: Bytes held per sampled sensitivity (measured 32.1 to 32.9): four float64 copies,
#: rounded up to five.
SENSITIVITY_BYTES = 40
#: A chunk's working set in copies of its stack of databases (measured 3.1).
CHUNK_COPIES = 4
#: One pair's working set in copies of one database when a database is larger
#: than a chunk (measured up to 4.02, for queries.identity).
DATABASE_COPIES = 5
#: The sweep's databases in copies of their size (measured up to 4.12).
SWEEP_DATABASE_COPIES = 5
#: The sweep's answers in copies of their size, per worker (measured 2.9).
SWEEP_ANSWER_COPIES = 4
#: Bytes of one result row (measured 1044), with room for the command line's
#: JSON text of it (about 330 bytes).
ROW_BYTES = 1500
#: Rows per setting and measured error (one per statistic of the sweep).
STATISTIC_ROWS = 5
#: Bytes of one float64 number.
_FLOAT = 8


def physical_memory() -> int | None:
    """Bytes of physical memory, or None where the platform does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # e.g. Windows: no sysconf
        return None


#: Where Linux says what memory is available and what limits the process.
MEMINFO = "/proc/meminfo"
PROC_STATUS = "/proc/self/status"
PROC_CGROUP = "/proc/self/cgroup"
CGROUP_ROOT = "/sys/fs/cgroup"
#: A cgroup limit at or above this is "no limit" (v1 writes 2**63 rounded to pages).
_NO_LIMIT = 2**60


def _read_kib(path: str, key: str) -> int | None:
    """Bytes of the ``key:  N kB`` line of a /proc file, or None."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            for line in handle:
                name, _, rest = line.partition(":")
                if name == key:
                    return int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _read_int(path: str) -> int | None:
    """The integer in a cgroup file (``max``: no limit), or None."""
    try:
        with open(path, encoding="ascii") as handle:
            text = handle.read(64).strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _address_space_room() -> int | None:
    """``RLIMIT_AS`` (soft) less the address space in use, or None without a limit."""
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    return max(0, soft - (_read_kib(PROC_STATUS, "VmSize") or 0))


def _cgroup_folders() -> list[str]:
    """The folders of this process's memory cgroup (v2, then v1) and their parents.

    A container often mounts its own cgroup at the root of ``CGROUP_ROOT``
    while ``/proc/self/cgroup`` names its path on the host: the root is tried too.
    """
    folders = []
    try:
        with open(PROC_CGROUP, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(65536).splitlines()
    except OSError:
        return folders
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":
            base = CGROUP_ROOT  # v2: one unified hierarchy
        elif "memory" in controllers.split(","):
            base = os.path.join(CGROUP_ROOT, "memory")
        else:
            continue
        parts = [p for p in path.split("/") if p]
        for depth in range(len(parts), -1, -1):
            folders.append(os.path.join(base, *parts[:depth]))
    return folders


def _cgroup_room() -> int | None:
    """The tightest cgroup memory limit less its usage, or None without a limit."""
    rooms = []
    for folder in _cgroup_folders():
        for limit_name, usage_name in (
            ("memory.max", "memory.current"),  # v2
            ("memory.limit_in_bytes", "memory.usage_in_bytes"),  # v1
        ):
            limit = _read_int(os.path.join(folder, limit_name))
            if limit is not None and limit < _NO_LIMIT:
                usage = _read_int(os.path.join(folder, usage_name)) or 0
                rooms.append(max(0, limit - usage))
    return min(rooms) if rooms else None


def available_memory() -> tuple[int, str] | None:
    """Bytes this process can still use, and what sets that figure; None if unknown.

    The smallest of: the machine's physical memory (:func:`physical_memory`),
    the memory the kernel reports available (``MemAvailable`` in
    ``/proc/meminfo``), the room left under ``RLIMIT_AS`` and the room left
    under the process's cgroup limit (v2 ``memory.max``, v1
    ``memory.limit_in_bytes``), each where the platform has it.
    """
    candidates = [
        (physical_memory(), "this machine's {} of physical memory"),
        (_read_kib(MEMINFO, "MemAvailable"), "the {} of memory available (MemAvailable)"),
        (_address_space_room(), "the {} left under this process's RLIMIT_AS"),
        (_cgroup_room(), "the {} left under this process's cgroup memory limit"),
    ]
    known = [(size, text) for size, text in candidates if size is not None]
    return min(known, key=lambda item: item[0]) if known else None


def _gib(size: int) -> str:
    return f"{size / 2**30:.3g} GiB"


#: Work whose model needs at most this many bytes is not checked: reading the
#: limits (``/proc``, the cgroup files) costs about 0.14 ms, half a small
#: sampling call, and a process without 64 MiB to spare fails at its first
#: allocation anyway; the guard is for the requests that could take a machine.
UNCHECKED_BYTES = 64 * 2**20


def check_fits(what: str, needed: int, advice: str) -> None:
    """Refuse, before anything is drawn, work whose model exceeds available memory.

    Work of at most :data:`UNCHECKED_BYTES` is let through without reading the
    limits.

    Parameters
    ----------
    what : str
        What needs the memory, with its sizes (e.g. ``"m=1000000000 pairs"``).
    needed : int
        Bytes the model says the work holds at its peak.
    advice : str
        The way out, e.g. ``"lower m"``.

    Raises
    ------
    ValueError
        When ``needed`` exceeds :func:`available_memory`.
    """
    if needed <= UNCHECKED_BYTES:
        return
    available = available_memory()
    if available is not None and needed > available[0]:
        memory, source = available
        raise ValueError(
            f"{what} need about {_gib(needed)}, more than "
            f"{source.format(_gib(memory))}: {advice}."
        )


def database_bytes(n: int, record_bytes: int) -> int:
    """Bytes of one database of ``n`` records of ``record_bytes`` each."""
    return n * record_bytes


def sampler_bytes(
    m: int,
    parts: int,
    n: int,
    record_bytes: int,
    *,
    additive: bool,
    workers: int = 1,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> int:
    """Peak bytes of one sampling run (see the module docstring for the figures).

    Parameters
    ----------
    m : int
        Pairs drawn.
    parts : int
        Sensitivities per pair (output parts, or coordinates under a
        per-coordinate norm).
    n : int
        Database size.
    record_bytes : int
        Bytes of one record.
    additive : bool
        Whether the query takes the fast path (two one-record databases a pair).
    workers : int
        Workers running chunks at once.
    chunk_bytes : int
        The chunks' stack budget (:data:`sensampler.parallel.DEFAULT_CHUNK_BYTES`).

    Returns
    -------
    int
    """
    database = database_bytes(2 if additive else n, record_bytes)
    chunk = max(CHUNK_COPIES * chunk_bytes, DATABASE_COPIES * database)
    return SENSITIVITY_BYTES * m * parts + workers * chunk


def sweep_bytes(
    repetitions: int,
    n: int,
    record_bytes: int,
    answer_size: int,
    settings: int,
    *,
    workers: int = 1,
) -> int:
    """Peak bytes of one error-vs-epsilon sweep (see the module docstring).

    Parameters
    ----------
    repetitions : int
        Databases drawn (or releases of one fixed database).
    n : int
        Records per database.
    record_bytes : int
        Bytes of one record.
    answer_size : int
        Numbers in one answer of the query (all parts).
    settings : int
        Sensitivity, epsilon and part combinations released.
    workers : int
        Settings released at once.

    Returns
    -------
    int
    """
    databases = SWEEP_DATABASE_COPIES * repetitions * database_bytes(n, record_bytes)
    answers = (1 + SWEEP_ANSWER_COPIES * workers) * repetitions * answer_size * _FLOAT
    measures = 1 + (answer_size if answer_size > 1 else 0)
    rows = settings * measures * STATISTIC_ROWS * ROW_BYTES
    return databases + answers + rows


def record_bytes_of(record_shape: tuple[int, ...]) -> int:
    """Bytes of one float64 record of shape ``record_shape``."""
    return int(np.prod(record_shape, dtype=object)) * _FLOAT


def check_database_fits(n: int, record_shape: tuple[int, ...]) -> None:
    """Refuse the full path's ``n`` when one pair's databases exceed physical memory.

    Parameters
    ----------
    n : int
        Database size.
    record_shape : tuple of int
        Shape of one record (float64).
    """
    check_fits(
        f"n={n}: {DATABASE_COPIES} copies of one database of {n} records",
        DATABASE_COPIES * database_bytes(n, record_bytes_of(record_shape)),
        "use a smaller n, or an additive query (queries.additive or "
        "queries.batched(..., additive=...)), which draws no database",
    )


def check_sampling_fits(
    m: int, parts: int, n: int, record_bytes: int, additive: bool, n_jobs=1
) -> None:
    """Refuse a sampling run whose :func:`sampler_bytes` exceed physical memory.

    Parameters
    ----------
    m, parts, n, record_bytes, additive
        As in :func:`sampler_bytes`.
    n_jobs : int or None
        As in joblib (the workers running chunks at once).
    """
    workers = effective_workers(n_jobs)
    check_fits(
        f"m={m} pairs of {counted(parts, 'sensitivity', 'sensitivities')} each "
        f"({SENSITIVITY_BYTES} bytes a sensitivity, {workers} worker(s))",
        sampler_bytes(m, parts, n, record_bytes, additive=additive, workers=workers),
        "lower m (or gamma's demands), or use fewer coordinates"
        + (f", or fewer workers than n_jobs={n_jobs}" if workers > 1 else ""),
    )
