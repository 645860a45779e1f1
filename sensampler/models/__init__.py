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

import functools
import math
import sys
import warnings
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from .._lib.default_budget import charged_to, exempt
from .._lib.domains import (
    DELTA_RELEASE,
    EPSILON,
    ESTIMATOR_NORMS,
    NEIGHBOUR_RELATIONS,
    PROBABILITY,
)
from .._lib.domains import Interval as Domain
from .._lib.structure import stack_outputs
from .._lib.threads import one_thread
from .._lib.validation import as_seed_sequence, check_count, check_n_jobs
from ..bounds import Bounds
from ..distributions import (
    Distribution,
    PublicSample,
    SklearnGaussianMixture,
    SklearnKernelDensity,
)
from ..distributions.empirical import check_not_private
from ..distributions.univariate import draw_labels
from ..estimate import SensitivityValue
from ..mechanisms import GaussianMechanism, LaplaceMechanism
from ..plan import BOUNDS, sampling_plan
from ..privacy import PrivacyStatement, SamplingRun, format_dp, size_words
from ..queries import Query, additive
from ..queries import estimator as estimator_query
from ..sampler import sample_sensitivity
from ._fits import (
    Candidate,
    ShrunkLogisticRegression,
    ShrunkRidge,
    Statistics,
    logistic_worst_case,
    scrub,
    simulate_scores,
)

__all__ = [
    "PrivateEstimator",
    "POPULATIONS",
    "TUNING_RELEASES",
    "RELEASE_PAIRS",
    "ROW_BOUND_QUANTILE",
    "SELECTIONS",
    "FIT_METHODS",
    "SKLEARN_CHECKS_NOT_APPLICABLE",
]

#: Population models :class:`PrivateEstimator` fits on the public data by name.
POPULATIONS = ("bootstrap", "gaussian_mixture", "kde")
#: Components of the Gaussian mixture fitted by ``population="gaussian_mixture"``.
MIXTURE_COMPONENTS = 3
#: Releases averaged per candidate when ``tune`` scores the released model.
TUNING_RELEASES = 20
#: Share of the public rows held out to score the candidates of ``tune``.
TUNING_HOLDOUT = 0.3
#: Ways to choose the released model (``select``).
SELECTIONS = ("auto", "public", "private", "shrunk")
#: Ways to fit the private model (``fit_method``).
FIT_METHODS = ("auto", "output", "statistics")
#: Synthetic (public, private) data sets the choice among candidates draws.
SELECTION_REPEATS = 24
#: Pairs of the sampling run of the *released* sensitivity when ``m`` is not
#: given (the comparisons among candidates use the fewest that certify gamma):
#: at the same gamma its order statistic (k = 971 of 1000 at gamma 0.05, the
#: smallest k the plan certifies) sits nearer the (1 - gamma)-quantile than the
#: largest of 113 pairs. Measured on the shrunk fits of diabetes (alpha = 100)
#: and breast cancer (C = 0.01): 0.65 times the sensitivity; a fit takes about
#: 7 s instead of 4 s on diabetes and 70 s instead of 25 s on breast cancer
#: (two loaded cores; ``benchmarks/model_value.py``).
RELEASE_PAIRS = 1000
#: Quantile of the public rows' feature norms that ``bounds="public"`` clips
#: every row to. The shrunk logistic fits' noise is floored by their
#: worst case, 2 C sqrt(R^2 + 1) (within ``worst_case_epsilon``), which binds on
#: breast cancer with R the largest public norm; at the median the floor is
#: about half as large and half the rows are clipped: the best shrunk fit
#: recovers 30 %, 48 % and 77 % of the private data's value at epsilon 1, 3
#: and 10, against 25 %, 41 % and 47 % at the largest norm (10 % public rows,
#: 5 splits, C chosen on the test rows: ``benchmarks/model_value.py --clip``).
ROW_BOUND_QUANTILE = 0.5
#: Strengths of the pull toward the public model tried by output perturbation:
#: the shrunk fit's ``C`` (logistic) is the estimator's ``C`` times these, its
#: ``alpha`` (ridge) the estimator's ``alpha`` divided by them.
SHRINK_FACTORS = (1.0, 0.3, 0.1, 0.03, 0.01)
#: Penalties tried on the released sufficient statistics, in units of the
#: spectral size of their noise, sigma * sqrt(p) (p coefficients).
STATISTICS_PENALTIES = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)

#: The mechanism named by the statement of a public model chosen over every
#: private release.
PUBLIC_RELEASE = "public model (fitted on the public data only, no private data read)"

#: Checks of scikit-learn's ``check_estimator`` that cannot apply, and why.
SKLEARN_CHECKS_NOT_APPLICABLE = {
    "fixed width": (
        "the public data fix the number of features: checks that fit on data of "
        "another width, or on one feature, fail by design"
    ),
    "required parameters": (
        "epsilon and delta have no default (a privacy level is the user's choice): "
        "scikit-learn < 1.6 builds the estimator from its class alone in "
        "check_parameters_default_constructible"
    ),
    "randomness": (
        "every fit draws fresh noise unless random_state is fixed; checks comparing "
        "two fits with random_state=None cannot pass (the tags say non_deterministic)"
    ),
}


# ------------------------------------------------------------------- populations
class _Standardised(Distribution):
    """Records of ``inner`` (standardised units) mapped back: ``x * scale + centre``."""

    releases_gil = True

    def __init__(self, inner: Distribution, centre: np.ndarray, scale: np.ndarray):
        self.inner = inner
        self.centre = centre
        self.scale = scale
        self.record_shape = inner.record_shape

    def _draw(self, shape, rng):
        return self.inner._draw(shape, rng) * self.scale + self.centre


class _Labelled(Distribution):
    """Rows ``(features..., label)``: a label drawn with the public class
    frequencies, then features from that class's own population."""

    def __init__(self, labels: np.ndarray, weights: np.ndarray, parts: list):
        self.labels = labels
        self.parts = parts
        self._cumulative = np.cumsum(weights)
        self.record_shape = (parts[0].record_shape[0] + 1,)

    def _draw(self, shape, rng):
        which = draw_labels(self._cumulative, shape, rng)
        out = np.empty(tuple(shape) + self.record_shape)
        for index, part in enumerate(self.parts):
            mask = which == index
            out[mask, :-1] = part._draw((int(mask.sum()),), rng)
            out[mask, -1] = self.labels[index]
        return out


def _smooth(kind: str, rows: np.ndarray, seed: int) -> Distribution:
    """A Gaussian mixture or a kernel density fitted on standardised ``rows``."""
    from sklearn.mixture import GaussianMixture
    from sklearn.neighbors import KernelDensity

    centre = rows.mean(axis=0)
    scale = rows.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    z = (rows - centre) / scale
    if kind == "kde":
        inner: Distribution = SklearnKernelDensity(
            KernelDensity(bandwidth="scott").fit(z)
        )
    else:
        components = min(MIXTURE_COMPONENTS, len(z))
        inner = SklearnGaussianMixture(
            GaussianMixture(
                components, covariance_type="full", reg_covar=1e-4, random_state=seed
            ).fit(z)
        )
    return _Standardised(inner, centre, scale)


