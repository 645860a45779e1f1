"""The documentation site builds with no warning (``make docs`` does the same)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.docs
@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    for module in ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme"):
        pytest.importorskip(module, reason="needs the docs extra: sensampler[docs]")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "--keep-going",
            "-q",
            "-d",
            str(tmp_path / "doctrees"),
            os.path.join(ROOT, "docs"),
            str(tmp_path / "html"),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-5000:]
    html = tmp_path / "html"
    # Every public module has its reference page, and the notebooks their figures.
    assert (html / "api" / "sensampler.distributions.html").exists()
    page = (html / "examples" / "generated" / "05_variants_of_dp.html").read_text()
    assert "<img" in page
    # Issue 38: the guide's pages had an empty left column and code running past
    # its block at 1 200 px; every page now lists the site and wraps its code.
    guide = (html / "guide" / "first-release.html").read_text()
    assert 'aria-label="Site navigation"' in guide and 'href="quickstart.html"' in guide
    assert "_static/sensampler.css" in guide
    assert "white-space: pre-wrap" in (html / "_static" / "sensampler.css").read_text()
