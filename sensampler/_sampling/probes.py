r"""Checks run on probe databases before sampling: order dependence, additivity.

Both draw from the probe streams of the run's root seed (children that no chunk
uses), so they never change the sampled sensitivities of a seed.

**Order.** Random DP averages over the position of the differing record (it is
drawn uniformly per pair). A query that reads records by position, such as
``lambda db: db[0]``, changes only when the differing record sits at that
position, with probability 1/n: the order statistic of its sampled
sensitivities is then 0 in most runs once :math:`1/n` is small against
:math:`\gamma`, and the mechanism publishes record 0 exactly. This meets random
DP's definition (the failure event has probability :math:`1/n \le \gamma`),
which is why :func:`check_order` refuses such queries unless the user opts in.

**Sizes.** Under add/remove neighbours a pair holds databases of n - 1 and n
records, whose outputs are subtracted: :func:`check_sizes` refuses a query
whose output structure or shape differs between the two.

**Additivity.** A query declared additive takes the sampler's fast path, which
draws no database; :func:`probe_additive` refuses a false declaration.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._lib.memory import check_database_fits
from .._lib.structure import Spec, evaluate
from .trusted import is_trusted

__all__ = [
    "ORDER_RTOL",
    "Probed",
    "check_order",
    "check_sizes",
    "probe_additive",
    "probe_full",
    "probe_query",
    "probe_trusted",
]

#: Relative tolerance of the order check, on the largest absolute output of each
#: part: what reordering a float64 sum or mean of records can change.
ORDER_RTOL = 1e-6
#: Records of the largest probe database of the additivity check.
_CHECK_RECORDS = 1000
#: Sizes of the small probe databases (each at most n): with a few records, one
#: replacement moves a threshold on a count or a share of the database.
_CHECK_SMALL = (2, 3, 5, 8, 13)
#: Records replaced, one at a time and at uniform positions, in each probe database.
_CHECK_REPLACEMENTS = 8
#: Population records drawn to find the tails (the records farthest from the median).
_CHECK_POOL = 512
#: Records of each tail (lowest, highest) kept from the pool; also the size of
#: the two tail databases (at most n).
_CHECK_TAILS = 8
#: Shares of high tail records in the mixed probe databases of the largest size.
_CHECK_MIXTURES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Largest number of tail records mixed into typical ones in the probe databases
#: of the largest size (0, 1, ..., this many): a threshold on a count of
#: outliers, at a level the typical records alone do not reach, is crossed.
_CHECK_OUTLIERS = 13
#: Relative tolerance of the additivity check (beyond the rounding of a float64 sum).
_CHECK_RTOL = 1e-6


def _part(spec: Spec, j: int) -> str:
    """`` part <key or position>`` of a structured output, ``""`` for an array."""
    if spec[0] == "array":
        return ""
    return f" part {spec[1][j] if spec[0] == 'dict' else j}"


def check_order(query, database, outputs, rng, reproduce, spec, shapes) -> None:
    r"""Refuse a query whose output depends on the order of the records.

    Evaluates ``query`` on three reorderings of the probe ``database`` (shape
    ``(1, n, *record_shape)``, records drawn from the population, with outputs
    ``outputs``): a cyclic shift by one position, which moves every record, the
    reversal, and a uniform random permutation drawn from ``rng``. A change of
    any output part by more than :data:`ORDER_RTOL` times that part's largest
    absolute output (reordering a float64 sum or mean changes it by far less)
    is refused, naming the query and the change; three evaluations of the
    query in all.

    It catches every query that reads the record at a fixed position (or a
    fixed range of positions), whenever the records there differ, and a query
    that is random. It cannot catch an order dependence that the population's
    typical records do not reach (a query reading record 0 only when it exceeds
    a far tail), nor one smaller than the tolerance; and it refuses an
    order-independent query whose round-off, reordered, exceeds the tolerance
    (a variance computed as a difference of large moments), which the user may
    then declare ``order_dependent=True``.
    """
    n = database.shape[1]
    if n < 2:
        return
    orders = [np.roll(np.arange(n), 1), np.arange(n)[::-1], rng.permutation(n)]
    names = ("shifted by one position", "reversed", "randomly permuted")
    for order, name in zip(orders, names):
        permuted = np.ascontiguousarray(database[:, order])
        where = f"probe database, {name}"
        _, moved = evaluate(query, permuted, None, where, reproduce, spec, shapes)
        for j, (before, after) in enumerate(zip(outputs, moved)):
            scale = max(np.max(np.abs(before)), np.max(np.abs(after)))
            change = np.max(np.abs(after - before))
            if change > ORDER_RTOL * scale:
                raise ValueError(
                    f"query {query.name!r} depends on the order of the records: "
                    f"a probe database of {n} records from the population, {name}, "
                    f"changed its output{_part(spec, j)} by {change:.6g} (largest "
                    f"output {scale:.6g}). Random DP averages over the position "
                    "of the differing record, so a query that reads records by "
                    "position can get sensitivity 0 and publish a record exactly "
                    "(or the query is random). Make the query order-independent, "
                    "or pass order_dependent=True to accept this, recorded in the "
                    f"run and its statements; {reproduce}."
                )


def check_sizes(query, database, spec, shapes, reproduce) -> None:
    """Refuse a query whose output differs in structure or shape between s - 1 and s records.

    Evaluates ``query`` once on the probe ``database`` (shape ``(1, s,
    *record_shape)``, s >= 2: n records on the full path, ``min(n, 1000)`` on
    the additive one) less its last record, and compares the structure and
    the shape of every part with ``spec`` and ``shapes``, those of the
    database itself. Add/remove pairs subtract the outputs of the two sizes,
    so a difference (a histogram with one bin per record, an output of
    length n) is refused, naming the query and both shapes.
    """
    size = database.shape[1]
    smaller = np.ascontiguousarray(database[:, :-1])
    where = f"probe database less one record, {size - 1} records"
    got_spec, leaves = evaluate(query, smaller, None, where, reproduce)
    got = tuple(leaf.shape[1:] for leaf in leaves)
    if got_spec != spec or got != tuple(shapes):
        raise ValueError(
            f"query {query.name!r} changes its output with the number of records: "
            f"{got_spec[0]} of shapes {got} on {size - 1} records, {spec[0]} of "
            f"shapes {tuple(shapes)} on {size}; neighbours='add-remove' subtracts "
            "the outputs of n - 1 and n records, so their shapes must agree; "
            f"{reproduce}."
        )


def _tails(pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The :data:`_CHECK_TAILS` lowest and highest records of ``pool``.

    Ranked by the sum of their coordinates (the value itself for scalar
    records), lowest first in ``low`` and highest last in ``high``.
    """
    order = np.argsort(pool.reshape(len(pool), -1).sum(axis=1), kind="stable")
    return pool[order[:_CHECK_TAILS]], pool[order[-_CHECK_TAILS:]]


