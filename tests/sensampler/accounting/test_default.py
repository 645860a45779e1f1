import re
import threading

import pytest

from sensampler.accounting import (
    PrivacyFilter,
    default_filter,
    get_default_filter,
    set_default_filter,
)


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
