"""Rich display: every record a notebook shows renders well-formed, escaped HTML."""

import dataclasses
import html
import math
import re
import types
from html.parser import HTMLParser

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler._display.figures import (
    histogram_svg,
    interval_svg,
    noise_half_width,
    noise_svg,
)
from sensampler._display.page import RED
from sensampler._display.statements import statement_html
from sensampler._lib import printing
from sensampler.accounting import (
    PLDAccountant,
    PrivacyFilter,
    RenyiAccountant,
    RenyiFilter,
    WhitehouseFilter,
    ZCDPAccountant,
)
from sensampler.app.budget_file import BudgetFile
from sensampler.app.planning import plan_release
from sensampler.app.release import release_statistic
from sensampler.audit import (
    PopulationChoice,
    audit_estimate,
    audit_mechanism,
    compare_populations,
    conservative_choice,
)
from sensampler.bounds import Bounds, private_bounds
from sensampler.distributions import GaussianMixture, MultivariateNormal, Normal
from sensampler.estimate import SensitivityValue
from sensampler.mechanisms import (
    CatastropheMechanism,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialQuantileMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
)
from sensampler.plan import SamplingPlan, sampling_plan
from sensampler.privacy import (
    PrivacyBound,
    PrivacyStatement,
    SamplingRun,
    format_upper,
)
from sensampler.table import ResultTable

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
VOID = {"meta", "br", "img", "input", "link", "hr", "wbr"}


