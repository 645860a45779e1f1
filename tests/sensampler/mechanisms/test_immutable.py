"""Mechanisms are immutable: no attribute can be set or deleted once built, the
statement is computed once, and ``recalibrate`` builds a new mechanism."""

import copy
import inspect
import pickle
import re

import numpy as np
import pytest

import sensampler.mechanisms as mechanisms
from sensampler import queries, sample_sensitivity
from sensampler.distributions import Normal
from sensampler.mechanisms import (
    CatastropheMechanism,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    ExponentialQuantileMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponse,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)

FACTORIES = {
    LaplaceMechanism: lambda: LaplaceMechanism(1.0, 1.0),
    GaussianMechanism: lambda: GaussianMechanism(1.0, 0.5, 1e-5),
    RenyiGaussianMechanism: lambda: RenyiGaussianMechanism(1.0, 5.0, 0.5),
    ZCDPGaussianMechanism: lambda: ZCDPGaussianMechanism(1.0, 0.1),
    ExponentialMechanism: lambda: ExponentialMechanism(1.0, 1.0),
    ExponentialQuantileMechanism: lambda: ExponentialQuantileMechanism(
        0.5, (0.0, 1.0), 1.0
    ),
    RandomizedResponse: lambda: RandomizedResponse(3, 1.0),
    CatastropheMechanism: lambda: CatastropheMechanism(1.0, 1.0, 1e-3),
    DiscreteLaplaceMechanism: lambda: DiscreteLaplaceMechanism(
        1.0, 0.5, granularity=0.1
    ),
    DiscreteGaussianMechanism: lambda: DiscreteGaussianMechanism(
        1.0, rho=0.5, granularity=0.1
    ),
}
PER_COORDINATE = {
    LaplaceMechanism: lambda: LaplaceMechanism([1.0, 2.0], 1.0),
    GaussianMechanism: lambda: GaussianMechanism([1.0, 2.0], 0.5, 1e-5),
    CatastropheMechanism: lambda: CatastropheMechanism([1.0, 2.0], 1.0, 1e-3),
}


def _concrete_subclasses(cls):
    for sub in cls.__subclasses__():
        if not inspect.isabstract(sub) and sub.__module__.startswith("sensampler."):
            yield sub
        yield from _concrete_subclasses(sub)


def test_every_mechanism_class_is_covered():
    public = {getattr(mechanisms, name) for name in mechanisms.__all__}
    classes = {c for c in _concrete_subclasses(Mechanism) if c in public}
    assert classes == set(FACTORIES)


def _attribute_names(mech):
    # every attribute set at construction, public and private, plus new ones
    return sorted(vars(mech)) + ["epsilon", "delta", "sigma2", "brand_new"]


@pytest.mark.parametrize("cls", FACTORIES, ids=lambda c: c.__name__)
def test_no_attribute_can_be_set_or_deleted(cls):
    mech = FACTORIES[cls]()
    statement = mech.privacy
    before = {k: copy.copy(v) for k, v in vars(mech).items()}
    for name in _attribute_names(mech):
        message = (
            f"{cls.__name__} is immutable: cannot set {name!r} after construction"
        )
        with pytest.raises(AttributeError, match=re.escape(message)) as info:
            setattr(mech, name, 0.01)
        assert "recalibrate(" in str(info.value)
        with pytest.raises(AttributeError, match="cannot delete"):
            delattr(mech, name)
    assert mech.privacy is statement
    assert vars(mech).keys() == before.keys()
    for key, value in before.items():
        np.testing.assert_equal(vars(mech)[key], value)


def test_issue_reproduction_gaussian():
    # On 7c9407d this left sigma = 7.03 while stating (0.01, 1e-5)-DP.
    m = GaussianMechanism(1.0, 0.5, 1e-5)
    sigma = m.sigma
    with pytest.raises(AttributeError, match="'epsilon'"):
        m.epsilon = 0.01
    assert m.sigma == sigma and m.privacy.epsilon == 0.5 and m.epsilon == 0.5


