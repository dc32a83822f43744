"""Hostile and odd configuration (issue 23): numbers that are not finite or
absurd, configuration files without end or nested without end, output paths
that cannot be written, a state that is not a state.  Each from every door
it has (the command, its configuration file, ``scrapy crawl``): one line,
exit code 2, no traceback, nothing requested, and never a hang (every run is
bounded, far below the time it took to hang)."""

from __future__ import annotations

import os
import resource
import threading

import pytest
from scrapy.settings import Settings

from linkaudit.config import OPTIONS
from linkaudit.config.file import ConfigFileError, find_config
from tests.conftest import run_crawl, run_process
from tests.helpers.command import HANG_BOUND as BOUND
from tests.helpers.command import LINKAUDIT, refused, run

# -- numbers -------------------------------------------------------------------------
NUMERIC = [o for o in OPTIONS if o.read.__qualname__.startswith("number.")]


@pytest.mark.parametrize("option", NUMERIC, ids=lambda o: o.setting)
def test_every_number_of_the_table_is_finite_and_bounded(option):
    """Every numeric option and setting, those added later too."""
    for text in ("inf", "-inf", "nan", "Infinity", "1e309", str(10**20)):
        with pytest.raises(ValueError):
            option.read(Settings({option.setting: text}), option.setting)
    if option.default is not None:  # the default itself is within the bounds
        assert option.read(Settings({option.setting: option.default}), option.setting) >= 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--delay", "1e309"], "--delay: '1e309' is not a finite number"),
        (["--delay", "nan"], "--delay: 'nan' is not a finite number"),
        (["--delay", "86401"], "--delay: '86401' is too large: at most 86400 (a day)"),
        (["--max-time=-inf"], "--max-time: '-inf' is not a finite number"),
        (["--max-requests", "1e309"], "--max-requests: '1e309' is not a whole number"),
        (["--depth", "9" * 30], f"depth: '{'9' * 30}' is too large"),
        (["-s", "DOWNLOAD_DELAY=inf"], "DOWNLOAD_DELAY: 'inf' is not a finite number"),
        (["-s", "DOWNLOAD_TIMEOUT=1e300"], "DOWNLOAD_TIMEOUT: '1e300' is too large"),
        (
            ["-s", f"LINKAUDIT_PAGE_MAXSIZE={2**41}"],
            "LINKAUDIT_PAGE_MAXSIZE: '2199023255552' is too large: at most 1099511627776 (1 TiB)",
        ),
    ],
)
def test_numbers_from_the_command(tmp_path, server, args, words):
    refused(run(tmp_path, f"{server.url}/", *args, timeout=BOUND), words)
    assert server.log == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("delay = inf\n", "linkaudit.toml: delay: 'inf' is not a finite number"),
        ("delay = nan\n", "linkaudit.toml: delay: 'nan' is not a finite number"),
        ("delay = 1e309\n", "linkaudit.toml: delay: 'inf' is not a finite number"),
        ("max-time = 1e12\n", "linkaudit.toml: max-time: '1000000000000.0' is too large"),
        ("[set]\nDOWNLOAD_DELAY = inf\n", "DOWNLOAD_DELAY: 'Infinity' is not a finite number"),
    ],
)
def test_numbers_from_the_configuration_file(tmp_path, server, text, words):
    (tmp_path / "linkaudit.toml").write_text(text)
    refused(run(tmp_path, f"{server.url}/", timeout=BOUND), words)
    assert server.log == []


@pytest.mark.parametrize(
    ("settings", "args", "words"),
    [
        ({"DOWNLOAD_DELAY": "inf"}, (), "DOWNLOAD_DELAY: 'inf' is not a finite number"),
        ({"CLOSESPIDER_TIMEOUT": "nan"}, (), "CLOSESPIDER_TIMEOUT: 'nan' is not a finite"),
        ({"LINKAUDIT_RETRY_AFTER_MAX": "1e309"}, (), "LINKAUDIT_RETRY_AFTER_MAX: '1e309' is not"),
        ({}, ("-a", "depth=1e309"), "depth: '1e309' is not a whole number"),
    ],
)
def test_numbers_from_scrapy_crawl(tmp_path, server, settings, args, words):
    crawl = run_crawl(
        tmp_path, "-a", f"start={server.url}/", *args, settings=settings, timeout=BOUND
    )
    refused(crawl, words)
    assert crawl.report is None and server.log == []


