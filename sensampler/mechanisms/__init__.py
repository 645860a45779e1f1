"""Mechanisms that take a sampled sensitivity and state their guarantee honestly.

A sensitivity may be a float (a global bound you vouch for), an array of
per-coordinate sensitivities, or a :class:`~sensampler.SensitivityEstimate`, in
which case the mechanism checks the norm and carries the estimate's gamma: the
release is then random-DP.
"""

from ._base import Mechanism, PrivacyGuarantee
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
from .secure import DiscreteGaussianMechanism, DiscreteLaplaceMechanism

__all__ = [
    "Mechanism",
    "PrivacyGuarantee",
    "LaplaceMechanism",
    "GaussianMechanism",
    "RenyiGaussianMechanism",
    "ZCDPGaussianMechanism",
    "ExponentialMechanism",
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
