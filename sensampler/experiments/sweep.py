"""Error of private answers against epsilon, for one or more sensitivities."""

from __future__ import annotations

import re

import numpy as np

from .._validation import (
    as_seed_sequence,
    check_array,
    check_choice,
    check_count,
    check_real,
)
from ..distributions import Distribution, as_distribution
from ..mechanisms import GaussianMechanism, LaplaceMechanism
from ..parallel import child_seed, run_tasks
from ..queries import as_query
from ..sampler import SensitivityEstimate, sample_sensitivity
from .table import ResultTable

__all__ = ["error_vs_epsilon", "make_mechanism", "MECHANISMS", "STATISTICS"]

#: Mechanisms a sweep can use: name -> (norm of the sampled sensitivity, needs delta).
MECHANISMS = {
    "laplace": ("l1", False),
    "gaussian": ("l2", True),
    "analytic": ("l2", True),
}
#: Statistics of the absolute error reported for every setting.
STATISTICS = ("mean", "std", "median", "q05", "q95")
_OFFSET = re.compile(r"^mean\s*\+\s*([0-9.]+)\s*sd$")


def make_mechanism(name, sensitivity, epsilon, delta=None):
    """Build a mechanism by name: ``"laplace"``, ``"gaussian"`` (classic) or ``"analytic"``."""
    check_choice("mechanism", name, tuple(MECHANISMS))
    if name == "laplace":
        return LaplaceMechanism(sensitivity, epsilon)
    if delta is None:
        raise ValueError(f"mechanism={name!r} needs delta.")
    return GaussianMechanism(
        sensitivity,
        epsilon,
        delta,
        variant="classic" if name == "gaussian" else "analytic",
    )


def _resolve(sensitivities, sample):
    """(label, sensitivity) pairs; ``sample()`` gives the estimate when a label needs it."""
    out, estimate = [], None
    for item in sensitivities:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            label, value = item
            out.append(
                (
                    label,
                    value
                    if isinstance(value, SensitivityEstimate)
                    else check_real("sensitivities", value, low=0.0),
                )
            )
        elif isinstance(item, SensitivityEstimate):
            out.append((f"sampled (gamma={item.gamma:.3g})", item))
        elif isinstance(item, str):
            estimate = estimate or sample()
            key = item.strip().lower()
            if key == "sampled":
                out.append((f"sampled (gamma={estimate.gamma:.3g})", estimate))
            elif key == "mean":
                out.append(("E[Δf]", float(estimate.mean)))
            elif _OFFSET.match(key):
                k = float(_OFFSET.match(key).group(1))
                value = float(estimate.mean) + k * float(estimate.samples.std())
                out.append((f"E[Δf] + {k:g}σ", value))
            else:
                raise ValueError(
                    "sensitivities must be numbers, estimates, 'sampled', "
                    f"'mean' or 'mean+Ksd', got {item!r}."
                )
        else:
            value = check_real("sensitivities", item, low=0.0)
            out.append((f"{value:g}", value))
    return out


def _error_cell(mechanism, sensitivity, epsilon, delta, truths, statistic, seed):
    mech = make_mechanism(mechanism, sensitivity, epsilon, delta)
    rng = np.random.default_rng(seed)
    released = mech.release(truths, random_state=rng)
    if statistic is not None:
        released = np.array([statistic(r) for r in released], dtype=float)
        truths = np.array([statistic(t) for t in truths], dtype=float)
    diff = np.asarray(released - truths, dtype=float).reshape(len(truths), -1)
    errors = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return {
        "mean": errors.mean(),
        "std": errors.std(ddof=1) if errors.size > 1 else 0.0,
        "median": np.median(errors),
        "q05": np.quantile(errors, 0.05),
        "q95": np.quantile(errors, 0.95),
    }


