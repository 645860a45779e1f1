"""Populations and queries described by plain data (TOML tables, command-line flags)."""

from __future__ import annotations

import json

import numpy as np

from .. import distributions, queries
from ..distributions import mixtures, univariate

__all__ = [
    "PRESETS",
    "build_population",
    "parse_population",
    "parse_query",
    "QUERY_NAMES",
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


def build_population(spec) -> distributions.Distribution:
    """A population from a table ``{"kind": "Normal", "loc": 0, "scale": 1}`` or a preset name.

    ``kind`` is a model of :mod:`distributions` (case-insensitive); the other
    keys are its parameters. ``Empirical`` takes ``path`` (a CSV of public
    records, one per row) instead of ``data``.
    """
    if isinstance(spec, str):
        if spec.lower() in PRESETS:
            return build_population(PRESETS[spec.lower()])
        raise ValueError(f"unknown population {spec!r}; presets: {', '.join(PRESETS)}.")
    if not isinstance(spec, dict) or "kind" not in spec:
        raise ValueError(f"a population needs a 'kind', got {spec!r}.")
    params = {k: v for k, v in spec.items() if k != "kind"}
    kind = str(spec["kind"]).lower()
    if kind not in _KINDS_LOWER:
        raise ValueError(
            f"unknown population kind {spec['kind']!r}; kinds: {', '.join(_KINDS)}."
        )
    if kind == "empirical" and "path" in params:
        params["data"] = np.loadtxt(params.pop("path"), delimiter=",", ndmin=1)
    try:
        return _KINDS_LOWER[kind](**params)
    except TypeError as exc:
        raise ValueError(f"bad parameters for {spec['kind']}: {exc}") from None


def parse_population(text: str) -> distributions.Distribution:
    """A population from a flag: a preset (``heights``) or ``kind:key=value,...``.

    Values are JSON, so ``gaussianmixture:params=[[178,7],[162,6.5]],weights=[0.5,0.5]``
    works, as does ``normal:loc=170,scale=10``.
    """
    if ":" not in text:
        return build_population(text)
    kind, _, rest = text.partition(":")
    spec = {"kind": kind}
    for item in _split_top_level(rest):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"population parameters are key=value, got {item!r}.")
        try:
            spec[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            raise ValueError(
                f"population parameter {key.strip()}={value!r} is not JSON."
            ) from None
    return build_population(spec)


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
