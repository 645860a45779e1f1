import math
import os
import re
import threading

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sensampler.app import data_files
from sensampler.app.data_files import DataFileError, read_column

SECRET = "987654.321"
#: sensampler.app._input_files.MAX_LINE_BYTES (1 MiB).
MAX_LINE_BYTES = 2**20


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(path)


def test_reads_a_column_by_name(tmp_path):
    path = _write(tmp_path / "d.csv", "\ufeffid,height\n1, 170.5\n\n2,160\n")
    np.testing.assert_array_equal(read_column(path, "height"), [170.5, 160.0])


@pytest.mark.parametrize(
    "body, message",
    [
        (
            f"id,height\n1,170\n2,{SECRET}x\n",
            "line 3 (record 2): column 'height' is not a number (ASCII decimal",
        ),
        (f"id,height\n1,170\n{SECRET},\n", "line 3 (record 2): column 'height' is empty."),
        (f"id,height\n1,170\n{SECRET}\n", "line 3 (record 2): no value for column 'height'."),
        (
            f"id,height\n{SECRET},nan\n",
            "line 2 (record 1): column 'height' is not a finite number.",
        ),
        (f"{SECRET},170\n1,2\n", "the header row (line 1) has no column 'height' (2 columns"),
        (f"height,height\n{SECRET},1\n", "the header row (line 1) names twice column 'height'"),
        ("", "empty file; expected a header row."),
        ("id,height\n", "no records."),
        (f'id,height\n"{SECRET},1\n', "not valid CSV"),
    ],
)
def test_errors_name_the_file_and_line_never_a_value(tmp_path, body, message):
    path = _write(tmp_path / "private.csv", body)
    with pytest.raises(DataFileError) as info:
        read_column(path, "height")
    text = str(info.value)
    assert message in text and path in text
    assert SECRET not in text


def test_non_utf8_is_refused_without_its_bytes(tmp_path):
    path = _write(tmp_path / "p.csv", b"id,height\n1,\xff\xfe9876\n")
    with pytest.raises(DataFileError, match=re.escape("not UTF-8 text")) as info:
        read_column(path, "height")
    assert "xff" not in str(info.value) and "9876" not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(DataFileError, match="cannot read .*nope.csv"):
        read_column(str(tmp_path / "nope.csv"), "height")


def test_arguments_are_named(tmp_path):
    with pytest.raises(TypeError, match="column must be a non-empty str"):
        read_column(str(tmp_path / "x.csv"), "")
    with pytest.raises(TypeError, match="path must name a file"):
        read_column(3, "height")


def test_parquet(tmp_path):
    pd = pytest.importorskip("pandas")
    import pyarrow  # noqa: F401  (in the test extra: Parquet is tested in every CI phase)
    path = str(tmp_path / "d.parquet")
    pd.DataFrame({"height": [170.0, 160.0], "x": ["a", "b"]}).to_parquet(path)
    np.testing.assert_array_equal(read_column(path, "height"), [170.0, 160.0])
    bad = str(tmp_path / "bad.parquet")
    pd.DataFrame({"height": ["170", f"{SECRET}x"]}).to_parquet(bad)
    with pytest.raises(DataFileError) as info:
        read_column(bad, "height")
    assert "record 2: column 'height' is not a number." in str(info.value)
    assert SECRET not in str(info.value)
    missing = str(tmp_path / "missing.parquet")
    pd.DataFrame({"height": [1.0, None]}).to_parquet(missing)
    with pytest.raises(DataFileError, match="record 2: column 'height' is missing"):
        read_column(missing, "height")
    with pytest.raises(DataFileError, match="cannot read column 'weight' as Parquet"):
        read_column(path, "weight")


@pytest.mark.parametrize("text", ["1_000", "\u0663", "\uff11\uff12", "0x10", "1e", "--1"])
def test_only_ascii_decimal_numbers_are_read(tmp_path, text):
    # Python's float() reads "1_000" as 1000.0 and Arabic-Indic or full-width
    # digits as numbers; a data file must not be read that way.
    path = _write(tmp_path / "d.csv", f"height\n1\n{text}\n")
    with pytest.raises(DataFileError) as info:
        read_column(path, "height")
    assert "line 3 (record 2): column 'height' is not a number" in str(info.value)
    assert text not in str(info.value)


@pytest.mark.parametrize("text", ["170", "-1.5", "+.5", "2.", "1e-3", "1.25E+3"])
def test_ascii_decimal_and_scientific_numbers_are_read(tmp_path, text):
    path = _write(tmp_path / "d.csv", f"height\n{text}\n")
    assert read_column(path, "height")[0] == float(text)