def test_issue_reproduction_laplace():
    m = LaplaceMechanism(1.0, 1.0)
    with pytest.raises(AttributeError, match="'epsilon'"):
        m.epsilon = 0.001
    assert m.scale == 1.0 and m.privacy.epsilon == 1.0


@pytest.mark.parametrize("cls", PER_COORDINATE, ids=lambda c: c.__name__)
def test_exposed_arrays_are_read_only(cls):
    mech = PER_COORDINATE[cls]()
    for array in (mech.scale, mech.sensitivity):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1e-9


EXPOSED_ARRAYS = {
    "Laplace.scale": lambda: LaplaceMechanism([1.0, 2.0], 1.0),
    "Laplace.sensitivity": lambda: LaplaceMechanism([1.0, 2.0], 1.0),
    "Gaussian.sigma": lambda: GaussianMechanism([1.0, 2.0], 0.5, 1e-5),
    "Gaussian.scale": lambda: GaussianMechanism([1.0, 2.0], 0.5, 1e-5),
    "Gaussian.sensitivity": lambda: GaussianMechanism([1.0, 2.0], 0.5, 1e-5),
    "RenyiGaussian.sigma": lambda: RenyiGaussianMechanism([1.0, 2.0], 5.0, 0.5),
    "ZCDPGaussian.sigma": lambda: ZCDPGaussianMechanism([1.0, 2.0], 0.1),
    "Catastrophe.scale": lambda: CatastropheMechanism([1.0, 2.0], 1.0, 1e-3),
    "Catastrophe.sensitivity": lambda: CatastropheMechanism([1.0, 2.0], 1.0, 1e-3),
    "DiscreteLaplace.sensitivity": lambda: DiscreteLaplaceMechanism(
        [1.0, 2.0], 0.5, granularity=0.1
    ),
}


@pytest.mark.parametrize("name", EXPOSED_ARRAYS)
def test_exposed_arrays_cannot_be_made_writable_again(name):
    # numpy lets the owner of an array's data set writeable back to True: an
    # array the mechanism kept and handed out could then be written, changing
    # the noise under an unchanged statement (scale[:] = 1e-9: no noise).
    mech = EXPOSED_ARRAYS[name]()
    attribute = name.split(".")[1]
    array = getattr(mech, attribute)
    before = array.copy()
    with pytest.raises(ValueError, match="WRITEABLE"):
        array.flags.writeable = True
    # what the view shows is a copy: writing it never reaches the mechanism
    base = array.base
    base.flags.writeable = True
    base[:] = 1e-9
    np.testing.assert_array_equal(getattr(mech, attribute), before)


def test_a_scale_written_through_the_flag_does_not_reach_the_release():
    m = LaplaceMechanism(np.array([1.0, 1.0]), 1.0)
    for array in (m.scale, m.scale.base):
        try:
            array.flags.writeable = True
            array[:] = 1e-9
        except ValueError:
            pass
    out = m.release(np.zeros(2), random_state=0)
    assert np.min(np.abs(out)) > 1e-6, (m.privacy, out)


def test_arguments_are_kept_as_given_not_as_later_changed():
    sensitivity = np.array([1.0, 2.0])
    mech = LaplaceMechanism(sensitivity, 1.0)
    sensitivity[0] = 100.0  # the caller's array, changed afterwards
    np.testing.assert_array_equal(mech.recalibrate(epsilon=2.0).sensitivity, [1, 2])


@pytest.mark.parametrize("cls", FACTORIES, ids=lambda c: c.__name__)
def test_privacy_is_computed_once(cls):
    mech = FACTORIES[cls]()
    assert mech.privacy is mech.privacy


