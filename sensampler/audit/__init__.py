"""Audit what is stated, from outside: mechanisms and sampled sensitivities.

* :func:`audit_mechanism`: an empirical lower confidence bound on the epsilon a
  mechanism realises between two neighbouring inputs (DP-Sniper /
  DP-Auditorium style), against its statement.
* :func:`audit_estimate`: the rate at which fresh neighbouring pairs, from the
  estimate's own population or another one, exceed a sampled sensitivity, with
  an exact confidence interval, against its gamma.
* :func:`compare_populations`: every candidate population's estimate audited
  under every other one (cross-coverage), and :func:`conservative_choice`.
"""

from .estimate import MAX_AUDIT_PAIRS, CoverageAudit, audit_estimate
from .mechanism import MAX_RELEASES, MechanismAudit, RejectionSet, audit_mechanism
from .populations import (
    PopulationChoice,
    PopulationComparison,
    compare_populations,
    conservative_choice,
)

__all__ = [
    "audit_mechanism",
    "MechanismAudit",
    "RejectionSet",
    "MAX_RELEASES",
    "audit_estimate",
    "CoverageAudit",
    "MAX_AUDIT_PAIRS",
    "compare_populations",
    "PopulationComparison",
    "conservative_choice",
    "PopulationChoice",
]
