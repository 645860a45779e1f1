"""How mechanisms read a sensitivity's provenance and state it."""

import math
import re
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from sensampler import SensitivitySampler, queries, sample_sensitivity
from sensampler.accounting import PrivacyFilter, RenyiAccountant, ZCDPAccountant
from sensampler.bounds import Bounds
from sensampler.distributions import Empirical, GaussianMixture, MultivariateNormal
from sensampler.estimate import SensitivityValue
from sensampler.mechanisms import (
    CatastropheMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.mechanisms._base import (
    LARGEST_NOISE_SCALE,
    UNIT_DRAW_BOUND,
    resolve_sensitivity,
)
from sensampler.norms import L1SensitivityNorm
from sensampler.privacy import PrivacyLeakWarning, PrivacyStatement, SamplingRun

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


@pytest.fixture(scope="module")
def est():
    return sample_sensitivity(queries.mean, HEIGHTS, 500, gamma=0.05, random_state=0)


def test_a_mechanism_states_a_privacy_statement():
    assert isinstance(LaplaceMechanism(1.0, 1.0).privacy, PrivacyStatement)


def test_accepted_norms_are_declared_once_per_mechanism():
    assert LaplaceMechanism.accepted_norms == ("l1", "coordinate")
    for cls in (GaussianMechanism, RenyiGaussianMechanism, ZCDPGaussianMechanism):
        assert cls.accepted_norms == ("l2", "l1", "coordinate")
    assert ExponentialMechanism.accepted_norms == ("linf", "l2", "l1", "coordinate")


def test_an_estimate_gives_its_order_statistic_and_run(est):
    s = resolve_sensitivity(est, ("l1",), "M")
    assert (s.value, s.norm, s.source, s.run) == (
        est.sensitivity.value,
        "l1",
        "sampled",
        est.run,
    )
    value = resolve_sensitivity(3 * est.sensitivity + 1, ("l1",), "M")
    assert value.source == "sampled" and value.run == est.run


@pytest.mark.parametrize(
    "number",
    [2, 2.0, np.float32(2.0), np.int64(2), Fraction(2), Decimal("2"), np.array(2.0)],
    ids=repr,
)
def test_any_real_number_is_a_global_bound(number):
    s = resolve_sensitivity(number, ("l1",), "M")
    assert (s.value, s.norm, s.source, s.run) == (2.0, None, "global", None)
    statement = LaplaceMechanism(number, 1.0).privacy
    assert statement.guaranteed and statement.gamma == 0.0


def test_arrays_are_global_per_coordinate_bounds_and_not_frozen_in_place():
    given = np.array([1.0, 2.0])
    s = resolve_sensitivity(given, ("coordinate",), "M")
    assert s.per_coordinate and s.source == "global" and given.flags.writeable
    assert not s.value.flags.writeable


@pytest.mark.parametrize("bad", ["1", b"1", None, True, np.bool_(True), {"a": 1}])
def test_non_numbers_are_refused_naming_sensitivity(bad):
    with pytest.raises(TypeError, match="^sensitivity must be a number"):
        LaplaceMechanism(bad, 1.0)


def test_several_parts_must_be_indexed():
    pop = MultivariateNormal([0, 0], np.eye(2))
    parts = sample_sensitivity(
        lambda db: (db.mean(axis=0)[0], db.mean(axis=0)[1]),
        pop,
        20,
        m=30,
        random_state=0,
    )
    with pytest.raises(TypeError, match=re.escape("index a part")):
        LaplaceMechanism(parts, 1.0)
    assert LaplaceMechanism(parts[0], 1.0).privacy.run == parts.run


def test_a_value_norm_is_checked_when_known():
    run = SamplingRun("r", 0.05)
    with pytest.raises(ValueError, match="needs a sensitivity in the l1 or coordinate"):
        LaplaceMechanism(SensitivityValue(1.0, "sampled", run, "l2"), 1.0)
    assert LaplaceMechanism(SensitivityValue(1.0, "sampled", run), 1.0).privacy.gamma


def test_the_source_documents_unpacking_keeps_gamma():
    # Before: `sensitivity, mean = ...` gave a plain float and "epsilon=0.5-DP".
    sensitivity, mean = SensitivitySampler(random_state=0).sample_sensitivity(
        queries.mean, L1SensitivityNorm(), HEIGHTS, 500, gamma=0.05
    )
    mech = LaplaceMechanism(sensitivity, 0.5)
    assert mech.privacy.source == "sampled"
    assert mech.privacy.gamma == sensitivity.run.gamma > 0.04
    assert "except with probability gamma=" in str(mech.privacy)
    assert "over the data drawn from the population model" in str(mech.privacy)
    f = PrivacyFilter(1.0)
    f.spend(mech)
    assert f.gamma == sensitivity.run.gamma


def _derived(est):
    return {
        "2 * mean": lambda: 2 * est.mean,
        "mean + 0.0": lambda: est.mean + 0.0,
        "mean + 2 sd": lambda: est.mean + 2 * est.samples.std(),
        "G_(k) - 0.01": lambda: est.sensitivity - 0.01,
        "G_(k) / 2": lambda: est.sensitivity / 2,
        "typical(2)": lambda: est.typical(2.0),
    }


@pytest.mark.parametrize(
    "name",
    [
        "2 * mean",
        "mean + 0.0",
        "mean + 2 sd",
        "G_(k) - 0.01",
        "G_(k) / 2",
        "typical(2)",
    ],
)
def test_typical_and_derived_values_state_no_guarantee_and_are_refused(est, name):
    mech = LaplaceMechanism(_derived(est)[name](), 0.5)
    assert not mech.privacy.guaranteed
    assert "no privacy guarantee" in str(mech.privacy)
    for accountant in (PrivacyFilter(10.0), RenyiAccountant(), ZCDPAccountant()):
        with pytest.raises(ValueError, match="carries no privacy guarantee"):
            accountant.compose(mech)
        assert accountant.count == 0 and accountant.ledger == ()


def test_a_plain_number_from_a_typical_value_warns_then_is_global(est):
    with pytest.warns(PrivacyLeakWarning):
        number = np.float64(est.mean)
    statement = LaplaceMechanism(number, 0.5).privacy
    assert statement.source == "global" and statement.guaranteed


def test_float_of_the_sampled_value_is_global_and_warns(est):
    with pytest.warns(PrivacyLeakWarning):
        number = float(est.sensitivity)
    assert LaplaceMechanism(number, 0.5).privacy.source == "global"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert LaplaceMechanism(est.sensitivity.value, 0.5).privacy.gamma == 0.0


def test_mechanism_base_declares_release_and_privacy():
    # privacy is computed once, from _privacy_statement, by the base class
    assert {"release", "_privacy_statement"} <= Mechanism.__abstractmethods__
    with pytest.raises(TypeError):
        Mechanism()


def test_check_release_validates_without_drawing():
    mech = LaplaceMechanism([1.0, 2.0], 1.0)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    value, gen = mech.check_release([3.0, 4.0], random_state=rng)
    assert gen is rng and rng.bit_generator.state == state
    np.testing.assert_array_equal(value, [3.0, 4.0])
    with pytest.raises(TypeError, match="random_state must be None, an int"):
        mech.check_release([3.0, 4.0], random_state="x")
    with pytest.raises(ValueError, match="value must have the shape"):
        mech.check_release([3.0], random_state=rng)


def test_catastrophe_keeps_the_base_signature():
    mech = CatastropheMechanism(1.0, 1.0, 0.5)
    with pytest.raises(TypeError):
        mech.release(1.0, 7)  # used to return 7, "the data"
    outs = [mech.release(1.0, random_state=s) for s in range(200)]
    assert 1.0 in outs  # the exact value, published on the catastrophic event
    given = CatastropheMechanism(1.0, 1.0, 0.5, data="db")
    assert "db" in [given.release(1.0, random_state=s) for s in range(20)]
    assert "x" in [given.release(1.0, data="x", random_state=s) for s in range(20)]


def test_catastrophe_has_no_renyi_or_zcdp_guarantee():
    mech = CatastropheMechanism(1.0, 1.0, 1e-6)
    assert not isinstance(mech, LaplaceMechanism)
    assert not hasattr(mech, "renyi_epsilon")  # inherited 0.619 at alpha = 2 before
    assert mech.privacy.rdp is None and mech.privacy.rho is None
    assert (mech.privacy.epsilon, mech.privacy.delta) == (1.0, 1e-6)


@pytest.mark.parametrize("bad", ["x", "1.5", {}, [[1.0], [2.0, 3.0]], object()])
def test_a_value_that_is_no_number_is_refused_naming_value(bad):
    message = f"value must be a number or an array of numbers, got {bad!r}."
    with pytest.raises(TypeError, match=re.escape(message)):
        LaplaceMechanism(1.0, 0.5).check_release(bad, random_state=0)


def test_a_value_beyond_a_double_is_refused_naming_value():
    with pytest.raises(ValueError, match=re.escape("value must be finite, got")):
        LaplaceMechanism(1.0, 0.5).release(10**400, random_state=0)


def test_pure_dp_zcdp_is_the_smaller_valid_parameter():
    from sensampler.mechanisms._base import pure_dp_zcdp

    # epsilon^2 / 2 below 2, epsilon above (epsilon-DP is epsilon-zCDP too)
    assert pure_dp_zcdp(1.0) == 0.5
    assert pure_dp_zcdp(2.0) == 2.0
    assert pure_dp_zcdp(3.0) == 3.0
    assert pure_dp_zcdp(3.0, 8.0) == 9.0 / 8.0
    # the square would overflow
    assert pure_dp_zcdp(1e308) == 1e308
    assert pure_dp_zcdp(1e308, 8.0) == 1e308


@pytest.mark.parametrize("mechanism", [LaplaceMechanism, ExponentialMechanism])
def test_an_empty_per_coordinate_sensitivity_is_refused(mechanism):
    message = "sensitivity must hold at least one coordinate, got sensitivity=()."
    with pytest.raises(ValueError, match=re.escape(message)):
        mechanism((), 1.0)


@pytest.mark.parametrize(
    "build",
    [
        lambda: LaplaceMechanism(5e307, 0.5),  # scale 1e308
        lambda: LaplaceMechanism([1.0, 5e307], 0.5),  # per coordinate
        lambda: GaussianMechanism(2e307, 0.5, 1e-5),  # sigma about 1.6e308
        lambda: LaplaceMechanism(  # the worst-case floor: 2e305 / 0.005
            sample_sensitivity(
                queries.mean, Empirical([171.0]), 500, gamma=0.05,
                bounds=Bounds.given(0.0, 1e308), random_state=0,
            ),
            0.001,
            worst_case_epsilon=0.005,
        ),
    ],
)
def test_a_scale_whose_draws_overflow_is_refused_before_drawing(build):
    # Before: a finite scale this large was accepted and a release was inf one
    # time in six (Laplace of scale 1e308: a draw beyond 1.8 scales); now refused,
    # as its scale times the largest draw numpy returns overflows.
    with pytest.raises(ValueError, match="a draw of its noise can overflow a double"):
        build()


def test_the_largest_scale_a_release_may_use_draws_finite_noise():
    scale = LARGEST_NOISE_SCALE
    mech = LaplaceMechanism(scale * 0.5, 0.5)
    assert mech.scale == scale
    # the largest unit draws numpy returns: Laplace -log of 2^-52, a normal's
    # ziggurat tail r + 53 ln 2 / r
    assert 52 * math.log(2) < UNIT_DRAW_BOUND
    assert 3.6541528853610088 + 53 * math.log(2) / 3.6541528853610088 < UNIT_DRAW_BOUND
    assert np.isfinite(scale * 52 * math.log(2) * 1.7)
    out = mech.release(np.zeros(20000), random_state=0)
    assert np.all(np.isfinite(out))
    with pytest.raises(ValueError, match="can overflow a double"):
        LaplaceMechanism(math.nextafter(scale, math.inf) * 0.5, 0.5)
