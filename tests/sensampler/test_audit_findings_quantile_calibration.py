"""An outside audit of the quantile calibration's records: hand-made
:class:`QuantileCalibration` s and mutation of a calibrated mechanism. Each test
is an attempt to make the mechanism state more privacy than holds."""

import copy
import dataclasses
import pickle
from fractions import Fraction

import numpy as np
import pytest
from sensampler.distributions import Normal, PublicSample

from sensampler._lib.validation import as_seed_sequence
from sensampler.mechanisms import ExponentialQuantileMechanism
from sensampler.quantile_calibration import (
    calibrate_quantile,
    check_calibration,
    plain_scale,
)


@pytest.fixture(scope="module")
def cal():
    return calibrate_quantile(0.5, (130, 210), 1.0, Normal(170, 10), 300, gamma=0.05,
                              m=300, random_state=0)


def _mech(calibration, neighbours="replace-one"):
    return ExponentialQuantileMechanism(0.5, (130, 210), calibration.epsilon,
                                        neighbours=neighbours, calibration=calibration)


def test_a_hand_made_scale_above_the_largest_candidate_is_refused(cal):
    # before: a scale of 50 was taken, stating a worst case of 100-DP for a
    # mechanism documented as at most 4 epsilon-DP for every pair
    with pytest.raises(ValueError, match="above 4 times the plain"):
        _mech(dataclasses.replace(cal, scale=50.0))
    top = 4 * plain_scale(1.0, 1.0)  # the largest a candidate may be
    assert _mech(dataclasses.replace(cal, scale=top)).worst_case_epsilon == 4.0
    with pytest.raises(ValueError, match="above 4 times the plain"):
        _mech(dataclasses.replace(cal, scale=float(np.nextafter(top, 9.0))))
    # add/remove: utility sensitivity max(q, 1 - q) = 1/2, plain scale epsilon
    other = calibrate_quantile(0.5, (130, 210), 1.0, Normal(170, 10), 300,
                               gamma=0.05, m=300, neighbours="add-remove",
                               random_state=0)
    assert Fraction(other.scale) <= 4 * Fraction(1.0)
    with pytest.raises(ValueError, match="above 4 times the plain"):
        _mech(dataclasses.replace(other, scale=4.5), "add-remove")


def test_a_hand_made_run_of_gamma_0_is_refused(cal):
    # before: accepted, stating "epsilon=1-DP, except with probability gamma=0"
    # at a sampled scale whose worst case is above epsilon
    run = dataclasses.replace(cal.run, gamma=0.0)
    with pytest.raises(ValueError, match="run.gamma must be > 0"):
        dataclasses.replace(cal, run=run)


def test_a_hand_made_run_without_its_order_statistic_is_refused(cal):
    # before: released=() passed (the check read "at most one")
    with pytest.raises(ValueError, match="run.released must hold"):
        dataclasses.replace(cal, run=dataclasses.replace(cal.run, released=()))
    with pytest.raises(ValueError, match="run.released must hold"):
        dataclasses.replace(cal, run=dataclasses.replace(cal.run, released=(2.0,)))
    with pytest.raises(TypeError, match="population must be a str"):
        dataclasses.replace(cal, population=3)


def test_mutation_copies_and_the_calibrations_n(cal):
    mech = _mech(cal)
    for name, value in (("epsilon", 5.0), ("calibration", None), ("q", 0.9)):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(mech, name, value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cal.scale = 5.0
    for clone in (pickle.loads(pickle.dumps(mech)), copy.deepcopy(mech)):
        assert clone.privacy == mech.privacy and clone.scale == mech.scale
    with pytest.raises(ValueError, match="sampled for databases of n=300"):
        mech.release(np.full(299, 170.0), random_state=1)
    # the calibration of another epsilon, q or relation is refused
    for change in (dict(epsilon=0.5), dict(q=0.4), dict(neighbours="add-remove")):
        args = dict(q=0.5, bounds=(130, 210), epsilon=1.0, calibration=cal) | change
        with pytest.raises(ValueError, match="calibration was made for"):
            ExponentialQuantileMechanism(**args)


def test_a_public_sample_keeps_the_smallest_scale_of_its_posterior_runs():
    # gamma for this public sample: every posterior population's run must pass
    pub = PublicSample(np.random.default_rng(2).normal(170, 10, 60))
    cal = calibrate_quantile(0.5, (130, 210), 0.5, pub, 300, gamma=0.05, m=400,
                             random_state=3)
    plan = check_calibration(0.5, (130, 210), 0.5, pub, 300, gamma=0.05, m=400)[3]
    alone = [
        calibrate_quantile(0.5, (130, 210), 0.5, population, 300, gamma=0.05, m=400,
                           random_state=seed)
        for population, seed in pub.populations(plan, as_seed_sequence(3))
    ]
    assert len(alone) > 1 and all(c is not None for c in alone)
    assert cal.scale == min(c.scale for c in alone)
    assert cal.run.released[0] >= max(c.run.released[0] for c in alone if
                                      c.scale == cal.scale)
    assert cal.population == pub.basis(plan) and "60 rows" in cal.population
