"""Privacy-loss-distribution accounting: tightness against the Rényi accountant, and time.

For each composition, prints the Rényi accountant's epsilon, the PLD epsilon
(``sensampler.accounting.pld``), the exact value where one is known (k-fold
Gaussian = one Gaussian with sigma/sqrt(k), Balle & Wang's exact delta), a lower
bound (dp_accounting's optimistic discretisation) and the time of the PLD call.

    python benchmarks/pld.py            # ~1 minute
"""

from __future__ import annotations

import logging
import math
import time

from dp_accounting.pld import privacy_loss_distribution

from sensampler.accounting import RenyiAccountant
from sensampler.accounting.pld import pld_epsilon
from sensampler.mechanisms import LaplaceMechanism
from sensampler.mechanisms.gaussian import ZCDPGaussianMechanism, gaussian_epsilon

DELTA = 1e-5


def renyi_epsilon(mechanism, count):
    acc = RenyiAccountant()
    acc.compose(mechanism, count)
    return acc.epsilon(DELTA)


def laplace_lower(scale, count, interval=2e-5):
    """Optimistic (dominated) discretisation: a lower bound on the true epsilon."""
    return (
        privacy_loss_distribution.from_laplace_mechanism(
            scale,
            pessimistic_estimate=False,
            value_discretization_interval=interval,
            use_connect_dots=False,
        )
        .self_compose(count)
        .get_epsilon_for_delta(DELTA)
    )


def main():
    logging.getLogger().setLevel(logging.ERROR)  # the optimistic path warns
    header = (
        f"{'composition':<34}{'Renyi':>9}{'PLD':>9}{'exact/low':>11}{'PLD time':>10}"
    )
    print(f"epsilon at delta = {DELTA:g}, unit sensitivity\n{header}")
    for sigma, k in [(2.0, 100), (30.0, 10_000), (100.0, 10_000)]:
        start = time.perf_counter()
        ours = pld_epsilon([("gaussian", sigma, k)], DELTA)
        elapsed = time.perf_counter() - start
        rdp = renyi_epsilon(ZCDPGaussianMechanism(1.0, rho=1 / (2 * sigma**2)), k)
        exact = gaussian_epsilon(sigma / math.sqrt(k), DELTA)
        print(
            f"{f'{k} x Gaussian sigma={sigma:g}':<34}{rdp:>9.4f}{ours:>9.4f}"
            f"{exact:>11.4f}{elapsed:>9.2f}s   (exact; PLD/exact - 1 = "
            f"{ours / exact - 1:.1e})"
        )
    for scale, k in [(10.0, 100), (10.0, 1000), (30.0, 10_000), (100.0, 10_000)]:
        start = time.perf_counter()
        ours = pld_epsilon([("laplace", scale, k)], DELTA)
        elapsed = time.perf_counter() - start
        rdp = renyi_epsilon(LaplaceMechanism(1.0, 1.0 / scale), k)
        low = laplace_lower(scale, k)
        print(
            f"{f'{k} x Laplace b={scale:g}':<34}{rdp:>9.4f}{ours:>9.4f}"
            f"{low:>11.4f}{elapsed:>9.2f}s   (lower bound; PLD/low - 1 = "
            f"{ours / low - 1:.1e})"
        )


if __name__ == "__main__":
    main()
