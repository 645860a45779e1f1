"""plan_release: the epsilon a target error needs, checked against simulated releases."""

import dataclasses
import json
import math
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import bisect

from sensampler import queries, sample_sensitivity
from sensampler.app.cli import main
from sensampler.app.planning import (
    ACCOUNTS_FOR_NOTHING,
    NOT_PRIVATE_EPSILON,
    plan_release,
    prepare_plan,
)
from sensampler.app.release import quantile_bounds, release_statistic
from sensampler.distributions import GaussianMixture, LogNormal, Normal
from sensampler.mechanisms import (
    ExponentialQuantileMechanism,
    GaussianMechanism,
    LaplaceMechanism,
)
from sensampler.mechanisms.accuracy import NoiseModel
from sensampler.mechanisms.choice import quantile_level_of
from sensampler.parallel import child_seed
from sensampler.privacy import format_upper
from sensampler.quantile_calibration import calibrate_quantile
from tests.conftest import assert_close_in_se

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
N = 500
REPETITIONS = 200  # simulated releases, each on its own data and sampling run
DRAWS = 250  # noise draws per release: the noise's share of the error's variance
# A quantile's error varies more from database to database (the records' spacing
# near the quantile) than the mean's noise: more databases, fewer draws each.
QUANTILE_REPETITIONS, QUANTILE_DRAWS, QUANTILE_RUNS = 800, 25, 2000


def _simulated_errors(query, epsilon, seed):
    """|release - answer| of REPETITIONS simulated releases, DRAWS noises each.

    Each repetition draws its own data from the population and its own sampling
    run, calibrates the Laplace mechanism as the release does (L1, exact plan,
    gamma 0.05) and draws the noise from the mechanism itself.
    """
    root = np.random.SeedSequence(seed)
    rng = np.random.default_rng(child_seed(root, 0))
    errors = np.empty((REPETITIONS, DRAWS))
    for rep in range(REPETITIONS):
        data = HEIGHTS.sample(N, random_state=child_seed(root, 1 + 2 * rep))
        answer = float(query(data))
        est = sample_sensitivity(
            query, HEIGHTS, N, gamma=0.05, norm="l1", inequality="exact",
            random_state=child_seed(root, 2 + 2 * rep),
        )
        mech = LaplaceMechanism(est, epsilon)
        errors[rep] = [
            abs(mech.release(answer, random_state=rng) - answer) for _ in range(DRAWS)
        ]
    return errors


def _simulated_quantile_errors(query, epsilon, seed):
    """|release - answer| of REPETITIONS simulated quantile releases, DRAWS each.

    Each repetition draws its own data from the population and releases it
    through the mechanism the release builds for the query: the release's own
    rule (``quantile_level_of``) and bounds (``quantile_bounds``), the
    exponential mechanism reading the data column; seeded here, where the
    release draws fresh entropy. The draws come from the mechanism's
    ``output_law`` on each database, which is the law ``release`` samples
    (``test_output_law_is_the_law_release_samples`` in the mechanism's tests,
    on these heights at this n): the plan computes expected errors from the law
    in closed form, the simulation samples it, on other databases and another
    calibration. Sampling the law costs 0.8 ms a database where 25 exact
    releases cost 60 ms.
    """
    root = np.random.SeedSequence(seed)
    rng = np.random.default_rng(child_seed(root, 0))
    low, high, _ = quantile_bounds(HEIGHTS)
    level = quantile_level_of(query)
    # the release's scale: calibrated on pairs drawn from the population
    calibration = calibrate_quantile(
        level, (low, high), epsilon, HEIGHTS, N, gamma=0.05, random_state=seed
    )
    mech = ExponentialQuantileMechanism(
        level, (low, high), epsilon, calibration=calibration
    )
    errors = np.empty((QUANTILE_REPETITIONS, QUANTILE_DRAWS))
    for rep in range(QUANTILE_REPETITIONS):
        data = HEIGHTS.sample(N, random_state=child_seed(root, 1 + rep))
        answer = float(query(data))
        grid, chances = mech.output_law(data)
        errors[rep] = np.abs(rng.choice(grid, size=QUANTILE_DRAWS, p=chances) - answer)
    return errors