def _public_population(
    kind: str, X: np.ndarray, y: np.ndarray, classifier: bool, seed: int
) -> Distribution:
    """The population named ``kind`` (:data:`POPULATIONS`) fitted on public rows."""
    rows = np.column_stack([X, y])
    if kind == "bootstrap":
        return PublicSample(rows)
    if not classifier:
        return _smooth(kind, rows, seed)
    labels, counts = np.unique(y, return_counts=True)
    parts = [_smooth(kind, X[y == label], seed) for label in labels]
    return _Labelled(labels.astype(float), counts / counts.sum(), parts)


# ----------------------------------------------------------------------- queries
class _Concatenated(Query):
    """The estimator's fitted attributes, flattened and concatenated in one vector
    (one sensitivity covers them all); fitted on ``fixed`` rows (public, the same
    in every database) followed by the database's own."""

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

    def __call__(self, data):
        rows = np.concatenate([self.fixed, np.asarray(data, dtype=float)])
        return np.concatenate([np.ravel(part) for part in self.inner(rows)])

    def evaluate(self, stack):
        return stack_outputs([self(db) for db in stack])


def _flat(model: Any, attributes: tuple[str, ...]) -> np.ndarray:
    return np.concatenate(
        [np.ravel(np.asarray(getattr(model, a), dtype=float)) for a in attributes]
    )


def _write(model: Any, attributes: tuple[str, ...], vector: np.ndarray) -> None:
    """Write ``vector`` back into ``model``'s attributes, keeping their shapes."""
    start = 0
    for name in attributes:
        old = np.asarray(getattr(model, name), dtype=float)
        part = vector[start : start + old.size].reshape(old.shape)
        start += old.size
        setattr(model, name, float(part) if old.ndim == 0 else part.copy())


def _validate(estimator, X, y=None, *, reset: bool):
    """scikit-learn's ``validate_data`` (1.6+) or ``_validate_data`` (older)."""
    try:
        from sklearn.utils.validation import validate_data
    except ImportError:  # scikit-learn < 1.6
        if y is None:
            return estimator._validate_data(X, reset=reset)
        return estimator._validate_data(X, y, reset=reset, y_numeric=False)
    if y is None:
        return validate_data(estimator, X, reset=reset)
    return validate_data(estimator, X, y, reset=reset)


def _delegate(method: str):
    """``available_if`` check: the fitted (else the unfitted) estimator has ``method``."""

    def check(self):
        return hasattr(getattr(self, "estimator_", self.estimator), method)

    return check


def _seed(child: np.random.SeedSequence) -> int:
    return int(child.generate_state(1)[0])


@dataclass(frozen=True)
class _Setting:
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
    n_jobs: int
    classifier: bool
    bounds: Bounds | None
    released: Any  # the sampling plan of the released sensitivity


def _noise(mechanism, size: int, rng: np.random.Generator) -> np.ndarray:
    """Noise of ``mechanism``'s law, drawn for a simulation (no release, no spend)."""
    if isinstance(mechanism, LaplaceMechanism):
        return rng.laplace(0.0, float(mechanism.scale), size)
    return rng.normal(0.0, float(mechanism.scale), size)


def _sharing_public(candidate: Candidate, model: Any) -> Candidate:
    """``candidate`` building, first, the model fitted on the synthetic public set
    (``shared["public"]``, once per synthetic data set)."""

    def build(X_pub, y_pub, X_priv, y_priv, rng, shared):
        if "public" not in shared:
            shared["public"] = clone(model).fit(X_pub, y_pub)
        return candidate.build(X_pub, y_pub, X_priv, y_priv, rng, shared)

    return Candidate(candidate.name, build, candidate.details)


def _worst_rule(model: Any):
    """``worst_case(low, high, n, neighbours, norm)`` of a fit shrunk toward the
    public model with clipped rows (:func:`logistic_worst_case`, ``high`` the
    row bound), or None where no worst case is known."""
    if not isinstance(model, ShrunkLogisticRegression) or model.row_bound is None:
        return None
    d = np.asarray(model.coef).shape[-1]
    return functools.partial(
        _logistic_rule, float(model.C), d, bool(model.fit_intercept),
        len(model.classes),
    )


def _logistic_rule(C, d, fit_intercept, classes, low, high, n, neighbours, norm):
    """:func:`logistic_worst_case` as a query's ``worst_case`` rule."""
    return logistic_worst_case(C, high, d, fit_intercept, classes, neighbours, norm)


def _check_row_bound(bounds: Any, rows: int) -> None:
    """Refuse a given row bound ``R`` whose fit overflows a double, before any fit.

    A fit on rows clipped to feature norm ``R`` sums their squared norms (the
    Hessian of a logistic fit, ``X^T X``), up to ``rows R^2``, and the worst
    case of a shrunk logistic fit is ``2 C sqrt(R^2 + 1)``, the noise scaled
    from it: with ``rows R^2`` above the largest double they overflow (a bare
    ``OverflowError`` after the sampling, or a noise of infinite scale).
    """
    if not isinstance(bounds, Real) or isinstance(bounds, bool):
        return
    limit = math.sqrt(sys.float_info.max / (rows + 1))
    if float(bounds) > limit:
        raise ValueError(
            f"bounds={bounds!r} is too large: a fit on {rows} rows of feature norm "
            "up to it sums their squared norms, which overflows a double (and the "
            "worst case and the noise scaled from it with them); give a bound "
            f"below {limit:.6g}, or bounds='public'."
        )


def _sklearn_interval(domain: Domain) -> Interval:
    """scikit-learn's parameter constraint for a real parameter in ``domain``."""
    closed = {
        (True, True): "both",
        (True, False): "left",
        (False, True): "right",
        (False, False): "neither",
    }[domain.low_closed, domain.high_closed]
    high = None if domain.high == np.inf else domain.high
    return Interval(Real, domain.low, high, closed=closed)


