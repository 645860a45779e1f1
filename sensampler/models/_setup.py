"""Everything a :class:`~sensampler.models.PrivateEstimator` fit checks before it
spends, draws or reads the private data: its parameters (scikit-learn's
constraints, then ONE :class:`~sensampler.settings.ReleaseSettings` for what it
shares with a release), the private and public data, the pipeline's
preprocessing (fitted on the public rows), the bound on the rows' feature norm
(``data_norm``), the sampling plans and the attributes released."""

from __future__ import annotations

import inspect
import math
import sys
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import validate_data

from .._lib.validation import check_n_jobs
from ..bounds import Bounds
from ..distributions import Distribution
from ..mechanisms.choice import build_mechanism
from ..plan import SamplingPlan, sampling_plan
from ..settings import ReleaseSettings
from ._fits import scrub
from ._sampling import flat
from ._tune import grid

__all__ = [
    "ESTIMATOR_MECHANISMS",
    "Inputs",
    "PRIVACY_FIELDS",
    "RELEASE_PAIRS",
    "ROW_BOUND_QUANTILE",
    "check_setup",
    "mechanism_for",
    "release_settings",
    "released_step",
    "released_template",
    "uses_statistics",
    "validate",
]

#: Pairs of the sampling run of the *released* sensitivity when ``m`` is not
#: given (the comparisons among candidates use the fewest that certify gamma):
#: at the same gamma its order statistic (k = 971 of 1000 at gamma 0.05, the
#: smallest k the plan certifies) sits nearer the (1 - gamma)-quantile than the
#: largest of 113 pairs. Measured on the shrunk fits of diabetes (alpha = 100)
#: and breast cancer (C = 0.01): 0.65 times the sensitivity; a fit takes about
#: 7 s instead of 4 s on diabetes and 70 s instead of 25 s on breast cancer
#: (two loaded cores; ``benchmarks/model_value.py``).
RELEASE_PAIRS = 1000
#: Quantile of the public rows' feature norms that ``data_norm="public"`` clips
#: every row to. The shrunk logistic fits' noise is floored by their
#: worst case, 2 C sqrt(R^2 + 1) (within ``worst_case_epsilon``), which binds on
#: breast cancer with R the largest public norm; at the median the floor is
#: about half as large and half the rows are clipped: the best shrunk fit
#: recovers 30 %, 48 % and 77 % of the private data's value at epsilon 1, 3
#: and 10, against 25 %, 41 % and 47 % at the largest norm (10 % public rows,
#: 5 splits, C chosen on the test rows: ``benchmarks/model_value.py --clip``).
ROW_BOUND_QUANTILE = 0.5
#: The estimator's parameters that a :class:`~sensampler.settings.ReleaseSettings`
#: holds too (``settings=`` supplies them all).
PRIVACY_FIELDS = (
    "epsilon", "delta", "gamma", "mechanism", "neighbours", "worst_case_epsilon",
    "inequality",
)
#: The mechanisms that release fitted attributes.
ESTIMATOR_MECHANISMS = ("gaussian", "laplace")


def release_settings(estimator) -> ReleaseSettings:
    """The estimator's privacy settings, checked once: ``settings`` as given, or
    ONE :class:`~sensampler.settings.ReleaseSettings` built from its keywords.

    ``settings`` supplies every field of :data:`PRIVACY_FIELDS`: given with any
    of those keywords away from its default, it is refused (no precedence to
    guess). The record's ``bounds`` (a statistic's clipping interval) do not
    apply to an estimator, whose rows are bounded by ``data_norm``: given or
    private bounds are refused, ``"auto"`` and none ignored.
    """
    given = estimator.settings
    if given is None:
        missing = [f for f in ("epsilon", "delta") if getattr(estimator, f) is None]
        if missing:
            raise ValueError(
                f"{missing[0]} is required (a privacy level is the user's choice), "
                f"or settings=ReleaseSettings(...), got {missing[0]}=None."
            )
        values = {f: getattr(estimator, f) for f in PRIVACY_FIELDS}
        settings = ReleaseSettings(bounds=None, **values)
    else:
        defaults = inspect.signature(type(estimator).__init__).parameters
        both = [
            f for f in PRIVACY_FIELDS
            if not _same(getattr(estimator, f), defaults[f].default)
        ]
        if both:
            raise ValueError(
                f"settings= supplies {', '.join(PRIVACY_FIELDS)}: give them there "
                f"or as keywords, not both; got settings and {both[0]}="
                f"{getattr(estimator, both[0])!r}."
            )
        settings = given
        if settings.bounds.kind in ("given", "private"):
            raise ValueError(
                "settings.bounds clip a statistic's records; an estimator bounds "
                "its rows' feature norm with data_norm=, got settings.bounds="
                f"{str(settings.bounds)!r}."
            )
    if settings.mechanism not in ESTIMATOR_MECHANISMS:
        raise ValueError(
            "PrivateEstimator releases through mechanism 'gaussian' or 'laplace', "
            f"got mechanism={settings.mechanism!r}."
        )
    return settings


