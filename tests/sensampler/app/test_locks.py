import re

import pytest

from sensampler.app._locks import exclusive


def test_a_lock_that_is_a_folder_is_named(tmp_path):
    (tmp_path / ".lock").mkdir()
    message = f"out_dir={str(tmp_path)!r}: its lock {tmp_path / '.lock'} is a folder"
    with pytest.raises(ValueError, match=re.escape(message)):
        with exclusive(str(tmp_path)):
            pass


def test_a_second_holder_is_refused(tmp_path):
    with exclusive(str(tmp_path)):
        with pytest.raises(ValueError, match="is in use by another sensampler run"):
            with exclusive(str(tmp_path)):
                pass
