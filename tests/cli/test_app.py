"""The CLI's one-line fault messages (cli/app.py)."""

from __future__ import annotations

import errno

from papersift.cli.app import read_only_message


def test_a_read_only_error_without_its_text_still_makes_one_line():
    # An OSError made with an errno but no strerror (as some libraries raise it) once
    # crashed the message with AttributeError: the user got a traceback instead of a line.
    message = read_only_message(OSError(errno.EROFS, None, "/data/papers.db"))
    assert message == ("cannot write /data/papers.db: read-only file system. A read-only data dir can be searched "
                       "and served; ingest, index and embed need one they can write")
