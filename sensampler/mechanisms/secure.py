r"""Floating-point-safe mechanisms: exact discrete noise on a grid, from a secure source.

Textbook floating-point Laplace noise leaks the input through the set of doubles
it can output (Mironov, CCS 2012), and numpy's generators are seeded PRNGs. The
mechanisms here round the query value to the grid :math:`g\mathbb{Z}` of a stated
granularity g, add exact discrete Laplace or discrete Gaussian noise drawn in
integer and rational arithmetic (Canonne, Kamath & Steinke 2020, Algorithms 1-3)
from the operating system's cryptographically secure generator, and return a
float that depends on the noisy *integer* only, so nothing about the input
survives in its low-order bits.

Rounding to the grid
--------------------
The value v is rounded to :math:`r(v) = g\lfloor v/g + 1/2\rfloor` exactly (a
finite float is a rational number). This is part of the query, not
post-processing of a release: the mechanism releases :math:`r(f(D)) + gZ`, and
what must be bounded is the sensitivity of :math:`k(D) = r(f(D))/g`, an integer.

*Lemma.* If :math:`|f(D) - f(D')| \le \Delta` then
:math:`|k(D) - k(D')| \le \lceil\Delta/g\rceil`.
*Proof.* :math:`k(D) = j` iff :math:`f(D)/g \in [j - 1/2, j + 1/2)`. If
:math:`k(D') - k(D) = j \ge 1`, then
:math:`f(D')/g - f(D)/g > (j - 1/2) - 1/2 = j - 1`, so :math:`j - 1 < \Delta/g`,
i.e. :math:`j \le \lceil\Delta/g\rceil`. Symmetrically for :math:`j \le -1`. ∎

So the grid sensitivity is :math:`\Delta_g = \lceil\Delta/g\rceil` grid steps
(at most :math:`\Delta/g + 1`): one extra step at worst, which is why g should be
small against Δ. For d coordinates with per-coordinate change
:math:`x_j = |f_j(D) - f_j(D')|/g`, each :math:`|k_j(D) - k_j(D')| \le \lceil x_j\rceil
< x_j + 1` (and 0 when :math:`x_j = 0`), hence

* L1: :math:`\sum_j |k_j - k'_j| < \lVert x\rVert_1 + d`, an integer, so it is at
  most :math:`\lceil\Delta_1/g\rceil + d - 1`;
* L2: :math:`\lVert k - k'\rVert_2 \le \lVert x\rVert_2 + \lVert\lceil x\rceil - x\rVert_2
  < \Delta_2/g + \sqrt d` (triangle inequality), so
  :math:`\lVert k - k'\rVert_2^2 \le \lceil(\Delta_2/g + r)^2\rceil - 1` for a
  rational :math:`r \ge \sqrt d`;
* per coordinate (an array :math:`\Delta_j`): :math:`|k_j - k'_j| \le \lceil\Delta_j/g\rceil`.

Cost
----
Each draw is a Python rejection loop in rational arithmetic on the OS generator:
about 10^4 to 2·10^4 draws per second on one core, roughly 1000 (Laplace) and
2000-5000 (Gaussian) times slower than numpy's float noise, whatever the scale
(``python benchmarks/secure_noise.py``). Fine for
releases, not for simulations with millions of draws.

Exact releases
--------------
The release is determined by the noisy grid position :math:`j = k + Z`, an
integer. By default it is returned as the nearest double to :math:`g j`, and
that double determines j exactly while :math:`|j| < 2^{52}`: the spacing of
doubles near x is at most :math:`|x|/2^{52} < g` there, so two positions g apart
never round to the same double. Beyond, a float would lose noise (on the grid of
0.1, ``1e20`` plus any noise of fewer than about 16 000 steps rounds back to
``1e20``). So a float release refuses, before drawing, a value whose position
exceeds ``max_position`` = :math:`2^{52} - 1 - M` steps, where the margin M is
exceeded by the noise with probability below :math:`2^{-64}` per coordinate (a
refusal of an input outside a public range, like any input check), and every
value when M alone exceeds :math:`2^{52} - 1` (a grid too fine for the noise); in
that remaining event, after the draw, it raises rather than return a rounded float
(a function of j only, so nothing but the release itself is revealed). With
``exact=True`` the release is :math:`g j` as a :class:`fractions.Fraction` (an
object array of them for vectors), for any value: pass the granularity as a
Fraction (``Fraction(1, 10)``) for short ones.

What it does not protect against: the running time of the rejection loops varies
with the noise drawn (not with the input), and a float release is rounded to
the nearest double of :math:`g(k + Z)` (post-processing of the integer, which
it determines exactly, as above).
"""

