"""Audit findings on rich displays: every epsilon, delta and gamma they print
must be rounded so as never to state more privacy than holds (spent and gamma
up, confidence 1 - gamma down), as the text forms do.

Each test is expected to fail until the finding is fixed (strict xfail)."""

import re

import numpy as np
import pytest

from sensampler.accounting import PrivacyFilter
from sensampler.app.release import release_statistic
from sensampler.privacy import PrivacyStatement, SamplingRun


def test_the_estimate_card_never_understates_gamma():
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
