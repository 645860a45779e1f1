"""What a sensitivity value covers: which output coordinates, released in which shape."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._lib.validation import check_count


@dataclass(frozen=True)
class Coverage:
    """What a sensitivity bounds: coordinates of a query's output, as released.

    Parameters
    ----------
    output_shape : tuple of int
        Shape of the query's output (of one part, for a tuple or dict output).
    coordinates : tuple of int
        Flat (C-order) indices into the output of the coordinates the value
        bounds, in the order of the value's own coordinates: every coordinate
        for an estimate; those selected by indexing a per-coordinate value.
    shape : tuple of int
        Shape of the release the value covers: the output's for a scalar in
        the l1, l2 or linf norm (it bounds the norm of the whole output's
        change), the value's own for a per-coordinate value.
    records : bool, default False
        The output is record-wise (one block per record, as
        ``queries.identity``) and the value a scalar in the l1, l2 or linf
        norm: replacing one record moves one block, so the value also covers
        releases of any number of records, shape ``(r, *shape[1:])``, each
        record at most once. That last condition is the caller's: a release
        holding a record twice moves two blocks when the record is replaced
        (twice the privacy loss), and a shape cannot show it, as it cannot
        show which coordinates a value holds.
    n : int or None, default None
        The database size of the run (the sampled pairs' size, often 1 for
        a record-wise query), for a record-wise value (required when
        ``records``); ``None`` otherwise.
    offset : int, default 0
        Position in the run's ``released`` order statistics of this part's
        first (its output's coordinate c is at ``offset + c`` per coordinate,
        the whole part at ``offset`` in a scalar norm).
    """

    output_shape: tuple[int, ...]
    coordinates: tuple[int, ...]
    shape: tuple[int, ...]
    records: bool = False
    n: int | None = None
    offset: int = 0

    def __post_init__(self):
        size = math.prod(self.output_shape)
        if any(not 0 <= c < size for c in self.coordinates):
            raise ValueError(
                f"coordinates must be flat indices into an output of shape "
                f"{self.output_shape}, got coordinates={self.coordinates!r}."
            )
        if self.records != (self.n is not None):
            raise ValueError(
                "n must be the run's database size for a record-wise coverage "
                f"and None otherwise, got n={self.n!r} with "
                f"records={self.records!r}."
            )
        if self.n is not None:
            object.__setattr__(self, "n", check_count("n", self.n))
        object.__setattr__(self, "offset", check_count("offset", self.offset, minimum=0))

    @classmethod
    def whole(
        cls,
        output_shape: tuple[int, ...],
        shape: tuple[int, ...],
        records: bool = False,
        n: int | None = None,
        offset: int = 0,
    ) -> Coverage:
        """Every coordinate of an output of ``output_shape``, released as ``shape``.

        Parameters
        ----------
        output_shape, shape : tuple of int
            The query's output shape and the shape of the release covered.
        records : bool, default False
            Record-wise (see :class:`Coverage`).
        n : int or None, default None
            The run's database size, for a record-wise coverage.
        offset : int, default 0
            Position of the part in the run's released order statistics.

        Returns
        -------
        Coverage
            The coverage of every coordinate.
        """
        output_shape = tuple(int(d) for d in output_shape)
        coordinates = tuple(range(math.prod(output_shape)))
        shape = tuple(int(d) for d in shape)
        return cls(output_shape, coordinates, shape, records, n, offset)

    def covers(self, shape: tuple[int, ...]) -> bool:
        """Whether a release of ``shape`` is what the value bounds.

        Parameters
        ----------
        shape : tuple of int
            Shape of the release.

        Returns
        -------
        bool
            True when the value bounds a release of that shape.
        """
        if shape == self.shape:
            return True
        return (
            self.records
            and len(shape) == len(self.shape) > 0
            and shape[1:] == self.shape[1:]
        )

    @property
    def in_place(self) -> bool:
        """Every coordinate once, in increasing order (a selection in place)."""
        c = self.coordinates
        return all(a < b for a, b in zip(c, c[1:]))

    def describe(self) -> str:
        """E.g. ``"coordinates (0,) of an output of shape (2,), released as ()"``.

        Returns
        -------
        str
            A sentence naming the coordinates covered and the release's shape.
        """
        which = (
            "every coordinate"
            if self.coordinates == tuple(range(math.prod(self.output_shape)))
            else f"coordinates {self.coordinates}"
        )
        records = (
            f" or of any number of records, shape (r, *{self.shape[1:]}), each "
            f"record at most once (sampled at n = {self.n})"
            if self.records
            else ""
        )
        return (
            f"{which} of an output of shape {self.output_shape}, released with "
            f"shape {self.shape}{records}"
        )