# -- the configuration file ------------------------------------------------------------
def bounded(tmp_path, *args):
    """The command with its address space capped at 1 GiB (it needs ~70 MB
    of memory): a reader without a bound fails fast, the machine unharmed."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    return run_process([LINKAUDIT, *args], cwd=tmp_path, timeout=BOUND, preexec_fn=cap)


def test_a_configuration_file_without_end_is_one_line(tmp_path, server):
    out = bounded(tmp_path, f"{server.url}/", "--config", "/dev/zero")
    refused(out, "linkaudit: error: /dev/zero: cannot read it: not a regular file (a device)")
    assert server.log == []


def test_a_fifo_that_never_ends_is_refused_unread(tmp_path, server):
    fifo = tmp_path / "endless.toml"
    os.mkfifo(fifo)
    done = threading.Event()

    def write_for_ever() -> None:
        try:
            with open(fifo, "wb") as pipe:
                while not done.is_set():
                    pipe.write(b"#" * 65535 + b"\n")
        except OSError:  # the reader closed it: BrokenPipeError
            pass

    writer = threading.Thread(target=write_for_ever, daemon=True)
    writer.start()
    try:
        out = bounded(tmp_path, f"{server.url}/", "--config", str(fifo))
    finally:
        done.set()
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # a writer still opening
        writer.join(10)
    refused(out, f"{fifo}: cannot read it: not a regular file (a named pipe)")
    assert not writer.is_alive() and server.log == []


def test_the_size_cap_is_a_mebibyte(tmp_path):
    for size, fits in ((2**20, True), (2**20 + 1, False)):
        (tmp_path / "linkaudit.toml").write_bytes(b"#" * (size - 1) + b"\n")
        if fits:
            assert find_config(None, tmp_path) is not None
        else:
            with pytest.raises(ConfigFileError, match="too large"):
                find_config(None, tmp_path)


@pytest.mark.parametrize(
    "nested", ["a = " + "[" * 5000 + "]" * 5000, "a = " + "{b = " * 5000 + "}" * 5000]
)
def test_a_deeply_nested_file_is_one_line(tmp_path, server, nested):
    (tmp_path / "linkaudit.toml").write_text(nested + "\n")
    refused(run(tmp_path, f"{server.url}/", timeout=BOUND), "linkaudit.toml: too deeply nested")
    assert server.log == []


# -- output paths ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "words"),
    [
        # root may write in /proc as os.access sees it; nothing can be created there
        (["--report", "/proc/x.json"], "report: /proc/x.json is not writable"),
        # a device or a pipe would be replaced by the report's rename (never try
        # it on /dev/null: run as root, the old code replaced the device)
        (["--report", "{tmp}/fifo"], "report: {tmp}/fifo is not a regular file"),
        (["--jsonl", "/proc/x.jsonl"], "--jsonl: /proc/x.jsonl is not writable"),
        (["--jsonl", "{tmp}/nodir/x.jsonl"], "--jsonl: directory {tmp}/nodir does not exist"),
        (["--html", "/proc/x.html"], "html: /proc/x.html is not writable"),
        (["--redirect-fixes", "/proc/x.csv"], "redirect_fixes: /proc/x.csv is not writable"),
        (["--journal", "/proc/x.jsonl"], "journal: /proc/x.jsonl is not writable"),
    ],
)
def test_output_paths_are_tried_before_the_crawl(tmp_path, server, args, words):
    os.mkfifo(tmp_path / "fifo")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    refused(
        run(tmp_path, f"{server.url}/", *args, timeout=BOUND), words.replace("{tmp}", str(tmp_path))
    )
    assert server.log == [] and not (tmp_path / "nodir").exists()


def test_output_paths_from_the_file_and_scrapy_crawl(tmp_path, server):
    (tmp_path / "linkaudit.toml").write_text('jsonl = "nodir/x.jsonl"\n')
    out = run(tmp_path, f"{server.url}/", timeout=BOUND)
    refused(out, f"linkaudit.toml: jsonl: directory {tmp_path}/nodir does not exist")
    assert not (tmp_path / "nodir").exists()
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", "-a", "report=/proc/x.json")
    refused(crawl, "report: /proc/x.json is not writable")
    assert server.log == []


# -- the state --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("os.system", "'os.system' is not a state class (a subclass of AuditState)"),
        ("builtins.dict", "'builtins.dict' is not a state class"),
        ("linkaudit.state.base.AuditState", "'linkaudit.state.base.AuditState' is abstract"),
        ("linkaudit.state.sqlite.SQLiteState", "'linkaudit.state.sqlite.SQLiteState' needs --db"),
    ],
)
def test_a_state_that_is_not_a_state_is_never_called(tmp_path, server, path, words):
    out = run(tmp_path, f"{server.url}/", "-s", f"LINKAUDIT_STATE={path}", timeout=BOUND)
    refused(out, f"LINKAUDIT_STATE: {words}")
    crawl = run_crawl(
        tmp_path, "-a", f"start={server.url}/", settings={"LINKAUDIT_STATE": path}, timeout=BOUND
    )
    refused(crawl, f"LINKAUDIT_STATE: {words}")
    assert server.log == [] and crawl.report is None
