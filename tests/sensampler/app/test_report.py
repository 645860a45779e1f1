"""Release and audit reports: one self-contained page, figures inline, no private record."""

import dataclasses
import html
import json
import re
import types
from html.parser import HTMLParser

import numpy as np
import pytest

from sensampler._lib import printing
from sensampler.accounting import PrivacyFilter
from sensampler.app.cli import main
from sensampler.app.release import release_statistic
from sensampler.app.report import NO_PRIVATE_RECORD, check_report_path, release_report
from sensampler.distributions import GaussianMixture, PublicSample
from sensampler.privacy import PrivacyStatement
from sensampler.table import OutputFileError

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
PLANTED = 213.579246  # a private record no page may show
MAX_BYTES = 300 * 1024


class Page(HTMLParser):
    """Tags, attributes and text of a page; every tag closed in order."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "wbr"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.stack, self.tags, self.attrs, self.words = [], [], [], []
        self.feed(text)
        self.close()
        assert self.stack == []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()

    def handle_data(self, data):
        self.words.append(data)

    @property
    def text(self):
        return " ".join(" ".join(self.words).split())


def _csv(path, values):
    path.write_text("height\n" + "\n".join(f"{x:.6f}" for x in values) + "\n")
    return str(path)


@pytest.fixture
def files(tmp_path):
    private = HEIGHTS.sample(500, random_state=1)
    private[17] = PLANTED
    return (
        _csv(tmp_path / "private.csv", private),
        _csv(tmp_path / "public.csv", HEIGHTS.sample(2000, random_state=2)),
    )


def _self_contained(page: Page, text: str):
    assert len(text.encode()) < MAX_BYTES
    # nothing loaded: no script, no link, no src or href anywhere
    assert "script" not in page.tags and "link" not in page.tags
    assert not {"src", "href"} & set(page.attrs)
    assert "url(" not in text


def test_the_readme_release_writes_a_self_contained_report(files, tmp_path, capsys):
    private, public = files
    report = tmp_path / "report.html"
    ledger = tmp_path / "ledger.json"
    args = [
        "release", "--data", private, "--column", "height", "--query", "mean",
        "--population", f"bootstrap:{public}", "--epsilon", "0.5",
        "--budget-file", str(ledger), "--budget-epsilon", "1",
        "--report", str(report), "--seed", "0",
    ]
    assert main(args) == 0
    assert f"report written to {report}" in capsys.readouterr().out
    text = report.read_text()
    page = Page(text)
    _self_contained(page, text)
    # the figures, inline: the sampled sensitivities, the noise, the budget bars
    assert page.tags.count("svg") >= 3
    for heading in (
        "What was released",
        "What each release states",
        "The sampled sensitivity",
        "How accurate each answer is",
        "The price of a worst-case guarantee",
        "The budget left",
        NO_PRIVATE_RECORD,
    ):
        assert heading in page.text, heading
    assert "0.5 used of 1, 0.5 left" in page.text
    assert "213.57" not in text and "213.58" not in text


def test_the_report_names_what_the_guarantee_rests_on(files, tmp_path, capsys):
    """The report never named the population model or the public file, and said
    "gamma rests on gamma for this public sample ..." outside the cards."""
    private, public = files
    report = tmp_path / "report.html"
    args = [
        "release", "--data", private, "--column", "height", "--query", "mean",
        "--population", f"bootstrap:{public}", "--epsilon", "0.5",
        "--report", str(report), "--seed", "0",
    ]
    assert main(args) == 0
    page = Page(report.read_text())
    assert f"Population model (what every random-DP statement rests on): bootstrap:{public} " \
        "(column 'height')." in page.text
    assert "mean: what gamma rests on gamma for this public sample of 2000 rows" in page.text
    assert "gamma rests on gamma" not in page.text.replace("rests on gamma for", "")


def _shows_number(text: str, number: str) -> bool:
    """Whether ``number`` stands in ``text`` as a whole number, not inside another."""
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text) is not None


@pytest.mark.slow
def test_the_report_never_shows_the_exact_answer(files, tmp_path, capsys):
    private, public = files
    report = tmp_path / "r.html"
    data = np.loadtxt(private, skiprows=1)
    args = [
        "release", "--data", private, "--column", "height", "--query", "mean",
        "--query", "median", "--population", f"bootstrap:{public}",
        "--epsilon", "0.5", "--report", str(report), "--json",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"] == str(report)
    text = report.read_text()
    released = [f"{r['answer']:.6g}" for r in out["releases"]]
    assert all(value in text for value in released)
    for exact in (data.mean(), np.median(data)):
        # the page prints 6 significant digits at most; the noise (unseeded) can
        # make a released value print as the exact one, which is then no leak.
        # A number is matched whole: 169.68 is not in 169.684.
        shown = f"{exact:.6g}"
        assert shown in released or not _shows_number(text, shown)
        assert not _shows_number(text, f"{exact:.8g}")


def test_a_report_that_cannot_be_written_is_refused_before_any_spend(
    files, tmp_path, capsys
):
    private, public = files
    ledger = tmp_path / "ledger.json"
    args = [
        "release", "--data", private, "--column", "height",
        "--population", f"bootstrap:{public}", "--epsilon", "0.5",
        "--budget-file", str(ledger), "--budget-epsilon", "1",
        "--report", str(tmp_path / "missing" / "r.html"),
    ]
    assert main(args) == 2
    assert "which is not an existing folder" in capsys.readouterr().err
    assert not ledger.exists()


def test_release_statistic_writes_its_report(tmp_path):
    data = HEIGHTS.sample(300, random_state=4)
    budget = PrivacyFilter(2.0)
    path = tmp_path / "mean.html"
    release = release_statistic(
        data, "mean", HEIGHTS, epsilon=0.5, budget=budget, random_state=0, report=path
    )
    page = Page(path.read_text())
    assert f"{release.value:.6g}" in page.text
    assert "0.5 used of 2, 1.5 left" in page.text


def test_a_bad_report_path_spends_nothing(tmp_path):
    budget = PrivacyFilter(2.0)
    with pytest.raises(ValueError, match="is a folder, not a regular file"):
        release_statistic(
            HEIGHTS.sample(50, random_state=0), "mean", HEIGHTS, epsilon=0.5,
            budget=budget, report=tmp_path,
        )
    assert budget.count == 0
    with pytest.raises(TypeError, match="report must name a file, got report=''"):
        check_report_path("")


def test_the_price_of_a_worst_case_guarantee_is_shown_where_there_is_one(tmp_path):
    release = release_statistic(
        HEIGHTS.sample(200, random_state=5), "mean", HEIGHTS, epsilon=0.5,
        random_state=0,
    )
    fields = {f.name: getattr(release.statement, f.name)
              for f in dataclasses.fields(release.statement) if f.name != "worst_case"}
    worst = PrivacyStatement("Laplace", 2.0, 0.0, source="global")
    statement = types.SimpleNamespace(
        **fields, guaranteed=True, gamma=release.statement.gamma, worst_case=worst,
        core_text=release.statement.core_text,
    )
    text = Page(release_report([dataclasses.replace(release, statement=statement)])).text
    assert f"For every pair of neighbouring databases: {worst}" in text
    # Laplace: the noise that gives 0.5 here gives 2 for every pair, so 0.5 for
    # every pair needs 2 / 0.5 = 4 times the noise.
    assert "would need 4 times this noise" in text


def test_the_audit_report(tmp_path, capsys):
    report = tmp_path / "audit.html"
    args = [
        "audit", "--population", "a=normal:loc=0,scale=1",
        "--population", "b=normal:loc=0,scale=2", "--n", "50", "--pairs", "500",
        "--seed", "0", "--report", str(report),
    ]
    assert main(args) == 0
    text = report.read_text()
    page = Page(text)
    _self_contained(page, text)
    assert page.tags.count("svg") >= 2 + 4  # two estimates, four audits
    assert "Conservative choice" in page.text
    assert "no private data were read" in page.text


@pytest.mark.slow
def test_a_median_release_reports_its_mechanism_without_a_sampled_sensitivity(tmp_path):
    # The exponential mechanism samples no sensitivity and adds no noise: the
    # report says so instead of failing on the missing estimate.
    data = HEIGHTS.sample(300, random_state=4)
    data[5] = PLANTED
    path = tmp_path / "median.html"
    release = release_statistic(
        data, "median", HEIGHTS, epsilon=1.0, random_state=0, report=path
    )
    text = path.read_text()
    page = Page(text)
    _self_contained(page, text)
    assert release.estimate is None
    assert f"{release.value:.6g}" in page.text
    assert "No sensitivity was sampled" in page.text
    assert f"{PLANTED:.6f}"[:8] not in text


def test_a_public_sample_s_basis_is_on_the_card_and_the_page(tmp_path):
    # before: the confidence over the public sample that gamma rests on was in
    # the text and JSON only, not in the notebook card nor the report
    public = np.random.default_rng(7).normal(170, 10, 200)
    data = np.random.default_rng(8).normal(170, 10, 300)
    r = release_statistic(data, "mean", PublicSample(public), epsilon=1.0,
                          random_state=0)
    assert "at confidence" in r.basis
    assert "what gamma rests on" in r._repr_html_() and "at confidence" in r._repr_html_()
    page = release_report([r])
    assert "mean: what gamma rests on" in page and f"{html.escape(r.basis)}." in page


# ------------------------------------------- what a report says of a quantile release
# Audit findings on release reports: what a report says of a release must agree
# with the release's own statement.


@pytest.mark.slow
def test_the_report_of_a_quantile_release_states_its_worst_case_guarantee():
    """Audit finding: the report of a quantile release said "No worst-case statement"
    while the release states one (the plain mechanism at a cap, or a sampled scale's
    worst case); the report states it as the release does."""
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    for cap, words in ((1.0, "worst case: no gamma"), (None, "except with probability")):
        # plain (a cap at epsilon) or with a sampled scale: either way a worst case
        release = release_statistic(data, "median", "normal:loc=170,scale=10",
                                    epsilon=1.0, worst_case_epsilon=cap)
        assert words in release.guarantee
        page = release_report([release])
        start = page.index("Worst case: median")
        section = re.sub(r"<[^>]+>", " ", page[start:page.index("</section>", start)])
        assert "No worst-case statement" not in section
        if cap is not None:
            assert "random DP" not in section


# --------------------------------------- the report's path is checked before any work
# Issue 37, files the release writes (the commands' side: cli/test_cli.py): a report
# path that is a device, a FIFO, a link or a folder is refused before anything is
# sampled or spent.


def test_the_null_device_as_a_report_is_refused_by_the_check():
    """As root the old release replaced /dev/null with a regular file; the
    check refuses it now (only checked here: nothing writes the device)."""
    with pytest.raises(OutputFileError, match="is a device"):
        check_report_path("/dev/null")


def test_the_check_passes_a_new_name_and_a_regular_file(tmp_path):
    """What holds: the report check passes a new name, and an existing regular file,
    which the report replaces."""
    assert check_report_path(tmp_path / "new.html") == str(tmp_path / "new.html")
    (tmp_path / "old.html").write_text("x")
    assert check_report_path(tmp_path / "old.html")


@pytest.mark.slow  # a median release and its 20 public databases: ~5 s
def test_a_released_median_gets_its_accuracy_figure_in_the_data_units(files, tmp_path, capsys):
    """Issue 38: a median got only the mechanism's parameters in the report. It
    gets the 90% band of its error, computed from the exponential mechanism's
    own law on databases drawn from the public model, in the data's units
    (``--unit cm``), as a figure and a sentence like the mean's; the text and
    the JSON's human field print the same numbers."""
    private, public = files
    report = tmp_path / "median.html"
    args = [
        "release", "--data", private, "--column", "height", "--query", "median",
        "--population", f"bootstrap:{public}", "--epsilon", "0.5", "--unit", "cm",
        "--report", str(report), "--seed", "0", "--json",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)["releases"][0]
    assert out["unit"] == "cm" and 0.0 < out["error_90"] < 10.0
    band = f"±{printing.error(out['error_90'])} cm"
    assert out["answer_text"].endswith(f"(90%: {band})")
    page = Page(report.read_text())
    assert "Accuracy: median" in page.text
    assert f"90%: {band}" in page.text  # the figure's label
    assert f"within {band} of the exact one with probability 90%" in page.text
    assert "(never the data)" in page.text
    assert "svg" in page.tags and "the released quantile's error" in page.text


