"""Write the synthetic heights files the documentation's commands read.

``private_heights.csv`` (1 000 records) stands for a data custodian's private file
and ``public_heights.csv`` (400 records) for a public table of the same column, drawn
independently from the same population: a mixture of two normal distributions of
heights in cm (178 ± 7 and 162 ± 6.5, half each), the heights example's population.
Both are synthetic: no person's height is in them.

Run from the repository root to write them again (the same bytes every time)::

    python examples/data/make_heights.py
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {"private_heights.csv": (1000, 2017), "public_heights.csv": (400, 2012)}


def heights(n: int, seed: int) -> np.ndarray:
    """Draw n heights (cm, one decimal) from the heights example's mixture."""
    rng = np.random.default_rng(seed)
    tall = rng.random(n) < 0.5
    values = np.where(tall, rng.normal(178, 7, n), rng.normal(162, 6.5, n))
    return np.round(values, 1)


def main() -> None:
    """Write both files beside this script."""
    for name, (n, seed) in FILES.items():
        lines = ["height"] + [f"{value:.1f}" for value in heights(n, seed)]
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