def _probe_databases(dist, n, rng):
    """``(databases, replacements, positions)`` of the additivity check.

    The largest database is ``min(n, 1000)`` fresh records; then databases of
    ``min(n, s)`` records, s in :data:`_CHECK_SMALL`, drawn from a pool of
    population records; and the ``min(n, 8)`` lowest and the ``min(n, 8)``
    highest records of the pool; databases of ``min(n, 1000)`` tail
    records, a share :data:`_CHECK_MIXTURES` of them high and the rest low, in
    random order; and databases of ``min(n, 1000)`` records drawn from the
    pool, of which the first 0, 1, ..., :data:`_CHECK_OUTLIERS` (at most n0)
    are replaced by tail records, the most extreme first, alternately high and
    low, in random order. Each gets :data:`_CHECK_REPLACEMENTS` replacements at
    uniform positions: 3 low and 3 high tail records, 2 typical ones.
    """
    large = dist.sample_batch(1, min(n, _CHECK_RECORDS), rng)
    pool = dist.sample(_CHECK_POOL, rng)
    low, high = _tails(pool)
    size = min(n, _CHECK_TAILS)
    databases = [large]
    for small in sorted({min(n, s) for s in _CHECK_SMALL}):
        databases.append(pool[rng.integers(len(pool), size=small)][None])
    databases += [low[:size][None], high[-size:][None]]
    n0 = large.shape[1]
    for share in _CHECK_MIXTURES:  # from all low to all high tail records
        count = round(share * n0)
        mixed = np.concatenate(
            [
                high[rng.integers(len(high), size=count)],
                low[rng.integers(len(low), size=n0 - count)],
            ]
        )
        databases.append(mixed[rng.permutation(n0)][None])
    # The highest and the lowest of all records drawn, alternately: a count of
    # records beyond any level they pass is raised one record at a time.
    lowest, highest = _tails(np.concatenate([pool, large[0]]))
    extremes = np.concatenate([highest[-1:], lowest[:1]] * _CHECK_OUTLIERS)
    for count in range(min(_CHECK_OUTLIERS, n0) + 1):
        mixed = np.concatenate(
            [extremes[:count], pool[rng.integers(len(pool), size=n0 - count)]]
        )
        databases.append(mixed[rng.permutation(n0)][None])
    replacements, positions = [], []
    for database in databases:
        replacements.append(
            np.concatenate(
                [
                    low[rng.integers(len(low), size=3)],
                    high[rng.integers(len(high), size=3)],
                    pool[rng.integers(len(pool), size=_CHECK_REPLACEMENTS - 6)],
                ]
            )
        )
        positions.append(rng.integers(database.shape[1], size=_CHECK_REPLACEMENTS))
    return databases, replacements, positions


