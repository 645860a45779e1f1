"""The privacy unit of a statement: one record, or one person's rows."""

import pytest

from sensampler.privacy import (
    PrivacyStatement,
    SamplingRun,
    relation_words,
    size_words,
    to_replace_one,
)


def test_a_statement_is_about_one_record_unless_told():
    s = PrivacyStatement("m", 1.0, 0.0)
    assert s.privacy_unit == "record" and "person" not in str(s)


def test_a_person_level_statement_says_so():
    run = SamplingRun("r", 0.05)
    s = PrivacyStatement("m", 1.0, 0.0, run=run, source="sampled", privacy_unit="person")
    assert "replace-one neighbours (one person's rows)" in str(s)
    assert "(one person's rows)" in str(PrivacyStatement("m", 1.0, 0.0, privacy_unit="person"))


def test_an_unknown_unit_is_refused_naming_it():
    with pytest.raises(ValueError, match="privacy_unit"):
        PrivacyStatement("m", 1.0, 0.0, privacy_unit="household")


def test_the_worst_case_part_holds_for_the_same_unit():
    """A row-level worst case under a person-level statement would overstate it."""
    run = SamplingRun("r", 0.05)
    worst = PrivacyStatement("m", 5.0, 0.0)
    with pytest.raises(ValueError, match="privacy_unit"):
        PrivacyStatement("m", 1.0, 0.0, run=run, source="sampled", worst_case=worst,
                         privacy_unit="person")


def test_converting_to_replace_one_keeps_the_unit():
    worst = PrivacyStatement("m", 5.0, 0.0, neighbours="add-remove", privacy_unit="person")
    s = PrivacyStatement("m", 1.0, 0.0, neighbours="add-remove", worst_case=worst,
                         privacy_unit="person")
    converted = to_replace_one(s)
    assert converted.privacy_unit == "person" and converted.worst_case.privacy_unit == "person"


def test_words():
    assert relation_words("add-remove") == "add-remove neighbours"
    assert size_words("replace-one", 12, "person") == "n=12 persons"


@pytest.mark.parametrize(
    "neighbours, words",
    [("replace-one", "one person's rows replaced by another person's"),
     ("add-remove", "one person's rows added or removed")],
)
def test_the_card_says_what_a_person_level_statement_protects(neighbours, words):
    """The notebook card said "Any one person's record" of every statement."""
    s = PrivacyStatement("m", 1.0, 0.0, neighbours=neighbours, privacy_unit="person")
    html = s._repr_html_()
    assert "All of any one person&#x27;s rows" in html or "All of any one person's rows" in html
    assert words.replace("'", "&#x27;") in html or words in html
    assert "one record" not in html
