import re

import numpy as np
import pytest

from sensampler.data_files import DataFileError, read_column

SECRET = "987654.321"


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(path)


def test_reads_a_column_by_name(tmp_path):
    path = _write(tmp_path / "d.csv", "\ufeffid,height\n1, 170.5\n\n2,160\n")
    np.testing.assert_array_equal(read_column(path, "height"), [170.5, 160.0])


@pytest.mark.parametrize(
    "body, message",
    [
        (f"id,height\n1,170\n2,{SECRET}x\n", "line 3 (record 2): column 'height' is not a number."),
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
    pytest.importorskip("pyarrow")
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
