"""A sampled sensitivity with the run and plan that back it."""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .._display.estimates import estimate_html
from .._display.text import text_table
from .._lib import printing
from .._lib.domains import PROBABILITY_CLOSED
from .._lib.extras import require
from .._lib.validation import check_count, check_real
from ..plan import SamplingPlan
from ..privacy import SamplingRun
from ._coverage import Coverage
from ._problem import SamplingProblem
from ._value import SensitivityValue


class ReadsTheRun:
    """Properties read from the sampling run ``self.run``."""

    run: SamplingRun

    @property
    def m(self) -> int:
        """Number of neighbouring pairs drawn."""
        return self.run.m

    @property
    def k(self) -> int:
        """Rank of the released order statistic, ``1 <= k <= m``."""
        return self.run.k

    @property
    def gamma(self) -> float:
        """Random-DP failure probability the run certifies, ``beta + rho``."""
        return self.run.gamma

    @property
    def rho(self) -> float:
        """The sampler's own share of :attr:`gamma` (see :mod:`sensampler.plan`)."""
        return self.run.rho

    @property
    def inequality(self) -> str:
        """The sampling plan's inequality (``"exact"``, ``"exchangeable"`` or ``"dkw"``)."""
        return self.run.inequality

    @property
    def run_id(self) -> str | None:
        """Identity of the sampling run (``None``: anonymous)."""
        return self.run.run_id

    @property
    def seed(self):
        """``(entropy, spawn_key)`` of the run's root ``SeedSequence``."""
        return self.run.seed

    @property
    def ordinal(self) -> int:
        """How many sampling runs this process had drawn, this one included."""
        return self.run.ordinal

    @property
    def neighbours(self) -> str:
        """The neighbouring relation the pairs were drawn under."""
        return self.run.neighbours


class AsDataFrame:
    """:meth:`to_pandas`, the rows of the record's ``to_records``."""

    to_records: Callable[[], list[dict[str, Any]]]

    def to_pandas(self):
        """:meth:`to_records` as a ``pandas.DataFrame`` (needs pandas).

        Returns
        -------
        pandas.DataFrame
            The rows of :meth:`to_records`.
        """
        pd = require("pandas", "pandas", "to_pandas")
        return pd.DataFrame.from_records(self.to_records())


