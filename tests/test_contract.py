"""The public contract of DESIGN.md: names that code outside the repository imports."""

import inspect

import numpy as np


def test_distributions_contract():
    from sensampler.distributions import GaussianMixture, Normal

    mix = GaussianMixture(np.array([[178, 7], [162, 6.5]]), np.ones(2) / 2)
    assert mix.sample(5, random_state=0).shape == (5,)
    assert Normal().sample(3).shape == (3,)


def test_sampler_contract():
    from sensampler import (  # noqa: F401
        SensitivityEstimate,
        SensitivityEstimates,
        SensitivitySampler,
        SensitivityValue,
        queries,
        sample_sensitivity,
        sampling_plan,
    )
    from sensampler.distributions import GaussianMixture
    from sensampler.norms import L1SensitivityNorm, L2SensitivityNorm  # noqa: F401

    plan = sampling_plan(m=None, gamma=0.05, k=None, inequality="exact")
    assert {"m", "k", "gamma", "rho", "inequality"} <= set(vars(plan))
    params = inspect.signature(sample_sensitivity).parameters
    for name in (
        "query",
        "population",
        "n",
        "gamma",
        "m",
        "k",
        "norm",
        "inequality",
        "random_state",
        "n_jobs",
    ):
        assert name in params
    mix = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    est = sample_sensitivity(
        queries.mean, mix, 10, gamma=0.1, norm="l1", random_state=0
    )
    assert isinstance(est, SensitivityEstimate)
    for attr in ("sensitivity", "mean", "m", "k", "gamma", "rho", "samples"):
        getattr(est, attr)
    sensitivity, mean = est
    assert sensitivity.run is mean.run is est.run  # unpacking keeps the run
    assert sensitivity.gamma == est.gamma and sensitivity.value == est.sensitivity
    sensitivity, mean = SensitivitySampler().sample_sensitivity(
        queries.identity, L1SensitivityNorm(), mix, 1, m_sample_size=None, gamma=0.05
    )
    assert sensitivity.source == "sampled" and mean.source == "typical"
    assert callable(queries.quantile(0.5)) and callable(queries.identity)


def test_mechanisms_and_accounting_contract():
    from sensampler.accounting import (
        ExceededPrivacyBudgetError,
        PrivacyFilter,
        RenyiAccountant,
        ZCDPAccountant,
        advanced_composition,
        basic_composition,
    )
    from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism

    lap = LaplaceMechanism(1.0, 0.5)
    assert lap.scale == 2.0
    gauss = GaussianMechanism(1.0, 0.5, 1e-5, variant="analytic")
    assert gauss.sigma > 0 and isinstance(lap.release(1.0, random_state=0), float)
    assert len(advanced_composition(0.1, 0.0, 10, 1e-5)) == 2
    assert basic_composition(0.1)
    f = PrivacyFilter(1.0, 1e-5, rule="auto")
    f.spend(0.5, delta=0.0)
    assert f.spent[0] == 0.5 and f.remaining[0] == 0.5
    assert issubclass(ExceededPrivacyBudgetError, ValueError)
    for acc in (RenyiAccountant(orders=None), ZCDPAccountant()):
        acc.compose(gauss, count=2)
        assert acc.epsilon(1e-5) > 0
    assert ZCDPAccountant().rho == 0.0


def test_every_public_n_jobs_defaults_to_none():
    # One vocabulary (issue 26): n_jobs=None defers to an enclosing
    # joblib.parallel_config, as in scikit-learn; it was 1 in three functions.
    from sensampler import audit, models, sample_sensitivity
    from sensampler.app.experiments import (
        error_vs_epsilon,
        run_batch,
        sensitivity_sweep,
    )
    from sensampler.app.release import release_statistic, release_statistics

    for function in (
        sample_sensitivity, audit.audit_estimate, audit.compare_populations,
        error_vs_epsilon, sensitivity_sweep, run_batch, release_statistic, release_statistics,
        models.PrivateEstimator,
    ):
        parameter = inspect.signature(function).parameters["n_jobs"]
        assert parameter.default is None, function