from __future__ import annotations

import functools
import math
import random
from fractions import Fraction

import numpy as np

from .._lib.domains import EPSILON_POINT, RHO_TARGET
from .._lib.validation import check_count
from .._math.curves import zcdp_curve
from .._math.exact_sampling import (
    SECURE_RANDOM,
    as_fraction,
    discrete_gaussian,
    discrete_laplace,
)
from .._math.rounding import float_up
from ..privacy import PrivacyStatement
from ._base import (
    Mechanism,
    check_epsilon,
    check_worst_case_epsilon,
    exposed,
    pure_dp_rdp,
    pure_dp_zcdp,
    resolve_sensitivity,
    worst_case_statement,
    zcdp_worst_case_statement,
)
from .gaussian import GaussianMechanism
from .laplace import LaplaceMechanism

__all__ = [
    "DiscreteLaplaceMechanism",
    "DiscreteGaussianMechanism",
    "discrete_gaussian_delta",
    "FLOAT_POSITIONS",
]

#: Denominator to which noise parameters are rounded (up: more noise, never less).
_PARAMETER_DENOMINATOR = 2**32

#: A float release holds the noisy grid position j exactly for |j| < 2**52.
FLOAT_POSITIONS = 2**52

#: An upper bound on 65 ln 2: noise beyond ``t * _TAIL_65`` (discrete Laplace of
#: scale t) has probability below 2**-64.
_TAIL_65 = 65 * Fraction(6931471805599454, 10**16)


def _ceil_to(x: Fraction, denominator: int = _PARAMETER_DENOMINATOR) -> Fraction:
    """The smallest multiple of ``1/denominator`` that is >= x (keeps fractions small)."""
    return Fraction(math.ceil(x * denominator), denominator)


def _sqrt_up(n: int) -> Fraction:
    """A rational upper bound on sqrt(n), within 1e-9 of it."""
    root = math.isqrt(n)
    if root * root == n:
        return Fraction(root)
    return Fraction(math.isqrt(n * 10**18) + 1, 10**9)


def _check_granularity(granularity) -> Fraction:
    if isinstance(granularity, (np.floating, np.integer)):
        granularity = granularity.item()
    grid = as_fraction("granularity", granularity)
    if grid <= 0:
        raise ValueError(f"granularity must be > 0, got granularity={granularity!r}.")
    return grid


def _check_source(random_state):
    """The source of randomness: the secure generator, or a ``random.Random`` (tests)."""
    if random_state is None:
        return SECURE_RANDOM
    if isinstance(random_state, random.Random):
        return random_state
    raise TypeError(
        "random_state must be None (the secure generator) or a random.Random "
        "instance (reproducible, not secure: for tests); secure noise is never "
        f"seeded from an int or a numpy generator, got {random_state!r}."
    )


def _check_scale(name, value, scale2: Fraction) -> None:
    """Refuse a noise scale (given squared) whose releases would overflow a double."""
    if scale2 > Fraction(10**300) ** 2:
        raise ValueError(
            f"{name} is too small for this sensitivity: the noise scale would "
            f"exceed 1e300, beyond what a float release can hold, got "
            f"{name}={value!r}."
        )


def _grid_bound2(ratio: Fraction, d: int, norm: str | None) -> int:
    """Bound S on the squared L2 change in grid steps of a scalar sensitivity
    ``ratio`` = Delta / g over d coordinates (see DiscreteGaussianMechanism)."""
    if ratio == 0:
        return 0
    if d == 1:
        return math.ceil(ratio) ** 2
    bound = math.ceil((ratio + _sqrt_up(d)) ** 2) - 1
    if norm == "l1":
        bound = min(bound, (math.ceil(ratio) + d - 1) ** 2)
    return bound