@pytest.mark.slow
def test_the_planned_epsilon_gives_the_target_error_over_200_releases():
    target = 0.1
    plan = plan_release("mean", HEIGHTS, N, target_error=target, random_state=7)
    assert plan.expected_error == pytest.approx(target, rel=1e-9)
    errors = _simulated_errors(queries.mean, plan.epsilon, seed=2024)
    observed = errors.mean()
    # The goal: within 10% of the target.
    assert abs(observed / target - 1.0) < 0.10, (observed, plan.epsilon)
    # And within 6 standard errors: the simulation's (its repetitions are i.i.d.)
    # and the plan's own (the mean of its runs' sensitivities).
    se_sim = errors.mean(axis=1).std(ddof=1) / math.sqrt(REPETITIONS)
    s = np.asarray(plan.sensitivities)
    se_plan = target * s.std(ddof=1) / s.mean() / math.sqrt(plan.runs)
    assert_close_in_se(observed, target, math.hypot(se_sim, se_plan))
    # The 90th percentile the plan states, against the simulated one.
    assert abs(np.quantile(errors, 0.9) / plan.error_90 - 1.0) < 0.10


@pytest.mark.slow  # the plan's 2 000 databases and 800 simulated ones: ~10 s a case
@pytest.mark.parametrize(("name", "measure"), [("median", "mean"), ("median", 0.9),
                                               ("quantile:0.9", "mean")])
def test_a_quantile_plan_gives_the_target_error_of_the_release_mechanism(
    name, measure
):
    # The release answers quantiles by the exponential mechanism over the
    # population model's bounds; the plan must plan that mechanism.
    target = 0.2 if measure == "mean" else 0.45
    plan = plan_release(name, HEIGHTS, N, target_error=target, measure=measure,
                        runs=QUANTILE_RUNS if measure == "mean" else 500,
                        random_state=7)
    assert plan.mechanism == "exponential"
    errors = _simulated_quantile_errors(
        prepare_plan(name, HEIGHTS, N, epsilon=1.0).query, plan.epsilon, seed=2024
    )
    if measure == "mean":
        # the sampled scale takes fixed values: the error steps down past the
        # target by at most a step (a scale 2**(1/16) larger)
        assert 0.9 * target <= plan.expected_error <= target
        target = plan.expected_error
        observed = errors.mean()
        # Standard errors: the simulation's (its repetitions are i.i.d.) and the
        # plan's. The plan averages the exact conditional error E[err | D] over
        # as many databases from the same law, whose variance is at most that
        # of a repetition's mean over its releases: se_plan <= se_sim scaled to
        # the plan's number of databases.
        reps = QUANTILE_REPETITIONS
        se_sim = errors.mean(axis=1).std(ddof=1) / math.sqrt(reps)
        se = math.hypot(se_sim, se_sim * math.sqrt(reps / plan.runs))
        # The 10% tolerance is itself at least 6 standard errors: not a test
        # that passes by luck, nor one that fails by it.
        assert 6 * se <= 0.10 * target, se
        assert abs(observed / target - 1.0) < 0.10, (observed, plan.epsilon)
        assert_close_in_se(observed, target, se)
        assert abs(np.quantile(errors, 0.9) / plan.error_90 - 1.0) < 0.10
    else:
        # the error's law lives on the grid, and the sampled scale on fixed
        # values: its quantile is a step function of epsilon
        assert 0.9 * target <= plan.error_90 <= target
        assert abs(np.quantile(errors, 0.9) / target - 1.0) < 0.10
        assert abs(errors.mean() / plan.expected_error - 1.0) < 0.10


