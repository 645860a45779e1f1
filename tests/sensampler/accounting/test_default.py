import asyncio
import re
import threading

import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
    get_default_filter,
    set_default_filter,
)
from sensampler.mechanisms import LaplaceMechanism


def test_no_default_unless_set():
    assert get_default_filter() is None


def test_set_and_restore():
    f = PrivacyFilter(1.0)
    assert set_default_filter(f) is None
    try:
        assert get_default_filter() is f
    finally:
        assert set_default_filter(None) is f
    assert get_default_filter() is None


def test_the_context_manager_restores_also_on_error():
    outer, inner = PrivacyFilter(1.0), PrivacyFilter(0.5)
    with default_filter(outer):
        with pytest.raises(RuntimeError):
            with default_filter(inner) as f:
                assert f is inner and get_default_filter() is inner
                raise RuntimeError
        assert get_default_filter() is outer
    assert get_default_filter() is None


def test_every_thread_sees_the_process_wide_default():
    f = PrivacyFilter(1.0)
    seen = []
    with default_filter(f):
        t = threading.Thread(target=lambda: seen.append(get_default_filter()))
        t.start()
        t.join()
    assert seen == [f]


def test_only_accountants_are_accepted():
    with pytest.raises(
        TypeError, match=re.escape("the default filter must be an accountant")
    ):
        set_default_filter(1.0)
    with pytest.raises(TypeError, match="needs a filter, got None"):
        with default_filter(None):
            pass
    assert get_default_filter() is None


def test_overlapping_blocks_in_two_threads_keep_their_own_default():
    # issue 28: thread A's block ended first and restored the previous default for
    # the whole process, so thread B, still inside its block, released unaccounted.
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    filter_a, filter_b = PrivacyFilter(1.0), PrivacyFilter(0.5, rule="basic")
    outcome = {}

    def thread_a():
        with default_filter(filter_a):
            a_in.set()
            b_in.wait()
        a_out.set()

    def thread_b():
        a_in.wait()
        with default_filter(filter_b):
            b_in.set()
            a_out.wait()  # A's block has ended; B's has not
            outcome["seen"] = get_default_filter()
            refused = 0
            for _ in range(20):
                try:
                    LaplaceMechanism(1.0, 0.1).release(0.0)
                except ExceededPrivacyBudgetError:
                    refused += 1
            outcome["refused"] = refused

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcome["seen"] is filter_b
    assert filter_b.count == 5 and outcome["refused"] == 15  # 5 x 0.1 = 0.5
    assert filter_a.count == 0
    assert get_default_filter() is None


def test_a_thread_without_a_block_is_refused_when_blocks_disagree():
    inside, done = threading.Event(), threading.Event()
    other = PrivacyFilter(1.0)

    def hold():
        with default_filter(other):
            inside.set()
            done.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    inside.wait()
    try:
        with default_filter(PrivacyFilter(1.0)):
            errors = []

            def release():
                try:
                    LaplaceMechanism(1.0, 0.1).release(0.0)
                except RuntimeError as exc:
                    errors.append(str(exc))

            worker = threading.Thread(target=release)
            worker.start()
            worker.join()
    finally:
        done.set()
        holder.join()
    assert len(errors) == 1 and "hold different filters" in errors[0]
    assert other.count == 0


def test_nested_blocks_in_one_thread_are_seen_by_its_workers():
    outer, inner = PrivacyFilter(1.0), PrivacyFilter(0.5)
    seen = []
    with default_filter(outer):
        with default_filter(inner):
            t = threading.Thread(target=lambda: seen.append(get_default_filter()))
            t.start()
            t.join()
        t = threading.Thread(target=lambda: seen.append(get_default_filter()))
        t.start()
        t.join()
    assert seen == [inner, outer]


def test_a_block_takes_precedence_over_the_process_wide_default():
    process, block = PrivacyFilter(1.0), PrivacyFilter(0.5)
    set_default_filter(process)
    try:
        with default_filter(block):
            assert get_default_filter() is block
        assert get_default_filter() is process
    finally:
        set_default_filter(None)


def test_asyncio_tasks_keep_their_own_blocks_and_leave_nothing_behind():
    outer, inner = PrivacyFilter(1.0), PrivacyFilter(0.5)
    seen = {}

    async def task(started, release):
        with default_filter(inner):
            started.set()
            await release.wait()
            seen["task"] = get_default_filter()

    async def main():
        started, release = asyncio.Event(), asyncio.Event()
        with default_filter(outer):
            running = asyncio.create_task(task(started, release))
            await started.wait()
            seen["outer"] = get_default_filter()
        # the outer block ended first, the task's nested block is still open
        seen["after"] = get_default_filter()
        release.set()
        await running

    asyncio.run(main())
    assert seen == {"outer": outer, "after": inner, "task": inner}
    assert get_default_filter() is None  # no block left open anywhere
