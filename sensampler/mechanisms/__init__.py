"""Mechanisms that take a sampled sensitivity and state their guarantee honestly.

A sensitivity may be a plain number or array (a global bound you vouch for), a
:class:`~sensampler.SensitivityEstimate` or a sampled
:class:`~sensampler.estimate.SensitivityValue` (the mechanism checks the norm
against its ``accepted_norms`` and states the sampling run and its gamma: the
release is random-DP), or a typical or derived value (the statement then
guarantees nothing, and accountants refuse it). Every mechanism has
``release(value, *, random_state=None)``, ``check_release`` and a frozen
``privacy`` statement (:class:`~sensampler.privacy.PrivacyStatement`).

Mechanisms are immutable: once built, assigning or deleting any attribute
raises :class:`AttributeError`, and the statement, computed once at
construction, always matches the noise. ``mechanism.recalibrate(epsilon=...)``
returns a new mechanism built with the changed arguments, like
:func:`dataclasses.replace`.

The accuracy of their noise, before anything is drawn (the law of
``|M(D) - f(D)|`` over sampled sensitivities), is in
:mod:`sensampler.mechanisms.accuracy` (``NOISE_MODELS``, ``QuantileErrorModel``).
"""

from ._base import Mechanism
from .catastrophe import CatastropheMechanism
from .discrete import ExponentialMechanism, RandomizedResponse
from .gaussian import (
    GaussianMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_epsilon,
)
from .laplace import LaplaceMechanism, laplace_rdp
from .quantile import ExponentialQuantileMechanism, QuantileCalibration
from .secure import DiscreteGaussianMechanism, DiscreteLaplaceMechanism

__all__ = [
    "Mechanism",
    "LaplaceMechanism",
    "GaussianMechanism",
    "RenyiGaussianMechanism",
    "ZCDPGaussianMechanism",
    "ExponentialMechanism",
    "ExponentialQuantileMechanism",
    "QuantileCalibration",
    "RandomizedResponse",
    "CatastropheMechanism",
    "DiscreteLaplaceMechanism",
    "DiscreteGaussianMechanism",
    "laplace_rdp",
    "classic_gaussian_sigma",
    "analytic_gaussian_sigma",
    "analytic_gaussian_delta",
    "gaussian_epsilon",
]