def error_vs_epsilon(
    query,
    distribution,
    n: int,
    epsilons,
    sensitivities=("sampled",),
    *,
    mechanism: str = "laplace",
    delta: float | None = None,
    repetitions: int = 100,
    data=None,
    statistic=None,
    gamma: float = 0.05,
    bound: str = "exact",
    random_state=None,
    n_jobs=None,
    progress: bool = False,
) -> ResultTable:
    r"""Absolute error of private answers over a grid of epsilon and sensitivities.

    For every repetition a private database is drawn (from ``data`` if it is a
    population, else ``data`` itself, else ``distribution``), the query answered,
    and the answer released through the mechanism calibrated with each
    sensitivity at each epsilon; the absolute error (Euclidean for vector
    answers, after ``statistic`` if given) is summarised.

    Parameters
    ----------
    query : callable or Query
    distribution : population model
        Population of the sampled sensitivity (and of the data by default).
    n : int
        Database size.
    epsilons : array-like of float > 0
    sensitivities : sequence
        Numbers, :class:`SensitivityEstimate` objects, ``(label, value)`` pairs,
        ``"sampled"`` (the order
        statistic, sampled once at ``gamma``), ``"mean"`` (E[Δf], no guarantee)
        or ``"mean+Ksd"`` (E[Δf] plus K standard deviations of the sampled
        sensitivities), as in the heights example.
    mechanism : {"laplace", "gaussian", "analytic"}
    delta : float, optional
        Needed by the Gaussian mechanisms.
    repetitions : int
        Private databases (and releases) per setting.
    data : Distribution or array, optional
        The private data: a population to draw each repetition's database from,
        or one fixed database.
    statistic : callable, optional
        Post-processing applied to answer and release before measuring the
        error (e.g. ``np.mean`` of per-record releases).
    gamma, bound : as in :func:`sample_sensitivity`
    random_state, n_jobs, progress : as in :func:`sample_sensitivity`
        The grid runs in parallel; each cell has its own child seed, so the table
        is the same for any ``n_jobs``. Every cell sees the same databases.

    Returns
    -------
    ResultTable
        Columns ``sensitivity, sensitivity_value, mechanism, epsilon, delta,
        repetitions, statistic, value``: one row per setting and statistic.
    """
    query = as_query(query)
    dist = as_distribution(distribution)
    n = check_count("n", n)
    eps = check_array("epsilons", epsilons, ndim=1, positive=True)
    check_choice("mechanism", mechanism, tuple(MECHANISMS))
    norm, needs_delta = MECHANISMS[mechanism]
    if needs_delta:
        if delta is None:
            raise ValueError(f"mechanism={mechanism!r} needs delta.")
        delta = check_real(
            "delta", delta, low=0.0, high=1.0, low_strict=True, high_strict=True
        )
        if mechanism == "gaussian" and eps.max() >= 1:
            raise ValueError(
                "the classic Gaussian needs every epsilon < 1, got max "
                f"epsilon={eps.max()!r}; use mechanism='analytic'."
            )
    repetitions = check_count("repetitions", repetitions)
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable, got {statistic!r}.")
    root = as_seed_sequence(random_state)
    resolved = _resolve(
        list(sensitivities),
        lambda: sample_sensitivity(
            query,
            dist,
            n,
            gamma=gamma,
            norm=norm,
            bound=bound,
            random_state=child_seed(root, 0),
            n_jobs=n_jobs,
        ),
    )
    if not resolved:
        raise ValueError("sensitivities must not be empty.")

    data_rng = np.random.default_rng(child_seed(root, 1))
    if data is None or isinstance(data, Distribution):
        source = dist if data is None else data
        databases = source.sample_batch(repetitions, n, data_rng)
    else:
        database = np.asarray(data)
        databases = np.broadcast_to(database, (repetitions,) + database.shape)
    truths = np.asarray(query.evaluate(databases), dtype=float)

    cells = [(i, j) for i in range(len(resolved)) for j in range(eps.size)]
    tasks = [
        (
            mechanism,
            resolved[i][1],
            float(eps[j]),
            delta,
            truths,
            statistic,
            child_seed(root, 2 + c),
        )
        for c, (i, j) in enumerate(cells)
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
    for (i, j), stats in zip(cells, results):
        label, sens = resolved[i]
        value = sens.sensitivity if isinstance(sens, SensitivityEstimate) else sens
        for name in STATISTICS:
            rows.append(
                {
                    "sensitivity": label,
                    "sensitivity_value": float(value),
                    "mechanism": mechanism,
                    "epsilon": float(eps[j]),
                    "delta": "" if delta is None else delta,
                    "repetitions": repetitions,
                    "statistic": name,
                    "value": float(stats[name]),
                }
            )
    return ResultTable(rows)
