r"""The sensitivity sampler (Rubinstein & Aldà 2017, Algorithm 1), vectorised.

For each of m independent pairs, draw a database :math:`D \sim P^{n-1}` and two
records :math:`x, x' \sim P`, and compute
:math:`G_i = \lVert f(D \cup \{x\}) - f(D \cup \{x'\}) \rVert`. Releasing the
order statistic :math:`G_{(k)}` as the sensitivity makes a mechanism calibrated
with it random-DP with failure probability :math:`\gamma` (see
:mod:`sensampler.plan`).

Neighbours are **replace-one** (bounded DP): both databases hold n records and
differ in one. Add/remove neighbours can change a sensitivity by up to a factor
of two, so an estimate is only valid for replace-one privacy.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from numbers import Integral

import numpy as np

from ._validation import as_seed_sequence, check_count
from .distributions import as_distribution
from .estimate import SensitivityEstimate, SensitivityEstimates
from .norms import get_norm
from .parallel import child_seed, chunk_sizes, pairs_per_chunk, run_tasks
from .plan import check_plan_arguments, sampling_plan
from .privacy import NEIGHBOURS, SamplingRun
from .queries import as_query

__all__ = [
    "SensitivityEstimate",
    "SensitivityEstimates",
    "sample_sensitivity",
    "SensitivitySampler",
    "NEIGHBOURS",
]
#: Child seed of the probe database that reveals the output's structure (chunks
#: use children 0, 1, ...).
_PROBE_CHILD = 2**32 - 1

#: Sampling runs this process has drawn, seed-less or not (see SamplingRun.ordinal).
_RUNS_DRAWN = itertools.count(1)
_RUNS_LOCK = threading.Lock()


def _next_ordinal() -> int:
    """Count one more sampling run drawn by this process, and return the count."""
    with _RUNS_LOCK:
        return next(_RUNS_DRAWN)


def _seed_of(root: np.random.SeedSequence):
    """``(entropy, spawn_key)`` of the root seed, as plain ints."""
    entropy = root.entropy
    entropy = (
        int(entropy)
        if isinstance(entropy, Integral)
        else tuple(int(word) for word in entropy)
    )
    return entropy, tuple(int(word) for word in root.spawn_key)


# --------------------------------------------------------------------- structure
def _split(out):
    """(spec, leaves) of a query output: an array, or a tuple or dict of arrays.

    A tuple is a structured output (one estimate per entry); return an array,
    not a tuple, for a vector.
    """
    if isinstance(out, dict):
        return ("dict", tuple(out)), list(out.values())
    if isinstance(out, tuple):
        return ("tuple", len(out)), list(out)
    return ("array", None), [out]


def _where(start, index, which):
    if start is None:
        return f"a probe database ({which}) drawn before sampling"
    return f"pair {start + index} ({which})"


def _as_leaves(query, out, spec, shapes, start, index, which, reproduce, batch):
    """Float leaves of one output, checked against the expected structure."""
    got_spec, leaves = _split(out)
    where = _where(start, index, which)
    if spec is not None and got_spec != spec:
        raise ValueError(
            f"query {query.name!r} changed its output structure on {where}: "
            f"{got_spec} instead of {spec}; {reproduce}."
        )
    arrays = []
    for j, leaf in enumerate(leaves):
        try:
            arr = np.asarray(leaf, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"query {query.name!r} returned a non-numeric output on "
                f"{where}: {leaf!r}; {reproduce}."
            ) from exc
        shape = arr.shape[1:] if batch else arr.shape
        if batch and (arr.ndim == 0 or arr.shape[0] != batch):
            raise ValueError(
                f"batched query {query.name!r} must return one output per "
                f"database (leading axis {batch}), got shape {arr.shape} on "
                f"{where}."
            )
        if shapes is not None and shape != shapes[j]:
            raise ValueError(
                f"query {query.name!r} changed its output shape on {where}: "
                f"{shape} instead of {shapes[j]}; {reproduce}."
            )
        arrays.append(arr)
    return got_spec, arrays


def _evaluate(query, stack, start, which, reproduce, spec=None, shapes=None):
    """Outputs of ``query`` on every database of ``stack``: (spec, [leaf (B, ...)])."""
    batch = stack.shape[0]
    if query.batched:
        try:
            out = query.evaluate(stack)
        except Exception as exc:
            raise ValueError(
                f"query {query.name!r} raised {type(exc).__name__}: {exc} on "
                f"pairs {start}..{start + batch - 1} ({which}); "
                f"{reproduce}."
            ) from exc
        spec, leaves = _as_leaves(
            query, out, spec, shapes, start, 0, which, reproduce, batch
        )
    else:
        per_db = []
        for b in range(batch):
            try:
                out = query(stack[b])
            except Exception as exc:
                raise ValueError(
                    f"query {query.name!r} raised {type(exc).__name__}: {exc} "
                    f"on {_where(start, b, which)}; {reproduce}."
                ) from exc
            spec, arrays = _as_leaves(
                query, out, spec, shapes, start, b, which, reproduce, None
            )
            shapes = [a.shape for a in arrays]
            per_db.append(arrays)
        leaves = [
            np.stack([arrays[j] for arrays in per_db]) for j in range(len(shapes))
        ]
    for leaf in leaves:
        bad = ~np.isfinite(leaf.reshape(batch, -1)).all(axis=1)
        if bad.any():
            index = int(np.argmax(bad))
            raise ValueError(
                f"query {query.name!r} returned NaN or inf on "
                f"{_where(start, index, which)}; {reproduce}."
            )
    return spec, leaves


def _sample_chunk(query, dist, n, size, seed, norm, start, reproduce, spec, shapes):
    """Sensitivities of ``size`` independent neighbouring pairs: one array per leaf."""
    rng = np.random.default_rng(seed)
    stack = dist.sample_batch(size, n, rng)  # D u {x}, x in the last row
    fresh = dist.sample(size, rng)  # x'
    if not stack.flags.writeable:
        stack = stack.copy()
    _, first = _evaluate(query, stack, start, "D u {x}", reproduce, spec, shapes)
    first = [a.copy() if np.may_share_memory(a, stack) else a for a in first]
    stack[:, -1] = fresh  # D u {x'}: the shared part D is not copied
    _, second = _evaluate(query, stack, start, "D u {x'}", reproduce, spec, shapes)
    out = []
    for a, b, shape in zip(first, second, shapes):
        g = norm((a - b).reshape(size, -1))
        if norm.per_coordinate:
            g = g.reshape((size,) + shape)
        if not np.all(np.isfinite(g)) or np.any(g < 0):
            raise ValueError(
                f"norm {norm.name!r} returned a negative, NaN or inf value "
                f"on pairs {start}..{start + size - 1}."
            )
        out.append(g)
    return out


# ------------------------------------------------------------------------ public
def _plan_parts(m, gamma, k, bound, parts):
    """Per-part plan and the joint (gamma, rho) of ``parts`` order statistics."""
    if parts == 1:
        plan = sampling_plan(m=m, gamma=gamma, k=k, bound=bound)
        return plan, plan.gamma, plan.rho
    try:
        plan = sampling_plan(
            m=m, gamma=None if gamma is None else gamma / parts, k=k, bound=bound
        )
    except ValueError as exc:
        raise ValueError(
            f"{exc} The query releases {parts} order statistics jointly, so "
            f"each is planned at gamma/{parts}."
        ) from None
    total = parts * plan.gamma
    if total >= 1.0:
        raise ValueError(
            f"m={plan.m} pairs certify gamma={plan.gamma:.3g} for each of the "
            f"{parts} parts, so nothing jointly; draw more pairs."
        )
    return plan, total, min(1.0, parts * plan.rho)


def _reproduce_hint(random_state, root):
    if random_state is None or isinstance(random_state, np.random.Generator):
        return f"reproduce with random_state=np.random.SeedSequence({root.entropy!r})"
    return f"reproduce with random_state={random_state!r}"


def sample_sensitivity(
    query,
    distribution,
    n: int,
    *,
    gamma: float | None = None,
    m: int | None = None,
    k: int | None = None,
    norm="l1",
    bound: str = "exact",
    random_state=None,
    n_jobs: int | None = None,
    batch_size: int | None = None,
    progress: bool = False,
):
    r"""Sample the sensitivity of ``query`` on databases of ``n`` records from ``distribution``.

    Algorithm 1 of Rubinstein & Aldà (2017), vectorised over pairs: each chunk
    of pairs draws its databases in one call, evaluates a batched query once on
    the whole stack for :math:`D \cup \{x\}`, overwrites the last record with
    :math:`x'` in place and evaluates again.

    Parameters
    ----------
    query : callable or sensampler.queries.Query
        Maps a database ``(n, *record_shape)`` to an array, or a tuple or dict of
        arrays (one estimate per part). Built-in queries are batched.
    distribution : distributions.Distribution or compatible
        The population (anything :func:`distributions.as_distribution` accepts).
    n : int
        Database size, ``>= 1``.
    gamma : float, optional
        Random-DP failure probability, ``0 < gamma < 1``.
    m : int, optional
        Number of pairs; with ``gamma`` alone the fewest pairs are chosen.
    k : int, optional
        Rank of the released order statistic, ``1 <= k <= m`` (needs ``m``).
    norm : {"l1", "l2", "linf", "coordinate"}, SensitivityNorm or callable, default "l1"
        ``"coordinate"`` releases one sensitivity per output coordinate.
    bound : {"exact", "dkw"}, default "exact"
        See :func:`sensampler.sampling_plan`.
    random_state : None, int, SeedSequence or Generator
        Same value, same estimate, for any ``n_jobs`` and backend.
    n_jobs : int, optional
        Workers, as in joblib; ``None`` defers to ``joblib.parallel_config``. Built-in
        queries on numpy-backed populations release the GIL and run on threads;
        anything else on processes (loky), unless ``parallel_config`` says otherwise.
    batch_size : int, optional
        Pairs per chunk; by default each chunk's stack of databases stays within
        8 MiB (32 pairs for queries evaluated database by database).
    progress : bool, default False
        Show a progress bar (needs ``tqdm``).

    Returns
    -------
    SensitivityEstimate, or a tuple / dict of them for a tuple / dict output
        Parts of one run share ``gamma`` (valid for all of them jointly) and ``run_id``.

    Raises
    ------
    ValueError, TypeError
        For invalid arguments, and when the query raises, returns NaN/inf or
        changes shape: the message names the pair and the seed to reproduce it.

    Examples
    --------
    >>> from sensampler.distributions import GaussianMixture
    >>> from sensampler import queries
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> est = sample_sensitivity(queries.mean, heights, n=100, gamma=0.05, random_state=0)
    >>> est.m, est.k
    (113, 113)
    >>> sensitivity, mean = est
    """
    query = as_query(query)
    dist = as_distribution(distribution)
    n = check_count("n", n)
    norm = get_norm(norm)
    m, gamma, k = check_plan_arguments(m, gamma, k, bound)
    if batch_size is not None:
        batch_size = check_count("batch_size", batch_size)
    root = as_seed_sequence(random_state)
    reproduce = _reproduce_hint(random_state, root)

    probe_rng = np.random.default_rng(child_seed(root, _PROBE_CHILD))
    probe = dist.sample_batch(1, n, probe_rng)
    spec, leaves = _evaluate(query, probe, None, "D u {x}", reproduce)
    shapes = [leaf.shape[1:] for leaf in leaves]
    parts = sum(int(np.prod(s)) for s in shapes) if norm.per_coordinate else len(shapes)
    plan, joint_gamma, joint_rho = _plan_parts(m, gamma, k, bound, parts)

    per_chunk = pairs_per_chunk(
        n, probe.itemsize * int(np.prod(probe.shape[2:])), query.batched, batch_size
    )
    sizes = chunk_sizes(plan.m, per_chunk)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    tasks = [
        (
            query,
            dist,
            n,
            size,
            child_seed(root, i),
            norm,
            int(start),
            reproduce,
            spec,
            shapes,
        )
        for i, (size, start) in enumerate(zip(sizes, starts))
    ]
    threads = query.releases_gil and dist.releases_gil
    ordinal = _next_ordinal()
    results = run_tasks(
        _sample_chunk,
        tasks,
        n_jobs=n_jobs,
        progress=progress,
        weights=sizes,
        prefer="threads" if threads else "processes",
    )

    run = SamplingRun(
        run_id=uuid.uuid4().hex,
        gamma=joint_gamma,
        rho=joint_rho,
        bound=bound,
        m=plan.m,
        k=plan.k,
        seed=_seed_of(root),
        ordinal=ordinal,
    )
    kind, keys = spec
    estimates = tuple(
        SensitivityEstimate(
            np.concatenate([chunk[j] for chunk in results]),
            run,
            plan,
            norm.name,
            n,
            parts=parts,
            query=query.name,
            part=None if kind == "array" else keys[j] if kind == "dict" else j,
        )
        for j in range(len(shapes))
    )
    if kind == "array":
        return estimates[0]
    return SensitivityEstimates(estimates, keys if kind == "dict" else None)


class SensitivitySampler:
    """The source documents' interface to the sensitivity sampler.

    Parameters
    ----------
    bound : {"exact", "dkw"}, default "exact"
    random_state, n_jobs, progress
        As in :func:`sample_sensitivity`.

    Examples
    --------
    >>> from sensampler.distributions import GaussianMixture
    >>> from sensampler.norms import L1SensitivityNorm
    >>> from sensampler import queries
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> sensitivity, mean = SensitivitySampler(random_state=0).sample_sensitivity(
    ...     queries.identity, L1SensitivityNorm(), heights, n_data_size=1, gamma=0.05)
    """

    def __init__(self, bound="exact", random_state=None, n_jobs=None, progress=False):
        self.bound = bound
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress

    def sample_sensitivity(
        self,
        query,
        sensitivity_norm,
        oracle,
        n_data_size,
        m_sample_size=None,
        gamma=None,
    ) -> SensitivityEstimate:
        """Sample the sensitivity; the result unpacks as ``sensitivity, mean``."""
        return sample_sensitivity(
            query,
            oracle,
            n_data_size,
            gamma=gamma,
            m=m_sample_size,
            norm=sensitivity_norm,
            bound=self.bound,
            random_state=self.random_state,
            n_jobs=self.n_jobs,
            progress=self.progress,
        )
