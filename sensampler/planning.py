r"""Plan a release from a target error, before any private data are read.

:func:`plan_release` answers "what epsilon do I need for an error of 0.1 cm?"
(and the reverse, "what error will epsilon = 0.5 give?") from the population
model alone. It draws ``runs`` independent sampling runs of the query's
sensitivity on databases of ``n`` records from the population, exactly as
:func:`sensampler.release.release_statistic` would draw one, and computes the
error of the noise the mechanism would add with each of them.

**What "error" means here.** The error is the noise only: :math:`|M(D) - f(D)|`,
the distance between the private release and the exact answer on the same
data. It is not the distance to a population parameter (the sampling error of
``f(D)`` itself is the same with or without privacy). For a vector query it is
the error of each coordinate.

**It accounts for nothing.** The plan reads no private record and releases
nothing: it spends no epsilon, no delta and no gamma, and records nothing in any
budget. The sampling runs it draws are its own; the release draws a fresh one.
This holds only if the population is public: a bootstrap of the private file
itself (``bootstrap:private.csv``) would read private records without spending,
as it would in the release.

Mechanisms enter as a parameter: a :class:`NoiseModel` states the law of the
absolute noise of a mechanism calibrated with a sensitivity, and
:data:`NOISE_MODELS` holds the ones the release uses today (Laplace and the
analytic Gaussian). A mechanism whose error does not scale with a sensitivity
(the exponential mechanism for quantiles) plugs in through the same two
methods, :meth:`NoiseModel.mean_error` and :meth:`NoiseModel.error_sf`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, special

from ._domains import DELTA_RELEASE, EPSILON
from ._html import plan_html
from ._validation import (
    as_seed_sequence,
    check_count,
    check_n_jobs,
    check_probability,
    check_real,
)
from .distributions import as_distribution
from .experiments.specs import parse_query
from .mechanisms import GaussianMechanism
from .parallel import child_seed
from .plan import sampling_plan
from .release import RELEASE_MECHANISMS, load_population
from .sampler import MAX_N, sample_sensitivity

__all__ = [
    "ACCOUNTS_FOR_NOTHING",
    "ERROR_MEANING",
    "NOISE_MODELS",
    "NoiseModel",
    "PreparedPlan",
    "ReleasePlan",
    "plan_release",
    "prepare_plan",
]

#: The plan's promise, in words, printed with every plan.
ACCOUNTS_FOR_NOTHING = (
    "planned from the population model alone: no private record was read, "
    "nothing was spent or recorded in any budget"
)

#: What the error is, in words.
ERROR_MEANING = "error = |release - exact answer on the same data| (the noise only)"


@dataclass(frozen=True)
class NoiseModel:
    r"""The absolute noise of a mechanism calibrated with a sensitivity.

    The mechanism adds :math:`\Delta \, s(\epsilon, \delta) \, Z` to the answer,
    where :math:`\Delta` is the sensitivity, ``unit_scale`` gives
    :math:`s(\epsilon, \delta)` and :math:`Z` is a fixed unit noise.

    Parameters
    ----------
    name : str
        The mechanism's name, as :func:`~sensampler.release.release_statistic`
        takes it.
    unit_scale : callable
        ``(epsilon, delta) -> s``, the noise scale for a sensitivity of 1.
    unit_mean : float
        :math:`E|Z|`.
    unit_sf : callable
        ``t -> P[|Z| > t]`` for an array ``t >= 0``.
    needs_delta : bool
        Whether the mechanism takes ``delta > 0`` (else ``delta = 0``).
    """

    name: str
    unit_scale: Callable[[float, float], float]
    unit_mean: float
    unit_sf: Callable[[np.ndarray], np.ndarray]
    needs_delta: bool

    def mean_error(self, epsilon: float, delta: float, sensitivities) -> float:
        r"""Expected absolute error over the sampling runs' sensitivities.

        :math:`E|M(D) - f(D)| = s(\epsilon, \delta) \, E|Z| \, \overline{\Delta}`,
        the mean over runs of each run's expected absolute noise.

        Parameters
        ----------
        epsilon, delta : float
            The release's privacy parameters.
        sensitivities : array-like of float
            One sampled sensitivity per run, equally likely.

        Returns
        -------
        float
        """
        scale = self.unit_scale(epsilon, delta)
        return float(np.mean(sensitivities)) * scale * self.unit_mean

    def error_sf(self, t: float, epsilon: float, delta: float, sensitivities) -> float:
        """``P[|error| > t]``, the runs' sensitivities equally likely.

        Parameters
        ----------
        t : float
            The error, ``>= 0``.
        epsilon, delta : float
            The release's privacy parameters.
        sensitivities : array-like of float
            One sampled sensitivity per run, equally likely.

        Returns
        -------
        float
        """
        scales = np.asarray(sensitivities, dtype=float) * self.unit_scale(
            epsilon, delta
        )
        safe = np.where(scales > 0.0, scales, 1.0)
        return float(np.mean(np.where(scales > 0.0, self.unit_sf(t / safe), 0.0)))


def _laplace_scale(epsilon: float, delta: float) -> float:
    return 1.0 / epsilon  # b = Delta / epsilon (Dwork & Roth 2014, Thm. 3.6)


def _gaussian_scale(epsilon: float, delta: float) -> float:
    # Balle & Wang (2018), Thm. 8, as the release calibrates it.
    return GaussianMechanism(1.0, epsilon, delta).sigma


#: The noise models of the mechanisms a release uses today, by name.
NOISE_MODELS = {
    # |Laplace(0, 1)| is Exponential(1): E|Z| = 1, P[|Z| > t] = exp(-t).
    "laplace": NoiseModel(
        "laplace", _laplace_scale, 1.0, lambda t: np.exp(-np.asarray(t)), False
    ),
    # |N(0, 1)|: E|Z| = sqrt(2 / pi), P[|Z| > t] = 2 P[Z > t] = erfc(t / sqrt 2).
    "gaussian": NoiseModel(
        "gaussian",
        _gaussian_scale,
        math.sqrt(2.0 / math.pi),
        lambda t: special.erfc(np.asarray(t) / math.sqrt(2.0)),
        True,
    ),
}


@dataclass(frozen=True)
class ReleasePlan:
    """A release planned from the population model: its epsilon and its error.

    Built by :func:`plan_release`; it accounts for nothing (see the module).

    Parameters
    ----------
    query : str
        The query's name.
    population : str
        The population model, in words.
    n : int
        Records of the data to be released.
    mechanism : str
        The mechanism's name.
    epsilon, delta : float
        The epsilon (and delta) of the release.
    gamma : float
        The sampling plan's certified gamma.
    m, k : int
        The sampling plan: pairs sampled and the rank of the released sensitivity.
    bound : str
        The sampling plan's bound.
    sensitivity : float
        Mean over the runs of the sampled sensitivity G_(k).
    sensitivities : tuple of float
        Each run's sampled sensitivity.
    expected_error : float
        Expected absolute error (the noise only).
    error_90 : float
        90th percentile of the absolute error.
    target_error : float or None
        The target, when the plan was solved for one.
    measure : str or float
        What the target fixes: ``"mean"`` (the expected error) or a quantile of
        the absolute error.
    runs : int
        Sampling runs drawn from the population model.
    """

    query: str
    population: str
    n: int
    mechanism: str
    epsilon: float
    delta: float
    gamma: float
    m: int
    k: int
    bound: str
    sensitivity: float
    sensitivities: tuple[float, ...] = field(repr=False)
    expected_error: float
    error_90: float
    target_error: float | None
    measure: str | float
    runs: int

    @property
    def note(self) -> str:
        """What the plan did and did not touch, in words."""
        return ACCOUNTS_FOR_NOTHING

    def to_dict(self) -> dict[str, Any]:
        """The plan in plain numbers and strings (JSON-friendly).

        Returns
        -------
        dict
            Every field but the per-run sensitivities, the error's meaning and
            :attr:`note`.
        """
        out = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if name != "sensitivities"
        }
        out["error"] = ERROR_MEANING
        out["note"] = self.note
        return out

    def text(self) -> str:
        """The plan for people, several lines.

        Returns
        -------
        str
        """
        dp = f"epsilon={self.epsilon:.6g}" + (
            f", delta={self.delta:.3g}" if self.delta else ""
        )
        target = (
            ""
            if self.target_error is None
            else f" (target {_measure_words(self.measure)} {self.target_error:.6g})"
        )
        return "\n".join(
            [
                f"{self.query} of n={self.n} records, population {self.population}",
                f"  mechanism       {self.mechanism}, {dp}{target}",
                f"  expected error  {self.expected_error:.6g}",
                f"  90% of errors   <= {self.error_90:.6g}",
                f"  sampling plan   m={self.m}, k={self.k}, gamma={self.gamma:.4g} "
                f"({self.bound})",
                f"  sensitivity     {self.sensitivity:.6g} (mean over {self.runs} "
                "sampling runs)",
                f"  {ERROR_MEANING}",
                f"  {self.note}",
            ]
        )

    def __str__(self):
        return self.text()

    def _repr_html_(self) -> str:
        return plan_html(self)


def _measure_words(measure) -> str:
    return "expected error" if measure == "mean" else f"{100 * measure:g}% error"


def _error_quantile(model, q, epsilon, delta, sensitivities) -> float:
    """The ``q``-quantile of the absolute error: root of ``sf(t) = 1 - q``."""
    if not np.any(np.asarray(sensitivities) > 0.0):
        return 0.0
    hi = model.mean_error(epsilon, delta, np.max(sensitivities)) or 1.0
    while model.error_sf(hi, epsilon, delta, sensitivities) > 1.0 - q:
        hi *= 2.0
    return optimize.brentq(
        lambda t: model.error_sf(t, epsilon, delta, sensitivities) - (1.0 - q),
        0.0,
        hi,
        xtol=1e-14,
        rtol=1e-12,
    )


def _error(model, measure, epsilon, delta, sensitivities) -> float:
    if measure == "mean":
        return model.mean_error(epsilon, delta, sensitivities)
    return _error_quantile(model, measure, epsilon, delta, sensitivities)


def _epsilon_for(model, measure, target, delta, sensitivities) -> float:
    """The epsilon whose error (``measure``) is ``target``: the error decreases
    in epsilon, so a root finder on log epsilon brackets it."""
    low, high = math.log(EPSILON_RANGE[0]), math.log(EPSILON_RANGE[1])

    def gap(log_eps):
        error = _error(model, measure, math.exp(log_eps), delta, sensitivities)
        return math.log(error) - math.log(target)

    if gap(high) > 0.0 or gap(low) < 0.0:
        raise ValueError(
            f"target_error={target!r} needs an epsilon outside "
            f"[{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}] for this query and "
            "population; choose another target."
        )
    return math.exp(optimize.brentq(gap, low, high, xtol=1e-13, rtol=1e-13))


#: The epsilons a plan may return.
EPSILON_RANGE = (1e-6, 1e6)


def _check_measure(measure):
    if measure == "mean":
        return measure
    if isinstance(measure, str):
        raise ValueError(
            f"measure must be 'mean' or a probability in (0, 1), got measure={measure!r}."
        )
    return check_probability("measure", measure)


def _check_mechanism(mechanism, delta):
    if isinstance(mechanism, NoiseModel):
        model = mechanism
    elif isinstance(mechanism, str) and mechanism in NOISE_MODELS:
        model = NOISE_MODELS[mechanism]
    else:
        names = ", ".join(repr(name) for name in NOISE_MODELS)
        raise ValueError(
            f"mechanism must be one of {names} or a NoiseModel, got "
            f"mechanism={mechanism!r}."
        )
    delta = DELTA_RELEASE.check("delta", delta)
    if model.needs_delta and delta == 0.0:
        raise ValueError(f"mechanism={model.name!r} needs delta > 0, got delta=0.0.")
    if not model.needs_delta and delta != 0.0:
        raise ValueError(
            f"mechanism={model.name!r} is pure epsilon-DP and takes no delta, got "
            f"delta={delta!r}."
        )
    return model, delta


def _population(population, column):
    name = population if isinstance(population, str) else repr(population)
    if isinstance(population, str):
        population = load_population(population, column=column)
    return as_distribution(population), name


def plan_release(
    query,
    population,
    n: int,
    *,
    target_error: float | None = None,
    epsilon: float | None = None,
    delta: float = 0.0,
    gamma: float = 0.05,
    mechanism: str | NoiseModel = "laplace",
    measure: str | float = "mean",
    bound: str = "exact",
    column: str | None = None,
    runs: int = 200,
    random_state=None,
    n_jobs: int | None = None,
) -> ReleasePlan:
    r"""The epsilon a target error needs, or the error an epsilon gives.

    From the population model alone: ``runs`` sampling runs of the query's
    sensitivity on ``n`` records drawn from ``population`` (as
    :func:`~sensampler.release.release_statistic` draws one), and the law of
    the mechanism's noise with each. It reads no private data and accounts for
    nothing: nothing is spent, released or recorded.

    Parameters
    ----------
    query : str, Query or callable
        The query, as :func:`~sensampler.release.release_statistic` takes it.
    population : Distribution or str
        The population model (or its spec, see
        :func:`~sensampler.release.load_population`).
    n : int
        Records of the data to be released, ``1 <= n <= MAX_N``.
    target_error : float, optional
        The error wanted, ``> 0``; the plan returns the epsilon that gives it.
    epsilon : float, optional
        The epsilon of the release, ``> 0``; the plan returns its error. Give
        exactly one of ``target_error`` and ``epsilon``.
    delta : float, default 0
        The release's delta (``> 0`` for ``"gaussian"`` only).
    gamma : float, default 0.05
        Random-DP failure probability of the sampling plan.
    mechanism : {"laplace", "gaussian"} or NoiseModel, default "laplace"
        The mechanism the release will use.
    measure : "mean" or float, default "mean"
        What ``target_error`` fixes: the expected absolute error, or the
        ``measure``-quantile of the absolute error (``0.9``: 90% of releases
        are closer).
    bound : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's bound.
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    runs : int, default 200
        Sampling runs drawn from the population model.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (run i uses child i).
    n_jobs : int, optional
        Workers of the sampler.

    Returns
    -------
    ReleasePlan
        ``.epsilon``, ``.expected_error``, ``.error_90``, the sampling plan
        (``.m``, ``.k``, ``.gamma``) and the mechanism.

    Notes
    -----
    The error is the noise only, :math:`|M(D) - f(D)|`. A mechanism adding
    :math:`\Delta\,s(\epsilon,\delta)\,Z` has, over the runs' sensitivities
    :math:`\Delta_1, \dots, \Delta_R`, the expected error
    :math:`s(\epsilon,\delta)\,E|Z|\,\frac1R\sum_r \Delta_r` and the tail
    :math:`P[|\mathrm{error}| > t] = \frac1R \sum_r P[|Z| > t / (\Delta_r
    s(\epsilon, \delta))]`. For Laplace, :math:`s = 1/\epsilon` and
    :math:`|Z| \sim \mathrm{Exp}(1)` (Dwork & Roth 2014, Thm. 3.6), so the
    epsilon of a target expected error :math:`e` is :math:`\bar\Delta / e`.
    The sampled sensitivity :math:`G_{(k)}` varies from run to run, which is why
    the plan averages over runs rather than reading one.

    Examples
    --------
    >>> from sensampler.distributions import GaussianMixture
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> plan = plan_release("mean", heights, 500, target_error=0.1, random_state=0)
    >>> round(plan.expected_error, 6)
    0.1
    >>> plan.m, plan.k
    (113, 113)
    """
    return prepare_plan(
        query,
        population,
        n,
        target_error=target_error,
        epsilon=epsilon,
        delta=delta,
        gamma=gamma,
        mechanism=mechanism,
        measure=measure,
        bound=bound,
        column=column,
        runs=runs,
        random_state=random_state,
        n_jobs=n_jobs,
    ).run()


@dataclass(frozen=True)
class PreparedPlan:
    """A release plan whose inputs are all checked; :meth:`run` draws and solves.

    Built by :func:`prepare_plan`; nothing has been drawn yet.

    Parameters
    ----------
    query : Query or callable
        The query, parsed.
    name : str
        Its name.
    population : Distribution
        The population model, loaded.
    population_name : str
        The population model, in words.
    n : int
        Records of the data to be released.
    model : NoiseModel
        The mechanism's noise.
    target_error, epsilon : float or None
        One of them is given (see :func:`plan_release`).
    delta, gamma : float
        The release's delta and the sampling plan's gamma.
    measure : str or float
        What ``target_error`` fixes.
    bound : str
        The sampling plan's bound.
    runs : int
        Sampling runs to draw.
    root : numpy.random.SeedSequence
        Seeds the sampling runs (run i uses child i).
    n_jobs : int or None
        Workers of the sampler.
    """

    query: Any
    name: str
    population: Any
    population_name: str
    n: int
    model: NoiseModel
    target_error: float | None
    epsilon: float | None
    delta: float
    gamma: float
    measure: str | float
    bound: str
    runs: int
    root: np.random.SeedSequence
    n_jobs: int | None

    def run(self) -> ReleasePlan:
        """Draw the sampling runs and solve for epsilon (or the error).

        Returns
        -------
        ReleasePlan
        """
        model = self.model
        norm = RELEASE_MECHANISMS.get(model.name, "l1")
        sensitivities = tuple(
            float(
                np.max(
                    sample_sensitivity(
                        self.query,
                        self.population,
                        self.n,
                        gamma=self.gamma,
                        norm=norm,
                        bound=self.bound,
                        random_state=child_seed(self.root, i),
                        n_jobs=self.n_jobs,
                    ).sensitivity.value
                )
            )
            for i in range(self.runs)
        )
        if not any(s > 0.0 for s in sensitivities):
            raise ValueError(
                f"every sampled sensitivity of {self.name} on the population is 0: "
                "its noise would be 0 at any epsilon, so no error can be planned."
            )
        epsilon, delta = self.epsilon, self.delta
        if self.target_error is not None:
            epsilon = _epsilon_for(
                model, self.measure, self.target_error, delta, sensitivities
            )
        plan = sampling_plan(gamma=self.gamma, bound=self.bound)
        return ReleasePlan(
            query=self.name,
            population=self.population_name,
            n=self.n,
            mechanism=model.name,
            epsilon=float(epsilon),
            delta=delta,
            gamma=plan.gamma,
            m=plan.m,
            k=plan.k,
            bound=plan.bound,
            sensitivity=float(np.mean(sensitivities)),
            sensitivities=sensitivities,
            expected_error=model.mean_error(epsilon, delta, sensitivities),
            error_90=_error_quantile(model, 0.9, epsilon, delta, sensitivities),
            target_error=self.target_error,
            measure=self.measure,
            runs=self.runs,
        )


def prepare_plan(
    query,
    population,
    n: int,
    *,
    target_error: float | None = None,
    epsilon: float | None = None,
    delta: float = 0.0,
    gamma: float = 0.05,
    mechanism: str | NoiseModel = "laplace",
    measure: str | float = "mean",
    bound: str = "exact",
    column: str | None = None,
    runs: int = 200,
    random_state=None,
    n_jobs: int | None = None,
) -> PreparedPlan:
    """Check every input of :func:`plan_release` and load the population; draw nothing.

    Parameters
    ----------
    query : str, Query or callable
        The query, as :func:`~sensampler.release.release_statistic` takes it.
    population : Distribution or str
        The population model (or its spec, see
        :func:`~sensampler.release.load_population`).
    n : int
        Records of the data to be released, ``1 <= n <= MAX_N``.
    target_error : float, optional
        The error wanted, ``> 0``; the plan returns the epsilon that gives it.
    epsilon : float, optional
        The epsilon of the release, ``> 0``; the plan returns its error. Give
        exactly one of ``target_error`` and ``epsilon``.
    delta : float, default 0
        The release's delta (``> 0`` for ``"gaussian"`` only).
    gamma : float, default 0.05
        Random-DP failure probability of the sampling plan.
    mechanism : {"laplace", "gaussian"} or NoiseModel, default "laplace"
        The mechanism the release will use.
    measure : "mean" or float, default "mean"
        What ``target_error`` fixes: the expected absolute error, or the
        ``measure``-quantile of the absolute error (``0.9``: 90% of releases
        are closer).
    bound : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's bound.
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    runs : int, default 200
        Sampling runs drawn from the population model.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (run i uses child i).
    n_jobs : int, optional
        Workers of the sampler.

    Returns
    -------
    PreparedPlan
        ``.run()`` gives the :class:`ReleasePlan`.
    """
    model, delta = _check_mechanism(mechanism, delta)
    if (target_error is None) == (epsilon is None):
        raise ValueError(
            "give exactly one of target_error and epsilon, got "
            f"target_error={target_error!r}, epsilon={epsilon!r}."
        )
    if target_error is not None:
        target_error = check_real(
            "target_error", target_error, low=0.0, low_strict=True
        )
    else:
        epsilon = EPSILON.check("epsilon", epsilon)
        model.unit_scale(epsilon, delta)  # the calibration itself, checked
    measure = _check_measure(measure)
    n = check_count("n", n)
    if n > MAX_N:
        raise ValueError(f"n must be <= MAX_N={MAX_N}, got n={n}.")
    runs = check_count("runs", runs)
    check_n_jobs(n_jobs)
    sampling_plan(gamma=gamma, bound=bound)
    name = (
        query.strip()
        if isinstance(query, str)
        else getattr(query, "name", getattr(query, "__name__", "query"))
    )
    if isinstance(query, str):
        query = parse_query(query)
    population, population_name = _population(population, column)
    return PreparedPlan(
        query=query,
        name=str(name),
        population=population,
        population_name=population_name,
        n=n,
        model=model,
        target_error=target_error,
        epsilon=epsilon,
        delta=delta,
        gamma=gamma,
        measure=measure,
        bound=bound,
        runs=runs,
        root=as_seed_sequence(random_state),
        n_jobs=n_jobs,
    )
