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


# -- what linkaudit writes as it goes: never through a planted link -------------------
VICTIM = b"the victim's own bytes\n"


def plant(link, victim) -> None:
    """A symbolic link at ``link`` to ``victim``, a file of someone else's."""
    victim.write_bytes(VICTIM)
    os.symlink(victim, link)


@pytest.mark.parametrize("kept", [False, True], ids=["default journal", "--journal"])
def test_a_link_planted_at_the_journal_is_replaced_not_followed(tmp_path, server, kept):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    journal = tmp_path / ("mine.jsonl" if kept else "linkaudit-report.journal.jsonl")
    plant(journal, tmp_path / "victim")
    args = ["--journal", str(journal)] if kept else []
    out = run(tmp_path, f"{server.url}/", "--delay", "0", *args, timeout=BOUND)
    assert out.returncode == 0, out.stderr
    # before: the journal was written into the victim through the link
    assert (tmp_path / "victim").read_bytes() == VICTIM
    assert (tmp_path / "linkaudit-report.json").exists()
    if kept:  # the journal is a file of its own now, holding the audit
        assert not journal.is_symlink() and b'"type":"end"' in journal.read_bytes()


def test_a_link_planted_in_the_page_archive_is_replaced_not_followed(tmp_path, server):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "<p>page a</p>")
    pages = tmp_path / "pages"
    pages.mkdir()
    for name in ("0", "1"):
        plant(pages / name, tmp_path / f"victim{name}")
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--pagedir", str(pages), timeout=BOUND)
    assert out.returncode == 0, out.stderr
    for name in ("0", "1"):
        assert (tmp_path / f"victim{name}").read_bytes() == VICTIM
        assert not (pages / name).is_symlink()
    assert (pages / "0").read_bytes().startswith(f"{server.url}/\n0\n".encode())


def test_a_link_planted_at_the_feed_is_replaced_not_followed(tmp_path, server):
    server.add("/", "<a href=/a>a</a>")
    server.add("/a", "ok")
    feed = tmp_path / "feed.jsonl"
    plant(feed, tmp_path / "victim")
    out = run(tmp_path, f"{server.url}/", "--delay", "0", "--jsonl", str(feed), timeout=BOUND)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "victim").read_bytes() == VICTIM
    assert not feed.is_symlink() and len(feed.read_text().splitlines()) == 2
