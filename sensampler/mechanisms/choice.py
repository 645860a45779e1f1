"""Which mechanism a query gets, and building it: the core's rules of a release.

A one-quantile query (``median``, ``quantile:Q``: :func:`quantile_level_of`)
over bounds gets the exponential mechanism
(:class:`~sensampler.mechanisms.ExponentialQuantileMechanism`, Smith 2011);
every other query gets the noise mechanism named by the release settings
(:data:`RELEASE_MECHANISMS`), calibrated with its sensitivity
(:func:`build_mechanism`). A release (:mod:`sensampler.app.release`), a plan
(:mod:`sensampler.app.planning`), a sweep and the settings record
(:class:`sensampler.settings.ReleaseSettings`) all follow these rules.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .._lib import printing
from .._math.search import falling_root
from ..privacy import NEIGHBOURS, zcdp_to_dp
from ..quantile_calibration import plain_scale
from .gaussian import GaussianMechanism
from .laplace import LaplaceMechanism
from .quantile import (
    WIDE_GRID_DECADES,
    WIDE_GRID_PER_DECADE,
    ExponentialQuantileMechanism,
)
from .secure import DiscreteGaussianMechanism, DiscreteLaplaceMechanism

__all__ = [
    "RELEASE_MECHANISMS",
    "build_mechanism",
    "default_granularity",
    "quantile_level_of",
    "quantile_mechanism",
    "rho_for",
]

#: Mechanisms a release may use: name -> the norm its sensitivity is sampled in.
RELEASE_MECHANISMS = {
    "laplace": "l1",
    "gaussian": "l2",
    "discrete-laplace": "l1",
    "discrete-gaussian": "l2",
}


def rho_for(epsilon: float, delta: float) -> float:
    """The largest zCDP rho whose (epsilon, delta) conversion is at most epsilon.

    ``zcdp_to_dp`` (Canonne, Kamath & Steinke 2020, Prop. 12) increases with
    rho; a root finder inverts it, and :func:`build_mechanism` lowers the root
    until the conversion of the mechanism actually built is at most epsilon.

    Parameters
    ----------
    epsilon : float
        The target epsilon, ``> 0``.
    delta : float
        The delta of the conversion, ``0 < delta < 1``.

    Returns
    -------
    float
        rho, within the root finder's tolerance of the crossing.
    """
    return falling_root(
        lambda r: epsilon - zcdp_to_dp(r, delta), 0.0, 1.0,
        xtol=1e-14, rtol=1e-12, floor=0.0,
    )


def default_granularity(sensitivity: float) -> float:
    """Default grid step: the largest power of 10 at most 1/100 of the sensitivity
    (the grid then widens the sensitivity by at most 1%).

    Parameters
    ----------
    sensitivity : float
        The sensitivity the grid is for; 1 is returned for 0.

    Returns
    -------
    float
    """
    if sensitivity <= 0.0:
        return 1.0
    return 10.0 ** math.floor(math.log10(sensitivity / 100.0))



def quantile_level_of(query) -> float | None:
    """The level q of a query a release answers by the exponential mechanism.

    The one rule deciding which mechanism a query gets, shared by the release
    and by :func:`sensampler.app.planning.plan_release`: a one-quantile query
    (``median``, ``quantile:Q`` with one Q: a ``quantile_level`` attribute)
    gets :class:`~sensampler.mechanisms.ExponentialQuantileMechanism` over
    public bounds; every other query gets the noise mechanism of the release,
    calibrated with a sampled sensitivity.

    Parameters
    ----------
    query : Query or callable
        The query, parsed (:func:`~sensampler.app.experiments.parse_query`).

    Returns
    -------
    float or None
        ``q`` in [0, 1], or ``None`` for a query that samples a sensitivity.

    Examples
    --------
    >>> from sensampler import queries
    >>> quantile_level_of(queries.median), quantile_level_of(queries.mean)
    (0.5, None)
    """
    return getattr(query, "quantile_level", None)



def quantile_mechanism(query, bounds, epsilon, neighbours=NEIGHBOURS, calibration=None):
    """(mechanism, its statement, the noise in words) of a one-quantile query
    (:func:`quantile_level_of`), or None for any other query.

    The exponential mechanism over the bounds (Smith 2011), or without public
    bounds over the wide public grid
    (:func:`~sensampler.mechanisms.quantile.wide_grid`; a sampled sensitivity
    of a quantile could publish a record nearly exactly): plain epsilon-DP
    for every pair of ``neighbours``, or with ``calibration`` its scale sampled
    from the population model (random DP, with a worst case of its own); a
    sampled sensitivity of a quantile would be random DP only, and often far
    larger than the quantile's spread.

    Parameters
    ----------
    query : Query or callable
        The query (only a one-quantile query gets a mechanism).
    bounds : Bounds or None
        Public bounds of the records; ``None``: the wide grid (no calibration).
    epsilon : float
        The release's epsilon.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation.
    calibration : QuantileCalibration, optional
        A scale sampled from the population model
        (:func:`sensampler.quantile_calibration.calibrate_quantile`).

    Returns
    -------
    (ExponentialQuantileMechanism, PrivacyStatement, str) or None
    """
    level = quantile_level_of(query)
    if level is None:
        return None
    mech = ExponentialQuantileMechanism(
        level, None if bounds is None else (bounds.low, bounds.high), epsilon,
        neighbours=neighbours, calibration=calibration,
    )
    weights = (
        f"weights exp(-t|rank - {level:g}n|), t = {float(mech.scale):.6g}"
        if calibration is None
        else f"weights exp(-t|rank - {level:g}n|), t = {calibration.scale:.6g} "
        f"({calibration.scale / plain_scale(epsilon, mech.utility_sensitivity):.3g} "
        "times the plain scale), the "
        f"largest whose exact privacy loss on m={calibration.run.m} pairs drawn from "
        f"the population model has order statistic k={calibration.run.k} at most "
        f"epsilon (run {calibration.run.run_id})"
    )
    if bounds is None:
        grid = (
            f"no bounds; sampled exactly on the wide public grid of "
            f"{mech.grid_size + 1} points, 0 and +-10^(j/{WIDE_GRID_PER_DECADE}) from "
            f"1e{WIDE_GRID_DECADES[0]} to 1e{WIDE_GRID_DECADES[1]} (steps of 0.23%),"
        )
    else:
        grid = (
            f"over [{printing.value(bounds.low)}, {printing.value(bounds.high)}]; sampled "
            "exactly on a grid "
            f"of {mech.grid_size + 1} points (step "
            f"{(mech.high - mech.low) / mech.grid_size:.3g})"
        )
    noise = (
        f"utility -|rank - {level:g}n| of sensitivity "
        f"{mech.utility_sensitivity:g}, {weights}, {grid} from the OS's secure "
        "generator, whatever the noise mechanism"
    )
    return mech, mech.privacy, noise



def build_mechanism(
    name, estimate, epsilon, delta, granularity, dimension, worst_case_epsilon=None
):
    """(mechanism, its (epsilon, delta) statement, the noise in words).

    Parameters
    ----------
    name : {"laplace", "gaussian", "discrete-laplace", "discrete-gaussian"}
        The mechanism (:data:`RELEASE_MECHANISMS`).
    estimate : SensitivityEstimate or float
        A sampled estimate, or a number: a global sensitivity (the worst case
        of a query on records clipped to private bounds).
    epsilon, delta : float
        The release's (delta 0 for the Laplace mechanisms).
    granularity : float or None
        The discrete mechanisms' grid step (None: :func:`default_granularity`).
    dimension : int
        Coordinates released (the discrete mechanisms' noise vector).
    worst_case_epsilon : float, optional
        Cap on the worst-case epsilon (default 10 epsilon): the noise is raised
        to meet it.

    Returns
    -------
    (Mechanism, PrivacyStatement, str)
        The mechanism, what it states (the discrete Gaussian's zCDP converted to
        (epsilon, delta), Canonne, Kamath & Steinke 2020, Prop. 12) and its
        noise in words.
    """
    if name == "laplace":
        mech = LaplaceMechanism(estimate, epsilon, worst_case_epsilon)
        scale = printing.sensitivity(np.max(mech.scale))
        return mech, mech.privacy, f"Laplace noise of scale {scale}"
    if name == "gaussian":
        mech = GaussianMechanism(
            estimate, epsilon, delta, worst_case_epsilon=worst_case_epsilon
        )
        return mech, mech.privacy, f"Gaussian noise of sigma {printing.sensitivity(mech.sigma)}"
    sampled = getattr(estimate, "sensitivity", None)
    base = float(np.max(sampled.value)) if sampled is not None else float(estimate)
    if base == 0.0:  # a sampled 0: the grid follows the worst case
        base = getattr(estimate, "worst_case", None) or 0.0
    grid = granularity or default_granularity(base)
    if name == "discrete-laplace":
        mech = DiscreteLaplaceMechanism(
            estimate,
            epsilon,
            granularity=grid,
            dimension=dimension,
            worst_case_epsilon=worst_case_epsilon,
        )
        return mech, mech.privacy, (
            f"discrete Laplace noise of scale {printing.sensitivity(mech.scale)} on the grid "
            f"{grid:g}Z"
        )
    rho = rho_for(epsilon, delta)
    cap_epsilon = worst_case_epsilon or 10.0 * epsilon
    cap = rho_for(cap_epsilon, delta)
    while True:
        mech = DiscreteGaussianMechanism(
            estimate, rho=rho, granularity=grid, dimension=dimension,
            worst_case_rho=cap,
        )
        stated = mech.privacy.epsilon_for(delta)
        worst = mech.privacy.worst_case
        worst_epsilon = None if worst is None else worst.epsilon_for(delta)
        if stated <= epsilon and (worst_epsilon is None or worst_epsilon <= cap_epsilon):
            break
        if stated > epsilon:
            rho *= 1.0 - 1e-9
        if worst_epsilon is not None and worst_epsilon > cap_epsilon:
            cap *= (cap_epsilon / worst_epsilon) ** 2 * (1.0 - 1e-9)  # rho ~ eps^2
    # rho-zCDP converted to (epsilon, delta)-DP (CKS 2020, Prop. 12): what is spent,
    # and likewise for every pair
    if worst is not None:
        worst = replace(worst, epsilon=worst_epsilon, delta=delta)
    statement = replace(mech.privacy, epsilon=stated, delta=delta, worst_case=worst)
    return mech, statement, (
        f"discrete Gaussian noise of sigma {printing.sensitivity(mech.sigma)} on the grid "
        f"{grid:g}Z "
        f"(rho={printing.rho(mech.rho)}-zCDP)"
    )
