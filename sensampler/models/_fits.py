r"""Fits behind :class:`sensampler.models.PrivateEstimator`: shrinkage toward a
public model, sufficient statistics of a linear regression, and the simulation
that chooses among the candidate releases on public data alone.

Nothing here reads private data: the estimators are fitted by the sampler on
databases drawn from the population, and by ``PrivateEstimator`` on the private
data; :func:`simulate_scores` draws every database it fits from the population.

References
----------
.. [1] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially Private
   Empirical Risk Minimization", JMLR 12, 2011.
.. [2] Y.-X. Wang, "Revisiting differentially private linear regression: optimal
   and adaptive prediction & estimation in unbounded domain", Proc. 34th UAI, 2018.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import linalg, special
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

__all__ = [
    "NEWTON_MAX_ITER",
    "ShrunkLogisticRegression",
    "ShrunkRidge",
    "newton_binary",
    "swap_inverse",
    "Statistics",
    "clip_rows",
    "logistic_worst_case",
    "scrub",
    "Candidate",
    "simulate_scores",
]

#: Newton steps of :class:`ShrunkLogisticRegression` at most.
NEWTON_MAX_ITER = 100
#: Newton's method stops at a step below this times the largest coefficient
#: (plus one): machine precision.
_TOLERANCE = 1e-13
#: A Newton step whose decrement (``g^T H^{-1} g``) is below this times the
#: objective (plus one) is taken without a line search (rounding dominates).
_DECREMENT = 1e-10
#: A database of :func:`newton_binary` keeps its Hessian while each step is at
#: most this times the step before.
_CONTRACTION = 0.25
#: :func:`swap_inverse` refuses an update whose Sherman-Morrison denominator
#: is below this (the matrix near singular).
_SWAP_FLOOR = 1e-6


def scrub(message: str) -> str:
    """``message`` of an error raised on private data, without the data's values.

    Keeps the first line, drops anything from ``array=`` on (scikit-learn quotes
    the array there), replaces whatever stands between the first quote and the
    last quote of the same kind by ``'…'`` (numpy and pandas quote the cell they
    could not convert, a string being a value too) and every number but a
    dimension (``2D``) by ``…``: counts are public, but a label or a value is
    not.

    Examples
    --------
    >>> scrub("Expected 2D array, got 1D array instead:\\narray=[-1.15 0.3].")
    'Expected 2D array, got 1D array instead:'
    >>> scrub("y contains previously unseen labels: [7.5]")
    'y contains previously unseen labels: […]'
    >>> scrub("could not convert string to float: 'SECRET'")
    "could not convert string to float: '…'"
    """
    head = str(message).split("\n", 1)[0]
    head = re.sub(r"array=.*", "", head)
    head = re.sub(r"([\"']).*\1", "'…'", head)
    return re.sub(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(?!D)", "…", head).strip()


# ----------------------------------------------------------------- shrinkage
class ShrunkLogisticRegression(ClassifierMixin, BaseEstimator):
    r"""Logistic regression penalised toward a given model:
    :math:`\min_\theta\ C\sum_i \ell(\theta; x_i, y_i) + \tfrac12\lVert\theta-\theta_0\rVert^2`,
    intercept included in :math:`\theta` (and in the penalty).

    Binary (one coefficient row, as scikit-learn's) or multinomial; solved by
    Newton's method with backtracking to machine precision, so the fit does not
    depend on the order of the rows (the sampler checks that).

    Parameters
    ----------
    C : float, default 1.0
        Inverse strength of the pull toward ``coef``/``intercept``, ``> 0``.
    coef : array of shape (1, d) or (K, d), optional
        The centre's coefficients (default 0: plain L2-penalised logistic regression).
    intercept : array of shape (1,) or (K,), optional
        The centre's intercepts (default 0).
    fit_intercept : bool, default True
    classes : array, optional
        The class labels (default: those of ``y``); fixes the coefficient rows.
    row_bound : float, optional
        Clip each row of ``X`` to L2 norm at most ``row_bound`` before fitting
        (:func:`clip_rows`): the loss is then Lipschitz and the fit's
        sensitivity bounded over every pair of neighbours
        (:func:`logistic_worst_case`). ``None``: no clipping.
    penalize_intercept : bool, default True
        Whether the penalty holds the intercept. ``False`` with no centre is
        the objective of scikit-learn's ``LogisticRegression`` with an L2
        penalty (whose lbfgs, newton-cg, newton-cholesky, sag and saga solvers
        approximate its minimiser); the objective is then strongly convex in
        the coefficients only, and :func:`logistic_worst_case` does not apply.
    """

    def __init__(self, C=1.0, coef=None, intercept=None, fit_intercept=True,
                 classes=None, row_bound=None, penalize_intercept=True):
        self.C = C
        self.coef = coef
        self.intercept = intercept
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.row_bound = row_bound
        self.penalize_intercept = penalize_intercept

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        classes = np.unique(y) if self.classes is None else np.asarray(self.classes)
        index = np.searchsorted(classes, y)
        if np.any(index >= len(classes)) or np.any(classes[index % len(classes)] != y):
            raise ValueError("y holds labels outside classes.")
        k = 1 if len(classes) == 2 else len(classes)
        d = X.shape[1]
        Z, (centre, mask) = self._rows(X), self._penalty(d, k)
        if k == 1:
            target = (index == 1).astype(float)[None]
            theta = newton_binary(Z[None], target, centre[0], mask, float(self.C))[0]
        else:
            Y = np.zeros((len(X), len(classes)))
            Y[np.arange(len(X)), index] = 1.0
            theta = _newton(Z, Y, centre, mask, float(self.C))
        self.classes_ = classes
        self.coef_ = theta[:, :d].copy()
        self.intercept_ = theta[:, d].copy() if self.fit_intercept else np.zeros(k)
        self.n_features_in_ = d
        return self

    def _rows(self, X: np.ndarray) -> np.ndarray:
        """The rows along the last axes of ``X``, clipped (``row_bound``),
        with a column of ones for the intercept."""
        if self.row_bound is not None:
            X = clip_rows(X, self.row_bound)
        if not self.fit_intercept:
            return X
        return np.concatenate([X, np.ones(X.shape[:-1] + (1,))], axis=-1)

    def _penalty(self, d: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(centre, mask)``: the centre ``(k, p)`` and the penalty's weight
        (1 or 0) of each of the ``p`` coordinates, for ``d`` features."""
        centre = np.zeros((k, d + 1))
        if self.coef is not None:
            centre[:, :d] = np.reshape(self.coef, (k, d))
        if self.intercept is not None and self.fit_intercept:
            centre[:, d] = np.reshape(self.intercept, (k,))
        mask = np.ones(d + int(self.fit_intercept))
        if not self.fit_intercept:
            return centre[:, :d], mask
        mask[d] = float(self.penalize_intercept)
        return centre, mask

    def fit_batch(self, stack: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """The binary fit on every database of ``stack`` at once.

        Parameters
        ----------
        stack : ndarray of shape (B, n, d + 1)
            Databases of rows ``(features..., label)``.
        start : ndarray of shape (B, p), optional
            Where Newton's method starts for each database (default the
            centre): the minimiser does not depend on it.

        Returns
        -------
        ndarray of shape (B, p)
            The coefficients followed by the intercept (with ``fit_intercept``),
            as :meth:`fit` would fit them database by database (to machine
            precision, :func:`newton_binary`).
        """
        return self.solve_batch(*self.design(stack), start)[0]

    def design(self, stack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(Z, target)`` of :func:`newton_binary` for the binary fit on the
        databases of ``stack`` (rows ``(features..., label)``): the rows
        clipped, with a column of ones for the intercept, and 1 for the
        second class, 0 for the first."""
        classes = np.asarray(self.classes)
        labels = stack[..., -1]
        positive = labels == classes[1]
        if len(classes) != 2 or not np.all(positive | (labels == classes[0])):
            raise ValueError("y holds labels outside classes.")
        return self._rows(np.asarray(stack[..., :-1], dtype=float)), positive.astype(float)

    def solve_batch(
        self,
        Z: np.ndarray,
        target: np.ndarray,
        start: np.ndarray | None = None,
        inverse: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`fit_batch` on a :meth:`design`, from given inverse Hessians.

        Parameters
        ----------
        Z : ndarray of shape (B, n, p)
        target : ndarray of shape (B, n)
        start : ndarray of shape (B, p), optional
        inverse : ndarray of shape (B, p, p), optional
            Inverses of approximate Hessians to start with
            (:func:`newton_binary`; e.g. :func:`swap_inverse` of a
            neighbour's): the minimiser does not depend on them.

        Returns
        -------
        theta : ndarray of shape (B, p)
            As :meth:`fit_batch`.
        inverse : ndarray of shape (B, p, p)
            Inverses of Hessians near the minimisers, for a neighbour's fit.
        """
        centre, mask = self._penalty(Z.shape[-1] - int(self.fit_intercept), 1)
        return newton_binary(Z, target, centre[0], mask, float(self.C), start, inverse)

    def decision_function(self, X):
        scores = np.asarray(X, dtype=float) @ self.coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = special.expit(scores)
            return np.column_stack([1 - p, p])
        return special.softmax(scores, axis=1)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def clip_rows(X: np.ndarray, bound: float) -> np.ndarray:
    """``X`` with every row (along the last axis) scaled down to L2 norm at
    most ``bound`` (a row within it unchanged)."""
    X = np.asarray(X, dtype=float)
    norms = np.linalg.norm(X, axis=-1)
    with np.errstate(divide="ignore"):
        factor = np.where(norms > bound, bound / norms, 1.0)
    return X * factor[..., None]


def logistic_worst_case(
    C: float,
    row_bound: float,
    features: int,
    fit_intercept: bool,
    classes: int,
    neighbours: str,
    norm: str,
) -> float:
    r"""Sensitivity over every pair of neighbours of the coefficients (and
    intercepts) of :class:`ShrunkLogisticRegression` with rows clipped to
    ``row_bound``.

    The objective :math:`C\sum_i \ell(\theta; z_i) + \tfrac12\lVert\theta -
    \theta_0\rVert^2` (``z = (x, 1)`` with an intercept, penalised with the
    coefficients) is 1-strongly convex, and each loss is :math:`L`-Lipschitz in
    :math:`\theta` with :math:`L = \lVert z\rVert \le \sqrt{R^2 + 1}`
    (:math:`R` without an intercept) for the binary loss
    (:math:`|\sigma(s) - y| \le 1`) and :math:`\sqrt 2\,\lVert z\rVert` for
    the multinomial one (the gradient :math:`(p - e_y) z^T` has Frobenius norm
    :math:`\lVert p - e_y\rVert \lVert z\rVert \le \sqrt 2 \lVert z\rVert`).
    Chaudhuri, Monteleoni & Sarwate (2011), Corollary 8, in their convention
    :math:`\frac1n\sum_i\ell + \frac\Lambda2\lVert\theta\rVert^2`, i.e.
    :math:`\Lambda = 1/(nC)`: the minimiser moves by at most
    :math:`2L/(n\Lambda) = 2CL` in L2 when one record is replaced; the centre
    :math:`\theta_0` is public and does not change the argument (the strong
    convexity is the penalty's). Removing or adding one record adds or removes
    one loss term: the minimisers of :math:`G` (1-strongly convex) and
    :math:`G + C\ell` differ by at most :math:`\lVert C\nabla\ell\rVert \le CL`
    (add/remove neighbours). In the L1 norm, :math:`\sqrt p` times the L2 bound
    (``p`` coordinates released).

    Parameters
    ----------
    C : float
        The fit's ``C``, ``> 0``.
    row_bound : float
        ``R``: the rows' features are clipped to L2 norm ``<= R``.
    features : int
        ``d``, the number of features.
    fit_intercept : bool
    classes : int
        Number of classes (2: one coefficient row).
    neighbours : {"replace-one", "add-remove"}
    norm : {"l2", "l1"}

    Returns
    -------
    float
    """
    rows = 1 if classes == 2 else classes
    lipschitz = math.hypot(row_bound, 1.0) if fit_intercept else float(row_bound)
    if rows > 1:
        lipschitz *= float(np.sqrt(2.0))
    bound = (2.0 if neighbours == "replace-one" else 1.0) * C * lipschitz
    if norm == "l1":
        bound *= float(np.sqrt(rows * (features + int(fit_intercept))))
    return bound


def _objective(Z, Y, centre, mask, C, theta):
    """Value, gradient and Hessian (flattened) of the shrunk multinomial objective."""
    scores = Z @ theta.T
    k, p = theta.shape
    value = C * np.sum(special.logsumexp(scores, axis=1) - np.sum(Y * scores, 1))
    prob = special.softmax(scores, axis=1)
    grad = C * (prob - Y).T @ Z
    hess = np.zeros((k * p, k * p))
    for a in range(k):
        for b in range(a, k):
            w = prob[:, a] * ((a == b) - prob[:, b])
            block = C * (Z.T * w) @ Z
            hess[a * p:(a + 1) * p, b * p:(b + 1) * p] = block
            hess[b * p:(b + 1) * p, a * p:(a + 1) * p] = block
    diff = (theta - centre) * mask
    value += 0.5 * float(np.sum(diff * diff))
    grad = grad + diff
    hess = hess + np.diag(np.tile(mask, k))
    return value, grad.ravel(), hess


def _newton(Z, Y, centre, mask, C):
    """Minimiser of the strongly convex multinomial objective of
    :class:`ShrunkLogisticRegression`."""
    theta = centre.copy()
    value, grad, hess = _objective(Z, Y, centre, mask, C, theta)
    for _ in range(NEWTON_MAX_ITER):
        step = linalg.solve(hess, grad, assume_a="pos").reshape(theta.shape)
        t = 1.0
        while True:
            trial = theta - t * step
            new = _objective(Z, Y, centre, mask, C, trial)
            if new[0] <= value - 1e-4 * t * float(grad @ step.ravel()) or t < 1e-10:
                break
            t *= 0.5
        theta = trial
        value, grad, hess = new
        if np.max(np.abs(t * step)) <= _TOLERANCE * (1.0 + np.max(np.abs(theta))):
            break
    return theta


def _binary_value_grad(Z, target, centre, mask, C, theta):
    """Values ``(B,)`` and gradients ``(B, p)`` of the binary objective of
    :func:`newton_binary` at ``theta`` ``(B, p)``."""
    scores = np.matmul(Z, theta[:, :, None])[..., 0]
    diff = (theta - centre) * mask
    # one exponential for both: log(1 + e^s) = max(s, 0) + log1p(e^-|s|) and
    # the logistic function 1 / (1 + e^-|s|) or e^-|s| / (1 + e^-|s|)
    small = np.exp(-np.abs(scores))
    value = C * np.sum(np.maximum(scores, 0.0) - target * scores + np.log1p(small), 1)
    value += 0.5 * np.sum(diff * diff, axis=1)
    prob = 1.0 / (1.0 + small)
    residual = np.where(scores >= 0.0, prob, small * prob) - target
    grad = C * np.matmul(residual[:, None, :], Z)[:, 0, :] + diff
    return value, grad


def _binary_hessian(Z, theta, mask, C):
    """Hessians ``(B, p, p)`` of the binary objective of :func:`newton_binary`
    at ``theta`` ``(B, p)``."""
    prob = special.expit(np.matmul(Z, theta[:, :, None])[..., 0])
    root = Z * np.sqrt(C * prob * (1.0 - prob))[:, :, None]
    return np.matmul(root.transpose(0, 2, 1), root) + np.diag(mask)


def newton_binary(Z, target, centre, mask, C, start=None, inverse=None):
    r"""Minimisers of the binary objective of :class:`ShrunkLogisticRegression`,
    :math:`C\sum_i [\log(1 + e^{s_i}) - t_i s_i] + \tfrac12\sum_j m_j
    (\theta_j - c_j)^2` with :math:`s = Z\theta`, one per database of a batch.

    Newton's method with backtracking (Armijo), every database at once, each
    keeping the inverse of its last Hessian while it serves: a step is
    :math:`-M^{-1}g` with :math:`M` the Hessian at an earlier iterate updated
    by BFGS after every step (:func:`_bfgs`; a descent direction, :math:`M`
    positive definite), and a database computes its Hessian again only when
    its step did not shrink to at most :data:`_CONTRACTION` of the one before
    (Newton's method far from the minimiser, gradients only near it: the
    chord method, Kelley 1995, Section 5.4, converges linearly at a rate that
    vanishes with :math:`\lVert M - H(\theta^*)\rVert`, BFGS from a good
    :math:`M` superlinearly, Nocedal & Wright 2006, Theorem 6.6). A database
    stops when its whole step (not cut by the line search) is below ``1e-13``
    times its largest coefficient (plus one), a Newton step or at most a
    fourth of the one before (what is left to go, the steps shrinking so, at
    most a third of the last step); or when its gradient bounds the distance
    to the minimiser below that: with every coordinate penalised
    the objective is 1-strongly convex, so :math:`\lVert\theta -
    \theta^*\rVert \le \lVert g\rVert` (Nesterov 2004, Theorem 2.1.10).
    Machine precision: the minimiser found does not depend on the start, on
    ``inverse`` nor on the order of the rows.

    Parameters
    ----------
    Z : ndarray of shape (B, n, p)
        The rows (with a column of ones for the intercept).
    target : ndarray of shape (B, n)
        1 for the second class, 0 for the first.
    centre : ndarray of shape (p,)
    mask : ndarray of shape (p,)
        The penalty's weight of each coordinate, 1 or 0.
    C : float
    start : ndarray of shape (B, p), optional
        Default: the centre.
    inverse : ndarray of shape (B, p, p), optional
        Inverses of (approximate) Hessians to start with, e.g. a neighbour's
        (:func:`swap_inverse`); a database whose matrix holds NaN computes its
        Hessian at the start. Default: every database computes it.

    Returns
    -------
    theta : ndarray of shape (B, p)
    inverse : ndarray of shape (B, p, p)
        The inverse of each database's last Hessian (at an iterate near its
        minimiser).
    """
    batch, p = Z.shape[0], Z.shape[-1]
    theta = np.array(np.broadcast_to(centre if start is None else start, (batch, p)))
    if inverse is None:
        inverse = np.full((batch, p, p), np.nan)
    inverse = np.array(inverse, dtype=float)
    lowest = float(np.min(mask)) or 1e-300  # the penalty's curvature, 0 without
    # the databases still going, compacted (with a few that stopped, frozen)
    # when fewer than 3/4 of them go on: no copy of their rows per step
    rows = np.arange(batch)
    work = [Z, target, theta[rows], inverse[rows], np.full(batch, np.inf)]
    value, grad = _binary_value_grad(Z, target, centre, mask, C, work[2])
    going = np.ones(batch, dtype=bool)
    stale = ~np.isfinite(inverse).all(axis=(1, 2))
    for _ in range(NEWTON_MAX_ITER):
        if not going.any():
            break
        if going.sum() < 0.75 * going.size:
            theta[rows], inverse[rows] = work[2], work[3]
            rows, keep = rows[going], np.flatnonzero(going)
            work = [part[keep] for part in work]
            value, grad, stale, going = value[keep], grad[keep], stale[keep], going[keep]
        Zw, tw, now, inv, last = work
        refresh = np.flatnonzero(stale & going)
        if refresh.size:
            inv[refresh] = np.linalg.inv(_binary_hessian(Zw[refresh], now[refresh], mask, C))
        step = np.matmul(inv, grad[:, :, None])[..., 0] * going[:, None]
        before = grad
        trial, value, grad, t = _armijo(Zw, tw, centre, mask, C, now, step, value, grad)
        _bfgs(inv, trial - now, grad - before)
        moved = np.max(np.abs(t[:, None] * step), axis=1)
        # a Newton step (its Hessian fresh) below the tolerance ends the fit
        # as the chord steps' shrinking does
        # a step the line search cut short computes the Hessian again and
        # does not end the fit
        whole = t == 1.0
        contracted = ((moved <= _CONTRACTION * last) | stale) & whole
        stale = (moved > _CONTRACTION * last) | ~whole
        last[going] = moved[going]
        work[2] = trial
        tolerance = _TOLERANCE * (1.0 + np.max(np.abs(trial), axis=1))
        below = np.linalg.norm(grad, axis=1) * (1.0 / lowest) <= tolerance
        going &= ((moved > tolerance) | ~contracted) & ~below
    theta[rows], inverse[rows] = work[2], work[3]
    return theta, inverse


def _bfgs(inverse, s, y):
    """Update the inverse Hessians ``inverse`` ``(B, p, p)`` in place by BFGS
    after the steps ``s`` changed the gradients by ``y`` (Nocedal & Wright
    2006, eq. 6.17), where the curvature ``s^T y`` is positive (a database
    that did not move keeps its matrix): positive definite matrices stay so."""
    sy = np.sum(s * y, axis=1)
    scale = np.sqrt(np.sum(s * s, axis=1) * np.sum(y * y, axis=1))
    rho = np.divide(1.0, sy, out=np.zeros_like(sy), where=sy > 1e-12 * scale)
    Hy = np.matmul(inverse, y[:, :, None])[..., 0]
    # H - rho (s Hy^T + Hy s^T) + (rho^2 y^T H y + rho) s s^T = H + s v^T + v s^T
    weight = 0.5 * (rho * rho * np.sum(y * Hy, axis=1) + rho)
    v = weight[:, None] * s - rho[:, None] * Hy
    inverse += np.matmul(np.stack([s, v], axis=2), np.stack([v, s], axis=1))


def _armijo(Z, target, centre, mask, C, now, step, value, grad):
    """``(theta, value, grad, t)`` after the steps ``-t * step`` from ``now``,
    ``t`` halved from 1 until the objective decreases enough (Armijo), its
    values and gradients there; a step of a tiny decrement is taken whole (the
    values it compares then differ by rounding, which no step size fixes)."""
    slope = np.sum(grad * step, axis=1)
    t = np.ones(len(now))
    trial = now - step
    new_value, new_grad = _binary_value_grad(Z, target, centre, mask, C, trial)
    tiny = slope <= _DECREMENT * (1.0 + np.abs(value))
    retry = (new_value > value - 1e-4 * slope) & ~tiny
    while retry.any():
        t[retry] *= 0.5
        trial[retry] = now[retry] - t[retry, None] * step[retry]
        new_value[retry], new_grad[retry] = _binary_value_grad(
            Z[retry], target[retry], centre, mask, C, trial[retry]
        )
        sufficient = new_value <= value - 1e-4 * t * slope
        retry = ~sufficient & (t >= 1e-10)
    return trial, new_value, new_grad, t


def swap_inverse(inverse, theta, old, new, C):
    r"""``inverse`` of a Hessian of :func:`newton_binary` with the row ``old``
    replaced by ``new`` in each database: two Sherman-Morrison updates
    (Golub & Van Loan 2013, Section 2.1.4) of
    :math:`M + C w(z') z' z'^T - C w(z) z z^T`, the weights
    :math:`w = \sigma(s)(1 - \sigma(s))` at ``theta``.

    Parameters
    ----------
    inverse : ndarray of shape (B, p, p)
        Inverses of the databases' Hessians (near ``theta``).
    theta : ndarray of shape (B, p)
        Where the new rows' weights are taken (the first database's minimiser).
    old, new : ndarray of shape (B, p)
        The rows taken out and put in (with the intercept's 1).
    C : float

    Returns
    -------
    ndarray of shape (B, p, p)
        NaN for a database whose update would not stay positive definite
        (:func:`newton_binary` then computes its Hessian).
    """
    out = np.array(inverse, dtype=float)
    for row, sign in ((new, 1.0), (old, -1.0)):
        prob = special.expit(np.sum(row * theta, axis=1))
        u = row * np.sqrt(C * prob * (1.0 - prob))[:, None]
        image = np.matmul(out, u[:, :, None])[..., 0]
        scale = 1.0 + sign * np.sum(u * image, axis=1)
        out -= sign * image[:, :, None] * image[:, None, :] / scale[:, None, None]
        out[~(scale > _SWAP_FLOOR)] = np.nan
    return out


class ShrunkRidge(RegressorMixin, BaseEstimator):
    r"""Ridge regression penalised toward a given model:
    :math:`\min_\theta \lVert y - X\theta - b\rVert^2 + \alpha\lVert\theta-\theta_0\rVert^2`
    (intercept ``b`` not penalised, as in scikit-learn's ``Ridge``).

    Solved as a ridge regression of the residual ``y - X theta_0`` (the same
    minimiser, written for ``theta - theta_0``).

    Parameters
    ----------
    alpha : float, default 1.0
    coef : array of shape (d,), optional
        The centre (default 0: plain ridge regression).
    fit_intercept : bool, default True
    """

    def __init__(self, alpha=1.0, coef=None, fit_intercept=True):
        self.alpha = alpha
        self.coef = coef
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        d = X.shape[1]
        centre = np.zeros(d) if self.coef is None else np.reshape(self.coef, (d,))
        r = y - X @ centre
        if self.fit_intercept:
            xm, rm = X.mean(axis=0), r.mean()
            Xc, rc = X - xm, r - rm
        else:
            xm, rm, Xc, rc = np.zeros(d), 0.0, X, r
        gram = Xc.T @ Xc + self.alpha * np.eye(d)
        delta = linalg.solve(gram, Xc.T @ rc, assume_a="pos")
        self.coef_ = centre + delta
        self.intercept_ = float(rm - xm @ delta) if self.fit_intercept else 0.0
        self.n_features_in_ = d
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float) @ self.coef_ + self.intercept_


# ------------------------------------------------- sufficient statistics (SSP)
@dataclass(frozen=True)
class Statistics:
    r"""The sufficient statistics of a linear regression as one additive query.

    Each record ``(x, y)`` maps to ``g(x, y) = (u_{ij})_{i \le j} \oplus (w\,y\,u)``
    with ``u = (x, 1)`` when ``fit_intercept`` (else ``u = x``): the upper
    triangle of ``u u^T`` (diagonal included) and ``u y`` scaled by ``w``. Their
    sums over the records are ``X^T X`` and ``w X^T y``, and the L2 change of
    the sum between neighbours is ``||g(x, y) - g(x', y')||_2``: the sampler
    draws it from pairs of records alone (Rubinstein & Aldà 2017, additive
    queries). ``w`` (from public data) balances the two parts.

    Parameters
    ----------
    d : int
        Number of features.
    fit_intercept : bool
    weight : float
        ``w > 0``.
    """

    d: int
    fit_intercept: bool
    weight: float
    _rows: np.ndarray = field(init=False, repr=False, compare=False)
    _cols: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        p = self.d + int(self.fit_intercept)
        rows, cols = np.triu_indices(p)
        object.__setattr__(self, "_rows", rows)
        object.__setattr__(self, "_cols", cols)

    @property
    def p(self) -> int:
        return self.d + int(self.fit_intercept)

    def record_map(self, records: np.ndarray) -> np.ndarray:
        """``g`` of every record (rows ``(features..., target)``)."""
        records = np.asarray(records, dtype=float)
        u = records[:, :-1]
        if self.fit_intercept:
            u = np.column_stack([u, np.ones(len(u))])
        outer = u[:, self._rows] * u[:, self._cols]
        return np.column_stack([outer, self.weight * records[:, -1:] * u])

    def unpack(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(X^T X, X^T y)`` from a (noisy) sum of ``g``; the matrix symmetric."""
        p = self.p
        gram = np.zeros((p, p))
        size = len(self._rows)
        gram[self._rows, self._cols] = vector[:size]
        gram[self._cols, self._rows] = vector[:size]
        return gram, np.asarray(vector[size:], dtype=float) / self.weight

    def solve(self, vector, lam, centre=None) -> tuple[np.ndarray, float]:
        r"""Coefficients and intercept from the statistics:
        :math:`\theta = (A_+ + \lambda J)^{-1}(b + \lambda J \theta_0)`, where
        :math:`A_+` is ``X^T X`` with its negative eigenvalues set to 0 (noise can
        make it indefinite; post-processing), ``J`` the identity on the features
        (the intercept is not penalised) and :math:`\theta_0` the centre (0, or a
        public model's coefficients).
        """
        gram, xty = self.unpack(vector)
        values, vectors = linalg.eigh(gram)
        floor = 1e-9 * max(float(np.max(np.abs(values))), 1.0)
        gram = (vectors * np.maximum(values, floor)) @ vectors.T
        penalty = np.zeros(self.p)
        penalty[: self.d] = lam
        target = xty.copy()
        if centre is not None:
            target[: self.d] += lam * np.asarray(centre, dtype=float)
        theta = linalg.solve(gram + np.diag(penalty), target, assume_a="sym")
        intercept = float(theta[self.d]) if self.fit_intercept else 0.0
        return theta[: self.d], intercept


# ---------------------------------------------------------------- simulation
@dataclass
class Candidate:
    """One way to build the released model, scored by :func:`simulate_scores`.

    ``build(X_pub, y_pub, X_priv, y_priv, rng, shared)`` returns a model fitted
    (and noised, as the release would be) on the given synthetic data; ``shared``
    is a dict that lives for one repetition (candidates built from one release
    share its noise there); ``name`` and ``details`` describe it in ``selected_``.
    """

    name: str
    build: Callable[..., Any]
    details: dict = field(default_factory=dict)


def simulate_scores(
    candidates: list[Candidate],
    truth: Any,
    features: Callable[[int, np.random.Generator], np.ndarray],
    n_public: int,
    n: int,
    classifier: bool,
    noise_sd: float,
    rng: np.random.Generator,
    repeats: int,
) -> list[np.ndarray]:
    r"""Expected scores of each candidate in a world where ``truth`` is right.

    Every repetition draws a synthetic public set of ``n_public`` rows and a
    synthetic private set of ``n`` rows: features from ``features`` (the
    population's), labels from ``truth`` (a classifier's ``predict_proba``; for
    one without it, its ``predict`` with probability ``1 - noise_sd`` and a
    uniform label otherwise; a regression's ``predict`` plus Gaussian noise of
    standard deviation ``noise_sd``), and builds
    every candidate on the same two sets. The score is the expected accuracy
    under ``truth`` (classification) or minus the expected squared error
    (regression) on a fixed sample of population features: no labels are
    drawn for it, which removes their noise from the comparison.

    Returns
    -------
    list of ndarray
        Per candidate, the ``repeats`` scores (fewer, possibly none, when the
        synthetic sets keep lacking a class: at most ``20 * repeats`` draws).
    """
    test = features(4000, rng)
    if classifier:
        classes = truth.classes_

        def probabilities(X):
            if hasattr(truth, "predict_proba"):
                return truth.predict_proba(X)
            hit = truth.predict(X)[:, None] == classes[None, :]
            return (1.0 - noise_sd) * hit + noise_sd / len(classes)

        truth_proba = probabilities(test)
    else:
        truth_mean = truth.predict(test)

    def labels(X):
        if not classifier:
            return truth.predict(X) + noise_sd * rng.standard_normal(len(X))
        proba = probabilities(X)
        cumulative = np.cumsum(proba, axis=1)
        draws = rng.random(len(X))[:, None]
        which = np.minimum((draws > cumulative).sum(axis=1), len(classes) - 1)
        return classes[which]

    def score(model):
        predicted = model.predict(test)
        if classifier:
            hit = predicted[:, None] == classes[None, :]
            return float(np.mean(np.sum(truth_proba * hit, axis=1)))
        return -float(np.mean((predicted - truth_mean) ** 2)) - noise_sd**2

    scores = [np.empty(repeats) for _ in candidates]
    done = attempts = 0
    while done < repeats and attempts < 20 * repeats:
        attempts += 1
        X_pub = features(n_public, rng)
        X_priv = features(n, rng)
        y_pub, y_priv = labels(X_pub), labels(X_priv)
        if classifier and (
            len(np.unique(y_pub)) < len(classes) or len(np.unique(y_priv)) < len(classes)
        ):
            continue  # a synthetic set lacking a class: the fit would refuse it
        shared: dict = {}
        for index, candidate in enumerate(candidates):
            model = candidate.build(X_pub, y_pub, X_priv, y_priv, rng, shared)
            scores[index][done] = score(model)
        done += 1
    return [values[:done] for values in scores]