@pytest.mark.parametrize("cls", FACTORIES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "clone",
    [pickle.loads, copy.copy, copy.deepcopy],
    ids=["pickle", "copy", "deepcopy"],
)
def test_copies_stay_frozen_with_an_equal_statement(cls, clone):
    mech = FACTORIES[cls]()
    other = clone(pickle.dumps(mech)) if clone is pickle.loads else clone(mech)
    assert other.privacy == mech.privacy
    assert str(other.privacy) == str(mech.privacy)
    if mech.privacy.rdp is not None:
        assert other.privacy.rdp(3.0) == mech.privacy.rdp(3.0)
    with pytest.raises(AttributeError, match="immutable"):
        other.epsilon = 1e-3


RECALIBRATIONS = {
    LaplaceMechanism: {"epsilon": 0.25},
    GaussianMechanism: {"epsilon": 0.25, "delta": 1e-6},
    RenyiGaussianMechanism: {"epsilon_bar": 0.25},
    ZCDPGaussianMechanism: {"rho": 0.05},
    ExponentialMechanism: {"epsilon": 0.25},
    ExponentialQuantileMechanism: {"epsilon": 0.25},
    RandomizedResponse: {"epsilon": 0.25},
    CatastropheMechanism: {"delta": 1e-4},
    DiscreteLaplaceMechanism: {"epsilon": 0.25},
    DiscreteGaussianMechanism: {"rho": 0.25},
}


@pytest.mark.parametrize("cls", FACTORIES, ids=lambda c: c.__name__)
def test_recalibrate_builds_a_new_mechanism(cls):
    mech = FACTORIES[cls]()
    statement = mech.privacy
    changes = RECALIBRATIONS[cls]
    new = mech.recalibrate(**changes)
    assert type(new) is cls and new is not mech
    assert mech.privacy is statement  # the original is unchanged
    built = cls(**{**mech._arguments, **changes})  # as __init__ builds it
    assert new.privacy == built.privacy
    for name, value in changes.items():
        # the secure mechanisms state their parameter after rounding the noise up
        assert getattr(new, name) == pytest.approx(value, rel=1e-9)
    assert new.privacy != statement


def test_recalibrate_goes_through_init_checks():
    mech = GaussianMechanism(1.0, 0.5, 1e-5)
    with pytest.raises(ValueError, match=re.escape("epsilon must be > 0.0")):
        mech.recalibrate(epsilon=-1.0)
    with pytest.raises(TypeError, match="takes no argument 'epsilonn'"):
        mech.recalibrate(epsilonn=1.0)
    classic = mech.recalibrate(variant="classic")
    assert classic.privacy.mechanism == "Gaussian (classic)"
    assert classic.sigma > mech.sigma


def test_recalibrate_keeps_a_sampled_sensitivity_and_its_run():
    # a recalibration must never turn a sampled sensitivity into a global one
    est = sample_sensitivity(queries.mean, Normal(), 50, gamma=0.1, random_state=0)
    mech = LaplaceMechanism(est, 1.0)
    new = mech.recalibrate(epsilon=0.5)
    assert new.privacy.source == "sampled"
    assert new.privacy.run == mech.privacy.run and new.privacy.gamma > 0
    assert new.scale == 2 * mech.scale


def test_subclasses_are_frozen_too():
    class Shifted(LaplaceMechanism):
        def __init__(self, sensitivity, epsilon, shift=0.0):
            super().__init__(sensitivity, epsilon)
            self.shift = shift

    mech = Shifted(1.0, 1.0, shift=2.0)
    with pytest.raises(AttributeError, match="Shifted is immutable"):
        mech.shift = 3.0
    with pytest.raises(AttributeError, match="Shifted is immutable"):
        mech._scale = 1e-9
    assert mech.recalibrate(shift=5.0).shift == 5.0


@pytest.mark.parametrize("cls", FACTORIES, ids=lambda c: c.__name__)
def test_the_statement_and_its_curve_are_frozen_too(cls):
    statement = FACTORIES[cls]().privacy
    with pytest.raises(AttributeError):
        statement.epsilon = 1e-3
    if statement.rdp is not None:
        with pytest.raises(AttributeError):
            statement.rdp.function = abs
        # the curve does not hold the mechanism: nothing to reach through it
        assert not isinstance(getattr(statement.rdp.function, "__self__", None), Mechanism)