def probe_additive(query, dist, n, rng, reproduce):
    r"""Check an additive declaration; ``(spec, shapes, record_bytes, probe, outputs)``.

    ``probe`` (shape ``(1, n0, *record_shape)``, :math:`n_0 = \min(n, 1000)`)
    is the largest probe database and ``outputs`` its outputs, for
    :func:`check_order`.

    The declaration :math:`f(D) = a_s \sum_i g(d_i) + b` (:math:`a_s = 1` or
    :math:`1/s` for s records) is what the fast path uses at sizes 1 and n, so
    it is checked on databases of several sizes and compositions: ``n0`` fresh
    records; ``min(n, s)`` records for s = 2, 3, 5, 8, 13 (where one record
    moves a threshold on a count or a share); the 8 lowest and the 8 highest
    of 512 population records (ranked by the sum of their coordinates); and
    five databases of ``n0`` tail records, a share 0, 1/4, 1/2, 3/4 and 1 of
    them high and the rest low, in random order; and 14 databases of ``n0``
    records drawn from the pool, of which 0, 1, ..., 13 (at most n0) are
    replaced by copies of the highest and the lowest record of all those drawn
    (the pool and the ``n0`` fresh records), alternately, so that a threshold
    on a count of outliers is crossed one record at a time. Two consequences of the
    declaration are checked, each up to a relative 1e-6 and the rounding of a
    float64 sum of s records:

    * in each database, 8 records at uniform positions are replaced in turn
      (3 by low and 3 by high tail records, 2 by typical ones), and the change
      of f must equal :math:`(a_s / a_1)(f(\{x'\}) - f(\{x\}))`;
    * any two databases of ``n0`` records differ by
      :math:`(a_{n_0} / a_1) \sum_i (f(\{d_i\}) - f(\{d'_i\}))`: from all low
      to all high tail records, every threshold on a count of records beyond
      a level that the tails straddle is crossed.

    A false declaration is refused, naming the change and the prediction; 28
    evaluations of the query at most (27 databases, stacked with their
    replacements, and one stack of one-record databases), on about
    :math:`200 n_0` records in all (20 databases of ``n0`` records, each
    stacked with its 8 replacements, and their records one by one).

    Power (measured over seeds 0..9999 of the probe stream, n = 100, a
    standard normal population): ``mean + 5 [#(x > 0) >= 50]`` declared
    ``additive="mean"`` was refused on 10 000 of 10 000 seeds (the former
    check, one database of n0 records with 4 replacements, accepted it on 38
    of 40), and ``mean + 5 [#(x > 0) >= len(D)/2]`` on 10 000 of 10 000
    (both measured again with the outlier databases). At n = 101,
    ``mean + 5 [#(|x| > 2.58) >= 3]`` (a count of outliers, which typical
    records rarely reach and tail databases of 8 records rarely hold) was
    refused on 9 969 of 10 000 seeds, and through
    :func:`sensampler.sample_sensitivity` at gamma = 0.001 on 200 of 200
    seeds 0..199 (without the 14 outlier databases it was accepted on seeds
    1, 4, 9 and 16 of 0..19). It
    catches a wrong kind ("sum" for a mean, and the converse), a scale off by
    more than ~1e-6, interactions between records (a median, a variance, a
    clip at the database's own mean, a threshold on a count or a share) and
    outputs whose shape depends on n, whenever the probes move f. It cannot
    catch a non-additivity that no probe reaches: behaviour only beyond 1000
    records; only on records rarer than the 8 most extreme of 512 draws on
    either side (for a count of outliers: rarer than all records drawn, or
    a count more than 13 above what typical records hold), or in directions
    other than the sum of the coordinates; a jump at one exact count
    (``[#(x > 0) == 37]``) that no probe database hits; smaller than the
    tolerance; or in a random query. It may refuse a query computed in less
    than float64 precision.
    """
    kind = query.additive
    databases, replacements, positions = _probe_databases(dist, n, rng)
    which = "D u {x}"
    spec, shapes, outputs = None, None, []
    for database, fresh, position in zip(databases, replacements, positions):
        stack = np.repeat(database, 1 + len(fresh), axis=0)
        stack[1 + np.arange(len(fresh)), position] = fresh
        spec, whole = evaluate(query, stack, None, which, reproduce, spec, shapes)
        shapes = tuple(leaf.shape[1:] for leaf in whole)
        outputs.append(whole)
    records = np.concatenate(
        [part for pair in zip(databases, replacements) for part in (pair[0][0], pair[1])]
    )[:, None]
    label = f"one-record databases, for additive={kind!r}"
    _, single = evaluate(query, records, None, label, reproduce, spec, shapes)
    start, sums = 0, []
    for database, fresh, position, whole in zip(
        databases, replacements, positions, outputs
    ):
        size = database.shape[1]
        own = [s[start : start + size] for s in single]
        new = [s[start + size : start + size + len(fresh)] for s in single]
        start += size + len(fresh)
        scale = size if kind == "mean" else 1  # a_s / a_1 = 1 / scale
        sums.append([(o.sum(axis=0), np.abs(o).sum(axis=0)) for o in own])
        for j, (w, s_own, s_new) in enumerate(zip(whole, own, new)):
            # |fl(sum) - sum| <= s eps sum|terms| for a sum of s terms in any
            # order (Higham, Accuracy and Stability of Numerical Algorithms,
            # 2002, sec. 4.2).
            rounding = size * np.abs(s_own).sum(axis=0) / scale
            rounding = rounding + np.abs(w[0]) + np.abs(w[1:])
            replaced = f"replacing record {{}} of a probe database of {size} records"
            _refuse_unless(
                query, spec, j, w[1:] - w[0], (s_new - s_own[position]) / scale,
                rounding, replaced, position, reproduce,
            )
    # Any two databases of one size: f(D) - f(D') = a_s sum_i (g(d_i) - g(d'_i)).
    n0 = databases[0].shape[1]
    scale = n0 if kind == "mean" else 1
    for i in range(1, len(databases)):
        if databases[i].shape[1] != n0:
            continue
        for j, (first, other) in enumerate(zip(outputs[0], outputs[i])):
            (total0, abs0), (total, absolute) = sums[0][j], sums[i][j]
            rounding = n0 * (abs0 + absolute) / scale
            rounding = rounding + np.abs(first[0]) + np.abs(other[0])
            what = f"two probe databases of {n0} records (fresh and tail records)"
            _refuse_unless(
                query, spec, j, (other[0] - first[0])[None],
                ((total - total0) / scale)[None], rounding[None], what, None,
                reproduce,
            )
    large = databases[0]
    probe_outputs = [w[:1] for w in outputs[0]]
    record_bytes = large.itemsize * int(np.prod(large.shape[2:]))
    return spec, shapes, record_bytes, large, probe_outputs


