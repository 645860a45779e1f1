"""Statements as dp_accounting events and back: round trips through
dp_accounting's RDP and PLD accountants against sensampler's own."""

import re

import pytest

dpa = pytest.importorskip("dp_accounting")
from dp_accounting import NeighboringRelation, dp_event  # noqa: E402

from sensampler import queries, sample_sensitivity  # noqa: E402
from sensampler.accounting import PLDAccountant, RenyiAccountant  # noqa: E402
from sensampler.distributions import Normal  # noqa: E402
from sensampler.mechanisms import (  # noqa: E402
    CatastropheMechanism,
    DiscreteGaussianMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.privacy import (  # noqa: E402
    PrivacyStatement,
    format_upper,
    statement_from_dp_event,
)

SPECIAL = NeighboringRelation.REPLACE_SPECIAL


def test_events_of_each_kind_of_statement():
    gauss = GaussianMechanism(2.0, 0.5, 1e-5)
    assert gauss.privacy.to_dp_event() == dp_event.GaussianDpEvent(gauss.sigma / 2.0)
    assert LaplaceMechanism(2.0, 0.5).privacy.to_dp_event() == dp_event.LaplaceDpEvent(
        4.0 / 2.0
    )
    per = LaplaceMechanism([1.0, 0.0, 8.0], 1.0)  # the still coordinate drops out
    event = per.privacy.to_dp_event()
    assert isinstance(event, dp_event.ComposedDpEvent) and len(event.events) == 2
    assert ZCDPGaussianMechanism(1.0, 0.1).privacy.to_dp_event() == (
        dp_event.GaussianDpEvent(ZCDPGaussianMechanism(1.0, 0.1).sigma)
    )
    discrete = DiscreteGaussianMechanism(1.0, rho=0.5, granularity=0.5)
    assert discrete.privacy.to_dp_event() == dp_event.ZCDpEvent(0.5)
    expo = ExponentialMechanism(1.0, 1.0)  # bounded range: 1/8-zCDP
    assert expo.privacy.to_dp_event() == dp_event.ZCDpEvent(0.125)
    still = LaplaceMechanism([0.0, 0.0], 1.0)  # no coordinate can move
    assert still.privacy.to_dp_event() == dp_event.NoOpDpEvent()


def test_an_epsilon_delta_statement_has_no_event():
    with pytest.raises(ValueError, match="no event for a general"):
        CatastropheMechanism(1.0, 1.0, 1e-6).privacy.to_dp_event()


def test_gamma_is_refused_unless_the_caller_counts_it():
    est = sample_sensitivity(queries.mean, Normal(), 50, gamma=0.1, random_state=0)
    statement = LaplaceMechanism(est, 1.0).privacy
    message = (
        f"Laplace holds, except with probability gamma={format_upper(statement.gamma, 4)} over "
        "the data drawn from the population model; a DpEvent cannot carry gamma"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        statement.to_dp_event()
    # scale per unit of sensitivity: 1 / epsilon
    assert statement.to_dp_event(allow_gamma=True) == dp_event.LaplaceDpEvent(1.0)
    with pytest.raises(TypeError, match="allow_gamma must be True or False"):
        statement.to_dp_event(allow_gamma=1)


def test_no_guarantee_no_event():
    statement = PrivacyStatement("x", 1.0, 0.0, source="typical")
    with pytest.raises(ValueError, match="guarantees nothing"):
        statement.to_dp_event(allow_gamma=True)


@pytest.mark.parametrize(
    "mechanism",
    [
        GaussianMechanism(2.0, 0.5, 1e-5),
        LaplaceMechanism([1.0, 2.0], 1.0),
        LaplaceMechanism(1.0, 0.3),
    ],
    ids=["gaussian", "laplace-vector", "laplace"],
)
def test_dp_accounting_accountants_agree_with_ours(mechanism):
    event = mechanism.privacy.to_dp_event()
    ours_rdp, ours_pld = RenyiAccountant(), PLDAccountant()
    ours_rdp.compose(mechanism, count=10)
    ours_pld.compose(mechanism, count=10)
    rdp = dpa.rdp.RdpAccountant(neighboring_relation=SPECIAL)
    pld = dpa.pld.PLDAccountant(neighboring_relation=SPECIAL)
    rdp.compose(event, 10)
    pld.compose(event, 10)
    # different order grids and discretisations: agreement to 1%, and our
    # accountants never report less than dp_accounting's (both upper bounds)
    assert ours_rdp.epsilon(1e-6) == pytest.approx(rdp.get_epsilon(1e-6), rel=1e-2)
    assert ours_pld.epsilon(1e-6) == pytest.approx(pld.get_epsilon(1e-6), rel=1e-2)


@pytest.mark.parametrize(
    "mechanism",
    [GaussianMechanism(2.0, 0.5, 1e-5), LaplaceMechanism(1.0, 0.3)],
    ids=["gaussian", "laplace"],
)
def test_round_trip_keeps_the_noise_and_the_numbers(mechanism):
    statement = mechanism.privacy
    back = statement_from_dp_event(statement.to_dp_event(), relation="replace-one")
    assert back.noise == statement.noise and back.gamma == 0.0
    assert back.epsilon_for(1e-6) == pytest.approx(statement.epsilon_for(1e-6), rel=1e-9)
    assert back.to_dp_event() == statement.to_dp_event()
    for acc in (RenyiAccountant(), PLDAccountant()):
        twin = type(acc)()
        acc.compose(statement, count=5)
        twin.compose(back, count=5)
        assert twin.epsilon(1e-6) == pytest.approx(acc.epsilon(1e-6), rel=1e-9)


def test_add_remove_events_are_converted_by_group_privacy():
    # an add/remove noise multiplier of 4 protects replace-one pairs as 2 does
    event = dp_event.GaussianDpEvent(4.0)
    add_remove = statement_from_dp_event(event, relation="add-remove")
    assert add_remove.noise.scales == (2.0,)
    assert add_remove.rho == pytest.approx(1 / 8)
    zc = statement_from_dp_event(dp_event.ZCDpEvent(0.1), relation="add-remove")
    assert zc.rho == pytest.approx(0.4)
    lap = statement_from_dp_event(dp_event.LaplaceDpEvent(2.0), relation="add-remove")
    assert lap.epsilon == 1.0
    with pytest.raises(ValueError, match="relation must be one of"):
        statement_from_dp_event(event, relation="replace")
    with pytest.raises(TypeError):
        statement_from_dp_event(event)  # the relation must be said


@pytest.mark.parametrize(
    "event, exc, message",
    [
        (dp_event.GaussianDpEvent(0.0), ValueError, "noise_multiplier must be > 0.0"),
        (dp_event.LaplaceDpEvent(-1.0), ValueError, "noise_multiplier must be > 0.0"),
        (dp_event.ZCDpEvent(-3.0), ValueError, "rho must be >= 0.0"),
        (dp_event.NonPrivateDpEvent(), ValueError, "no single statement for a NonPrivate"),
        (
            dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(1.0), 3),
            ValueError,
            "with count=event.count",
        ),
        ("gaussian", TypeError, "event must be a dp_accounting DpEvent"),
    ],
)
def test_bad_events_are_refused_by_name(event, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        statement_from_dp_event(event, relation="replace-one")


def test_noop_and_zcdp_with_xi():
    noop = statement_from_dp_event(dp_event.NoOpDpEvent(), relation="replace-one")
    assert (noop.epsilon, noop.delta, noop.rdp(2.0)) == (0.0, 0.0, 0.0)
    zc = statement_from_dp_event(dp_event.ZCDpEvent(0.1, 0.5), relation="replace-one")
    assert zc.rho is None and zc.rdp(2.0) == pytest.approx(0.7)
    with pytest.raises(ValueError, match="xi > 0 has no stated group privacy"):
        statement_from_dp_event(dp_event.ZCDpEvent(0.1, 0.5), relation="add-remove")


def _add_remove_laplace(epsilon=1.0):
    est = sample_sensitivity(
        queries.mean, Normal(), 50, gamma=0.1, neighbours="add-remove", random_state=0
    )
    return LaplaceMechanism(est, epsilon).privacy


def test_an_add_remove_statement_needs_its_relation_named():
    # issue 28: an add/remove Laplace statement with epsilon 1 became
    # LaplaceDpEvent(1.0), the replace-one event of epsilon 1 (its replace-one
    # epsilon is 2).
    statement = _add_remove_laplace()
    message = (
        "Laplace holds for add-remove neighbours, and a DpEvent does not carry the "
        "relation (mixed with replace-one events it would understate epsilon): pass "
        "neighbours='replace-one' to convert it, or neighbours='add-remove' for an "
        "accountant of add/remove events only."
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        statement.to_dp_event(allow_gamma=True)
    converted = statement.to_dp_event(allow_gamma=True, neighbours="replace-one")
    assert converted == dp_event.LaplaceDpEvent(0.5)  # scale per replace-one unit
    kept = statement.to_dp_event(allow_gamma=True, neighbours="add-remove")
    assert kept == dp_event.LaplaceDpEvent(1.0)
    with pytest.raises(ValueError, match="implies no add/remove statement"):
        LaplaceMechanism(1.0, 1.0).privacy.to_dp_event(neighbours="add-remove")
    with pytest.raises(ValueError, match="neighbours must be None, 'replace-one'"):
        statement.to_dp_event(allow_gamma=True, neighbours="add/remove")
    # gamma is still refused unless counted by the caller (doubled by the conversion)
    with pytest.raises(ValueError, match="a DpEvent cannot carry gamma"):
        statement.to_dp_event(neighbours="replace-one")


def test_mixing_relations_in_dp_accounting_cannot_understate_epsilon():
    add_remove = _add_remove_laplace(1.0)  # replace-one epsilon 2
    replace_one = LaplaceMechanism(1.0, 1.0).privacy  # epsilon 1
    pld = dpa.pld.PLDAccountant(neighboring_relation=SPECIAL)
    pld.compose(add_remove.to_dp_event(allow_gamma=True, neighbours="replace-one"))
    pld.compose(replace_one.to_dp_event())
    # pure DP composes to 1 + 2 = 3 (basic composition is tight for the Laplace
    # pair at delta -> 0); dp_accounting's PLD gives 3 up to its discretisation
    assert pld.get_epsilon(1e-12) == pytest.approx(3.0, rel=1e-6)
    assert pld.get_epsilon(1e-12) > 2.9


def test_a_person_level_event_needs_an_accountant_of_persons():
    """A DpEvent carries no privacy unit: a person-level statement's event,
    composed with record-level ones, would be read as one about a record, which
    it is not as it is. Before, to_dp_event gave it silently; now it needs
    privacy_unit="person" (the accountant holds person-level events only), and a
    record-level statement has no event for such an accountant."""
    laplace = dict(noise=LaplaceMechanism(1.0, 0.5).privacy.noise)
    person = PrivacyStatement("m", 0.5, 0.0, privacy_unit="person", **laplace)
    with pytest.raises(ValueError, match="one person's rows.*privacy_unit='person'"):
        person.to_dp_event()
    with pytest.raises(ValueError, match="one person's rows"):
        person.to_dp_event(privacy_unit="record")
    assert person.to_dp_event(privacy_unit="person") == dp_event.LaplaceDpEvent(2.0)
    record = PrivacyStatement("m", 0.5, 0.0, **laplace)
    assert record.to_dp_event(privacy_unit="record") == record.to_dp_event()
    with pytest.raises(ValueError, match="implies no person-level"):
        record.to_dp_event(privacy_unit="person")
    with pytest.raises(ValueError, match="privacy_unit"):
        record.to_dp_event(privacy_unit="household")
    added = PrivacyStatement("m", 0.5, 0.0, neighbours="add-remove",
                             privacy_unit="person", **laplace)
    with pytest.raises(ValueError, match="one person's rows"):
        added.to_dp_event(neighbours="replace-one")
    assert added.to_dp_event(neighbours="replace-one", privacy_unit="person") == (
        dp_event.LaplaceDpEvent(1.0)
    )
