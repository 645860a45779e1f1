"""Audit findings on release reports: what a report says of a release must agree
with the release's own statement.

Each test is expected to fail until the finding is fixed (strict xfail)."""

import re

import numpy as np

from sensampler.app.release import release_statistic
from sensampler.app.report import release_report


def test_the_report_of_a_quantile_release_states_its_worst_case_guarantee():
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
