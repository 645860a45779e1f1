"""Issue 37: ``sensampler audit --query identity`` exited 1, a usage error found
during the work (the sampler's order check); it is now found before any
sampling, exit 2, one line."""

import pytest

from sensampler.app.cli import _audit as _audit_cli
from sensampler.app.cli import main


def test_an_order_dependent_query_is_a_usage_error(capsys, monkeypatch):
    """Refused by the probe of the check phase: the work is never started."""
    started = []
    monkeypatch.setattr(
        _audit_cli, "compare_populations", lambda *a, **k: started.append(1)
    )
    code = main(["audit", "--query", "identity", "--pairs", "2000", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and started == []
    assert len(err) == 1 and "depends on the order of the records" in err[0]
    assert "Traceback" not in err[0]


@pytest.mark.parametrize("query", ["mean", "median", "histogram:4:150:200"])
def test_order_free_queries_still_pass_the_check(capsys, query):
    code = main(["audit", "--query", query, "--pairs", "2000", "--n", "30",
                 "--seed", "1", "--no-progress"])
    assert code == 0, capsys.readouterr().err
