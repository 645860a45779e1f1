"""Reading input files with bounds: regular files only, a size limit, a line limit."""

import io
import os
import re

import pytest

from sensampler.app import _input_files
from sensampler.app._input_files import (
    InputFileError,
    check_not_special,
    read_lines,
    read_text_lines,
    read_toml,
)


def test_read_toml_skips_a_byte_order_mark_and_names_bad_files(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(b"\xef\xbb\xbfa = 1\n")
    assert read_toml(path) == {"a": 1}
    path.write_bytes(b"a = \n")
    with pytest.raises(ValueError, match=re.escape(f"{path}: malformed TOML")):
        read_toml(path)
    path.write_bytes(b"a = '\xff'\n")
    with pytest.raises(ValueError, match="invalid UTF-8 at byte 5"):
        read_toml(path)
    with pytest.raises(InputFileError, match="cannot read --config .*nope.toml"):
        read_toml(tmp_path / "nope.toml", "--config")
    with pytest.raises(InputFileError, match="is a directory, not a regular file"):
        read_toml(tmp_path, "--config")


def test_read_toml_refuses_a_file_over_its_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(_input_files, "MAX_TOML_BYTES", 10)
    path = tmp_path / "big.toml"
    path.write_text("a = 1\nb = 2\nc = 3\n")
    with pytest.raises(InputFileError, match="larger than 10 bytes"):
        read_toml(path)


def test_read_lines_stops_at_a_long_line_and_a_growing_file(monkeypatch):
    monkeypatch.setattr(_input_files, "MAX_LINE_BYTES", 8)
    lines = read_lines(io.BytesIO(b"12345678\n" + b"x" * 20), "f", "p", 100)
    assert next(lines) == (1, b"12345678\n")  # 8 bytes and its end: accepted
    with pytest.raises(InputFileError, match="p, line 2: longer than 8 bytes"):
        next(lines)
    grown = read_lines(io.BytesIO(b"1\n" * 30), "f", "p", 40)  # past the size
    with pytest.raises(InputFileError, match="larger than 40 bytes"):
        list(grown)


def test_read_text_lines_names_the_line_of_a_bad_byte(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"\xef\xbb\xbfa\nb\n\xffc\n")
    lines = read_text_lines(str(path), "f", 1000)
    assert [next(lines), next(lines)] == ["a\n", "b\n"]
    with pytest.raises(InputFileError, match=re.escape("t.csv, line 3: not UTF-8")):
        next(lines)


def test_check_not_special_passes_a_missing_or_regular_file(tmp_path):
    check_not_special(str(tmp_path / "missing.json"), "--budget-file")
    (tmp_path / "b.json").write_text("{}")
    check_not_special(str(tmp_path / "b.json"), "--budget-file")
    with pytest.raises(InputFileError, match="--budget-file .* is a directory"):
        check_not_special(str(tmp_path), "--budget-file")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "p")
        with pytest.raises(InputFileError, match="is a FIFO"):
            check_not_special(str(tmp_path / "p"), "--budget-file")