class PrivateEstimator(MetaEstimatorMixin, BaseEstimator):
    r"""A scikit-learn estimator whose fitted attributes are released privately.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Unfitted template (cloned), e.g. ``LogisticRegression()`` or ``Ridge()``.
    epsilon : float
        Privacy parameter of the release, ``> 0``.
    delta : float
        ``0 < delta < 1`` for the Gaussian mechanism; ``0`` for the Laplace one.
    gamma : float, default 0.05
        Random-DP failure probability, ``0 < gamma < 1``: the sampling plan
        certifies it (:func:`sensampler.sampling_plan`).
    public : tuple (X_pub, y_pub)
        Public data of the same columns as the private ``X``: the population is
        fitted on them, and so is the model whose non-released attributes the
        released model keeps. Required.
    population : {"bootstrap", "gaussian_mixture", "kde"} or Distribution, default "bootstrap"
        ``"bootstrap"``: the public rows ``(features..., target)`` resampled
        (:class:`~sensampler.distributions.PublicSample`); ``"gaussian_mixture"``: a
        three-component full-covariance mixture; ``"kde"``: a Gaussian kernel
        density (Scott's bandwidth), both fitted on the standardised public rows,
        for a classifier one per class with the public class frequencies. A
        :class:`~sensampler.distributions.Distribution` of rows
        ``(features..., target)`` is used as given.
    attributes : str or sequence of str, optional
        Fitted attributes released (flattened and concatenated, one sensitivity
        for all). Default: ``coef_``, and ``intercept_`` unless the estimator has
        ``fit_intercept=False``.
    norm : {"l2", "l1"}, optional
        Norm of the sampled sensitivity; default ``"l2"`` for the Gaussian
        mechanism, ``"l1"`` for the Laplace one (which needs ``"l1"``).
    mechanism : {"gaussian", "laplace"}, default "gaussian"
        Gaussian with the analytic calibration of Balle & Wang (2018), or Laplace.
    m : int, optional
        Pairs of neighbouring training sets sampled per run. Default: the
        fewest that certify ``gamma`` with ``bound`` for the comparisons among
        candidates (``select``, ``tune``), and :data:`RELEASE_PAIRS` (or the
        fewest, if more) for the released sensitivity, whose order statistic
        is then the smallest rank certifying ``gamma``: less noise at the same
        gamma.
    bound : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's bound (:func:`sensampler.sampling_plan`).
    tune : dict of str to list, optional
        A grid of the estimator's parameters (e.g. ``{"alpha": [1, 10, 100]}``)
        searched on the *public* data at no privacy cost: each candidate's
        sensitivity is sampled, its model fitted on 70 % of the public rows,
        released :data:`TUNING_RELEASES` times with that sensitivity, and scored
        (the estimator's ``score``) on the other 30 %; the best mean score wins.
        A stronger penalty lowers the sensitivity and raises the bias: the
        search weighs both. The winner's sensitivity is then sampled afresh
        (the candidates' runs are not reused: keeping the smallest of several
        runs would weaken gamma). Nothing of it is spent from a default filter
        (:func:`sensampler.accounting.default_filter`): only the private fit is.
    augment : bool, default False
        Fit the released model on the public rows and the private ones together.
        The sensitivity is then sampled with the public rows fixed in every
        database and n private rows drawn from the population: it covers a change
        of one private record, and is smaller (more data, and the public rows
        anchor the fit), and the released model is never worse than the public
        data alone would give, up to the noise.
    select : {"auto", "private", "shrunk"}, default "auto"
        ``"auto"``: release whichever of the public model, the private fit and
        the private fit shrunk toward the public model (strengths
        :data:`SHRINK_FACTORS`) has the best expected test score, less one
        standard deviation of the score over the synthetic data sets, on
        :data:`SELECTION_REPEATS` synthetic data sets drawn from the public
        population (expected accuracy for a classifier, squared error for a
        regression), each candidate with the noise its sampled sensitivity
        calls for. The choice reads the public data, the population, ``n`` and
        the sampled sensitivities only: it costs no privacy. ``"private"`` and
        ``"shrunk"`` restrict the candidates (the public model is then never
        chosen). Shrinkage applies to ``LogisticRegression`` (L2 penalty),
        ``Ridge`` and ``LinearRegression``; other estimators choose between the
        public model and the private fit.
    fit_method : {"auto", "output", "statistics"}, default "auto"
        ``"output"`` (and ``"auto"``): noise on the fitted attributes (output
        perturbation). ``"statistics"`` (``Ridge`` and ``LinearRegression``
        only): noise on the sufficient statistics, the upper triangle of
        ``X^T X`` and ``w X^T y`` (``w`` one over the public targets' root mean
        square, to balance the two), one Gaussian or Laplace release with their
        sampled sensitivity; the coefficients are then solved with a penalty
        toward 0 or toward the public model (:data:`STATISTICS_PENALTIES`, in
        units of the noise), chosen like ``select``. Measured on diabetes it
        loses to output perturbation with shrinkage (docs: choosing).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation the sensitivity is sampled for
        (:func:`sensampler.sample_sensitivity`) and the statement holds for:
        replace one private record, or add or remove one (the private
        databases sampled then hold ``n - 1`` and ``n`` rows). Under add/remove
        neighbours the fit publishes ``n``: the sampled sensitivity, the noise
        and the choice among candidates read it, so every statement (``privacy_``,
        the entries of an accountant and of a default filter) is named with
        :func:`~sensampler.privacy.size_words` and holds given ``n``, as
        :func:`~sensampler.app.release.release_statistic`'s does.
    bounds : "public", float or None, default "public"
        A bound ``R`` on the L2 norm of each row's features (after a
        Pipeline's preprocessing), at no privacy cost: ``"public"`` takes the
        public rows' median (:data:`ROW_BOUND_QUANTILE`; a smaller bound
        lowers the noise floor below, and on breast cancer gains more than
        clipping half the rows loses), a float is a bound you vouch for. The
        fits shrunk toward the public model of a ``LogisticRegression`` clip
        every row (sampled, synthetic and private) to it, which bounds their
        sensitivity over *every* pair of neighbours (Chaudhuri, Monteleoni &
        Sarwate 2011, Cor. 8: ``2 C sqrt(R^2 + 1)``, see
        :func:`~sensampler.models._fits.logistic_worst_case`), and their
        statement gains a worst-case part (``privacy_.worst_case``). Other
        releases (the unshrunk fit, whose intercept is not penalised; ridge
        and linear regression, whose targets are unbounded; sufficient
        statistics) have no worst-case part, as ``selected_["worst case"]``
        says. ``None``: no clipping, no worst-case part. A bound whose squared
        norm, summed over the public and private rows, overflows a double is
        refused before any fit.
    worst_case_epsilon : float, optional
        Cap on the worst-case epsilon of a release that has a worst-case
        part: the noise is raised so that it holds (the mechanisms'
        ``worst_case_epsilon``); default 10 times ``epsilon``.
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seeds the population fit, the tuning, the choice and the sampler: a fixed int gives
        the same sensitivity for any ``n_jobs``. The noise of the private release
        always comes from fresh OS entropy, so two fits differ: the seed travels
        with the model (``get_params``, pickles), and noise drawn from it could
        be drawn again and subtracted from the released attributes.
    n_jobs : int or None, default None
        Processes for the estimator fits of the sampler (joblib; None defers to
        an enclosing ``joblib.parallel_config``, 1 without one), as in
        scikit-learn.

    Attributes
    ----------
    estimator_ : estimator
        The released model: the estimator fitted on the public data, its
        ``attributes`` replaced by the released ones.
    attributes_ : tuple of str
        The released attributes.
    sensitivity_ : SensitivityEstimate
        The sampled sensitivity of the concatenated attributes.
    mechanism_ : GaussianMechanism or LaplaceMechanism
        The mechanism that released them.
    privacy_ : PrivacyStatement
        What the release states: epsilon, delta and gamma (random DP), with a
        worst-case part (``privacy_.worst_case``, for every pair of
        neighbours) where ``bounds`` gives one; (0, 0)-DP when the public
        model is released. Under add/remove neighbours its name says that ``n``
        is published and the statement holds given it.
    population_ : Distribution
        The population the sensitivity was sampled from.
    selected_ : dict
        What was released and why: ``"candidate"`` (``"public model"``,
        ``"private fit"``, ``"private fit shrunk toward the public model, C=…"``,
        ``"sufficient statistics, penalty …"``), ``"reason"``,
        ``"candidates"``: each candidate's expected test score, its standard
        error and its standard deviation over the synthetic data sets, and
        ``"worst case"``: what holds for every pair of neighbours, or why
        nothing does, in words. When the public model wins nothing is read
        from the private data and ``privacy_`` states (0, 0)-DP: the choice
        reads the public data, the population, ``n`` and sensitivities sampled
        from the population only (``n`` is public under replace-one
        neighbours; under add-remove ones it is published, and the (0, 0)
        holds given it: 134 rows can release the public model and 135 a
        private fit). ``sensitivity_`` and
        ``mechanism_`` then describe the first private candidate, not
        released; an ``accountant`` passed to :meth:`fit` was charged its
        epsilon when the fit started, before the choice (so that a filter
        over budget refuses before any work).
    best_params_ : dict
        With ``tune``: the parameters chosen on the public data.
    tuning_results_ : list of dict
        With ``tune``: every candidate's parameters, sampled sensitivity and mean
        public score of its released model.
    n_features_in_, feature_names_in_
        As in scikit-learn.

    Notes
    -----
    **Hyperparameter search on private data consumes privacy.** Every ``fit`` on
    the private data is one release; ``GridSearchCV(PrivateEstimator(...))``
    fits once per candidate and fold, and choosing among them reads the private
    data again. Pass ``fit(X, y, accountant=...)`` (a filter refuses a fit over
    budget before any work, leaving the budget unspent), or use ``tune``, which
    searches on the public data and costs nothing.

    What is protected: the attributes released, and nothing else. The number of
    private records ``n`` is public (replace-one neighbours keep it; with
    ``neighbours="add-remove"`` the sampled sensitivity and the choice still
    read it, and the statement says it is published and holds given it; a
    dp_accounting ``DpEvent`` of it carries no name, so keep ``n`` with it); the
    class
    labels are the public data's, and a private label set that differs is
    refused after the fit was recorded, so whether the fit succeeds reveals, with
    no noise, whether every public class occurs in the private labels (one bit:
    relabelling the only private record of a class changes it);
    a ``Pipeline`` given as the estimator has its preprocessing steps fitted on
    the public data and its last step released (``estimator_`` is the pipeline
    with both); a ``PrivateEstimator`` placed inside a ``Pipeline`` sees
    whatever the earlier steps were fitted on, so fit those on public data.
    Error messages of scikit-learn about the private data are re-raised
    without the values they quote.

    **What the choice rests on.** The synthetic world takes the public model as
    the truth and the population's features as the covariates, so it measures
    how far the private rows, n of them, beat the public rows through the noise
    each candidate needs; it does not see the private data, and where the
    private data differ from the public ones (another population) it can pick
    a release that scores below the public model. The winner's sensitivity is
    sampled afresh when several sampled candidates were compared (keeping the
    run that won would favour a low draw and weaken gamma), or when the release
    takes more pairs than the comparisons (``m`` not given:
    :data:`RELEASE_PAIRS`). The accountant records a fit when it starts, so a
    fit that fails after the check has still spent its budget.

    scikit-learn's ``check_estimator`` applies except where
    :data:`SKLEARN_CHECKS_NOT_APPLICABLE` says: the public data fix the number of
    features, so the checks fitting on data of another width fail by design;
    releases are random, so checks comparing two unseeded fits cannot pass; and
    ``epsilon`` and ``delta`` have no default, which scikit-learn < 1.6 checks
    by building the estimator from its class alone.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); y = X @ [1.0, -2.0] + rng.normal(size=300)
    >>> model = PrivateEstimator(Ridge(alpha=1.0), epsilon=1.0, delta=1e-5,
    ...                          public=(X[:100], y[:100]), m=200, random_state=0)
    >>> model.fit(X[100:], y[100:]).predict(X[:2]).shape
    (2,)
    >>> model.selected_["candidate"], model.privacy_.epsilon  # 100 public rows suffice
    ('public model', 0.0)
    >>> forced = model.set_params(select="private").fit(X[100:], y[100:])
    >>> forced.privacy_.epsilon, forced.privacy_.gamma < 0.06
    (1.0, True)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "epsilon": [_sklearn_interval(EPSILON)],
        "delta": [_sklearn_interval(DELTA_RELEASE)],
        "gamma": [_sklearn_interval(PROBABILITY)],
        "public": [tuple],
        "population": [StrOptions(set(POPULATIONS)), Distribution],
        "attributes": [None, str, list, tuple],
        "norm": [None, StrOptions(set(ESTIMATOR_NORMS))],
        "mechanism": [StrOptions({"gaussian", "laplace"})],
        "m": [None, Interval(Integral, 1, None, closed="left")],
        "bound": [StrOptions(set(BOUNDS))],
        "tune": [None, dict],
        "augment": ["boolean"],
        "select": [StrOptions(set(SELECTIONS))],
        "fit_method": [StrOptions(set(FIT_METHODS))],
        "neighbours": [StrOptions(set(NEIGHBOUR_RELATIONS.values))],
        "bounds": [None, StrOptions({"public"}), Interval(Real, 0, None, closed="neither")],
        "worst_case_epsilon": [None, _sklearn_interval(EPSILON)],
        "random_state": [
            None,
            Interval(Integral, 0, None, closed="left"),
            np.random.Generator,
            np.random.SeedSequence,
        ],
        "n_jobs": [None, Integral],
    }

    def __init__(
        self,
        estimator,
        *,
        epsilon,
        delta,
        gamma=0.05,
        public=None,
        population="bootstrap",
        attributes=None,
        norm=None,
        mechanism="gaussian",
        m=None,
        bound="exact",
        tune=None,
        augment=False,
        select="auto",
        fit_method="auto",
        neighbours="replace-one",
        bounds="public",
        worst_case_epsilon=None,
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.delta = delta
        self.gamma = gamma
        self.public = public
        self.population = population
        self.attributes = attributes
        self.norm = norm
        self.mechanism = mechanism
        self.m = m
        self.bound = bound
        self.tune = tune
        self.augment = augment
        self.select = select
        self.fit_method = fit_method
        self.neighbours = neighbours
        self.bounds = bounds
        self.worst_case_epsilon = worst_case_epsilon
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------ scikit-learn
    @property
    def _estimator_type(self):  # scikit-learn < 1.6 reads it
        return getattr(self.estimator, "_estimator_type", None)

    def __sklearn_tags__(self):
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.non_deterministic = True
        tags.target_tags.required = True
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        return {"non_deterministic": True, "requires_y": True}

    # -------------------------------------------------------------- validation
    def _check_setup(self, X, y):
        """Validate everything before any spend or draw; return the pieces."""
        if self.public is None:
            raise ValueError(
                "public=(X_pub, y_pub) is required: PrivateEstimator fits its "
                "population model, and every attribute it does not release, on "
                "public data with the same columns as X (public rows, a previous "
                "release, data the custodian may publish); got public=None."
            )
        self._validate_params()
        n_jobs = check_n_jobs(self.n_jobs)
        if not isinstance(self.public, tuple) or len(self.public) != 2:
            raise TypeError(
                "public must be a tuple (X_pub, y_pub) of public data, got "
                f"public={type(self.public).__name__}."
            )
        try:
            X, y = _validate(self, X, y, reset=True)
        except (TypeError, ValueError) as exc:
            raise type(exc)(
                f"the private X, y were refused by scikit-learn: {scrub(exc)} (the "
                "rest of its message, which may quote private values, is withheld)"
            ) from None
        X_pub, y_pub = _validate(self, *self.public, reset=False)
        for name, target in (("y", y), ("public's y", y_pub)):
            if np.asarray(target).dtype.kind not in "biuf":
                raise TypeError(
                    f"{name} must hold numbers (a database row is features..., "
                    f"target), got {np.asarray(target).dtype} values."
                )
        norm = self.norm or ("l1" if self.mechanism == "laplace" else "l2")
        if self.mechanism == "laplace" and norm != "l1":
            raise ValueError(
                f"mechanism='laplace' needs norm='l1', got norm={self.norm!r}."
            )
        if self.mechanism == "laplace" and self.delta != 0:
            raise ValueError(
                "mechanism='laplace' is (epsilon, 0)-DP: delta must be 0, got "
                f"delta={self.delta!r}."
            )
        if self.mechanism == "gaussian" and self.delta == 0:
            raise ValueError(
                "mechanism='gaussian' needs 0 < delta < 1, got delta=0; use "
                "mechanism='laplace' for delta=0."
            )
        preprocessing = None
        if isinstance(self.estimator, Pipeline):
            if self.tune is not None:
                raise ValueError(
                    "tune is not supported with a Pipeline as the estimator, got "
                    f"tune={self.tune!r}: pass the last step's estimator with its "
                    "parameters tuned, and the preprocessing fitted on public data."
                )
            preprocessing = clone(Pipeline(self.estimator.steps[:-1])).fit(
                X_pub, y_pub
            )
            X_pub = np.asarray(preprocessing.transform(X_pub), dtype=float)
            try:
                X = np.asarray(preprocessing.transform(X), dtype=float)
            except (TypeError, ValueError) as exc:
                raise type(exc)(
                    "the pipeline's preprocessing, fitted on the public data, "
                    f"refused the private X: {scrub(exc)} (the rest of its message, "
                    "which may quote private values, is withheld)"
                ) from None
        width = (X.shape[1] + 1,)
        if isinstance(self.population, Distribution) and (
            tuple(self.population.record_shape) != width
        ):
            raise ValueError(
                f"population must draw rows of {width[0]} columns (features..., "
                f"target), got records of shape {self.population.record_shape}."
            )
        if isinstance(self.bounds, Real) and not np.isfinite(self.bounds):
            raise ValueError(
                "bounds must be 'public', a finite bound on the rows' feature norm "
                f"or None, got bounds={self.bounds!r}."
            )
        _check_row_bound(self.bounds, len(X) + len(X_pub))
        plan = sampling_plan(m=self.m, gamma=self.gamma, bound=self.bound)
        released = plan
        if self.m is None and plan.m < RELEASE_PAIRS:
            released = sampling_plan(m=RELEASE_PAIRS, gamma=self.gamma, bound=self.bound)
        grid = self._grid()
        model = clone(self._last()).set_params(**grid[0]) if grid else self._last()
        attributes = self._attribute_names(model)
        if self.fit_method == "statistics" and not self._statistics(model):
            raise ValueError(
                "fit_method='statistics' releases the sufficient statistics of a "
                "linear regression: it needs Ridge or LinearRegression with the "
                f"default attributes, got {type(model).__name__} and "
                f"attributes={self.attributes!r}."
            )
        return (
            X, y, X_pub, y_pub, norm, (plan, released), attributes, n_jobs, grid,
            preprocessing,
        )

    def _row_bounds(self, X_pub) -> Bounds | None:
        """``[0, R]``, the range of the rows' feature norms (``bounds``), or None."""
        if self.bounds is None:
            return None
        if self.bounds == "public":
            norms = np.linalg.norm(X_pub, axis=1)
            high, which = float(np.quantile(norms, ROW_BOUND_QUANTILE)), "median"
            if not high > 0:  # most public rows 0: the largest norm
                high, which = float(np.max(norms)), "largest"
            if not high > 0:  # every public row 0: no bound to take
                return None
            note = f"L2 norm of each row's features, up to the public rows' {which}"
            return Bounds(0.0, high, "population", note=note)
        return Bounds(0.0, float(self.bounds), "given", note="L2 norm of each row's "
                      "features, given")

    def _last(self):
        """The estimator released: the last step of a Pipeline, or the estimator."""
        if isinstance(self.estimator, Pipeline):
            return self.estimator.steps[-1][1]
        return self.estimator

    def _statistics(self, model) -> bool:
        """Whether ``model`` is released through its sufficient statistics."""
        if self.fit_method != "statistics" or self.attributes is not None:
            return False
        return type(model) in (Ridge, LinearRegression)

    def _grid(self) -> list[dict]:
        if self.tune is None:
            return []
        from sklearn.model_selection import ParameterGrid

        try:
            grid = list(ParameterGrid(self.tune))
            valid = self.estimator.get_params()
        except (TypeError, ValueError) as exc:
            raise type(exc)(
                f"tune must map the estimator's parameters to lists of values, got "
                f"tune={self.tune!r}: {exc}"
            ) from exc
        unknown = sorted(set(self.tune) - set(valid))
        if unknown or not grid:
            raise ValueError(
                f"tune must name parameters of {type(self.estimator).__name__} with "
                f"non-empty lists of values, got tune={self.tune!r}."
            )
        return grid

    def _attribute_names(self, model) -> tuple[str, ...]:
        if self.attributes is None:
            params = model.get_params() if hasattr(model, "get_params") else {}
            names = ("coef_",)
            if params.get("fit_intercept", True) is not False:
                names += ("intercept_",)
            return names
        names = (
            (self.attributes,)
            if isinstance(self.attributes, str)
            else tuple(self.attributes)
        )
        if not names or not all(
            isinstance(a, str) and a.endswith("_") and not a.startswith("_")
            for a in names
        ):
            raise ValueError(
                "attributes must name fitted attributes (ending in '_'), got "
                f"attributes={self.attributes!r}."
            )
        return names

    def _released_template(self, model, X_pub, y_pub, names):
        """``model`` fitted on the public data, checked to hold ``names``."""
        fitted = clone(model).fit(X_pub, y_pub)
        missing = [a for a in names if not hasattr(fitted, a)]
        if self.attributes is None and missing == ["intercept_"]:
            names = names[:1]
        elif missing:
            raise ValueError(
                f"attributes={self.attributes!r}: {type(model).__name__} fitted has "
                f"no attribute {missing[0]!r}."
            )
        _flat(fitted, names)  # arrays of numbers, or raise here
        return fitted, names

    def _probe(self, plan, norm) -> GaussianMechanism | LaplaceMechanism:
        """The release's mechanism with the planned gamma and a unit sensitivity:
        its statement is the release's (epsilon, delta, gamma), known before
        sampling; it validates epsilon and delta."""
        run = SamplingRun(
            None, plan.gamma, plan.rho, plan.bound, plan.m, plan.k,
            neighbours=self.neighbours,
        )
        unit = SensitivityValue(1.0, "sampled", run, norm, "planned")
        return self._mechanism(unit)

    def _mechanism(self, sensitivity):
        if self.mechanism == "laplace":
            return LaplaceMechanism(sensitivity, self.epsilon, self.worst_case_epsilon)
        return GaussianMechanism(
            sensitivity, self.epsilon, self.delta,
            worst_case_epsilon=self.worst_case_epsilon,
        )

    # -------------------------------------------------------------------- fit
    def fit(self, X, y, accountant=None):
        """Fit on the private data and release the chosen model.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, d)
            Private features.
        y : array-like of shape (n,)
            Private target.
        accountant : PrivacyAccountant or filter, optional
            Records this fit's release (``accountant.compose``) before any
            sampling; a filter over budget raises
            :class:`~sensampler.accounting.ExceededPrivacyBudgetError` and
            nothing is spent, sampled or fitted on the private data. The fit is
            recorded whichever candidate wins, the public-only model included;
            when the accountant is also the default filter, once. Another
            default filter records ``privacy_``, the public model's (0, 0)
            included, before the private data are fitted.

        Returns
        -------
        self

        Notes
        -----
        BLAS and OpenMP run on one thread during the fit
        (:func:`threadpoolctl.threadpool_limits`, restored afterwards): the fit
        runs many small matrix products, which threads slow down (measured on
        two busy cores: a ``LogisticRegression`` fit on 384 rows took 0.11 s
        with two BLAS threads, 0.005 s with one).
        """
        with one_thread():
            return self._fit(X, y, accountant)

    def _fit(self, X, y, accountant):
        """:meth:`fit`'s work (BLAS on one thread)."""
        (
            X, y, X_pub, y_pub, norm, (plan, release_plan), names, n_jobs, grid,
            preprocessing,
        ) = self._check_setup(X, y)
        if accountant is not None and not callable(getattr(accountant, "compose", None)):
            raise TypeError(
                "accountant must be a sensampler accountant or filter (with "
                f"compose), got {accountant!r}."
            )
        model = clone(self._last())
        template, names = self._released_template(
            model.set_params(**grid[0]) if grid else model, X_pub, y_pub, names
        )
        probe = self._probe(release_plan, norm)
        root = as_seed_sequence(self.random_state)
        # The fourth child once seeded the noise; kept so the others stay put.
        fit_seed, tune_seed, sample_seed, _ = root.spawn(4)
        (select_seed,) = root.spawn(1)
        classifier = is_classifier(self.estimator)
        # public rows that are the private ones, or a public sample too small for
        # the plan: refused before anything is spent
        check_not_private(
            np.column_stack([X_pub, y_pub]), np.column_stack([X, y]),
            "fitted on public=(X_pub, y_pub)",
        )
        if isinstance(self.population, Distribution):
            population = self.population
        else:
            population = _public_population(
                self.population, X_pub, y_pub, classifier, _seed(fit_seed)
            )
        if isinstance(population, PublicSample):
            check_not_private(population.data, np.column_stack([X, y]))
            population.check_plan(plan)
            population.check_plan(release_plan)
        n = check_count("n", len(X))
        if accountant is not None:  # raises, spending nothing, over budget
            accountant.compose(self._given_size(probe.privacy, n))
        fixed = (
            np.column_stack([X_pub, y_pub]).astype(float)
            if self.augment
            else np.empty((0, X.shape[1] + 1))
        )
        if grid:
            model = self._tune(
                grid, population, n, fixed, (X_pub, y_pub), names, norm, plan,
                tune_seed, n_jobs,
            )
            template, names = self._released_template(model, X_pub, y_pub, names)
        setting = _Setting(
            model, template, names, population, n, fixed, (X_pub, y_pub), norm,
            plan, n_jobs, classifier, self._row_bounds(X_pub), release_plan,
        )
        if self._statistics(model):
            estimate, mechanism, release = self._by_statistics(
                setting, sample_seed, select_seed
            )
        else:
            estimate, mechanism, release = self._by_output(
                setting, sample_seed, select_seed
            )
        statement = self._statement(None if release is None else mechanism, n)
        # a default filter records the statement (the size it holds given
        # included), once when it is the accountant too
        with charged_to(accountant, statement):
            if release is not None:  # the only step that reads the private data
                template = release(X, y)
        if preprocessing is not None:
            template = Pipeline(
                preprocessing.steps + [(self.estimator.steps[-1][0], template)]
            )
        self.estimator_ = template
        self.attributes_ = names
        self.population_ = population
        self.sensitivity_ = estimate
        self.mechanism_ = mechanism
        self.privacy_ = statement
        self.selected_["worst case"] = self._worst_case_words(model, release, setting)
        return self

    def _statement(self, mechanism, n: int) -> PrivacyStatement:
        """What the fit states: ``mechanism``'s statement, or (0, 0) for the
        public model (``None``), given ``n`` (:meth:`_given_size`)."""
        if mechanism is None:
            # The public model: a function of the public data, the population
            # fitted on them, n and random_state only (n is public under
            # replace-one neighbours, published under add-remove ones), so the
            # release is 0-DP given n.
            statement = PrivacyStatement(
                PUBLIC_RELEASE, 0.0, 0.0, rho=0.0, neighbours=self.neighbours
            )
        else:
            statement = mechanism.privacy
        return self._given_size(statement, n)

    def _given_size(self, statement: PrivacyStatement, n: int) -> PrivacyStatement:
        """``statement`` as the fit states and records it: under add/remove
        neighbours named with the size it holds given (:func:`size_words`; the
        sampled sensitivity, the choice among candidates and the noise all read
        ``n``, so the release publishes it), as ``release_statistic`` says."""
        if self.neighbours != "add-remove":
            return statement
        return replace(
            statement,
            mechanism=f"{statement.mechanism} ({size_words(self.neighbours, n)})",
        )

    def _worst_case_words(self, model, release, setting) -> str:
        """What the statement says for every pair of neighbours, in words."""
        if release is None:
            given = (
                f", given n ({size_words(self.neighbours, setting.n)})"
                if self.neighbours == "add-remove"
                else ""
            )
            return (
                "the public model reads no private data: 0-DP for every pair of "
                f"neighbours{given}"
            )
        worst = self.privacy_.worst_case
        if worst is not None:
            return (
                f"{format_dp(worst.epsilon, worst.delta)} for every pair of "
                f"neighbours: rows clipped to feature norm {setting.bounds.high:.6g}"
                " and an L2 penalty toward the public model (Chaudhuri, Monteleoni & "
                "Sarwate 2011, Cor. 8)"
            )
        if self._statistics(model):
            why = "sufficient statistics of unbounded rows and targets"
        elif type(model) is LogisticRegression and setting.bounds is None:
            why = "bounds=None: the rows are not clipped"
        elif type(model) is LogisticRegression:
            why = (
                "the unshrunk fit leaves its intercept unpenalised, so no strongly "
                "convex objective bounds it"
            )
        elif type(model) in (Ridge, LinearRegression):
            why = "the squared loss of unbounded targets is not Lipschitz"
        else:
            why = f"no bound is known for {type(model).__name__}"
        return f"no worst-case part: {why}; the statement is random DP only"

    def _sample(self, query, setting, seed, plan=None):
        """The sampled sensitivity of ``query`` under ``plan`` (default: the
        comparisons' plan, ``setting.plan``), with its worst case where the
        query has one and rows are clipped (``setting.bounds``); an
        order-dependence refusal of a fitted model is re-raised with what to do
        about it."""
        estimate = self._sample_only(query, setting, seed, plan or setting.plan)
        rule = getattr(query, "worst_case", None)
        if rule is None or setting.bounds is None:
            return estimate
        bounds = setting.bounds
        worst = rule(bounds.low, bounds.high, setting.n, self.neighbours, setting.norm)
        # the estimate checks that every sampled pair lies within the bound
        return replace(estimate, bounds=bounds, worst_case=worst)

    def _sample_only(self, query, setting, seed, plan):
        """:meth:`_sample` without the worst case."""
        try:
            return sample_sensitivity(
                query,
                setting.population,
                setting.n,
                m=plan.m,
                k=plan.k,
                norm=setting.norm,
                bound=plan.bound,
                neighbours=self.neighbours,
                random_state=seed,
                n_jobs=setting.n_jobs,
            )
        except ValueError as exc:
            if "depends on the order of the records" not in str(exc):
                raise
            name = type(self._last()).__name__
            raise ValueError(
                f"{name} fitted on training sets drawn from the public population "
                "changed its coefficients when the rows were reordered: its solver "
                "stops before it converges, as it does on unscaled features. "
                "Standardise the features with statistics of the public data, e.g. "
                f"PrivateEstimator(make_pipeline(StandardScaler(), {name}(...)), "
                "...), which fits the scaler on public=, or raise the estimator's "
                "max_iter."
            ) from exc

    def _fit_private(self, model, setting, X, y):
        """``model`` fitted on the private rows (after the public ones with
        ``augment``); scikit-learn's messages are re-raised without values."""
        fixed = setting.fixed
        try:
            return clone(model).fit(
                np.concatenate([fixed[:, :-1], X]), np.concatenate([fixed[:, -1], y])
            )
        except (TypeError, ValueError, ArithmeticError) as exc:
            kind = TypeError if isinstance(exc, TypeError) else ValueError
            raise kind(
                f"fitting {type(model).__name__} on the private data failed: "
                f"{scrub(exc)} (the rest of scikit-learn's message, which may quote "
                "private values, is withheld)"
            ) from None

    def _by_output(self, setting, sample_seed, select_seed):
        """Output perturbation: the private fit, or a fit shrunk toward the public
        model, released with its sampled sensitivity; or the public model."""
        model, names = setting.model, setting.names
        options = []
        if self.select != "shrunk":
            query = _Concatenated(model, names, setting.fixed)
            options.append(("private fit", model, self._sample(query, setting, sample_seed)))
        shrunk = self._shrunk_models(setting) if self.select != "private" else []
        seeds = select_seed.spawn(len(shrunk) + 2)
        for (label, candidate), seed in zip(shrunk, seeds):
            query = _Concatenated(candidate, names, setting.fixed, _worst_rule(candidate))
            options.append((label, candidate, self._sample(query, setting, seed)))
        if not options:
            raise ValueError(
                "select='shrunk' needs a model that can be shrunk toward the public "
                "one (LogisticRegression with an L2 penalty, Ridge, LinearRegression"
                f"), got {type(model).__name__}."
            )
        mechanisms = [self._mechanism(estimate) for _, _, estimate in options]
        candidates = [
            Candidate(label, self._noisy_build(candidate, setting, mechanism))
            for (label, candidate, _), mechanism in zip(options, mechanisms)
        ]
        index = self._choose(candidates, setting, seeds[-2])
        if index is None:  # the public model: nothing read from the private data
            return options[0][2], mechanisms[0], None
        label, chosen, estimate = options[index]
        if len(options) > 1 or setting.released is not setting.plan:
            # Sampled afresh, with the release's plan: keeping the run that won
            # a comparison of sampled sensitivities would favour a low draw and
            # weaken gamma.
            query = _Concatenated(chosen, names, setting.fixed, _worst_rule(chosen))
            estimate = self._sample(query, setting, seeds[-1], setting.released)
        mechanism = self._mechanism(estimate)

        def release(X, y):
            if setting.classifier and not np.array_equal(
                np.unique(y), setting.template.classes_
            ):
                raise ValueError(
                    "the private y must hold exactly the public classes "
                    f"{setting.template.classes_.tolist()!r}: the released model's "
                    "labels are public."
                )
            private = self._fit_private(chosen, setting, X, y)
            # Fresh OS entropy, never random_state: the seed travels with the
            # model (get_params, pickles), and noise drawn from it could be drawn
            # again and subtracted from the released attributes.
            released = mechanism.release(
                _flat(private, names), random_state=np.random.default_rng()
            )
            _write(setting.template, names, np.asarray(released, dtype=float))
            return setting.template

        return estimate, mechanism, release

    def _shrunk_models(self, setting) -> list[tuple[str, Any]]:
        """Fits pulled toward the public model's coefficients, strongest last
        (:data:`SHRINK_FACTORS`); none for an estimator we cannot shrink."""
        model, template = setting.model, setting.template
        params = model.get_params()
        fit_intercept = bool(params.get("fit_intercept", True))
        if type(model) is LogisticRegression:
            if (
                params.get("penalty") not in ("l2", "deprecated")
                or params.get("l1_ratio") not in (None, 0, 0.0)
                or params.get("class_weight") is not None
                or not np.isfinite(params["C"])
            ):
                return []
            bound = None if setting.bounds is None else setting.bounds.high
            return [
                (
                    f"private fit shrunk toward the public model, C={params['C'] * f:g}",
                    ShrunkLogisticRegression(
                        C=params["C"] * f,
                        coef=template.coef_,
                        intercept=template.intercept_,
                        fit_intercept=fit_intercept,
                        classes=template.classes_,
                        row_bound=bound,
                    ),
                )
                for f in SHRINK_FACTORS
            ]
        if type(model) in (Ridge, LinearRegression) and np.ndim(template.coef_) == 1:
            alpha = float(params.get("alpha", 1.0))
            return [
                (
                    f"private fit shrunk toward the public model, alpha={alpha / f:g}",
                    ShrunkRidge(
                        alpha=alpha / f, coef=template.coef_, fit_intercept=fit_intercept
                    ),
                )
                for f in SHRINK_FACTORS
            ]
        return []

    def _noisy_build(self, candidate, setting, mechanism):
        """How :func:`simulate_scores` builds ``candidate``'s release on synthetic
        data: fitted (centred on the synthetic public fit when it is a shrunk
        one), its attributes noised as the mechanism would."""
        names = setting.names

        def build(X_pub, y_pub, X_priv, y_priv, rng, shared):
            model = clone(candidate)
            if "coef" in model.get_params():
                public = shared["public"]
                centre = {"coef": public.coef_}
                if "intercept" in model.get_params():
                    centre["intercept"] = public.intercept_
                model.set_params(**centre)
            if self.augment:
                X_priv = np.concatenate([X_pub, X_priv])
                y_priv = np.concatenate([y_pub, y_priv])
            fitted = model.fit(X_priv, y_priv)
            flat = _flat(fitted, names)
            _write(fitted, names, flat + _noise(mechanism, flat.size, rng))
            return fitted

        return build

    def _choose(self, candidates, setting, seed) -> int | None:
        """Index of the candidate with the best expected score on synthetic data
        drawn from the public population, or None for the public model; sets
        ``selected_``. Reads no private data: only the public rows, the
        population, n and the candidates' noise scales."""
        from sklearn.exceptions import ConvergenceWarning

        model, (X_pub, y_pub) = setting.model, setting.public
        truth = setting.template
        noise_sd = 0.0
        if setting.classifier and not hasattr(truth, "predict_proba"):
            # labels of a classifier without probabilities: its own predictions,
            # replaced by a uniform label at its public error rate (at least 1/n)
            noise_sd = max(1.0 - float(truth.score(X_pub, y_pub)), 1.0 / len(y_pub))
        if not setting.classifier:
            residual = y_pub - truth.predict(X_pub)
            dof = max(len(y_pub) - X_pub.shape[1] - 1, 1)
            noise_sd = float(np.sqrt(np.sum(residual**2) / dof))
        pool = list(candidates)
        if self.select == "auto":

            def public_build(X_pub, y_pub, X_priv, y_priv, rng, shared):
                return shared["public"]

            pool.insert(0, Candidate("public model", public_build))
        pool = [_sharing_public(c, model) for c in pool]
        population = setting.population

        def features(size, rng):
            return population.sample(size, random_state=rng)[:, :-1]

        # one BLAS thread, as every fit of the sampling work (sensampler._lib.threads):
        # the same choice for any n_jobs, and small fits run faster so
        with warnings.catch_warnings(), one_thread():
            warnings.simplefilter("ignore", ConvergenceWarning)
            scores = simulate_scores(
                pool, truth, features, len(y_pub), setting.n, setting.classifier,
                noise_sd, np.random.default_rng(seed), SELECTION_REPEATS,
            )
        metric = "accuracy" if setting.classifier else "squared error"
        sign = 1.0 if setting.classifier else -1.0
        table = {
            c.name: {
                "expected " + metric: sign * float(np.mean(s)),
                "standard error": float(np.std(s, ddof=1) / np.sqrt(s.size)),
                "standard deviation": float(np.std(s)),
            }
            for c, s in zip(pool, scores)
            if s.size > 1
        }
        if not table:
            best = 0 if self.select != "auto" else 1
            reason = (
                "no synthetic data set drawn from the public population held every "
                "class: the private fit is released without a comparison"
            )
        else:
            best = int(np.argmax([np.mean(s) - np.std(s) for s in scores]))
            reason = (
                f"best expected test {metric} less one standard deviation "
                f"({table[pool[best].name]['expected ' + metric]:.4g} expected) "
                f"over {scores[0].size} pairs of synthetic public and private data "
                "sets drawn from the public population, each candidate released "
                "with its own noise; no private data read"
            )
        self.selected_ = {
            "candidate": pool[best].name,
            "reason": reason,
            "candidates": table,
        }
        if self.select == "auto":
            return None if best == 0 else best - 1
        return best

    def _by_statistics(self, setting, sample_seed, select_seed):
        """Sufficient-statistics perturbation of a linear regression: X^T X and
        X^T y released by one mechanism with their sampled sensitivity, the
        coefficients solved from them with a penalty (toward 0 or toward the
        public model) chosen on public data; or the public model."""
        model, (X_pub, y_pub) = setting.model, setting.public
        params = model.get_params()
        rms = float(np.sqrt(np.mean(np.square(y_pub))))
        stats = Statistics(
            X_pub.shape[1],
            bool(params.get("fit_intercept", True)),
            1.0 / rms if rms > 0 else 1.0,
        )
        query = additive(stats.record_map, name="sufficient statistics X^T X, X^T y")
        estimate = self._sample(query, setting, sample_seed, setting.released)
        mechanism = self._mechanism(estimate)
        spread = float(mechanism.scale) * np.sqrt(stats.p)
        alpha = float(params.get("alpha", 0.0))
        lams = sorted({alpha} | {c * spread for c in STATISTICS_PENALTIES})
        options = []
        for lam in lams:
            if self.select != "shrunk":
                options.append((f"sufficient statistics, penalty {lam:.4g}", lam, False))
            if self.select != "private":
                options.append(
                    (
                        f"sufficient statistics, penalty {lam:.4g} toward the public "
                        "model",
                        lam,
                        True,
                    )
                )
        fixed_sum = stats.record_map(setting.fixed).sum(axis=0)

        def solver(lam, toward):
            def build(X_pub, y_pub, X_priv, y_priv, rng, shared):
                if "noisy" not in shared:
                    rows = np.column_stack([X_priv, y_priv])
                    vector = stats.record_map(rows).sum(axis=0)
                    if self.augment:
                        vector += stats.record_map(np.column_stack([X_pub, y_pub])).sum(0)
                    shared["noisy"] = vector + _noise(mechanism, vector.size, rng)
                centre = shared["public"].coef_ if toward else None
                out = ShrunkRidge()
                out.coef_, out.intercept_ = stats.solve(shared["noisy"], lam, centre)
                return out

            return build

        candidates = [Candidate(label, solver(lam, toward)) for label, lam, toward in options]
        index = self._choose(candidates, setting, select_seed)
        if index is None:
            return estimate, mechanism, None
        _, lam, toward = options[index]
        template = setting.template
        centre = np.array(template.coef_, dtype=float) if toward else None

        def release(X, y):
            vector = stats.record_map(np.column_stack([X, y])).sum(axis=0)
            # Fresh OS entropy, never random_state (see _by_output).
            noisy = mechanism.release(vector, random_state=np.random.default_rng())
            coef, intercept = stats.solve(np.asarray(noisy) + fixed_sum, lam, centre)
            flat = np.concatenate([coef, [intercept]]) if len(setting.names) > 1 else coef
            _write(template, setting.names, flat)
            return template

        return estimate, mechanism, release

    def _tune(self, grid, population, n, fixed, public, names, norm, plan, seed, jobs):
        """The estimator with the candidate of ``grid`` whose released model scores
        best on held-out public rows (no private data read).

        Without ``augment``, a candidate is fitted on the other public rows; with
        it, on those and n rows drawn from the population (standing in for the
        private ones)."""
        from sklearn.model_selection import train_test_split

        X_fit, X_held, y_fit, y_held = train_test_split(
            *public, test_size=TUNING_HOLDOUT, random_state=_seed(seed)
        )
        if self.augment:
            stand_in = population.sample(n, random_state=seed.spawn(1)[0])
            X_fit = np.concatenate([X_fit, stand_in[:, :-1]])
            y_fit = np.concatenate([y_fit, stand_in[:, -1]])
        results = []
        for params, child in zip(grid, seed.spawn(len(grid))):
            model = clone(self.estimator).set_params(**params)
            sample_seed, noise_seed = child.spawn(2)
            estimate = sample_sensitivity(
                _Concatenated(model, names, fixed),
                population,
                n,
                m=plan.m,
                k=plan.k,
                norm=norm,
                bound=plan.bound,
                neighbours=self.neighbours,
                random_state=sample_seed,
                n_jobs=jobs,
            )
            fitted = model.fit(X_fit, y_fit)
            coef = _flat(fitted, names)
            mechanism = self._mechanism(estimate)
            rng = np.random.default_rng(noise_seed)
            scores = []
            for _ in range(TUNING_RELEASES):
                with exempt():  # public rows only: nothing to spend
                    _write(fitted, names, mechanism.release(coef, random_state=rng))
                scores.append(fitted.score(X_held, y_held))
            results.append(
                {
                    "params": params,
                    "sensitivity": estimate.sensitivity.value,
                    "mean_score": float(np.mean(scores)),
                }
            )
        best = max(range(len(results)), key=lambda i: results[i]["mean_score"])
        self.best_params_ = results[best]["params"]
        self.tuning_results_ = results
        return clone(self.estimator).set_params(**self.best_params_)

    # --------------------------------------------------------------- delegates
    def _checked(self, X):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return _validate(self, X, reset=False)

    @available_if(_delegate("predict"))
    def predict(self, X):
        """The released model's predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._checked(X)
        return self.estimator_.predict(X)

    @available_if(_delegate("predict_proba"))
    def predict_proba(self, X):
        """The released model's class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        X = self._checked(X)
        return self.estimator_.predict_proba(X)

    @available_if(_delegate("predict_log_proba"))
    def predict_log_proba(self, X):
        """The released model's log class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        X = self._checked(X)
        return self.estimator_.predict_log_proba(X)

    @available_if(_delegate("decision_function"))
    def decision_function(self, X):
        """The released model's decision function.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)

        Returns
        -------
        ndarray
        """
        X = self._checked(X)
        return self.estimator_.decision_function(X)

    @available_if(_delegate("score"))
    def score(self, X, y, sample_weight=None):
        """The released model's score (accuracy, R², ... as the estimator's).

        Parameters
        ----------
        X : array-like of shape (n_samples, d)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
        """
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        X = self._checked(X)
        return self.estimator_.score(X, y, **kwargs)

    @property
    def classes_(self) -> np.ndarray:
        """The class labels (the public data's)."""
        return self.estimator_.classes_
