import functools
import math
import re
import sys
import warnings

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler._lib import printing
from sensampler.app.experiments import (
    MECHANISMS,
    SD_DEFINITION,
    STATISTICS,
    accepted_norms,
    mechanism_from_name,
    sensitivity_sweep,
)
from sensampler.app.specs import parse_sensitivities
from sensampler.distributions import GaussianMixture, Normal
from sensampler.mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.table import ResultTable
from tests.conftest import assert_close_in_se

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
ANALYTIC = functools.partial(GaussianMechanism, delta=1e-6, variant="analytic")
COLUMNS = [
    "part",
    "sensitivity",
    "guarantee",
    "sensitivity_value",
    "mechanism",
    "epsilon",
    "delta",
    "repetitions",
    "error",
    "coordinate",
    "statistic",
    "value",
]


@pytest.fixture(scope="module")
def estimate():
    return sample_sensitivity(queries.mean, HEIGHTS, 100, gamma=0.05, random_state=0)


def test_table_shape_columns_and_guarantees(estimate):
    table = sensitivity_sweep(
        queries.mean,
        HEIGHTS,
        100,
        [0.1, 1.0],
        {"sampled": estimate, "mean": estimate.typical(), "half": 0.5},
        repetitions=20,
        random_state=0,
    )
    assert isinstance(table, ResultTable)
    assert len(table) == 3 * 2 * len(STATISTICS)  # scalar answer: one l2 row each
    assert table.columns == COLUMNS
    guarantees = {r["sensitivity"]: r["guarantee"] for r in table}
    assert guarantees == {
        "sampled": "random DP, gamma=0.04982",
        "mean": "none (typical value)",
        "half": "as given",
    }
    assert table.where(sensitivity="half").rows[0]["sensitivity_value"] == 0.5
    assert table.where(sensitivity="sampled").rows[0]["sensitivity_value"] == (
        estimate.sensitivity
    )
    assert all(math.isnan(d) for d in table.column("delta"))  # Laplace has no delta


def test_databases_beyond_physical_memory_are_refused_before_drawing():
    # 2 repetitions x 1e12 records x 8 bytes x 2 copies = 32 TB.
    with pytest.raises(
        ValueError,
        match=re.escape("repetitions=2 databases of n=1000000000000 records need"),
    ):
        sensitivity_sweep(
            queries.median, Normal(), 10**12, [1.0], {"x": 1.0}, repetitions=2
        )
    # A fixed database repeated 2**40 times: 3 x 2**40 x 8 x 2 bytes = 48 TiB.
    with pytest.raises(ValueError, match=re.escape("repetitions=1099511627776")):
        sensitivity_sweep(
            queries.mean, np.arange(3.0), None, [1.0], {"x": 1.0}, repetitions=2**40
        )


def test_laplace_error_matches_theory(seed):
    # mean |Lap(b)| = b with b = Delta / eps: a fixed database isolates the noise.
    table = sensitivity_sweep(
        queries.mean,
        np.full(10, 170.0),
        None,
        [0.5, 2.0],
        {"given": 1.5},
        repetitions=4000,
        random_state=seed,
    )
    for eps in (0.5, 2.0):
        b = 1.5 / eps
        mean = table.where(epsilon=eps, statistic="mean").rows[0]["value"]
        assert abs(mean - b) < 6 * b / math.sqrt(4000)  # sd of |Lap(b)| is b


def test_mechanism_is_a_class_or_a_callable(estimate):
    l2 = sample_sensitivity(
        queries.mean, Normal(), 50, gamma=0.05, norm="l2", random_state=0
    )
    table = sensitivity_sweep(
        queries.mean,
        Normal(),
        50,
        [0.5, 2.0],
        {"sampled": l2},
        mechanism=ANALYTIC,
        repetitions=50,
        random_state=0,
    )
    assert set(table.column("mechanism")) == {"Gaussian (analytic)"}
    assert set(table.column("delta")) == {1e-6}
    custom = sensitivity_sweep(
        queries.mean,
        Normal(),
        50,
        [1.0],
        {"one": 1.0},
        mechanism=lambda sensitivity, epsilon: LaplaceMechanism(sensitivity, epsilon),
        repetitions=5,
        random_state=0,
    )
    assert custom.column("mechanism")[0] == "Laplace"


