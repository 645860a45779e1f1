"""Persons (a person's rows as one NaN-padded record) and group_rows."""

import numpy as np
import pytest
from scipy import stats

from sensampler.distributions import (
    Categorical,
    Empirical,
    LogNormal,
    Normal,
    Persons,
    PublicSample,
    group_rows,
    public_persons,
)
from sensampler.distributions.persons import contribution_cap
from sensampler.plan import sampling_plan


def _counts(records):
    return (~np.isnan(records)).sum(axis=-1)


def test_a_person_is_values_then_padding_with_counts_from_the_count_law():
    """A record holds min(count, cap) values first, NaN after; counts follow the law."""
    model = Persons(stats.randint(1, 7), Normal(0.0, 1.0), cap=4)
    people = model.sample(20_000, random_state=0)
    assert people.shape == (20_000, 4) and model.record_shape == (4,)
    counts = _counts(people)
    assert counts.min() == 1 and counts.max() == 4
    # padding only after the kept values
    assert np.all(np.isnan(people) == (np.arange(4) >= counts[:, None]))
    # P(count >= 4) = 3/6 under randint(1, 7) capped at 4; 6 SE of a proportion
    share = np.mean(counts == 4)
    assert abs(share - 0.5) < 6 * np.sqrt(0.25 / 20_000)


def test_draws_are_reproducible_and_batched():
    model = Persons(stats.geom(0.3), LogNormal(1.0, 0.5), cap=6)
    a = model.sample_batch(3, 50, random_state=7)
    b = model.sample_batch(3, 50, random_state=7)
    assert a.shape == (3, 50, 6)
    np.testing.assert_array_equal(a, b)


def test_the_default_cap_is_the_count_laws_0999_quantile():
    """Read from the public model at no privacy cost: randint(1, 101)'s is 100."""
    assert contribution_cap(stats.randint(1, 101)) == 100
    assert Persons(stats.randint(1, 11), Normal()).cap == 10
    geom = contribution_cap(stats.geom(0.2))
    assert abs(geom - stats.geom(0.2).ppf(0.999)) <= 1


@pytest.mark.parametrize("cap", [0, -3])
def test_a_cap_below_one_is_refused_naming_it(cap):
    with pytest.raises(ValueError, match="cap"):
        Persons(stats.geom(0.3), Normal(), cap=cap)


def test_a_count_law_drawing_no_rows_is_refused_naming_rows():
    """A person in a table has at least one row: a count of 0 is refused, not padded."""
    model = Persons(Categorical([0.2, 0.4, 0.4], values=[0, 1, 2]), Normal(), cap=3)
    with pytest.raises(ValueError, match="rows"):
        model.sample(100, random_state=0)


def test_vector_values_are_refused():
    from sensampler.distributions import MultivariateNormal

    with pytest.raises(ValueError, match="values"):
        Persons(stats.geom(0.3), MultivariateNormal([0, 0], np.eye(2)), cap=2)


def test_group_rows_pads_each_person_in_the_order_of_the_ids():
    out = group_rows([1.0, 2.0, 3.0, 4.0, 5.0], ["b", "a", "b", "c", "b"], 3, 0)
    assert out.shape == (3, 3)
    np.testing.assert_array_equal(out[0], [2.0, np.nan, np.nan])
    assert sorted(out[1]) == [1.0, 3.0, 5.0]
    np.testing.assert_array_equal(out[2], [4.0, np.nan, np.nan])


@pytest.mark.slow
def test_group_rows_drops_rows_beyond_the_cap_at_random_reproducibly():
    """Rows beyond the cap are dropped at random: the same seed drops the same
    rows, other seeds others, and every row is kept as often (uniformly)."""
    values = np.arange(10.0)
    ids = np.zeros(10, dtype=int)
    first = group_rows(values, ids, 3, random_state=1)
    np.testing.assert_array_equal(first, group_rows(values, ids, 3, random_state=1))
    kept = np.zeros(10)
    for seed in range(2000):
        kept[group_rows(values, ids, 3, random_state=seed)[0].astype(int)] += 1
    # each row kept with probability 3/10; 6 SE of a binomial proportion
    assert np.all(np.abs(kept / 2000 - 0.3) < 6 * np.sqrt(0.21 / 2000))


@pytest.mark.parametrize(
    "ids, match",
    [
        (np.arange(4), "5 ids"),
        ([0, 1, np.nan, 1, 0], "missing"),
        (np.array([0, 1, None, 1, 0], dtype=object), "missing"),
    ],
)
def test_bad_ids_are_refused_naming_privacy_unit(ids, match):
    with pytest.raises(ValueError, match=f"privacy_unit.*{match}"):
        group_rows(np.arange(5.0), ids, 2, 0)


def test_bad_values_and_cap_are_refused():
    with pytest.raises(ValueError, match="cap"):
        group_rows(np.arange(3.0), [0, 0, 1], 0, 0)
    with pytest.raises(ValueError, match="values must be finite"):
        group_rows([1.0, np.inf], [0, 1], 1, 0)


def _table(model, persons, seed):
    people = model.sample(persons, random_state=seed)
    counts = (~np.isnan(people)).sum(1)
    return people[~np.isnan(people)], np.repeat(np.arange(persons), counts), counts


