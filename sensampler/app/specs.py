"""Populations and queries described by plain data (TOML tables, command-line flags)."""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
from typing import NamedTuple

import numpy as np

from .. import distributions, queries
from .._lib.domains import DELTA_TARGET, GAUSSIAN_VARIANTS
from .._lib.memory import check_sampling_fits
from .._lib.validation import check_choice, check_count, check_real
from .._sampling.probes import probe_query
from ..distributions import mixtures, univariate
from ..mechanisms import GaussianMechanism, LaplaceMechanism
from ..norms import get_norm
from ..plan import joint_plan
from ._input_files import MAX_DATA_FILE_BYTES, InputFileError, read_text_lines

__all__ = [
    "PRESETS",
    "build_population",
    "parse_population",
    "population_spec",
    "parse_query",
    "build_query",
    "QUERY_NAMES",
    "ESTIMATORS",
    "PRIVATE_ESTIMATOR_KEYS",
    "PrivateEstimatorParts",
    "is_private_estimator",
    "build_private_estimator",
    "DATASET_KINDS",
    "MECHANISMS",
    "mechanism_from_name",
    "mechanisms_help",
    "accepted_norms",
    "parse_sensitivities",
    "check_sampling_memory",
    "read_records",
]

#: Named populations: the source documents' heights mixture, and a standard normal.
PRESETS = {
    "heights": {
        "kind": "GaussianMixture",
        "params": [[178, 7], [162, 6.5]],
        "weights": [0.5, 0.5],
    },
    "normal": {"kind": "Normal", "loc": 0.0, "scale": 1.0},
}

#: Models built from plain parameters: every univariate model and mixture, plus two.
_KINDS = {
    name: getattr(distributions, name)
    for name in (
        *univariate.__all__,
        *mixtures.__all__,
        "MultivariateNormal",
        "Empirical",
    )
}
_KINDS_LOWER = {k.lower(): v for k, v in _KINDS.items()}


#: Populations fitted on a data set's public part: kind -> {key: default}
#: (``None``: required).
DATASET_KINDS = {
    "Empirical": {},
    "SklearnGaussianMixture": {
        "components": None,
        "covariance_type": "full",
        "seed": 0,
    },
}


def build_population(
    spec, datasets: dict | None = None
) -> distributions.Distribution:
    """A population from a table ``{"kind": "Normal", "loc": 0, "scale": 1}`` or a preset name.

    ``kind`` is a model of :mod:`distributions` (case-insensitive); the other
    keys are its parameters. ``Empirical`` takes ``path`` (a CSV of public
    records, one per row) instead of ``data``.

    A table with ``dataset = NAME`` is fitted on the public part of
    ``datasets[NAME]`` (a :class:`~sensampler.app.experiments.datasets.DatasetSplit`);
    its kind is one of :data:`DATASET_KINDS`: ``Empirical`` (the bootstrap: the
    public rows resampled) or ``SklearnGaussianMixture`` (scikit-learn's
    ``GaussianMixture(components, covariance_type=..., random_state=seed)``
    fitted on them).
    """
    if isinstance(spec, str):
        if spec.lower() in PRESETS:
            return build_population(PRESETS[spec.lower()])
        hint = (
            f"; a CSV file of public records, one per line, is "
            f"'empirical:path=\"{spec}\"'"
            if spec.lower().endswith(".csv")
            else ""
        )
        raise ValueError(
            f"unknown population {spec!r}; presets: {', '.join(PRESETS)}{hint}."
        )
    if not isinstance(spec, dict) or "kind" not in spec:
        what = f"keys {sorted(spec)}" if isinstance(spec, dict) else type(spec).__name__
        raise ValueError(f"a population needs a 'kind', got {what}.")
    if "dataset" in spec:
        return _fitted_population(spec, datasets or {})
    params = {k: v for k, v in spec.items() if k != "kind"}
    kind = str(spec["kind"]).lower()
    if kind not in _KINDS_LOWER:
        raise ValueError(
            f"unknown population kind {spec['kind']!r}; kinds: {', '.join(_KINDS)}."
        )
    if kind == "empirical" and "path" in params:
        params["data"] = read_records(params.pop("path"))
    model = _KINDS_LOWER[kind]
    keys = _parameter_names(model)
    if keys is not None and kind == "empirical":
        keys.append("path")
    unknown = [] if keys is None else sorted(set(params) - set(keys))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for "
            f"{model.__name__}; its parameters: {', '.join(keys) or 'none'}."
        )
    try:
        return model(**params)
    except TypeError as exc:
        raise ValueError(f"bad parameters for {spec['kind']}: {exc}") from None


