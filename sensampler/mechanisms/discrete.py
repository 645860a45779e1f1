"""Mechanisms with discrete outputs: the exponential mechanism and randomized response."""

from __future__ import annotations

import math

import numpy as np

from .._lib.validation import check_count
from ..privacy import PrivacyStatement
from ._base import (
    Mechanism,
    bounded_range_rdp,
    check_epsilon,
    pure_dp_rdp,
    pure_dp_zcdp,
    resolve_sensitivity,
)

__all__ = ["ExponentialMechanism", "RandomizedResponse"]


class ExponentialMechanism(Mechanism):
    r"""Chooses candidate r with probability :math:`\propto \exp(\epsilon u_r/(2\Delta u))`.

    McSherry & Talwar (2007); Dwork & Roth (2014), Thm. 3.10: epsilon-DP when
    :math:`\Delta u` bounds how much any candidate's utility moves between
    neighbours. It is moreover epsilon-bounded-range, hence
    :math:`\epsilon^2/8`-zCDP (Cesar & Rogers 2021; :func:`bounded_range_rdp`),
    and, being epsilon-DP, epsilon-zCDP: its statement carries the smaller
    (:func:`~sensampler.mechanisms._base.pure_dp_zcdp`). Sampling uses the
    Gumbel-max trick, exact and stable for scores of any size.

    Parameters
    ----------
    sensitivity : float or SensitivityEstimate
        Sensitivity of the utility, :math:`\max_r |u(D, r) - u(D', r)|`: an estimate of
        the vector of utilities in the ``"linf"`` norm (``"l1"``, ``"l2"`` bound it
        from above; ``"coordinate"`` uses its largest entry). A sampled
        sensitivity covers scores of the shape it was sampled for only (a
        scalar taken from a per-coordinate estimate covers one utility, not
        a vector of them), as for every mechanism.
    epsilon : float
    """

    name = "exponential"
    accepted_norms = ("linf", "l2", "l1", "coordinate")

    def __init__(self, sensitivity, epsilon: float):
        self._sensitivity = resolve_sensitivity(
            sensitivity, self.accepted_norms, "ExponentialMechanism"
        )
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = float(np.max(self._sensitivity.value))

    def _privacy_statement(self) -> PrivacyStatement:
        return self._statement(
            self.epsilon,
            0.0,
            rho=pure_dp_zcdp(self.epsilon, 8.0),
            rdp=bounded_range_rdp(self.epsilon),
        )

    def probabilities(self, scores) -> np.ndarray:
        """Selection probabilities for the given utility scores (a softmax, stably).

        Parameters
        ----------
        scores : array_like
            Each candidate's utility on the data, finite.

        Returns
        -------
        ndarray
            Probabilities of the shape of ``scores``, summing to 1.
        """
        logits = self._logits(self._checked_value(scores))
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()

    def _value_array(self, value) -> np.ndarray:
        try:
            u = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"scores must be a non-empty 1-d array of finite utilities, "
                f"got {value!r}."
            ) from exc
        if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
            raise ValueError(
                f"scores must be a non-empty 1-d array of finite utilities, "
                f"got {value!r}."
            )
        return u

    def _logits(self, u):
        top = u == u.max()
        if self.sensitivity == 0:
            return np.where(top, 0.0, -np.inf)
        # Shifted by the largest score, which leaves the law unchanged; a product
        # that overflows is -inf, for a candidate of probability below e^-700.
        with np.errstate(over="ignore", invalid="ignore"):
            shifted = (u - u.max()) * (self.epsilon / (2.0 * self.sensitivity))
        return np.where(top, 0.0, shifted)

    def release(self, value, *, random_state=None) -> int:
        """Index of the chosen candidate, given each candidate's utility on the data.

        Parameters
        ----------
        value : array_like
            The scores: each candidate's utility on the data, finite.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the Gumbel noise; ``None`` (default) draws fresh entropy.

        Returns
        -------
        int
            Flat index of the chosen candidate in ``value``.
        """
        scores, rng = self.check_release(value, random_state=random_state)
        logits = self._logits(scores)
        return int(np.argmax(logits + rng.gumbel(size=logits.shape)))

    def choose(self, candidates, utility, data, *, random_state=None):
        """Choose among ``candidates`` by ``utility(data, candidate)``.

        Parameters
        ----------
        candidates : iterable
            The candidates, at least one.
        utility : callable
            ``utility(data, candidate) -> float``, whose sensitivity the
            mechanism was built with.
        data : object
            The private data, passed to ``utility``.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the Gumbel noise; ``None`` (default) draws fresh entropy.

        Returns
        -------
        object
            The chosen candidate.
        """
        candidates = list(candidates)
        scores = [utility(data, c) for c in candidates]
        return candidates[self.release(scores, random_state=random_state)]