def test_public_persons_bootstraps_whole_persons():
    """A public table with a unit column is a PublicSample of padded persons:
    every posterior population draws one of the public persons whole."""
    model = Persons(stats.geom(0.3), LogNormal(1.0, 0.5), cap=30)
    values, ids, counts = _table(model, 200, 1)
    public = public_persons(values, ids)
    assert isinstance(public, PublicSample) and public.person_rows
    assert public.rows == 200
    assert public.record_shape == (int(np.quantile(counts, 0.999, method="inverted_cdf")),)
    assert not np.any(public.bandwidths())  # resampled as they are
    persons = {tuple(np.nan_to_num(p, nan=-1.0)) for p in public.data}
    for population in public.posterior(3, random_state=0):
        drawn = population.sample(50, random_state=0)
        assert population.person_rows
        assert all(tuple(np.nan_to_num(p, nan=-1.0)) in persons for p in drawn)
    assert "public sample of 200 persons" in public.basis(sampling_plan(gamma=0.05))


def test_a_table_of_persons_refuses_a_person_without_rows_or_an_infinity():
    with pytest.raises(ValueError, match="person without a row"):
        Empirical(np.array([[1.0, np.nan], [np.nan, np.nan]]), person_rows=True)
    with pytest.raises(ValueError, match="infinity"):
        PublicSample(np.array([[1.0, np.inf]]), person_rows=True)
    with pytest.raises(ValueError, match="finite"):  # NaN only as a person's padding
        Empirical(np.array([[1.0, np.nan]]))


def test_models_of_persons_give_their_uncapped_rows():
    """What the cap's bias is read from: a model's persons with all their rows
    (seeded, public), and a public table as it was, before its cap."""
    from sensampler.distributions.persons import BIAS_PERSONS

    model = Persons(stats.geom(0.2), LogNormal(1.0, 0.5), cap=2)
    values, ids = model.uncapped_rows()
    assert np.unique(ids).size == BIAS_PERSONS and values.size == ids.size
    assert np.bincount(ids).max() > 2  # not capped
    again = model.uncapped_rows()
    assert np.array_equal(values, again[0])
    public = public_persons([1.0, 2.0, 3.0, 4.0], ["a", "a", "a", "b"], cap=2)
    rows, people = public.uncapped_rows()
    assert rows.tolist() == [1.0, 2.0, 3.0, 4.0] and people.tolist() == ["a", "a", "a", "b"]
    assert public.data.shape == (2, 2) and public.person_rows


@pytest.mark.slow
def test_a_bootstrap_of_100_public_persons_holds_at_the_stated_confidence():
    """Coverage at the person level for a public table of 100 persons: over
    repeated public samples of the true model, the share whose sampled
    person-level sensitivity (the sum, n = 300 persons, cap 8, values clipped
    to [0, 60]) has a true exceedance above gamma on fresh pairs of persons is
    within 1 - the stated confidence plus 6 standard errors."""
    from sensampler import sample_sensitivity, units
    from sensampler.bounds import Bounds

    truth = Persons(stats.geom(0.3), LogNormal(2.0, 0.8), cap=8)
    query, bounds, samples, pairs = units.sum(8), Bounds.given(0.0, 60.0), 80, 20_000
    rates = []
    for child in np.random.SeedSequence(4040).spawn(samples):
        data_seed, run_seed, pair_seed = child.spawn(3)
        people = truth.sample(100, random_state=data_seed)
        present = ~np.isnan(people)
        ids = np.repeat(np.arange(100), present.sum(axis=1))
        public = public_persons(people[present], ids, cap=8)
        est = sample_sensitivity(query, public, 300, gamma=0.05, bounds=bounds,
                                 random_state=run_seed)
        rng = np.random.default_rng(pair_seed)
        one, other = (bounds.clip(truth.sample(pairs, random_state=rng)) for _ in "ab")
        change = np.abs(query.evaluate(one[:, None]) - query.evaluate(other[:, None]))
        rates.append(np.mean(change > est.sensitivity.value))
    plan = est.plan
    alpha = 1 - public.stated_confidence(plan.rho, plan.gamma)
    share = np.mean(np.array(rates) > plan.gamma)
    assert 0 < alpha < 0.5, alpha
    assert share <= alpha + 6 * np.sqrt(alpha * (1 - alpha) / samples), (share, alpha)


def test_the_model_of_a_persons_total():
    """person_totals: a public table's persons give the PublicSample of their
    totals at the same confidence; a model gives each person's total of its
    capped rows; a model of one row is refused."""
    from sensampler.distributions import person_totals

    public = public_persons([1.0, 2.0, 3.0, 4.0], ["a", "a", "a", "b"], cap=2,
                            confidence=0.8)
    totals = person_totals(public)
    assert isinstance(totals, PublicSample) and totals.confidence == 0.8
    first, second = totals.data.ravel().tolist()  # persons in the ids' order
    assert first in (3.0, 4.0, 5.0) and second == 4.0  # two of a's 1, 2, 3; b's 4
    model = Persons(stats.geom(0.4), LogNormal(1.0, 0.5), cap=3)
    drawn = person_totals(model).sample(5, random_state=1)
    people = model.sample(5, random_state=1)
    assert drawn.shape == (5,) and np.allclose(drawn, np.nansum(people, axis=1))
    with pytest.raises(ValueError, match="model of a person"):
        person_totals(Normal(0.0, 1.0))


def test_a_given_cap_is_marked_and_with_cap_cuts_the_same_persons():
    """A release keeps a given cap and chooses one otherwise (issue 40):
    Persons says which, and with_cap keeps its laws."""
    default = Persons(stats.geom(0.4), LogNormal(3.0, 1.0))
    assert not default.given_cap
    assert Persons(stats.geom(0.4), LogNormal(3.0, 1.0), cap=4).given_cap
    cut = default.with_cap(2)
    assert cut.cap == 2 and cut.record_shape == (2,) and cut.given_cap
    assert cut.rows is default.rows and cut.values is default.values
