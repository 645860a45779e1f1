"""The one writer of the project's files (:mod:`sensampler.table`): its check,
and the writes that apply it."""

import os
import stat

import pytest

from sensampler.table import (
    TEMPORARY_PREFIX_BYTES,
    OutputFileError,
    ResultTable,
    atomic_write_bytes,
    atomic_write_text,
    check_output_file,
    output_problem,
)


def _name_max(folder) -> int:
    return os.pathconf(folder, "PC_NAME_MAX")


# ----------------------------------------------------------- files the release writes
# Issue 37, "files the release writes": the one writer refuses what is not its own.
#
# A temporary file renamed onto a path replaces whatever is there: run as root,
# ``--report /dev/null`` replaced the device node with a regular file, and a FIFO or a
# symbolic link at the path was replaced too. These tests pin the one check
# (:func:`sensampler.table.check_output_file`) and the writer that applies it.
# ``/dev/null`` is only ever checked here, never written.


def test_the_null_device_is_refused_by_the_check():
    """/dev/null is a device: refused, so that no writer renames a file onto it
    (checked only: this test never writes)."""
    with pytest.raises(OutputFileError, match=r"'/dev/null' is a device"):
        check_output_file("/dev/null", "report")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_fifo_is_refused_and_left_in_place(tmp_path):
    """The old writer renamed its temporary file onto the FIFO, replacing it."""
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    with pytest.raises(OutputFileError, match=r"is a FIFO \(named pipe\)"):
        atomic_write_text(fifo, "page")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.html"]


def test_a_symbolic_link_is_refused_not_replaced_nor_followed(tmp_path):
    """The old writer replaced the link with a regular file; a link to a file
    elsewhere is not the project's own file either."""
    target = tmp_path / "elsewhere.txt"
    target.write_text("theirs")
    link = tmp_path / "out.csv"
    os.symlink(target, link)
    with pytest.raises(OutputFileError, match="is a symbolic link"):
        ResultTable([{"a": 1}]).to_csv(link)
    assert os.path.islink(link) and target.read_text() == "theirs"
    dangling = tmp_path / "dangling.csv"
    os.symlink(tmp_path / "missing.csv", dangling)
    with pytest.raises(OutputFileError, match="is a symbolic link"):
        atomic_write_bytes(dangling, b"x")
    assert not (tmp_path / "missing.csv").exists()


def test_a_folder_is_refused(tmp_path):
    """A folder where a file goes (and a file where a folder goes)."""
    (tmp_path / "d").mkdir()
    with pytest.raises(OutputFileError, match="is a folder, not a regular file"):
        atomic_write_text(tmp_path / "d", "x")
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputFileError, match="is a regular file, not a folder"):
        check_output_file(tmp_path / "f", "out_dir", folder=True)
    assert check_output_file(tmp_path / "d", "out_dir", folder=True)


def test_a_missing_folder_is_refused_not_created(tmp_path):
    """The old writer created the missing folders of its path."""
    path = tmp_path / "no" / "such" / "t.csv"
    with pytest.raises(OutputFileError, match="which is not an existing folder"):
        atomic_write_text(path, "x")
    assert not (tmp_path / "no").exists()


def test_a_name_too_long_with_its_temporary_prefix_is_refused_up_front(tmp_path):
    """A name that fits NAME_MAX alone but not with the temporary file's prefix
    failed at the write (``File name too long``); now the check refuses it."""
    longest = _name_max(tmp_path)
    fits = "a" * (longest - TEMPORARY_PREFIX_BYTES)
    atomic_write_text(tmp_path / fits, "x")
    assert (tmp_path / fits).read_text() == "x"
    too_long = "b" * (longest - TEMPORARY_PREFIX_BYTES + 1)
    problem = output_problem(tmp_path / too_long)
    assert problem is not None and f"longer than the {longest}" in problem
    with pytest.raises(OutputFileError, match="longer than"):
        atomic_write_text(tmp_path / too_long, "x")
    assert output_problem(tmp_path / ("c" * 300)) is not None


def test_a_path_too_long_with_its_temporary_prefix_is_refused(tmp_path):
    """PATH_MAX: a path that the system accepts but that the temporary file's
    prefix pushes past the limit would fail at the write."""
    longest = os.pathconf(tmp_path, "PC_PATH_MAX")
    folder = str(tmp_path)
    while len(folder) < longest - 110:
        folder = os.path.join(folder, "d" * min(200, longest - 110 - len(folder)))
    os.makedirs(folder)
    name = "n" * (longest - 10 - len(folder) - 1)  # the path: longest - 10 bytes
    path = os.path.join(folder, name)
    problem = output_problem(path)
    assert problem is not None and "has a path of" in problem
    assert output_problem(os.path.join(folder, "short")) is None


@pytest.mark.parametrize("name", ["", ".", "..", "d/"])
def test_a_path_that_names_no_file_is_refused(tmp_path, name):
    """An empty path, '.', '..' or a path ending in a slash names no file: refused (a
    TypeError for the empty string)."""
    if name == "":
        with pytest.raises(TypeError, match="must name a file"):
            check_output_file(name, "report")
        return
    with pytest.raises(OutputFileError, match="does not name a file"):
        check_output_file(os.path.join(str(tmp_path), name), "report")


def test_a_regular_file_is_replaced_whole_and_text_is_utf8(tmp_path):
    """What holds: a regular file is replaced whole, no temporary file is left behind,
    and text is written in UTF-8."""
    path = tmp_path / "r.html"
    path.write_text("old")
    atomic_write_text(path, "é\n")
    assert path.read_bytes() == "é\n".encode()
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
