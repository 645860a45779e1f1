"""A counter-example: (epsilon, delta)-DP, yet it publishes the data with probability delta."""

from __future__ import annotations

import numpy as np

from .._lib.domains import documented
from ..privacy import PrivacyStatement
from ._base import (
    Mechanism,
    check_delta,
    check_epsilon,
    check_worst_case_epsilon,
    exposed,
    quotient_up,
    read_only,
    resolve_sensitivity,
    worst_case_statement,
)
from .laplace import LaplaceMechanism, add_laplace_noise, floored_laplace_scale

__all__ = ["CatastropheMechanism"]


@documented
class CatastropheMechanism(Mechanism):
    r"""With probability delta, publish the data; otherwise a Laplace release.

    **For teaching and auditing only.** It satisfies (epsilon, delta)-DP (the
    definition allows anything on an event of probability delta; Dwork & Roth
    2014, Sec. 2.3), which is why delta must be tiny and why a mechanism that
    fails gracefully, like the Gaussian, is preferred. It satisfies no finite
    Rényi DP and no zCDP (on the catastrophic event the privacy loss is
    infinite), so its statement has ``rdp=None`` and ``rho=None`` and the Rényi
    and zCDP accountants refuse it.

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
        As for :class:`LaplaceMechanism`.
    epsilon : float
        ``> 0``.
    delta : float
        Probability of publishing the data, ``{DELTA_TARGET:delta}``.
    data : object, optional
        What is published on the catastrophic event; ``release(..., data=...)``
        overrides it, and without either the exact ``value`` is published.
    worst_case_epsilon : float, optional
        Cap on the worst-case epsilon of the Laplace part, for an estimate
        that carries a worst-case sensitivity (as for
        :class:`LaplaceMechanism`). Default: 10 times ``epsilon``.

    Notes
    -----
    **Worst case.** With a worst-case sensitivity :math:`\Delta_{wc}` the
    Laplace scale b is floored as in :class:`LaplaceMechanism`, and the
    statement's ``worst_case`` is :math:`(\Delta_{wc}/b, \delta)`-DP for every
    pair: for any event S, :math:`P[M(D) \in S] \le \delta + (1 -
    \delta)P[L(D) \in S] \le \delta + e^{\epsilon_{wc}}P[M(D') \in S]`, L the
    Laplace release (Dwork & Roth 2014, Thm. 3.6 for L). That is all that
    holds for every pair: with probability delta the data are published,
    whatever the bounds, so the worst case states no Rényi DP or zCDP
    either. It protects no one on that event; it is a counter-example, not a
    floor.

    Examples
    --------
    >>> mech = CatastropheMechanism(1.0, 1.0, 0.5, data="the database")
    >>> mech.release(0.0, random_state=2)
    'the database'
    """

    name = "catastrophe"

    def __init__(
        self,
        sensitivity,
        epsilon: float,
        delta: float,
        data=None,
        worst_case_epsilon: float | None = None,
    ):
        self._sensitivity = resolve_sensitivity(
            sensitivity,
            LaplaceMechanism.accepted_norms,
            "CatastropheMechanism",
            floor=True,
            per_coordinate_floor=True,
        )
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.data = data
        self.worst_case_epsilon = check_worst_case_epsilon(
            worst_case_epsilon, self.epsilon
        )
        self._scale = read_only(
            floored_laplace_scale(
                self._sensitivity, self.epsilon, self.worst_case_epsilon
            )
        )

    @property
    def sensitivity(self):
        """The sensitivity the noise is calibrated to (a float or an array)."""
        return exposed(self._sensitivity.value)

    @property
    def scale(self):
        """Laplace scale of the ordinary release."""
        return exposed(self._scale)

    def _privacy_statement(self) -> PrivacyStatement:
        return self._statement(
            self.epsilon, self.delta, worst_case=self._worst_case_statement()
        )

    def _worst_case_statement(self) -> PrivacyStatement | None:
        """``(Delta_wc / b, delta)``-DP for every pair, or None without a worst case."""
        s = self._sensitivity
        if s.worst_case is None:
            return None
        least = float(np.min(self._scale))  # per coordinate: as for Laplace noise
        epsilon = 0.0 if s.worst_case == 0 else quotient_up(s.worst_case, least)
        return worst_case_statement(self.name, s, epsilon, self.delta)

    def release(self, value, *, data=None, random_state=None):
        """The data with probability delta, else ``value`` plus Laplace noise.

        The data is ``data`` if given, else the one given at construction, else
        ``value`` itself, unperturbed.

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        data : object, optional
            What to publish in the catastrophe; default: the ``data`` given at
            construction, else ``value``.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the noise; ``None`` (default) draws fresh entropy.

        Returns
        -------
        object
            With probability delta the data, else a float or ndarray of
            ``value``'s shape.
        """
        arr, rng = self.check_release(value, random_state=random_state)
        if rng.random() < self.delta:
            if data is not None:
                return data
            return value if self.data is None else self.data
        return add_laplace_noise(arr, self._scale, rng)
