"""The fitted attributes as a query, what one fit's candidate releases share, and
their sampled sensitivity (Rubinstein & Aldà 2017, Algorithm 1, through
:func:`sensampler.sample_sensitivity`)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._lib.structure import stack_outputs
from .._lib.threads import one_thread
from ..bounds import Bounds
from ..distributions import Distribution
from ..parallel import GENERIC_CHUNK_PAIRS
from ..queries import Query
from ..queries import estimator as estimator_query
from ..sampler import sample_sensitivity
from ._fits import ShrunkLogisticRegression, logistic_worst_case, swap_inverse

__all__ = ["Concatenated", "Setting", "flat", "sample", "worst_rule", "write"]


class Concatenated(Query):
    """The estimator's fitted attributes, flattened and concatenated in one vector
    (one sensitivity covers them all); fitted on ``fixed`` rows (public, the same
    in every database) followed by the database's own.

    A binary :class:`ShrunkLogisticRegression` releasing ``coef_`` (and
    ``intercept_``) is fitted on a whole stack of databases at once
    (:meth:`ShrunkLogisticRegression.solve_batch`, the query then *batched*),
    each database of a neighbouring pair starting Newton's method from the
    other's minimiser and Hessian (one row swapped) when the stack before it
    was its neighbour (one row apart in every database), a stack of fresh
    databases from the last stack's average: the same minimisers, to machine
    precision, in a few steps with few Hessians. Any other estimator is
    fitted database by database.
    """

    def __init__(
        self,
        model: Any,
        attributes: tuple[str, ...],
        fixed: np.ndarray,
        worst_case: Any = None,
    ):
        self.inner = estimator_query(model, attribute=attributes, target=-1)
        self.name = self.inner.name
        self.fixed = fixed
        #: ``worst_case(low, high, n, neighbours, norm)``: the sensitivity over
        #: every pair of neighbours with row norms clipped to ``high``, or None.
        self.worst_case = worst_case
        self.batched = (
            isinstance(model, ShrunkLogisticRegression)
            and model.classes is not None
            and len(model.classes) == 2
            and (
                attributes == ("coef_",)
                or (attributes == ("coef_", "intercept_") and model.fit_intercept)
            )
        )
        self._last = threading.local()  # the stack fitted last, and its minimisers

    def __getstate__(self):
        return {**self.__dict__, "_last": None}

    def __setstate__(self, state):
        self.__dict__.update(state, _last=threading.local())

    def __call__(self, data):
        rows = np.concatenate([self.fixed, np.asarray(data, dtype=float)])
        return np.concatenate([np.ravel(part) for part in self.inner(rows)])

    def evaluate(self, stack):
        if not self.batched:
            return stack_outputs([self(db) for db in stack])
        stack = np.asarray(stack, dtype=float)
        fixed = np.broadcast_to(self.fixed, (len(stack),) + self.fixed.shape)
        rows = np.concatenate([fixed, stack], axis=1)
        model = self.inner.estimator
        start, inverse, Z, target = self._warm(model, rows)
        with one_thread():
            theta, inverse = model.solve_batch(Z, target, start, inverse)
        last = self._last
        last.rows, last.Z, last.target, last.theta, last.inverse = (
            rows, Z, target, theta, inverse
        )
        if self.inner.attribute == ("coef_",) and model.fit_intercept:
            return theta[:, :-1]
        return theta

    def _warm(self, model, rows):
        """``(start, inverse, Z, target)`` of the batched fit of ``rows``
        (:meth:`ShrunkLogisticRegression.solve_batch`) after the stack fitted
        last: where the stacks are neighbours (one row apart in every
        database), each database's neighbour's minimiser, design and inverse
        Hessian with the row swapped (:func:`swap_inverse`); otherwise
        (databases drawn afresh from the same population) the last stack's
        average minimiser and inverse Hessian for every database (none before
        any stack)."""
        last = self._last
        before = getattr(last, "rows", None)
        if before is not None and before.shape == rows.shape:
            differ = np.any(rows != before, axis=2)
            if np.all(np.sum(differ, axis=1) <= 1):
                at = (np.arange(len(rows)), np.argmax(differ, axis=1))
                Z, target = model.design(rows[at][:, None])
                swapped = swap_inverse(
                    last.inverse, last.theta, last.Z[at], Z[:, 0], float(model.C)
                )
                last.Z[at], last.target[at] = Z[:, 0], target[:, 0]
                return last.theta, swapped, last.Z, last.target
        Z, target = model.design(rows)
        if before is None or before.shape[1:] != rows.shape[1:]:
            return None, None, Z, target
        size = (len(rows),)
        return (
            np.broadcast_to(last.theta.mean(axis=0), size + last.theta.shape[1:]),
            np.broadcast_to(last.inverse.mean(axis=0), size + last.inverse.shape[1:]),
            Z,
            target,
        )


def flat(model: Any, attributes: tuple[str, ...]) -> np.ndarray:
    """``model``'s ``attributes``, flattened and concatenated."""
    return np.concatenate(
        [np.ravel(np.asarray(getattr(model, a), dtype=float)) for a in attributes]
    )


