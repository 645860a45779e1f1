"""The estimator :class:`PrivateEstimator`: scikit-learn's interface, the fit's
order of work (check everything, record the spend, tune, choose, release once)
and the delegates to the released model. What each step does lives beside it:
:mod:`._setup` (the checks), :mod:`._populations`, :mod:`._tune`,
:mod:`._select` (the choice among candidates), :mod:`._release` and
:mod:`._statement`; the package docstring (:mod:`sensampler.models`) says how
it all fits together."""

from __future__ import annotations

from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from .._lib.default_budget import charged_to
from .._lib.domains import (
    DELTA_RELEASE,
    EPSILON,
    ESTIMATOR_NORMS,
    INEQUALITIES,
    NEIGHBOUR_RELATIONS,
    PROBABILITY,
)
from .._lib.domains import Interval as Domain
from .._lib.threads import one_thread
from .._lib.validation import as_seed_sequence, check_count
from ..distributions import Distribution, PublicSample
from ..distributions.empirical import check_not_private
from ..estimate import SensitivityValue
from ..privacy import SamplingRun
from ..settings import ReleaseSettings
from ._populations import POPULATIONS, public_population
from ._release import by_output, by_statistics
from ._sampling import Setting
from ._select import SELECTIONS, choose
from ._setup import (
    ESTIMATOR_MECHANISMS,
    Inputs,
    check_setup,
    mechanism_for,
    released_step,
    released_template,
    uses_statistics,
    validate,
)
from ._statement import given_size, statement, worst_case_words
from ._tune import tune

__all__ = ["FIT_METHODS", "SKLEARN_CHECKS_NOT_APPLICABLE", "PrivateEstimator"]

#: Ways to fit the private model (``fit_method``).
FIT_METHODS = ("auto", "output", "statistics")

_FIXED_WIDTH = (
    "the public data fix the number of features: checks that fit on data of "
    "another width, or on one feature, fail by design"
)
_PUBLIC_LABELS = (
    "a classifier's labels are the public data's: checks that fit on labels of "
    "their own (other classes, continuous targets) are refused, after the fit is "
    "recorded"
)
_WITHHELD = (
    "scikit-learn's messages about the private data are re-raised with their "
    "values withheld, which the patterns the checks expect do not match"
)
#: Checks of scikit-learn's ``check_estimator`` that cannot apply, and why
#: (its ``expected_failed_checks``; the label checks apply to classifiers only).
SKLEARN_CHECKS_NOT_APPLICABLE: dict[str, str] = {
    **dict.fromkeys(
        (
            "check_classifier_data_not_an_array",
            "check_classifiers_classes",
            "check_classifiers_train",
            "check_decision_proba_consistency",
            "check_dtype_object",
            "check_estimators_dtypes",
            "check_estimators_fit_returns_self",
            "check_estimators_overwrite_params",
            "check_fit2d_1feature",
            "check_fit2d_1sample",
            "check_fit_check_is_fitted",
            "check_fit_idempotent",
            "check_n_features_in",
            "check_n_features_in_after_fitting",
            "check_positive_only_tag_during_fit",
            "check_readonly_memmap_input",
            "check_regressor_data_not_an_array",
            "check_regressors_int",
            "check_regressors_no_decision_function",
            "check_regressors_train",
        ),
        _FIXED_WIDTH,
    ),
    **dict.fromkeys(
        (
            "check_classifiers_regression_target",
            "check_dict_unchanged",
            "check_dont_overwrite_parameters",
            "check_f_contiguous_array_estimator",
            "check_fit2d_predict1d",
            "check_fit_score_takes_y",
            "check_supervised_y_2d",
        ),
        _PUBLIC_LABELS,
    ),
    **dict.fromkeys(
        ("check_estimators_empty_data_messages", "check_requires_y_none"), _WITHHELD
    ),
}


def _seed(child: np.random.SeedSequence) -> int:
    return int(child.generate_state(1)[0])