class _DiscreteMechanism(Mechanism):
    """Shared by the discrete mechanisms: grid, grid sensitivity, release."""

    accepted_norms: tuple[str, ...] = ()

    def _setup(self, sensitivity, granularity, dimension, exact, floor=False):
        self._sensitivity = resolve_sensitivity(
            sensitivity,
            self.accepted_norms,
            type(self).__name__,
            floor=floor,
            per_coordinate_floor=floor,
        )
        self._grid = _check_granularity(granularity)
        self.granularity = float(granularity)
        if not isinstance(exact, (bool, np.bool_)):
            raise TypeError(f"exact must be True or False, got exact={exact!r}.")
        self.exact = bool(exact)
        if self._sensitivity.per_coordinate:
            size = int(np.size(self._sensitivity.value))
            if dimension is not None and check_count("dimension", dimension) != size:
                raise ValueError(
                    f"dimension must match the per-coordinate sensitivity "
                    f"({size}), got dimension={dimension!r}."
                )
            self.dimension = size
            # Per coordinate: |k_j - k'_j| <= ceil(Delta_j / g) (module Lemma).
            self._steps = tuple(
                math.ceil(Fraction(float(d)) / self._grid)
                for d in self._sensitivity.value
            )
        else:
            self.dimension = check_count(
                "dimension", 1 if dimension is None else dimension
            )
            self._steps = None

    @property
    def sensitivity(self):
        """The sensitivity the noise is calibrated to (a float or an array)."""
        return exposed(self._sensitivity.value)

    def _ratio(self) -> Fraction:
        """Sensitivity in grid units, Delta / g, exactly (scalar sensitivities)."""
        return Fraction(float(self._sensitivity.value)) / self._grid

    def _set_margin(self, margin: int) -> None:
        """Set the noise's margin (grid steps) and the largest float-released value."""
        self._margin = margin
        #: Largest grid position |k| a float release takes (see ``release``).
        self.max_position = max(0, FLOAT_POSITIONS - 1 - margin)

    def _position(self, v) -> int:
        """The grid position k of ``v``: ``v / g`` rounded half up, exactly."""
        return math.floor(Fraction(float(v)) / self._grid + Fraction(1, 2))

    def check_release(self, value, *, random_state=None):
        """Validate a release's inputs without drawing anything.

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        random_state : None or random.Random, optional
            Source of the noise: ``None`` (default) is the operating system's
            secure generator; a ``random.Random`` is for reproducible tests.

        Returns
        -------
        (value, source) : (ndarray, random.Random)
            The checked value and the source ``release`` draws from: the secure
            generator for ``random_state=None``, or the ``random.Random`` given.

        Raises
        ------
        TypeError, ValueError
            Naming a bad ``value`` or ``random_state``; and, for a float
            release (``exact=False``), a value whose grid position exceeds
            :attr:`max_position` in absolute value, or any value when the
            noise's margin alone exceeds the 2**52 grid steps a float holds
            exactly (a granularity too fine for the noise).
        """
        arr = self._checked_value(value)
        if not self.exact and self._margin > FLOAT_POSITIONS - 1:
            raise ValueError(
                f"granularity={self.granularity!r} is too fine for a float release "
                f"of this noise: it spans over 2**{self._margin.bit_length() - 1} "
                "grid steps (exceeded with probability below 2**-64), beyond the "
                "2**52 - 1 a float holds "
                "exactly, so even a value of 0 would come back rounded; use a "
                "coarser granularity, or exact=True for an exact Fraction release."
            )
        if not self._sensitivity.per_coordinate and arr.size != self.dimension:
            raise ValueError(
                f"value must have dimension={self.dimension} coordinates, got "
                f"shape {arr.shape}; pass dimension= to the constructor for "
                "vector values."
            )
        if not self.exact:
            limit = self.max_position
            for v in arr.reshape(-1):
                if abs(self._position(v)) > limit:
                    raise ValueError(
                        f"value is too large for a float release on the grid of "
                        f"granularity={self.granularity!r}: |value| / granularity "
                        f"must be at most {limit} grid steps (2**52 - 1 - "
                        f"{self._margin}, room for the noise), so that the returned "
                        f"float holds the noisy grid position exactly, got "
                        f"value={float(v)!r}; build the mechanism with exact=True "
                        "for an exact Fraction release, or a coarser granularity."
                    )
        return arr, _check_source(random_state)

    def _release(self, arr, draw):
        """``g (k + Z)`` per coordinate: Fractions (``exact``) or floats."""
        positions = [self._position(v) + draw() for v in arr.reshape(-1)]
        if self.exact:
            out = np.empty(arr.shape, dtype=object)
            out.reshape(-1)[:] = [self._grid * j for j in positions]
            return out[()] if out.ndim == 0 else out
        for j in positions:
            if abs(j) >= FLOAT_POSITIONS:  # probability < 2**-64 per coordinate
                raise ValueError(
                    "the noisy grid position fell beyond 2**52 steps, where a "
                    "float cannot hold it exactly; the value was within "
                    f"{self.max_position} steps, so this happens with probability "
                    "below 2**-64 per coordinate. Build the mechanism with "
                    "exact=True for an exact Fraction release."
                )
        out = np.array([float(self._grid * j) for j in positions]).reshape(arr.shape)
        return float(out) if out.ndim == 0 else out