@dataclass(frozen=True, eq=False)
class SensitivityEstimate(ReadsTheRun, AsDataFrame):
    """A sampled sensitivity, with the run and plan that back it.

    Only ``sensitivity`` carries the random-DP guarantee: with probability at
    least ``1 - gamma`` over the sampling run and a fresh pair of neighbouring
    databases from the population, the pair's sensitivity does not exceed it.
    ``mean`` is the typical value of the sensitivity, for comparison; a
    mechanism calibrated with it is *not* random-DP. Both are
    :class:`SensitivityValue` objects that keep the run; ``.value`` reads the
    plain number.

    Unpacks as the pair ``sensitivity, mean`` (both keeping their provenance).

    Parameters
    ----------
    samples : array-like of shape (m,) or (m, *output_shape)
        The sampled sensitivities :math:`G_i` (read-only once stored).
    run : SamplingRun
        The sampling run: its identity, joint ``gamma`` and ``rho``, ``m``,
        ``k``, bound, root seed and ordinal.
    plan : SamplingPlan
        The plan of one part (``gamma`` split evenly over ``parts``).
    norm : str
        Name of the norm.
    n : int
        Database size.
    parts : int, default 1
        Order statistics released jointly by the run (outputs x coordinates).
    query : str, default ""
        Name of the query.
    part : int or str or None, default None
        Position or key of this part in a tuple or dict output.
    output_shape : tuple of int, optional
        Shape of the query's output (this part's); recorded in the values'
        :class:`Coverage`. By default the samples' trailing shape for a
        per-coordinate norm, unknown (no coverage) for a scalar one.
    recordwise : bool, default False
        The query is record-wise (``Query.recordwise``): a scalar sensitivity
        then covers releases of up to ``n`` records (``Coverage.records``).
    offset : int, default 0
        Position of this part's order statistics in the run's ``released``
        (set by the sampler): when the run records them, the estimate's
        :math:`G_{(k)}` must be those numbers, or it is refused.
    problem : SamplingProblem or None, default None
        What the run sampled (query, population, n, norm), set by the
        sampler so that the estimate can be audited on fresh pairs
        (:func:`sensampler.audit.audit_estimate`). Not compared, and not
        pickled: it holds the caller's query and population, which need not
        pickle, so a pickled estimate comes back with ``problem=None``.
    bounds : sensampler.bounds.Bounds or None, default None
        The clipping bounds of the records of every sampled database (set by
        the sampler with ``bounds=``): the sensitivity is that of the query on
        clipped records, and a release must clip the private data the same
        way (``bounds.clip``).
    worst_case : float or None, default None
        The sensitivity of the clipped query over *every* pair of neighbours,
        in ``norm`` (analytic, for the built-in queries: see
        :func:`sensampler.bounds.worst_case_sensitivity`); ``None`` when no
        bound is known. A mechanism calibrated with the estimate states a
        plain DP guarantee from it (``privacy.worst_case``).

    Attributes
    ----------
    sensitivity : SensitivityValue
        The order statistic :math:`G_{(k)}` (per coordinate for
        ``norm="coordinate"``), source ``"sampled"``.
    mean : SensitivityValue
        Mean of the sampled sensitivities, source ``"typical"``.
    m, k, gamma, rho, bound, run_id, seed, ordinal, neighbours
        Read from ``run``: ``gamma`` is the failure probability of everything
        the run released, jointly (a union bound over ``parts``).
    """

    samples: np.ndarray = field(repr=False)
    run: SamplingRun
    plan: SamplingPlan
    norm: str
    n: int
    parts: int = 1
    query: str = ""
    part: int | str | None = None
    output_shape: tuple[int, ...] | None = None
    recordwise: bool = False
    offset: int = 0
    problem: SamplingProblem | None = field(default=None, compare=False, repr=False)
    bounds: Any = None
    worst_case: float | None = None
    sensitivity: SensitivityValue = field(init=False)
    mean: SensitivityValue = field(init=False)

    def __post_init__(self):
        samples = np.array(self.samples, dtype=float)
        if samples.ndim == 0 or samples.shape[0] != self.run.m:
            raise ValueError(
                f"samples must hold one sensitivity per pair (m={self.run.m}), "
                f"got shape {samples.shape}."
            )
        samples.setflags(write=False)
        offset = check_count("offset", self.offset, minimum=0)
        if self.worst_case is not None:
            object.__setattr__(self, "worst_case", self._checked_worst_case(samples))
        output_shape, coverage = self._coverage(samples, offset)
        kth = self._released_kth(samples, offset)
        set_ = object.__setattr__
        set_(self, "samples", samples)
        set_(self, "output_shape", output_shape)
        value = functools.partial(
            SensitivityValue, run=self.run, norm=self.norm, coverage=coverage
        )
        set_(self, "sensitivity", value(kth, "sampled", label="G_(k)"))
        set_(self, "mean", value(samples.mean(axis=0), "typical", label="mean"))

    def _checked_worst_case(self, samples: np.ndarray) -> float:
        """``worst_case`` checked: with bounds, above every sample, and the
        sampled query's own analytic rule where the problem is known."""
        if self.bounds is None:
            raise ValueError(
                "a worst-case sensitivity holds for records clipped to bounds, "
                f"got worst_case={self.worst_case!r} with bounds=None."
            )
        worst = check_real("worst_case", self.worst_case, low=0.0)
        # a realised pair's sensitivity cannot exceed the worst case
        if samples.size and samples.max() > worst * (1 + 1e-9):
            raise ValueError(
                f"worst_case must bound every sampled sensitivity, got "
                f"worst_case={worst!r} below a sampled {float(samples.max())!r}."
            )
        rule = getattr(getattr(self.problem, "query", None), "worst_case", None)
        if self.problem is not None and (
            rule is None
            or rule(
                self.bounds.low, self.bounds.high, self.n, self.run.neighbours,
                self.norm,
            )
            != worst
        ):
            raise ValueError(
                "worst_case must be the analytic worst case of the sampled "
                f"query on records clipped to the bounds, got worst_case={worst!r}."
            )
        return worst

    def _coverage(self, samples: np.ndarray, offset: int):
        """``(output_shape, Coverage or None)`` of the values, the shape checked."""
        output_shape = self.output_shape
        if output_shape is None and samples.ndim > 1:
            output_shape = samples.shape[1:]
        if output_shape is None:
            return None, None
        output_shape = tuple(int(d) for d in output_shape)
        trailing = samples.shape[1:]
        if trailing and trailing != output_shape:
            raise ValueError(
                f"output_shape must be the per-coordinate samples' trailing "
                f"shape {trailing}, got output_shape={self.output_shape!r}."
            )
        records = bool(self.recordwise) and samples.ndim == 1
        n = self.n if records else None
        coverage = Coverage.whole(output_shape, output_shape, records, n, offset)
        return output_shape, coverage

    def _released_kth(self, samples: np.ndarray, offset: int) -> np.ndarray:
        """:math:`G_{(k)}` of ``samples``: the run's released numbers, if it has any."""
        k = self.run.k
        kth = np.partition(samples, k - 1, axis=0)[k - 1]
        released = self.run.released
        if released and not np.array_equal(
            kth.ravel(), released[offset : offset + kth.size]
        ):
            raise ValueError(
                f"samples give G_(k) = {kth.tolist()}, not the order statistic(s) "
                f"{list(released[offset : offset + kth.size])} that the run "
                f"released at offset {offset}: an estimate keeps its run's samples."
            )
        return kth

    def __reduce__(self):
        # The problem is left out: the caller's query and population need not pickle.
        fields = (self.samples, self.run, self.plan, self.norm, self.n)
        return (
            type(self),
            fields
            + (self.parts, self.query, self.part, self.output_shape, self.recordwise)
            + (self.offset, None, self.bounds, self.worst_case),
        )

    def __iter__(self) -> Iterator[SensitivityValue]:
        yield self.sensitivity
        yield self.mean

    # -------------------------------------------------------- typical values
    def typical(self, sd: float = 0.0) -> SensitivityValue:
        """Mean plus ``sd`` standard deviations of the samples: no guarantee.

        The offsets the source documents try (``mean + 2 sd`` and so on), as a
        typical value that mechanisms and accountants refuse to certify. Here
        sd = standard deviation of the m sampled sensitivities (ddof=0), not of
        the data (per coordinate for ``norm="coordinate"``).

        Parameters
        ----------
        sd : float, default 0
            Standard deviations above the mean, ``>= 0``; 0 gives the mean.

        Returns
        -------
        SensitivityValue
            Source ``"typical"``, labelled ``"mean"`` or ``"mean + {sd} sd"``.
        """
        sd = check_real("sd", sd, low=0.0)
        value = self.mean.value + sd * self.samples.std(axis=0)
        label = f"mean + {sd:g} sd" if sd else "mean"
        return SensitivityValue(
            value, "typical", self.run, self.norm, label, self.mean.coverage
        )

    def quantile(self, q: float) -> SensitivityValue:
        """Empirical quantile of the sampled sensitivities: a typical value.

        Parameters
        ----------
        q : float
            The quantile, ``0 <= q <= 1``.

        Returns
        -------
        SensitivityValue
            Source ``"typical"`` (no guarantee), labelled ``"quantile {q}"``.
        """
        value = np.quantile(self.samples, PROBABILITY_CLOSED.check("q", q), axis=0)
        return SensitivityValue(
            value,
            "typical",
            self.run,
            self.norm,
            f"quantile {q:g}",
            self.mean.coverage,
        )

    # ----------------------------------------------------------------- export
    def _plan_fields(self) -> dict[str, Any]:
        """The plan's numbers, the norm and n: fields of the dict and of each row."""
        return {
            "m": self.m,
            "k": self.k,
            "gamma": self.gamma,
            "rho": self.rho,
            "inequality": self.inequality,
            "norm": self.norm,
            "n": self.n,
        }

    def to_dict(self, samples: bool = False) -> dict[str, Any]:
        """A JSON-friendly dictionary (the samples only if asked).

        Parameters
        ----------
        samples : bool, default False
            Include the sampled sensitivities.

        Returns
        -------
        dict
            Plain numbers, lists and strings only.
        """
        out: dict[str, Any] = {
            "sensitivity": np.asarray(self.sensitivity.value).tolist(),
            "mean": np.asarray(self.mean.value).tolist(),
            **self._plan_fields(),
            "parts": self.parts,
            "part": self.part,
            "query": self.query,
            "neighbours": self.neighbours,
            "output_shape": (
                None if self.output_shape is None else list(self.output_shape)
            ),
            "recordwise": self.recordwise,
            "order_dependent": self.run.order_dependent,
            "run_id": self.run_id,
            "seed": _plain_seed(self.seed),
            "ordinal": self.ordinal,
            "plan": asdict(self.plan),
        }
        if self.bounds is not None:
            out["bounds"] = [self.bounds.low, self.bounds.high]
            out["worst_case"] = self.worst_case
        if samples:
            out["samples"] = self.samples.tolist()
        return out

    def to_records(self) -> list[dict[str, Any]]:
        """One row per coordinate (a single row for a single sensitivity).

        Columns: query, part, coordinate, sensitivity, mean, sd, m, k, gamma,
        rho, bound, norm, n, run_id, ordinal.

        Returns
        -------
        list of dict
            The rows, keyed by the columns above.
        """
        sens = np.asarray(self.sensitivity.value)
        mean = np.asarray(self.mean.value)
        sd = self.samples.std(axis=0)
        rows = []
        for index in np.ndindex(sens.shape):
            rows.append(
                {
                    "query": self.query,
                    "part": self.part,
                    "coordinate": (
                        None if not index else index[0] if len(index) == 1 else index
                    ),
                    "sensitivity": float(sens[index]),
                    "mean": float(mean[index]),
                    "sd": float(sd[index]),
                    **self._plan_fields(),
                    "run_id": self.run_id,
                    "ordinal": self.ordinal,
                }
            )
        return rows

    def summary(self) -> str:
        """A short readable table, stating what the plan guarantees.

        Returns
        -------
        str
            The table, one line per field.
        """

        rows = [("query", self.query or "?")]
        if self.part is not None:
            rows.append(("part", repr(self.part)))
        rows += [
            ("neighbours", f"{self.neighbours}, n={self.n}{_pairs(self)}"),
            ("norm", self.norm),
            (
                "sensitivity",
                f"{printing.sensitivities(self.sensitivity.value)}  "
                f"(order statistic k={self.k} of m={self.m})",
            ),
            (
                "mean",
                f"{printing.sensitivities(self.mean.value)}  (typical value; no "
                "random-DP guarantee)",
            ),
            (
                "gamma",
                f"{printing.gamma(self.gamma)}  ({self.inequality} bound"
                + (
                    ""
                    if self.inequality == "exchangeable"
                    else f", rho={printing.rho(self.rho)}"
                )
                + f"{f', {self.parts} parts jointly' if self.parts > 1 else ''})",
            ),
            ("run", f"#{self.ordinal} of this process, seed {_seed_text(self.seed)}"),
        ]
        if self.run.order_dependent:
            rows.append(
                (
                    "order",
                    "the query depends on the order of the records (accepted): "
                    "a release may publish a record exactly",
                )
            )
        lines = text_table(rows, header=False)
        lines.append(textwrap.fill(f"{self.inequality}: {self.plan.meaning}", 79))
        lines.append(_SHOPPING)
        return "\n".join(lines)

    __str__ = summary

    def _repr_html_(self) -> str:
        """Notebook display: the sampled sensitivities, G_(k) and the mean marked."""
        return estimate_html(self)

    def __repr__(self) -> str:
        return (
            f"SensitivityEstimate(sensitivity={self.sensitivity.value!r}, m={self.m}, "
            f"k={self.k}, gamma={printing.gamma(self.gamma)}, norm={self.norm!r}, "
            f"inequality={self.inequality!r})"
        )


_SHOPPING = (
    "Choosing among several runs raises the probability of failure (record_run)."
)


def _plain_seed(seed):
    """The run's seed as JSON-friendly lists."""
    if seed is None:
        return None
    entropy, spawn_key = seed
    return [entropy if isinstance(entropy, int) else list(entropy), list(spawn_key)]


def _pairs(estimate) -> str:
    """Which add/remove pairs an estimate covers: (n - 1, n), never (n, n + 1)."""
    if estimate.neighbours != "add-remove":
        return ""
    n = estimate.n
    return f" (pairs of {n - 1} and {n} records; no addition to {n} was sampled)"


def _seed_text(seed) -> str:
    if seed is None:
        return "unknown"
    entropy, spawn_key = seed
    key = f", spawn_key={tuple(spawn_key)}" if spawn_key else ""
    return f"SeedSequence({entropy}{key})"

