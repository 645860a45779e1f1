"""Where float64 draws of the population models can land, and the check that they fit."""

from __future__ import annotations

import numpy as np

__all__ = ["REACH", "FLOAT_MAX", "check_reach"]

#: How far from its centre, in scales, a float64 draw of numpy's normal, Laplace
#: and exponential samplers can land (their tails come from ``-log(u)`` with a
#: double ``u >= 2**-53``, at most 36.8), with a margin.
REACH = 40.0

#: The largest float64.
FLOAT_MAX = float(np.finfo(np.float64).max)


def check_reach(name: str, extent: float, limit: float, **params) -> None:
    """Refuse parameters whose draws could overflow float64 (``extent > limit``).

    Parameters
    ----------
    name : str
        The model, named in the message.
    extent : float
        How far its draws can reach (``REACH`` scales from its centre).
    limit : float
        How far they may reach.
    **params
        The model's parameters, shown in the message.

    Raises
    ------
    ValueError
        When ``extent > limit`` (or either is NaN).
    """
    if not extent <= limit:
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise ValueError(
            f"{name} draws would overflow float64 with {shown}: keep them within "
            f"{REACH:g} scales of {limit:.6g}."
        )