def test_the_unit_is_printed_beside_values_errors_sensitivities_and_bounds(files, capsys):
    """Issue 38: "No units anywhere." ``--unit cm`` is display only: it follows
    the released value, its error, the sensitivity and the bounds in the text,
    changes no number, and the JSON's numeric fields stay exact floats."""
    private, public = files
    base = [
        "release", "--data", private, "--column", "height", "--query", "mean",
        "--population", f"bootstrap:{public}", "--epsilon", "0.5", "--seed", "0",
    ]
    assert main(base + ["--unit", "cm"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"mean: [0-9.]+ cm \(90%: ±[0-9.]+ cm\)", text), text
    assert re.search(r"sensitivity [0-9.]+ cm \(l1;", text), text
    assert re.search(r"bounds +\[[0-9.]+, [0-9.]+\] cm", text), text
    assert main(base + ["--unit", "cm", "--json"]) == 0
    with_unit = json.loads(capsys.readouterr().out)["releases"][0]
    assert isinstance(with_unit["answer"], float) and isinstance(with_unit["sensitivity"], float)
    assert main(base + ["--json"]) == 0
    without = json.loads(capsys.readouterr().out)["releases"][0]
    assert without["unit"] is None and " cm" not in without["answer_text"]
    assert without["sensitivity"] == with_unit["sensitivity"]