def write(model: Any, attributes: tuple[str, ...], vector: np.ndarray) -> None:
    """Write ``vector`` back into ``model``'s attributes, keeping their shapes."""
    start = 0
    for name in attributes:
        old = np.asarray(getattr(model, name), dtype=float)
        part = vector[start : start + old.size].reshape(old.shape)
        start += old.size
        setattr(model, name, float(part) if old.ndim == 0 else part.copy())


def worst_rule(model: Any):
    """``worst_case(low, high, n, neighbours, norm)`` of a fit shrunk toward the
    public model with clipped rows (:func:`logistic_worst_case`, ``high`` the
    row bound), or None where no worst case is known."""
    if (
        not isinstance(model, ShrunkLogisticRegression)
        or model.row_bound is None
        or not model.penalize_intercept
    ):
        return None
    d = np.asarray(model.coef).shape[-1]
    return functools.partial(
        _logistic_rule, float(model.C), d, bool(model.fit_intercept),
        len(model.classes),
    )


def _logistic_rule(C, d, fit_intercept, classes, low, high, n, neighbours, norm):
    """:func:`logistic_worst_case` as a query's ``worst_case`` rule."""
    return logistic_worst_case(C, high, d, fit_intercept, classes, neighbours, norm)


@dataclass(frozen=True)
class Setting:
    """What every candidate release of one fit shares (all of it public but n)."""

    model: Any
    template: Any
    names: tuple[str, ...]
    population: Distribution
    n: int
    fixed: np.ndarray
    public: tuple[np.ndarray, np.ndarray]
    norm: str
    plan: Any  # the sampling plan of the comparisons among candidates
    released: Any  # the sampling plan of the released sensitivity
    n_jobs: int
    classifier: bool
    data_norm: Bounds | None  # [0, R]: the rows' feature norms, or None
    neighbours: str
    select: str
    augment: bool
    #: The release's mechanism for a sensitivity (the estimator's settings).
    mechanism: Callable[[Any], Any]
    #: The released estimator's class name, for advice.
    estimator_name: str


def sample(query, setting: Setting, seed, plan=None):
    """The sampled sensitivity of ``query`` under ``plan`` (default: the
    comparisons' plan, ``setting.plan``), with its worst case where the query
    has one and rows are clipped (``setting.data_norm``); an order-dependence
    refusal of a fitted model is re-raised with what to do about it.

    Parameters
    ----------
    query : Query
        Usually a :class:`Concatenated`.
    setting : Setting
        The fit's shared pieces.
    seed : numpy.random.SeedSequence
        Seeds the sampler.
    plan : SamplingPlan, optional
        The run's plan.

    Returns
    -------
    SensitivityEstimate
    """
    plan = plan or setting.plan
    try:
        estimate = sample_sensitivity(
            query,
            setting.population,
            setting.n,
            m=plan.m,
            k=plan.k,
            norm=setting.norm,
            inequality=plan.inequality,
            neighbours=setting.neighbours,
            random_state=seed,
            n_jobs=setting.n_jobs,
            # a batched fit draws the chunks (and so the pairs) of a fit
            # database by database: the same sensitivity on the same seed
            batch_size=GENERIC_CHUNK_PAIRS if query.batched else None,
        )
    except ValueError as exc:
        if "depends on the order of the records" not in str(exc):
            raise
        name = setting.estimator_name
        raise ValueError(
            f"{name} fitted on training sets drawn from the public population "
            "changed its coefficients when the rows were reordered: its solver "
            "stops before it converges, as it does on unscaled features. "
            "Standardise the features with statistics of the public data, e.g. "
            f"PrivateEstimator(make_pipeline(StandardScaler(), {name}(...)), "
            "...), which fits the scaler on public=, or raise the estimator's "
            "max_iter."
        ) from exc
    rule = getattr(query, "worst_case", None)
    if rule is None or setting.data_norm is None:
        return estimate
    bounds = setting.data_norm
    worst = rule(bounds.low, bounds.high, setting.n, setting.neighbours, setting.norm)
    # the estimate checks that every sampled pair lies within the bound
    return replace(estimate, bounds=bounds, worst_case=worst)
