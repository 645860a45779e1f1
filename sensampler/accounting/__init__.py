"""Privacy accounting: composition theorems, filters, Rényi and zCDP accountants.

Every accountant reports (epsilon, delta, gamma): gamma is the random-DP
failure probability of the sampled sensitivities behind the releases, added
once per sampling run.
"""

from ._ledger import ExceededPrivacyBudgetError, PrivacySpend
from .composition import (
    CompositionBound,
    advanced_composition,
    basic_composition,
    optimal_composition,
    parallel_composition,
    tightest_composition,
)
from .filters import PrivacyFilter, advanced_filter_bound
from .renyi import DEFAULT_ORDERS, RenyiAccountant, rdp_to_dp
from .zcdp import ZCDPAccountant, zcdp_to_dp

__all__ = [
    "basic_composition",
    "parallel_composition",
    "advanced_composition",
    "optimal_composition",
    "tightest_composition",
    "CompositionBound",
    "PrivacyFilter",
    "advanced_filter_bound",
    "ExceededPrivacyBudgetError",
    "PrivacySpend",
    "RenyiAccountant",
    "rdp_to_dp",
    "DEFAULT_ORDERS",
    "ZCDPAccountant",
    "zcdp_to_dp",
]
