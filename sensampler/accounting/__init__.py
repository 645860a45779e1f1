"""Privacy accounting: composition theorems, filters, Rényi, zCDP and PLD accountants.

Accountants and filters share one interface (:class:`PrivacyAccountant`:
``compose``, ``epsilon(delta)``, ``delta(epsilon)``, ``gamma``, a ledger,
``record_run``) and one result type with the composition functions,
:class:`~sensampler.privacy.PrivacyBound` (epsilon, delta, gamma, method),
which unpacks as ``(epsilon, delta)``. gamma is the random-DP failure
probability of the sampled sensitivities behind the releases: added once per
sampling run, and once per release for an anonymous one.

One rule for every accountant and filter:

* ``epsilon(delta)`` takes any ``0 <= delta <= 1``. At ``delta = 0`` it is the
  pure-DP epsilon where one holds (every release pure: basic or exact optimal
  composition; a filter's spent epsilon when its spent delta is 0) and ``inf``
  otherwise; at ``delta = 1`` every accountant reports 0. Outside [0, 1], NaN
  or not a real number, it raises naming ``delta``.
* ``delta(epsilon)`` takes any ``epsilon >= 0`` and is in [0, 1], never negative.
* Nothing composed (an empty ledger, or sampling runs only) is 0 at every delta.
* Every statement's numbers are checked when composed (epsilon and rho finite
  and ``>= 0``, delta in [0, 1], Rényi values not NaN nor below -1e-9), and a
  refused statement records nothing.
* Every report is a valid upper bound: where several hold, the smallest is
  reported and :meth:`PrivacyAccountant.report` names it in ``method``.

The interface, the ledger entry, the filter and the default budget load with the
package; the composition functions and the other accountants and filters load on
first use (PEP 562), so ``sensampler.accounting.PLDAccountant`` works as if
imported eagerly while a release, which spends from a filter only, never loads
scipy.special, scipy.optimize nor dp_accounting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lib.lazy import lazy_attributes
from ..privacy import DEFAULT_ORDERS, rdp_to_dp, zcdp_to_dp
from ._accountant import ExceededPrivacyBudgetError, PrivacyAccountant
from ._default import default_filter, get_default_filter, set_default_filter
from ._ledger_entry import LedgerEntry
from .filters import PrivacyFilter, advanced_filter_bound

if TYPE_CHECKING:  # what type checkers see; at run time the names load lazily
    from .composition import (
        advanced_composition,
        basic_composition,
        heterogeneous_composition,
        optimal_composition,
        parallel_composition,
        tightest_composition,
    )
    from .pld import PLDAccountant
    from .renyi import RenyiAccountant, rdp_to_delta
    from .renyi_filter import RenyiFilter
    from .whitehouse_filter import WhitehouseFilter
    from .zcdp import ZCDPAccountant, zcdp_to_delta

#: Public names loaded on first use (PEP 562): name -> the module that defines it.
#: Their modules import scipy.special and scipy.optimize (the exact composition,
#: the Rényi and zCDP conversions) or dp_accounting (the PLD), which a budget
#: filter and a release never need.
_LAZY_NAMES = {
    "advanced_composition": "composition",
    "basic_composition": "composition",
    "heterogeneous_composition": "composition",
    "optimal_composition": "composition",
    "parallel_composition": "composition",
    "tightest_composition": "composition",
    "PLDAccountant": "pld",
    "RenyiAccountant": "renyi",
    "rdp_to_delta": "renyi",
    "RenyiFilter": "renyi_filter",
    "WhitehouseFilter": "whitehouse_filter",
    "ZCDPAccountant": "zcdp",
    "zcdp_to_delta": "zcdp",
}

#: Public modules, reachable as attributes (``sensampler.accounting.pld``).
_SUBMODULES = (
    "composition",
    "filters",
    "pld",
    "renyi",
    "renyi_filter",
    "whitehouse_filter",
    "zcdp",
)

__all__ = [
    "advanced_composition",
    "advanced_filter_bound",
    "basic_composition",
    "default_filter",
    "DEFAULT_ORDERS",
    "ExceededPrivacyBudgetError",
    "get_default_filter",
    "heterogeneous_composition",
    "LedgerEntry",
    "optimal_composition",
    "parallel_composition",
    "PLDAccountant",
    "PrivacyAccountant",
    "PrivacyFilter",
    "rdp_to_delta",
    "rdp_to_dp",
    "RenyiAccountant",
    "RenyiFilter",
    "set_default_filter",
    "tightest_composition",
    "WhitehouseFilter",
    "zcdp_to_delta",
    "zcdp_to_dp",
    "ZCDPAccountant",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY_NAMES, _SUBMODULES, __all__)
