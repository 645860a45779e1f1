"""Accountants, filters and budget files hold one privacy unit: neither a
record-level statement nor a person-level one implies the other as it is."""

import numpy as np
import pytest
from scipy import stats

from sensampler.accounting import PLDAccountant, PrivacyFilter
from sensampler.app.budget_file import BudgetFile
from sensampler.app.release import release_statistic
from sensampler.distributions import LogNormal, Persons
from sensampler.privacy import PrivacyStatement

from .test_relations import ACCOUNTANTS as RELATION_ACCOUNTANTS
from .test_relations import IDS as RELATION_IDS

# the accountants of the relations' tests, and the PLD accountant
ACCOUNTANTS = [*RELATION_ACCOUNTANTS, PLDAccountant]
IDS = [*RELATION_IDS, "pld"]


def _laplace(privacy_unit):
    return PrivacyStatement("Laplace", 0.5, 0.0, rho=0.125, privacy_unit=privacy_unit)


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_person_level_statements_refuse_a_record_level_one(make):
    """A record-level guarantee implies no person-level one: once an accountant
    holds person-level statements, one about one record is refused, recording
    nothing (before, every accountant composed both as if they were one)."""
    acc = make()
    acc.compose(_laplace("person"))
    assert acc.privacy_unit == "person"
    with pytest.raises(ValueError, match="about one record.*one person's rows"):
        acc.compose(_laplace("record"))
    with pytest.raises(ValueError, match="about one record"):
        acc.compose_all([_laplace("person"), _laplace("record")])
    assert acc.count == 1 and acc.privacy_unit == "person"


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_record_level_statements_refuse_a_person_level_one(make):
    """A person-level statement is no record-level one as it is: removing one
    of a person's rows changes that person's group (a remove and an add, group
    privacy with k = 2), and its gamma is about pairs of persons, which no
    conversion turns into pairs of records. Before, a record-level accountant
    took person-level statements as they were, an unsound composition."""
    acc = make()
    assert acc.privacy_unit is None
    acc.compose(_laplace("record"))
    with pytest.raises(ValueError, match="about one person's rows.*about one record"):
        acc.compose(_laplace("person"))
    with pytest.raises(ValueError, match="two steps"):
        acc.compose_all([_laplace("record"), _laplace("person")])
    assert acc.count == 1 and acc.privacy_unit == "record"
    assert [e.privacy_unit for e in acc.ledger] == ["record"]


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_one_unit_composes_and_spends_as_numbers_join_either(make):
    """Statements of one unit compose; a spend given as numbers states no
    relation and joins the ledger it is recorded in."""
    acc = make()
    acc.compose(_laplace("person"))
    acc.compose(_laplace("person"))
    assert acc.count == 2 and acc.privacy_unit == "person"
    assert acc.ledger[1].to_statement().privacy_unit == "person"


MODEL = Persons(stats.geom(0.4), LogNormal(1.0, 0.5), cap=6)


@pytest.fixture(scope="module")
def rows():
    people = MODEL.sample(200, random_state=2)
    counts = (~np.isnan(people)).sum(1)
    return people[~np.isnan(people)], np.repeat(np.arange(200), counts)


def test_a_filter_of_person_level_releases_refuses_a_row_level_one(rows):
    values, ids = rows
    budget = PrivacyFilter(5.0, rule="basic")
    release_statistic(values, "sum", MODEL, epsilon=0.5, budget=budget,
                      random_state=0, privacy_unit=ids)
    with pytest.raises(ValueError, match="about one record"):
        release_statistic(values, "sum", "lognormal:mu=1,sigma=0.5", epsilon=0.5,
                          budget=budget, random_state=0)
    assert budget.count == 1 and budget.privacy_unit == "person"


def test_a_budget_file_keeps_the_privacy_unit_and_refuses_the_other(rows, tmp_path):
    """A budget file's ledger was "about one record" and took person-level
    releases as they were (unsound: see above); its lines now keep the unit,
    and a file holds one, refusing a release about the other before any work."""
    values, ids = rows
    path = tmp_path / "budget.json"
    release_statistic(values, "mean", MODEL, epsilon=0.5,
                      budget=BudgetFile(path, epsilon=5.0),
                      random_state=0, privacy_unit=ids)
    text = path.read_text()
    assert '"privacy_unit": "person"' in text
    with pytest.raises(ValueError, match="about one record.*one person's rows"):
        release_statistic(values, "mean", "lognormal:mu=1,sigma=0.5", epsilon=0.5,
                          budget=str(path), random_state=0)
    assert path.read_text() == text
    spent = BudgetFile(path).filter()
    assert spent.count == 1 and spent.privacy_unit == "person"
    assert spent.ledger[0].to_statement().privacy_unit == "person"


def test_a_record_level_budget_file_refuses_a_person_level_release(rows, tmp_path):
    """The other direction, for a file (an old file, with no privacy_unit key,
    is about one record)."""
    values, ids = rows
    path = tmp_path / "budget.json"
    release_statistic(values, "mean", "lognormal:mu=1,sigma=0.5", epsilon=0.5,
                      budget=BudgetFile(path, epsilon=5.0), random_state=0)
    text = path.read_text()
    assert "privacy_unit" not in text
    with pytest.raises(ValueError, match="about one person's rows.*two steps"):
        release_statistic(values, "mean", MODEL, epsilon=0.5, budget=str(path),
                          random_state=0, privacy_unit=ids)
    assert path.read_text() == text


def test_a_record_level_filter_refuses_a_person_level_release_before_sampling(
    rows, monkeypatch
):
    """The budget's unit is checked with the planned statements, before any
    draw."""
    import sensampler.app.release._running as running

    values, ids = rows
    budget = PrivacyFilter(5.0, rule="basic")
    release_statistic(values, "sum", "lognormal:mu=1,sigma=0.5", epsilon=0.5,
                      budget=budget, random_state=0)

    def no_run(*args, **kwargs):
        raise AssertionError("sampled before the budget's unit was checked")

    monkeypatch.setattr(running.PreparedRelease, "run", no_run)
    with pytest.raises(ValueError, match="about one person's rows"):
        release_statistic(values, "sum", MODEL, epsilon=0.5, budget=budget,
                          random_state=0, privacy_unit=ids)
    assert budget.count == 1 and budget.privacy_unit == "record"