def _same(value, default) -> bool:
    return value is default or (
        value is not None and default is not None and value == default
    )


def mechanism_for(settings: ReleaseSettings):
    """``mechanism(sensitivity)``: the release's mechanism calibrated with
    ``sensitivity`` (:func:`~sensampler.mechanisms.choice.build_mechanism`)."""

    def mechanism(sensitivity):
        return build_mechanism(
            settings.mechanism, sensitivity, settings.epsilon, settings.delta, None,
            None, settings.worst_case_epsilon,
        )[0]

    return mechanism


def validate(estimator, X, y=None, *, reset: bool):
    """scikit-learn's ``validate_data`` of ``X`` (and ``y``)."""
    if y is None:
        return validate_data(estimator, X, reset=reset)
    return validate_data(estimator, X, y, reset=reset)


def released_step(estimator):
    """The estimator released: the last step of a Pipeline, or the estimator."""
    inner = estimator.estimator
    return inner.steps[-1][1] if isinstance(inner, Pipeline) else inner


def uses_statistics(estimator, model) -> bool:
    """Whether ``model`` is released through its sufficient statistics."""
    if estimator.fit_method != "statistics" or estimator.attributes is not None:
        return False
    return type(model) in (Ridge, LinearRegression)


def _check_data(estimator, X, y):
    """The private and public data, validated; the private ones refused
    without the values scikit-learn's messages quote."""
    public = estimator.public
    if not isinstance(public, tuple) or len(public) != 2:
        raise TypeError(
            "public must be a tuple (X_pub, y_pub) of public data, got "
            f"public={type(public).__name__}."
        )
    try:
        X, y = validate(estimator, X, y, reset=True)
    except (TypeError, ValueError) as exc:
        raise type(exc)(
            f"the private X, y were refused by scikit-learn: {scrub(exc)} (the "
            "rest of its message, which may quote private values, is withheld)"
        ) from None
    X_pub, y_pub = validate(estimator, *public, reset=False)
    for name, target in (("y", y), ("public's y", y_pub)):
        if np.asarray(target).dtype.kind not in "biuf":
            raise TypeError(
                f"{name} must hold numbers (a database row is features..., "
                f"target), got {np.asarray(target).dtype} values."
            )
    return X, y, X_pub, y_pub


def _preprocess(estimator, X, X_pub, y_pub):
    """A Pipeline's preprocessing fitted on the public rows, and both sets
    transformed by it (or as they are, and None, for an estimator)."""
    if not isinstance(estimator.estimator, Pipeline):
        return X, X_pub, None
    if estimator.tune is not None:
        raise ValueError(
            "tune is not supported with a Pipeline as the estimator, got "
            f"tune={estimator.tune!r}: pass the last step's estimator with its "
            "parameters tuned, and the preprocessing fitted on public data."
        )
    steps = estimator.estimator.steps[:-1]
    preprocessing = clone(Pipeline(steps)).fit(X_pub, y_pub)
    X_pub = np.asarray(preprocessing.transform(X_pub), dtype=float)
    try:
        X = np.asarray(preprocessing.transform(X), dtype=float)
    except (TypeError, ValueError) as exc:
        raise type(exc)(
            "the pipeline's preprocessing, fitted on the public data, "
            f"refused the private X: {scrub(exc)} (the rest of its message, "
            "which may quote private values, is withheld)"
        ) from None
    return X, X_pub, preprocessing


def _check_data_norm(data_norm: Any, rows: int) -> None:
    """Refuse an infinite ``data_norm``, or one whose fit overflows a double.

    A fit on rows clipped to feature norm ``R`` sums their squared norms (the
    Hessian of a logistic fit, ``X^T X``), up to ``rows R^2``, and the worst
    case of a shrunk logistic fit is ``2 C sqrt(R^2 + 1)``, the noise scaled
    from it: with ``rows R^2`` above the largest double they overflow (a bare
    ``OverflowError`` after the sampling, or a noise of infinite scale).
    """
    if not isinstance(data_norm, Real) or isinstance(data_norm, bool):
        return
    if not np.isfinite(data_norm):
        raise ValueError(
            "data_norm must be 'public', a finite bound on the rows' feature norm "
            f"or None, got data_norm={data_norm!r}."
        )
    limit = math.sqrt(sys.float_info.max / (rows + 1))
    if float(data_norm) > limit:
        raise ValueError(
            f"data_norm={data_norm!r} is too large: a fit on {rows} rows of feature "
            "norm up to it sums their squared norms, which overflows a double (and "
            "the worst case and the noise scaled from it with them); give a bound "
            f"below {limit:.6g}, or data_norm='public'."
        )


def _data_norm_bounds(data_norm: Any, X_pub: np.ndarray) -> Bounds | None:
    """``[0, R]``, the range of the rows' feature norms (``data_norm``), or None."""
    if data_norm is None:
        return None
    if data_norm == "public":
        norms = np.linalg.norm(X_pub, axis=1)
        high, which = float(np.quantile(norms, ROW_BOUND_QUANTILE)), "median"
        if not high > 0:  # most public rows 0: the largest norm
            high, which = float(np.max(norms)), "largest"
        if not high > 0:  # every public row 0: no bound to take
            return None
        note = f"L2 norm of each row's features, up to the public rows' {which}"
        return Bounds(0.0, high, "population", note=note)
    return Bounds(
        0.0, float(data_norm), "given", note="L2 norm of each row's features, given"
    )


