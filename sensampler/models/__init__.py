r"""Private scikit-learn estimators: fitted attributes released with a sampled sensitivity.

:class:`PrivateEstimator` wraps any scikit-learn estimator whose fitted model is a
set of arrays (``coef_`` and ``intercept_`` of a linear model, or attributes you
name). Fitting it on private data ``(X, y)``

1. fits a population model on public data (a bootstrap of the public rows, a
   Gaussian mixture or a kernel density estimate; for a classifier, one per
   class, with the public class frequencies);
2. samples the L2 (or L1) sensitivity of the fitted attributes, flattened and
   concatenated, over neighbouring training sets of the private size
   ``n = len(X)`` drawn from that population (Rubinstein & Aldà 2017,
   Algorithm 1 [1]_; :func:`sensampler.sample_sensitivity`);
3. chooses, on the public data alone, what to release (``select="auto"``):
   the public model (nothing read from the private data), the private fit, or
   the private fit shrunk toward the public model (a penalty pulling its
   coefficients toward the public ones, whose sensitivity is sampled like any
   query's): each candidate is built on synthetic public and private sets
   drawn from the population, labelled by the public model, with its own
   noise, and the best expected test score less one standard deviation of it
   (a release is one draw: a noisier candidate must win by more) wins
   (``selected_`` says which, and why);
4. fits the chosen estimator on ``(X, y)`` (with ``augment=True``, on the public
   and private rows together) and releases its attributes through the
   Gaussian mechanism (analytic calibration, Balle & Wang 2018 [3]_) or the
   Laplace mechanism, calibrated with the sampled sensitivity; with
   ``fit_method="statistics"`` a linear regression releases its sufficient
   statistics instead (``X^T X`` and ``X^T y``, Wang 2018 [4]_, with a sampled
   sensitivity) and solves its coefficients from them;
5. writes the released attributes into a copy of the estimator fitted on the
   *public* data, so that every other fitted attribute (``classes_``,
   ``n_iter_``, a solver's diagnostics) comes from public data only.

The modules: :mod:`._estimator` (the class), :mod:`._setup` (every check
before any spend), :mod:`._populations`, :mod:`._sampling` (the attributes as
a query, their sampled sensitivity), :mod:`._tune`, :mod:`._select` (the
choice among candidates), :mod:`._release`, :mod:`._statement` and
:mod:`._fits` (the shrunk fits, the sufficient statistics, the simulation).

The guarantee is *random* differential privacy (Hall et al. 2012 [2]_): with
probability at least :math:`1-\gamma` over neighbouring training sets drawn from
the population (and over the sampler), the release is (epsilon, delta)-DP. It
rests on the private records coming from the population the public data
describe; a bound on paper (diffprivlib, OpenDP) does not, at the price of
clipping the data and, usually, much more noise.

References
----------
.. [1] B. I. P. Rubinstein and F. Aldà, "Pain-Free Random Differential Privacy
   with Sensitivity Sampling", Proc. 34th ICML, PMLR 70, 2017.
.. [2] R. Hall, A. Rinaldo and L. Wasserman, "Random Differential Privacy",
   J. Privacy and Confidentiality 4(2), 2012.
.. [3] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising",
   Proc. 35th ICML, PMLR 80, 2018.
.. [4] Y.-X. Wang, "Revisiting differentially private linear regression: optimal
   and adaptive prediction & estimation in unbounded domain", Proc. 34th UAI,
   2018 (sufficient-statistics perturbation; its AdaSSP bounds the rows, where
   sensampler samples the statistics' sensitivity).
"""

from __future__ import annotations

from ._estimator import FIT_METHODS, SKLEARN_CHECKS_NOT_APPLICABLE, PrivateEstimator
from ._populations import MIXTURE_COMPONENTS, POPULATIONS
from ._select import (
    SELECTION_REPEATS,
    SELECTIONS,
    SHRINK_FACTORS,
    STATISTICS_PENALTIES,
)
from ._setup import RELEASE_PAIRS, ROW_BOUND_QUANTILE
from ._statement import PUBLIC_RELEASE
from ._tune import TUNING_HOLDOUT, TUNING_RELEASES

__all__ = [
    "PrivateEstimator",
    "POPULATIONS",
    "TUNING_RELEASES",
    "RELEASE_PAIRS",
    "ROW_BOUND_QUANTILE",
    "SELECTIONS",
    "FIT_METHODS",
    "SKLEARN_CHECKS_NOT_APPLICABLE",
    "MIXTURE_COMPONENTS",
    "PUBLIC_RELEASE",
    "SELECTION_REPEATS",
    "SHRINK_FACTORS",
    "STATISTICS_PENALTIES",
    "TUNING_HOLDOUT",
]
