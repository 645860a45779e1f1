"""The application layer's former module names, as type checkers see them.

At run time ``sensampler.cli`` is ``sensampler.app.cli`` (sensampler/_moved.py);
the stubs beside the package's modules say so to type checkers. Type-checked by
tests/test_typing.py (pyright), never run.
"""

from typing import assert_type

from sensampler.app.experiments import ResultTable as CurrentResultTable
from sensampler.cli import main
from sensampler.experiments import ResultTable
from sensampler.experiments.batch import load_config
from sensampler.experiments.table import ResultTable as TableResultTable

assert_type(main(["--version"]), int)
assert_type(load_config("config.toml"), dict)
table: CurrentResultTable = ResultTable([{"epsilon": 1.0}])
same: type[ResultTable] = TableResultTable
