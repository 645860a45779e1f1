"""Accountants and filters hold one privacy unit: a person-level statement implies
the record-level one, not the reverse."""

import numpy as np
import pytest
from scipy import stats

from sensampler.accounting import (
    PLDAccountant,
    PrivacyFilter,
    RenyiAccountant,
    RenyiFilter,
    WhitehouseFilter,
    ZCDPAccountant,
)
from sensampler.app.budget_file import BudgetFile
from sensampler.app.release import release_statistic
from sensampler.distributions import LogNormal, Persons
from sensampler.privacy import PrivacyStatement

ACCOUNTANTS = [
    lambda: PrivacyFilter(100.0, 1e-3, rule="basic"),
    lambda: RenyiFilter(100.0, 1e-3),
    lambda: WhitehouseFilter(100.0, 1e-3),
    RenyiAccountant,
    ZCDPAccountant,
    PLDAccountant,
]
IDS = ["filter", "renyi-filter", "whitehouse", "renyi", "zcdp", "pld"]


def _laplace(unit):
    return PrivacyStatement("Laplace", 0.5, 0.0, rho=0.125, unit=unit)


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_person_level_statements_refuse_a_record_level_one(make):
    """A record-level guarantee implies no person-level one: once an accountant
    holds person-level statements, one about one record is refused, recording
    nothing (before, every accountant composed both as if they were one)."""
    acc = make()
    acc.compose(_laplace("person"))
    assert acc.unit == "person"
    with pytest.raises(ValueError, match="about one record.*one person's rows"):
        acc.compose(_laplace("record"))
    with pytest.raises(ValueError, match="about one record"):
        acc.compose_all([_laplace("person"), _laplace("record")])
    assert acc.count == 1 and acc.unit == "person"


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_record_level_statements_take_person_level_ones(make):
    """Each person-level statement implies the record-level one: composed as is."""
    acc = make()
    assert acc.unit is None
    acc.compose(_laplace("record"))
    acc.compose(_laplace("person"))
    assert acc.count == 2 and acc.unit == "record"
    assert [e.unit for e in acc.ledger] == ["record", "person"]
    assert acc.ledger[1].to_statement().unit == "person"


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
    assert budget.count == 1 and budget.unit == "person"


def test_a_budget_file_is_about_one_record_and_takes_person_level_releases(
    rows, tmp_path
):
    values, ids = rows
    path = tmp_path / "budget.json"
    release_statistic(values, "mean", MODEL, epsilon=0.5,
                      budget=BudgetFile(path, epsilon=5.0),
                      random_state=0, privacy_unit=ids)
    release_statistic(values, "mean", "lognormal:mu=1,sigma=0.5", epsilon=0.5,
                      budget=str(path), random_state=0)
    spent = BudgetFile(path).filter()
    assert spent.count == 2 and spent.unit == "record"
