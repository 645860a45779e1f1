"""Error of a mechanism against epsilon at given sensitivities: a study of
sensitivities (the sampler's, typical values, bounds you vouch for), not of a
release. What a release publishes, with its bounds, clipping, worst-case cap and
quantile mechanism, is swept by :func:`~sensampler.app.experiments.error_vs_epsilon`.

Sensitivities are given as a mapping ``{label: value}``; a value is a number or
an array (a bound you vouch for), a :class:`~sensampler.SensitivityEstimate` or
its ``sensitivity`` (random DP), or a typical value such as
``estimate.typical(2)`` (the source documents' offsets, mean + 2 sd: no
guarantee at all).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np

from ..._lib import printing
from ..._lib.memory import check_fits, record_bytes_of, sweep_bytes
from ..._lib.validation import (
    as_seed_sequence,
    check_array,
    check_count,
    check_flag,
    check_real,
)
from ...distributions import as_distribution
from ...estimate import SensitivityEstimate, SensitivityEstimates, SensitivityValue
from ...mechanisms import LaplaceMechanism
from ...parallel import child_seed, effective_workers, run_tasks
from ...queries import as_query
from ...table import ResultTable

__all__ = [
    "sensitivity_sweep",
    "check_epsilon_grid",
    "check_epsilons",
    "check_databases_fit",
    "probe_answer",
    "answer_size",
    "SD_DEFINITION",
    "STATISTICS",
]

#: Statistics of the error reported for every setting.
STATISTICS = ("mean", "std", "median", "q05", "q95")
#: The one meaning of "sd" in offsets such as "mean + 2 sd"
#: (:meth:`~sensampler.SensitivityEstimate.typical`), stated on every figure.
SD_DEFINITION = (
    "sd = standard deviation of the m sampled sensitivities (ddof=0), not of the data"
)
#: Child seed of the probe database whose answer sizes the sweep's memory (cells
#: use children 2, 3, ...).
_PROBE_CHILD = 2**32 - 1
#: Guarantee column of a value without one (typical or derived).
NO_GUARANTEE = "none (typical value)"


def check_epsilon_grid(epsilons) -> np.ndarray:
    """The epsilon grid of a sweep as a 1-d array: not empty, every epsilon > 0."""
    eps = check_array("epsilons", epsilons, ndim=1, positive=True)
    if eps.size == 0:
        raise ValueError("epsilons must not be empty, got an empty grid.")
    return eps


def check_epsilons(mechanism, epsilons) -> np.ndarray:
    """The epsilon grid as an array, checked against ``mechanism`` at sensitivity 1.

    Raises before anything is sampled or drawn: an empty grid, a non-positive
    epsilon, or one the mechanism refuses (the classic Gaussian at epsilon >= 1).
    """
    if not callable(mechanism):
        raise TypeError(
            "mechanism must be a mechanism class or a callable (sensitivity, "
            f"epsilon) -> mechanism, got mechanism={mechanism!r}."
        )
    eps = check_epsilon_grid(epsilons)
    for e in eps:
        mechanism(1.0, float(e))
    return eps


def check_databases_fit(
    record_shape,
    n: int,
    repetitions: int,
    *,
    answer_size: int = 0,
    settings: int = 0,
    n_jobs: int | None = None,
) -> None:
    """Refuse, before drawing, a sweep whose peak would not fit in physical memory.

    The peak is :func:`sensampler._lib.memory.sweep_bytes`: ``repetitions``
    databases of ``n`` records of shape ``record_shape`` (five times over: the
    draws and the temporaries of the population and the query), the answers of
    ``answer_size`` numbers each, and the result rows of ``settings``
    combinations of sensitivity, epsilon and part.
    """
    workers = effective_workers(n_jobs)
    answers = f", answers of {answer_size} numbers" if answer_size else ""
    rows = f", {settings} settings" if settings else ""
    check_fits(
        f"repetitions={repetitions} databases of n={n} records{answers}{rows}",
        sweep_bytes(
            repetitions,
            n,
            record_bytes_of(record_shape),
            answer_size,
            settings,
            workers=workers,
        ),
        "use a smaller n, fewer repetitions or fewer settings",
    )


def probe_answer(query, data, n, rng) -> list:
    """The parts ``[(label, answer)]`` of the query on one database: ``data`` itself
    (an ndarray) or ``n`` records drawn from the population ``data`` with ``rng``."""
    query = as_query(query)
    if isinstance(data, np.ndarray):
        return _parts(query.evaluate(data[None]))
    return _parts(query.evaluate(as_distribution(data).sample_batch(1, n, rng)))


def answer_size(parts) -> int:
    """Numbers in one answer made of ``parts`` (from :func:`probe_answer`)."""
    return sum(int(np.prod(answer.shape[1:])) for _, answer in parts)


def _parts(truths):
    """(label, array) per part of a query output: one part for a plain array."""
    if isinstance(truths, dict):
        return [(str(key), np.asarray(v, dtype=float)) for key, v in truths.items()]
    if isinstance(truths, tuple):
        return [(str(i), np.asarray(v, dtype=float)) for i, v in enumerate(truths)]
    return [("", np.asarray(truths, dtype=float))]


def _per_part(label, value, parts):
    """One sensitivity per part: a tuple/dict value must match the output."""
    names = [name for name, _ in parts]
    if isinstance(value, SensitivityEstimates):
        keys, values = zip(*value.items())
    elif isinstance(value, dict):
        keys, values = tuple(value), tuple(value.values())
    elif isinstance(value, tuple):
        keys, values = tuple(range(len(value))), value
    else:
        return [value] * len(parts)
    keys = [str(key) for key in keys]
    if keys != names:
        raise ValueError(
            f"sensitivity {label!r} has parts {keys}, the query's output has "
            f"parts {names}."
        )
    return list(values)


def _describe(label, value, shape):
    """(value for the mechanism, guarantee, value array) of one sensitivity."""
    if isinstance(value, SensitivityEstimate):
        value = value.sensitivity
    if isinstance(value, SensitivityValue):
        given, number = value, np.asarray(value.value)
        guarantee = (
            f"random DP, gamma={printing.gamma(value.gamma)}"
            if value.source == "sampled"
            else NO_GUARANTEE.replace("typical", value.source)
        )
    elif isinstance(value, (str, bytes)) or value is None:
        raise TypeError(
            f"sensitivity {label!r} must be a number, an array, a "
            f"SensitivityEstimate or a SensitivityValue, got {value!r}; text such "
            "as 'mean+2sd' is read by sensampler.app.specs"
            ".parse_sensitivities."
        )
    else:
        name = f"sensitivities[{label!r}]"
        given = number = (
            check_real(name, value, low=0.0)
            if np.ndim(value) == 0
            else check_array(name, value, nonnegative=True)
        )
        guarantee = "as given"
    number = np.asarray(number, dtype=float)
    if number.ndim and number.shape != shape:
        raise ValueError(
            f"sensitivity {label!r} has per-coordinate shape {number.shape}, the "
            f"query's output has shape {shape}."
        )
    return given, guarantee, number


def _power_of_two(values):
    """The power of two at or above ``max(values)`` (1 for zeros): dividing by it is
    exact, and keeps squares and sums of huge errors (epsilon = 1e-300) finite."""
    top = np.max(values, axis=-1, keepdims=True, initial=0.0)
    return np.ldexp(1.0, np.frexp(np.where(top > 0, top, 1.0))[1])


def error_statistics(errors):
    """The statistics of one column of errors, computed on errors scaled by a power
    of two so that huge errors give finite statistics without overflow."""
    scale = float(_power_of_two(errors)[0])
    scaled = errors / scale
    return {
        "mean": scaled.mean() * scale,
        "std": (scaled.std(ddof=1) if errors.size > 1 else 0.0) * scale,
        "median": np.median(scaled) * scale,
        "q05": np.quantile(scaled, 0.05) * scale,
        "q95": np.quantile(scaled, 0.95) * scale,
    }


def _error_cell(mechanism, truths, statistic, seed, setting, score=None):
    """Release every repetition's answer; summarise the error in L2 norm and per
    coordinate (when the answer has more than one), or the score of the releases."""
    rng = np.random.default_rng(seed)
    # Overflowing noise is refused below, with the setting named.
    with np.errstate(over="ignore", invalid="ignore"):
        released = np.array(
            [mechanism.release(t, random_state=rng) for t in truths], dtype=float
        )
        if score is not None:
            scores = np.array([score(r) for r in released], dtype=float)
            if not np.all(np.isfinite(scores)):
                raise ValueError(
                    f"the scores of the releases for {setting} are not finite "
                    "float64 numbers; use larger epsilons or smaller sensitivities."
                )
            return [error_statistics(scores)]
        if statistic is not None:
            released = np.array([statistic(r) for r in released], dtype=float)
            truths = np.array([statistic(t) for t in truths], dtype=float)
        diff = (released - truths).reshape(len(truths), -1)
    if not np.all(np.isfinite(diff)):
        raise ValueError(
            f"the releases for {setting} are not finite float64 numbers (the noise "
            "overflows): their error cannot be measured; use larger epsilons or "
            "smaller sensitivities."
        )
    scale = _power_of_two(np.abs(diff))
    diff = diff / scale
    out = [error_statistics(np.sqrt(np.einsum("ij,ij->i", diff, diff)) * scale[:, 0])]
    if diff.shape[1] > 1:
        out += [
            error_statistics(np.abs(diff[:, j] * scale[:, 0])) for j in range(diff.shape[1])
        ]
    return out


def sensitivity_sweep(
    query,
    data,
    n: int | None,
    epsilons,
    sensitivities: Mapping,
    *,
    mechanism: Callable = LaplaceMechanism,
    repetitions: int = 100,
    statistic: Callable | None = None,
    score: Callable | None = None,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> ResultTable:
    r"""Error of a mechanism over a grid of epsilons and given sensitivities.

    For studies of the sensitivities themselves (the sampler's, typical values,
    bounds you vouch for): no bounds, no clipping, no worst-case cap, one
    mechanism for every query. What a release publishes is swept by
    :func:`~sensampler.app.experiments.error_vs_epsilon`.

    For every repetition a private database is drawn (or ``data`` itself is
    used), the query answered, and the answer released through ``mechanism``
    calibrated with each sensitivity at each epsilon. The error is measured as
    the Euclidean (L2) norm of released minus true answer (the absolute error of
    a scalar) and, for vector answers, per coordinate.

    Parameters
    ----------
    query : callable or Query
        A scalar, a vector (histogram, quantiles, estimator coefficients) or a
        tuple / dict of them: each part of a tuple / dict is swept on its own,
        labelled in the ``part`` column.
    data : population or ndarray
        A population (anything :func:`sensampler.distributions.as_distribution`
        accepts, e.g. ``Empirical(records)`` to bootstrap) to draw each
        repetition's database of ``n`` records from, or an ndarray: one fixed
        database used in every repetition.
    n : int or None
        Database size; ``None`` (or the database's length) with a fixed database.
    epsilons : array-like of float > 0
        Not empty.
    sensitivities : mapping {label: value}
        A value is a number or array (per coordinate; a bound you vouch for), a
        :class:`~sensampler.SensitivityEstimate` or its ``sensitivity`` (random
        DP; norm ``"coordinate"`` gives per-coordinate sensitivities), a typical
        value such as ``estimate.typical(2)`` (mean + 2 sd, where
        :data:`SD_DEFINITION`; no guarantee), or for a tuple / dict output the
        :class:`~sensampler.SensitivityEstimates` or a tuple / dict of values
        matching the output's parts.
    mechanism : class or callable, default LaplaceMechanism
        ``mechanism(sensitivity, epsilon)`` returns a mechanism with
        ``release(value, random_state=...)``, e.g.
        ``functools.partial(GaussianMechanism, delta=1e-6, variant="analytic")``.
        Every setting is built (and so checked) before anything is drawn.
    repetitions : int, default 100
        Private databases (and releases) per setting; every setting sees the
        same databases.
    statistic : callable, optional
        Post-processing applied to answer and release before measuring the
        error (e.g. ``np.mean`` of per-record releases).
    score : callable, optional
        ``score(released) -> float`` measures each release instead of its
        distance to the true answer, e.g. the test error of released model
        coefficients (:meth:`~sensampler.app.experiments.DatasetSplit.score`);
        its ``__name__`` fills the ``error`` column, with no per-coordinate
        rows. Not with ``statistic``, nor with a tuple / dict output.
    random_state, n_jobs, progress : as in :func:`sensampler.sample_sensitivity`
        Each setting has its own child seed, so the table is the same for any
        ``n_jobs``.

    Returns
    -------
    ResultTable
        One row per part, sensitivity, epsilon, error and statistic, with columns
        ``part`` ("" for a single output), ``sensitivity`` (label),
        ``guarantee`` ("random DP, gamma=…", "none (typical value)", "none
        (derived value)" or "as given"), ``sensitivity_value`` (the number used; per coordinate on
        coordinate rows, NaN on the L2 row of per-coordinate sensitivities),
        ``mechanism``, ``epsilon``, ``delta`` (NaN for a mechanism without one),
        ``repetitions``, ``error`` ("l2" of the whole answer, "absolute" on a
        coordinate, or the name of ``score``), ``coordinate`` (flat index, NaN on "l2" rows),
        ``statistic`` (one of :data:`STATISTICS`) and ``value``.

    Notes
    -----
    The table measures utility only. Releasing every part of a tuple output
    composes their privacy costs, and a typical value gives none.

    Before the repetitions are drawn, the query answers one probe database
    (from its own child seed), and a sweep whose measured peak
    (:func:`sensampler._lib.memory.sweep_bytes`: the databases five times over,
    the answers, the result rows) exceeds physical memory is refused with
    ``ValueError`` naming the sizes.
    """
    query = as_query(query)
    eps, repetitions = _check_options(
        mechanism, epsilons, sensitivities, repetitions, statistic, score
    )
    source, n, record_shape = _check_data(data, n, repetitions)
    progress = check_flag("progress", progress)
    root = as_seed_sequence(random_state)
    probe = _probe(query, data if source is None else source, n, root, score)
    settings = _plan_settings(sensitivities, eps, mechanism, probe)
    check_databases_fit(
        record_shape,
        n,
        repetitions,
        answer_size=answer_size(probe),
        settings=len(settings),
        n_jobs=n_jobs,
    )
    parts = _draw_answers(query, data, source, n, repetitions, root)
    results = _release_all(settings, parts, statistic, score, root, n_jobs, progress)
    return _assemble_table(settings, results, parts, repetitions, score)


class _Setting(NamedTuple):
    """One cell of the sweep: a part of the answer, a sensitivity, an epsilon."""

    part: int
    label: str
    guarantee: str
    number: np.ndarray
    mechanism: object
    epsilon: float


def _check_options(mechanism, epsilons, sensitivities, repetitions, statistic, score):
    """Validate the arguments that do not depend on the data; returns the epsilon
    grid and the number of repetitions."""
    eps = check_epsilons(mechanism, epsilons)
    repetitions = check_count("repetitions", repetitions)
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable, got statistic={statistic!r}.")
    if score is not None and not callable(score):
        raise TypeError(f"score must be callable, got score={score!r}.")
    if score is not None and statistic is not None:
        raise ValueError(
            "score and statistic are exclusive: a score measures the release "
            f"itself, got score={score!r} and statistic={statistic!r}."
        )
    if not isinstance(sensitivities, Mapping):
        raise TypeError(
            "sensitivities must be a mapping {label: number, array or estimate}, "
            f"got {sensitivities!r}."
        )
    if not sensitivities:
        raise ValueError("sensitivities must not be empty.")
    return eps, repetitions


def _check_data(data, n, repetitions):
    """Validate ``data`` and ``n`` and refuse databases beyond physical memory;
    returns the population (None for a fixed database), ``n`` and the record
    shape."""
    if isinstance(data, np.ndarray):
        if n is not None and check_count("n", n) != len(data):
            raise ValueError(f"n={n} differs from the database's {len(data)} rows.")
        source, n, record_shape = None, len(data), data.shape[1:]
    else:
        source = as_distribution(data)
        n = check_count("n", n)
        record_shape = source.record_shape
    check_databases_fit(record_shape, n, repetitions)
    return source, n, record_shape


def _probe(query, data, n, root, score):
    """The parts of one probe answer (from its own child seed), which size the
    answers and the settings before the repetitions are drawn."""
    probe_rng = np.random.default_rng(child_seed(root, _PROBE_CHILD))
    probe = probe_answer(query, data, n, probe_rng)
    if score is not None and len(probe) > 1:
        raise ValueError(
            f"score needs a query with one output, got the parts "
            f"{[name for name, _ in probe]}."
        )
    return probe


def _plan_settings(sensitivities, eps, mechanism, parts):
    """Every (part, sensitivity, epsilon) setting with its mechanism, each built
    (and so checked) before anything is drawn."""
    settings = []
    for label, value in sensitivities.items():
        label = str(label)
        for p, part_value in enumerate(_per_part(label, value, parts)):
            given, guarantee, number = _describe(
                label, part_value, parts[p][1].shape[1:]
            )
            for e in eps:
                mech = mechanism(given, float(e))
                settings.append(_Setting(p, label, guarantee, number, mech, float(e)))
    return settings


def _draw_answers(query, data, source, n, repetitions, root):
    """The parts of the true answers on every repetition's database: ``data``
    itself, or ``n`` records drawn from ``source`` (child seed 1)."""
    if source is None:
        databases = np.broadcast_to(data, (repetitions,) + data.shape)
    else:
        data_rng = np.random.default_rng(child_seed(root, 1))
        databases = source.sample_batch(repetitions, n, data_rng)
    return _parts(query.evaluate(databases))


def _release_all(settings, parts, statistic, score, root, n_jobs, progress):
    """The error statistics of every setting (:func:`_error_cell`), each from its
    own child seed (2, 3, ... in the order of ``settings``), so the same for any
    ``n_jobs``."""
    tasks = [
        (
            s.mechanism,
            parts[s.part][1],
            statistic,
            child_seed(root, 2 + c),
            f"epsilon={s.epsilon!r}, sensitivity {s.label!r}",
            score,
        )
        for c, s in enumerate(settings)
    ]
    return run_tasks(
        _error_cell,
        tasks,
        n_jobs=n_jobs,
        progress=progress,
        desc="sweep",
        unit="setting",
    )


def _assemble_table(settings, results, parts, repetitions, score):
    """One row per setting, error (L2 and per coordinate, or the score) and
    statistic."""
    error_names = (
        ("l2", "absolute") if score is None else (getattr(score, "__name__", "score"),)
    )
    rows = []
    for setting, stats in zip(settings, results):
        mech, number = setting.mechanism, setting.number
        flat = number.reshape(-1)
        base = {
            "part": parts[setting.part][0],
            "sensitivity": setting.label,
            "guarantee": setting.guarantee,
        }
        common = {
            "mechanism": getattr(mech, "name", type(mech).__name__),
            "epsilon": setting.epsilon,
            "delta": float(getattr(mech, "delta", math.nan)),
            "repetitions": repetitions,
        }
        for j, summary in enumerate(stats):
            coordinate = math.nan if j == 0 else j - 1
            if flat.size == 1 and number.ndim == 0:
                value = float(flat[0])
            elif j > 0 and flat.size == len(stats) - 1:
                value = float(flat[j - 1])
            else:
                value = math.nan
            for name in STATISTICS:
                rows.append(
                    {
                        **base,
                        "sensitivity_value": value,
                        **common,
                        "error": error_names[min(j, 1)],
                        "coordinate": coordinate,
                        "statistic": name,
                        "value": float(summary[name]),
                    }
                )
    return ResultTable(rows)
