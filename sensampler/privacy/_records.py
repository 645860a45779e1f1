"""The small frozen records: a sampling run, a mechanism's noise, a composition's bound."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from .._display.statements import privacy_bound_html
from .._lib.domains import (
    DELTA_STATED,
    EPSILON_STATED,
    GAMMA,
    INEQUALITIES,
    NEIGHBOUR_RELATIONS,
    RUN_RHO,
    documented,
)
from .._lib.domains import NOISE_KINDS as _NOISE_KINDS
from .._lib.domains import SOURCES as _SOURCES
from .._lib.validation import check_count
from ._format import except_gamma, format_dp

#: The default neighbouring relation: two databases of n records that differ in
#: one (bounded DP). The other, ``"add-remove"``, pairs D and D with one record
#: more (:func:`sensampler.sample_sensitivity`'s ``neighbours``); a statement
#: under it converts to this one with :func:`to_replace_one`.
NEIGHBOURS = "replace-one"

#: Where a sensitivity can come from (see the module docstring).
SOURCES = _SOURCES.values

Source = Literal["global", "sampled", "typical", "derived"]


class PrivacyLeakWarning(UserWarning):
    """A sampled or typical sensitivity lost its provenance.

    Raised as a warning when such a value becomes a plain number, which
    mechanisms read as a global bound the caller vouches for.
    """


@documented
@dataclass(frozen=True)
class SamplingRun:
    """The sampling run behind a sampled sensitivity: its identity and its gamma.

    Parameters
    ----------
    run_id : str or None
        Identity of the run. Releases calibrated by one run fail together, so
        accountants count its ``gamma`` once; ``None`` (anonymous) counts it
        once per release.
    gamma : float
        Failure probability of random DP of everything the run released,
        jointly, ``{GAMMA:gamma}``.
    rho : float
        The sampler's own share of ``gamma`` (see :mod:`sensampler.plan`).
    inequality : str
        The sampling plan's inequality (``"exact"``, ``"exchangeable"`` or ``"dkw"``).
    m, k : int
        Pairs drawn and rank released.
    seed : (entropy, spawn_key) or None
        Entropy (an int or a tuple of ints) and spawn key (a tuple of ints) of
        the root ``SeedSequence``: the run can be drawn again from
        ``SeedSequence(entropy, spawn_key=spawn_key)``. Drawing several runs
        and keeping a favourable one raises the failure probability above
        ``gamma`` (about ``R * gamma`` for R runs); an accountant can count
        every run drawn (``record_run``).
    ordinal : int
        How many sampling runs this process had drawn, this one included: a
        visible count for seed-less sampling.
    neighbours : {"replace-one", "add-remove"}
        The neighbouring relation of the pairs ``gamma`` covers (default
        :data:`NEIGHBOURS`). A run made by :func:`to_replace_one` keeps the
        identity, seed and plan of an add/remove run with the gamma of
        replace-one pairs.
    order_dependent : bool
        The user accepted a query that depends on the order of its records
        (``sample_sensitivity(..., order_dependent=True)``): random DP averages
        over the position of the differing record, so such a release may
        publish a record exactly with probability up to about ``gamma``.
    released : tuple of float
        The order statistics :math:`G_{(k)}` the run released, every part's
        (flat, per coordinate for ``norm="coordinate"``) in output order; set
        by the sampler. A ``"sampled"`` value of the run must be at least the
        order statistic it covers; ``()`` (a hand-made run) checks nothing.
    """

    run_id: str | None
    gamma: float
    rho: float = 0.0
    inequality: str = "exact"
    m: int = 0
    k: int = 0
    seed: tuple[int | tuple[int, ...], tuple[int, ...]] | None = None
    ordinal: int = 0
    neighbours: str = NEIGHBOURS
    order_dependent: bool = False
    released: tuple[float, ...] = ()

    def __post_init__(self):
        released = tuple(float(v) for v in self.released)
        if not all(math.isfinite(v) and v >= 0 for v in released):
            raise ValueError(
                "released must be finite order statistics >= 0, got "
                f"released={self.released!r}."
            )
        set_field(self, "released", released)
        if self.run_id is not None and not isinstance(self.run_id, str):
            raise TypeError(f"run_id must be a str or None, got {self.run_id!r}.")
        set_field(self, "gamma", GAMMA.check("gamma", self.gamma))
        set_field(self, "rho", RUN_RHO.check("rho", self.rho))
        INEQUALITIES.check("inequality", self.inequality)
        set_field(self, "m", check_count("m", self.m, minimum=0))
        set_field(self, "k", check_count("k", self.k, minimum=0))
        if self.k > self.m:
            raise ValueError(
                f"k must be <= m (the rank of one of m sampled values), got "
                f"k={self.k!r}, m={self.m!r}."
            )
        if self.m > 0 and self.k == 0:
            raise ValueError(
                f"k must be >= 1 when m pairs were drawn, got k=0, m={self.m!r}."
            )
        if self.seed is not None:
            set_field(self, "seed", _check_seed(self.seed))
        set_field(self, "ordinal", check_count("ordinal", self.ordinal, minimum=0))
        NEIGHBOUR_RELATIONS.check("neighbours", self.neighbours)


def set_field(record, name, value):
    """Store a checked (normalised) field of a frozen record, in ``__post_init__``."""
    object.__setattr__(record, name, value)


def _check_words(name, words) -> tuple[int, ...]:
    if not isinstance(words, tuple):
        raise TypeError(f"{name} must be a tuple of ints >= 0, got {name}={words!r}.")
    return tuple(check_count(name, word, minimum=0) for word in words)


def _check_seed(seed) -> tuple[int | tuple[int, ...], tuple[int, ...]]:
    """``(entropy, spawn_key)``: an int >= 0 or tuple of them, and a tuple of them."""
    if not (isinstance(seed, tuple) and len(seed) == 2):
        raise TypeError(
            f"seed must be None or a pair (entropy, spawn_key), got seed={seed!r}."
        )
    entropy, spawn_key = seed
    entropy = (
        _check_words("seed entropy", entropy)
        if isinstance(entropy, tuple)
        else check_count("seed entropy", entropy, minimum=0)
    )
    return entropy, _check_words("seed spawn_key", spawn_key)


#: Kinds of additive noise a :class:`Noise` record describes.
NOISE_KINDS = _NOISE_KINDS.values


@dataclass(frozen=True)
class Noise:
    r"""The additive noise of a mechanism, per unit of sensitivity.

    What a privacy-loss-distribution accountant needs beyond (epsilon, delta):
    the pair of output laws that dominates the mechanism on every pair of
    neighbours, for sensitivity 1.

    Parameters
    ----------
    kind : {"gaussian", "laplace"}
        ``"gaussian"``: the release is dominated by the pair N(0, sigma^2),
        N(1, sigma^2) with ``sigma = scales[0]`` (the noise's standard
        deviation divided by the L2 sensitivity; per-coordinate Gaussian noise
        is one such pair after rescaling each coordinate, see
        :mod:`sensampler.mechanisms.gaussian`). ``"laplace"``: the release is
        dominated by the product over coordinates j of Laplace(0, b_j) and
        Laplace(1, b_j), ``b_j = scales[j]`` (each coordinate's scale divided
        by its sensitivity; ``inf`` for a coordinate that cannot move).
    scales : tuple of float
        Noise per unit of sensitivity: one value for ``"gaussian"``, one per
        coordinate for ``"laplace"``; each ``> 0`` (``inf`` allowed for
        ``"laplace"``).
    """

    kind: str
    scales: tuple[float, ...]

    def __post_init__(self):
        _NOISE_KINDS.check("kind", self.kind)
        if not isinstance(self.scales, tuple) or not self.scales:
            raise TypeError(
                f"scales must be a non-empty tuple of floats, got {self.scales!r}."
            )
        if self.kind == "gaussian" and len(self.scales) != 1:
            raise ValueError(
                f"gaussian noise has one scale, got scales={self.scales!r}."
            )
        for scale in self.scales:
            if not (isinstance(scale, float) and scale > 0) or (
                self.kind == "gaussian" and scale == math.inf
            ):
                raise ValueError(
                    f"scales must hold floats > 0 (finite for gaussian noise), "
                    f"got scales={self.scales!r}."
                )


@documented
@dataclass(frozen=True)
class PrivacyBound:
    """What a composition holds: (epsilon, delta)-DP, with random-DP failure ``gamma``.

    The result type of every composition function, accountant and filter: a
    total over the :class:`PrivacyStatement` records composed, not the
    statement of one release.
    Unpacks and indexes as the pair ``(epsilon, delta)``, as composition
    theorems are written; ``gamma`` and ``method`` are read by name. Its
    numbers are checked when it is built (epsilon in ``[0, inf]``, delta and
    gamma in ``[0, 1]``, see ``gamma``), so an accountant cannot report an impossible bound.

    Parameters
    ----------
    epsilon : float
        ``>= 0``; ``inf`` when no finite epsilon holds.
    delta : float
        ``{DELTA_STATED:delta}``.
    gamma : float
        Failure probability of random DP (a union over sampling runs),
        ``{GAMMA:gamma}``; ``inf`` only in what a filter without a gamma
        budget has left (no limit), never a failure probability.
    method : str
        The theorem or accountant that gives the bound.
    """

    epsilon: float
    delta: float
    gamma: float = 0.0
    method: str = ""

    def __post_init__(self):
        set_field(self, "epsilon", EPSILON_STATED.check("epsilon", self.epsilon))
        set_field(self, "delta", DELTA_STATED.check("delta", self.delta))
        if not (isinstance(self.gamma, float) and self.gamma == math.inf):
            set_field(self, "gamma", GAMMA.check("gamma", self.gamma))
        if not isinstance(self.method, str):
            raise TypeError(f"method must be a str, got {self.method!r}.")

    def __iter__(self) -> Iterator[float]:
        yield self.epsilon
        yield self.delta

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> float:
        return (self.epsilon, self.delta)[index]

    def __str__(self):
        core = format_dp(self.epsilon, self.delta)
        if self.gamma == math.inf:
            core += " (no gamma budget)"
        elif self.gamma:
            core += except_gamma(self.gamma)
        return f"{core} [{self.method}]" if self.method else core

    def _repr_html_(self) -> str:
        """Rich display in notebooks: epsilon at delta, gamma and the method."""
        return privacy_bound_html(self, format_dp)
