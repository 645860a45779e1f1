import pytest

from sensampler._search import smallest_int


@pytest.mark.parametrize("low, high", [(0, 1), (0, 2), (-5, 17), (3, 1000), (0, 10**9)])
def test_smallest_int_finds_the_first_true_and_never_asks_the_ends(low, high):
    for first in {low + 1, high, (low + high) // 2 + 1, min(high, low + 3)}:
        asked = []

        def predicate(i, first=first, asked=asked):
            asked.append(i)
            return i >= first

        assert smallest_int(predicate, low, high) == first
        assert all(low < i < high for i in asked)
        assert len(asked) <= max(1, (high - low).bit_length())
