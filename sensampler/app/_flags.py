"""Command-line flags that several subcommands share, each worded in one place."""

from __future__ import annotations

import argparse

from .._domains import NEIGHBOUR_RELATIONS

__all__ = ["add_neighbours_flag"]


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
