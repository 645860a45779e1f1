"""A counter-example: (epsilon, delta)-DP, yet it publishes the data with probability delta."""

from __future__ import annotations

from .._validation import check_random_state
from ._base import PrivacyGuarantee, check_delta
from .laplace import LaplaceMechanism

__all__ = ["CatastropheMechanism"]


class CatastropheMechanism(LaplaceMechanism):
    r"""With probability delta, release the whole database; otherwise a Laplace release.

    **For teaching and auditing only.** It satisfies (epsilon, delta)-DP (the
    definition allows anything on an event of probability delta; Dwork & Roth
    2014, Sec. 2.3), which is why delta must be tiny and why a mechanism that
    fails gracefully, like the Gaussian, is preferred. It satisfies no finite
    Rényi DP, so the Rényi and zCDP accountants refuse it.

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
    epsilon : float
    delta : float
        Probability of publishing the data, ``0 < delta < 1``.
    """

    name = "catastrophe"

    def __init__(self, sensitivity, epsilon: float, delta: float):
        super().__init__(sensitivity, epsilon)
        self.delta = check_delta(delta)

    @property
    def privacy(self) -> PrivacyGuarantee:
        s = self._sensitivity
        return PrivacyGuarantee(
            "catastrophe",
            self.epsilon,
            self.delta,
            s.gamma,
            s.run_id,
            guaranteed=s.guaranteed,
        )

    def release(self, value, data=None, random_state=None):
        """``data`` itself with probability delta, else ``value`` plus Laplace noise."""
        arr = self._check_value(value, self._sensitivity)
        rng = check_random_state(random_state)
        if rng.random() < self.delta:
            return data
        out = arr + rng.laplace(0.0, 1.0, size=arr.shape) * self.scale
        return float(out) if out.ndim == 0 else out
