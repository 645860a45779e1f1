r"""Exact samplers for Bernoulli(exp(-gamma)), discrete Laplace and discrete Gaussian.

Every draw uses integer and rational arithmetic only (:class:`fractions.Fraction`)
and uniform integers from ``rng.randrange``, so no floating-point rounding can bias
the law or make it depend on the value being protected (the attack of Mironov,
CCS 2012, on textbook floating-point Laplace noise). The algorithms are those of
Canonne, Kamath & Steinke [1]_: Algorithm 1 (Bernoulli(exp(-gamma)) for rational
gamma), Algorithm 2 (discrete Laplace of rational scale) and Algorithm 3 (discrete
Gaussian of rational variance parameter).

The source of randomness is ``rng``, any object with a ``randrange(n)`` method
returning a uniform integer in ``{0, ..., n - 1}``. By default it is
:class:`random.SystemRandom`, which reads the operating system's cryptographically
secure generator (the one behind :mod:`secrets`); tests pass a seeded
:class:`random.Random` to be reproducible. The running time is random (it is a
rejection sampler), so these samplers do not hide timing.

References
----------
.. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020 (arXiv:2004.00010).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from numbers import Rational

__all__ = [
    "SECURE_RANDOM",
    "as_fraction",
    "bernoulli",
    "bernoulli_exp",
    "discrete_laplace",
    "discrete_gaussian",
]

#: The default source: the operating system's cryptographically secure generator.
SECURE_RANDOM = random.SystemRandom()


def as_fraction(name: str, value) -> Fraction:
    """Return ``value`` (an int, a Fraction or a finite float) as an exact Fraction.

    A float converts exactly (every finite float is a dyadic rational).
    """
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a rational number, got {value!r}.")
    if isinstance(value, Rational):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {name}={value!r}.")
        return Fraction(value)
    raise TypeError(f"{name} must be a rational number, got {value!r}.")


def bernoulli(p: Fraction, rng=SECURE_RANDOM) -> bool:
    """Exact Bernoulli(p) for a rational ``0 <= p <= 1``: one uniform integer."""
    return rng.randrange(p.denominator) < p.numerator


def bernoulli_exp(gamma, rng=SECURE_RANDOM) -> bool:
    r"""Exact Bernoulli(:math:`e^{-\gamma}`) for a rational :math:`\gamma \ge 0`.

    CKS 2020, Algorithm 1. For :math:`\gamma \le 1`, draw
    :math:`A_k \sim \mathrm{Bernoulli}(\gamma/k)` for k = 1, 2, ... until the
    first failure at K; then :math:`P[K > k] = \gamma^k/k!` and
    :math:`P[K \text{ odd}] = \sum_k (-\gamma)^k/k! = e^{-\gamma}`. For
    :math:`\gamma > 1`, :math:`e^{-\gamma} = (e^{-1})^{\lfloor\gamma\rfloor}
    e^{-(\gamma - \lfloor\gamma\rfloor)}` is a product of independent trials.
    """
    gamma = as_fraction("gamma", gamma)
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got gamma={gamma!r}.")
    return _bernoulli_exp(gamma.numerator, gamma.denominator, rng)


def _bernoulli_exp(num: int, den: int, rng) -> bool:
    """Bernoulli(exp(-num/den)) for integers ``num >= 0``, ``den > 0``."""
    whole, num = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_small(1, 1, rng):
            return False
    return _bernoulli_exp_small(num, den, rng)


def _bernoulli_exp_small(num: int, den: int, rng) -> bool:
    """Algorithm 1 of CKS 2020 for ``0 <= num/den <= 1``: trials Bernoulli(num/(den k))."""
    k = 1
    while rng.randrange(den * k) < num:
        k += 1
    return k % 2 == 1


def discrete_laplace(scale, rng=SECURE_RANDOM) -> int:
    r"""Exact draw from the discrete Laplace law of rational scale t > 0.

    :math:`P[Y = y] = \frac{e^{1/t} - 1}{e^{1/t} + 1} e^{-|y|/t}` on the integers.

    CKS 2020, Algorithm 2, with t = a/b in lowest terms: U uniform on
    {0, ..., a-1} kept with probability :math:`e^{-U/a}` and V geometric
    (:math:`P[V \ge v] = e^{-v}`) make X = U + aV geometric with ratio
    :math:`e^{-1/a}`; then :math:`\lfloor X/b \rfloor` is geometric with ratio
    :math:`e^{-1/t}`, and a random sign, rejecting "-0", gives the two-sided law.
    """
    scale = as_fraction("scale", scale)
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got scale={scale!r}.")
    return _discrete_laplace(scale.numerator, scale.denominator, rng)


def _discrete_laplace(a: int, b: int, rng) -> int:
    """Algorithm 2 of CKS 2020 for the scale a/b (positive integers)."""
    while True:
        u = rng.randrange(a)
        if not _bernoulli_exp_small(u, a, rng):
            continue
        v = 0
        while _bernoulli_exp_small(1, 1, rng):
            v += 1
        y = (u + a * v) // b
        negative = rng.randrange(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_gaussian(sigma2, rng=SECURE_RANDOM) -> int:
    r"""Exact draw from the discrete Gaussian of rational parameter :math:`\sigma^2 > 0`.

    :math:`P[Y = y] \propto e^{-y^2/(2\sigma^2)}` on the integers.

    CKS 2020, Algorithm 3: propose Y from the discrete Laplace law of scale
    :math:`t = \lfloor\sigma\rfloor + 1` and accept with probability
    :math:`\exp(-(|Y| - \sigma^2/t)^2/(2\sigma^2))`; the accepted law is
    proportional to :math:`e^{-y^2/(2\sigma^2)}` because
    :math:`(|y| - \sigma^2/t)^2/(2\sigma^2) = y^2/(2\sigma^2) - |y|/t + \sigma^2/(2t^2)`.
    The expected number of proposals is below about 2.
    """
    sigma2 = as_fraction("sigma2", sigma2)
    if sigma2 <= 0:
        raise ValueError(f"sigma2 must be > 0, got sigma2={sigma2!r}.")
    p, q = sigma2.numerator, sigma2.denominator
    # t = floor(sqrt(p/q)) + 1 = floor(isqrt(p q) / q) + 1, all in integers.
    t = math.isqrt(p * q) // q + 1
    # (|y| - sigma2/t)^2 / (2 sigma2) = (|y| q t - p)^2 / (2 p q t^2).
    den = 2 * p * q * t * t
    while True:
        y = _discrete_laplace(t, 1, rng)
        if _bernoulli_exp((abs(y) * q * t - p) ** 2, den, rng):
            return y
