"""Audit findings on the private-bounds pre-pass refusal: its docstring states the
threshold the function computes (Dwork & Roth 2014, Thm. 3.11, at epsilon / 2
per quantile and a rank miss of at most n / 4: 16 du (ln R + ln 1/beta) / n)."""

import math
import pathlib

import sensampler
from sensampler.bounds import private_bounds_grid, smallest_private_bounds_epsilon


def test_the_docstring_states_the_threshold_computed():
    # failed: it said 8 du (...) / n (half the value computed) and its beta was a
    # backspace character (a "\b" in a plain string)
    doc = smallest_private_bounds_epsilon.__doc__
    assert "\x08" not in doc
    assert r"16\Delta u(\ln R + \ln(1/\beta))/n" in doc
    n, beta = 1000, 0.01
    independent = 16 * (math.log(private_bounds_grid().size) + math.log(1 / beta)) / n
    assert math.isclose(smallest_private_bounds_epsilon(n), independent, rel_tol=1e-12)


def test_no_source_file_holds_control_characters():
    root = pathlib.Path(sensampler.__file__).parent
    bad = [
        str(p.relative_to(root)) for p in root.rglob("*.py")
        if any(c in p.read_text() for c in "\x00\x07\x08\x0b\x0c")
    ]
    assert bad == []
