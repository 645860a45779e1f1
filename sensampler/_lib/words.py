"""Words of the messages and outputs: a count with its noun in the right number."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` followed by its noun, singular for exactly one.

    Parameters
    ----------
    count : int
        How many.
    singular : str
        The noun for one (``"release"``).
    plural : str, optional
        The noun for any other count (default: ``singular`` and ``s``).

    Returns
    -------
    str
        ``"1 release"``, ``"0 releases"``, ``"2 sensitivities"``.

    Examples
    --------
    >>> counted(1, "release"), counted(3, "file")
    ('1 release', '3 files')
    >>> counted(2, "sensitivity", "sensitivities")
    '2 sensitivities'
    """
    noun = singular if count == 1 else (plural or singular + "s")
    return f"{count} {noun}"
