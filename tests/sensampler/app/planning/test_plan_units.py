"""A person-level plan (settings.privacy_unit): planned as a person-level
release is made, from the model of a person alone."""

import numpy as np
import pytest
from scipy import stats

from sensampler.app.planning import plan_release
from sensampler.app.release import release_statistic
from sensampler.distributions import LogNormal, Persons

MODEL = Persons(stats.geom(0.3), LogNormal(2.0, 0.8), cap=8)


def test_a_person_level_plan_is_the_person_level_releases():
    """One sampling run's plan is the release's on the same seed: the same
    sensitivity and worst case, said of one person's rows and n persons."""
    plan = plan_release("sum", MODEL, 300, epsilon=1.0, privacy_unit="person",
                        runs=1, random_state=0)
    people = MODEL.sample(300, random_state=1)
    present = ~np.isnan(people)
    ids = np.repeat(np.arange(300), present.sum(axis=1))
    r = release_statistic(people[present], "sum", MODEL, epsilon=1.0, random_state=0,
                          privacy_unit=ids)
    assert plan.sensitivity == pytest.approx(float(r.estimate.sensitivity.value))
    assert plan.worst_case_epsilon == pytest.approx(r.statement.worst_case.epsilon)
    assert plan.privacy_unit == "person"
    assert "(one person's rows; n=300 persons" in plan.guarantee
    assert plan.text().startswith("sum of n=300 persons")


@pytest.mark.parametrize(
    "query, population, match",
    [
        ("median-of-totals", MODEL, "not planned in this version"),
        ("median", MODEL, "person-level query"),
        ("sum", "normal:loc=0,scale=1", "population model of a person"),
    ],
)
def test_a_person_level_plan_refuses_before_any_work(query, population, match):
    with pytest.raises(ValueError, match=match):
        plan_release(query, population, 300, epsilon=1.0, privacy_unit="person")


@pytest.mark.slow
def test_a_plan_at_epsilon_is_made_at_the_cap_the_release_chooses():
    """Issue 40: with no cap given, a release cuts the model of a person at the
    L of least expected error; a plan at the same epsilon plans that release:
    the same sensitivity and worst case on the same seed."""
    model = Persons(stats.geom(0.3), LogNormal(2.0, 0.8))  # no cap given
    people = model.sample(300, random_state=1)
    present = ~np.isnan(people)
    ids = np.repeat(np.arange(300), present.sum(axis=1))
    r = release_statistic(people[present], "sum", model, epsilon=1.0, random_state=0,
                          privacy_unit=ids)
    plan = plan_release("sum", model, 300, epsilon=1.0, privacy_unit="person",
                        runs=1, random_state=0)
    assert plan.sensitivity == pytest.approx(float(r.estimate.sensitivity.value))
    assert plan.worst_case_epsilon == pytest.approx(r.statement.worst_case.epsilon)


@pytest.mark.slow
def test_a_plan_for_a_target_error_is_made_at_the_cap_the_release_chooses():
    """Issue 40: a plan for a target error returns an epsilon; the release at
    that epsilon cuts the model of a person at the L of least expected error
    there, so the plan must be of that release (its L, and on the same seed its
    sensitivity), not of one at the model's own cap."""
    from sensampler.app.release._units import least_error_cap
    from sensampler.settings import ReleaseSettings

    model = Persons(stats.geom(0.3), LogNormal(2.0, 0.8))  # no cap given
    plan = plan_release("sum", model, 300, target_error=300.0, privacy_unit="person",
                        runs=1, random_state=0)
    at = ReleaseSettings.build(epsilon=plan.epsilon, privacy_unit="person")
    chosen = least_error_cap(model, ["sum"], 300, at)
    assert chosen.record_shape[0] < model.record_shape[0]  # a cap was chosen
    again = plan_release("sum", model, 300, epsilon=plan.epsilon, privacy_unit="person",
                         runs=1, random_state=0)  # planned at that L
    assert plan.sensitivity == pytest.approx(again.sensitivity)
    assert plan.expected_error == pytest.approx(300.0, rel=1e-6)
    people = model.sample(300, random_state=1)
    present = ~np.isnan(people)
    ids = np.repeat(np.arange(300), present.sum(axis=1))
    r = release_statistic(people[present], "sum", model, epsilon=plan.epsilon,
                          random_state=0, privacy_unit=ids)
    assert plan.sensitivity == pytest.approx(float(r.estimate.sensitivity.value))