class Checker(HTMLParser):
    """Parses HTML, checks every tag is closed in order, collects text and tags."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.tags, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(markup: str) -> Checker:
    checker = Checker()
    checker.feed(markup)
    checker.close()
    assert checker.stack == [], checker.stack
    return checker


def words(markup: str) -> str:
    return " ".join(" ".join(parse(markup).text).split())


@pytest.fixture(scope="module")
def estimate():
    return sample_sensitivity(queries.mean, HEIGHTS, n=500, gamma=0.05, random_state=0)


@pytest.fixture(scope="module")
def laplace(estimate):
    return LaplaceMechanism(estimate, epsilon=0.5)


def test_an_estimate_shows_its_sampled_sensitivities_with_gk_and_the_mean(estimate):
    markup = estimate._repr_html_()
    checker = parse(markup)
    assert "svg" in checker.tags and checker.tags.count("rect") >= 5
    text = words(markup)
    for piece in (
        f"G_(k) = {printing.sensitivity(estimate.sensitivity.value)}",
        f"mean of the sampled = {printing.sensitivity(estimate.mean.value)}",
        "m=113, k=113",
        "n 500",
        "replace-one",
    ):
        assert piece in text, piece
    assert repr(estimate).startswith("SensitivityEstimate(sensitivity=")  # unchanged


def test_a_per_coordinate_estimate_renders_without_a_figure():
    est = sample_sensitivity(
        queries.histogram(3, range=(-2, 2)), Normal(0, 1), n=20, gamma=0.05,
        norm="per-coordinate", random_state=0,
    )
    text = words(est._repr_html_())
    assert "figure for one number only" in text


def test_a_statement_is_a_card_in_plain_words(laplace):
    text = words(laplace.privacy._repr_html_())
    for piece in (
        "What is protected",
        "epsilon=0.5-DP",
        "What gamma means",
        "gamma is not delta",
        "Worst case. None",
        "Who is left unprotected",
        str(laplace.privacy),
    ):
        assert piece in text, piece


def test_a_statement_shows_its_worst_case_part_where_there_is_one(laplace):
    worst = PrivacyStatement("Laplace", 3.0, 0.0, source="global")
    fields = {f.name: getattr(laplace.privacy, f.name)
              for f in dataclasses.fields(laplace.privacy) if f.name != "worst_case"}
    with_worst = types.SimpleNamespace(
        **fields, guaranteed=True, gamma=laplace.privacy.gamma, worst_case=worst,
        core_text=laplace.privacy.core_text,
    )
    markup = statement_html(with_worst)
    text = words(markup)
    assert f"For every pair of neighbouring databases, whatever the data: {worst}" in text
    assert "beyond the worst-case statement" in text


def test_a_global_and_an_unguaranteed_statement(estimate):
    text = words(LaplaceMechanism(1.0, 1.0).privacy._repr_html_())
    assert "No one" in text and "What gamma means" not in text
    typical = LaplaceMechanism(estimate.mean, 1.0)
    assert "nothing is protected" in words(typical.privacy._repr_html_())


def test_statement_numbers_are_rounded_up_as_in_the_text():
    # epsilon 0.1234567 prints as 0.123457 (up), never 0.123456.
    statement = PrivacyStatement("Laplace", 0.12345651, 0.0, source="global")
    assert "epsilon=0.123457-DP" in words(statement._repr_html_())


@pytest.mark.parametrize(
    "make",
    [
        lambda: PrivacyFilter(1.0),
        lambda: PrivacyFilter(10.0, 1e-6, rule="advanced", gamma=0.2),
        lambda: RenyiFilter(10.0, 1e-6),
        lambda: WhitehouseFilter(10.0, 1e-6),
        RenyiAccountant,
        ZCDPAccountant,
        PLDAccountant,
    ],
)
def test_accountants_and_filters_show_spent_against_remaining(make, laplace):
    accountant = make()
    empty = words(accountant._repr_html_())
    assert "Nothing recorded yet" in empty
    accountant.compose(laplace)
    markup = accountant._repr_html_()
    text = words(markup)
    assert "Laplace" in text and "replace-one" in text
    if hasattr(accountant, "epsilon_budget"):
        # what the filter's rule has used of its epsilon, and what is left
        left = accountant.remaining.epsilon
        used = accountant.epsilon_budget - left
        # rounded up, as every amount spent is printed
        shown = f"{format_upper(used, 6)} used of {accountant.epsilon_budget:.6g}"
        assert shown in text
        assert f"Left: {accountant.remaining}" in text
        assert f"What was spent guarantees: {accountant.spent}" in text
        assert "svg" in parse(markup).tags
    else:
        assert "releases recorded 1" in text


def test_a_filter_at_its_budget_shows_a_full_bar(laplace):
    f = PrivacyFilter(0.5)
    f.compose(laplace)
    assert "0.5 used of 0.5, 0 left" in words(f._repr_html_())
    assert RED in f._repr_html_()


def test_a_budget_file_shows_its_spend_and_is_not_changed(tmp_path, laplace):
    path = tmp_path / "ledger.json"
    budget = BudgetFile(path, epsilon=2.0)
    assert "does not exist yet" in words(budget._repr_html_())
    with budget.session() as session:
        session.spend(laplace.privacy, "mean")
    before = path.read_bytes()
    text = words(budget._repr_html_())
    assert path.read_bytes() == before
    assert "0.5 used of 2, 1.5 left" in text and "ledger.json" in text


def test_audits_show_the_interval_against_beta_and_gamma(estimate, laplace):
    coverage = audit_estimate(estimate, pairs=2000, random_state=1)
    text = words(coverage._repr_html_())
    assert f"beta={coverage.beta:.3g}" in text and coverage.verdict in text
    assert f"[{coverage.lower:.4g}, {coverage.upper:.4g}]" in text
    mech = audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=4000,
                           random_state=2)
    text = words(mech._repr_html_())
    assert "not refuted" in text and "stated 1" in text


def test_a_population_comparison_shows_each_audit():
    comparison = compare_populations(
        queries.mean, {"a": Normal(0, 1), "b": Normal(0, 2)}, 50, 0.05, pairs=500,
        random_state=0,
    )
    checker = parse(comparison._repr_html_())
    assert checker.tags.count("svg") == 4


def test_a_result_table_escapes_its_cells():
    table = ResultTable([{"name": "<script>alert(1)</script>", "x": 0.123456789}])
    markup = table._repr_html_()
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert "0.12346" in words(markup)  # as the text table prints it
    assert repr(table) == "ResultTable(1 rows: name, x)"


def test_a_result_tables_privacy_columns_print_as_every_statement_prints_them():
    """Issue 38: the audit table printed gamma 0.0498142 to nearest (0.049814,
    below the gamma stated) while the statement printed 0.04982. A result
    table's gamma, beta, epsilon, delta and sensitivity columns are printed by
    the one policy, rounded up, in the text and the HTML alike."""
    table = ResultTable([{"gamma": 0.0498142, "sensitivity": 0.01987781, "rate": 0.0047213}])
    text, html_text = table.format(), words(table._repr_html_())
    for shown in ("0.04982", "0.0198779", "0.0047213"):
        assert shown in text and shown in html_text, shown
    assert "0.049814 " not in text and "0.019878 " not in text


def test_a_hostile_query_name_is_escaped(estimate):
    hostile = dataclasses.replace(estimate, query='"><img src=x onerror=alert(1)>')
    markup = hostile._repr_html_()
    assert "<img" not in markup and "onerror=alert(1)&gt;" in markup
    parse(markup)


@pytest.mark.slow
def test_a_release_and_a_plan_render(tmp_path):
    data = HEIGHTS.sample(200, random_state=3)
    release = release_statistic(data, "median", HEIGHTS, epsilon=1.0, random_state=0)
    text = words(release._repr_html_())
    assert f"{release.value:.6g}" in text and "What is protected" in text
    plan = plan_release("mean", HEIGHTS, 200, epsilon=1.0, runs=5, random_state=0)
    assert "no private record was read" in words(plan._repr_html_())


def test_the_svg_helpers_survive_degenerate_input():
    for samples in ([], [1.0, 1.0], [math.nan, 2.0]):
        parse(histogram_svg(samples, [(math.inf, "x", "red")], label="t"))
    parse(noise_svg(1.0, 0.0, "laplace", label="t"))
    parse(interval_svg(0.0, 0.0, [], label="t"))


def test_the_gaussian_noise_half_width():
    # Phi^-1(0.95) = 1.6448536..., so the central 90% of N(0, 2^2) is +- 3.2897
    assert noise_half_width(2.0, "gaussian", 0.9) == pytest.approx(3.289707253)
    # P[|Lap(b)| > t] = exp(-t / b): t = b log 10 for 90%
    assert noise_half_width(2.0, "laplace", 0.9) == pytest.approx(2 * math.log(10))


def test_gaussian_mechanism_statement_renders():
    est = sample_sensitivity(queries.mean, HEIGHTS, n=100, gamma=0.05, norm="l2",
                             random_state=0)
    text = words(GaussianMechanism(est, 0.5, 1e-6).privacy._repr_html_())
    assert "(epsilon=0.5, delta=1e-06)-DP" in text


# ------------------------------------------------------- the other public records
HOSTILE = "<script>alert(1)</script>"


def assert_escaped(markup: str) -> None:
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    parse(markup)


def test_a_sampling_plan_shows_its_numbers_rounded_up_and_its_meaning():
    plan = sampling_plan(gamma=0.05)
    text = words(plan._repr_html_())
    # the text prints nearest; the card never prints gamma, rho or beta below the plan's
    for name, kind in (("gamma", "gamma"), ("rho", "rho"), ("beta", "gamma")):
        value = getattr(plan, name)
        shown = getattr(printing, kind)(value)
        assert shown in text and float(shown) >= value
    assert f"pairs drawn m {plan.m}" in text and plan.meaning in text
    assert repr(plan).startswith("SamplingPlan(m=")  # unchanged


def test_a_plan_gamma_just_above_a_round_number_prints_above_it():
    # gamma = 0.05 + 1e-9 prints 0.05 to nearest; rounded up it reads 0.05001
    plan = SamplingPlan(m=100, k=100, gamma=0.05 + 1e-9, rho=1e-9, beta=0.05, inequality="exact")
    text = words(plan._repr_html_())
    assert "gamma 0.05001" in text and "share) 1e-09" in text


def test_bounds_show_their_source_and_what_they_spent():
    given = Bounds.given(0.0, 10.0)
    text = words(given._repr_html_())
    assert "low 0" in text and "high 10" in text and "no private record was read" in text
    data = HEIGHTS.sample(500, random_state=0)
    private = private_bounds(data, 0.5234561, random_state=0)
    markup = private._repr_html_()
    text = words(markup)
    # 0.5234561 rounded up to 6 digits; the statement's card is inside
    assert "epsilon=0.523457, spent on the private data" in text
    assert "What is protected" in text and parse(markup).tags.count("div") >= 2
    assert_escaped(dataclasses.replace(given, note=HOSTILE)._repr_html_())
    assert repr(given).startswith("Bounds(low=0.0")  # unchanged


def test_a_sensitivity_value_says_what_its_source_guarantees(estimate):
    sampled = estimate.sensitivity
    text = words(sampled._repr_html_())
    value = float(np.asarray(sampled.value))
    assert f"value {format_upper(value, 6)}" in text
    assert float(format_upper(value, 6)) >= value
    assert "random DP" in text and f"gamma of its run {format_upper(estimate.gamma, 4)}" in text
    assert "protects nothing" in words(estimate.mean._repr_html_())
    assert "protects nothing" in words((sampled - 0.001)._repr_html_())
    assert_escaped(SensitivityValue(1.0, "typical", label=HOSTILE)._repr_html_())
    assert repr(sampled).startswith("SensitivityValue(")  # unchanged


def test_a_vector_sensitivity_value_shows_its_first_coordinates_rounded_up():
    value = SensitivityValue(np.arange(10) / 3, "typical", label="per bin")
    text = words(value._repr_html_())
    assert "[0 0.333334 0.666667 1 1.33334" in text and "…]" in text


def test_a_privacy_bound_shows_epsilon_at_delta_rounded_up():
    bound = PrivacyBound(0.30000001, 1e-6, 0.0123451, method=HOSTILE)
    markup = bound._repr_html_()
    text = words(markup)
    assert "(epsilon=0.300001, delta=1e-06)-DP" in text
    assert "gamma 0.01235: the bound holds except" in text
    assert_escaped(markup)
    text = words(PrivacyBound(math.inf, 0.0, math.inf)._repr_html_())
    assert "epsilon=inf-DP" in text and "no limit" in text
    assert str(bound).startswith("(epsilon=0.300001")  # unchanged


def test_a_ledger_entry_shows_its_numbers_rounded_up(laplace):
    accountant = RenyiAccountant()
    accountant.compose(laplace, count=3)
    entry = accountant.ledger[0]
    text = words(entry._repr_html_())
    assert "releases 3" in text and "epsilon (each) 0.5" in text
    assert f"gamma of the run {format_upper(entry.gamma, 4)}" in text
    assert "rho (each) 0.125" in text  # Laplace: rho = epsilon^2 / 2
    assert "rho (each) (none stated)" in words(
        dataclasses.replace(entry, rho=None)._repr_html_()
    )
    hostile = dataclasses.replace(entry, mechanism=HOSTILE, worst_case_epsilon=2.0000001,
                                  worst_case_delta=0.0)
    markup = hostile._repr_html_()
    assert_escaped(markup)
    assert "epsilon=2.00001, delta=0" in words(markup)


class HostileLaplace(LaplaceMechanism):
    name = HOSTILE


@pytest.mark.parametrize(
    "make, noise",
    [
        (lambda: LaplaceMechanism(2.0, 0.5), "noise scale 4"),  # b = 2 / 0.5
        (lambda: GaussianMechanism(1.0, 0.5, 1e-5), "noise sigma"),
        (lambda: ExponentialQuantileMechanism(0.5, (140, 210), 1.0), ""),
        (lambda: RandomizedResponse(3, 1.0), ""),
        (lambda: CatastropheMechanism(1.0, 1.0, 0.1, data=HOSTILE), "noise scale 1"),
        (lambda: DiscreteLaplaceMechanism(1.0, 1.0, granularity=0.5), "noise scale"),
        (lambda: DiscreteGaussianMechanism(1.0, rho=0.5, granularity=0.5), "noise sigma"),
    ],
)
def test_a_mechanism_shows_its_noise_and_its_statement_card(make, noise):
    mechanism = make()
    markup = mechanism._repr_html_()
    text = words(markup)
    assert noise in text and "What is protected" in text
    assert str(mechanism.privacy) in text and mechanism.name in text
    assert "<script>" not in markup and HOSTILE not in text  # never the data it keeps
    assert repr(mechanism) == f"<{type(mechanism).__name__}: {mechanism.privacy}>"


def test_a_mechanism_prints_its_sensitivity_and_noise_rounded_up():
    # to nearest both print 0.3; copied from the card they would calibrate less noise
    text = words(LaplaceMechanism(0.30000001, 1.0)._repr_html_())
    assert "sensitivity 0.300001 noise scale 0.300001" in text


def test_a_mechanism_name_is_escaped():
    assert_escaped(HostileLaplace(1.0, 1.0)._repr_html_())


def test_a_population_choice_shows_its_bound_against_the_limit():
    choice = PopulationChoice(HOSTILE, 1.5, 0.0612341, 0.1, True)
    markup = choice._repr_html_()
    assert_escaped(markup)
    text = words(markup)
    assert "worst upper bound 0.06124" in text and "limit (multiple * gamma) 0.1" in text
    assert "Qualified" in text and "svg" in parse(markup).tags
    assert "no estimate qualified" in words(
        dataclasses.replace(choice, qualified=False)._repr_html_()
    ).lower()


def test_a_population_choice_from_a_comparison_renders():
    comparison = compare_populations(
        queries.mean, {"a": Normal(0, 1), "b": Normal(0, 2)}, 50, 0.05, pairs=500,
        random_state=0,
    )
    choice = conservative_choice(comparison)
    assert f"Population choice: {choice.name}" in words(choice._repr_html_())


class HostileModel(Normal):
    def _params(self):
        return {"name": HOSTILE}


@pytest.mark.parametrize(
    "model, shape",
    [
        (HEIGHTS, "a number"),
        (MultivariateNormal(np.zeros(3), np.eye(3)), "an array of shape (3,)"),
    ],
)
def test_a_population_model_shows_its_repr_and_record_shape(model, shape):
    text = words(model._repr_html_())
    assert " ".join(repr(model).split()) in text and f"one record {shape}" in text


def test_a_population_model_repr_is_escaped():
    assert_escaped(HostileModel(0, 1)._repr_html_())


# ------------------------------------------------- numbers rounded the safe way
# Audit findings: every epsilon, delta and gamma a rich display prints must be
# rounded so as never to state more privacy than holds (spent and gamma up,
# confidence 1 - gamma down), as the text forms do.


def test_the_estimate_card_never_understates_gamma():
    """Audit finding: the estimate card must print gamma rounded up and the
    confidence 1 - gamma rounded down, as the text forms do."""
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    release = release_statistic(data, "mean", "normal:loc=170,scale=10",
                                epsilon=1.0, random_state=0)
    gamma = release.estimate.gamma
    assert gamma == pytest.approx(0.0498142, rel=1e-5)  # the exact plan, m = k = 113
    card = release.estimate._repr_html_()
    shown = float(re.search(r"gamma=([0-9.e-]+)", card).group(1))
    confidence = float(re.search(r"1 - gamma = ([0-9.e-]+)", card).group(1))
    assert shown >= gamma
    assert confidence <= 1.0 - gamma


def test_the_filter_card_never_understates_what_was_spent():
    """Audit finding: the filter card must print the epsilon and gamma spent (in
    its text and its bars' labels) rounded up, as the text forms do."""
    budget = PrivacyFilter(1.0, gamma=0.5)
    budget.compose(PrivacyStatement(
        "m", 0.1, 0.0, run=SamplingRun("a", 0.0996810255), source="sampled"))
    budget.compose(PrivacyStatement(
        "m", 0.2, 0.0, run=SamplingRun("b", 0.0), source="sampled"))
    spent = budget.spent
    assert spent.epsilon > 0.3 and spent.gamma == 0.0996810255
    card = budget._repr_html_()
    used = [float(x) for x in re.findall(r"([0-9.e-]+) used of", card)]
    labels = [float(x) for x in re.findall(
        r'aria-label="[a-z]+: ([0-9.e-]+) of [0-9.e-]+ used"', card)]
    assert len(used) == 2 and len(labels) == 2  # epsilon and gamma bars
    for shown, exact in zip(used, (spent.epsilon, spent.gamma)):
        assert shown >= exact
    for shown, exact in zip(labels, (spent.epsilon, spent.gamma)):
        assert shown >= exact


def test_the_sensitivity_histogram_says_what_its_marks_and_axis_are():
    """The estimate card's histogram labelled its mark "mean = 88.34" with no axis
    title: beside a released mean it read as the data's mean."""
    est = sample_sensitivity(queries.mean, Normal(170.0, 10.0), 100, m=200, random_state=0)
    card = est._repr_html_()
    assert "mean of the sampled = " in card and "sensitivity G_(k) = " in card
    assert "sampled sensitivity (l1), one per pair" in card
    assert ">mean = " not in card


def test_the_ledger_table_prints_privacy_parameters_rounded_up():
    """The ledger table printed gamma as 0.04981423103679866 beside 0.04982 in
    the same card."""
    budget = PrivacyFilter(10.0, 1e-3)
    release_statistic(HEIGHTS.sample(300, random_state=1), "mean", HEIGHTS, epsilon=0.5,
                      budget=budget, random_state=0)
    card = budget._repr_html_()
    assert "0.04981423103679866" not in card and "0.04982" in card


def _label_boxes(markup):
    """(left, right, baseline) of each SVG label, by the figures' character width,
    and (x, top, bottom) of each vertical line."""
    from sensampler._display.figures import CHAR_WIDTH

    boxes = []
    for anchor_x, y, anchor, text in re.findall(
        r'<text x="([\d.]+)" y="([\d.]+)"[^>]*text-anchor="(\w+)"[^>]*>([^<]*)</text>', markup
    ):
        x, size = float(anchor_x), CHAR_WIDTH * len(html.unescape(text))
        left = {"start": x, "end": x - size, "middle": x - size / 2}[anchor]
        boxes.append((left, left + size, float(y)))
    pattern = r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"'
    lines = [
        (float(x), float(top), float(bottom))
        for x, top, x2, bottom in re.findall(pattern, markup)
        if x == x2
    ]
    return boxes, lines


@pytest.mark.parametrize("gamma", [0.0498, 0.045, 0.0575])
def test_the_audit_chart_s_labels_stay_inside_and_apart(gamma):
    """The audit report clipped the gamma label at the chart's right edge and drew
    the gamma line across the beta label (issue 38): every name now stays inside
    the figure and no mark's line crosses another's name."""
    markup = interval_svg(
        0.0042, 0.0053, [(0.0413, "beta=0.0413", RED), (gamma, f"gamma={gamma}", "#999")],
        point=0.0047, label="t", axis="rate",
    )
    width = float(re.search(r'width="(\d+)"', markup).group(1))
    boxes, lines = _label_boxes(markup)
    assert all(0 <= left and right <= width for left, right, _ in boxes)
    for x, top, bottom in lines:
        crossed = [
            b for b in boxes if b[0] - 1 <= x <= b[1] + 1 and top < b[2] and b[2] - 8 < bottom
        ]
        assert crossed == [], (x, crossed)


def test_a_table_writes_a_column_with_one_value_once():
    """The audit report's table of all audits, 13 columns, overflowed its card
    (issue 38): a column with one value in every row is written once above it."""
    table = ResultTable(
        [{"population": p, "pairs": 100000, "rate": r} for p, r in (("a", 0.5), ("b", 0.25))]
    )
    checker = parse(table._repr_html_())
    text = " ".join(" ".join(checker.text).split())
    assert "In every row: pairs 100000." in text
    assert text.count("100000") == 1 and checker.tags.count("th") == 2
    # one row: nothing to factor out
    assert "In every row" not in ResultTable([{"pairs": 1}])._repr_html_()


def test_a_filter_card_prints_one_gamma_one_way(estimate):
    """Issue 38: one gamma printed as 0.0498143 (the bar's text), 0.04982 (its
    label, the ledger) and more in one filter card. Every place that prints the
    spent gamma prints it the same way, rounded up, as the statement does."""
    budget = PrivacyFilter(2.0, 1e-5, gamma=0.2)
    budget.spend(LaplaceMechanism(estimate, epsilon=0.5).privacy)
    text = words(budget._repr_html_())
    spent = printing.gamma(estimate.gamma)
    assert spent == "0.04982" and float(spent) >= estimate.gamma
    shown = set(re.findall(r"\b0\.0498[0-9]*", text))
    assert shown == {spent}, shown


def test_the_estimate_card_and_the_mechanism_card_print_one_sensitivity(estimate, laplace):
    """Issue 38: one sensitivity printed 0.0715376 in the estimate card (to
    nearest) and 0.0715377 in the mechanism card (rounded up). Both print it
    rounded up (a bound that scales noise), the same way."""
    value = printing.sensitivity(estimate.sensitivity.value)
    assert float(value) >= float(estimate.sensitivity.value)
    estimate_text = words(estimate._repr_html_())
    mechanism_text = words(laplace._repr_html_())
    assert f"sensitivity G_(k) {value} (l1)" in estimate_text
    assert f"G_(k) = {value}" in estimate_text
    assert f"sensitivity {value}" in mechanism_text
    nearest = f"{float(estimate.sensitivity.value):.6g}"
    if nearest != value:
        assert nearest not in estimate_text + mechanism_text
