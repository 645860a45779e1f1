"""The library's own additive queries skip the probe of their declaration; nothing
else does, however closely it imitates them."""

import copy
import gc

import numpy as np
import pytest

import sensampler._sampling.probes
import sensampler._sampling.trusted
from sensampler import queries, sample_sensitivity
from sensampler._sampling.trusted import is_trusted, trust
from sensampler.distributions import Normal

POPULATION = Normal(0.0, 1.0)


class _Counting(Normal):
    """A standard normal population that counts the records drawn from it."""

    def __init__(self):
        super().__init__(0.0, 1.0)
        self.drawn = 0

    def _draw(self, shape, rng):
        self.drawn += int(np.prod(shape))
        return super()._draw(shape, rng)


def _not_additive(stack):
    """A mean plus 5 when half the records are positive: not additive."""
    return stack.mean(axis=1) + 5.0 * ((stack > 0).sum(axis=1) >= stack.shape[1] / 2)


BUILT_INS = [queries.mean, queries.sum, queries.count(), queries.histogram(4, (-2, 2))]


@pytest.mark.parametrize("query", BUILT_INS, ids=lambda q: q.name)
def test_built_in_additive_queries_are_trusted_and_not_probed(query, monkeypatch):
    def refuse(*args):
        raise AssertionError("probed")

    monkeypatch.setattr(sensampler._sampling.probes, "probe_additive", refuse)
    monkeypatch.setattr(sensampler._sampling.probes, "check_order", refuse)
    monkeypatch.setattr(sensampler._sampling.probes, "check_sizes", refuse)
    assert is_trusted(query)
    for neighbours in ("replace-one", "add-remove"):
        if query is queries.mean and neighbours == "add-remove":
            continue  # a mean under add/remove takes the full path
        sample_sensitivity(query, POPULATION, 50, m=20, neighbours=neighbours)


def test_a_trusted_mean_draws_the_same_pairs_and_no_probe_databases():
    # Before: ~200 n0 records drawn by the probe (n0 = min(n, 1000)), whatever
    # the query; now 1 probe record and 2 per pair, at any n.
    population = _Counting()
    est = sample_sensitivity(queries.mean, population, 10**6, m=113, random_state=3)
    assert population.drawn == 1 + 2 * 113
    probed = sample_sensitivity(
        copy.copy(queries.mean), POPULATION, 10**6, m=113, random_state=3
    )
    np.testing.assert_array_equal(est.samples, probed.samples)


def _wrapped():
    return queries.batched(queries.mean.evaluate, name="mean", additive="mean")


def _subclassed():
    kind = type(queries.mean)
    return kind(queries.mean.func, "mean", additive="mean")


def _copied_attributes():
    query = queries.BatchedQuery(_not_additive, name="mean", additive="mean")
    query.__dict__.update({**vars(queries.mean), "func": _not_additive})
    return query


class _Impostor(queries.BatchedQuery):
    """Claims equality (and the hash) of the built-in mean."""

    def __eq__(self, other):
        return True

    def __hash__(self):
        return hash(queries.mean)


@pytest.mark.parametrize(
    "make",
    [
        _wrapped,
        _subclassed,
        lambda: copy.copy(queries.mean),
        lambda: copy.deepcopy(queries.mean),
        _copied_attributes,
        lambda: _Impostor(_not_additive, name="mean", additive="mean"),
        lambda: queries.count(lambda x: x > 0),  # a predicate sees every record
        lambda: queries.additive(np.square, mean=True),
    ],
)
def test_imitations_of_a_built_in_are_not_trusted(make):
    assert not is_trusted(make())


@pytest.mark.parametrize(
    "make",
    [
        _copied_attributes,
        lambda: _Impostor(_not_additive, name="mean", additive="mean"),
        lambda: queries.count(lambda x: x > x.mean(axis=1, keepdims=True)),
    ],
)
def test_an_imitation_with_a_false_declaration_is_refused(make):
    with pytest.raises(ValueError, match="is declared additive='(mean|sum)' but is not"):
        sample_sensitivity(make(), POPULATION, 100, m=20, random_state=0)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("func", _not_additive),
        ("evaluate", _not_additive),  # an attribute of its own, over the method
        ("additive", "sum"),
        ("name", "".join(["me", "an"])),  # an equal string, but another object
    ],
)
def test_a_built_in_changed_after_construction_loses_the_trust(name, value):
    # Restored by hand: pytest < 8's monkeypatch.undo would set a class attribute
    # (the method ``evaluate``) on the instance instead of deleting it.
    state = vars(queries.mean)
    had, old = name in state, state.get(name)
    setattr(queries.mean, name, value)
    try:
        assert not is_trusted(queries.mean)
        if name in ("func", "evaluate"):
            with pytest.raises(
                ValueError, match="is declared additive='mean' but is not"
            ):
                sample_sensitivity(queries.mean, POPULATION, 100, m=20, random_state=0)
    finally:
        if had:
            setattr(queries.mean, name, old)
        else:
            delattr(queries.mean, name)
    assert is_trusted(queries.mean)


@pytest.mark.slow
def test_trust_ends_with_the_query():
    query = trust(queries.count())
    key = id(query)
    assert is_trusted(query)
    del query
    gc.collect()
    assert key not in sensampler._sampling.trusted._TRUSTED


def test_a_histogram_keeps_its_own_edges():
    # Trusted at construction: the caller's array, changed later, changes nothing.
    edges = np.array([0.0, 1.0, 2.0])
    query = queries.histogram(edges)
    edges[1] = 1.5
    assert is_trusted(query)
    np.testing.assert_array_equal(query(np.array([0.5, 1.2])), [1.0, 1.0])