def _parameter_names(model) -> list[str] | None:
    """The keyword parameters of a population model's constructor, in order
    (None when it takes any keyword)."""
    parameters = inspect.signature(model).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in parameters if p.kind in kinds]


_ROW = re.compile(r"at row (\d+)(?:, column (\d+))?")


def read_records(path) -> np.ndarray:
    """The public records of a CSV file of numbers, one record per line.

    Errors name the file, the line (blank and ``#`` comment lines not counted)
    and the problem, never a value of the file: a record may be private.

    Parameters
    ----------
    path : str or path-like
        A CSV file: numbers separated by commas, one record per line.

    Returns
    -------
    ndarray
        One row per record (a 1-d array for one number per line).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (a string), got {type(path).__name__}.")
    path = os.fspath(path)
    try:
        lines = read_text_lines(path, "records file", MAX_DATA_FILE_BYTES)
        return np.loadtxt(lines, delimiter=",", ndmin=1)
    except InputFileError:
        raise
    except ValueError as exc:  # numpy's message quotes the value: it is not shown
        match = _ROW.search(str(exc))
        if match is None:
            raise ValueError(f"{path}: not a CSV file of numbers.") from None
        line = int(match[1]) + (0 if "columns changed" in str(exc) else 1)
        problem = (
            "a different number of columns than the lines before it"
            if "columns changed" in str(exc)
            else f"column {match[2]} is not a number"
        )
        raise ValueError(
            f"{path}: line {line} (not counting blank and # comment lines): "
            f"{problem} (values are not shown: records may be private)."
        ) from None


def _fitted_population(spec, datasets):
    """A population fitted on the public part of ``datasets[spec["dataset"]]``."""
    kinds = {k.lower(): k for k in DATASET_KINDS}
    kind = kinds.get(str(spec["kind"]).lower())
    if kind is None:
        raise ValueError(
            f"a population with a dataset has kind {', '.join(DATASET_KINDS)}, got "
            f"kind={spec['kind']!r}."
        )
    name = spec["dataset"]
    if not isinstance(name, str) or name not in datasets:
        raise ValueError(
            f"dataset={name!r} names no data set; data sets: "
            f"{', '.join(datasets) or 'none'}."
        )
    params = {k: v for k, v in spec.items() if k not in ("kind", "dataset")}
    allowed = DATASET_KINDS[kind]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        listed = ", ".join(["kind", "dataset", *allowed])
        raise ValueError(f"unknown key(s) {unknown} for {kind}; keys: {listed}.")
    missing = [
        k for k, default in allowed.items() if default is None and k not in params
    ]
    if missing:
        raise ValueError(f"{kind} needs {', '.join(missing)}.")
    public = datasets[name].public
    if kind == "Empirical":
        return distributions.Empirical(public)
    from sklearn.mixture import GaussianMixture

    params = {**allowed, **params}
    model = GaussianMixture(
        check_count("components", params["components"]),
        covariance_type=check_choice(
            "covariance_type",
            params["covariance_type"],
            ("full", "tied", "diag", "spherical"),
        ),
        random_state=check_count("seed", params["seed"], minimum=0),
    )
    return distributions.SklearnGaussianMixture(model.fit(public))


def parse_population(text: str) -> distributions.Distribution:
    """A population from a flag: a preset (``heights``) or ``kind:key=value,...``.

    Values are JSON, so ``gaussianmixture:params=[[178,7],[162,6.5]],weights=[0.5,0.5]``
    works, as does ``normal:loc=170,scale=10``.
    """
    return build_population(population_spec(text))


def population_spec(text: str) -> str | dict:
    """What a population flag stands for, not yet built (see :func:`parse_population`).

    Parameters
    ----------
    text : str
        A preset (``heights``) or ``kind:key=value,...`` with JSON values.

    Returns
    -------
    str or dict
        The preset's name, or the table :func:`build_population` takes (whose
        ``path``, for ``empirical``, names the file it reads).
    """
    if ":" not in text:
        return text
    kind, _, rest = text.partition(":")
    spec = {"kind": kind}
    for item in _split_top_level(rest):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"population parameters are key=value, got {item!r}.")
        try:
            spec[key.strip()] = json.loads(value)
        except json.JSONDecodeError as exc:  # the value may hold records: not shown
            raise ValueError(
                f"population parameter {key.strip()} is not JSON: {exc.msg} at "
                f"character {exc.pos + 1} of its value."
            ) from None
    return spec


def _split_top_level(text):
    """Split on commas outside brackets."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    return parts