class RandomizedResponse(Mechanism):
    r"""k-ary randomized response: the true category with probability
    :math:`e^\epsilon/(e^\epsilon + k - 1)`, otherwise one of the other k - 1 uniformly.

    Warner (1965); its k-ary form is epsilon-DP for each respondent's value
    (Kairouz, Oh & Viswanath 2016).

    The true category is kept when an integer drawn uniformly from
    ``[0, 2**53)`` is below ``T = floor(p * 2**53) - 8``, where p is the float
    value of :math:`e^\epsilon/(e^\epsilon + k - 1)` (five roundings: at most 5
    units of :math:`2^{-53}` from the exact one). The realised probabilities
    :math:`p' = T/2^{53} \le p` and :math:`q' = (1 - p')/(k - 1) \ge q` are exact,
    so :math:`p'/q' \le p/q = e^\epsilon`: the float arithmetic never makes the
    release less private than stated, even where p rounds to 1 (large epsilon).
    Where :math:`p - q < 2^{-47}` (epsilon tiny for k, or k huge for epsilon)
    ``p' >= q'`` could fail and the parameters are refused. :attr:`p_true` is p'.

    Parameters
    ----------
    k : int
        Number of categories, ``>= 2``; values are ``0 .. k-1``.
    epsilon : float
    """

    name = "randomized response"

    #: Largest number of categories: responses are drawn and stored as int64.
    MAX_K = 2**62
    #: The keep-or-not draw is an integer uniform on ``[0, 2**_DRAW_BITS)``.
    _DRAW_BITS = 53
    #: Smallest difference of the kept and the other categories' probabilities.
    _MIN_GAP = 2.0**-47

    def __init__(self, k: int, epsilon: float):
        self.k = check_count("k", k, minimum=2)
        if self.k > self.MAX_K:
            raise ValueError(
                f"k must be <= 2**62 (categories are int64), got k={self.k!r}."
            )
        self.epsilon = check_epsilon(epsilon)
        spread = 1.0 + (self.k - 1) * math.exp(-self.epsilon)
        if -math.expm1(-self.epsilon) / spread < self._MIN_GAP:
            raise ValueError(
                f"epsilon={self.epsilon!r} is too small for k={self.k!r}: the kept "
                "and the other categories' probabilities differ by less than "
                "2**-47, which 53-bit draws cannot realise within epsilon."
            )
        self._keep = math.floor(2.0**self._DRAW_BITS / spread) - 8
        self.p_true = self._keep / 2.0**self._DRAW_BITS

    def _privacy_statement(self) -> PrivacyStatement:
        return PrivacyStatement(
            "randomized response",
            self.epsilon,
            0.0,
            rho=pure_dp_zcdp(self.epsilon),
            rdp=pure_dp_rdp(self.epsilon),
        )

    def _value_array(self, value) -> np.ndarray:
        arr = np.asarray(value)
        if arr.dtype.kind not in "iu" or np.any((arr < 0) | (arr >= self.k)):
            raise ValueError(
                f"value must hold integer categories in 0..{self.k - 1}, got {value!r}."
            )
        return arr

    def release(self, value, *, random_state=None):
        """Randomized responses, one per entry of ``value``.

        Parameters
        ----------
        value : int or array_like of int
            True categories, each in ``0 .. k-1``.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the randomness; ``None`` (default) draws fresh entropy.

        Returns
        -------
        int or ndarray
            The responses, of ``value``'s shape: each the true category with
            probability :attr:`p_true`, else one of the others uniformly.
        """
        arr, rng = self.check_release(value, random_state=random_state)
        keep = rng.integers(0, 2**self._DRAW_BITS, size=arr.shape) < self._keep
        other = (arr + rng.integers(1, self.k, size=arr.shape)) % self.k
        out = np.where(keep, arr, other)
        return int(out) if out.ndim == 0 else out

    def estimate_frequencies(self, responses) -> np.ndarray:
        r"""Unbiased estimate of the true category frequencies from responses.

        :math:`\hat\pi_c = (\hat p_c - q)/(p - q)` with :math:`q = (1-p)/(k-1)`.

        Parameters
        ----------
        responses : array_like of int
            Released categories, each in ``0 .. k-1``.

        Returns
        -------
        ndarray
            Estimated frequency of each of the ``k`` categories (summing to 1;
            entries may fall outside ``[0, 1]``).
        """
        arr = self._checked_value(responses).ravel()
        observed = np.bincount(arr, minlength=self.k) / arr.size
        q = (1.0 - self.p_true) / (self.k - 1)
        return (observed - q) / (self.p_true - q)