def test_every_setting_is_checked_before_anything_is_drawn():
    class Population(Normal):
        def sample_batch(self, *args, **kwargs):
            raise AssertionError("drew data before checking the inputs")

    classic = functools.partial(GaussianMechanism, delta=1e-6, variant="classic")
    with pytest.raises(ValueError, match="use variant='analytic' for epsilon >= 1"):
        sensitivity_sweep(
            queries.mean, Population(), 50, [0.5, 2.0], {"a": 1.0}, mechanism=classic
        )


def test_sensitivities_are_checked_before_the_repetitions_are_drawn():
    # Failed before: a sensitivity of the wrong shape was refused only after the
    # repetitions' databases were drawn (the probe database alone is drawn first).
    class Population(Normal):
        def sample_batch(self, size, *args, **kwargs):
            assert size == 1, "drew the repetitions before checking the sensitivities"
            return super().sample_batch(size, *args, **kwargs)

    with pytest.raises(ValueError, match=re.escape("has per-coordinate shape (3,)")):
        sensitivity_sweep(
            queries.mean, Population(), 50, [1.0], {"a": np.ones(3)}, repetitions=5
        )


def test_deterministic_for_any_n_jobs(estimate):
    kw = dict(repetitions=30, random_state=3)
    sens = {"sampled": estimate, "mean + 1 sd": estimate.typical(1)}
    a, b = (
        sensitivity_sweep(
            queries.median, HEIGHTS, 51, [0.1, 0.3, 1.0], sens, n_jobs=jobs, **kw
        )
        for jobs in (1, 2)
    )
    assert a == b


def test_source_document_experiment_ordering():
    # 002: larger sensitivities mean more noise: mean < mean + sd < mean + 2 sd.
    est = sample_sensitivity(queries.identity, HEIGHTS, 1, gamma=0.05, random_state=1)
    table = sensitivity_sweep(
        queries.identity,
        Normal(170, 1),
        500,
        [0.05, 0.5, 5.0],
        {t.label: t for t in (est.typical(k) for k in (0, 1, 2))},
        statistic=np.mean,
        repetitions=200,
        random_state=1,
    )
    for eps in (0.05, 0.5, 5.0):
        errors = table.where(epsilon=eps, statistic="mean").column("value")
        assert errors[0] < errors[1] < errors[2]


def test_per_coordinate_estimate_of_a_histogram_is_swept():
    # Failed before: "value must have the shape of the per-coordinate sensitivity".
    hist = queries.histogram(3, range=(150, 200))
    est = sample_sensitivity(
        hist, HEIGHTS, 50, gamma=0.1, norm="coordinate", random_state=0
    )
    table = sensitivity_sweep(
        hist,
        HEIGHTS,
        50,
        [0.5, 1.0],
        {"sampled": est, "mean": est.typical()},
        repetitions=20,
        random_state=0,
    )
    # per setting: one l2 row and one row per coordinate, each with every statistic
    assert len(table) == 2 * 2 * (1 + 3) * len(STATISTICS)
    coords = table.where(sensitivity="sampled", epsilon=1.0, statistic="mean")
    assert coords.column("error") == ["l2", "absolute", "absolute", "absolute"]
    assert math.isnan(coords.rows[0]["coordinate"])
    assert coords.column("coordinate")[1:] == [0, 1, 2]
    assert coords.column("sensitivity_value")[1:] == list(
        np.ravel(est.sensitivity.value)
    )
    assert math.isnan(coords.rows[0]["sensitivity_value"])