def _refuse_unless(
    query, spec, j, actual, predicted, rounding, what, position, reproduce
) -> None:
    """Refuse when a change of f is not the additive prediction, beyond rounding.

    ``actual``, ``predicted`` and ``rounding`` have a leading axis of changes;
    ``what`` names them (with ``{}`` for the record replaced, at ``position``).
    """
    kind = query.additive
    eps = np.finfo(float).eps
    excess = np.abs(actual - predicted) - (
        _CHECK_RTOL * np.abs(predicted) + 8 * eps * rounding
    )
    if np.any(excess > 0):
        at = np.unravel_index(np.argmax(excess), excess.shape)
        coordinate = f" coordinate {at[1:]}" if len(at) > 1 else ""
        change = what.format(position[at[0]]) if position is not None else what
        verb = "changed its output" if position is not None else "differ in output"
        raise ValueError(
            f"query {query.name!r} is declared additive={kind!r} but is not: "
            f"{change} {verb}{_part(spec, j)}{coordinate} by "
            f"{actual[at]:.6g} where f(D) = "
            f"{'(1/n) ' if kind == 'mean' else ''}sum_i g(d_i) + b predicts "
            f"{predicted[at]:.6g}; {reproduce}. Correct the declaration, or "
            "remove it (the sampler then draws whole databases)."
        )


