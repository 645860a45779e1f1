"""Plain-text tables: the one renderer of the demo, the result tables, the CLI and the estimates.

>>> print("\\n".join(text_table([["name", "n"], ["a", "10"], ["bb", "7"]], right={1})))
name   n
----  --
a     10
bb     7
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["text_table"]


def text_table(
    rows: Sequence[Sequence[str]],
    *,
    header: bool = True,
    right: Collection[int] = (),
) -> list[str]:
    """The lines of ``rows`` set as columns two spaces apart.

    Parameters
    ----------
    rows : sequence of sequences of str
        The cells, row by row, every row as long as the first.
    header : bool, default True
        Whether the first row is a header, underlined by a rule of dashes.
    right : collection of int, default ()
        The columns aligned to the right (numbers); the others align left.

    Returns
    -------
    list of str
        One line a row (and the rule), without trailing spaces.
    """
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.rjust(w) if i in right else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in rows
    ]
    if header:
        lines.insert(1, "  ".join("-" * w for w in widths))
    return lines
