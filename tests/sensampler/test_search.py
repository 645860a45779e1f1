import pytest

from sensampler._math.search import largest_int, smallest_int


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


@pytest.mark.parametrize("low, high", [(0, 0), (0, 1), (1, 2), (0, 1000), (1, 10**9)])
def test_largest_int_finds_the_last_true_without_asking_low_or_beyond_high(low, high):
    for last in sorted({low, low + 1, high, (low + high) // 2, min(high, low + 5)}):
        if last > high:
            continue
        asked = []

        def predicate(i, last=last, asked=asked):
            asked.append(i)
            return i <= last

        assert largest_int(predicate, low, high) == last
        assert all(low < i <= high for i in asked)
        # doubling up to the answer, then bisecting the last doubling's bracket
        assert len(asked) <= 2 * (max(last, 1).bit_length() + 1)


def test_largest_int_matches_a_linear_scan():
    # an independent oracle: the last true of a scan over every integer
    for threshold in range(0, 70):
        for high in (threshold, threshold + 1, 64, 65):
            if high < threshold:
                continue
            scan = max(i for i in range(high + 1) if i <= threshold)
            assert largest_int(lambda i, t=threshold: i <= t, 0, high) == scan
