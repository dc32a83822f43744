"""Files, pipes and devices where linkaudit reads and writes (issue 35): the
files the user names are regular files or refused at once, in one line
(a pipe's ``open`` or a device's ``read`` never ends); the journal, the page
archive and the views beside the report never write through a symbolic
link planted where they are written.  Every run is bounded far below the
time a hang would take."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.helpers import HANG_BOUND as BOUND
from tests.helpers import LINKAUDIT, refused, run

# -- what the user names: a regular file, or one line at once ---------------------------


@pytest.mark.parametrize(
    ("option", "path", "words"),
    [
        ("--config", "{fifo}", "{fifo}: cannot read it: not a regular file (a named pipe)"),
        ("--config", "/dev/zero", "/dev/zero: cannot read it: not a regular file (a device)"),
        ("--config", "/dev/null", "/dev/null: cannot read it: not a regular file (a device)"),
        ("--cookie-jar", "{fifo}", "not a regular file (a named pipe)"),
        ("--cookie-jar", "/dev/zero", "not a regular file (a device)"),
        ("--baseline", "{fifo}", "baseline: cannot read {fifo}: not a regular file (a named pipe)"),
        ("--baseline", "/dev/zero", "baseline: cannot read /dev/zero: not a regular file"),
        ("--jsonl", "{fifo}", "--jsonl: {fifo} is a named pipe that nobody reads"),
    ],
)
def test_a_pipe_or_a_device_is_one_line_at_once(tmp_path, server, option, path, words):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path, words = path.replace("{fifo}", str(fifo)), words.replace("{fifo}", str(fifo))
    # before: each of these hung (the pipe's open, or a read of /dev/zero
    # that filled the memory): the bound fails them
    out = run(tmp_path, f"{server.url}/", option, path, timeout=BOUND)
    refused(out, words)
    assert server.log == [] and not (tmp_path / "linkaudit-report.json").exists()


def test_a_feed_to_a_pipe_that_is_read_is_written(tmp_path, server):
    """``--jsonl /dev/stdout | jq``: a pipe with a reader is a feed's place."""
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    cmd = [LINKAUDIT, f"{server.url}/", "--delay", "0", "--jsonl", "/dev/stdout"]
    with subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        out, err = p.communicate(timeout=BOUND)
    assert p.returncode == 0, err
    assert b'"url": "' in out or b'"url":"' in out, out[-2000:]