def test_per_coordinate_errors_match_the_mechanism_scales(seed):
    # Fixed database: coordinate j's error is |Lap(b_j)|, whose mean is b_j.
    sens = np.array([1.0, 2.0, 4.0])
    reps = 3000
    table = sensitivity_sweep(
        queries.identity,
        np.array([1.0, 2.0, 3.0]),
        None,
        [1.0],
        {"array": sens},
        repetitions=reps,
        random_state=seed,
    )
    scales = LaplaceMechanism(sens, 1.0).scale
    rows = table.where(error="absolute", statistic="mean")
    for j, row in enumerate(rows):
        assert row["coordinate"] == j and row["sensitivity_value"] == sens[j]
        assert abs(row["value"] - scales[j]) < 6 * scales[j] / math.sqrt(reps)


def _pair(db):
    return (np.mean(db), np.median(db))


def _named(db):
    return {"mean": np.mean(db), "max": np.max(db)}


@pytest.mark.parametrize(
    "query, parts", [(_pair, ["0", "1"]), (_named, ["mean", "max"])]
)
def test_tuple_and_dict_outputs_are_swept_part_by_part(query, parts):
    # Failed before: "'tuple' object has no attribute 'gamma'".
    est = sample_sensitivity(query, HEIGHTS, 30, gamma=0.1, random_state=0)
    table = sensitivity_sweep(
        query,
        HEIGHTS,
        30,
        [1.0],
        {
            "sampled": est,
            "typical": tuple(est[i].typical(2) for i in range(len(est)))
            if query is _pair
            else {key: part.typical(2) for key, part in est.items()},
            "one": 1.0,
        },
        repetitions=10,
        random_state=0,
    )
    assert list(dict.fromkeys(table.column("part"))) == parts
    for part, (_, part_est) in zip(parts, est.items()):
        row = table.where(part=part, sensitivity="sampled").rows[0]
        assert row["sensitivity_value"] == part_est.sensitivity.value
        assert row["guarantee"] == f"random DP, gamma={printing.gamma(est.gamma)}"
        row = table.where(part=part, sensitivity="typical").rows[0]
        assert row["sensitivity_value"] == part_est.typical(2).value
        assert row["guarantee"] == "none (typical value)"
        assert table.where(part=part, sensitivity="one").rows[0][
            "sensitivity_value"
        ] == (1.0)


def test_typical_offsets_are_the_estimates_own():
    # One definition of "mean + K sd": the estimate's typical(), sd of the samples
    # with ddof=0, as SD_DEFINITION states on the figures.
    est = sample_sensitivity(queries.identity, HEIGHTS, 1, gamma=0.05, random_state=0)
    g = np.asarray(est.samples)
    sd = math.sqrt(sum((x - sum(g) / len(g)) ** 2 for x in g) / len(g))
    typical = est.typical(2)
    assert typical.value == pytest.approx(float(np.mean(g)) + 2 * sd, rel=1e-12)
    assert (typical.label, typical.source) == ("mean + 2 sd", "typical")
    assert "sampled sensitivities (ddof=0)" in SD_DEFINITION
    doc = " ".join(type(est).typical.__doc__.split())
    assert SD_DEFINITION in doc
    derived = sensitivity_sweep(
        queries.identity,
        HEIGHTS,
        1,
        [1.0],
        {"half": 0.5 * est.sensitivity},
        repetitions=2,
        random_state=0,
    )
    assert derived.column("guarantee")[0] == "none (derived value)"


def test_huge_errors_at_tiny_epsilons_are_finite_and_warning_free():
    # Failed before: epsilon=1e-300 gave an error of inf with RuntimeWarnings.
    # On a fixed database coordinate j's error is |Lap(1 / epsilon)|, of mean 1e300.
    reps = 2000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = sensitivity_sweep(
            queries.identity,
            np.array([1.0, 2.0]),
            None,
            [1e-300, 1.0],
            {"one": 1.0},
            repetitions=reps,
            random_state=0,
        )
    assert all(math.isfinite(v) for v in table.column("value"))
    for row in table.where(epsilon=1e-300, error="absolute", statistic="mean"):
        assert abs(row["value"] - 1e300) < 6 * 1e300 / math.sqrt(reps)


