"""Privacy accounting: composition theorems, filters, Rényi and zCDP accountants.

Accountants and filters share one interface (:class:`PrivacyAccountant`:
``compose``, ``epsilon(delta)``, ``delta(epsilon)``, ``gamma``, a ledger,
``record_run``) and one result type with the composition functions,
:class:`~sensampler.privacy.PrivacyBound` (epsilon, delta, gamma, method),
which unpacks as ``(epsilon, delta)``. gamma is the random-DP failure
probability of the sampled sensitivities behind the releases: added once per
sampling run, and once per release for an anonymous one.
"""

from ..privacy import DEFAULT_ORDERS, PrivacyBound, rdp_to_dp, zcdp_to_dp
from ._ledger import ExceededPrivacyBudgetError, LedgerEntry, PrivacyAccountant
from .composition import (
    advanced_composition,
    basic_composition,
    optimal_composition,
    parallel_composition,
    tightest_composition,
)
from .filters import PrivacyFilter, advanced_filter_bound
from .renyi import RenyiAccountant, rdp_to_delta
from .zcdp import ZCDPAccountant, zcdp_to_delta

__all__ = [
    "basic_composition",
    "parallel_composition",
    "advanced_composition",
    "optimal_composition",
    "tightest_composition",
    "PrivacyBound",
    "PrivacyAccountant",
    "LedgerEntry",
    "PrivacyFilter",
    "advanced_filter_bound",
    "ExceededPrivacyBudgetError",
    "RenyiAccountant",
    "rdp_to_dp",
    "rdp_to_delta",
    "DEFAULT_ORDERS",
    "ZCDPAccountant",
    "zcdp_to_dp",
    "zcdp_to_delta",
]
