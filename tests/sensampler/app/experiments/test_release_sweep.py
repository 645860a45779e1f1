"""error_vs_epsilon: the error of what a release publishes, on the release path,
calibrated once per epsilon."""

import numpy as np
import pytest

from sensampler import quantile_calibration
from sensampler.app.experiments import error_vs_epsilon
from sensampler.app.experiments.release_sweep import _calibrations, prepare_sweep
from sensampler.app.release import release_statistic
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms.quantile import utility_sensitivity
from sensampler.parallel import child_seed
from sensampler.quantile_calibration import (
    SampledLosses,
    calibrate_quantile,
    plain_scale,
)
from sensampler.settings import ReleaseSettings

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
DATA = HEIGHTS.sample(500, random_state=1)


def _mean_row(table, epsilon):
    (row,) = [r for r in table.where(statistic="mean").rows if r["epsilon"] == epsilon]
    return row


@pytest.mark.slow
def test_a_median_sweep_states_what_the_release_of_the_same_seed_states():
    """The sweep's mechanism at each epsilon is the release's: the same sampled
    quantile scale (child 0 of the seed), the same gamma and worst case."""
    table = error_vs_epsilon("median", HEIGHTS, 500, [1.0], repetitions=5, random_state=7)
    row = _mean_row(table, 1.0)
    release = release_statistic(DATA, "median", HEIGHTS, epsilon=1.0, random_state=7)
    scale = release.calibration.scale
    du = utility_sensitivity(0.5, "replace-one")
    assert row["mechanism"] == "exponential"
    assert row["price"] == pytest.approx(scale / plain_scale(1.0, du), rel=1e-12)
    assert row["gamma"] == pytest.approx(release.statement.gamma, rel=1e-12)
    worst = release.statement.worst_case.epsilon
    assert row["worst_case_epsilon"] == pytest.approx(worst, rel=1e-12)


@pytest.mark.slow
def test_a_mean_sweep_adds_the_release_noise_and_its_floor():
    """A mean is released with the sampled sensitivity raised to the worst-case
    cap's floor, as the release does: the sweep's mean error over 4000 databases is
    E|Laplace(b)| = b at the release's scale b (clipping at the model's 0.999
    bounds moves a mean of 500 heights by far less than 6 standard errors,
    b / sqrt(4000))."""
    cap = 1.2  # below the sampled sensitivity's own worst case: the floor binds
    release = release_statistic(
        DATA, "mean", HEIGHTS, epsilon=1.0, worst_case_epsilon=cap, random_state=3
    )
    table = error_vs_epsilon(
        "mean", HEIGHTS, 500, [1.0], repetitions=4000, random_state=3,
        worst_case_epsilon=cap,
    )
    row = _mean_row(table, 1.0)
    b = release.estimate.worst_case / cap  # the floor: worst case / cap
    assert b > release.estimate.sensitivity.value  # the floor binds
    assert row["worst_case_epsilon"] == pytest.approx(cap, rel=1e-9)
    assert abs(row["value"] - b) < 6 * b / np.sqrt(4000)


@pytest.mark.slow
def test_the_table_is_the_same_for_any_n_jobs():
    args = ("mean", HEIGHTS, 200, [0.5, 1.0])
    one = error_vs_epsilon(*args, repetitions=30, random_state=0, n_jobs=1)
    two = error_vs_epsilon(*args, repetitions=30, random_state=0, n_jobs=2)
    assert one.rows == two.rows


def test_private_bounds_draw_bounds_per_repetition_and_count_their_epsilon():
    table = error_vs_epsilon(
        "mean", None, 500, [1.0], repetitions=20, random_state=0,
        data=HEIGHTS, bounds="private:0.5",
    )
    row = _mean_row(table, 1.0)
    assert (row["total_epsilon"], row["gamma"], row["price"]) == (1.5, 0.0, 1.0)
    assert np.isfinite(row["value"]) and row["value"] > 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": 1.0}, "a sweep takes its epsilons as epsilons"),
        ({"epsilons": []}, "epsilons must not be empty"),
        ({"epsilons": [1.0, -1.0]}, "epsilons"),
        ({"n": 0}, "n must be"),
        ({"repetitions": 0}, "repetitions"),
        ({"population": None}, "a sweep without a population needs data"),
        ({"mechanism": "gaussian"}, "delta"),
    ],
)
def test_bad_inputs_are_refused_before_anything_is_drawn(kwargs, message, monkeypatch):
    def refuse(*args, **kw):
        raise AssertionError("drawn")

    monkeypatch.setattr(GaussianMixture, "sample_batch", refuse)
    arguments = {"query": "mean", "population": HEIGHTS, "n": 100, "epsilons": [1.0]}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        prepare_sweep(**arguments)


