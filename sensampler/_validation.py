"""Validation helpers for sensampler (shared with the distributions package)."""

from distributions._validation import (
    as_seed_sequence,
    check_array,
    check_count,
    check_probability,
    check_random_state,
    check_real,
)

__all__ = [
    "as_seed_sequence",
    "check_array",
    "check_count",
    "check_probability",
    "check_random_state",
    "check_real",
    "check_choice",
]


def check_choice(name, value, choices):
    """Return ``value`` if it is one of ``choices``, or raise naming them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, got {name}={value!r}.")
    return value