QUERY_NAMES = (
    "identity",
    "mean",
    "sum",
    "median",
    "variance",
    "std",
    "count",
    "quantile:Q",
    "histogram:BINS:LOW:HIGH",
)


def parse_query(text: str):
    """A built-in query by name: ``mean``, ``quantile:0.9``, ``histogram:10:150:200``, ..."""
    name, *args = str(text).strip().lower().split(":")
    try:
        if name in ("identity", "mean", "sum", "median") and not args:
            return getattr(queries, name)
        if name in ("variance", "std") and len(args) <= 1:
            return getattr(queries, name)(int(args[0]) if args else 0)
        if name == "count" and not args:
            return queries.count()
        if name == "quantile" and len(args) == 1:
            return queries.quantile(float(args[0]))
        if name == "histogram" and len(args) == 3:
            return queries.histogram(
                int(args[0]), range=(float(args[1]), float(args[2]))
            )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad query {text!r}: {exc}") from None
    raise ValueError(f"unknown query {text!r}; queries: {', '.join(QUERY_NAMES)}.")


#: Models of ``sklearn.linear_model`` an estimator query may name.
ESTIMATORS = ("LinearRegression", "Ridge", "Lasso", "ElasticNet", "LogisticRegression")


def build_query(spec):
    """A query from a name (see :func:`parse_query`) or an estimator table.

    The table ``{"kind": "estimator", "model": "Ridge", "params": {"alpha": 10.0}}``
    is :func:`sensampler.queries.estimator` of the model (one of
    :data:`ESTIMATORS`) built with ``params``: the fitted ``coef_`` of a database
    of rows ``(features..., target)``.
    """
    if isinstance(spec, str):
        return parse_query(spec)
    if not isinstance(spec, dict):
        raise TypeError(f"a query is a name or a table, got {spec!r}.")
    unknown = sorted(set(spec) - {"kind", "model", "params"})
    if unknown:
        raise ValueError(f"unknown query key(s) {unknown}; keys: kind, model, params.")
    if spec.get("kind") != "estimator":
        raise ValueError(
            f"a query table has kind = 'estimator', got kind={spec.get('kind')!r}."
        )
    model = check_choice("model", spec.get("model"), ESTIMATORS)
    params = spec.get("params", {})
    if not isinstance(params, dict):
        raise TypeError(f"params must be a table, got params={params!r}.")
    from sklearn import linear_model

    try:
        estimator = getattr(linear_model, model)(**params)
    except TypeError as exc:
        raise ValueError(f"bad params for {model}: {exc}") from None
    return queries.estimator(estimator)


#: Keys of a ``kind = "private_estimator"`` query table.
PRIVATE_ESTIMATOR_KEYS = ("kind", "model", "params", "tune", "augment")


def is_private_estimator(spec) -> bool:
    """Whether a query spec is a ``kind = "private_estimator"`` table."""
    return isinstance(spec, dict) and spec.get("kind") == "private_estimator"


class PrivateEstimatorParts(NamedTuple):
    """What a ``kind = "private_estimator"`` table builds (see
    :func:`build_private_estimator`)."""

    #: The unfitted model (a template: every fit clones it).
    estimator: object
    #: The estimator query of the model (its fitted ``coef_``), which the checks probe.
    query: queries.Query
    #: Parameters of the model mapped to the values searched on the public data.
    tune: dict | None
    #: Whether the released model is fitted on the public and private rows.
    augment: bool