class DiscreteLaplaceMechanism(_DiscreteMechanism):
    r"""Exact discrete Laplace noise on the grid :math:`g\mathbb{Z}` (pure epsilon-DP).

    Releases :math:`g(k + Z_j)` per coordinate, with k the value rounded to the
    grid and :math:`Z_j` independent draws of the discrete Laplace law of scale t
    grid steps, :math:`P[Z = z] \propto e^{-|z|/t}`, from the operating system's
    secure generator (Canonne, Kamath & Steinke 2020, Algorithms 1 and 2).

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
        L1 sensitivity of the query (an estimate in the ``"l1"`` norm), or
        per-coordinate sensitivities (an array, or an estimate with
        ``norm="coordinate"``). An estimate's gamma is carried into the statement.
    epsilon : float
        ``> 0``.
    granularity : float or Fraction
        Grid step g ``> 0``; values are released on :math:`g\mathbb{Z}`.
    dimension : int, optional
        Number of coordinates released with a scalar L1 sensitivity (default 1);
        taken from the array for per-coordinate sensitivities.
    exact : bool, default False
        Release exact :class:`~fractions.Fraction` values :math:`g(k + Z)`
        instead of floats (module docstring, "Exact releases").
    worst_case_epsilon : float, optional
        Cap on the worst-case epsilon, for an estimate that carries a
        worst-case sensitivity :math:`\Delta_{wc}` (sampled with bounds): the
        scale t is raised to at least :math:`L_{wc}` / ``worst_case_epsilon``
        with :math:`L_{wc} = \lceil\Delta_{wc}/g\rceil + d - 1` grid steps,
        and the statement's ``worst_case`` is :math:`L_{wc}/t`-DP for every
        pair (the argument of the Notes with :math:`L_{wc}`). Default: 10
        times ``epsilon``. A sampled sensitivity of 0 then states the
        requested epsilon, never 0. Per coordinate, :math:`\Delta_{wc}` is
        the l1 norm of the change over all d coordinates, so :math:`L_{wc}`
        is the same grid bound (module docstring, L1; every coordinate has
        the same scale t), and a sampled coordinate of 0 is floored alike.

    Attributes
    ----------
    max_position : int
        Largest :math:`|v|/g` (grid steps) a float release takes: :math:`2^{52}
        - 1` minus a margin the noise exceeds with probability below
        :math:`2^{-64}`, so the returned float holds the noisy position exactly.
    grid_sensitivity : int
        L1 sensitivity :math:`L` of the rounded query in grid steps:
        :math:`\lceil\Delta/g\rceil + d - 1` for a scalar, :math:`\sum_j
        \lceil\Delta_j/g\rceil` per coordinate (module docstring).
    scale : float
        Noise scale :math:`t g` in the units of the value.

    Notes
    -----
    If :math:`|k - k'|_1 \le L` then the densities of :math:`k + Z` and
    :math:`k' + Z` differ by at most :math:`e^{L/t}` pointwise (triangle
    inequality, coordinate by coordinate), so the release is :math:`(L/t)`-DP
    (CKS 2020, Sec. 2.2; the geometric mechanism of Ghosh, Roughgarden &
    Sundararajan 2009). The scale :math:`t = L/\epsilon` is rounded *up* to a
    multiple of :math:`2^{-32}` to keep the rationals small; ``epsilon`` and the
    statement are then :math:`L/t \le` the requested epsilon, rounded up to a
    double. With a sampled sensitivity the release is epsilon-DP with probability
    at least :math:`1-\gamma` (random DP, Rubinstein & Aldà 2017).

    ``random_state`` in :meth:`release` is ``None`` (the secure generator) or a
    :class:`random.Random` for reproducible tests, which is *not* secure; an int
    or a numpy generator is refused, so secure noise is never seeded by accident.
    Cost: about 2·10^4 draws per second, some 1000 times slower than numpy's
    Laplace noise (``benchmarks/secure_noise.py``).

    Examples
    --------
    >>> mech = DiscreteLaplaceMechanism(1.0, 0.5, granularity=0.25)
    >>> mech.grid_sensitivity, mech.scale   # 4 steps; t = 4 / 0.5 = 8 steps of 0.25
    (4, 2.0)
    """

    name = "discrete Laplace"
    accepted_norms = LaplaceMechanism.accepted_norms

    def __init__(
        self,
        sensitivity,
        epsilon: float,
        *,
        granularity,
        dimension=None,
        exact: bool = False,
        worst_case_epsilon: float | None = None,
    ):
        self._setup(sensitivity, granularity, dimension, exact, floor=True)
        epsilon = check_epsilon(epsilon)
        self.worst_case_epsilon = check_worst_case_epsilon(worst_case_epsilon, epsilon)
        if self._steps is not None:
            steps = sum(self._steps)
        elif self._ratio() == 0:
            steps = 0
        else:
            steps = math.ceil(self._ratio()) + self.dimension - 1
        self.grid_sensitivity = steps
        worst = self._sensitivity.worst_case
        self._worst_steps = None
        if worst is not None:  # per coordinate too: worst is then an l1 norm
            ratio = Fraction(float(worst)) / self._grid
            self._worst_steps = 0 if ratio == 0 else math.ceil(ratio) + self.dimension - 1
        floor = (
            _ceil_to(Fraction(self._worst_steps) / Fraction(self.worst_case_epsilon))
            if self._worst_steps
            else Fraction(0)
        )
        if steps == 0 and floor == 0:  # nothing to hide: no noise, epsilon = 0
            self._t = None
            self.epsilon = 0.0
            self._set_margin(0)
        else:
            t = _ceil_to(Fraction(steps) / Fraction(epsilon)) if steps else Fraction(0)
            self._t = max(t, floor)  # the worst-case floor raises the noise
            _check_scale("epsilon", epsilon, (self._t * self._grid) ** 2)
            # a sampled 0 states the requested epsilon (more noise only helps)
            self.epsilon = float_up(steps / self._t) if steps else epsilon
            # P[|Z| >= M] = 2 e^{-M/t} / (1 + e^{-1/t}) <= 2 e^{-M/t} <= 2**-64
            self._set_margin(math.ceil(self._t * _TAIL_65))

    @property
    def scale(self) -> float:
        """Noise scale in the units of the value, :math:`t g` (0 without noise)."""
        return 0.0 if self._t is None else float(self._t * self._grid)

    def _privacy_statement(self) -> PrivacyStatement:
        worst_case = None
        if self._worst_steps is not None:
            epsilon = (
                0.0 if self._worst_steps == 0 else float_up(self._worst_steps / self._t)
            )
            worst_case = worst_case_statement(
                self.name,
                self._sensitivity,
                epsilon,
                0.0,
                rho=pure_dp_zcdp(epsilon),
                rdp=pure_dp_rdp(epsilon),
            )
        return self._statement(
            self.epsilon,
            0.0,
            rho=pure_dp_zcdp(self.epsilon),
            rdp=pure_dp_rdp(self.epsilon),
            worst_case=worst_case,
        )

    def release(self, value, *, random_state=None):
        """Return ``value`` rounded to the grid plus exact discrete Laplace noise.

        Checks everything before drawing (a float release refuses values
        beyond :attr:`max_position` grid steps).

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        random_state : None or random.Random, optional
            Source of the noise: ``None`` (default) is the operating system's
            secure generator; a ``random.Random`` is for reproducible tests.

        Returns
        -------
        float, Fraction or ndarray
            Same shape as ``value``: floats, or Fractions for ``exact=True``.
        """
        arr, rng = self.check_release(value, random_state=random_state)
        t = self._t
        return self._release(arr, lambda: 0 if t is None else discrete_laplace(t, rng))


