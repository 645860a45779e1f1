"""Near copies of the private data given as the population (issue 37): refused,
while independent samples of the same law pass."""

import numpy as np
import pytest

from sensampler.distributions.empirical import check_not_private, near_copy

SHIFTED = "shifted or rescaled"
ROUNDED = "rounded"


def _heights(seed=8, n=500):
    return np.random.default_rng(seed).normal(170, 10, n)


@pytest.mark.parametrize(
    "copy, words",
    [
        (lambda x: x + 0.001, SHIFTED),
        (lambda x: x + 1e-9, SHIFTED),
        (lambda x: x / 2.54, SHIFTED),  # another unit
        (lambda x: -x[::-1], SHIFTED),
        (lambda x: x.astype(np.float32), SHIFTED),
        (lambda x: np.round(x, 1), ROUNDED),
        (lambda x: np.round(x[::-1]), ROUNDED),
    ],
    ids=["+0.001", "+1e-9", "inches", "negated", "float32", "one decimal", "integers"],
)
def test_a_near_copy_is_refused_without_quoting_a_value(copy, words):
    """Before: only the exact private rows were refused; these passed."""
    private = _heights()
    with pytest.raises(ValueError, match=words) as info:
        check_not_private(copy(private), private, "bootstrap:copy.csv")
    message = str(info.value)
    assert message.startswith("the population bootstrap:copy.csv: its rows are")
    assert not any(f"{v:.1f}" in message for v in private[:50])


def test_a_near_copy_of_rows_of_several_columns_is_refused():
    rng = np.random.default_rng(2)
    rows = np.column_stack([rng.normal(size=(300, 3)), rng.integers(0, 2, 300)])
    shifted = rows + [1e-3, -2e-3, 0.0, 0.0]
    assert SHIFTED in near_copy(shifted[rng.permutation(300)], rows)
    assert ROUNDED in near_copy(np.round(rows, 2)[::-1], rows)


def test_independent_samples_of_one_law_pass():
    """The threshold: sorted, two independent samples of n values differ by
    about 1.8 sd / sqrt(n) at a normal median; the tolerance is 0.1 sd /
    sqrt(n) for 90 % of the rows, which no independent pair reached (the
    largest share measured was 0.4 at n = 20, 0.21 from n = 100 on)."""
    rng = np.random.default_rng(5)
    laws = (
        lambda n: rng.normal(170, 10, n),
        lambda n: rng.uniform(0, 1, n),
        lambda n: rng.exponential(1.0, n),
        lambda n: rng.standard_t(3, n),
    )
    for n in (20, 100, 500, 5000):
        for law in laws:
            assert near_copy(law(n), law(n)) is None
            assert near_copy(np.round(law(n), 1), law(n)) is None
    ages = rng.integers(20, 80, 500).astype(float)
    assert near_copy(rng.integers(20, 80, 500).astype(float), ages) is None
    check_not_private(rng.integers(20, 80, 500).astype(float), ages)  # passes
    rows = np.column_stack([rng.normal(size=(500, 3)), rng.integers(0, 2, 500)])
    other = np.column_stack([rng.normal(size=(500, 3)), rng.integers(0, 2, 500)])
    assert near_copy(other, rows) is None
    assert near_copy(np.round(other, 1), rows) is None


def test_too_few_values_to_tell_a_copy_from_chance_pass():
    # two points always lie on a line; a coarse grid can match by chance
    assert near_copy([1.0, 2.0], [3.0, 5.0]) is None
    coin = np.random.default_rng(0).random(40)
    assert near_copy(np.round(coin), coin) is None  # 2 values: not told apart
    assert near_copy(np.array(["a", "b"]), coin[:2]) is None
