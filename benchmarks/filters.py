"""How many releases each privacy filter admits for the same budget.

Budget (epsilon, delta) = (1, 1e-6); every release is a Laplace release at
epsilon per query (pure epsilon-DP). Columns, all public classes of
``sensampler.accounting`` except the last:

- basic: ``PrivacyFilter(rule="basic")``, sum of epsilons <= 1;
- Rogers: ``PrivacyFilter(rule="advanced")``, Rogers et al. (2016), Thm. 5.1;
- Whitehouse: ``WhitehouseFilter``, Whitehouse, Ramdas, Rogers & Wu (2023);
- Renyi: ``RenyiFilter`` (Feldman & Zrnic 2021), the Laplace releases at their
  exact Rényi cost, the order chosen at the first spend and kept (improved and
  classic conversions);
- KOV: the exact optimal composition (Kairouz, Oh & Viswanath 2017) of a number
  of steps fixed in advance — not a filter, the non-adaptive ceiling for any
  epsilon-DP steps.

A count is the length of the longest run of identical releases the filter
admits; ``compose(mech, count=n)`` admits exactly when n sequential spends
would (the totals are the same), so it is found by bisection.

    python benchmarks/filters.py        # ~10 seconds
"""

from __future__ import annotations

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    RenyiFilter,
    WhitehouseFilter,
)
from sensampler.accounting._kov import homogeneous_count
from sensampler.mechanisms import LaplaceMechanism

EPSILON, DELTA = 1.0, 1e-6

FILTERS = {
    "basic": lambda: PrivacyFilter(EPSILON, DELTA, rule="basic"),
    "Rogers": lambda: PrivacyFilter(EPSILON, DELTA, rule="advanced"),
    "Whitehouse": lambda: WhitehouseFilter(EPSILON, DELTA),
    "Renyi": lambda: RenyiFilter(EPSILON, DELTA),
    "Renyi cl.": lambda: RenyiFilter(EPSILON, DELTA, conversion="classic"),
}


def admits(make_filter, mechanism, n):
    try:
        make_filter().compose(mechanism, count=n)
    except ExceededPrivacyBudgetError:
        return False
    return True


def admitted(make_filter, mechanism):
    """Largest n such that a fresh filter admits n releases of ``mechanism``."""
    if not admits(make_filter, mechanism, 1):
        return 0
    lo, hi = 1, 2
    while admits(make_filter, mechanism, hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if admits(make_filter, mechanism, mid) else (lo, mid)
    return lo


def main():
    names = [*FILTERS, "KOV (fixed k)"]
    print(f"releases admitted, budget ({EPSILON:g}, {DELTA:g}), Laplace releases")
    print(f"{'eps/query':>10}" + "".join(f"{n:>14}" for n in names))
    for eps in (0.1, 0.01, 0.001):
        mechanism = LaplaceMechanism(1.0, eps)
        row = [admitted(make, mechanism) for make in FILTERS.values()]
        row.append(homogeneous_count(eps, 0.0, EPSILON, DELTA))
        print(f"{eps:>10g}" + "".join(f"{n:>14,}".replace(",", " ") for n in row))


if __name__ == "__main__":
    main()