@pytest.mark.slow
def test_a_median_without_public_bounds_is_swept_over_the_wide_grid_at_its_epsilon():
    """Over private bounds a quantile spends no pre-pass: the release draws it over
    the wide public grid at its whole epsilon, and so does the sweep."""
    table = error_vs_epsilon(
        "median", None, 500, [1.0], repetitions=10, random_state=0, data=HEIGHTS,
        bounds="private:0.5",
    )
    row = _mean_row(table, 1.0)
    assert (row["mechanism"], row["total_epsilon"], row["gamma"]) == (
        "exponential", 1.0, 0.0,
    )


def test_settings_are_the_release_record():
    settings = ReleaseSettings(bounds="100:250")
    prepared = prepare_sweep("mean", HEIGHTS, 100, [1.0, 2.0], settings)
    assert [s.epsilon for s in prepared.per_epsilon] == [1.0, 2.0]
    assert {str(s.bounds) for s in prepared.per_epsilon} == {"100.0:250.0"}


def test_more_calibrations_average_over_the_calibration_s_randomness():
    """One calibration measures the error given it; K calibrations (repetition r
    with calibration r mod K) vary it as independent releases do: the largest
    worst case over them is at least the first's, and the first is the release's."""
    one = _mean_row(error_vs_epsilon("mean", HEIGHTS, 200, [1.0], repetitions=40,
                                     random_state=5), 1.0)
    many = _mean_row(error_vs_epsilon("mean", HEIGHTS, 200, [1.0], repetitions=40,
                                      calibrations=40, random_state=5), 1.0)
    assert many["worst_case_epsilon"] > one["worst_case_epsilon"]
    assert many["value"] != one["value"]
    with pytest.raises(ValueError, match="calibrations must be <= repetitions=40"):
        error_vs_epsilon("mean", HEIGHTS, 200, [1.0], repetitions=40, calibrations=41)


def _sweep_calibrations(epsilons, n=100, **options):
    """The sweep's calibrated mechanism at each epsilon, and what it was built from."""
    prepared = prepare_sweep("median", HEIGHTS, n, epsilons, repetitions=2,
                             random_state=5, **options)
    calibrated = _calibrations(prepared.query, prepared.model, prepared.per_epsilon, n,
                               1, prepared.known)
    return calibrated, prepared


def test_a_median_sweep_draws_its_calibration_pairs_once(monkeypatch):
    """The quantile's scale at every epsilon comes from one set of sampled pairs
    (SampledLosses): the pairs are drawn once for the whole grid of epsilons,
    where they were drawn again for each epsilon before."""
    drawn = []
    original = quantile_calibration._draw_pairs

    def counting(dist, size, *args):
        drawn.append(size)
        return original(dist, size, *args)

    monkeypatch.setattr(quantile_calibration, "_draw_pairs", counting)
    calibrated, prepared = _sweep_calibrations([0.5, 1.0, 2.0])
    assert all(one.calibration is not None for one in calibrated)
    assert drawn == [quantile_calibration.DEFAULT_PAIRS]


@pytest.mark.parametrize("chunk_records", [None, 101 * 300])
@pytest.mark.parametrize("cap", [None, 3.0])
@pytest.mark.slow
def test_the_sweeps_quantile_scales_are_one_calibration_per_epsilon(
    monkeypatch, chunk_records, cap
):
    """Reusing the pairs changes nothing: at each epsilon the sweep's scale and
    order statistic are those of calibrate_quantile with the release's seed
    (child 0), in one chunk of pairs and in several (each chunk's losses then
    computed at every epsilon's candidates at once, the chunk dropped)."""
    if chunk_records is not None:
        monkeypatch.setattr(quantile_calibration, "_CHUNK_RECORDS", chunk_records)
    epsilons = [0.3, 1.0, 2.5]
    calibrated, prepared = _sweep_calibrations(epsilons, worst_case_epsilon=cap)
    known = prepared.known
    for one, settings in zip(calibrated, prepared.per_epsilon):
        expected = calibrate_quantile(
            0.5, (known.low, known.high), settings.epsilon, HEIGHTS, 100,
            random_state=child_seed(prepared.model.root, 0), gamma=settings.gamma,
            worst_case_epsilon=settings.worst_case_epsilon,
        )
        if expected is None:
            assert one.calibration is None
            continue
        assert one.calibration.scale == expected.scale
        assert one.calibration.run.released == expected.run.released
        assert (one.calibration.run.m, one.calibration.run.k) == (
            expected.run.m, expected.run.k)


