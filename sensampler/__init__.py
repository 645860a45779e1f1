"""sensampler: random differential privacy with sampled sensitivities.

The sensitivity sampler of Rubinstein & Aldà (ICML 2017), vectorised and
parallel, with sampling plans, mechanisms and accounting around it.
"""

from . import accounting, mechanisms, norms, queries
from ._version import __version__
from .estimate import SensitivityEstimate, SensitivityEstimates, SensitivityValue
from .plan import SamplingPlan, certified_gamma, sampling_plan
from .sampler import SensitivitySampler, sample_sensitivity

__all__ = [
    "__version__",
    "SamplingPlan",
    "sampling_plan",
    "certified_gamma",
    "SensitivityEstimate",
    "SensitivityEstimates",
    "SensitivityValue",
    "SensitivitySampler",
    "sample_sensitivity",
    "queries",
    "norms",
    "mechanisms",
    "accounting",
]