def probe_full(query, dist, n, rng, reproduce):
    """``(spec, shapes, record_bytes, probe, outputs)`` from one probe database of n
    records (``probe``, shape ``(1, n, *record_shape)``, and its outputs)."""
    check_database_fits(n, dist.record_shape)
    probe = dist.sample_batch(1, n, rng)
    spec, leaves = evaluate(query, probe, None, "D u {x}", reproduce)
    shapes = tuple(leaf.shape[1:] for leaf in leaves)
    return spec, shapes, probe.itemsize * int(np.prod(probe.shape[2:])), probe, leaves


def probe_trusted(query, dist, n, rng, reproduce):
    """``(spec, shapes, record_bytes, probe, outputs)`` from one one-record database.

    For the library's own additive queries (:func:`sensampler._sampling.trusted.is_trusted`),
    whose declaration holds by construction and whose output neither depends
    on the order of the records nor changes shape with their number: the
    structure and shapes of the output, from one record of the population,
    are all the sampler needs. ``n`` is not used (the signature is the other
    probes').
    """
    probe = dist.sample_batch(1, 1, rng)
    spec, leaves = evaluate(query, probe, None, "{x}", reproduce)
    shapes = tuple(leaf.shape[1:] for leaf in leaves)
    return spec, shapes, probe.itemsize * int(np.prod(probe.shape[2:])), probe, leaves


class Probed(NamedTuple):
    """What the probes tell of a query's output, and which path samples it."""

    fast: bool  # the additive path: no database drawn
    spec: Spec
    shapes: tuple[tuple[int, ...], ...]
    record_bytes: int

    def parts(self, per_coordinate: bool) -> int:
        """Order statistics released jointly: one per output, or per coordinate."""
        if per_coordinate:
            return sum(int(np.prod(shape)) for shape in self.shapes)
        return len(self.shapes)


def probe_query(
    query, dist, n: int, neighbours: str, rng, reproduce: str, *,
    order_rng=None, order_dependent: bool = False, trust: bool = True,
) -> Probed:
    """Every probe a sampling run makes before it draws a pair, in one place.

    The output's structure and shapes from a probe database (the additive path's
    probes check an additive declaration; the library's own additive queries
    need one record), then, unless the query is the library's own: under
    add/remove neighbours the output's shape at n - 1 and n records
    (:func:`check_sizes`), and the order of the records (:func:`check_order`,
    skipped when the run accepts an ``order_dependent`` query). The sampler,
    the command line's checks before work and the audit call it, so each
    refuses what a sampling run would.

    Parameters
    ----------
    query : Query
    dist : Distribution
    n : int
        Database size.
    neighbours : {"replace-one", "add-remove"}
    rng : numpy.random.Generator
        Draws the probe database.
    reproduce : str
        How to reproduce a refusal (quoted in its message).
    order_rng : numpy.random.Generator, optional
        Draws the order check's permutations (default: ``rng``).
    order_dependent : bool, optional
        The run accepts a query that depends on the order of the records.
    trust : bool, default True
        Whether the library's own additive queries skip the probes (the
        sampler); a check before work probes them too, which also refuses a
        population whose records overflow the query on a probe database.

    Returns
    -------
    Probed
    """
    add_remove = neighbours == "add-remove"
    # Under add/remove a mean's change depends on D: only sums skip D.
    fast = query.additive == "sum" or (query.additive == "mean" and not add_remove)
    # The library's own additive queries hold their declaration, ignore the
    # order of the records and keep their shape at any n by construction.
    trusted = trust and fast and is_trusted(query)
    probe = probe_trusted if trusted else probe_additive if fast else probe_full
    spec, shapes, record_bytes, database, outputs = probe(query, dist, n, rng, reproduce)
    if add_remove and not trusted:
        check_sizes(query, database, spec, shapes, reproduce)
    if not order_dependent and not trusted:
        order_rng = rng if order_rng is None else order_rng
        check_order(query, database, outputs, order_rng, reproduce, spec, shapes)
    return Probed(fast, spec, shapes, record_bytes)