def build_private_estimator(spec: dict) -> PrivateEstimatorParts:
    """The pieces of a :class:`~sensampler.models.PrivateEstimator` from a table.

    ``{"kind": "private_estimator", "model": "LogisticRegression", "params":
    {"C": 0.03}, "tune": {"C": [0.01, 0.1]}, "augment": true}``: ``model`` is one
    of :data:`ESTIMATORS` built with ``params``; ``tune`` (optional) maps its
    parameters to non-empty lists searched on the public data; ``augment``
    (default false) fits the released model on the public and private rows.

    Parameters
    ----------
    spec : dict
        The query table.

    Returns
    -------
    PrivateEstimatorParts
        The unfitted estimator, its estimator query, ``tune`` (or None) and
        ``augment``.
    """
    unknown = sorted(set(spec) - set(PRIVATE_ESTIMATOR_KEYS))
    if unknown:
        raise ValueError(
            f"unknown query key(s) {unknown}; keys: {', '.join(PRIVATE_ESTIMATOR_KEYS)}."
        )
    query = build_query({"kind": "estimator", "model": spec.get("model"),
                         "params": spec.get("params", {})})
    estimator = query.estimator
    augment = spec.get("augment", False)
    if not isinstance(augment, bool):
        raise TypeError(f"augment must be true or false, got augment={augment!r}.")
    tune = spec.get("tune")
    if tune is not None:
        valid = estimator.get_params()
        if not isinstance(tune, dict) or not tune or not all(
            key in valid and isinstance(values, list) and values
            for key, values in tune.items()
        ):
            raise ValueError(
                f"tune must map parameters of {type(estimator).__name__} to "
                f"non-empty lists of values, got tune={tune!r}."
            )
    return PrivateEstimatorParts(estimator, query, tune, augment)


#: Mechanisms named in flags and configs: name -> (class, fixed keyword arguments).
#: The Gaussian ones fix a variant of ``GAUSSIAN_VARIANTS`` (checked here).
MECHANISMS = {
    "laplace": (LaplaceMechanism, {}),
    **{
        name: (GaussianMechanism, {"variant": GAUSSIAN_VARIANTS.check("variant", v)})
        for name, v in (("gaussian", "classic"), ("analytic", "analytic"))
    },
}


def mechanisms_help() -> str:
    """What each name of :data:`MECHANISMS` is, for a command line's help.

    Returns
    -------
    str
        ``"laplace: LaplaceMechanism; gaussian: GaussianMechanism(variant=
        'classic'); ..."``, read from :data:`MECHANISMS` (whose variants are
        those of ``GAUSSIAN_VARIANTS``).
    """
    parts = []
    for name, (cls, kwargs) in MECHANISMS.items():
        fixed = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        parts.append(f"{name}: {cls.__name__}" + (f"({fixed})" if fixed else ""))
    return "; ".join(parts)


def mechanism_from_name(name: str, delta: float | None = None):
    """A callable ``(sensitivity, epsilon) -> mechanism`` from a name in :data:`MECHANISMS`.

    ``"gaussian"`` is the classic calibration, ``"analytic"`` Balle & Wang's; both
    need ``delta``, which Laplace refuses.

    Parameters
    ----------
    name : str
        A key of :data:`MECHANISMS`.
    delta : float, optional
        The delta of the Gaussian mechanisms, ``0 < delta < 1``.

    Returns
    -------
    callable
        ``(sensitivity, epsilon) -> Mechanism``.
    """
    check_choice("mechanism", name, tuple(MECHANISMS))
    cls, fixed = MECHANISMS[name]
    if cls is LaplaceMechanism:
        if delta is not None:
            raise ValueError(f"mechanism={name!r} takes no delta, got delta={delta!r}.")
        return cls
    if delta is None:
        raise ValueError(f"mechanism={name!r} needs delta.")
    delta = DELTA_TARGET.check("delta", delta)
    return functools.partial(cls, delta=delta, **fixed)


