"""Public API of the sampler, mechanisms and accountants, as users type it.

Type-checked by tests/test_typing.py (pyright), never run.
"""

from sensampler.distributions import GaussianMixture
from typing_extensions import assert_type

from sensampler import SensitivityEstimate, queries, sample_sensitivity
from sensampler.accounting import PrivacyFilter, RenyiAccountant
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism

heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
est = sample_sensitivity(queries.mean, heights, n=500, gamma=0.05, random_state=0)
assert_type(est, SensitivityEstimate)
assert_type(est.sensitivity, float)
assert_type(est.gamma, float)
sensitivity, mean = est
laplace = LaplaceMechanism(est, epsilon=0.5)
gauss = GaussianMechanism(1.0, epsilon=0.5, delta=1e-6, variant="analytic")
assert_type(gauss.sigma, float)
budget = PrivacyFilter(epsilon=1.0, delta=1e-5)
budget.spend(0.5)
accountant = RenyiAccountant()
accountant.compose(gauss, count=10)
assert_type(accountant.epsilon(1e-5), float)