class DiscreteGaussianMechanism(_DiscreteMechanism):
    r"""Exact discrete Gaussian noise on the grid :math:`g\mathbb{Z}` (rho-zCDP).

    Releases :math:`g(k + Z_j)` per coordinate, with k the value rounded to the
    grid and :math:`Z_j` independent draws of the discrete Gaussian
    :math:`N_{\mathbb{Z}}(0, \sigma^2)`, :math:`P[Z = z] \propto
    e^{-z^2/(2\sigma^2)}` (σ in grid steps), from the operating system's secure
    generator (Canonne, Kamath & Steinke 2020, Algorithm 3).

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
        L2 sensitivity (an estimate in the ``"l2"`` norm, or ``"l1"``, which
        bounds it), or per-coordinate sensitivities (an array, or an estimate
        with ``norm="coordinate"``). An estimate's gamma is carried into the
        statement.
    rho : float
        zCDP parameter ``> 0``.
    granularity : float or Fraction
        Grid step g ``> 0``.
    dimension : int, optional
        Number of coordinates released with a scalar sensitivity (default 1).
    exact : bool, default False
        Release exact :class:`~fractions.Fraction` values :math:`g(k + Z)`
        instead of floats (module docstring, "Exact releases").
    worst_case_rho : float, optional
        Cap on the worst-case zCDP rho, for an estimate that carries a
        worst-case sensitivity (see the Notes). Default: 100 times ``rho``.

    Attributes
    ----------
    max_position : int
        Largest :math:`|v|/g` (grid steps) a float release takes: :math:`2^{52}
        - 1` minus a margin the noise exceeds with probability below
        :math:`2^{-64}`, so the returned float holds the noisy position exactly.
    grid_sensitivity2 : int
        Bound :math:`S` on :math:`\lVert k - k'\rVert_2^2` in grid steps (module
        docstring): :math:`\lceil\Delta/g\rceil^2` for one coordinate,
        :math:`\lceil(\Delta_2/g + \sqrt d)^2\rceil - 1` for a scalar L2
        sensitivity over d coordinates (also at most
        :math:`(\lceil\Delta_1/g\rceil + d - 1)^2` for an L1 one), and
        :math:`\sum_j \lceil\Delta_j/g\rceil^2` per coordinate.
    sigma : float
        Noise parameter σ in the units of the value, :math:`g\sqrt{\sigma^2}`.

    Notes
    -----
    CKS 2020, Thm. 14: independent :math:`N_{\mathbb{Z}}(0, \sigma^2)` noise on
    each integer coordinate with :math:`\sum_j (k_j - k'_j)^2 \le S` is
    :math:`S/(2\sigma^2)`-zCDP (Thm. 4 for d = 1). So :math:`\sigma^2 =
    S/(2\rho)`, rounded *up* to a multiple of :math:`2^{-32}`; ``rho`` and the
    statement are the resulting :math:`S/(2\sigma^2) \le` the requested rho,
    rounded up to a double. The Rényi curve is :math:`\alpha\rho`; for one
    coordinate, :meth:`delta` gives the exact (epsilon, delta) curve of CKS 2020,
    Thm. 7, tighter than any conversion of the zCDP statement. With a sampled
    sensitivity all of this holds with probability at least :math:`1-\gamma`
    (random DP, Rubinstein & Aldà 2017).

    ``random_state`` in :meth:`release` is ``None`` (the secure generator) or a
    :class:`random.Random` for reproducible tests, which is *not* secure.
    Cost: about 10^4 draws per second, some 2000-5000 times slower than numpy's
    normal noise (``benchmarks/secure_noise.py``).

    **Worst case.** For an estimate that carries a worst-case sensitivity
    :math:`\Delta_{wc}` (sampled with bounds), :math:`S_{wc}` is the same
    bound for :math:`\Delta_{wc}`; :math:`\sigma^2` is raised to at least
    :math:`S_{wc}/(2\rho_{cap})` with :math:`\rho_{cap}` =
    ``worst_case_rho`` (default 100 ``rho``: about 10 times the epsilon of
    small rho, since epsilon grows as its square root), and the statement's
    ``worst_case`` is :math:`S_{wc}/(2\sigma^2)`-zCDP for every pair (the
    same theorem). A sampled sensitivity of 0 then states the requested rho.
    Per coordinate, :math:`\Delta_{wc}` is the l1 norm of the change over all
    d coordinates, which bounds its l2 norm: :math:`S_{wc}` is the bound of an
    l1 sensitivity :math:`\Delta_{wc}` over d coordinates (every coordinate
    has the same sigma), and a sampled coordinate of 0 is floored alike.

    Examples
    --------
    >>> mech = DiscreteGaussianMechanism(1.0, rho=0.5, granularity=0.5)
    >>> mech.grid_sensitivity2, mech.sigma   # sigma^2 = 2^2 / (2 * 0.5) = 4 steps^2
    (4, 1.0)
    """

    name = "discrete Gaussian"
    accepted_norms = GaussianMechanism.accepted_norms

    def __init__(
        self,
        sensitivity,
        *,
        rho: float,
        granularity,
        dimension=None,
        exact: bool = False,
        worst_case_rho: float | None = None,
    ):
        self._setup(sensitivity, granularity, dimension, exact, floor=True)
        rho = RHO_TARGET.check("rho", rho)
        self.worst_case_rho = (
            100.0 * rho
            if worst_case_rho is None
            else RHO_TARGET.check("worst_case_rho", worst_case_rho)
        )
        norm = self._sensitivity.norm
        if self._steps is not None:
            bound = sum(s * s for s in self._steps)
        else:
            bound = _grid_bound2(self._ratio(), self.dimension, norm)
        self.grid_sensitivity2 = bound
        worst = self._sensitivity.worst_case
        self._worst_bound2 = None
        if worst is not None:
            ratio = Fraction(float(worst)) / self._grid
            # per coordinate, the worst case is the l1 norm of the change
            self._worst_bound2 = _grid_bound2(
                ratio, self.dimension, "l1" if self._steps is not None else norm
            )
        floor = (
            _ceil_to(Fraction(self._worst_bound2) / (2 * Fraction(self.worst_case_rho)))
            if self._worst_bound2
            else Fraction(0)
        )
        if bound == 0 and floor == 0:
            self._sigma2 = None
            self.rho = 0.0
            self._set_margin(0)
        else:
            sigma2 = _ceil_to(Fraction(bound) / (2 * Fraction(rho))) if bound else 0
            self._sigma2 = max(sigma2, floor)  # the worst-case floor raises the noise
            _check_scale("rho", rho, self._sigma2 * self._grid**2)
            # a sampled 0 states the requested rho (more noise only helps)
            self.rho = float_up(bound / (2 * self._sigma2)) if bound else rho
            # Sub-Gaussian (CKS 2020, Sec. 2: its MGF is at most N(0, sigma^2)'s): P[|Z| >= M] <=
            # 2 e^{-M^2 / (2 sigma^2)} <= 2**-64 for M^2 >= 130 ln 2 sigma^2.
            self._set_margin(math.isqrt(math.ceil(2 * _TAIL_65 * self._sigma2)) + 1)

    @property
    def sigma(self) -> float:
        """Noise parameter σ in the units of the value (0 without noise)."""
        if self._sigma2 is None:
            return 0.0
        return float(self._grid) * math.sqrt(self._sigma2)

    def delta(self, epsilon: float) -> float:
        """Exact delta at ``epsilon`` for one coordinate (CKS 2020, Thm. 7).

        See :func:`discrete_gaussian_delta`; defined for ``dimension == 1``.

        Parameters
        ----------
        epsilon : float
            ``>= 0``.

        Returns
        -------
        float
            The exact delta, in ``[0, 1]``.
        """
        if self.dimension != 1:
            raise ValueError(
                "delta(epsilon) is the exact curve of one coordinate; for "
                f"dimension={self.dimension} use privacy.epsilon_for(delta) (zCDP)."
            )
        if self._sigma2 is None:
            EPSILON_POINT.check("epsilon", epsilon)
            return 0.0
        return discrete_gaussian_delta(
            epsilon, self._sigma2, math.isqrt(self.grid_sensitivity2)
        )

    def _privacy_statement(self) -> PrivacyStatement:
        worst_case = None
        if self._worst_bound2 is not None:
            rho = (
                0.0
                if self._worst_bound2 == 0
                else float_up(self._worst_bound2 / (2 * self._sigma2))
            )
            worst_case = zcdp_worst_case_statement(self.name, self._sensitivity, rho)
        return self._statement(
            None,
            None,
            rho=self.rho,
            rdp=functools.partial(zcdp_curve, self.rho),
            worst_case=worst_case,
        )

    def release(self, value, *, random_state=None):
        """Return ``value`` rounded to the grid plus exact discrete Gaussian noise.

        Checks everything before drawing (a float release refuses values
        beyond :attr:`max_position` grid steps).

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        random_state : None or random.Random, optional
            Source of the noise: ``None`` (default) is the operating system's
            secure generator; a ``random.Random`` is for reproducible tests.

        Returns
        -------
        float, Fraction or ndarray
            Same shape as ``value``: floats, or Fractions for ``exact=True``.
        """
        arr, rng = self.check_release(value, random_state=random_state)
        s2 = self._sigma2
        return self._release(
            arr, lambda: 0 if s2 is None else discrete_gaussian(s2, rng)
        )


