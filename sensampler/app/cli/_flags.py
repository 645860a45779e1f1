"""Command-line flags that several subcommands share, each worded in one place."""

from __future__ import annotations

import argparse

from ..._lib.domains import NEIGHBOUR_RELATIONS

__all__ = ["add_floor_flags", "add_neighbours_flag", "bounds_of"]


def add_neighbours_flag(
    p: argparse.ArgumentParser, about: str, *, default: str | None, note: str = ""
) -> None:
    """Add ``--neighbours``: the neighbouring relation, one of ``NEIGHBOUR_RELATIONS``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    about : str
        What the relation applies to (the help's first words).
    default : str or None
        The flag's default (``None``: the subcommand reads its own default,
        replace-one, later).
    note : str, optional
        What the subcommand adds about add/remove pairs.
    """
    p.add_argument(
        "--neighbours",
        default=default,
        choices=NEIGHBOUR_RELATIONS.values,
        help=f"{about}: replace-one (D and D with one record replaced; the default) "
        f"or add-remove (D of n - 1 records and D with one record added; n >= 2{note})",
    )


def add_floor_flags(
    p: argparse.ArgumentParser, *, default: str | None, private: bool
) -> None:
    """Add ``--bounds`` and ``--worst-case-epsilon``: the clipping bounds and the
    cap on the worst-case epsilon, which set a release's noise floor.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser (or argument group).
    default : str or None
        ``--bounds``'s default (``None``: read as auto, later).
    private : bool
        Whether ``private:EPS0`` is offered (a release), or not (a plan, which
        reads no private data).
    """
    estimated = (
        ", private:EPS0 (estimated from the data under EPS0-DP, spent too)"
        if private
        else ""
    )
    p.add_argument(
        "--bounds",
        default=default,
        help="clip the records to bounds: auto (default: from the population "
        f"model, at no privacy cost), LOW:HIGH (given){estimated}, or none "
        "(random DP only)",
    )
    p.add_argument(
        "--worst-case-epsilon",
        type=float,
        default=None,
        help="cap on each release's worst-case epsilon (default 10 x --epsilon; "
        "a quantile's is at most 4 x): the noise is raised to meet it; equal to "
        "--epsilon, a quantile is plain epsilon-DP (no gamma)",
    )


def bounds_of(text: str | None) -> str | None:
    """``--bounds`` as the API takes it: ``"none"`` is None, no flag is auto;
    both words in any case, with spaces around them."""
    if text is None:
        return "auto"
    word = text.strip().lower()
    return {"auto": "auto", "none": None}.get(word, text)
