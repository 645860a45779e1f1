"""sensampler: random differential privacy with sampled sensitivities.

The sensitivity sampler of Rubinstein & Aldà (ICML 2017), vectorised and
parallel, with sampling plans, mechanisms and accounting around it.

``import sensampler`` is light: the names below and the subpackages load on
first use (PEP 562), as in SciPy and scikit-learn, so ``from sensampler import
sample_sensitivity`` and ``sensampler.accounting`` work as if imported eagerly.

The layers show in the folders. The public core modules sit at the root
(``sampler``, ``plan``, ``queries``, ``norms``, ``bounds``, ``privacy``,
``settings``, ``parallel``, ``table``, ``quantile_calibration``) beside the core
subpackages (``distributions``, ``estimate``, ``mechanisms``, ``accounting``,
``audit``, ``models``); private helpers are grouped by kind: ``_math`` (formulas
with their proofs), ``_lib`` (plumbing), ``_sampling`` (the sampler's internals)
and ``_display`` (text and HTML). The application layer on top of the core (the
command line, releases, budget and data files, the demo, reports, planning,
figures, experiments) is :mod:`sensampler.app`, which the core never imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lib.lazy import lazy_attributes

#: The version of the package (the build reads it from here).
__version__ = "0.1.0"

if TYPE_CHECKING:  # what type checkers see; at run time the names load lazily
    from . import accounting, mechanisms, norms, queries
    from .estimate import SensitivityEstimate, SensitivityEstimates, SensitivityValue
    from .plan import SamplingPlan, certified_gamma, sampling_plan
    from .quantile_calibration import calibrate_quantile
    from .sampler import SensitivitySampler, sample_sensitivity

#: Public names defined in a submodule: name -> the module that defines it.
_NAMES = {
    "SamplingPlan": "plan",
    "sampling_plan": "plan",
    "certified_gamma": "plan",
    "SensitivityEstimate": "estimate",
    "SensitivityEstimates": "estimate",
    "SensitivityValue": "estimate",
    "SensitivitySampler": "sampler",
    "sample_sensitivity": "sampler",
    "calibrate_quantile": "quantile_calibration",
}

#: Public modules, reachable as attributes (``sensampler.accounting``).
_SUBMODULES = (
    "accounting",
    "app",
    "audit",
    "distributions",
    "estimate",
    "mechanisms",
    "models",
    "norms",
    "parallel",
    "plan",
    "privacy",
    "quantile_calibration",
    "queries",
    "sampler",
    "settings",
    "table",
    "units",
)

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
    "calibrate_quantile",
    "queries",
    "norms",
    "mechanisms",
    "accounting",
]


__getattr__, __dir__ = lazy_attributes(__name__, _NAMES, _SUBMODULES, __all__)