@pytest.mark.slow
def test_a_quantile_plan_names_the_release_mechanism_bounds_and_guarantee():
    data = HEIGHTS.sample(N, random_state=1)
    released = release_statistic(data, "median", HEIGHTS, epsilon=0.5)
    plan = plan_release("median", HEIGHTS, N, epsilon=0.5, runs=5, random_state=0)
    bounds = released.bounds
    assert (plan.mechanism, plan.bounds) == (released.mechanism, (bounds.low, bounds.high))
    assert plan.bounds_source == bounds.describe()
    # the release's scale is sampled from the population: random DP, with gamma
    assert plan.guarantee == released.guarantee
    assert "except with probability gamma" in plan.guarantee and plan.delta == 0.0
    cal = released.calibration
    assert (plan.m, plan.k, plan.gamma, plan.inequality) == (
        cal.run.m, cal.run.k, cal.run.gamma, cal.run.inequality
    )
    assert plan.sensitivity is None and plan.sensitivities == ()
    # the same calibration on other pairs: the scale may differ by a step or two,
    # so the plan states the most the release may state (the largest candidate)
    assert 0.5 < released.statement.worst_case.epsilon <= plan.worst_case_epsilon
    assert plan.worst_case_epsilon == 2.0
    text = plan.text()
    assert "of the exponential mechanism's scale" in text
    assert "worst case      at most epsilon=2-DP for every pair" in text
    assert not re.search(r"sensitivity  ", text), text
    out = plan.to_dict()
    assert out["m"] == cal.run.m and out["worst_case_epsilon"] == plan.worst_case_epsilon
    assert out["bounds"] == [released.bounds.low, released.bounds.high]
    assert "exponential mechanism's error" in out["error"]
    # the plain mechanism's plan (no scale sampled): no m, k or gamma, no number
    plain = dataclasses.replace(plan, gamma=None, m=None, k=None, inequality=None,
                                worst_case_epsilon=plan.epsilon)
    assert "no gamma" in plain.guarantee
    assert "m, k and gamma do not apply" in plain.text()
    assert not re.search(r"\b(m|k|gamma)=", plain.text()), plain.text()
    assert "do not apply" in plain.to_dict()["sampling_plan"]
    html = plain._repr_html_()
    parser = HTMLParser()
    parser.feed(html)
    parser.close()
    assert "m, k and gamma do not apply" in html and "<svg" not in html
    # A sensitivity-sampled plan keeps its random-DP guarantee, gamma included.
    mean = plan_release("mean", HEIGHTS, N, epsilon=0.5, runs=5, random_state=0)
    assert "except with probability gamma=0.04982 over the data" in mean.guarantee
    assert mean.sampling_plan == "m=113, k=113, gamma=0.04982 (exact)"


@pytest.mark.slow
def test_a_plan_cannot_state_a_guarantee_its_fields_do_not_carry():
    plan = plan_release("median", HEIGHTS, N, epsilon=1.0, runs=3, random_state=0)
    with pytest.raises(ValueError, match="a plan of the exponential mechanism has"):
        dataclasses.replace(plan, gamma=None)  # a sampled scale needs its gamma
    with pytest.raises(ValueError, match="a plan of the exponential mechanism has"):
        dataclasses.replace(plan, sensitivity=1.0)
    with pytest.raises(ValueError, match="a plan of the exponential mechanism has"):
        dataclasses.replace(plan, bounds=None)
    with pytest.raises(ValueError, match="a plan of the laplace mechanism samples"):
        dataclasses.replace(plan, mechanism="laplace")


@pytest.mark.slow
def test_a_median_is_planned_as_released_whatever_the_noise_mechanism():
    plan = plan_release("median", HEIGHTS, N, epsilon=1.0, delta=1e-6,
                        mechanism="gaussian", runs=3, random_state=0)
    same = plan_release("median", HEIGHTS, N, epsilon=1.0, runs=3, random_state=0)
    assert (plan.mechanism, plan.delta) == ("exponential", 0.0)
    assert plan.expected_error == same.expected_error


@pytest.mark.slow
def test_given_bounds_are_those_of_the_release():
    plan = plan_release("median", HEIGHTS, N, epsilon=1.0, runs=5, bounds=(150, 190),
                        random_state=0)
    assert plan.bounds == (150.0, 190.0) and plan.bounds_source == "[150, 190] (given)"
    with pytest.raises(ValueError, match=re.escape(
        "bounds must be 'auto', 'none', 'LOW:HIGH' (low < high, both finite), a "
        "(low, high) pair or None (a plan reads no private data), got bounds=(2, 1)."
    )):
        prepare_plan("median", HEIGHTS, N, epsilon=1.0, bounds=(2, 1))


