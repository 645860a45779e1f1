"""How many releases each privacy filter admits for the same budget.

Budget (epsilon, delta) = (1, 1e-6); every release is a pure epsilon-DP step
(a Laplace release at epsilon per query). Columns:

- basic: ``PrivacyFilter(rule="basic")``, sum of epsilons <= 1;
- Rogers: ``PrivacyFilter(rule="advanced")``, Rogers et al. (2016), Thm. 5.1;
- Whitehouse: Whitehouse, Ramdas, Rogers & Wu (2023), fully adaptive;
- Rényi: Feldman & Zrnic (2021), Laplace steps at their exact Rényi curve, the
  order fixed in advance (the best of a grid for this step; classic and improved
  conversions);
- KOV: the exact optimal composition (Kairouz, Oh & Viswanath 2017) of a number
  of steps fixed in advance — not a filter, the non-adaptive ceiling for any
  epsilon-DP steps.

    python benchmarks/filters.py        # ~1 minute
"""

from __future__ import annotations

import contextlib

import numpy as np

from sensampler.accounting import ExceededPrivacyBudgetError, PrivacyFilter
from sensampler.accounting._filter_rules import (
    renyi_filter_budget,
    renyi_filter_count,
    whitehouse_filter_count,
)
from sensampler.accounting._kov import homogeneous_count
from sensampler.accounting.renyi import DEFAULT_ORDERS
from sensampler.mechanisms.laplace import laplace_rdp

EPSILON, DELTA = 1.0, 1e-6
ORDERS = np.unique(np.concatenate([DEFAULT_ORDERS, np.arange(2.0, 200.0, 0.25)]))


def filter_count(rule, eps):
    """Spends of ``eps`` a fresh PrivacyFilter admits before refusing one."""
    f = PrivacyFilter(EPSILON, DELTA, rule=rule)
    with contextlib.suppress(ExceededPrivacyBudgetError):
        while True:
            f.spend(eps)
    return f.count


def renyi_count(eps, conversion):
    """Best count over orders fixed in advance, and that order."""
    best = max(
        (
            renyi_filter_count(
                laplace_rdp(a, 1.0 / eps),
                renyi_filter_budget(EPSILON, DELTA, a, conversion),
            ),
            a,
        )
        for a in ORDERS
    )
    return best[0], float(best[1])


def main():
    names = ["basic", "Rogers", "Whitehouse", "Renyi", "Renyi impr.", "KOV"]
    print(f"releases admitted, budget ({EPSILON:g}, {DELTA:g}), pure eps-DP steps")
    print(f"{'eps/query':>10}" + "".join(f"{n:>13}" for n in names))
    for eps in (0.01, 0.001):
        classic, a_classic = renyi_count(eps, "classic")
        improved, a_improved = renyi_count(eps, "improved")
        row = [
            filter_count("basic", eps),
            filter_count("advanced", eps),
            whitehouse_filter_count(eps, EPSILON, DELTA),
            classic,
            improved,
            homogeneous_count(eps, 0.0, EPSILON, DELTA),
        ]
        print(f"{eps:>10g}" + "".join(f"{n:>13,}".replace(",", " ") for n in row))
        print(
            f"{'':>10}  (Renyi orders: {a_classic:g} classic, {a_improved:g} improved)"
        )


if __name__ == "__main__":
    main()
