"""Write the synthetic purchases files the documentation's commands read.

``private_purchases.csv`` stands for a data custodian's private table of several
rows per person: 300 customers, each with a geometric number of purchases
(mean about 3, a tail past ten) of a log-normal amount (median about 20).
``public_purchases.csv`` (100 customers) is a public table of the same columns,
drawn independently from the same population. Both are synthetic: no person's
purchases are in them. Columns: ``customer`` (the person) and ``amount``.

Run from the repository root to write them again (the same bytes every time)::

    python examples/data/make_purchases.py
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {"private_purchases.csv": (300, 2040), "public_purchases.csv": (100, 2041)}


def purchases(customers: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The customer of each purchase and its amount (two decimals)."""
    rng = np.random.default_rng(seed)
    counts = rng.geometric(1 / 3, size=customers)
    amounts = np.round(rng.lognormal(3.0, 0.6, size=counts.sum()), 2)
    return np.repeat(np.arange(1, customers + 1), counts), amounts


def main() -> None:
    """Write both files beside this script."""
    for name, (customers, seed) in FILES.items():
        ids, amounts = purchases(customers, seed)
        prefix = "c" if name.startswith("private") else "p"
        lines = ["customer,amount"] + [
            f"{prefix}{i:04d},{a:.2f}" for i, a in zip(ids, amounts)
        ]
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