#: Largest sigma (in grid steps) for which :func:`discrete_gaussian_delta` sums the pmf.
MAX_DELTA_SIGMA = 10**6


def discrete_gaussian_delta(epsilon: float, sigma2, sensitivity: int) -> float:
    r"""Exact delta of the discrete Gaussian mechanism at epsilon (CKS 2020, Thm. 7).

    Parameters
    ----------
    epsilon : float
        ``>= 0``.
    sigma2 : float or Fraction
        :math:`\sigma^2 > 0` of :math:`N_{\mathbb{Z}}(0, \sigma^2)`, in grid steps;
        ``sqrt(sigma2) <= MAX_DELTA_SIGMA``.
    sensitivity : int
        Integer sensitivity :math:`\Delta \ge 1` of the integer-valued query.

    Returns
    -------
    delta : float

    Notes
    -----
    With :math:`Y \sim N_{\mathbb{Z}}(0,\sigma^2)`, Thm. 7 gives
    :math:`\delta = P[Y > \epsilon\sigma^2/\Delta - \Delta/2] - e^\epsilon
    P[Y > \epsilon\sigma^2/\Delta + \Delta/2]`. Substituting :math:`y = z + \Delta`
    in the second sum, :math:`\delta = \sum_{z > c} p(z)\,(1 - e^{\epsilon -
    (2z\Delta + \Delta^2)/(2\sigma^2)})` with :math:`c = \epsilon\sigma^2/\Delta -
    \Delta/2`: every term is positive (:math:`z > c` makes the exponent negative),
    so the sum has no cancellation; each term uses ``expm1``. The pmf is summed
    over :math:`|z| \le 40\sigma + 1` (the rest is below :math:`e^{-800}`) in
    chunks of :math:`2^{20}` terms, and the result is raised by a relative
    :math:`10^{-9}` against rounding.
    """
    epsilon = EPSILON_POINT.check("epsilon", epsilon)
    sigma2 = as_fraction("sigma2", sigma2)
    if sigma2 <= 0:
        raise ValueError(f"sigma2 must be > 0, got sigma2={sigma2!r}.")
    sensitivity = check_count("sensitivity", sensitivity)
    sigma = math.sqrt(sigma2)
    if sigma > MAX_DELTA_SIGMA:
        raise ValueError(
            f"sigma2 must be <= {MAX_DELTA_SIGMA}**2 grid steps for the exact sum, "
            f"got sigma2={float(sigma2)!r}; use the zCDP statement instead."
        )
    s2 = float(sigma2)
    width = int(40 * sigma) + 1
    norm = math.fsum(_gauss_chunks(-width, width, s2, lambda z, w: w))
    # z > c, exactly: c = (2 eps sigma2 - Delta^2) / (2 Delta) as a Fraction.
    c = (2 * Fraction(epsilon) * sigma2 - sensitivity**2) / (2 * sensitivity)
    low = max(math.floor(c) + 1, -width)

    def loss(z, weight):
        exponent = epsilon - (2 * z * sensitivity + sensitivity**2) / (2 * s2)
        return weight * -np.expm1(np.minimum(exponent, 0.0))

    total = math.fsum(_gauss_chunks(low, width, s2, loss))
    return min(1.0, total / norm * (1 + 1e-9))


def _gauss_chunks(low, high, s2, func, size=2**20):
    """Sums of ``func(z, exp(-z^2 / (2 s2)))`` over z in [low, high], chunk by chunk."""
    for start in range(low, high + 1, size):
        z = np.arange(start, min(start + size, high + 1), dtype=float)
        yield float(np.sum(func(z, np.exp(-(z**2) / (2 * s2)))))
