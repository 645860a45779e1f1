"""Public API of ``sensampler release`` from Python, as users type it.

Type-checked by tests/test_typing.py (pyright), never run.
"""

from typing import assert_type

import numpy as np

from sensampler.accounting import PrivacyFilter
from sensampler.app.budget_file import BudgetFile
from sensampler.app.data_files import read_column
from sensampler.app.release import Release, release_statistic, release_statistics
from sensampler.privacy import PrivacyStatement
from sensampler.settings import ReleaseSettings

heights = read_column("private.csv", "height")
assert_type(heights, np.ndarray)
budget = BudgetFile("ledger.json", epsilon=1.0, delta=1e-6)
one = release_statistic(
    heights, "mean", "bootstrap:public.csv", column="height", epsilon=0.5,
    budget=budget, random_state=3,
)
assert_type(one, Release)
assert_type(one.statement, PrivacyStatement)
assert_type(one.guarantee, str)
several = release_statistics(
    heights, ["mean", "median"], "normal:loc=170,scale=10", epsilon=0.5,
    budget=PrivacyFilter(2.0),
)
assert_type(several, tuple[Release, ...])
assert_type(budget.filter(), PrivacyFilter)
# bounds as text through build (the field is typed as the parsed BoundsSetting)
settings = ReleaseSettings.build(epsilon=0.5, bounds="100:250", inequality="dkw")
assert_type(settings.epsilon, float | None)
by_record = release_statistic(heights, "mean", "normal:loc=170,scale=10", settings)
assert_type(by_record, Release)
changed = release_statistics(
    heights, ["mean"], "normal:loc=170,scale=10", settings, epsilon=0.25,
    report="release.html",
)
assert_type(changed, tuple[Release, ...])
