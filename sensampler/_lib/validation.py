"""Checks shared by every public entry point: name the parameter, the rule, the value."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

__all__ = [
    "check_random_state",
    "check_real",
    "check_count",
    "check_probability",
    "check_array",
    "as_seed_sequence",
    "check_choice",
    "check_n_jobs",
    "check_flag",
]


def check_real(
    name, value, *, low=None, high=None, low_strict=False, high_strict=False
):
    """Return ``value`` as a finite float within the bounds, or raise naming it.

    Parameters
    ----------
    name : str
        Parameter name used in the error message.
    value : object
        The value to check.
    low, high : float, optional
        Bounds; ``None`` means unbounded on that side.
    low_strict, high_strict : bool
        Whether the bound itself is excluded.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {name}={value!r}.")
    bad_low = low is not None and (value < low or (low_strict and value == low))
    bad_high = high is not None and (value > high or (high_strict and value == high))
    if bad_low or bad_high:
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_strict else '>='} {low}")
        if high is not None:
            parts.append(f"{'<' if high_strict else '<='} {high}")
        raise ValueError(f"{name} must be {' and '.join(parts)}, got {name}={value!r}.")
    return value


def check_probability(name, value, *, open_low=True, open_high=True):
    """Return ``value`` as a float in the unit interval (open ends by default)."""
    return check_real(
        name, value, low=0.0, high=1.0, low_strict=open_low, high_strict=open_high
    )


def check_count(name, value, *, minimum=1):
    """Return ``value`` as an int ``>= minimum``, or raise naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            raise TypeError(f"{name} must be an integer, got the float {value!r}.")
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    value = int(value)
    if value < minimum:
        raise ValueError(
            f"{name} must be an integer >= {minimum}, got {name}={value!r}."
        )
    return value


def check_flag(name, value) -> bool:
    """Return ``value`` as a bool (``True``, ``False`` or a numpy bool), or raise
    TypeError naming it: ``"yes"``, ``1`` or ``None`` are refused, not read as
    true or false."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {name}={value!r}.")
    return bool(value)


def check_n_jobs(n_jobs):
    """Return ``n_jobs`` (None or a non-zero int, as joblib takes), or raise naming it."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, Integral):
        raise TypeError(f"n_jobs must be None or an integer, got n_jobs={n_jobs!r}.")
    if n_jobs == 0:
        raise ValueError(
            f"n_jobs must be None or a non-zero integer, got n_jobs={n_jobs!r}."
        )
    return int(n_jobs)


def check_array(
    name, value, *, ndim=None, positive=False, nonnegative=False, dtype=float
):
    """Return ``value`` as a finite float array, or raise naming it."""
    try:
        if np.asarray(value).dtype.kind in "SUV":  # text parses, but is no number
            raise TypeError
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be array-like of numbers, got {value!r}."
        ) from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(
            f"{name} must have {ndim} dimension(s), got shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {name}={value!r}.")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0, got {name}={value!r}.")
    if nonnegative and np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {name}={value!r}.")
    return arr


def check_column(name, value) -> np.ndarray:
    """``value`` as a non-empty 1-d finite float array, or raise naming it
    (never a value: the column may hold private records)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a 1-d array of numbers, got {type(value).__name__}."
        ) from None
    if arr.ndim != 1 or arr.size == 0:
        problem = f"a non-empty 1-d array (one number each), got shape {arr.shape}"
    elif not np.all(np.isfinite(arr)):
        problem = "finite; it holds NaN or infinite values"
    else:
        return arr
    raise ValueError(f"{name} must be {problem}.")


def as_seed_sequence(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.SeedSequence`.

    ``None`` gives fresh OS entropy, an int ``>= 0`` a fixed sequence, a
    ``SeedSequence`` itself, and a ``Generator`` a sequence seeded from that
    generator's stream (reproducible, and it advances the caller's generator).
    """
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(2**63, size=4))
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(
                f"random_state must be >= 0, got random_state={random_state!r}."
            )
        return np.random.SeedSequence(int(random_state))
    raise TypeError(
        "random_state must be None, an int >= 0, a numpy Generator or a "
        f"SeedSequence, got {random_state!r}."
    )


def check_random_state(random_state):
    """Return a :class:`numpy.random.Generator` for ``random_state``.

    A ``Generator`` is returned as is (draws advance it); anything else goes
    through :func:`as_seed_sequence`.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(as_seed_sequence(random_state))


def check_choice(name, value, choices):
    """Return ``value`` if it is one of ``choices``, or raise naming them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, got {name}={value!r}.")
    return value
