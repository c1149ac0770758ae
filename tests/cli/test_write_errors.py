"""A write the file system refuses deep inside any command ends as one line on stderr and
exit status 1 (cli/app.py); other errors are not disguised as that."""

from __future__ import annotations

import errno
import sqlite3

import pytest
from typer.testing import CliRunner

from papersift.cli import app, index_cmd
from served_papers import copy_data_dir

runner = CliRunner()


@pytest.mark.parametrize("error", [
    OSError(errno.EROFS, "Read-only file system", "/snapshot/lexical/.lock"),
    PermissionError(errno.EACCES, "Permission denied", "/snapshot/lexical/.lock"),
    sqlite3.OperationalError("attempt to write a readonly database"),
])
def test_a_refused_write_is_one_line(sample_data_dir, tmp_path, monkeypatch, error):
    def refused(*args, **kwargs):
        raise error

    monkeypatch.setattr(index_cmd.lexical, "update", refused)
    result = runner.invoke(app, ["index", "--json", "--data-dir", str(copy_data_dir(sample_data_dir, tmp_path / "data"))])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot write") and len(result.stderr.strip().splitlines()) == 1
    assert "can be searched and served" in result.stderr


def test_a_full_disk_is_its_own_line(sample_data_dir, tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(index_cmd.lexical, "update", full)
    result = runner.invoke(app, ["index", "--json", "--data-dir", str(copy_data_dir(sample_data_dir, tmp_path / "data"))])
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("error: disk full") and "read-only" not in result.stderr


def test_other_errors_keep_their_traceback(sample_data_dir, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")  # not a fault the CLI can explain: a bug report needs it

    monkeypatch.setattr(index_cmd.lexical, "update", broken)
    result = runner.invoke(app, ["index", "--json", "--data-dir", str(copy_data_dir(sample_data_dir, tmp_path / "data"))])
    assert isinstance(result.exception, OSError) and result.exception.errno == errno.EIO
