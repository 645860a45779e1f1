"""Cost of exact, secure noise: draws per second against numpy's float noise.

numpy draws Laplace and normal noise in vectorised C from a seeded PRNG; the exact
discrete samplers (Canonne, Kamath & Steinke 2020) run rejection loops in Python
rational arithmetic on the operating system's secure generator. This prints the
draws per second of each, side by side, and the ratio, for a few scales (in grid
units: the noise scale divided by the granularity). Not a test; always exits 0.

    python benchmarks/secure_noise.py            # ~20 s
    python benchmarks/secure_noise.py --quick    # a few seconds
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from sensampler._math.exact_sampling import (
    SECURE_RANDOM,
    discrete_gaussian,
    discrete_laplace,
)


def draws_per_second(draw, size):
    """Best of three: ``draw(size)`` returning ``size`` draws, timed."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        draw(size)
        best = min(best, time.perf_counter() - start)
    return size / best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer draws")
    args = parser.parse_args(argv)
    n_exact = 2_000 if args.quick else 20_000
    n_numpy = 1_000_000
    rng = np.random.default_rng(0)
    print(f"{'law':<20}{'scale':>8}{'numpy /s':>14}{'exact /s':>12}{'ratio':>8}")
    for scale in (Fraction(1), Fraction(10), Fraction(1000), Fraction(10**6)):
        rows = [
            (
                "Laplace",
                lambda size, b=float(scale): rng.laplace(0.0, b, size),
                lambda size, t=scale: [
                    discrete_laplace(t, SECURE_RANDOM) for _ in range(size)
                ],
            ),
            (
                "Gaussian (sigma)",
                lambda size, s=float(scale): rng.normal(0.0, s, size),
                lambda size, s2=scale**2: [
                    discrete_gaussian(s2, SECURE_RANDOM) for _ in range(size)
                ],
            ),
        ]
        for law, fast, exact in rows:
            numpy_rate = draws_per_second(fast, n_numpy)
            exact_rate = draws_per_second(exact, n_exact)
            print(
                f"{law:<20}{float(scale):>8g}{numpy_rate:>14.3g}"
                f"{exact_rate:>12.3g}{numpy_rate / exact_rate:>8.0f}"
            )


if __name__ == "__main__":
    main()