def accepted_norms(mechanism) -> tuple:
    """Sensitivity norms a mechanism accepts, its natural norm first.

    ``mechanism`` is a name in :data:`MECHANISMS`, a mechanism class or a
    ``functools.partial`` of one; the answer is the class's ``accepted_norms``.

    Parameters
    ----------
    mechanism : str, type or functools.partial
        A name in :data:`MECHANISMS`, a mechanism class or a partial of one.

    Returns
    -------
    tuple of str
        The norms, the natural one first.
    """
    if isinstance(mechanism, str):
        check_choice("mechanism", mechanism, tuple(MECHANISMS))
        mechanism = MECHANISMS[mechanism][0]
    while isinstance(mechanism, functools.partial):
        mechanism = mechanism.func
    norms = getattr(mechanism, "accepted_norms", None)
    if norms is None:
        raise TypeError(
            f"mechanism {mechanism!r} declares no accepted_norms; give the norm."
        )
    return tuple(norms)


_SENSITIVITY = re.compile(r"^mean(?:\s*\+\s*([0-9]*\.?[0-9]+)\s*sd)?$")


def parse_sensitivities(text: str, sample) -> dict:
    """Sensitivities from a flag: ``sampled``, ``mean``, ``mean+Ksd`` or numbers.

    Every item is checked first; ``sample()`` (returning a
    :class:`~sensampler.SensitivityEstimate`) is then called once if an item needs
    the sampled sensitivities. ``mean`` and ``mean+Ksd`` are the estimate's
    :meth:`~sensampler.SensitivityEstimate.typical` values (sd: of the sampled
    sensitivities, ``ddof=0``) and carry no random-DP guarantee.

    Returns
    -------
    dict
        ``{label: value}`` for :func:`~sensampler.app.experiments.sensitivity_sweep`.
    """
    items = [item.strip() for item in str(text).split(",") if item.strip()]
    if not items:
        raise ValueError("sensitivities must not be empty, got ''.")
    parsed = []
    for item in items:
        key = item.lower().replace(" ", "")
        match = _SENSITIVITY.match(key)
        if key == "sampled":
            parsed.append(("sampled", None))
        elif match:
            parsed.append(("offset", float(match.group(1) or 0.0)))
        else:
            try:
                number = float(item)
            except ValueError:
                raise ValueError(
                    "sensitivities must be 'sampled', 'mean', 'mean+Ksd' or "
                    f"numbers, got {item!r}."
                ) from None
            parsed.append(("number", check_real("sensitivities", number, low=0.0)))
    estimate = sample() if any(kind != "number" for kind, _ in parsed) else None
    out = {}
    for kind, value in parsed:
        if kind == "sampled":
            out["sampled"] = estimate
        elif kind == "offset":
            typical = estimate.typical(value)
            out[typical.label] = typical
        else:
            out[f"{value:g}"] = value
    return out


def check_sampling_memory(
    query, population, n: int, *, m=None, gamma=None, k=None, inequality="exact",
    norm="l1", neighbours="replace-one", n_jobs=1,
) -> int:
    """Refuse, before any sampling, a sampling run that would fail or not fit in memory.

    The sampler's own probes, drawn with a fixed seed
    (:func:`sensampler._sampling.probes.probe_query`): the query meets the
    population on a probe database (n records, once they are known to fit; a
    few for an additive query), which sizes the run's sensitivities; so a query
    that fails on the population's records (an estimator with bad parameters,
    too few columns, or continuous labels for a classifier), a false additive
    declaration, a query that depends on the order of the records and, under
    add/remove neighbours, one whose output changes shape with n are refused
    here, before any work, as the run would refuse them.

    Parameters
    ----------
    query : Query
    population : Distribution
    n : int
        Database size.
    m, gamma, k, inequality
        The sampling plan, as in :func:`sensampler.sample_sensitivity`.
    norm : str or SensitivityNorm
    neighbours : {"replace-one", "add-remove"}
    n_jobs : int or None

    Returns
    -------
    int
        Pairs the run draws.
    """
    norm = get_norm(norm)
    query = queries.as_query(query)
    probed = probe_query(
        query, population, n, neighbours, np.random.default_rng(0),
        "checked before work", trust=False,
    )
    parts = probed.parts(norm.per_coordinate)
    plan = joint_plan(m, gamma, k, inequality, parts)[0]
    check_sampling_fits(plan.m, parts, n, probed.record_bytes, probed.fast, n_jobs)
    return plan.m
