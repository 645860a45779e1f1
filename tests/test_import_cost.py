"""``import sensampler`` leaves the heavy optional and slow modules unloaded.

They are imported where used: scipy.stats by the scipy adapter and the optimal
composition, scikit-learn by its adapters and estimator queries, matplotlib by
the figures, tqdm by progress bars, pandas by ``to_pandas``, dask by the user.
"""

import json
import subprocess
import sys

import pytest

HEAVY = [
    "scipy.stats",
    "sklearn",
    "matplotlib",
    "dask",
    "distributed",
    "tqdm",
    "pandas",
]


@pytest.mark.parametrize(
    "statement",
    ["import sensampler", "import sensampler.distributions", "import sensampler.cli"],
)
def test_import_leaves_heavy_modules_out(statement):
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stdout))
    assert [name for name in HEAVY if name in loaded] == []