def test_releases_that_overflow_are_refused_naming_the_setting():
    # Noise of scale 1e308 overflows float64 in some of the 50 releases.
    with pytest.raises(ValueError, match="epsilon=1e-300"):
        sensitivity_sweep(
            queries.identity,
            np.array([1.0]),
            None,
            [1e-300],
            {"big": 1e8},
            repetitions=50,
            random_state=0,
        )


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(epsilons=[0.0, 1.0]), ValueError, "epsilons must be > 0"),
        (
            dict(epsilons=[]),
            ValueError,
            "epsilons must not be empty, got an empty grid.",
        ),
        (
            dict(sensitivities={"m": "mean+1sd"}),
            TypeError,
            "'mean+2sd' is read by sensampler.app.specs.parse_sensitivities",
        ),
        (
            dict(sensitivities=[1.0]),
            TypeError,
            "sensitivities must be a mapping {label: number, array or estimate}",
        ),
        (
            dict(sensitivities={"a": -1.0}),
            ValueError,
            "sensitivities['a'] must be >= 0.0",
        ),
        (dict(sensitivities={}), ValueError, "sensitivities must not be empty."),
        (
            dict(sensitivities={"a": (1.0, 2.0)}),
            ValueError,
            "sensitivity 'a' has parts ['0', '1'], the query's output has parts ['']",
        ),
        (
            dict(sensitivities={"a": np.ones(3)}),
            ValueError,
            "sensitivity 'a' has per-coordinate shape (3,), the query's output has "
            "shape ().",
        ),
        (dict(mechanism="laplace"), TypeError, "mechanism must be a mechanism class"),
        (dict(repetitions=0), ValueError, "repetitions must be an integer >= 1"),
        (dict(statistic=3), TypeError, "statistic must be callable"),
    ],
)
def test_bad_inputs(kwargs, exc, message):
    args = dict(epsilons=[1.0], sensitivities={"one": 1.0})
    args.update(kwargs)
    with pytest.raises(exc, match=re.escape(message)):
        sensitivity_sweep(
            queries.mean,
            HEIGHTS,
            10,
            args.pop("epsilons"),
            args.pop("sensitivities"),
            **args,
        )


def test_norm_choices_come_from_the_mechanisms():
    assert LaplaceMechanism.accepted_norms == ("l1", "coordinate")
    for cls in (GaussianMechanism, RenyiGaussianMechanism, ZCDPGaussianMechanism):
        assert cls.accepted_norms == ("l2", "l1", "coordinate")
    assert ExponentialMechanism.accepted_norms == ("linf", "l2", "l1", "coordinate")
    for name, (cls, _) in MECHANISMS.items():
        assert accepted_norms(name) == cls.accepted_norms
    assert accepted_norms(ANALYTIC) == GaussianMechanism.accepted_norms
    assert accepted_norms(mechanism_from_name("analytic", 1e-6))[0] == "l2"
    with pytest.raises(ValueError, match=re.escape("mechanism='gaussian' needs delta")):
        mechanism_from_name("gaussian")


def test_parse_sensitivities_reads_numbers_and_samples_once():
    calls = []

    def sample():
        calls.append(1)
        return sample_sensitivity(queries.mean, HEIGHTS, 50, gamma=0.1, random_state=0)

    out = parse_sensitivities("sampled, mean, mean+1.5sd, 0.5", sample)
    assert list(out) == ["sampled", "mean", "mean + 1.5 sd", "0.5"]
    assert out["0.5"] == 0.5 and len(calls) == 1
    assert out["mean + 1.5 sd"].value == out["sampled"].typical(1.5).value
    assert parse_sensitivities("0.5,2", sample) == {"0.5": 0.5, "2": 2.0}
    assert len(calls) == 1  # numbers alone need no sampling
    with pytest.raises(ValueError, match="got 'median'"):
        parse_sensitivities("sampled,median", sample)
    assert len(calls) == 1  # a bad item is refused before sampling


