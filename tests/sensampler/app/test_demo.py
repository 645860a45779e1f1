"""The heights demo: one sampling run reused, aligned numbers, captions beside figures."""

import csv
import io
import re

import pytest

from sensampler.app.demo import HEIGHTS, run_demo
from sensampler.app.specs import PRESETS, build_population

pytestmark = pytest.mark.slow  # the module runs the whole demo once


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo")
    pytest.importorskip("matplotlib")
    text = io.StringIO()
    written = run_demo(out=text, out_dir=str(out_dir), random_state=2017)
    return text.getvalue(), written, out_dir


def _section(text, number):
    """The lines of a numbered section, up to the next blank line."""
    start = text.index(f"\n{number}. ") + 1
    return text[start:].split("\n\n")[0]


def test_the_sweep_reuses_the_released_estimate(demo):
    # Failed before: the sweep re-sampled (38.15 cm) instead of reusing 37.86 cm.
    text, _, out_dir = demo
    row = next(
        line.split()
        for line in _section(text, 2).splitlines()
        if line.split()[:4] == ["identity", "1", "l1", "exact"]
    )
    printed = float(row[5])
    with open(out_dir / "error_vs_epsilon.csv") as handle:
        rows = list(csv.DictReader(handle))
    swept = {
        float(r["sensitivity_value"]) for r in rows if r["sensitivity"] == "sampled"
    }
    assert len(swept) == 1 and round(swept.pop(), 4) == printed
    guarantees = {r["sensitivity"]: r["guarantee"] for r in rows}
    assert guarantees["mean + 2 sd"] == "none (typical value)"
    assert guarantees["sampled"].startswith("random DP")


def test_numbers_in_a_column_share_their_precision(demo):
    # Failed before: "12" printed beside "12.91".
    text, _, _ = demo
    for number in (2, 4):
        lines = [
            line
            for line in _section(text, number).splitlines()[3:]  # title, header, rule
            if line.strip() and not line.startswith("   ")
        ]
        assert lines
        columns = zip(*(line.split() for line in lines))
        for column in columns:
            decimals = {
                len(v.split(".")[1]) if "." in v else 0
                for v in column
                if re.fullmatch(r"-?[0-9.]+", v)
            }
            assert len(decimals) <= 1, column
        widths = {len(line) for line in lines}
        assert len(widths) == 1  # right-aligned columns end together


def test_every_figure_has_a_caption_with_its_parameters(demo):
    _, written, out_dir = demo
    pngs = [p for p in written if p.endswith(".png")]
    assert len(pngs) == 6
    for png in pngs:
        caption = (out_dir / png.split("/")[-1].replace(".png", ".txt")).read_text()
        assert caption.strip()
    sweep = (out_dir / "error_vs_epsilon.txt").read_text()
    facts = ("100 repetitions", "500 heights drawn", "gamma = 0.0498", "sd =")
    for fact in facts:
        assert fact in sweep
    assert "sigma = 200" in (out_dir / "epsilon_vs_iterations.txt").read_text()


def test_the_demo_population_is_the_heights_preset():
    assert repr(HEIGHTS) == repr(build_population(PRESETS["heights"]))
