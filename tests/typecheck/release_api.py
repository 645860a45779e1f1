"""Public API of the sampler, mechanisms and accountants, as users type it.

Type-checked by tests/test_typing.py (pyright), never run.
"""

from typing import assert_type

import numpy as np

from sensampler import (
    SensitivityEstimate,
    SensitivityValue,
    queries,
    sample_sensitivity,
)
from sensampler.accounting import (
    PrivacyFilter,
    RenyiAccountant,
    ZCDPAccountant,
    advanced_composition,
    basic_composition,
    parallel_composition,
    tightest_composition,
)
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism
from sensampler.privacy import PrivacyBound

heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
est = sample_sensitivity(queries.mean, heights, n=500, gamma=0.05, random_state=0)
assert_type(est, SensitivityEstimate)
assert_type(est.sensitivity, SensitivityValue)
assert_type(est.typical(2), SensitivityValue)
assert_type(est.gamma, float)
sensitivity, mean = est
laplace = LaplaceMechanism(est, epsilon=0.5)
gauss = GaussianMechanism(1.0, epsilon=0.5, delta=1e-6, variant="analytic")
assert_type(gauss.sigma, float | np.ndarray)
assert_type(laplace.scale, float | np.ndarray)
budget = PrivacyFilter(epsilon=1.0, delta=1e-5)
budget.spend(0.5)
accountant = RenyiAccountant()
accountant.compose(gauss, count=10)
assert_type(accountant.epsilon(1e-5), float)
assert_type(ZCDPAccountant().epsilon(1e-5), float)
assert_type(basic_composition([0.1, 0.2], [0.0, 1e-6]), PrivacyBound)
assert_type(basic_composition(0.1, k=10), PrivacyBound)
assert_type(parallel_composition([0.1, 0.5]), PrivacyBound)
assert_type(advanced_composition(0.1, 0.0, 10, 1e-6), PrivacyBound)
assert_type(tightest_composition(0.1, 0.0, 10, 1e-6), PrivacyBound)