def test_result_table_csv_round_trip(tmp_path):
    table = ResultTable([{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}])
    path = tmp_path / "t.csv"
    table.to_csv(path)
    assert path.read_text() == "a,b\n1,0.5\n2,1.5\n"
    assert table.where(a=2).column("b") == [1.5]
    assert "a  b" in table.format()


def test_to_pandas_keeps_numeric_columns(estimate):
    pd = pytest.importorskip("pandas")
    table = sensitivity_sweep(
        queries.mean, HEIGHTS, 50, [1.0], {"s": estimate}, repetitions=5, random_state=0
    )
    frame = table.to_pandas()
    for column in ("sensitivity_value", "epsilon", "delta", "coordinate", "value"):
        assert pd.api.types.is_float_dtype(frame[column]), column
    assert frame["delta"].isna().all()


def test_to_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(
        ImportError, match=re.escape("pip install 'sensampler[pandas]'")
    ):
        ResultTable([{"a": 1}]).to_pandas()


def _distance(released, truth):
    return abs(float(released) - truth)


def test_a_score_reproduces_the_error_it_computes():
    # Scored as its distance to the true sum, each release gives the absolute
    # error: the same table values from the same seed.
    data = np.array([1.0, 2.0, 4.0])
    kwargs = dict(repetitions=30, random_state=5)
    plain = sensitivity_sweep(queries.sum, data, None, [0.5, 2.0], {"s": 1.0}, **kwargs)
    score = functools.partial(_distance, truth=7.0)
    scored = sensitivity_sweep(
        queries.sum, data, None, [0.5, 2.0], {"s": 1.0}, score=score, **kwargs
    )
    assert scored.column("value") == plain.column("value")
    assert set(scored.column("error")) == {"score"}  # a partial has no __name__
    assert set(plain.column("error")) == {"l2"}


def test_a_score_names_its_rows_and_has_no_coordinate_rows():
    def squared_norm(released):
        return float(np.sum(released**2))

    table = sensitivity_sweep(
        queries.identity,
        np.zeros(3),
        3,
        [1.0],
        {"g": 1.0},
        repetitions=400,
        score=squared_norm,
        random_state=0,
    )
    assert len(table) == len(STATISTICS)
    assert set(table.column("error")) == {"squared_norm"}
    assert math.isnan(table.rows[0]["coordinate"])
    # Laplace(b = 1) noise on 3 coordinates: E[sum of squares] = 3 * 2b^2 = 6; the
    # sum of squares has variance 3 * (24 - 4) = 60, so sd of the mean is sqrt(60/400).
    mean = table.where(statistic="mean").rows[0]["value"]
    assert_close_in_se(mean, 6.0, math.sqrt(60 / 400))


@pytest.mark.parametrize(
    "kwargs, query, exc, message",
    [
        ({"score": "mse"}, queries.mean, TypeError, "score must be callable, got "),
        (
            {"score": np.sum, "statistic": np.mean},
            queries.mean,
            ValueError,
            "score and statistic are exclusive",
        ),
        (
            {"score": np.sum},
            lambda d: (np.mean(d), np.median(d)),
            ValueError,
            "score needs a query with one output, got the parts ['0', '1'].",
        ),
    ],
)
def test_bad_scores_are_refused(kwargs, query, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        sensitivity_sweep(query, np.ones(4), None, [1.0], {"s": 1.0}, **kwargs)


def test_a_score_that_is_not_finite_names_the_setting():
    with pytest.raises(ValueError, match=re.escape("the scores of the releases for")):
        sensitivity_sweep(
            queries.mean,
            np.ones(4),
            None,
            [1.0],
            {"s": 1.0},
            score=lambda r: math.nan,
        )