def test_a_bad_byte_names_its_own_line(tmp_path):
    path = _write(tmp_path / "p.csv", b"height\n1\n\xff\n3\n")
    with pytest.raises(DataFileError, match=re.escape("p.csv, line 3: not UTF-8 text.")):
        read_column(path, "height")
    path = _write(tmp_path / "q.csv", b"height\n\xff\n")
    with pytest.raises(DataFileError, match=re.escape("q.csv, line 2: not UTF-8 text.")):
        read_column(path, "height")


def test_a_line_without_end_is_refused_at_the_line_limit(tmp_path):
    path = tmp_path / "z.csv"
    path.write_bytes(b"height\n" + b"0" * (MAX_LINE_BYTES + 10))
    with pytest.raises(DataFileError, match=f"line 2: longer than {MAX_LINE_BYTES} bytes"):
        read_column(str(path), "height")


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(data_files, "MAX_DATA_FILE_BYTES", 64)
    path = _write(tmp_path / "big.csv", "height\n" + "1\n" * 40)
    with pytest.raises(DataFileError, match="larger than 64 bytes"):
        read_column(path, "height")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_is_refused_by_name():
    # /dev/null, not /dev/zero: a reader without bounds would fill the memory
    # (/dev/zero is tested in a subprocess with an address-space limit, in
    # tests/sensampler/app/cli/test_cli_inputs.py).
    with pytest.raises(DataFileError, match=re.escape("/dev/null is a device, not a regular")):
        read_column("/dev/null", "height")


def test_a_directory_is_refused_by_name(tmp_path):
    with pytest.raises(DataFileError, match="is a directory, not a regular file"):
        read_column(str(tmp_path), "height")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    # Opened non-blocking: no writer ever comes, and the refusal is immediate.
    # (In a daemon thread with a bounded wait: a reader that blocks fails the test.)
    fifo = str(tmp_path / "pipe.csv")
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            read_column(fifo, "height")
        except DataFileError as exc:
            outcome.append(str(exc))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "reading a FIFO blocked"
    assert outcome and "is a FIFO (named pipe), not a regular file" in outcome[0]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@example("1_000")  # float() reads these three: found by the audit of issue 28
@example("\u0663")
@example("\uff11")
@given(st.text(min_size=1, max_size=12).filter(lambda t: "," not in t and "\"" not in t))
def test_a_field_is_read_only_as_ascii_decimal(tmp_path_factory, text):
    strict = re.fullmatch(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*", text, re.ASCII)
    path = tmp_path_factory.mktemp("p") / "d.csv"
    path.write_text("x\n1\n" + text.replace("\r", "").replace("\n", "") + "\n", "utf-8")
    try:
        values = read_column(str(path), "x")
    except DataFileError:
        values = None
    if strict and math.isfinite(float(text)):
        assert values is not None and values[-1] == float(text)
    elif values is not None:  # a blank field line is skipped, never read as a number
        assert len(values) == 1


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_round_trips(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("f") / "d.csv"
    path.write_text(f"x\n{value!r}\n")
    assert read_column(str(path), "x")[0] == value


def test_read_person_rows_reads_both_columns_and_quotes_no_value(tmp_path):
    """The person of each row, read with its value (CSV and Parquet); a row
    without a person is named by its line, never by a value."""
    from sensampler.app.data_files import read_person_rows

    path = tmp_path / "t.csv"
    path.write_text("who,x\nsecret-a,1.5\nsecret-b,2\nsecret-a,3\n")
    values, ids = read_person_rows(path, "x", "who")
    assert values.tolist() == [1.5, 2.0, 3.0]
    assert ids.tolist() == ["secret-a", "secret-b", "secret-a"]
    path.write_text("who,x\nsecret-a,1.5\n ,2\n")
    with pytest.raises(DataFileError, match=r"line 3 \(record 2\): column 'who'") as exc:
        read_person_rows(path, "x", "who")
    assert "secret" not in str(exc.value)
    with pytest.raises(DataFileError, match="has no column 'whom'"):
        read_person_rows(path, "x", "whom")
    with pytest.raises(ValueError, match="released column"):
        read_person_rows(path, "x", "x")
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    parquet = tmp_path / "t.parquet"
    pd.DataFrame({"who": ["a", None], "x": [1.0, 2.0]}).to_parquet(parquet)
    with pytest.raises(DataFileError, match="record 2: column 'who'"):
        read_person_rows(parquet, "x", "who")
    pd.DataFrame({"who": [7, 8], "x": [1.0, 2.0]}).to_parquet(parquet)
    assert read_person_rows(parquet, "x", "who")[1].tolist() == ["7", "8"]