@pytest.mark.slow
def test_a_quantile_target_fixes_that_quantile_of_the_error():
    plan = plan_release(
        "mean", HEIGHTS, N, target_error=0.2, measure=0.9, random_state=3
    )
    assert plan.error_90 == pytest.approx(0.2, rel=1e-9)
    errors = _simulated_errors(queries.mean, plan.epsilon, seed=99)
    assert abs(np.quantile(errors, 0.9) / 0.2 - 1.0) < 0.10


def test_laplace_epsilon_is_the_mean_sensitivity_over_the_target():
    # E|Lap(b)| = b = Delta / epsilon, so epsilon = mean(Delta) / target.
    plan = plan_release("mean", HEIGHTS, N, target_error=0.05, runs=20, random_state=0)
    assert plan.epsilon == pytest.approx(np.mean(plan.sensitivities) / 0.05, rel=1e-9)
    # P[|Lap(b)| > t] = exp(-t / b): the 90% error of one run is b log 10.
    assert plan.error_90 >= 0.0
    one = plan_release("mean", HEIGHTS, N, epsilon=1.0, runs=1, random_state=0)
    assert one.error_90 == pytest.approx(one.sensitivity * math.log(10.0), rel=1e-9)


@pytest.mark.slow
def test_target_and_epsilon_round_trip():
    forward = plan_release("median", HEIGHTS, N, target_error=0.3, random_state=5)
    back = plan_release("median", HEIGHTS, N, epsilon=forward.epsilon, random_state=5)
    assert back.expected_error == forward.expected_error <= 0.3
    assert back.target_error is None and forward.target_error == 0.3


def test_gaussian_plan_matches_the_analytic_calibration():
    plan = plan_release(
        "mean", Normal(170, 10), N, target_error=0.1, delta=1e-6,
        mechanism="gaussian", runs=30, random_state=0,
    )
    sigma = GaussianMechanism(1.0, plan.epsilon, 1e-6).sigma
    # E|N(0, sigma^2)| = sigma sqrt(2 / pi), averaged over the runs.
    expected = np.mean(plan.sensitivities) * sigma * math.sqrt(2 / math.pi)
    assert expected == pytest.approx(0.1, rel=1e-6)
    # The 90% error of a mixture of half-normals, by an independent root finder.
    s = np.asarray(plan.sensitivities) * sigma

    def sf(t):
        return np.mean(2 * stats.norm.sf(t / s)) - 0.1

    assert plan.error_90 == pytest.approx(bisect(sf, 0, 10 * s.max(), xtol=1e-14))


def test_the_mechanism_is_a_parameter():
    # A noise model of one's own: uniform noise on [-scale, scale], E|Z| = 1/2.
    uniform = NoiseModel(
        "uniform", lambda eps, delta: 1.0 / eps, 0.5,
        lambda t: np.clip(1.0 - np.asarray(t), 0.0, 1.0), False,
    )
    plan = plan_release("mean", HEIGHTS, N, target_error=0.1, noise_model=uniform,
                        runs=10, random_state=0)
    assert plan.mechanism == "uniform"
    assert plan.epsilon == pytest.approx(0.5 * np.mean(plan.sensitivities) / 0.1)
    # no release to ask for its worst case: the cap stands for it
    assert plan.worst_case_epsilon == plan.worst_case_cap == 10 * plan.epsilon


