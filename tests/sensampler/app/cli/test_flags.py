"""The settings' flags: made from the record's fields, read back into one record,
and its messages written in the flags' words."""

import pytest

from sensampler.app.cli import main
from sensampler.app.cli._flags import in_flag_words


@pytest.mark.parametrize(
    ("message", "words"),
    [
        (
            "mechanism='gaussian' needs delta > 0, got delta=0.0.",
            "--mechanism gaussian needs delta > 0, got --delta 0.0.",
        ),
        (
            "granularity=0.5 is too coarse for epsilon=1e-05: even a step fails",
            "--granularity 0.5 is too coarse for --epsilon 1e-05: even a step fails",
        ),
        ("worst_case_epsilon=0.5 is below epsilon=1.0", "--worst-case-epsilon 0.5 is "
         "below --epsilon 1.0"),
        ("nothing to rewrite here", "nothing to rewrite here"),
    ],
)
def test_a_record_message_is_written_with_the_flags(message, words):
    assert in_flag_words(message) == words


def test_a_check_between_settings_names_the_flags_as_typed(tmp_path, capsys):
    """A check between two settings (the Gaussian needs a delta) spoke Python on the
    command line (``mechanism='gaussian' needs delta > 0, got delta=0.0.``)."""
    data = tmp_path / "private.csv"
    data.write_text("height\n170\n171\n172\n")
    args = ["release", "--data", str(data), "--column", "height", "--population",
            "heights", "--epsilon", "1", "--mechanism", "gaussian"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--mechanism gaussian needs delta > 0, got --delta 0.0." in err
    assert "=" not in err.split("error: ", 1)[1]