def _delegate(method: str):
    """``available_if`` check: the fitted (else the unfitted) estimator has ``method``."""

    def check(self):
        return hasattr(getattr(self, "estimator_", self.estimator), method)

    return check


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
        Privacy parameter of the release, ``> 0``. Required unless ``settings``
        is given.
    delta : float
        ``0 < delta < 1`` for the Gaussian mechanism; ``0`` for the Laplace one.
        Required unless ``settings`` is given.
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
        fewest that certify ``gamma`` with ``inequality`` for the comparisons among
        candidates (``select``, ``tune``), and :data:`RELEASE_PAIRS` (or the
        fewest, if more) for the released sensitivity, whose order statistic
        is then the smallest rank certifying ``gamma``: less noise at the same
        gamma.
    inequality : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's inequality, which certifies gamma
        (:func:`sensampler.sampling_plan`, whose ``bound`` it is).
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
    data_norm : "public", float or None, default "public"
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
    settings : ReleaseSettings, optional
        The privacy settings a release takes
        (:class:`~sensampler.settings.ReleaseSettings`), instead of the
        keywords: it supplies ``epsilon``, ``delta``, ``gamma``, ``mechanism``
        (``"gaussian"`` or ``"laplace"``), ``neighbours``,
        ``worst_case_epsilon`` and ``inequality``, and is refused together with
        any of them set away from its default (no precedence to guess). Its
        ``bounds``, a statistic's clipping interval, do not apply (the rows'
        bound is ``data_norm``): given or private bounds are refused. Without
        it the keywords are checked by building one such record in
        :meth:`fit`.
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
        neighbours) where ``data_norm`` gives one; (0, 0)-DP when the public
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
    and releases are random, so checks comparing two unseeded fits cannot pass.

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
        "epsilon": [None, _sklearn_interval(EPSILON)],
        "delta": [None, _sklearn_interval(DELTA_RELEASE)],
        "gamma": [_sklearn_interval(PROBABILITY)],
        "public": [tuple],
        "population": [StrOptions(set(POPULATIONS)), Distribution],
        "attributes": [None, str, list, tuple],
        "norm": [None, StrOptions(set(ESTIMATOR_NORMS.values))],
        "mechanism": [StrOptions(set(ESTIMATOR_MECHANISMS))],
        "m": [None, Interval(Integral, 1, None, closed="left")],
        "inequality": [StrOptions(set(INEQUALITIES.values))],
        "tune": [None, dict],
        "augment": ["boolean"],
        "select": [StrOptions(set(SELECTIONS))],
        "fit_method": [StrOptions(set(FIT_METHODS))],
        "neighbours": [StrOptions(set(NEIGHBOUR_RELATIONS.values))],
        "data_norm": [
            None, StrOptions({"public"}), Interval(Real, 0, None, closed="neither")
        ],
        "worst_case_epsilon": [None, _sklearn_interval(EPSILON)],
        "settings": [None, ReleaseSettings],
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
        epsilon=None,
        delta=None,
        gamma=0.05,
        public=None,
        population="bootstrap",
        attributes=None,
        norm=None,
        mechanism="gaussian",
        m=None,
        inequality="exact",
        tune=None,
        augment=False,
        select="auto",
        fit_method="auto",
        neighbours="replace-one",
        data_norm: str | float | None = "public",
        worst_case_epsilon=None,
        settings: ReleaseSettings | None = None,
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
        self.inequality = inequality
        self.tune = tune
        self.augment = augment
        self.select = select
        self.fit_method = fit_method
        self.neighbours = neighbours
        self.data_norm = data_norm
        self.worst_case_epsilon = worst_case_epsilon
        self.settings = settings
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------ scikit-learn
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
        inputs = check_setup(self, X, y)
        if accountant is not None and not callable(getattr(accountant, "compose", None)):
            raise TypeError(
                "accountant must be a sensampler accountant or filter (with "
                f"compose), got {accountant!r}."
            )
        root = as_seed_sequence(self.random_state)
        # The fourth child once seeded the noise; kept so the others stay put.
        fit_seed, tune_seed, sample_seed, _ = root.spawn(4)
        (select_seed,) = root.spawn(1)
        setting = self._setting(inputs, fit_seed)
        if accountant is not None:  # raises, spending nothing, over budget
            accountant.compose(
                given_size(self._probe(inputs), setting.n, setting.neighbours)
            )
        if inputs.grid:
            setting = self._tuned(setting, inputs, tune_seed)
        statistics = uses_statistics(self, setting.model)
        release_by = by_statistics if statistics else by_output
        estimate, mechanism, release = release_by(
            setting, sample_seed, select_seed, self._choose
        )
        stated = statement(
            None if release is None else mechanism, setting.n, setting.neighbours
        )
        template = setting.template
        # a default filter records the statement (the size it holds given
        # included), once when it is the accountant too
        with charged_to(accountant, stated):
            if release is not None:  # the only step that reads the private data
                template = release(inputs.X, inputs.y)
        if inputs.preprocessing is not None:
            template = Pipeline(
                inputs.preprocessing.steps + [(self.estimator.steps[-1][0], template)]
            )
        self.estimator_ = template
        self.attributes_ = setting.names
        self.population_ = setting.population
        self.sensitivity_ = estimate
        self.mechanism_ = mechanism
        self.privacy_ = stated
        self.selected_["worst case"] = worst_case_words(
            setting.model, release is not None, setting, stated, statistics
        )
        return self

    def _setting(self, inputs: Inputs, fit_seed) -> Setting:
        """What every candidate shares: the public fit, the population (fitted
        on the public rows, checked to be no copy of the private ones and large
        enough for the plans) and n; refusals here come before any spend."""
        X_pub, y_pub, X, y = inputs.X_pub, inputs.y_pub, inputs.X, inputs.y
        model = clone(released_step(self))
        if inputs.grid:
            model.set_params(**inputs.grid[0])
        template, names = released_template(
            model, X_pub, y_pub, inputs.names, self.attributes
        )
        classifier = is_classifier(self.estimator)
        # public rows that are the private ones, or a public sample too small for
        # the plan: refused before anything is spent
        check_not_private(
            np.column_stack([X_pub, y_pub]), np.column_stack([X, y]),
            "fitted on public=(X_pub, y_pub)",
        )
        population = self.population
        if not isinstance(population, Distribution):
            population = public_population(
                population, X_pub, y_pub, classifier, _seed(fit_seed)
            )
        if isinstance(population, PublicSample):
            check_not_private(population.data, np.column_stack([X, y]))
            population.check_plan(inputs.plan)
            population.check_plan(inputs.released)
        fixed = (
            np.column_stack([X_pub, y_pub]).astype(float)
            if self.augment
            else np.empty((0, X.shape[1] + 1))
        )
        return Setting(
            model, template, names, population, check_count("n", len(X)), fixed,
            (X_pub, y_pub), inputs.norm, inputs.plan, inputs.released,
            inputs.n_jobs, classifier, inputs.data_norm, inputs.settings.neighbours,
            self.select, self.augment, mechanism_for(inputs.settings),
            type(released_step(self)).__name__,
        )

    def _tuned(self, setting: Setting, inputs: Inputs, seed) -> Setting:
        """``setting`` with the estimator ``tune`` chooses on the public data."""
        self.best_params_, self.tuning_results_ = tune(
            self.estimator, inputs.grid, setting, seed
        )
        model = clone(self.estimator).set_params(**self.best_params_)
        template, names = released_template(
            model, inputs.X_pub, inputs.y_pub, setting.names, self.attributes
        )
        return replace(setting, model=model, template=template, names=names)

    def _probe(self, inputs: Inputs):
        """The release's statement with the planned gamma and a unit
        sensitivity: the release's (epsilon, delta, gamma), known before
        sampling."""
        plan = inputs.released
        run = SamplingRun(
            None, plan.gamma, plan.rho, plan.inequality, plan.m, plan.k,
            neighbours=inputs.settings.neighbours,
        )
        unit = SensitivityValue(1.0, "sampled", run, inputs.norm, "planned")
        return mechanism_for(inputs.settings)(unit).privacy

    def _choose(self, candidates, setting: Setting, seed) -> int | None:
        """Index of the candidate with the best expected score on synthetic data
        drawn from the public population, or None for the public model; sets
        ``selected_`` (:func:`._select.choose`)."""
        index, self.selected_ = choose(candidates, setting, seed)
        return index

    # --------------------------------------------------------------- delegates
    def _checked(self, X):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return validate(self, X, reset=False)

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
