"""sensampler sweep: the release path's sweep on the command line (the study of
given sensitivities is sensampler sensitivity-sweep)."""

import csv
import json

import pytest

from sensampler.app.cli import main

ARGS = ["sweep", "--query", "mean", "--n", "200", "--epsilons", "0.5,2",
        "--repetitions", "10", "--seed", "0"]


def test_the_sweep_writes_what_the_release_would_publish(tmp_path, capsys):
    assert main([*ARGS, "--bounds", "100:250", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "worst_case_epsilon" in out and f"wrote error_vs_epsilon.csv to {tmp_path}/" in out
    with open(tmp_path / "error_vs_epsilon.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["bounds"] for row in rows} == {"given 100:250"}
    assert {float(row["epsilon"]) for row in rows} == {0.5, 2.0}


def test_the_json_rows_are_the_python_table(capsys):
    from sensampler.app.experiments import error_vs_epsilon

    assert main([*ARGS, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    table = error_vs_epsilon("mean", "heights", 200, [0.5, 2.0], repetitions=10,
                             random_state=0)
    assert [row["value"] for row in rows] == [row["value"] for row in table.rows]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--epsilons", "0,1"], "--epsilons must be numbers > 0 separated by commas"),
        (["--epsilons", "1_0"], "--epsilons must be a number (ASCII digits)"),
        (["--mechanism", "gaussian"], "--mechanism gaussian needs delta > 0"),
        (["--repetitions", "0"], "repetitions"),
    ],
)
def test_usage_errors_exit_2_and_write_nothing(extra, message, tmp_path, capsys):
    assert main([*ARGS, *extra, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