def test_the_plan_says_it_accounts_for_nothing_and_what_error_means():
    plan = plan_release("mean", HEIGHTS, N, epsilon=0.5, runs=5, random_state=0)
    text = plan.text()
    assert ACCOUNTS_FOR_NOTHING in text and plan.note == ACCOUNTS_FOR_NOTHING
    assert "the noise only" in text
    assert plan.to_dict()["note"] == ACCOUNTS_FOR_NOTHING
    assert "sensitivities" not in plan.to_dict()
    parser = HTMLParser()
    parser.feed(plan._repr_html_())
    parser.close()
    assert "no private record was read" in plan._repr_html_()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({}, ValueError, "give exactly one of target_error and epsilon, got "
         "target_error=None, epsilon=None."),
        ({"target_error": 1.0, "epsilon": 1.0}, ValueError,
         "give exactly one of target_error and epsilon"),
        ({"target_error": 0.0}, ValueError, "target_error must be"),
        ({"epsilon": -1.0}, ValueError, "epsilon"),
        ({"epsilon": 1.0, "mechanism": "cauchy"}, ValueError,
         "mechanism must be one of 'laplace', 'gaussian', 'discrete-laplace', "
         "'discrete-gaussian', got mechanism='cauchy'."),
        ({"epsilon": 1.0, "mechanism": "discrete-laplace"}, ValueError,
         "a plan computes the error of the mechanisms 'laplace', 'gaussian' (or of "
         "a noise_model), got mechanism='discrete-laplace'."),
        ({"epsilon": 1.0, "noise_model": "laplace"}, TypeError,
         "noise_model must be a NoiseModel or None, got 'laplace'."),
        ({"epsilon": 1.0, "bound": "exact"}, ValueError,
         "has unknown setting(s) 'bound'"),
        ({"epsilon": 1.0, "delta": 1e-6}, ValueError,
         "mechanism='laplace' is pure epsilon-DP and takes no delta, got delta=1e-06."),
        ({"epsilon": 1.0, "mechanism": "gaussian"}, ValueError,
         "mechanism='gaussian' needs delta > 0, got delta=0.0."),
        ({"epsilon": 1.0, "measure": "median"}, ValueError,
         "measure must be 'mean' or a probability in (0, 1), got measure='median'."),
        ({"epsilon": 1.0, "measure": 1.0}, ValueError, "measure must be"),
        ({"epsilon": 1.0, "runs": 0}, ValueError, "runs"),
        ({"epsilon": 1.0, "gamma": 1.5}, ValueError, "gamma"),
    ],
)
def test_bad_input_is_refused_before_anything_is_drawn(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        prepare_plan("mean", HEIGHTS, N, **kwargs)


def test_bad_n_and_query_are_refused():
    with pytest.raises(ValueError, match="n must be"):
        prepare_plan("mean", HEIGHTS, 0, epsilon=1.0)
    with pytest.raises(ValueError, match="unknown query 'nope'"):
        prepare_plan("nope", HEIGHTS, 10, epsilon=1.0)


def test_a_population_that_never_moves_the_query_cannot_be_planned():
    # Replace-one neighbours keep n fixed: the count never moves; without bounds
    # its noise is 0.
    with pytest.raises(ValueError, match="every sampled sensitivity of count"):
        plan_release("count", HEIGHTS, 50, target_error=0.1, runs=3, random_state=0,
                     bounds=None)


def test_a_sampled_sensitivity_of_0_is_planned_at_the_release_s_floor():
    # Over bounds the release raises a sampled 0 to the worst-case floor
    # (worst case 1 / (10 epsilon)): the plan says so. Before: refused as if
    # no noise were added.
    plan = plan_release("count", HEIGHTS, 50, epsilon=1.0, runs=3, random_state=0)
    release = release_statistic(HEIGHTS.sample(50, random_state=1), "count",
                                epsilon=1.0, population=HEIGHTS, random_state=0)
    assert release.noise == "Laplace noise of scale 0.1"
    assert plan.expected_error == pytest.approx(0.1, rel=1e-12)
    assert plan.worst_case_epsilon == release.statement.worst_case.epsilon == 10.0


def test_a_quantile_target_below_its_error_floor_names_the_reachable_range():
    # The error of the minimum's release never falls below half the first gap
    # [low, z_1] on average: no epsilon reaches 0.01 with 3 records.
    with pytest.raises(ValueError, match=r"target_error=0\.01 needs an epsilon "
                       r"outside \[1e-06, 1e\+06\] for this query and population "
                       r"\(the error there goes from [0-9.]+ to [0-9.]+\)"):
        plan_release("quantile:0", HEIGHTS, 3, target_error=0.01, runs=20,
                     random_state=0)


def test_an_unreachable_target_names_the_way_out():
    with pytest.raises(ValueError, match="target_error=1e-12 needs an epsilon outside"):
        plan_release("mean", HEIGHTS, N, target_error=1e-12, runs=3, random_state=0)


def test_the_plan_text_rounds_its_epsilon_and_delta_up():
    # Before: the mechanism line printed epsilon=0.37037 and delta=1.23e-05, below
    # the plan's 0.3703701 and 1.23401e-05 (rounded to nearest), where every
    # statement rounds up.
    plan = plan_release(
        "mean", HEIGHTS, N, epsilon=0.3703701, delta=1.23401e-5, mechanism="gaussian",
        runs=3, random_state=0,
    )
    line = next(x for x in plan.text().splitlines() if "mechanism" in x)
    assert "epsilon=0.370371, delta=1.24e-05" in line, line
    for name, value in (("epsilon", plan.epsilon), ("delta", plan.delta)):
        for printed in re.findall(rf"\b{name}=([0-9.e+-]+[0-9])", plan.text()):
            assert float(printed) >= value, (name, printed)


# ----------------------------------------------------------------- what a plan prints
# Audit findings on planning a release: what a plan prints must agree with what the
# planned release will state.
#
# Each test failed until its finding was fixed.


POP = "normal:loc=170,scale=10"


@pytest.mark.slow
def test_a_median_plan_is_for_the_mechanism_the_release_uses():
    """Audit finding: a median plan was for a mechanism on a sampled sensitivity, where
    the release uses the exponential mechanism with a scale calibrated on the
    population; the plan is for that mechanism (or refuses, naming it) and states its
    guarantee and gamma."""
    try:
        plan = plan_release("median", POP, 500, target_error=0.1, runs=10,
                            random_state=0)
    except ValueError:
        return  # refused, naming the exponential mechanism: a valid fix
    assert plan.mechanism == "exponential"
    # no sampled sensitivity; the release's scale is calibrated on the
    # population, and the plan states that guarantee, with the scale's gamma
    assert plan.sensitivity is None and plan.sensitivities == ()
    assert 0 < plan.gamma <= 0.05 and "except with probability gamma" in plan.guarantee


def test_a_plan_prints_gamma_as_the_release_states_it():
    """Audit finding: a plan printed gamma rounded to the nearest, below the gamma the
    release states; its text and card round it up, as the release does."""
    plan = plan_release("mean", POP, 200, epsilon=1.0, runs=5, random_state=0)
    assert plan.gamma == pytest.approx(0.0498142, rel=1e-5)
    text = plan.text()
    shown = re.search(r"gamma=([0-9.e-]+)", text).group(1)
    assert shown == format_upper(plan.gamma, 4)
    card = plan._repr_html_()
    assert f"gamma={format_upper(plan.gamma, 4)}" in card


# ----------------------------------------------------------------- what a plan states
# Audit findings on what a plan states (issue 37): a plan states what the release
# will.
#
# Findings (each test failed before its fix):
#
# - ``sensampler plan --target-error`` answered an epsilon of 57 (worst case 572)
#   without a word: a plan whose epsilon, or whose worst case, is beyond what
#   anyone would call private (above 10) now says so in its text, card and JSON;
# - the plan's worst-case line showed the cap (10 epsilon), not the worst case the
#   planned release states: it now shows the release's own (built as the release
#   builds its mechanism), equal to it on the release's seed;
# - the plan's guarantee left out the public-sample wording the release prints
#   (what gamma rests on for a bootstrap of public rows): it now says it, as the
#   release does, and public rows given as an array are a public sample, as the
#   release reads them.


INCOMES = LogNormal(10.5, 0.8)
DATA = HEIGHTS.sample(N, random_state=1)
PUBLIC = HEIGHTS.sample(400, random_state=2)  # public rows, drawn apart from DATA


def _shown(plan):
    """The plan's text, card and JSON (strict), as one list."""
    out = json.dumps(plan.to_dict(), allow_nan=False)
    return [plan.text(), plan._repr_html_(), out]


def test_a_plan_beyond_what_anyone_calls_private_says_so(capsys):
    """Finding: sensampler plan --target-error answered an epsilon of 57 (worst case
    572) without a word; a plan whose epsilon or worst case is above 10 says so in
    its text, card and JSON."""
    plan = plan_release("mean", HEIGHTS, N, target_error=0.001, runs=5, random_state=0)
    assert plan.epsilon > NOT_PRIVATE_EPSILON == 10.0
    assert plan.warning.startswith(f"epsilon={plan.epsilon:.6g}"[:12])
    for shown in _shown(plan):
        assert "beyond what anyone would call private (above 10)" in shown
    assert plan.to_dict()["warning"] == plan.warning
    # on the command line, the text says it first
    assert main(["plan", "--query", "mean", "--population", "heights", "--n", str(N),
                 "--target-error", "0.001", "--runs", "5", "--seed", "0"]) == 0
    line = capsys.readouterr().out.splitlines()[2]
    assert line.startswith("  WARNING") and "beyond what anyone would call" in line
    # a worst case beyond it, at a small epsilon: a wide range and a high cap
    wide = plan_release("mean", INCOMES, 1000, epsilon=1.0, bounds=(0.0, 1e7),
                        worst_case_epsilon=100.0, runs=3, random_state=0)
    assert wide.epsilon == 1.0 and wide.worst_case_epsilon > NOT_PRIVATE_EPSILON
    assert wide.warning.startswith("the worst case, epsilon=")
    for shown in _shown(wide):
        assert "beyond what anyone would call private" in shown
    # a private plan says nothing of the kind
    calm = plan_release("mean", HEIGHTS, N, epsilon=1.0, runs=5, random_state=0)
    assert calm.warning is None and calm.to_dict()["warning"] is None
    assert not any("beyond what anyone" in shown for shown in _shown(calm))


@pytest.mark.parametrize("mechanism,delta", [("laplace", 0.0), ("gaussian", 1e-6)])
@pytest.mark.parametrize("epsilon", [0.5, 5.7])
def test_the_worst_case_is_the_one_the_release_states(mechanism, delta, epsilon):
    """Finding: the plan's worst-case line showed the cap (10 epsilon), not the worst
    case the planned release states; it shows the release's own, equal to it on the
    release's seed."""
    # run 0 of the plan is the release's sampling run: the same worst case, which
    # the cap (10 epsilon) does not bind here
    settings = dict(epsilon=epsilon, delta=delta, mechanism=mechanism)
    plan = plan_release("mean", HEIGHTS, N, runs=1, random_state=0, **settings)
    release = release_statistic(DATA, "mean", HEIGHTS, random_state=0, **settings)
    stated = release.statement.worst_case.epsilon
    assert plan.worst_case_epsilon == stated < plan.worst_case_cap == 10 * epsilon
    assert plan.worst_case.startswith(release.worst_case), (plan.worst_case,
                                                            release.worst_case)
    # over more runs: the largest of the runs' (the release's among them)
    more = plan_release("mean", HEIGHTS, N, runs=20, random_state=0, **settings)
    assert stated <= more.worst_case_epsilon < 10 * epsilon
    assert "the largest over the 20 sampling runs" in more.worst_case


def test_the_guarantee_says_what_a_public_sample_rests_on(tmp_path):
    """Finding: the plan's guarantee left out the public-sample wording the release
    prints (what gamma rests on for a bootstrap of public rows); public rows given as
    an array are a public sample too, as the release reads them."""
    path = tmp_path / "public.csv"
    path.write_text("height\n" + "\n".join(f"{float(x)!r}" for x in PUBLIC) + "\n")
    spec = f"bootstrap:{path}"
    kw = dict(epsilon=1.0, random_state=0)
    plan = plan_release("mean", spec, N, column="height", runs=1, **kw)
    release = release_statistic(DATA, "mean", spec, column="height", **kw)
    assert "public sample of 400 rows" in release.guarantee
    assert plan.guarantee == release.guarantee
    assert plan.basis in plan.text() and plan.to_dict()["basis"] == plan.basis
    # public rows as an array: a public sample, for the plan as for the release
    rows = plan_release("mean", np.asarray(PUBLIC), N, runs=1, **kw)
    released = release_statistic(DATA, "mean", np.asarray(PUBLIC), **kw)
    assert rows.guarantee == released.guarantee == release.guarantee


@pytest.mark.slow
def test_a_quantile_s_guarantee_says_what_a_public_sample_rests_on():
    """Finding, for a quantile: the plan's guarantee says what a public sample rests on,
    as the release's does."""
    # the exponential mechanism's scale, calibrated on the public sample's
    # posterior populations (few records: the calibration runs on each)
    kw = dict(epsilon=1.0, random_state=0)
    plan = plan_release("median", np.asarray(PUBLIC), 40, runs=1, **kw)
    release = release_statistic(DATA[:40], "median", np.asarray(PUBLIC), **kw)
    assert "public sample of 400 rows" in release.guarantee
    assert plan.guarantee == release.guarantee
