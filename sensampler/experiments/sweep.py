"""Error of private answers against epsilon, for one or more sensitivities.

Sensitivities are given as a mapping ``{label: value}``; a value is a number or
an array (a bound you vouch for), a :class:`~sensampler.SensitivityEstimate`
(random DP), or a :class:`TypicalValue` such as :func:`mean_plus_sd` gives
(the source documents' offsets: no guarantee at all).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import as_seed_sequence, check_array, check_count, check_real
from ..distributions import as_distribution
from ..mechanisms import LaplaceMechanism
from ..parallel import child_seed, run_tasks
from ..queries import as_query
from ..sampler import SensitivityEstimate
from .table import ResultTable

__all__ = [
    "error_vs_epsilon",
    "check_epsilons",
    "mean_plus_sd",
    "TypicalValue",
    "SD_DEFINITION",
    "STATISTICS",
]

#: Statistics of the error reported for every setting.
STATISTICS = ("mean", "std", "median", "q05", "q95")
#: The one meaning of "sd" in offsets such as "mean + 2 sd", stated on every figure.
SD_DEFINITION = (
    "sd = standard deviation of the m sampled sensitivities, not of the data"
)
#: Guarantee column of a typical value.
NO_GUARANTEE = "none (typical value)"


@dataclass(frozen=True, eq=False)
class TypicalValue:
    """A typical value of sampled sensitivities, e.g. mean + 2 sd: no random-DP guarantee.

    A mechanism calibrated with it is not random-DP: the sampled sensitivities
    exceed it with a probability nobody bounds. Sweeps label it so.

    Attributes
    ----------
    value : float or ndarray
        Per coordinate for an estimate with ``norm="coordinate"``.
    label : str
        ``"mean"`` or ``"mean + K sd"``.
    m : int
        Sampled sensitivities it summarises.
    """

    value: float | np.ndarray
    label: str
    m: int


def mean_plus_sd(estimate, k: float = 0.0):
    r"""The source documents' offsets: mean + k sd of the sampled sensitivities.

    sd is the standard deviation of the m sampled sensitivities
    :math:`G_1, \dots, G_m` (``ddof=0``; per coordinate for ``norm="coordinate"``),
    not the standard deviation of the data. Such values carry **no** random-DP
    guarantee (only ``estimate.sensitivity`` does); they show how the error
    grows with the sensitivity.

    Parameters
    ----------
    estimate : SensitivityEstimate, or a tuple or dict of them
        As :func:`sensampler.sample_sensitivity` returns.
    k : float, default 0
        Standard deviations above the mean, ``>= 0``; ``k = 0`` gives the mean.

    Returns
    -------
    TypicalValue, or a tuple or dict of them (the structure of ``estimate``)

    Examples
    --------
    >>> from sensampler import queries, sample_sensitivity
    >>> from sensampler.distributions import Normal
    >>> est = sample_sensitivity(queries.mean, Normal(), 10, gamma=0.1, random_state=0)
    >>> mean_plus_sd(est, 2).label
    'mean + 2 sd'
    """
    k = check_real("k", k, low=0.0)
    if isinstance(estimate, dict):
        return {key: mean_plus_sd(value, k) for key, value in estimate.items()}
    if isinstance(estimate, tuple):
        return tuple(mean_plus_sd(value, k) for value in estimate)
    if not isinstance(estimate, SensitivityEstimate):
        raise TypeError(
            f"estimate must be a SensitivityEstimate, got estimate={estimate!r}."
        )
    samples = np.asarray(estimate.samples, dtype=float)
    value = samples.mean(axis=0) + k * samples.std(axis=0)
    label = "mean" if k == 0 else f"mean + {k:g} sd"
    return TypicalValue(
        value if np.ndim(value) else float(value), label, int(samples.shape[0])
    )


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
    eps = check_array("epsilons", epsilons, ndim=1, positive=True)
    if eps.size == 0:
        raise ValueError("epsilons must not be empty, got an empty grid.")
    for e in eps:
        mechanism(1.0, float(e))
    return eps


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
    if isinstance(value, (tuple, dict)):
        keys = [
            str(k) for k in (value if isinstance(value, dict) else range(len(value)))
        ]
        if keys != names:
            raise ValueError(
                f"sensitivity {label!r} has parts {keys}, the query's output has "
                f"parts {names}."
            )
        return list(value.values()) if isinstance(value, dict) else list(value)
    return [value] * len(parts)


def _describe(label, value, shape):
    """(value for the mechanism, guarantee, value array) of one sensitivity."""
    if isinstance(value, SensitivityEstimate):
        given, guarantee = value, f"random DP, gamma={value.gamma:.3g}"
        number = value.sensitivity
    elif isinstance(value, TypicalValue):
        given = number = value.value
        guarantee = NO_GUARANTEE
    elif isinstance(value, (str, bytes)) or value is None:
        raise TypeError(
            f"sensitivity {label!r} must be a number, an array, a "
            f"SensitivityEstimate or a TypicalValue, got {value!r}; text such as "
            "'mean+2sd' is read by sensampler.experiments.specs.parse_sensitivities."
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


def _summary(errors):
    """The statistics of one column of errors."""
    return {
        "mean": errors.mean(),
        "std": errors.std(ddof=1) if errors.size > 1 else 0.0,
        "median": np.median(errors),
        "q05": np.quantile(errors, 0.05),
        "q95": np.quantile(errors, 0.95),
    }


def _error_cell(mechanism, truths, statistic, seed):
    """Release every repetition's answer; summarise the error in L2 norm and per
    coordinate (when the answer has more than one)."""
    rng = np.random.default_rng(seed)
    released = np.array(
        [mechanism.release(t, random_state=rng) for t in truths], dtype=float
    )
    if statistic is not None:
        released = np.array([statistic(r) for r in released], dtype=float)
        truths = np.array([statistic(t) for t in truths], dtype=float)
    diff = (released - truths).reshape(len(truths), -1)
    out = [_summary(np.sqrt(np.einsum("ij,ij->i", diff, diff)))]
    if diff.shape[1] > 1:
        out += [_summary(np.abs(diff[:, j])) for j in range(diff.shape[1])]
    return out


def error_vs_epsilon(
    query,
    data,
    n: int | None,
    epsilons,
    sensitivities: Mapping,
    *,
    mechanism: Callable = LaplaceMechanism,
    repetitions: int = 100,
    statistic: Callable | None = None,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> ResultTable:
    r"""Error of private answers over a grid of epsilons and sensitivities.

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
        :class:`~sensampler.SensitivityEstimate` (random DP; norm
        ``"coordinate"`` gives per-coordinate sensitivities), a
        :class:`TypicalValue` from :func:`mean_plus_sd` (no guarantee), or a
        tuple / dict of these matching a tuple / dict output.
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
    random_state, n_jobs, progress : as in :func:`sensampler.sample_sensitivity`
        Each setting has its own child seed, so the table is the same for any
        ``n_jobs``.

    Returns
    -------
    ResultTable
        One row per part, sensitivity, epsilon, error and statistic, with columns
        ``part`` ("" for a single output), ``sensitivity`` (label),
        ``guarantee`` ("random DP, gamma=…", "none (typical value)" or "as
        given"), ``sensitivity_value`` (the number used; per coordinate on
        coordinate rows, NaN on the L2 row of per-coordinate sensitivities),
        ``mechanism``, ``epsilon``, ``delta`` (NaN for a mechanism without one),
        ``repetitions``, ``error`` ("l2" of the whole answer, or "absolute" on a
        coordinate), ``coordinate`` (flat index, NaN on "l2" rows),
        ``statistic`` (one of :data:`STATISTICS`) and ``value``.

    Notes
    -----
    The table measures utility only. Releasing every part of a tuple output
    composes their privacy costs, and a :class:`TypicalValue` gives none.
    """
    query = as_query(query)
    eps = check_epsilons(mechanism, epsilons)
    repetitions = check_count("repetitions", repetitions)
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable, got statistic={statistic!r}.")
    if not isinstance(sensitivities, Mapping):
        raise TypeError(
            "sensitivities must be a mapping {label: number, array or estimate}, "
            f"got {sensitivities!r}."
        )
    if not sensitivities:
        raise ValueError("sensitivities must not be empty.")
    if isinstance(data, np.ndarray):
        if n is not None and check_count("n", n) != len(data):
            raise ValueError(f"n={n} differs from the database's {len(data)} rows.")
        databases = np.broadcast_to(data, (repetitions,) + data.shape)
        source = None
    else:
        source = as_distribution(data)
        n = check_count("n", n)
    root = as_seed_sequence(random_state)
    if source is not None:
        data_rng = np.random.default_rng(child_seed(root, 1))
        databases = source.sample_batch(repetitions, n, data_rng)
    parts = _parts(query.evaluate(databases))

    settings = []  # (part index, label, guarantee, sensitivity array, mechanism, eps)
    for label, value in sensitivities.items():
        label = str(label)
        for p, part_value in enumerate(_per_part(label, value, parts)):
            given, guarantee, number = _describe(
                label, part_value, parts[p][1].shape[1:]
            )
            for e in eps:
                mech = mechanism(given, float(e))
                settings.append((p, label, guarantee, number, mech, float(e)))
    tasks = [
        (mech, parts[p][1], statistic, child_seed(root, 2 + c))
        for c, (p, _, _, _, mech, _) in enumerate(settings)
    ]
    results = run_tasks(
        _error_cell,
        tasks,
        n_jobs=n_jobs,
        progress=progress,
        desc="sweep",
        unit="setting",
    )
    rows = []
    for (p, label, guarantee, number, mech, e), stats in zip(settings, results):
        flat = number.reshape(-1)
        base = {
            "part": parts[p][0],
            "sensitivity": label,
            "guarantee": guarantee,
        }
        common = {
            "mechanism": getattr(mech, "name", type(mech).__name__),
            "epsilon": e,
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
                        "error": "l2" if j == 0 else "absolute",
                        "coordinate": coordinate,
                        "statistic": name,
                        "value": float(summary[name]),
                    }
                )
    return ResultTable(rows)
