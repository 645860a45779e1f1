"""The reports and rich displays rendered by a real browser: no text leaves its card.

A copy of each page gets a small script that lists every element whose content
is wider than its box (``scrollWidth > clientWidth``), whose box leaves its
card's, and every SVG label that leaves its figure; headless Chromium runs it
(``--dump-dom``) and the test reads the list back. Skipped where no Chromium is
installed (Debian: ``apt-get install chromium``).
"""

import html
import json
import re
import shutil
import subprocess
import tempfile

import pytest

from sensampler.accounting import PrivacyFilter
from sensampler.app.cli import main
from sensampler.app.planning import plan_release
from sensampler.app.release import release_statistic
from sensampler.audit import audit_mechanism
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms import LaplaceMechanism

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
BROWSER = next(
    (b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
    None,
)
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium on PATH (Debian: apt-get install chromium)"
)

#: Lists what overflows into <pre id="overflow">, as JSON.
PROBE = """<script>
function name(el) {
  const text = (el.textContent || '').trim().slice(0, 60);
  return el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
    ? '.' + el.className : '') + ' "' + text + '"';
}
const found = [];
for (const el of document.body.querySelectorAll('*')) {
  const box = el.getBoundingClientRect();
  if (el.ownerSVGElement) {
    const frame = el.ownerSVGElement.getBoundingClientRect();
    if (el.tagName === 'text' && (box.left < frame.left - 0.5 || box.right > frame.right + 0.5))
      found.push(name(el) + ' leaves its figure');
    continue;
  }
  if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
    found.push(name(el) + ' is ' + el.scrollWidth + ' px wide in ' + el.clientWidth);
  const card = el.parentElement && el.parentElement.closest('.sensampler-card');
  if (card) {
    const frame = card.getBoundingClientRect();
    if (box.width > 0 && (box.left < frame.left - 0.5 || box.right > frame.right + 0.5))
      found.push(name(el) + ' leaves its card');
  }
}
const out = document.createElement('pre');
out.id = 'overflow';
out.textContent = JSON.stringify(found);
document.body.appendChild(out);
</script>"""


def overflows(page: str, width: int = 1200) -> list[str]:
    """What overflows in ``page`` rendered by Chromium ``width`` pixels wide."""
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/page.html"
        with open(path, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", PROBE + "</body>"))
        dom = subprocess.run(
            [
                BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                f"--user-data-dir={folder}/profile", f"--window-size={width},2000",
                "--virtual-time-budget=5000", "--dump-dom", f"file://{path}",
            ],
            capture_output=True, text=True, timeout=120, check=True,
        ).stdout
    found = re.search(r'<pre id="overflow"[^>]*>(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.slow
def test_the_audit_report_fits_its_cards(tmp_path):
    """The audit report clipped the gamma label at its chart's edge and its table
    of all audits overflowed its card (issue 38)."""
    report = tmp_path / "audit.html"
    args = [
        "audit", "--query", "mean", "--n", "200", "--population", "normal",
        "--population", "laplace=laplace:scale=0.7071", "--pairs", "2000",
        "--seed", "2017", "--report", str(report),
    ]
    assert main(args) == 0
    assert overflows(report.read_text()) == []


@pytest.mark.slow
def test_the_release_report_and_the_rich_displays_fit(tmp_path):
    """A release report, and the cards a notebook shows (a release, an estimate,
    a plan, a filter, a mechanism audit), keep every text inside its card at
    1 200 px."""
    data = HEIGHTS.sample(300, random_state=4)
    path = tmp_path / "release.html"
    release = release_statistic(
        data, "mean", HEIGHTS, epsilon=1.0, bounds="120:220", random_state=0,
        report=path,
    )
    assert overflows(path.read_text()) == []
    budget = PrivacyFilter(epsilon=1.0, delta=1e-5)
    budget.release(LaplaceMechanism(release.estimate, epsilon=0.5), 1.0)
    shown = [
        release,
        release.estimate,
        plan_release("mean", HEIGHTS, 300, epsilon=1.0, runs=20, random_state=0),
        budget,
        audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=2000,
                        random_state=0),
    ]
    cards = "".join(item._repr_html_() for item in shown)
    assert overflows(f"<!DOCTYPE html><html><body>{cards}</body></html>") == []
