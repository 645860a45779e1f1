import math

import pytest

from sensampler._math.search import falling_root, largest_int, smallest_int, step_up


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


# --------------------------------------------------------------- falling_root
@pytest.mark.parametrize("root", [1e-9, 0.3, 1.0, 2.5, 1e6, 1e200])
def test_falling_root_expands_its_bracket_up_to_a_far_root(root):
    """The bracket [0, 1] is widened by doubling until it holds the root; the
    result holds the condition and lies within the tolerance above it."""
    asked = []

    def f(x):
        asked.append(x)
        return root - x

    x = falling_root(
        f, 0.0, 1.0, xtol=1e-300, rtol=1e-12, floor=0.0, holds=lambda x: x >= root
    )
    assert root <= x <= root * (1 + 1e-11)
    assert max(asked) <= 2 * max(root, 1.0)  # the bracket went no further


@pytest.mark.parametrize("root", [-1e9, -3.0, 0.0, 0.5, 40.0])
def test_falling_root_moves_both_ends(root):
    """A root below the first guess moves the low end down (the analytic sigma's
    search in log sigma); one above moves the high end up."""
    x = falling_root(lambda t: root - t, -1.0, 1.0, xtol=1e-12, rtol=1e-12,
                     holds=lambda t: t >= root)
    assert root <= x <= root + 1e-11 + 1e-11 * abs(root)


def test_falling_root_returns_the_floor_and_inf_at_the_ends():
    """Where f is already <= 0 at the floor the floor is the answer; where it is
    still > 0 at the limit there is no root below it."""
    assert falling_root(lambda x: -1.0, 0.0, 1.0, xtol=1e-9, rtol=1e-9, floor=0.0) == 0.0
    assert falling_root(lambda x: 5.0 - x, 0.0, 1.0, xtol=1e-9, rtol=1e-9,
                        floor=0.0, limit=4.0) == math.inf
    # the limit itself is tried: a root at the limit is found
    x = falling_root(lambda x: 5.0 - x, 0.0, 1.0, xtol=1e-9, rtol=1e-9, limit=5.0)
    assert x == pytest.approx(5.0)


def test_falling_root_without_holds_is_brentq_inside_the_bracket():
    """A bracket already right (as in the plan's split, f(1) = -inf) is not
    moved, and nothing outside it is asked."""
    asked = []

    def f(x):
        asked.append(x)
        return -math.inf if x == 1.0 else 0.25 - x

    x = falling_root(f, 0.0, 1.0, xtol=1e-15, rtol=1e-13, limit=1.0)
    assert x == pytest.approx(0.25, rel=1e-12) and min(asked) >= 0.0 and max(asked) <= 1.0


def test_step_up_lands_within_one_step_above_the_first_point_that_holds():
    """Doubling steps overshoot by up to the last step; the bisection back brings
    the result within the first step of the crossing (the old loops of the
    Gaussian calibration overshot by up to a doubling)."""
    for threshold in [0.0, 1e-13, 3e-12, 1e-9, 0.123456789]:
        y = step_up(lambda t, threshold=threshold: t >= threshold, 0.0, 1e-13)
        assert threshold <= y <= threshold + 1e-13
    assert step_up(lambda t: True, 0.5, 1.0) == 0.5  # holds where it starts
    assert step_up(lambda t: t >= 2.0, 0.0, 0.1, limit=1.0) == math.inf
    assert step_up(lambda t: t >= 1.0, 0.0, 0.3, limit=1.0) == 1.0  # the limit tried
