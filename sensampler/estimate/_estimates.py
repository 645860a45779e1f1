"""The estimates of a query with several parts, sharing one sampling run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from .._display.estimates import estimate_html
from .._lib import printing
from ..privacy import SamplingRun
from ._estimate import AsDataFrame, ReadsTheRun, SensitivityEstimate


@dataclass(frozen=True, eq=False)
class SensitivityEstimates(ReadsTheRun, AsDataFrame):
    """The estimates of a query with several parts (a tuple or dict output).

    One sampling run releases every part, so the parts share ``run`` and its
    ``gamma`` (valid for all of them jointly). Index a part by position or
    key; the result cannot be iterated, so that ``sensitivity, mean = result``
    cannot take two parts for the pair of one.

    Parameters
    ----------
    estimates : tuple of SensitivityEstimate
        One per part, in output order.
    keys : tuple of str, optional
        The dict output's keys; ``None`` for a tuple output.

    Attributes
    ----------
    run : SamplingRun
        The run shared by every part; ``gamma``, ``rho``, ``run_id``, ``seed``
        and the others are read from it.

    Examples
    --------
    >>> from sensampler import sample_sensitivity
    >>> from sensampler.distributions import Normal
    >>> result = sample_sensitivity(
    ...     lambda db: {"mean": db.mean(), "max": db.max()}, Normal(), 20, m=50,
    ...     random_state=0)
    >>> result["mean"].gamma == result.gamma, len(result)
    (True, 2)
    """

    estimates: tuple[SensitivityEstimate, ...]
    keys: tuple[str, ...] | None = None
    run: SamplingRun = field(init=False, repr=False)

    def __post_init__(self):
        estimates = tuple(self.estimates)
        if not estimates or not all(
            isinstance(e, SensitivityEstimate) for e in estimates
        ):
            raise TypeError(
                f"estimates must be SensitivityEstimate objects, got {estimates!r}."
            )
        if any(e.run != estimates[0].run for e in estimates):
            raise ValueError("the parts of one result must share their sampling run.")
        if self.keys is not None and len(self.keys) != len(estimates):
            raise ValueError(
                f"keys must name each of the {len(estimates)} parts, got {self.keys!r}."
            )
        object.__setattr__(self, "estimates", estimates)
        object.__setattr__(self, "run", estimates[0].run)

    @property
    def parts(self) -> tuple[SensitivityEstimate, ...]:
        """The estimates, in output order."""
        return self.estimates

    @property
    def query(self) -> str:
        """Name of the query the parts are outputs of."""
        return self.estimates[0].query

    def __len__(self) -> int:
        return len(self.estimates)

    def __getitem__(self, part: int | str) -> SensitivityEstimate:
        if isinstance(part, (int, np.integer)) and not isinstance(part, bool):
            return self.estimates[part]
        if self.keys is not None and part in self.keys:
            return self.estimates[self.keys.index(part)]
        names = (
            "a position" if self.keys is None else f"a position or one of {self.keys}"
        )
        raise KeyError(f"part must be {names}, got {part!r}.")

    def __iter__(self) -> NoReturn:
        raise TypeError(
            f"the query {self.query!r} has {len(self)} parts, each with its own "
            "estimate; index a part (result[0] or result['key']) instead of "
            "unpacking or iterating the result."
        )

    def items(self) -> list[tuple[int | str, SensitivityEstimate]]:
        """``(key or position, estimate)`` for every part.

        Returns
        -------
        list of (int or str, SensitivityEstimate)
            The parts, in output order.
        """
        names = self.keys if self.keys is not None else range(len(self))
        return list(zip(names, self.estimates))

    def to_records(self) -> list[dict[str, Any]]:
        """Every part's :meth:`SensitivityEstimate.to_records`, in output order.

        Returns
        -------
        list of dict
            One row per coordinate of every part.
        """
        return [row for estimate in self.estimates for row in estimate.to_records()]

    def to_dict(self, samples: bool = False) -> dict[str, Any]:
        """A JSON-friendly dictionary: the parts by key or position.

        Parameters
        ----------
        samples : bool, default False
            Include each part's sampled sensitivities.

        Returns
        -------
        dict
            ``parts``, ``gamma`` and ``run_id``, in plain numbers, lists and strings.
        """
        return {
            "parts": {str(k): e.to_dict(samples) for k, e in self.items()},
            "gamma": self.gamma,
            "run_id": self.run_id,
        }

    def summary(self) -> str:
        """Every part's summary, under its key or position.

        Returns
        -------
        str
            The parts' tables, separated by blank lines.
        """
        return "\n\n".join(e.summary() for e in self.estimates)

    __str__ = summary

    def _repr_html_(self) -> str:
        """Notebook display: one card per part."""
        return "".join(estimate_html(part) for part in self.parts)

    def __repr__(self) -> str:
        names = self.keys if self.keys is not None else len(self)
        return (
            f"SensitivityEstimates(query={self.query!r}, parts={names!r}, "
            f"gamma={printing.gamma(self.gamma)})"
        )