def _attribute_names(attributes, model) -> tuple[str, ...]:
    """The released attributes: ``attributes``, or ``coef_`` (and ``intercept_``
    unless the model has ``fit_intercept=False``)."""
    if attributes is None:
        params = model.get_params() if hasattr(model, "get_params") else {}
        names = ("coef_",)
        if params.get("fit_intercept", True) is not False:
            names += ("intercept_",)
        return names
    names = (attributes,) if isinstance(attributes, str) else tuple(attributes)
    if not names or not all(
        isinstance(a, str) and a.endswith("_") and not a.startswith("_") for a in names
    ):
        raise ValueError(
            "attributes must name fitted attributes (ending in '_'), got "
            f"attributes={attributes!r}."
        )
    return names


def released_template(model, X_pub, y_pub, names, attributes):
    """``model`` fitted on the public data, checked to hold ``names`` (the
    default ``intercept_`` dropped where the fit has none)."""
    fitted = clone(model).fit(X_pub, y_pub)
    missing = [a for a in names if not hasattr(fitted, a)]
    if attributes is None and missing == ["intercept_"]:
        names = names[:1]
    elif missing:
        raise ValueError(
            f"attributes={attributes!r}: {type(model).__name__} fitted has "
            f"no attribute {missing[0]!r}."
        )
    flat(fitted, names)  # arrays of numbers, or raise here
    return fitted, names


@dataclass(frozen=True)
class Inputs:
    """A fit's inputs, checked (:func:`check_setup`)."""

    X: np.ndarray
    y: np.ndarray
    X_pub: np.ndarray
    y_pub: np.ndarray
    settings: ReleaseSettings
    norm: str
    plan: SamplingPlan  # the comparisons among candidates'
    released: SamplingPlan  # the released sensitivity's
    names: tuple[str, ...]
    n_jobs: int
    grid: list
    preprocessing: Pipeline | None
    data_norm: Bounds | None


def _plans(m, settings: ReleaseSettings) -> tuple[SamplingPlan, SamplingPlan]:
    """The comparisons' plan and the released sensitivity's (:data:`RELEASE_PAIRS`
    pairs when ``m`` is not given and the fewest are fewer)."""
    inequality = settings.inequality
    plan = sampling_plan(m=m, gamma=settings.gamma, inequality=inequality)
    if m is None and plan.m < RELEASE_PAIRS:
        return plan, sampling_plan(m=RELEASE_PAIRS, gamma=settings.gamma, inequality=inequality)
    return plan, plan


def check_setup(estimator, X, y) -> Inputs:
    """Validate everything before any spend or draw; return the pieces.

    Parameters
    ----------
    estimator : PrivateEstimator
        The estimator being fitted.
    X, y : array-like
        The private data.

    Returns
    -------
    Inputs
    """
    if estimator.public is None:
        raise ValueError(
            "public=(X_pub, y_pub) is required: PrivateEstimator fits its "
            "population model, and every attribute it does not release, on "
            "public data with the same columns as X (public rows, a previous "
            "release, data the custodian may publish); got public=None."
        )
    estimator._validate_params()
    settings = release_settings(estimator)
    n_jobs = check_n_jobs(estimator.n_jobs)
    X, y, X_pub, y_pub = _check_data(estimator, X, y)
    norm = estimator.norm or settings.norm
    if settings.mechanism == "laplace" and norm != "l1":
        raise ValueError(
            f"mechanism='laplace' needs norm='l1', got norm={estimator.norm!r}."
        )
    X, X_pub, preprocessing = _preprocess(estimator, X, X_pub, y_pub)
    width = (X.shape[1] + 1,)
    population = estimator.population
    if isinstance(population, Distribution) and tuple(population.record_shape) != width:
        raise ValueError(
            f"population must draw rows of {width[0]} columns (features..., "
            f"target), got records of shape {population.record_shape}."
        )
    _check_data_norm(estimator.data_norm, len(X) + len(X_pub))
    plan, released = _plans(estimator.m, settings)
    candidates = grid(estimator.estimator, estimator.tune)
    model = released_step(estimator)
    if candidates:
        model = clone(model).set_params(**candidates[0])
    names = _attribute_names(estimator.attributes, model)
    if estimator.fit_method == "statistics" and not uses_statistics(estimator, model):
        raise ValueError(
            "fit_method='statistics' releases the sufficient statistics of a "
            "linear regression: it needs Ridge or LinearRegression with the "
            f"default attributes, got {type(model).__name__} and "
            f"attributes={estimator.attributes!r}."
        )
    return Inputs(
        X, y, X_pub, y_pub, settings, norm, plan, released, names, n_jobs,
        candidates, preprocessing, _data_norm_bounds(estimator.data_norm, X_pub),
    )
