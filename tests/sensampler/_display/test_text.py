from sensampler._display.text import text_table


def test_text_table_aligns_header_rule_and_right_columns():
    lines = text_table([["name", "n"], ["a", "10"], ["longer", "7"]], right={1})
    assert lines == ["name     n", "------  --", "a       10", "longer   7"]


def test_text_table_without_header_has_no_rule_nor_trailing_spaces():
    assert text_table([("m", "113"), ("bound", "x")], header=False) == [
        "m      113",
        "bound  x",
    ]
