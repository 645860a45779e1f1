"""A counter-example: (epsilon, delta)-DP, yet it publishes the data with probability delta."""

from __future__ import annotations

from ..privacy import PrivacyStatement
from ._base import (
    Mechanism,
    check_delta,
    check_epsilon,
    exposed,
    read_only,
    resolve_sensitivity,
)
from .laplace import LaplaceMechanism, add_laplace_noise, laplace_scale

__all__ = ["CatastropheMechanism"]


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
        Probability of publishing the data, ``0 < delta < 1``.
    data : object, optional
        What is published on the catastrophic event; ``release(..., data=...)``
        overrides it, and without either the exact ``value`` is published.

    Examples
    --------
    >>> mech = CatastropheMechanism(1.0, 1.0, 0.5, data="the database")
    >>> mech.release(0.0, random_state=2)
    'the database'
    """

    name = "catastrophe"

    def __init__(self, sensitivity, epsilon: float, delta: float, data=None):
        self._sensitivity = resolve_sensitivity(
            sensitivity, LaplaceMechanism.accepted_norms, "CatastropheMechanism"
        )
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.data = data
        self._scale = read_only(laplace_scale(self._sensitivity, self.epsilon))

    @property
    def sensitivity(self):
        """The sensitivity the noise is calibrated to (a float or an array)."""
        return exposed(self._sensitivity.value)

    @property
    def scale(self):
        """Laplace scale of the ordinary release."""
        return exposed(self._scale)

    def _privacy_statement(self) -> PrivacyStatement:
        return self._statement(self.epsilon, self.delta)

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
