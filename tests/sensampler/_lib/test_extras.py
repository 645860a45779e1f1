import re

import pytest

from sensampler._lib.extras import require


def test_require_returns_the_module():
    assert require("json.decoder", "pandas", "reading").JSONDecodeError


def test_require_names_the_package_and_the_extra():
    message = "a figure needs no_such_pkg: pip install 'sensampler[plot]' pyarrow."
    with pytest.raises(ImportError, match=re.escape(message)) as info:
        require("no_such_pkg.sub", "plot", "a figure", also="pyarrow")
    assert isinstance(info.value.__cause__, ImportError)
