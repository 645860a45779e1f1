r"""What a release states about privacy: small frozen records and their conversions.

This module is the one privacy data model of sensampler. Mechanisms produce a
:class:`PrivacyStatement`; accountants and filters consume statements and report
a :class:`PrivacyBound`; a sampled sensitivity's provenance is a
:class:`SamplingRun`. It imports nothing from the rest of the package but the
validation helpers, so every other module may import it.

Three kinds of privacy appear side by side and are never confused:

* **(epsilon, delta)-DP** (Dwork & Roth 2014, Def. 2.4), with ``delta = 0`` for
  pure DP;
* **Rényi DP** (Mironov 2017) and **zCDP** (Bun & Steinke 2016), carried as a
  Rényi curve :math:`\alpha \mapsto \epsilon(\alpha)` and a zCDP parameter
  :math:`\rho`;
* **random DP** (Hall, Rinaldo & Wasserman 2012; Rubinstein & Aldà 2017): a
  mechanism calibrated with a *sampled* sensitivity is private with probability
  at least :math:`1-\gamma`. :math:`\gamma` belongs to the sampling run: releases
  calibrated by one run fail together, so a union bound counts each run's
  :math:`\gamma` once, and an anonymous :math:`\gamma` (no run identity) once per
  release.

Where a sensitivity comes from decides what may be stated:

``"global"``
    A number the caller gives and vouches for as a bound over *all* pairs of
    neighbouring databases: plain DP, :math:`\gamma = 0`.
``"sampled"``
    The order statistic of a sampling run, or a value that is provably at least
    as large (a positive multiple of at least 1, plus a non-negative constant):
    random DP with the run's :math:`\gamma`.
``"typical"``, ``"derived"``
    A mean or quantile of sampled sensitivities, or arithmetic on sampled or
    typical values that may lower them: **no guarantee**. Mechanisms calibrated
    with them say so, and accountants and filters refuse them.

A sampled or typical value that is turned into a plain number (``float(x)``,
``np.asarray(x)``) loses its provenance; sensampler then warns with
:class:`PrivacyLeakWarning`, because a plain number is read as a global bound.

**One record, its views.** :class:`PrivacyStatement` is the record of what one
release states (with its :class:`SamplingRun`, :class:`Noise`,
:class:`RenyiCurve` and worst-case part inside). Every other form is a view of
it, built in one place and never stating more: its words
(:attr:`PrivacyStatement.core_text`, ``str``, the notebook card); a ledger line,
:class:`sensampler.accounting.LedgerEntry` (``LedgerEntry.of(statement,
count)``, back with ``entry.to_statement()``), which a budget file stores as
JSON; dp_accounting's ``DpEvent`` (:meth:`PrivacyStatement.to_dp_event`, back
with :func:`statement_from_dp_event`); the PLD accountant's steps
(:func:`sensampler.accounting.pld.statement_steps`); and the same statement
under the other relation (:func:`to_replace_one`). A :class:`PrivacyBound` is
not a view of one statement but what a composition of several holds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from numbers import Real
from typing import Literal

import numpy as np

from ._display.statements import privacy_bound_html, statement_html
from ._lib.domains import (
    DELTA_STATED,
    DELTA_TARGET,
    EPSILON_STATED,
    GAMMA,
    NEIGHBOUR_RELATIONS,
    PLAN_BOUNDS,
    POSITIVE,
    RHO,
    RUN_RHO,
    documented,
)
from ._lib.domains import DP_CONVERSIONS as _DP_CONVERSIONS
from ._lib.domains import NOISE_KINDS as _NOISE_KINDS
from ._lib.domains import SOURCES as _SOURCES
from ._lib.extras import require
from ._lib.validation import check_array, check_count
from ._math.curves import gaussian_curve, implied_curve, pure_dp_curve, zcdp_curve
from ._math.rounding import float_up, upper

__all__ = [
    "NEIGHBOURS",
    "SOURCES",
    "PrivacyLeakWarning",
    "RenyiCurve",
    "SamplingRun",
    "NOISE_KINDS",
    "Noise",
    "PrivacyStatement",
    "PrivacyBound",
    "DEFAULT_ORDERS",
    "rdp_to_dp",
    "zcdp_to_dp",
    "pure_dp_rdp",
    "statement_from_dp_event",
    "to_replace_one",
    "format_dp",
    "format_upper",
    "size_words",
]

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
    bound : str
        The sampling plan's bound (``"exact"``, ``"exchangeable"`` or ``"dkw"``).
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
    bound: str = "exact"
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
        _set(self, "released", released)
        if self.run_id is not None and not isinstance(self.run_id, str):
            raise TypeError(f"run_id must be a str or None, got {self.run_id!r}.")
        _set(self, "gamma", GAMMA.check("gamma", self.gamma))
        _set(self, "rho", RUN_RHO.check("rho", self.rho))
        PLAN_BOUNDS.check("bound", self.bound)
        _set(self, "m", check_count("m", self.m, minimum=0))
        _set(self, "k", check_count("k", self.k, minimum=0))
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
            _set(self, "seed", _check_seed(self.seed))
        _set(self, "ordinal", check_count("ordinal", self.ordinal, minimum=0))
        NEIGHBOUR_RELATIONS.check("neighbours", self.neighbours)


#: What a statement adds when its run accepted an order-dependent query.
ORDER_DEPENDENT = (
    "; the query depends on the order of the records (accepted with "
    "order_dependent=True): random DP averages over the position of the "
    "differing record, so a release may publish a record exactly"
)


def _set(record, name, value):
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


@dataclass(frozen=True)
class RenyiCurve:
    r"""A Rényi curve whose every value is checked: ``alpha -> epsilon(alpha) >= 0``.

    :class:`PrivacyStatement` wraps the curve it is given in one, so accountants,
    which read ``statement.rdp``, never see a negative or NaN Rényi divergence
    (a Rényi divergence is :math:`\ge 0`; ``inf`` is allowed: no finite bound
    at that order). Picklable when ``function`` is.

    Parameters
    ----------
    mechanism : str
        Named in error messages.
    function : callable
        The curve ``alpha -> epsilon(alpha)`` for ``alpha > 1``.
    """

    mechanism: str
    function: Callable[[float], float]

    def __call__(self, alpha: float) -> float:
        """The curve's value at ``alpha``, or raise naming the mechanism and order.

        Parameters
        ----------
        alpha : float
            Rényi order.

        Returns
        -------
        float
            ``>= 0``, possibly ``inf``.

        Raises
        ------
        TypeError, ValueError
            When the curve returns something other than a real number
            ``>= 0`` (NaN included).
        """
        value = self.function(alpha)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
            raise TypeError(
                f"the Rényi curve of {self.mechanism} must return a real number, "
                f"got {value!r} at order alpha={float(alpha)!r}."
            )
        if not value >= 0:  # also NaN
            raise ValueError(
                f"the Rényi curve of {self.mechanism} must be >= 0 (a divergence), "
                f"got {value!r} at order alpha={float(alpha)!r}."
            )
        return float(value)


def _optional(domain, name, value):
    return None if value is None else domain.check(name, value)


@documented
@dataclass(frozen=True)
class PrivacyStatement:
    r"""A mechanism's privacy statement, as accountants read it.

    Parameters
    ----------
    mechanism : str
        Name of the mechanism.
    epsilon, delta : float or None
        The (epsilon, delta)-DP statement; ``None`` for mechanisms stated in
        Rényi or zCDP terms only (convert with :meth:`epsilon_for`).
    rho : float or None
        zCDP parameter, where one holds.
    rdp : callable or None
        Rényi curve ``alpha -> epsilon(alpha)`` for ``alpha > 1``; ``None`` when
        no finite Rényi DP holds. Must be picklable (a module-level function or a
        ``functools.partial`` of one). Stored wrapped in a :class:`RenyiCurve`,
        which refuses any negative or NaN value it returns.
    run : SamplingRun or None
        The sampling run behind a sampled sensitivity; ``None`` for a global one.
    source : {"global", "sampled", "typical", "derived"}
        Where the sensitivity came from; only ``"global"`` and ``"sampled"``
        carry a guarantee.
    neighbours : {"replace-one", "add-remove"}
        The neighbouring relation the statement holds for: its run's, and
        replace-one for a global sensitivity. Accountants and filters refuse to
        compose two relations; convert with :func:`to_replace_one`.
    noise : Noise or None
        The mechanism's additive noise per unit of sensitivity, where it is
        Gaussian or Laplace; read by
        :class:`~sensampler.accounting.PLDAccountant`.
    worst_case : PrivacyStatement or None
        A plain (epsilon, delta)-DP statement that holds for **every** pair of
        neighbours (no gamma, a global sensitivity): what a mechanism
        calibrated with a sampled sensitivity states from the worst-case
        sensitivity of the query on clipped records
        (:mod:`sensampler.bounds`), computed from the same noise; ``None``
        when no worst case is known. The random-DP statement protects the
        databases the population model describes, except with probability
        gamma; this one protects everyone, at its own (larger) epsilon.
    """

    mechanism: str
    epsilon: float | None
    delta: float | None
    rho: float | None = None
    rdp: Callable[[float], float] | None = field(default=None, compare=False)
    run: SamplingRun | None = None
    source: Source = "global"
    neighbours: str = NEIGHBOURS
    noise: Noise | None = None
    worst_case: PrivacyStatement | None = None

    def __post_init__(self):
        if not isinstance(self.mechanism, str):
            raise TypeError(f"mechanism must be a str, got {self.mechanism!r}.")
        _set(self, "epsilon", _optional(EPSILON_STATED, "epsilon", self.epsilon))
        _set(self, "delta", _optional(DELTA_STATED, "delta", self.delta))
        if (self.epsilon is None) != (self.delta is None):
            raise ValueError(
                "epsilon and delta must be given together (or both None), got "
                f"epsilon={self.epsilon!r}, delta={self.delta!r}."
            )
        _set(self, "rho", _optional(RHO, "rho", self.rho))
        if self.rdp is not None and not isinstance(self.rdp, RenyiCurve):
            if not callable(self.rdp):
                raise TypeError(f"rdp must be callable or None, got {self.rdp!r}.")
            _set(self, "rdp", RenyiCurve(self.mechanism, self.rdp))
        if self.run is not None and not isinstance(self.run, SamplingRun):
            raise TypeError(f"run must be a SamplingRun or None, got {self.run!r}.")
        _SOURCES.check("source", self.source)
        NEIGHBOUR_RELATIONS.check("neighbours", self.neighbours)
        if self.noise is not None and not isinstance(self.noise, Noise):
            raise TypeError(f"noise must be a Noise or None, got {self.noise!r}.")
        if self.source == "sampled" and self.run is None:
            raise ValueError("a sampled sensitivity needs its run, got run=None.")
        if self.run is not None and self.run.neighbours != self.neighbours:
            raise ValueError(
                f"the statement's neighbours={self.neighbours!r} differ from its "
                f"run's, {self.run.neighbours!r}."
            )
        if self.worst_case is not None:
            _check_worst_case(self.worst_case, self.neighbours)

    @property
    def guaranteed(self) -> bool:
        """Whether anything is guaranteed (False for typical or derived sensitivities)."""
        return self.source in ("global", "sampled")

    @property
    def gamma(self) -> float:
        """Random-DP failure probability (0 for a global sensitivity)."""
        return self.run.gamma if self.run is not None else 0.0

    def epsilon_for(self, delta: float) -> float:
        """Smallest epsilon this statement supports at ``delta`` (``{DELTA_TARGET:delta}``).

        The minimum over every statement that holds: the (epsilon, delta) pair
        when its delta fits, the Rényi curve (Canonne, Kamath & Steinke 2020,
        Prop. 12, :func:`rdp_to_dp`) and the zCDP parameter (:func:`zcdp_to_dp`).

        Parameters
        ----------
        delta : float
            ``{DELTA_TARGET:delta}``.

        Returns
        -------
        float
            The epsilon, ``>= 0`` (``inf`` where no statement gives a finite one).
        """
        delta = DELTA_TARGET.check("delta", delta)
        candidates = []
        if self.epsilon is not None and self.delta is not None and self.delta <= delta:
            candidates.append(self.epsilon)
        if self.rdp is not None:
            candidates.append(rdp_to_dp(self.rdp, delta)[0])
        if self.rho is not None:
            candidates.append(zcdp_to_dp(self.rho, delta))
        if not candidates:
            raise ValueError(
                f"{self.mechanism} states no guarantee at delta={delta!r}."
            )
        return min(candidates)

    @property
    def core_text(self) -> str:
        """The guarantee alone, in the words of every text and display of it.

        ``(epsilon=…, delta=…)-DP`` or ``epsilon=…-DP`` (:func:`format_dp`),
        else ``rho=…-zCDP``, else ``Rényi DP`` (a curve only), numbers rounded
        up; ``no privacy guarantee`` when the sensitivity was not a bound.
        ``str(statement)`` adds the mechanism, gamma, the neighbours and the
        worst case.
        """
        if not self.guaranteed:
            return "no privacy guarantee"
        if self.epsilon is not None:
            return format_dp(self.epsilon, self.delta)
        if self.rho is not None:
            return f"rho={format_upper(self.rho, 6)}-zCDP"
        return "Rényi DP"

    def __str__(self):
        core = self.core_text
        if not self.guaranteed:
            return (
                f"{self.mechanism}: calibrated with a {self.source} sensitivity "
                f"(not a bound); {core}"
            )
        if self.epsilon is None and self.rho is None:
            core += " (see rdp)"
        if self.source == "sampled":
            return (
                f"{self.mechanism}: {core}{_except_gamma(self.gamma)} (random DP, "
                f"{self.neighbours} neighbours){_worst_case_text(self.worst_case)}"
                + (ORDER_DEPENDENT if self.run is not None and self.run.order_dependent
                   else "")
            )
        return f"{self.mechanism}: {core} ({self.neighbours} neighbours)"

    def _repr_html_(self) -> str:
        """Notebook display: the statement in plain words."""
        return statement_html(self)

    def to_dp_event(self, *, allow_gamma: bool = False, neighbours: str | None = None):
        """The dp_accounting ``DpEvent`` of one release of this statement.

        So that releases can be composed in Google's dp_accounting accountants
        (``RdpAccountant``, ``PLDAccountant``): Gaussian noise gives
        ``GaussianDpEvent(sigma)`` (sigma per unit of L2 sensitivity), Laplace
        noise ``LaplaceDpEvent(b)`` (scale per unit of sensitivity; one per
        coordinate, composed, for per-coordinate sensitivities), and a zCDP
        statement without such noise ``ZCDpEvent(rho)``. dp_accounting has no
        event for a general (epsilon, delta) statement, so one without noise
        or zCDP parameter is refused.

        The event does not carry the neighbouring relation, so the relation
        is chosen here. Its noise multiplier is per unit of the sensitivity over
        the pairs of ``neighbours``: the pair N(0, sigma^2), N(1, sigma^2). A
        replace-one event is read in dp_accounting under
        ``NeighboringRelation.REPLACE_SPECIAL``, the relation to use (its
        ``REPLACE_ONE`` doubles the sensitivity in the PLD accountant: valid,
        but twice the epsilon or more); an add/remove event under
        ``ADD_OR_REMOVE_ONE``. Events of the two relations must never be
        composed in one accountant: an add/remove Laplace event of scale 1 is
        the same object as a replace-one one, yet its replace-one epsilon is
        2, not 1. An add/remove statement is therefore refused unless the
        relation is named: ``neighbours="replace-one"`` converts it first
        (:func:`to_replace_one`: noise per unit of sensitivity halved, gamma
        doubled), and ``neighbours="add-remove"`` keeps it, for an accountant
        that holds add/remove events only.

        The worst-case part of a sampled statement is a plain DP statement
        with no gamma: ``statement.worst_case.to_dp_event()`` is a true DP
        guarantee that any dp_accounting accountant may compose as is.

        Parameters
        ----------
        allow_gamma : bool, default False
            A ``DpEvent`` cannot carry gamma: a sampled statement holds except
            with probability gamma over the data drawn from the population
            model, which no dp_accounting accountant counts. It is refused
            unless ``allow_gamma=True``, by which the caller takes on counting
            gamma (once per sampling run) beside the accountant's epsilon.
        neighbours : {"replace-one", "add-remove"}, optional
            The relation the event is for. ``None`` (the default) accepts a
            replace-one statement only. A replace-one statement has no
            add/remove event (``"add-remove"`` is refused for it).

        Returns
        -------
        dp_accounting.dp_event.DpEvent

        Raises
        ------
        ImportError
            Without dp_accounting (``pip install sensampler[pld]``).
        ValueError
            For a statement with no guarantee (typical or derived sensitivity),
            a gamma > 0 without ``allow_gamma=True``, an add/remove statement
            without ``neighbours``, a replace-one one with
            ``neighbours="add-remove"``, or no representable event.
        """
        dp_event = _dp_event_module()
        if not isinstance(allow_gamma, bool):
            raise TypeError(f"allow_gamma must be True or False, got {allow_gamma!r}.")
        if neighbours not in (None, "replace-one", "add-remove"):
            raise ValueError(
                "neighbours must be None, 'replace-one' or 'add-remove', got "
                f"neighbours={neighbours!r}."
            )
        if self.neighbours == "add-remove" and neighbours is None:
            raise ValueError(
                f"{self.mechanism} holds for add-remove neighbours, and a DpEvent "
                "does not carry the relation (mixed with replace-one events it "
                "would understate epsilon): pass neighbours='replace-one' to "
                "convert it, or neighbours='add-remove' for an accountant of "
                "add/remove events only."
            )
        if self.neighbours == "replace-one" and neighbours == "add-remove":
            raise ValueError(
                f"{self.mechanism} holds for replace-one neighbours, which implies "
                "no add/remove statement; use neighbours='replace-one'."
            )
        if self.neighbours == "add-remove" and neighbours == "replace-one":
            return to_replace_one(self).to_dp_event(allow_gamma=allow_gamma)
        if not self.guaranteed:
            raise ValueError(
                f"{self.mechanism} was calibrated with a {self.source} "
                "sensitivity and guarantees nothing; it has no DpEvent."
            )
        if self.gamma > 0 and not allow_gamma:
            raise ValueError(
                f"{self.mechanism} holds{_except_gamma(self.gamma)}; a DpEvent "
                "cannot carry gamma, which dp_accounting would then drop. Pass "
                "allow_gamma=True and count gamma yourself (once per sampling "
                "run), or compose in a sensampler accountant."
            )
        if self.noise is not None and self.noise.kind == "gaussian":
            return dp_event.GaussianDpEvent(self.noise.scales[0])
        if self.noise is not None:  # Laplace: one event per coordinate that moves
            events = [
                dp_event.LaplaceDpEvent(b) for b in self.noise.scales if b != math.inf
            ]
            if not events:
                return dp_event.NoOpDpEvent()
            return events[0] if len(events) == 1 else dp_event.ComposedDpEvent(events)
        if self.rho is not None:
            return dp_event.ZCDpEvent(self.rho)
        raise ValueError(
            f"{self.mechanism} states neither Gaussian or Laplace noise nor a zCDP "
            "parameter, and dp_accounting has no event for a general (epsilon, "
            "delta) statement."
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
        _set(self, "epsilon", EPSILON_STATED.check("epsilon", self.epsilon))
        _set(self, "delta", DELTA_STATED.check("delta", self.delta))
        if not (isinstance(self.gamma, float) and self.gamma == math.inf):
            _set(self, "gamma", GAMMA.check("gamma", self.gamma))
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
            core += _except_gamma(self.gamma)
        return f"{core} [{self.method}]" if self.method else core

    def _repr_html_(self) -> str:
        """Rich display in notebooks: epsilon at delta, gamma and the method."""
        return privacy_bound_html(self, format_dp, format_upper)


def format_upper(value: float, digits: int) -> str:
    """``value`` printed with ``digits`` significant digits, rounded up.

    The smallest decimal of ``digits`` significant digits that reads back
    (``float(printed)``) as at least ``value``, decided exactly by
    :mod:`decimal` on the float's exact value, printed like
    ``format(x, f".{digits}g")``: the decimal rounded down when it reads back
    as ``value`` itself (``0.1`` prints ``0.1``), else rounded up. Zero,
    including -0.0, prints ``0``; non-finite values print as ``format`` does.
    A privacy parameter printed so is never below the one stated: 0.3703701
    prints ``0.370371`` at 6 digits, where rounding to nearest gave 0.37037.

    Parameters
    ----------
    value : float
        The number to print.
    digits : int
        Significant digits, between 1 and 15 (so that the float nearest the
        decimal prints as that decimal).

    Returns
    -------
    str
        The printed number.
    """
    return upper(value, digits)


def size_words(neighbours: str, n: int) -> str:
    """The data's size in a guarantee, in words.

    Under add/remove neighbours a release calibrated for the data's ``n`` (a
    sensitivity sampled on databases of ``n - 1`` and ``n`` records, a choice
    that reads ``n``) publishes ``n``: its statement holds for databases of that
    size and their add/remove neighbours, given ``n``, and does not hide it.
    Under replace-one neighbours ``n`` is the same in every neighbour.

    Parameters
    ----------
    neighbours : {"replace-one", "add-remove"}
    n : int
        The number of private records.

    Returns
    -------
    str

    Examples
    --------
    >>> size_words("add-remove", 100)
    'n=100 records, published: the statement holds given this size and does not hide it'
    """
    if neighbours == "add-remove":
        return (
            f"n={n} records, published: the statement holds given this size and "
            "does not hide it"
        )
    return f"n={n} records"


def format_dp(epsilon: float, delta: float) -> str:
    """``(epsilon=…, delta=…)-DP``, or ``epsilon=…-DP`` for delta 0.

    Both rounded up (:func:`format_upper`; 6 and 3 significant digits), as
    every statement and record prints them.

    Parameters
    ----------
    epsilon, delta : float
        The parameters.

    Returns
    -------
    str
        The guarantee in words.
    """
    if delta:
        return f"(epsilon={format_upper(epsilon, 6)}, delta={format_upper(delta, 3)})-DP"
    return f"epsilon={format_upper(epsilon, 6)}-DP"


def _check_worst_case(worst_case, neighbours: str) -> None:
    """A worst-case part is a plain (epsilon, delta)-DP statement of the same relation."""
    if not isinstance(worst_case, PrivacyStatement):
        raise TypeError(
            f"worst_case must be a PrivacyStatement or None, got {worst_case!r}."
        )
    plain = (
        worst_case.source == "global"
        and worst_case.run is None
        and worst_case.worst_case is None
        and (worst_case.epsilon is not None or worst_case.rho is not None)
    )
    if not plain:
        raise ValueError(
            "worst_case must be a plain (epsilon, delta)-DP or zCDP statement over "
            "every pair (global, no run, no gamma, no worst case of its own), got "
            f"{worst_case!r}."
        )
    if worst_case.neighbours != neighbours:
        raise ValueError(
            f"worst_case must hold for the statement's neighbours={neighbours!r}, "
            f"got {worst_case.neighbours!r}."
        )


def _worst_case_text(worst_case) -> str:
    """The worst-case part in words, or nothing."""
    if worst_case is None:
        return ""
    return f"; worst case: {worst_case.core_text} for every pair of neighbours"


def _except_gamma(gamma: float) -> str:
    """How every record states gamma, so that it cannot be read as delta."""
    return (
        f", except with probability gamma={format_upper(gamma, 4)} over the data "
        "drawn from "
        "the population model"
    )


def _dp_event_module():
    return require("dp_accounting.dp_event", "pld", "a DpEvent conversion")


def statement_from_dp_event(
    event, *, relation: str, mechanism: str | None = None
) -> PrivacyStatement:
    r"""The replace-one :class:`PrivacyStatement` of one dp_accounting ``DpEvent``.

    The reverse of :meth:`PrivacyStatement.to_dp_event`, so that
    dp_accounting events can be composed in sensampler's accountants and
    filters (a global sensitivity: gamma = 0; replace-one neighbours, the
    relation of global sensitivities).

    A ``DpEvent`` does not say for which relation its noise multiplier is per
    unit of sensitivity, so ``relation`` must: ``"replace-one"`` when it is
    per unit of the sensitivity over replace-one pairs (dp_accounting's
    ``REPLACE_SPECIAL`` reading; events from :meth:`~PrivacyStatement.to_dp_event`),
    ``"add-remove"`` when per unit of the add/remove sensitivity (dp_accounting's
    ``ADD_OR_REMOVE_ONE``, as DP-SGD noise multipliers are). A replacement is a
    removal and an addition, so the replace-one sensitivity is at most twice
    the add/remove one: the noise multiplier is halved, and a zCDP parameter
    multiplied by 4 (group privacy of zCDP: k^2 rho for groups of k, Bun &
    Steinke 2016).

    * ``GaussianDpEvent(sigma)``: :math:`1/(2\sigma^2)`-zCDP, Rényi curve
      :math:`\alpha/(2\sigma^2)` (Mironov 2017, Prop. 7), Gaussian noise;
    * ``LaplaceDpEvent(b)``: :math:`1/b`-DP with the pure-DP Rényi curve and
      zCDP parameter (Bun & Steinke 2016, Prop. 3.3), Laplace noise (the PLD
      accountant uses the exact pair);
    * ``ZCDpEvent(rho, xi)``: Rényi curve :math:`\xi + \alpha\rho`, and
      rho-zCDP when :math:`\xi = 0`;
    * ``NoOpDpEvent``: (0, 0)-DP.

    Parameters
    ----------
    event : dp_accounting.dp_event.DpEvent
    relation : {"replace-one", "add-remove"}
        The relation the event's noise multiplier (or rho) is stated for.
    mechanism : str, optional
        Name of the statement (default: the event's class name).

    Returns
    -------
    PrivacyStatement

    Raises
    ------
    ImportError
        Without dp_accounting.
    TypeError, ValueError
        For another kind of event, naming it: compose the parts of a
        ``ComposedDpEvent`` one by one, and the event of a
        ``SelfComposedDpEvent`` with ``count=event.count``.
    """
    dp_event = _dp_event_module()
    if not isinstance(event, dp_event.DpEvent):
        raise TypeError(f"event must be a dp_accounting DpEvent, got {event!r}.")
    NEIGHBOUR_RELATIONS.check("relation", relation)
    group = 1.0 if relation == "replace-one" else 2.0  # replace = remove + add
    name = type(event).__name__ if mechanism is None else mechanism
    if isinstance(event, dp_event.GaussianDpEvent):
        sigma = POSITIVE.check("noise_multiplier", event.noise_multiplier) / group
        return PrivacyStatement(
            name,
            None,
            None,
            rho=gaussian_curve(sigma, 1.0),
            rdp=functools.partial(gaussian_curve, sigma),
            noise=Noise("gaussian", (sigma,)),
        )
    if isinstance(event, dp_event.LaplaceDpEvent):
        scale = POSITIVE.check("noise_multiplier", event.noise_multiplier) / group
        epsilon = 1.0 / scale
        return PrivacyStatement(
            name,
            epsilon,
            0.0,
            rho=pure_dp_curve(epsilon, 1.0),
            rdp=pure_dp_rdp(epsilon),
            noise=Noise("laplace", (scale,)),
        )
    if isinstance(event, dp_event.ZCDpEvent):
        rho = RHO.check("rho", event.rho) * group * group
        xi = RHO.check("xi", event.xi)
        if xi != 0 and group != 1.0:
            raise ValueError(
                "a ZCDpEvent with xi > 0 has no stated group privacy; convert it "
                f"for relation='replace-one' yourself, got xi={xi!r}."
            )
        return PrivacyStatement(
            name,
            None,
            None,
            rho=rho if xi == 0 else None,
            rdp=functools.partial(zcdp_curve, rho, xi=xi),
        )
    if isinstance(event, dp_event.NoOpDpEvent):
        return PrivacyStatement(
            name, 0.0, 0.0, rho=0.0, rdp=functools.partial(zcdp_curve, 0.0)
        )
    raise ValueError(
        f"no single statement for a {type(event).__name__}: compose the parts "
        "of a ComposedDpEvent one by one, and the event of a SelfComposedDpEvent "
        "with count=event.count; other kinds are not supported."
    )


def _group_delta(epsilon: float, delta: float) -> float:
    r""":math:`(1 + e^\epsilon)\delta` rounded up to a double, capped at 1.

    The delta of a group of two (Dwork & Roth 2014, Thm. 2.2). Computed exactly
    with fractions from :math:`e^{\epsilon/2}` rounded up (``math.exp`` is
    within one ulp, so the next double above bounds it); beyond
    :math:`\epsilon = 746` the product exceeds 1 for every positive delta
    (:math:`e^{746} 2^{-1074} > 1`), where ``e^epsilon`` would overflow.
    """
    if delta == 0.0:
        return 0.0
    if epsilon > 746.0:
        return 1.0
    half = Fraction(math.nextafter(math.exp(epsilon / 2.0), math.inf))
    return min(1.0, float_up((1 + half * half) * Fraction(delta)))


def to_replace_one(statement: PrivacyStatement) -> PrivacyStatement:
    r"""The replace-one statement an add/remove statement implies (group privacy).

    A replace-one pair :math:`(D \cup \{x\}, D \cup \{x'\})` is two add/remove
    steps through D: a removal, then an addition. What holds for each step
    holds for the pair as for a group of two (Dwork & Roth 2014, Thm. 2.2, for
    pure DP):

    * :math:`(\epsilon, \delta)` becomes :math:`(2\epsilon, (1 + e^\epsilon)
      \delta)`: :math:`P[M(D_1) \in S] \le e^\epsilon P[M(D) \in S] + \delta
      \le e^{2\epsilon} P[M(D_2) \in S] + (1 + e^\epsilon)\delta`;
    * :math:`\rho`-zCDP becomes :math:`4\rho`-zCDP (groups of k: :math:`k^2
      \rho`, Bun & Steinke 2016, Prop. 1.9), with its Rényi curve
      :math:`\alpha \mapsto 4\rho\alpha`, and for a pure statement also the
      curve of :math:`2\epsilon`-DP (:func:`pure_dp_rdp`). Any other Rényi
      curve is dropped: no group-privacy bound of a general curve is claimed,
      and a statement with nothing else (no epsilon, no rho) is refused;
    * Gaussian and Laplace noise per unit of sensitivity is halved: the
      replace-one change is at most twice the add/remove sensitivity
      (triangle inequality through D);
    * random DP: both steps must be covered, and each is a fresh add/remove
      pair, so the failure probability is at most :math:`2\gamma` (a union
      bound): the run keeps its identity, plan and seed, with
      ``gamma = min(1, 2 gamma)`` and replace-one neighbours.

    For a Laplace or Gaussian mechanism the result equals (or, for delta,
    bounds) the exact replace-one privacy of the same noise with twice the
    sensitivity.

    Parameters
    ----------
    statement : PrivacyStatement
        Under either relation; a replace-one statement is returned as is.

    Returns
    -------
    PrivacyStatement
        Under replace-one neighbours, named ``"<mechanism> (add-remove,
        converted to replace-one)"``.

    Raises
    ------
    TypeError
        When ``statement`` is not a :class:`PrivacyStatement`.
    ValueError
        For an add/remove statement with neither (epsilon, delta) nor rho.

    Examples
    --------
    >>> s = PrivacyStatement("m", 0.5, 0.0, neighbours="add-remove")
    >>> to_replace_one(s).epsilon, to_replace_one(s).neighbours
    (1.0, 'replace-one')
    """
    if not isinstance(statement, PrivacyStatement):
        raise TypeError(
            f"statement must be a PrivacyStatement, got statement={statement!r}."
        )
    if statement.neighbours == "replace-one":
        return statement
    if statement.epsilon is None and statement.rho is None:
        raise ValueError(
            f"{statement.mechanism} states only a Rényi curve for add-remove "
            "neighbours, and no replace-one bound is claimed for a general curve: "
            "state its (epsilon, delta) or rho to convert it."
        )
    epsilon = delta = pure = None
    if statement.epsilon is not None and statement.delta is not None:
        epsilon = 2.0 * statement.epsilon
        delta = _group_delta(statement.epsilon, statement.delta)
        pure = epsilon if delta == 0.0 else None
    rho = None if statement.rho is None else 4.0 * statement.rho
    if pure is not None:  # min(eps, eps^2 / 2)-zCDP: Bun & Steinke 2016, Prop. 3.3
        exact = Fraction(pure)
        pure_rho = float_up(exact * min(Fraction(1), exact / 2))
        rho = pure_rho if rho is None else min(rho, pure_rho)
    rdp = None if rho is None else functools.partial(implied_curve, pure, rho)
    noise = statement.noise
    if noise is not None:
        noise = Noise(noise.kind, tuple(b / 2.0 for b in noise.scales))
    run = statement.run
    if run is not None:
        run = replace(
            run, gamma=min(1.0, 2.0 * run.gamma), neighbours="replace-one"
        )
    worst_case = statement.worst_case
    return PrivacyStatement(
        f"{statement.mechanism} (add-remove, converted to replace-one)",
        epsilon,
        delta,
        rho=rho,
        rdp=rdp,
        run=run,
        source=statement.source,
        neighbours="replace-one",
        noise=noise,
        worst_case=None if worst_case is None else to_replace_one(worst_case),
    )


# ----------------------------------------------------------------- conversions
#: Rényi orders searched by default: fine near 1, coarser above (alpha > 1).
DEFAULT_ORDERS = np.concatenate(
    [
        1.0 + np.arange(1, 100) / 20.0,  # 1.05 .. 5.95
        np.arange(6.0, 20.0, 0.5),
        np.arange(20.0, 64.0),
        [64.0, 80.0, 96.0, 128.0, 192.0, 256.0, 384.0, 512.0, 1024.0],
    ]
)


def _conversion(rdp_values, orders, delta, method):
    """epsilon at each order for the given delta."""
    if method == "classic":  # Mironov 2017, Prop. 3
        return rdp_values + math.log(1.0 / delta) / (orders - 1.0)
    # Canonne, Kamath & Steinke 2020, Prop. 12 (Balle et al. 2020, Thm. 21):
    # eps = rdp + log((a - 1)/a) - (log delta + log a)/(a - 1)
    return (
        rdp_values
        + np.log1p(-1.0 / orders)
        - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    )


@documented
def rdp_to_dp(
    rdp: Callable[[float], float] | np.ndarray | list[float],
    delta: float,
    orders=None,
    method: str = "improved",
) -> tuple[float, float]:
    """Convert a Rényi curve to (epsilon, delta)-DP, optimising over the order.

    Parameters
    ----------
    rdp : callable or array-like
        The curve ``alpha -> epsilon(alpha)``, or its values at ``orders``.
    delta : float
        ``{DELTA_TARGET:delta}``.
    orders : array-like, optional
        Orders ``> 1`` (default :data:`DEFAULT_ORDERS`).
    method : {"improved", "classic"}
        ``"improved"``: Canonne, Kamath & Steinke (2020), Prop. 12;
        ``"classic"``: Mironov (2017), Prop. 3.

    Returns
    -------
    (epsilon, order) : (float, float)

    Examples
    --------
    >>> eps, order = rdp_to_dp(lambda a: a / 2.0, 1e-5)   # Gaussian, sigma = 1
    >>> round(eps, 3)
    4.728
    """
    delta = DELTA_TARGET.check("delta", delta)
    _DP_CONVERSIONS.check("method", method)
    orders = DEFAULT_ORDERS if orders is None else check_array("orders", orders, ndim=1)
    if orders.size == 0 or np.any(orders <= 1):
        raise ValueError(
            f"orders must be non-empty and all > 1, got orders={orders!r}."
        )
    values = (
        np.array([rdp(a) for a in orders], dtype=float)
        if callable(rdp)
        else np.asarray(rdp, dtype=float)
    )
    if values.shape != orders.shape:
        raise ValueError(
            f"rdp must have one value per order ({orders.size}), got shape "
            f"{values.shape}."
        )
    with np.errstate(over="ignore", invalid="ignore"):
        eps = np.maximum(_conversion(values, orders, delta, method), 0.0)
    eps = np.where(np.isnan(eps), np.inf, eps)
    best = int(np.argmin(eps))
    return float(eps[best]), float(orders[best])


def _zcdp_improved(rho, delta, log_am1):
    a = 1.0 + math.exp(log_am1)
    return a * rho + math.log1p(-1.0 / a) - (math.log(delta) + math.log(a)) / (a - 1.0)


@documented
def zcdp_to_dp(rho: float, delta: float, method: str = "improved") -> float:
    r"""Epsilon such that rho-zCDP implies (epsilon, delta)-DP.

    ``"classic"``: :math:`\rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun & Steinke 2016,
    Prop. 1.3). ``"improved"``: rho-zCDP is :math:`(\alpha, \alpha\rho)`-RDP for
    every alpha > 1; the conversion of Canonne, Kamath & Steinke (2020), Prop. 12,
    minimised over alpha (continuously, by a bounded scalar search), never above
    the classic value.

    Parameters
    ----------
    rho : float
        zCDP parameter, ``>= 0``.
    delta : float
        ``{DELTA_TARGET:delta}``.
    method : {"improved", "classic"}, default "improved"
        The conversion, as above.

    Returns
    -------
    float
        The epsilon, ``>= 0``.

    Examples
    --------
    >>> round(zcdp_to_dp(0.5, 1e-5, "classic"), 4)
    5.2985
    """
    from scipy import optimize  # scipy.optimize is needed only here

    rho = RHO.check("rho", rho)
    delta = DELTA_TARGET.check("delta", delta)
    _DP_CONVERSIONS.check("method", method)
    if rho == 0.0:
        return 0.0
    # square roots apart, so that a huge rho does not overflow the product
    classic = rho + 2.0 * math.sqrt(rho) * math.sqrt(math.log(1.0 / delta))
    if method == "classic":
        return classic
    with np.errstate(over="ignore", invalid="ignore"):  # a * rho may overflow
        res = optimize.minimize_scalar(
            functools.partial(_zcdp_improved, rho, delta),
            bounds=(-20.0, 20.0),
            method="bounded",
            options={"xatol": 1e-10},
        )
    improved = float(res.fun)
    return max(0.0, min(classic, improved)) if math.isfinite(improved) else classic


def pure_dp_rdp(epsilon: float) -> Callable[[float], float]:
    r"""Rényi curve of any epsilon-DP mechanism: :math:`\min(\epsilon, \alpha\epsilon^2/2)`.

    :math:`D_\alpha \le D_\infty \le \epsilon`, and epsilon-DP implies
    :math:`\epsilon^2/2`-zCDP (Bun & Steinke 2016, Prop. 3.3), i.e.
    :math:`(\alpha, \alpha\epsilon^2/2)`-RDP for every alpha. A picklable callable.

    Parameters
    ----------
    epsilon : float
        The mechanism's epsilon, ``>= 0``.

    Returns
    -------
    callable
        ``alpha -> min(epsilon, alpha * epsilon**2 / 2)`` for ``alpha > 1``.
    """
    return functools.partial(pure_dp_curve, epsilon)
