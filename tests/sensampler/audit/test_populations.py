import re

import numpy as np
import pytest

from sensampler import queries
from sensampler.audit import (
    PopulationChoice,
    audit_estimate,
    compare_populations,
    conservative_choice,
)
from sensampler.distributions import Normal
from sensampler.parallel import child_seed

POPULATIONS = {"narrow": Normal(0.0, 1.0), "wide": Normal(0.0, 3.0)}


def _comparison(**kwargs):
    arguments = {"pairs": 4_000, "random_state": 0, **kwargs}
    return compare_populations(queries.mean, POPULATIONS, 50, 0.05, **arguments)


def test_the_cross_coverage_table_audits_every_estimate_under_every_population():
    comparison = _comparison()
    table = comparison.table
    assert len(table) == 4 and comparison.names == ["narrow", "wide"]
    assert table.columns[:3] == ["estimated_under", "audited_under", "sensitivity"]
    cell = table.where(estimated_under="narrow", audited_under="wide").rows[0]
    assert cell["verdict"] == "exceeds beta" and cell["lower"] > cell["beta"]
    own = table.where(estimated_under="wide", audited_under="wide").rows[0]
    assert own["verdict"] != "exceeds beta"
    # The table's cells are the audits themselves, reproducible one by one.
    audit = comparison.audits["narrow", "wide"]
    assert cell["rate"] == audit.rate and cell["upper"] == audit.upper
    again = audit_estimate(
        comparison.estimates["narrow"],
        POPULATIONS["wide"],
        pairs=4_000,
        # the audits under population k draw from child 2 k + 1 of the seed
        random_state=child_seed(np.random.SeedSequence(0), 2 * 1 + 1),
    )
    assert again == audit


def test_the_conservative_choice_takes_the_smallest_estimate_covered_everywhere():
    comparison = _comparison()
    choice = conservative_choice(comparison, multiple=2.0)
    # The narrow estimate is exceeded by most wide pairs; the wide one is covered
    # under both populations, so it is the only (hence smallest) qualified one.
    assert isinstance(choice, PopulationChoice)
    assert choice.name == "wide" and choice.qualified
    assert choice.limit == pytest.approx(2 * comparison.estimates["wide"].gamma)
    wide_only = compare_populations(
        queries.mean, {"wide": POPULATIONS["wide"]}, 50, 0.05, pairs=4_000,
        random_state=0,
    )
    assert conservative_choice(wide_only).name == "wide"


def test_without_a_qualified_estimate_the_least_exceeded_is_returned_unqualified():
    comparison = _comparison()
    choice = conservative_choice(
        type(comparison)(
            {"narrow": comparison.estimates["narrow"]},
            {k: v for k, v in comparison.audits.items() if k[0] == "narrow"},
            comparison.table,
        )
    )
    assert choice.name == "narrow" and not choice.qualified


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: _comparison(pairs=0), ValueError, "pairs must be an integer >= 1"),
        (
            lambda: compare_populations(queries.mean, {}, 10, 0.05, pairs=10),
            TypeError,
            "populations must be a non-empty mapping",
        ),
        (
            lambda: compare_populations(queries.mean, {1: Normal()}, 10, 0.05, pairs=10),
            TypeError,
            "populations must be keyed by str names, got 1.",
        ),
        (
            lambda: compare_populations(
                queries.mean, {"x": "not a model"}, 10, 0.05, pairs=10
            ),
            TypeError,
            "population must be",
        ),
        (
            lambda: compare_populations(
                lambda db: (db.mean(), db.max()), {"x": Normal()}, 10, 0.05, pairs=10
            ),
            ValueError,
            "compare_populations needs a query with one output",
        ),
        (
            lambda: conservative_choice(_comparison(pairs=10), multiple=0.5),
            ValueError,
            "multiple must be >= 1.0, got multiple=0.5.",
        ),
        (lambda: conservative_choice(None), TypeError, "comparison must be a"),
    ],
)
def test_bad_input_is_refused_by_name(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_every_run_and_audit_uses_the_relation_given():
    comparison = _comparison(neighbours="add-remove", pairs=500)
    assert {e.run.neighbours for e in comparison.estimates.values()} == {"add-remove"}
    assert set(comparison.table.column("neighbours")) == {"add-remove"}
    assert {a.neighbours for a in comparison.audits.values()} == {"add-remove"}
    with pytest.raises(ValueError, match=re.escape("needs n >= 2")):
        compare_populations(
            queries.mean, POPULATIONS, 1, 0.05, pairs=10, neighbours="add-remove"
        )
