"""Planning a release: its inputs checked (:func:`prepare_plan`), then solved."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..._lib.validation import (
    as_seed_sequence,
    check_count,
    check_n_jobs,
    check_real,
)
from ...bounds import Bounds, worst_case_sensitivity
from ...distributions import Empirical, PublicSample, as_distribution
from ...mechanisms._base import check_noise_scale, check_worst_case_epsilon, drawable
from ...mechanisms.accuracy import (
    NOISE_MODELS,
    NoiseModel,
    QuantileErrorModel,
    check_measure,
)
from ...mechanisms.choice import build_mechanism, quantile_level_of
from ...parallel import child_seed
from ...quantile_calibration import SampledLosses
from ...queries import as_query
from ...sampler import MAX_N, check_neighbours
from ...settings import BoundsSetting, ReleaseSettings, parse_bounds
from ..release import load_population, sampling_run
from ..release._units import (
    least_error_cap,
    person_population,
    person_queries,
    totals_quantile,
)
from ..specs import parse_query
from ._release_plan import ReleasePlan

__all__ = ["EPSILON_RANGE", "PreparedPlan", "plan_release", "prepare_plan"]

#: The epsilons a plan may return.
EPSILON_RANGE = (1e-6, 1e6)

#: The bounds a plan takes, in words (it reads no private data).
PUBLIC_BOUNDS = (
    "'auto', 'none', 'LOW:HIGH' (low < high, both finite), a (low, high) pair or "
    "None (a plan reads no private data)"
)


def plan_release(
    query,
    population,
    n: int,
    settings: ReleaseSettings | None = None,
    *,
    target_error: float | None = None,
    measure: str | float = "mean",
    noise_model: NoiseModel | None = None,
    column: str | None = None,
    runs: int = 200,
    random_state=None,
    n_jobs: int | None = None,
    **options,
) -> ReleasePlan:
    r"""The epsilon a target error needs, or the error an epsilon gives.

    From the population model alone: ``runs`` sampling runs of the query's
    sensitivity on ``n`` records drawn from ``population`` (as
    :func:`~sensampler.app.release.release_statistic` draws one), and the law of
    the mechanism's noise with each. It reads no private data and accounts for
    nothing: nothing is spent, released or recorded.

    Parameters
    ----------
    query : str, Query or callable
        The query, as :func:`~sensampler.app.release.release_statistic` takes it.
    population : Distribution, array or str
        The population model (or its spec, see
        :func:`~sensampler.app.release.load_population`; public records as an
        array are a :class:`~sensampler.distributions.PublicSample`, as the
        release reads them).
    n : int
        Records of the data to be released, ``1 <= n <= MAX_N``.
    settings : ReleaseSettings, optional
        The release's settings (:class:`~sensampler.settings.ReleaseSettings`),
        as :func:`~sensampler.app.release.release_statistic` takes them;
        ``**options`` changes them. Their ``epsilon`` is the release's (the
        plan returns its error), or None (the plan finds the epsilon of
        ``target_error``). Their bounds must be public: a plan reads no
        private data. The plan follows them as the release does (see the
        module): the runs clip to the bounds and draw the relation's pairs,
        the noise has the worst-case floor of the cap, a quantile over bounds
        is planned with the exponential mechanism.
    target_error : float, optional
        The error wanted, ``> 0``; the plan returns the epsilon that gives it.
        Give exactly one of ``target_error`` and the settings' ``epsilon``.
    measure : "mean" or float, default "mean"
        What ``target_error`` fixes: the expected absolute error, or the
        ``measure``-quantile of the absolute error (``0.9``: 90% of releases
        are closer).
    noise_model : NoiseModel, optional
        The noise of a mechanism of one's own, in place of the settings'
        ``mechanism`` (:data:`~sensampler.mechanisms.accuracy.NOISE_MODELS`
        holds the release's: ``"laplace"`` and ``"gaussian"``); it takes the
        settings' delta.
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    runs : int, default 200
        Sampling runs drawn from the population model (for a quantile query:
        databases of ``n`` records, on which the error's law is exact).
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (run i uses child i, as the release's query i).
    n_jobs : int, optional
        Workers of the sampler.
    **options
        Fields of :class:`~sensampler.settings.ReleaseSettings` (``epsilon``,
        ``delta``, ``gamma``, ``mechanism``, ``bounds``, ``worst_case_epsilon``,
        ``neighbours``, ``inequality``), applied to ``settings``.

    Returns
    -------
    ReleasePlan
        ``.epsilon``, ``.expected_error``, ``.error_90``, the sampling plan
        (``.m``, ``.k``, ``.gamma``), the bounds, the worst case, the
        mechanism and a ``.warning`` where the release would hardly be private.

    Notes
    -----
    The error is the noise only, :math:`|M(D) - f(D)|`, whose law over the
    runs' sensitivities (each raised to the worst-case floor, :func:`_floored`)
    is :class:`~sensampler.mechanisms.accuracy.NoiseModel`'s. For Laplace,
    :math:`s = 1/\epsilon` and :math:`|Z| \sim \mathrm{Exp}(1)` (Dwork & Roth
    2014, Thm. 3.6), so the epsilon of a target expected error :math:`e` is
    :math:`\bar\Delta / e`. The sampled sensitivity :math:`G_{(k)}` varies from
    run to run, which is why the plan averages over runs rather than reading one.

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
        query, population, n, settings, target_error=target_error, measure=measure,
        noise_model=noise_model, column=column, runs=runs,
        random_state=random_state, n_jobs=n_jobs, **options,
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
    settings : ReleaseSettings
        The release's settings (``epsilon`` None where ``target_error`` is given).
    model : NoiseModel
        The mechanism's noise.
    target_error : float or None
        The target (see :func:`plan_release`).
    measure : str or float
        What ``target_error`` fixes.
    runs : int
        Sampling runs to draw.
    root : numpy.random.SeedSequence
        Seeds the sampling runs (run i uses child i).
    n_jobs : int or None
        Workers of the sampler.
    level : float or None
        The quantile level of a query the release answers by the exponential
        mechanism (:func:`~sensampler.mechanisms.choice.quantile_level_of`, over
        bounds), else None.
    bounds : Bounds or None
        The release's public bounds (the records are clipped to them; the
        exponential mechanism's range), or None.
    person_query : str, PersonQuery or None
        A person-level plan for a target error: the query as given, to plan at
        the cap L the release chooses at the epsilon found
        (:func:`~sensampler.app.release._units.least_error_cap`); else None.
    """

    query: Any
    name: str
    population: Any
    population_name: str
    n: int
    settings: ReleaseSettings
    model: NoiseModel
    target_error: float | None
    measure: str | float
    runs: int
    root: np.random.SeedSequence
    n_jobs: int | None
    level: float | None = None
    bounds: Bounds | None = None
    person_query: Any = None


    def _plan(self, **fields) -> ReleasePlan:
        """The :class:`ReleasePlan` of this plan's inputs with the solved ``fields``."""
        b = self.bounds
        return ReleasePlan(
            query=self.name, population=self.population_name, n=self.n,
            target_error=self.target_error, measure=self.measure, runs=self.runs,
            bounds=None if b is None else (b.low, b.high),
            bounds_source=None if b is None else b.describe(self.settings.unit),
            neighbours=self.settings.neighbours, unit=self.settings.unit,
            privacy_unit="record" if self.settings.privacy_unit is None else "person",
            **fields,
        )

    def run(self) -> ReleasePlan:
        """Draw the sampling runs (or databases) and solve for epsilon (or the error).

        Returns
        -------
        ReleasePlan
        """
        if self.person_query is not None:
            return self._run_at_chosen_cap()
        if self.level is not None:
            return self._run_quantile()
        model, delta, cap = self.model, self.settings.delta, self.settings.worst_case_epsilon
        estimates = [
            sampling_run(self, self.query, self.n, self.settings.norm, self.bounds, i)
            for i in range(self.runs)
        ]
        sensitivities = tuple(
            float(np.max(estimate.sensitivity.value)) for estimate in estimates
        )
        # the same for every run: the query, the bounds and n fix it
        worst = estimates[0].worst_case
        if not any(s > 0.0 for s in sensitivities) and not worst:
            raise ValueError(
                f"every sampled sensitivity of {self.name} on the population is 0: "
                "its noise would be 0 at any epsilon, so no error can be planned."
            )

        def floored(eps):
            return _floored(model, eps, delta, sensitivities, worst, cap)

        def error(eps):
            values = floored(eps)
            if not drawable(_scales(model, eps, delta, values)):
                return math.inf  # the release refuses it: no target is met there
            return model.error(self.measure, eps, delta, values)

        epsilon = self.settings.epsilon
        if self.target_error is not None:
            epsilon = _epsilon_for(
                error, self.target_error, None if worst is None else cap
            )
        values = floored(epsilon)
        check_noise_scale(  # refused, as the release refuses it
            _scales(model, epsilon, delta, values),
            f"the sampled sensitivities (up to {max(sensitivities)!r}), "
            f"epsilon={epsilon!r}",
        )
        errors = (
            model.mean_error(epsilon, delta, values),
            model.error_quantile(0.9, epsilon, delta, values),
        )
        if not all(math.isfinite(value) for value in errors):
            raise ValueError(
                f"the error at epsilon={epsilon!r} overflows a double (a noise scale "
                f"of {float(np.max(values)) * model.unit_scale(epsilon, delta):.3g}): "
                "narrow the bounds or raise epsilon."
            )
        plan = self.settings.plan
        return self._plan(
            mechanism=model.name, epsilon=float(epsilon), delta=delta,
            gamma=plan.gamma, m=plan.m, k=plan.k, inequality=plan.inequality,
            sensitivity=float(np.mean(sensitivities)), sensitivities=sensitivities,
            expected_error=errors[0], error_90=errors[1],
            **self._worst_case(estimates, epsilon),
            basis=_basis(self.population, plan),
        )

    def _run_at_chosen_cap(self) -> ReleasePlan:
        """A person-level plan for a target error, at the cap L the release
        chooses at the epsilon planned
        (:func:`~sensampler.app.release._units.least_error_cap`).

        L depends on epsilon and the epsilon planned on L: the plan starts at
        the model's own cap, then plans again at the L chosen at the epsilon
        found, until that L is the one planned at (a fixed point: the plan
        is the release's at its epsilon). The caps are whole numbers at most
        the model's, so the rounds end; a choice that returns to a cap already
        planned at (a cycle, no fixed point) is refused."""
        text, model = self.person_query, self.population
        plan, tried = replace(self, person_query=None), []
        while True:
            result = plan.run()
            cap = plan.population.record_shape[0]
            tried.append(cap)
            at = replace(self.settings, epsilon=result.epsilon)
            chosen = least_error_cap(model, [text], self.n, at)
            if chosen.record_shape[0] == cap:
                return result
            if chosen.record_shape[0] in tried:
                raise ValueError(
                    f"the cap the release chooses at the epsilon planned for "
                    f"target_error={self.target_error!r} cycles through the caps "
                    f"{tried}: give the model of a person a cap."
                )
            (query,), _ = person_queries([text], chosen.record_shape[0],
                                         self.settings.neighbours)
            plan = replace(plan, query=query, population=chosen)

    def _worst_case(self, estimates, epsilon: float) -> dict[str, float | None]:
        """``worst_case_epsilon`` and ``worst_case_cap`` of the plan at ``epsilon``.

        The worst case the release of each run states: its mechanism built as
        the release builds it (:func:`~sensampler.mechanisms.choice.build_mechanism`),
        the largest over the runs. A noise model of one's own has no release
        to build: the cap, which holds every run's worst case, stands for it."""
        if estimates[0].worst_case is None:
            return {"worst_case_epsilon": None, "worst_case_cap": None}
        s = self.settings
        cap = check_worst_case_epsilon(s.worst_case_epsilon, epsilon)
        if self.model is not NOISE_MODELS.get(s.mechanism):
            return {"worst_case_epsilon": cap, "worst_case_cap": cap}
        stated = max(
            build_mechanism(
                s.mechanism, estimate, epsilon, s.delta, None, 1, s.worst_case_epsilon
            )[1].worst_case.epsilon
            for estimate in estimates
        )
        return {"worst_case_epsilon": stated, "worst_case_cap": cap}

    def _run_quantile(self) -> ReleasePlan:
        """The plan of a quantile query: the exponential mechanism's exact error
        law on databases drawn from the population (:class:`QuantileErrorModel`)."""
        s, bounds = self.settings, (self.bounds.low, self.bounds.high)
        losses = SampledLosses(
            self.level, bounds, self.population, self.n, gamma=s.gamma,
            inequality=s.inequality, neighbours=s.neighbours,
            random_state=child_seed(self.root, self.runs),  # apart from the databases
        )
        model = QuantileErrorModel.draw(
            self.query, self.level, bounds, self.population, self.n,
            self.runs, self.root, s.neighbours, losses, s.worst_case_epsilon,
        )
        epsilon = s.epsilon
        if self.target_error is not None:
            epsilon = _epsilon_for(
                lambda eps: model.error(self.measure, eps),
                self.target_error,
                s.worst_case_epsilon,
            )
        calibration = model.mechanism(epsilon).calibration
        run = None if calibration is None else calibration.run
        return self._plan(
            mechanism="exponential", epsilon=float(epsilon), delta=0.0,
            gamma=None if run is None else run.gamma,
            m=None if run is None else run.m,
            k=None if run is None else run.k,
            inequality=None if run is None else run.inequality,
            sensitivity=None, sensitivities=(),
            worst_case_epsilon=model.largest_worst_case(epsilon),
            expected_error=model.mean_error(epsilon),
            error_90=model.error_quantile(0.9, epsilon),
            basis=""
            if calibration is None or not isinstance(self.population, PublicSample)
            else calibration.population,
        )


def prepare_plan(
    query,
    population,
    n: int,
    settings: ReleaseSettings | None = None,
    *,
    target_error: float | None = None,
    measure: str | float = "mean",
    noise_model: NoiseModel | None = None,
    column: str | None = None,
    runs: int = 200,
    random_state=None,
    n_jobs: int | None = None,
    **options,
) -> PreparedPlan:
    """Check every input of :func:`plan_release` and load the population; draw nothing.

    Parameters
    ----------
    query, population, n, settings, target_error, measure, noise_model, column, \
runs, random_state, n_jobs, **options
        As in :func:`plan_release`.

    Returns
    -------
    PreparedPlan
        ``.run()`` gives the :class:`ReleasePlan`.
    """
    if "bounds" in options:  # the plan's own words: it takes public bounds only
        options["bounds"] = _public_bounds(options["bounds"])
    settings = ReleaseSettings.build(settings, **options)
    _public_bounds(settings.bounds)
    model = _noise_model(settings, noise_model)
    if (target_error is None) == (settings.epsilon is None):
        raise ValueError(
            "give exactly one of target_error and epsilon, got "
            f"target_error={target_error!r}, epsilon={settings.epsilon!r}."
        )
    if target_error is not None:
        target_error = check_real(
            "target_error", target_error, low=0.0, low_strict=True
        )
    else:
        model.unit_scale(settings.epsilon, settings.delta)  # the calibration, checked
    measure = check_measure(measure)
    n = check_count("n", n)
    if n > MAX_N:
        raise ValueError(f"n must be <= MAX_N={MAX_N}, got n={n}.")
    check_neighbours(settings.neighbours, n)
    runs = check_count("runs", runs)
    check_n_jobs(n_jobs)
    text = query if settings.privacy_unit is not None and target_error is not None else None
    if settings.privacy_unit is not None:
        query, name, population, population_name = _person_plan_inputs(
            query, population, column, settings, n
        )
    else:
        name = (
            query.strip()
            if isinstance(query, str)
            else getattr(query, "name", getattr(query, "__name__", "query"))
        )
        query = as_query(parse_query(query) if isinstance(query, str) else query)
        population, population_name = _population(population, column)
    if isinstance(population, PublicSample):  # refused before any work, as released
        population.check_plan(settings.plan)
    bounds = _bounds_from(population, settings.bounds)
    # the release's rule: a quantile over bounds is the exponential mechanism
    level = None if bounds is None else quantile_level_of(query)
    if level is None and bounds is not None:
        _check_floor(query, bounds, n, settings, model)
    return PreparedPlan(
        query=query,
        name=str(name),
        population=population,
        population_name=population_name,
        n=n,
        settings=settings,
        model=model,
        target_error=target_error,
        measure=measure,
        runs=runs,
        root=as_seed_sequence(random_state),
        n_jobs=n_jobs,
        level=level,
        bounds=bounds,
        person_query=text,
    )


def _noise_model(settings: ReleaseSettings, noise_model) -> NoiseModel:
    """The noise a plan computes the error of: ``noise_model``, or the settings'
    mechanism's (the discrete ones have no model here)."""
    if noise_model is None:
        noise_model = NOISE_MODELS.get(settings.mechanism)
        if noise_model is None:
            names = ", ".join(repr(name) for name in NOISE_MODELS)
            raise ValueError(
                f"a plan computes the error of the mechanisms {names} (or of a "
                f"noise_model), got mechanism={settings.mechanism!r}."
            )
    elif not isinstance(noise_model, NoiseModel):
        raise TypeError(
            f"noise_model must be a NoiseModel or None, got {noise_model!r}."
        )
    noise_model.check_delta(settings.delta)
    return noise_model


def _public_bounds(value) -> BoundsSetting:
    """``value`` read by :func:`~sensampler.settings.parse_bounds`, public ones
    only; refused in the plan's words, which never offer private bounds."""
    private = ValueError(
        f"bounds={value!r} are estimated from the private data, which a plan "
        "never reads: give public bounds ('auto' or 'LOW:HIGH')."
    )
    if isinstance(value, str) and value.strip().lower().startswith("private:"):
        raise private
    try:
        setting = parse_bounds(value)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"bounds must be {PUBLIC_BOUNDS}, got bounds={value!r}.") from None
    if not setting.public:
        raise private
    return setting


def _bounds_from(population, setting: BoundsSetting) -> Bounds | None:
    """The public bounds ``setting`` gives on ``population``
    (:meth:`~sensampler.settings.BoundsSetting.resolve`); a population model
    that gives ``"auto"`` no width is refused without offering private bounds,
    which a plan refuses."""
    try:
        return setting.resolve(population)
    except ValueError as exc:
        if setting.kind != "auto":
            raise
        detail = str(exc).split("; give")[0]
        raise ValueError(
            f"bounds='auto': {detail}; give public bounds ('LOW:HIGH') or None "
            "(a plan reads no private data)."
        ) from None


def _basis(population, plan) -> str:
    """What a sampled sensitivity's gamma rests on beyond the population model,
    as the release states it: a public sample's basis, else nothing."""
    return population.basis(plan) if isinstance(population, PublicSample) else ""


def _person_plan_inputs(query, population, column, settings: ReleaseSettings, n: int):
    """A person-level plan's query and model of a person, as a person-level
    release reads them (``settings.privacy_unit``: the person's column of a
    ``bootstrap:FILE`` population, any name with a model of a person); at a
    given epsilon, at the cap the release chooses for n persons
    (:func:`~sensampler.app.release._units.least_error_cap`); planned for a
    target error, at the model's own cap, where the plan starts
    (:meth:`PreparedPlan._run_at_chosen_cap`)."""
    if totals_quantile(query) is not None:
        raise ValueError(
            f"query {query.strip()!r} is not planned in this version; plan a "
            "person-level query (sum, mean, count, ...)."
        )
    name = population if isinstance(population, str) else repr(population)
    model = person_population(population, column, settings.privacy_unit)
    person_queries([query], model.record_shape[0], settings.neighbours)  # checked
    if settings.epsilon is not None:
        model = least_error_cap(model, [query], n, settings)
    (parsed,), (query_name,) = person_queries(
        [query], model.record_shape[0], settings.neighbours
    )
    return parsed, query_name, model, name


def _population(population, column):
    """The population model and its name; public records given as an array are
    a :class:`~sensampler.distributions.PublicSample`, as the release reads them."""
    name = population if isinstance(population, str) else repr(population)
    given = (
        load_population(population, column=column)
        if isinstance(population, str)
        else population
    )
    model = as_distribution(given)
    if type(model) is Empirical and model is not given:
        model = PublicSample(model.data)
    return model, name


def _floored(model, epsilon, delta, sensitivities, worst, cap) -> np.ndarray:
    r"""Each run's sensitivity, raised so that the noise meets the release's floor.

    A release with a worst-case sensitivity :math:`\Delta_{wc}` (records
    clipped to bounds) raises its noise scale to
    :math:`\Delta_{wc}\,s(\epsilon_{cap}, \delta)`, the scale at which its
    worst case is :math:`\epsilon_{cap}`-DP (``cap``, by default 10 epsilon as
    :func:`~sensampler.mechanisms._base.check_worst_case_epsilon` reads it;
    :func:`~sensampler.mechanisms.laplace.floored_laplace_scale`, and
    :class:`~sensampler.mechanisms.GaussianMechanism` with the analytic sigma).
    In units of :math:`s(\epsilon, \delta)`, a run's scale is then that of the
    sensitivity :math:`\max(\Delta_r, \Delta_{wc}\,s(\epsilon_{cap},
    \delta) / s(\epsilon, \delta))`. Without a worst case, unchanged.
    """
    values = np.asarray(sensitivities, dtype=float)
    if worst is None:
        return values
    cap = check_worst_case_epsilon(cap, epsilon)
    floor = worst * model.unit_scale(cap, delta) / model.unit_scale(epsilon, delta)
    return np.maximum(values, floor)


def _scales(model, epsilon, delta, sensitivities) -> np.ndarray:
    """Every run's noise scale (``inf`` where it overflows)."""
    with np.errstate(over="ignore"):
        return np.asarray(sensitivities) * model.unit_scale(epsilon, delta)


def _epsilon_for(error, target, cap=None) -> float:
    """The epsilon whose error (``error(epsilon)``) is ``target``: the error
    decreases in epsilon, so a root finder on log epsilon brackets it.

    Where the error steps down past the target (a quantile's sampled scale
    takes one of fixed values), the root is the step, and the epsilon returned
    is just past it: its error is at most the target. ``error`` is ``inf``
    where the noise overflows (the release refuses it). ``cap``: a fixed
    worst-case cap that puts a floor under the error, named where a target
    lies below it."""
    low, high = math.log(EPSILON_RANGE[0]), math.log(EPSILON_RANGE[1])

    def gap(log_eps):
        value = error(math.exp(log_eps))
        # an overflowing noise misses any target: a finite gap keeps brentq exact
        return math.log(value) - math.log(target) if value < math.inf else 1e3

    if gap(high) > 0.0 and cap is not None:
        raise ValueError(
            f"target_error={target!r} is below the error the cap "
            f"worst_case_epsilon={cap!r} allows at any epsilon (the noise is held "
            f"at or above the cap's floor: {error(EPSILON_RANGE[1]):.3g} at "
            f"epsilon={EPSILON_RANGE[1]:g}); raise worst_case_epsilon or choose "
            "another target."
        )
    if gap(high) > 0.0 or gap(low) < 0.0:
        # a quantile's error has a floor (the records' spacing) and a ceiling
        # (the bounds): say where the reachable targets lie
        raise ValueError(
            f"target_error={target!r} needs an epsilon outside "
            f"[{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}] for this query and "
            f"population (the error there goes from {error(EPSILON_RANGE[0]):.3g} "
            f"to {error(EPSILON_RANGE[1]):.3g}); choose another target."
        )
    from scipy import optimize  # here: the command line imports this module

    root = optimize.brentq(gap, low, high, xtol=1e-13, rtol=1e-13)
    for step in (0.0, 1e-12, 1e-11, 1e-10, 1e-9):  # past a step, if the root is one
        if gap(root + step) <= 0.0:
            return math.exp(root + step)
    return math.exp(root + 1e-9)


def _check_floor(query, bounds, n, settings, model) -> None:
    r"""Refuse, before drawing, a worst-case floor whose noise scale overflows, as
    the release refuses it (:func:`~sensampler.mechanisms._base.check_noise_scale`):
    the floor :math:`\Delta_{wc}\,s(\epsilon_{cap}, \delta)` of a given cap (or of
    the default one at a given epsilon) does not depend on the sampling runs."""
    cap, epsilon = settings.worst_case_epsilon, settings.epsilon
    worst = worst_case_sensitivity(query, bounds, n, settings.neighbours, settings.norm)
    if worst is None or (cap is None and epsilon is None):
        return
    name, value = (
        ("worst_case_epsilon", cap) if cap is not None else ("epsilon", epsilon)
    )
    check_noise_scale(
        worst * model.unit_scale(check_worst_case_epsilon(cap, epsilon), settings.delta),
        f"worst_case={worst!r}, {name}={value!r}",
    )
