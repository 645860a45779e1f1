r"""The sensitivity sampler (Rubinstein & Aldà 2017, Algorithm 1), vectorised.

For each of m independent pairs, draw a database :math:`D \sim P^{n-1}` and two
records :math:`x, x' \sim P`, put :math:`x` at a position drawn uniformly, and
compute :math:`G_i = \lVert f(D \cup \{x\}) - f(D \cup \{x'\}) \rVert`, the
two databases differing at that position only. Releasing the
order statistic :math:`G_{(k)}` as the sensitivity makes a mechanism calibrated
with it random-DP with failure probability :math:`\gamma` (see
:mod:`sensampler.plan`).

Neighbours are **replace-one** (bounded DP) by default: both databases hold n
records and differ in one. With ``neighbours="add-remove"`` (unbounded DP) each
pair is :math:`D` of n - 1 records and :math:`D \cup \{x\}` of n, x at a
position drawn uniformly: the larger database has n records. The two relations
give different sensitivities (a mean's add/remove change also depends on D), so
an estimate is valid for the relation it was sampled under, recorded in its
run and in every statement made from it.

Additive queries (:attr:`sensampler.queries.Query.additive`), sums over records
:math:`f(D) = a_n \sum_i g(d_i) + b` with :math:`a_n = 1` or :math:`1/n`, take
a fast path: :math:`f(D \cup \{x\}) - f(D \cup \{x'\}) = a_n (g(x) - g(x'))`
needs x and x' only, so no database is drawn and a run costs O(m), not O(m n).
Under add/remove, a sum's change :math:`f(D \cup \{x\}) - f(D) = g(x)` is the
same for every D, so the fast path takes D of one fresh record; a mean's,
:math:`(g(x) - \bar g(D))/n`, depends on D, and a mean takes the full path.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import Any, Union, overload

import numpy as np

from ._lib.domains import NEIGHBOUR_RELATIONS
from ._lib.memory import check_sampling_fits
from ._lib.structure import Spec
from ._lib.threads import one_thread
from ._lib.validation import as_seed_sequence, check_count, check_flag, check_n_jobs
from ._sampling.chunks import ChunkJob, sample_additive_chunk, sample_chunk
from ._sampling.probes import probe_query
from .bounds import Bounds, ClippedPopulation, worst_case_sensitivity
from .distributions import Distribution, PublicSample, as_distribution
from .estimate import SamplingProblem, SensitivityEstimate, SensitivityEstimates
from .norms import SensitivityNorm, get_norm
from .parallel import child_seed, chunk_sizes, pairs_per_chunk, run_tasks
from .plan import check_plan_arguments, joint_plan, sampling_plan
from .privacy import NEIGHBOURS, SamplingRun
from .queries import Query, as_query

__all__ = ["sample_sensitivity", "SensitivitySampler"]

#: Child seed of the probe database that reveals the output's structure (chunks
#: use children 0, 1, ...).
_PROBE_CHILD = 2**32 - 1

#: Largest database size n (numpy's index range).
MAX_N = 2**63 - 1
#: Child seed of the permutations of the order check (drawn apart from the
#: probe database, so that the check changes no estimate).
_ORDER_CHILD = 2**32 - 2

#: Sampling runs this process has drawn, seed-less or not (see SamplingRun.ordinal).
_RUNS_DRAWN = itertools.count(1)
_RUNS_LOCK = threading.Lock()


def next_ordinal() -> int:
    """Count one more sampling run drawn by this process, and return the count."""
    with _RUNS_LOCK:
        return next(_RUNS_DRAWN)


def seed_of(root: np.random.SeedSequence):
    """``(entropy, spawn_key)`` of the root seed, as plain ints."""
    entropy = root.entropy
    if isinstance(entropy, Integral):
        plain: int | tuple[int, ...] = int(entropy)
    else:  # a sequence of words, e.g. drawn from a Generator
        # Iterated as given: numpy would turn mixed words >= 2**63 into float64.
        plain = tuple(int(word) for word in entropy)
    return plain, tuple(int(word) for word in root.spawn_key)


# ------------------------------------------------------------------------ public
def check_neighbours(neighbours: str, n: int) -> str:
    """The relation ``neighbours``, checked with the database size it needs.

    Parameters
    ----------
    neighbours : {"replace-one", "add-remove"}
    n : int
        Records of the larger database of a pair, already checked ``>= 1``.

    Returns
    -------
    str
        ``neighbours``.

    Raises
    ------
    ValueError
        For another relation, and for add/remove pairs with ``n < 2`` (the
        smaller database, of n - 1 records, would be empty).
    """
    neighbours = NEIGHBOUR_RELATIONS.check("neighbours", neighbours)
    if neighbours == "add-remove" and n < 2:
        raise ValueError(
            f"neighbours='add-remove' needs n >= 2 (D holds n - 1 records and "
            f"D u {{x}} holds n), got n={n}."
        )
    return neighbours


def _reproduce_hint(random_state, root):
    if random_state is None or isinstance(random_state, np.random.Generator):
        return f"reproduce with random_state=np.random.SeedSequence({root.entropy!r})"
    return f"reproduce with random_state={random_state!r}"


#: A query with one output (an array or a number): one estimate. Queries whose
#: return type is not declared (built-in queries among them) count as such.
ArrayQuery = Callable[[np.ndarray], Union[np.ndarray, np.number, float, list]]
#: A query whose outputs have several parts: one estimate per part.
StructuredQuery = Union[
    Callable[[np.ndarray], tuple[Any, ...]],
    Callable[[np.ndarray], Mapping[Any, Any]],
]
#: A norm: a name, a norm object, or a callable on differences of shape (B, d).
NormLike = Union[str, SensitivityNorm, Callable[[np.ndarray], np.ndarray]]
#: Anything :func:`sensampler._lib.validation.as_seed_sequence` accepts.
RandomState = Union[int, np.random.SeedSequence, np.random.Generator, None]



@overload
def sample_sensitivity(
    query: ArrayQuery,
    population: object,
    n: int,
    *,
    gamma: float | None = None,
    m: int | None = None,
    k: int | None = None,
    norm: NormLike = "l1",
    inequality: str = "exact",
    neighbours: str = NEIGHBOURS,
    bounds: Bounds | None = None,
    random_state: RandomState = None,
    n_jobs: int | None = None,
    batch_size: int | None = None,
    progress: bool = False,
    order_dependent: bool = False,
) -> SensitivityEstimate: ...


@overload
def sample_sensitivity(
    query: StructuredQuery,
    population: object,
    n: int,
    *,
    gamma: float | None = None,
    m: int | None = None,
    k: int | None = None,
    norm: NormLike = "l1",
    inequality: str = "exact",
    neighbours: str = NEIGHBOURS,
    bounds: Bounds | None = None,
    random_state: RandomState = None,
    n_jobs: int | None = None,
    batch_size: int | None = None,
    progress: bool = False,
    order_dependent: bool = False,
) -> SensitivityEstimates: ...


@overload
def sample_sensitivity(
    query: Query | Callable[[np.ndarray], object],
    population: object,
    n: int,
    *,
    gamma: float | None = None,
    m: int | None = None,
    k: int | None = None,
    norm: NormLike = "l1",
    inequality: str = "exact",
    neighbours: str = NEIGHBOURS,
    bounds: Bounds | None = None,
    random_state: RandomState = None,
    n_jobs: int | None = None,
    batch_size: int | None = None,
    progress: bool = False,
    order_dependent: bool = False,
) -> SensitivityEstimate | SensitivityEstimates: ...


def sample_sensitivity(
    query: Query | Callable[[np.ndarray], object],
    population: object,
    n: int,
    *,
    gamma: float | None = None,
    m: int | None = None,
    k: int | None = None,
    norm: NormLike = "l1",
    inequality: str = "exact",
    neighbours: str = NEIGHBOURS,
    bounds: Bounds | None = None,
    random_state: RandomState = None,
    n_jobs: int | None = None,
    batch_size: int | None = None,
    progress: bool = False,
    order_dependent: bool = False,
) -> SensitivityEstimate | SensitivityEstimates:
    r"""Sample the sensitivity of ``query`` on databases of ``n`` records from ``population``.

    Algorithm 1 of Rubinstein & Aldà (2017), vectorised over pairs: each chunk
    of pairs draws its databases :math:`D \cup \{x\}` in one call (n i.i.d.
    records), evaluates a batched query once on the whole stack, overwrites
    the record at a position drawn uniformly per pair with a fresh :math:`x'`
    in place, and evaluates again. Since the records are i.i.d., this is a
    replace-one neighbouring pair whose differing record sits anywhere: random
    DP averages over that position. A query that reads records by position
    (``lambda db: db[0]``) then gets sensitivity 0 in most runs once 1/n is
    small against gamma, and its release publishes a record exactly. Such a
    query is refused unless ``order_dependent=True`` (see the Notes).

    An additive query (``query.additive`` is "sum" or "mean": ``queries.mean``,
    ``sum``, ``count``, ``histogram``, or one declared with
    :func:`sensampler.queries.additive` or ``queries.batched(...,
    additive=...)``) takes a fast path that draws no database: for
    :math:`f(D) = a_n \sum_i g(d_i) + b` with :math:`a_n = 1` or :math:`1/n`,
    the change :math:`a_n (g(x) - g(x'))` needs x and x' only, so a run costs
    O(m) whatever n. A user's declaration is checked first on probe databases
    of several sizes and compositions, records replaced in turn, and a false
    one is refused (see the Notes); the library's own ``queries.mean``,
    ``sum``, ``count()`` and ``histogram(...)``, additive and order-independent
    by construction, are not probed (recognised by identity: a copy, a wrapper
    or a built-in whose attributes were reassigned is probed like any query).

    Parameters
    ----------
    query : callable or sensampler.queries.Query
        Maps a database ``(n, *record_shape)`` to an array, or a tuple or dict of
        arrays (one estimate per part). Built-in queries are batched. Every
        database (or stack) is passed read-only: the sampler builds each
        neighbour by overwriting a record of the same array, so a query that
        writes into it (``db -= db.mean()``, ``db.sort()``) is refused; copy
        first (``np.array(db)``).
    population : distributions.Distribution or compatible
        The population model (anything :func:`distributions.as_distribution`
        accepts).
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
    inequality : str, default "exact"
        The plan's bound; see :func:`sensampler.sampling_plan`.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of the pairs. ``"replace-one"``: two
        databases of n records differing in one. ``"add-remove"``: D of
        ``n - 1`` records and :math:`D \cup \{x\}` of ``n`` (the larger
        database has n records; needs ``n >= 2``), x inserted at a position
        drawn uniformly per pair. Recorded in the run and in every statement
        a mechanism calibrated with the estimate makes; accountants refuse
        to compose it with the other relation unless converted
        (:func:`sensampler.privacy.to_replace_one`).
    bounds : sensampler.bounds.Bounds, optional
        Clip every record of every sampled database to ``[bounds.low,
        bounds.high]`` (scalar records, or each row of a person's rows: a
        ``person_rows`` population): the estimate is then the sensitivity of
        the query on clipped records, and records its bounds.
        For the built-in queries in the l1, l2 or linf norm it also records
        the sensitivity of the clipped query over *every* pair of neighbours
        (``est.worst_case``, analytic: see
        :func:`sensampler.bounds.worst_case_sensitivity`), from which a
        mechanism states a plain DP guarantee and puts a floor under its
        noise. Release ``query(bounds.clip(data))``.
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
    order_dependent : bool, default False
        Accept a query whose output depends on the order of the records; it is
        refused otherwise. Recorded in the run (``est.run.order_dependent``) and
        so in every statement of a mechanism calibrated with it.

    Returns
    -------
    SensitivityEstimate or SensitivityEstimates
        One :class:`~sensampler.SensitivityEstimate` for an array output; for a
        tuple or dict output, a :class:`~sensampler.SensitivityEstimates` indexed
        by position or key, whose parts share the run and its ``gamma`` (valid
        for all of them jointly). For type checkers, a query declared to return
        an array or a number (or declaring nothing, as the built-in queries)
        gives ``SensitivityEstimate``, one declared to return a tuple or a
        mapping ``SensitivityEstimates``, and any other the union of both:
        narrow it with ``isinstance(result, SensitivityEstimates)``.

    Raises
    ------
    ValueError, TypeError
        For invalid arguments, and when the query raises, returns an empty,
        non-numeric, NaN or inf output or changes shape: the message names the
        pair and the seed to reproduce it. For a query that depends on the
        order of the records (without ``order_dependent=True``) or a false
        additive declaration, before any pair is drawn.

    Notes
    -----
    The fast path's sensitivities have the same law as the full path's (the
    tests compare the two with a two-sample test), but the two paths draw
    different random numbers: the same ``random_state`` gives different
    samples on each, each bit-identical across ``n_jobs`` and backends. The
    fast path draws the same records whatever n. Its check evaluates the
    query on probe databases of min(n, 1000), 2, 3, 5, 8 and 13 records, on
    databases of the population's low and high tail records, on five
    mixtures of them, and on 14 databases of min(n, 1000) population records
    into which 0, 1, ..., 13 copies of the most extreme records drawn are
    mixed (28 evaluations of the query at most); it compares the change of f
    when a record is replaced, and the difference between any two databases
    of one size, with what :math:`f(D) = a_s \sum_i g(d_i) + b` predicts from
    one-record databases (relative tolerance 1e-6, plus float64 rounding). It
    refuses a wrong kind or scale, interactions between records (a median, a
    variance, a threshold on a count) and outputs whose shape depends on n;
    it refused ``mean + 5 [#(x > 0) >= 50]`` declared ``additive="mean"`` at
    n = 100 on 10 000 of 10 000 seeds (the former check accepted it on 38 of
    40), and ``mean + 5 [#(|x| > 2.58) >= 3]`` (a count of outliers) at n =
    101 on 200 of 200 seeds at gamma = 0.001 (without the outlier databases
    it accepted 4 of 20). It cannot see a non-additivity the probes do not
    reach (only beyond 1000 records, only on records more extreme than all
    those drawn, a threshold on a count of outliers more than 13 above what
    typical records hold, a jump at one exact count, or in a random query),
    and may refuse a query computed in float32 (see
    :func:`sensampler._sampling.probes.probe_additive`).

    **Order of the records.** Before sampling, the query is evaluated on a
    probe database of n records from the population shifted by one position,
    reversed and randomly permuted (three evaluations, from a stream of their
    own: the check changes no estimate); an output that moves by more than
    1e-6 of its largest absolute value is refused, naming the query, unless
    ``order_dependent=True``. Random DP over positions allows this: the
    differing record of a pair sits at each position with probability 1/n, so
    a query reading record i is random-DP with sensitivity 0 whenever
    :math:`1/n \le \gamma` roughly, and its release publishes record i
    exactly. The check cannot see an order dependence that typical records do
    not reach (record 0 read only when it lies in a far tail) or below the
    tolerance, and may refuse an order-independent query whose round-off
    exceeds it (see :func:`sensampler._sampling.probes.check_order`).

    ``m`` above :data:`sensampler.plan.MAX_PAIRS` is refused before anything is
    drawn; on the full path, so is an ``n`` whose database, five times over
    (the stack and the temporaries of the population and the query), exceeds
    the machine's physical memory; and any run whose peak (40 bytes per
    sensitivity, plus each worker's chunk) does not fit in it: the measured
    model of :mod:`sensampler._lib.memory`.

    The estimate's ``run`` records the root seed (``SeedSequence`` entropy and
    spawn key) and an ordinal: how many sampling runs this process had drawn,
    seeded or not. Its ``gamma`` holds for **one** run chosen before seeing its
    result. Drawing R runs and keeping a favourable one (say the smallest
    sensitivity) raises the failure probability to about :math:`R\gamma` (a
    union bound over the runs), and under the PAC reading of the sampler's
    share, :math:`1 - (1 - \rho)^R`. Report every run drawn:
    :class:`SensitivitySampler` keeps them in ``runs_drawn``, and an
    accountant's ``record_run`` counts each one's ``gamma``.

    Examples
    --------
    >>> from sensampler.distributions import GaussianMixture
    >>> from sensampler import queries
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> est = sample_sensitivity(queries.mean, heights, n=100, gamma=0.05, random_state=0)
    >>> est.m, est.k
    (113, 113)
    >>> sensitivity, mean = est
    >>> sensitivity.source, mean.source, sensitivity.run is est.run
    ('sampled', 'typical', True)
    """
    inputs = _check_inputs(
        query, population, n, gamma=gamma, m=m, k=k, norm=norm,
        inequality=inequality, neighbours=neighbours, bounds=bounds, n_jobs=n_jobs,
        batch_size=batch_size, progress=progress, order_dependent=order_dependent,
    )
    if isinstance(inputs.dist, PublicSample):
        return _sample_posterior(inputs, random_state)
    root = as_seed_sequence(random_state)
    reproduce = _reproduce_hint(random_state, root)
    probed = _probe(inputs, root, reproduce)
    joint = _plan(inputs, probed)
    samples, ordinal = _run_chunks(inputs, probed, joint[0], root, reproduce)
    return _assemble(inputs, probed, joint, seed_of(root), ordinal, samples)


# ------------------------------------------------------------------------ stages
@dataclass(frozen=True)
class _Inputs:
    """The checked arguments of one :func:`sample_sensitivity` call.

    ``dist`` is the population model, clipped to ``bounds`` when they are given
    (except a :class:`PublicSample`, whose runs clip their own populations);
    ``m``, ``gamma`` and ``k`` are checked on their own, not yet planned.
    """

    query: Query
    dist: Distribution
    n: int
    norm: SensitivityNorm
    m: int | None
    gamma: float | None
    k: int | None
    inequality: str
    neighbours: str
    bounds: Bounds | None
    n_jobs: int | None
    batch_size: int | None
    progress: bool
    order_dependent: bool


def _check_inputs(
    query, population, n, *, gamma, m, k, norm, inequality, neighbours,
    bounds, n_jobs, batch_size, progress, order_dependent,
) -> _Inputs:
    """Every argument of :func:`sample_sensitivity` checked, before anything is drawn."""
    query = as_query(query)
    dist = as_distribution(population)
    n = check_count("n", n)
    if n > MAX_N:
        raise ValueError(f"n must be <= MAX_N={MAX_N}, got n={n}.")
    norm = get_norm(norm)
    m, gamma, k = check_plan_arguments(m, gamma, k, inequality)
    neighbours = check_neighbours(neighbours, n)
    if batch_size is not None:
        batch_size = check_count("batch_size", batch_size)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_flag("progress", progress)
    order_dependent = check_flag("order_dependent", order_dependent)
    if bounds is not None:
        dist = _clipped(dist, bounds)
    return _Inputs(
        query, dist, n, norm, m, gamma, k, inequality, neighbours, bounds, n_jobs,
        batch_size, progress, order_dependent,
    )


def _clipped(dist: Distribution, bounds: Bounds) -> Distribution:
    """``dist`` clipped to ``bounds``, checked (a public sample clips in its runs)."""
    if not isinstance(bounds, Bounds):
        raise TypeError(
            f"bounds must be a sensampler.bounds.Bounds or None, got {bounds!r}."
        )
    if tuple(dist.record_shape) != () and not dist.person_rows:
        raise ValueError(
            "bounds clip scalar records (or a person's rows), got a population "
            f"of records of shape {dist.record_shape}."
        )
    return dist if isinstance(dist, PublicSample) else ClippedPopulation(dist, bounds)


def _sample_posterior(inputs: _Inputs, random_state):
    """The largest of B runs on populations drawn given a public sample's rows."""

    def run(population, seed):
        return sample_sensitivity(
            inputs.query, population, inputs.n, gamma=inputs.gamma, m=inputs.m,
            k=inputs.k, norm=inputs.norm, inequality=inputs.inequality,
            neighbours=inputs.neighbours, bounds=inputs.bounds, random_state=seed,
            n_jobs=inputs.n_jobs, batch_size=inputs.batch_size,
            progress=inputs.progress, order_dependent=inputs.order_dependent,
        )

    plan = sampling_plan(m=inputs.m, gamma=inputs.gamma, k=inputs.k, inequality=inputs.inequality)
    return inputs.dist.sensitivity(run, plan, random_state)


@dataclass(frozen=True)
class _Probed:
    """What the probes tell of the query's output, and which path samples it."""

    fast: bool  # the additive path: no database drawn
    spec: Spec
    shapes: tuple[tuple[int, ...], ...]
    record_bytes: int
    parts: int  # order statistics released jointly


def _probe(inputs: _Inputs, root, reproduce: str) -> _Probed:
    """Probe the output's structure; check a declaration, the sizes and the order."""
    probed = probe_query(
        inputs.query,
        inputs.dist,
        inputs.n,
        inputs.neighbours,
        np.random.default_rng(child_seed(root, _PROBE_CHILD)),
        reproduce,
        order_rng=np.random.default_rng(child_seed(root, _ORDER_CHILD)),
        order_dependent=inputs.order_dependent,
    )
    return _Probed(
        probed.fast,
        probed.spec,
        probed.shapes,
        probed.record_bytes,
        probed.parts(inputs.norm.per_coordinate),
    )


def _plan(inputs: _Inputs, probed: _Probed):
    """The joint plan ``(plan, gamma, rho)`` of the parts, checked to fit in memory."""
    joint = joint_plan(inputs.m, inputs.gamma, inputs.k, inputs.inequality, probed.parts)
    check_sampling_fits(
        joint[0].m, probed.parts, inputs.n, probed.record_bytes, probed.fast,
        inputs.n_jobs,
    )
    return joint


def _chunk_jobs(inputs: _Inputs, probed: _Probed, m: int, root, reproduce: str):
    """The chunks of m pairs: their jobs and sizes, fixed by m and the chunk size."""
    # The fast path's chunk holds two one-record databases per pair, whatever n.
    per_chunk = (
        pairs_per_chunk(2, probed.record_bytes, True, inputs.batch_size)
        if probed.fast
        else pairs_per_chunk(
            inputs.n, probed.record_bytes, inputs.query.batched, inputs.batch_size
        )
    )
    sizes = chunk_sizes(m, per_chunk)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    jobs = [
        ChunkJob(
            inputs.query, inputs.dist, inputs.n, size, child_seed(root, i), inputs.norm,
            int(start), reproduce, probed.spec, probed.shapes, inputs.neighbours,
        )
        for i, (size, start) in enumerate(zip(sizes, starts))
    ]
    return jobs, sizes


def _run_chunks(inputs: _Inputs, probed: _Probed, plan, root, reproduce: str):
    """Draw the plan's m pairs in chunks; ``(samples per part, the run's ordinal)``."""
    jobs, sizes = _chunk_jobs(inputs, probed, plan.m, root, reproduce)
    threads = inputs.query.releases_gil and inputs.dist.releases_gil
    ordinal = next_ordinal()
    with one_thread():  # worker threads then share the calling thread's limit
        results = run_tasks(
            sample_additive_chunk if probed.fast else sample_chunk,
            [(job,) for job in jobs],
            n_jobs=inputs.n_jobs,
            progress=inputs.progress,
            weights=sizes,
            prefer="threads" if threads else "processes",
        )
    parts = range(len(probed.shapes))
    return [np.concatenate([chunk[j] for chunk in results]) for j in parts], ordinal


def _sampling_run(inputs: _Inputs, joint, seed, ordinal: int, kths) -> SamplingRun:
    """The run's record: its plan, joint gamma and rho, seed, ordinal and releases."""
    plan, run_gamma, run_rho = joint
    return SamplingRun(
        run_id=uuid.uuid4().hex,
        gamma=run_gamma,
        rho=run_rho,
        inequality=inputs.inequality,
        m=plan.m,
        k=plan.k,
        seed=seed,
        ordinal=ordinal,
        neighbours=inputs.neighbours,
        order_dependent=inputs.order_dependent,
        released=tuple(float(v) for kth in kths for v in kth),
    )


def _assemble(inputs: _Inputs, probed: _Probed, joint, seed, ordinal, samples):
    """The run and its estimates: one, or one per part of a tuple or dict output."""
    plan = joint[0]
    kths = [np.partition(part, plan.k - 1, axis=0)[plan.k - 1].ravel() for part in samples]
    offsets = np.cumsum([0] + [kth.size for kth in kths])
    run = _sampling_run(inputs, joint, seed, ordinal, kths)
    query, norm, n, bounds = inputs.query, inputs.norm, inputs.n, inputs.bounds
    kind, keys = probed.spec
    options = (("order_dependent", True),) if inputs.order_dependent else ()
    problem = SamplingProblem(query, inputs.dist, n, norm, options)
    worst_case = (
        worst_case_sensitivity(query, bounds, n, inputs.neighbours, norm.name)
        if bounds is not None and kind == "array"
        else None
    )
    estimates = tuple(
        SensitivityEstimate(
            samples[j], run, plan, norm.name, n, parts=probed.parts, query=query.name,
            part=None if kind == "array" else keys[j] if kind == "dict" else j,
            output_shape=probed.shapes[j], recordwise=query.recordwise,
            offset=int(offsets[j]), problem=problem, bounds=bounds,
            worst_case=worst_case,
        )
        for j in range(len(probed.shapes))
    )
    if kind == "array":
        return estimates[0]
    return SensitivityEstimates(estimates, keys if kind == "dict" else None)


class SensitivitySampler:
    """The source documents' interface to the sensitivity sampler.

    Parameters
    ----------
    inequality : str, default "exact"
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        Checked here, before anything is drawn.
    random_state, n_jobs, progress
        As in :func:`sample_sensitivity`.

    Attributes
    ----------
    runs_drawn : list of SamplingRun
        Every sampling run this sampler drew, in order. Keeping a favourable run
        among several raises the failure probability (see
        :func:`sample_sensitivity`, Notes): give them all to an accountant.

    Examples
    --------
    >>> from sensampler.distributions import GaussianMixture
    >>> from sensampler.norms import L1SensitivityNorm
    >>> from sensampler import queries
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> sampler = SensitivitySampler(random_state=0)
    >>> sensitivity, mean = sampler.sample_sensitivity(
    ...     queries.identity, L1SensitivityNorm(), heights, n_data_size=1, gamma=0.05)
    >>> len(sampler.runs_drawn), sensitivity.run is sampler.runs_drawn[0]
    (1, True)
    """

    def __init__(
        self,
        inequality: str = "exact",
        random_state: RandomState = None,
        n_jobs: int | None = None,
        progress: bool = False,
        neighbours: str = NEIGHBOURS,
    ):
        self.inequality = inequality
        self.neighbours = NEIGHBOUR_RELATIONS.check("neighbours", neighbours)
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = check_flag("progress", progress)
        self.runs_drawn: list[SamplingRun] = []

    def sample_sensitivity(
        self,
        query: Query | Callable[[np.ndarray], object],
        sensitivity_norm: NormLike,
        oracle: object,
        n_data_size: int,
        m_sample_size: int | None = None,
        gamma: float | None = None,
        *,
        order_dependent: bool = False,
    ) -> SensitivityEstimate:
        """Sample the sensitivity; the result unpacks as ``sensitivity, mean``.

        The query must give one output (an array); use
        :func:`sample_sensitivity` for tuple or dict outputs.
        ``order_dependent`` is as in :func:`sample_sensitivity`.

        Parameters
        ----------
        query : callable or sensampler.queries.Query
            Maps a database ``(n, *record_shape)`` to one array.
        sensitivity_norm : {"l1", "l2", "linf", "coordinate"}, SensitivityNorm or callable
            The norm the sensitivity is measured in.
        oracle : distributions.Distribution or compatible
            The population (anything :func:`distributions.as_distribution` accepts).
        n_data_size : int
            Database size, ``>= 1``.
        m_sample_size : int, optional
            Number of pairs; with ``gamma`` alone the fewest pairs are chosen.
        gamma : float, optional
            Random-DP failure probability, ``0 < gamma < 1``.
        order_dependent : bool, default False
            Accept a query whose output depends on the order of the records.

        Returns
        -------
        SensitivityEstimate
            The estimate; its run is appended to :attr:`runs_drawn`.
        """
        est: SensitivityEstimate | SensitivityEstimates = sample_sensitivity(
            query,
            oracle,
            n_data_size,
            gamma=gamma,
            m=m_sample_size,
            norm=sensitivity_norm,
            inequality=self.inequality,
            neighbours=self.neighbours,
            random_state=self.random_state,
            n_jobs=self.n_jobs,
            progress=self.progress,
            order_dependent=order_dependent,
        )
        self.runs_drawn.append(est.run)
        if not isinstance(est, SensitivityEstimate):
            raise TypeError(
                f"query {est.query!r} has {len(est)} parts; the source documents' "
                "call returns one estimate: use sample_sensitivity for several parts."
            )
        return est
