"""The worst case of a ledger: its releases composed over every pair of neighbours."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .._math.rounding import float_up
from ..privacy import PrivacyBound, pure_dp_rdp, rdp_to_dp, zcdp_to_dp
from ._ledger_entry import LedgerEntry

__all__ = ["compose_worst_case", "worst_case_part"]


@dataclass(frozen=True)
class _WorstPart:
    """The worst-case part of one release: (epsilon, delta)-DP and/or rho-zCDP."""

    epsilon: float | None
    delta: float | None
    rho: float | None

    def curve(self, alpha: float) -> float:
        """Its Rényi divergence bound at ``alpha``: alpha * rho (rho-zCDP, Bun &
        Steinke 2016, Def. 1.1) or, for pure epsilon-DP, min(epsilon,
        alpha epsilon^2 / 2) (Bun & Steinke 2016, Prop. 1.4), the least that
        holds. Only for a part with rho or delta = 0."""
        values = [] if self.rho is None else [alpha * self.rho]
        if self.epsilon is not None and self.delta == 0.0:
            values.append(pure_dp_rdp(self.epsilon)(alpha))
        return min(values)


def worst_case_part(entry: LedgerEntry) -> _WorstPart | None:
    """The worst-case part of one release of ``entry`` over every pair, or None.

    A statement with no gamma and no run (a global sensitivity) is its own
    worst case; a sampled one has the worst-case part it stated, or none (a
    run of gamma 0 still states random DP, over data from the model only).
    """
    if entry.worst_case_epsilon is not None or entry.worst_case_rho is not None:
        return _WorstPart(
            entry.worst_case_epsilon, entry.worst_case_delta, entry.worst_case_rho
        )
    if not entry.sampled and (entry.epsilon is not None or entry.rho is not None):
        return _WorstPart(entry.epsilon, entry.delta, entry.rho)
    return None


#: Bound on |log1p(-1/alpha)| + ln(alpha)/(alpha - 1), doubled, plus slack, for
#: every order a conversion tries (alpha - 1 >= e^-20: the orders of
#: :func:`~sensampler.privacy.rdp_to_dp` start at 1.05, the search of
#: :func:`~sensampler.privacy.zcdp_to_dp` at 1 + e^-20).
_CONVERSION_TERMS = 44.0


def _conversion_up(epsilon: float, terms: int) -> float:
    """``epsilon``, a Rényi-to-DP conversion (Canonne, Kamath & Steinke 2020,
    Prop. 12) computed in floating point, raised past its round-off.

    At the order alpha it used, epsilon = R + log1p(-1/alpha) - (ln delta +
    ln alpha)/(alpha - 1), R the sum of ``terms`` non-negative Rényi bounds.
    Only log1p(-1/alpha) and -ln(alpha)/(alpha - 1) are negative, so the
    terms' magnitudes add up to at most epsilon + :data:`_CONVERSION_TERMS`;
    each of the at most ``terms + 8`` operations errs by half an ulp of a
    partial sum below that, so ``(terms + 8) 2^-50 (epsilon + 44)`` covers
    the whole error. The computed value may fall an ulp below the exact
    one, which would state more privacy than the conversion proves.
    """
    if epsilon == math.inf:
        return epsilon
    margin = Fraction(terms + 8, 2**50) * (Fraction(epsilon) + Fraction(44))
    return float_up(Fraction(epsilon) + margin)


def compose_worst_case(parts, delta: float | None) -> PrivacyBound:
    """Compose ``parts`` (pairs of a :class:`_WorstPart` and a count) into one
    (epsilon, delta)-DP bound over every pair of neighbours.

    - Every part in (epsilon, delta): basic composition (Dwork & Roth 2014,
      Thm. 3.16), summed exactly, rounded up. ``delta`` is not used.
    - Some part in zCDP only, and every part with a Rényi bound (rho, or pure
      DP): the Rényi bounds add under adaptive composition (Mironov 2017,
      Prop. 1); the sum is converted at ``delta`` by Canonne, Kamath & Steinke
      (2020), Prop. 12 (:func:`~sensampler.privacy.rdp_to_dp`), and where
      every part is zCDP the summed rho also by
      :func:`~sensampler.privacy.zcdp_to_dp`; the smaller epsilon holds.
    - Otherwise (zCDP parts beside approximate-DP ones): each of the K
      zCDP-only releases is converted alone at ``delta / K``
      (:func:`~sensampler.privacy.zcdp_to_dp`), then basic composition of
      every release: total delta the parts' deltas plus ``delta``.
    """
    zcdp_only = sum(count for part, count in parts if part.epsilon is None)
    if zcdp_only == 0:
        epsilon = sum((count * Fraction(p.epsilon) for p, count in parts), Fraction(0))
        total_delta = sum((count * Fraction(p.delta) for p, count in parts), Fraction(0))
        return PrivacyBound(
            float_up(epsilon),
            min(1.0, float_up(total_delta)),
            0.0,
            "basic composition (worst case)",
        )
    if all(p.rho is not None or p.delta == 0.0 for p, _ in parts):

        def curve(alpha: float) -> float:
            return sum(count * part.curve(alpha) for part, count in parts)

        if all(p.rho == 0.0 or (p.epsilon == 0.0 and p.delta == 0.0) for p, _ in parts):
            # every part's Rényi bound is 0 at every order: (0, 0)-DP
            return PrivacyBound(
                0.0, 0.0, 0.0, "Rényi composition of zCDP and pure DP (worst case)"
            )
        epsilon = rdp_to_dp(curve, delta)[0]
        if all(p.rho is not None for p, _ in parts):
            rho = sum((count * Fraction(p.rho) for p, count in parts), Fraction(0))
            epsilon = min(epsilon, zcdp_to_dp(float_up(rho), delta))
        epsilon = _conversion_up(epsilon, len(parts))
        return PrivacyBound(
            epsilon, delta, 0.0, "Rényi composition of zCDP and pure DP (worst case)"
        )
    share = delta / zcdp_only
    converted = [
        (
            _WorstPart(
                _conversion_up(zcdp_to_dp(p.rho, share), 1) if p.rho else 0.0,
                share,
                p.rho,
            )
            if p.epsilon is None
            else p,
            count,
        )
        for p, count in parts
    ]
    bound = compose_worst_case(converted, None)
    return PrivacyBound(
        bound.epsilon,
        bound.delta,
        0.0,
        "basic composition, zCDP parts converted one by one (worst case)",
    )