def test_sampled_losses_refuse_an_epsilon_they_were_not_drawn_for():
    losses = SampledLosses(0.5, (140.0, 210.0), HEIGHTS, 50, gamma=0.05,
                           random_state=0, epsilons=[0.5, 1.0])
    assert losses.calibration(1.0) is not None
    with pytest.raises(ValueError, match="epsilon must be one of"):
        losses.calibration(2.0)


def test_a_person_level_sweep_releases_as_a_person_level_release():
    """With settings.privacy_unit, the sweep draws databases of n persons from
    the model of a person and calibrates as release_statistic(..., privacy_unit=
    ids) does: the same worst-case epsilon at each epsilon; data are refused."""
    import numpy as np
    from scipy import stats

    from sensampler.app.release import release_statistic
    from sensampler.distributions import LogNormal, Persons

    model = Persons(stats.geom(0.3), LogNormal(2.0, 0.8), cap=8)
    table = error_vs_epsilon("sum", model, 300, [0.5], privacy_unit="person",
                             repetitions=10, random_state=0)
    row = table.where(statistic="mean").rows[0]
    people = model.sample(300, random_state=1)
    present = ~np.isnan(people)
    ids = np.repeat(np.arange(300), present.sum(axis=1))
    r = release_statistic(people[present], "sum", model, epsilon=0.5, random_state=0,
                          privacy_unit=ids)
    assert row["worst_case_epsilon"] == pytest.approx(r.statement.worst_case.epsilon)
    with pytest.raises(ValueError, match="give no data"):
        error_vs_epsilon("sum", model, 300, [0.5], privacy_unit="person",
                         data=model, repetitions=10)
    with pytest.raises(ValueError, match="person-level query"):
        error_vs_epsilon("median", model, 300, [0.5], privacy_unit="person",
                         repetitions=10)


@pytest.mark.slow
def test_a_person_level_sweep_row_is_made_at_the_cap_the_release_chooses():
    """Issue 40: with no cap given, a person-level release at epsilon e cuts the
    model at the L of least expected error at e; the sweep's row at e must
    measure that release (its L, and on the same seed its worst case and
    price, which read the sampled sensitivity at L), not one at the model's
    own cap."""
    import numpy as np
    from scipy import stats

    from sensampler.app.release import release_statistic
    from sensampler.app.release._units import least_error_cap
    from sensampler.distributions import LogNormal, Persons
    from sensampler.settings import ReleaseSettings

    model = Persons(stats.geom(0.3), LogNormal(2.0, 0.8))  # no cap given
    table = error_vs_epsilon("sum", model, 300, [0.1, 1.0], privacy_unit="person",
                             repetitions=10, random_state=0)
    people = model.sample(300, random_state=1)
    present = ~np.isnan(people)
    ids = np.repeat(np.arange(300), present.sum(axis=1))
    caps = set()
    for row in table.where(statistic="mean").rows:
        epsilon = row["epsilon"]
        at = ReleaseSettings.build(epsilon=epsilon, privacy_unit="person")
        caps.add(row["cap"])
        assert row["cap"] == least_error_cap(model, ["sum"], 300, at).record_shape[0]
        r = release_statistic(people[present], "sum", model, epsilon=epsilon,
                              random_state=0, privacy_unit=ids)
        assert row["worst_case_epsilon"] == pytest.approx(r.statement.worst_case.epsilon)
        # Laplace: the worst case over the sampled sensitivity, floored at the
        # default cap of 10 epsilon (a tenth of the worst case)
        worst, sampled = r.estimate.worst_case, float(r.estimate.sensitivity.value)
        assert row["price"] == pytest.approx(worst / max(sampled, worst / 10.0))
    assert len(caps) == 2  # the choice moves with epsilon
