"""The protocol every population model satisfies."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Union

import numpy as np

from .._display.estimates import distribution_html
from .._lib.validation import check_count, check_random_state

__all__ = ["Distribution", "RandomStateLike"]

#: What every ``random_state`` parameter accepts.
RandomStateLike = Union[None, int, np.random.SeedSequence, np.random.Generator]


class Distribution(ABC):
    """A population of records from which databases are drawn.

    Subclasses implement :meth:`_draw`, which fills an array of shape
    ``shape + record_shape`` in one vectorised call; :meth:`sample` and
    :meth:`sample_batch` are the public doors onto it.

    Attributes
    ----------
    record_shape : tuple of int
        Shape of one record: ``()`` for a scalar, ``(d,)`` for a vector.
    releases_gil : bool
        Whether drawing releases the GIL (threads then draw in parallel).
    person_rows : bool
        Whether a record is one person's rows, padded with NaN.
    """

    record_shape: tuple[int, ...] = ()
    #: True when drawing runs in numpy's C code without the GIL, so that threads
    #: draw in parallel (numpy-backed models); adapters of other libraries say False.
    releases_gil: bool = False
    #: True when a record is one person's rows, NaN-padded to ``record_shape[0]``
    #: (:class:`~sensampler.distributions.Persons`): neighbours then differ in one
    #: person's rows (see :mod:`sensampler.units`).
    person_rows: bool = False

    @abstractmethod
    def _draw(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Return independent records in an array of shape ``shape + record_shape``."""

    def sample(self, size: int, random_state: RandomStateLike = None) -> np.ndarray:
        """Draw ``size`` independent records.

        Parameters
        ----------
        size : int
            Number of records, ``>= 0``.
        random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Source of randomness; a ``Generator`` is advanced in place.

        Returns
        -------
        ndarray of shape ``(size, *record_shape)``
        """
        size = check_count("size", size, minimum=0)
        return self._draw((size,), check_random_state(random_state))

    def sample_batch(
        self, batch: int, size: int, random_state: RandomStateLike = None
    ) -> np.ndarray:
        """Draw ``batch`` independent databases of ``size`` records at once.

        Parameters
        ----------
        batch : int
            Number of databases, ``>= 0``.
        size : int
            Records per database, ``>= 0``.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the draws; ``None`` (default) draws fresh entropy.

        Returns
        -------
        ndarray of shape ``(batch, size, *record_shape)``
        """
        batch = check_count("batch", batch, minimum=0)
        size = check_count("size", size, minimum=0)
        return self._draw((batch, size), check_random_state(random_state))

    @property
    def mean(self) -> float | np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``).

        Moments are never NaN and never raise ``OverflowError``: one whose true
        value exceeds the largest float64 (a log-normal's ``exp(mu + sigma**2/2)``
        for large parameters) is ``inf``, a correct value for a moment.
        """
        raise NotImplementedError(f"{type(self).__name__} does not know its mean.")

    @property
    def var(self) -> float | np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        raise NotImplementedError(f"{type(self).__name__} does not know its variance.")

    def _params(self) -> dict[str, Any]:
        """Parameters shown by ``repr``."""
        return {}

    def __repr__(self) -> str:
        def fmt(value):
            if isinstance(value, np.ndarray):
                return np.array2string(value, precision=6, separator=", ", threshold=12)
            return repr(value)

        args = ", ".join(f"{k}={fmt(v)}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the model and the shape of a record."""
        return distribution_html(self)
