"""``linkaudit DIR`` on builds that would never end (issue 35): symbolic
links back to a directory of their own path, directory links that multiply
the URLs; and a walk stopped by Ctrl-C or ``--max-time`` in the middle of
a level, within a second, its report written."""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time

import pytest

from tests.conftest import Spawned, check_no_fault, wait_for
from tests.peak import measure
from tests.sitegen import LINKAUDIT

PEAK_KIB = 300 * 1024  # the hostile tests' bound on a run's memory


def test_links_back_to_the_build_s_own_directory_are_not_followed(tmp_path):
    """One index.html and six links to ``.`` (``a -> .`` ... ``f -> .``):
    each is a directory met again on its own path, not followed, so a 404
    as a GitHub Pages artifact leaves it out; both routes end at once, in
    little memory, with the report (it grew to 2.46 GB, without end)."""
    build = tmp_path / "public"
    build.mkdir()
    names = "abcdef"
    (build / "index.html").write_text(" ".join(f'<a href="{n}/">{n}</a>' for n in names))
    for name in names:
        (build / name).symlink_to(".")
    (build / "sub").mkdir()
    (build / "sub" / "up").symlink_to("..")  # a parent, from below
    (build / "sub" / "index.html").write_text('<a href="up/">up</a> <a href="up">up</a>')
    (build / "index.html").write_text((build / "index.html").read_text() + '<a href="sub/">s</a>')
    for read in ("true", "false"):
        run = measure(
            [LINKAUDIT, "public", "-s", f"LINKAUDIT_LOCAL_READ={read}"], cwd=tmp_path, limit=30
        )
        assert run.proc.returncode == 1, run.proc.stderr[-2000:]
        assert run.peak_kib < PEAK_KIB, f"peak RSS {run.peak_kib} KiB ({read})"
        report = json.loads((tmp_path / "linkaudit-report.json").read_text())
        origin = report["start_urls"][0]
        outcomes = {
            e["url"][len(origin) :]: (e["outcome"], e.get("status")) for e in report["urls"]
        }
        looped = {f"{n}/": ("broken", 404) for n in names}
        looped.update({"sub/up/": ("broken", 404), "sub/up": ("broken", 404)})
        assert outcomes == {"": ("ok", 200), "sub/": ("ok", 200), **looped}, read
        assert report["complete"] is True


def test_directory_links_that_multiply_urls_stop_at_the_build_s_bound(tmp_path):
    """Twenty directories, each with two links to the next (no loop, no
    repeated name: 2**20 paths): the audit stops knowing URLs at the
    default bound, 20,000 plus 100 for each entry of the build, and says so
    (exit 3)."""
    build = tmp_path / "public"
    build.mkdir()
    for level in range(20):
        folder = build / f"n{level}" if level else build
        (build / f"n{level + 1}").mkdir()
        names = (f"a{level}", f"b{level}")
        (folder / "index.html").write_text(" ".join(f'<a href="{n}/">{n}</a>' for n in names))
        for name in names:
            (folder / name).symlink_to(build / f"n{level + 1}")
    entries = sum(len(dirs) + len(files) for _root, dirs, files in os.walk(build))
    run = measure([LINKAUDIT, "public", "-q"], cwd=tmp_path, limit=60)
    assert run.proc.returncode == 3, run.proc.stdout[-1000:] + run.proc.stderr[-2000:]
    assert run.peak_kib < PEAK_KIB, f"peak RSS {run.peak_kib} KiB"
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    assert report["summary"]["urls"] == 20_000 + 100 * entries
    assert report["summary"]["urls_dropped"] > 0 and report["complete"] is False


PAGES = 3_000


@pytest.fixture
def wide(tmp_path):
    """A build whose level 1 takes half a minute to walk: 3,000 pages of
    1 MB (hard links of one file, so the disk holds 1 MB)."""
    build = tmp_path / "wide"
    build.mkdir()
    prose = "<p>a paragraph of the page's prose, read and scanned</p>\n" * 18_000
    (build / "page.html").write_text('<a href="index.html">home</a>\n' + prose)
    for i in range(PAGES):
        os.link(build / "page.html", build / f"h{i}.html")
    (build / "index.html").write_text(
        "\n".join(f'<a href="h{i}.html">{i}</a>' for i in range(PAGES))
    )
    return tmp_path


def _walking(tmp_path, *args: str) -> Spawned:
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "linkaudit", str(tmp_path / "wide"), "--report", str(report)]
    spawned = Spawned([*cmd, "-vv", *args])
    wait_for(lambda: "Walking depth 1:" in spawned.stderr, timeout=60, what="level 1")
    return spawned


def _children_cpu() -> float:
    """CPU seconds of this process's reaped children (the walk, once waited for)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _stopped_report(tmp_path, spawned: Spawned, reason: str) -> dict:
    written = json.loads((tmp_path / "report.json").read_text())
    check_no_fault(spawned.stderr, report=written)
    assert written["finish_reason"] == reason and written["complete"] is False
    assert 1 <= written["summary"]["pages"] < PAGES  # stopped inside level 1
    return written


def _share(before: float, started: float, ended: float) -> float:
    """The share of a core the walk was given over its life (its CPU over
    its wall, from ``before``, the reaped children's CPU when it started):
    on a loaded machine (the suite's other workers) a second of the walk's
    work takes longer, so a bound on its time is scaled by it."""
    return min(1.0, max(0.2, (_children_cpu() - before) / (ended - started)))


def test_ctrl_c_stops_a_walk_inside_a_level_within_a_second(wide):
    before = _children_cpu()
    started = time.monotonic()
    spawned = _walking(wide)
    signalled = time.monotonic()
    spawned.signal(signal.SIGINT)
    code = spawned.wait(timeout=30)
    ended = time.monotonic()
    took = ended - signalled
    assert code == 3, spawned.stderr[-2000:]
    # 1.5 s of the walk's own time (at load 5 it took 1.51 s of wall)
    share = _share(before, started, ended)
    assert took < 1.5 / share, f"{took:.2f} s from SIGINT to the end ({share:.0%} of a core)"
    _stopped_report(wide, spawned, "shutdown")


def test_max_time_stops_a_walk_inside_a_level_within_a_second(wide):
    before = _children_cpu()
    started = time.monotonic()
    spawned = _walking(wide, "--max-time", "2")  # counted from the walk's start
    walking = time.monotonic()  # (the walk's level 1 began just before)
    code = spawned.wait(timeout=30)
    ended = time.monotonic()
    took = ended - walking
    assert code == 3, spawned.stderr[-2000:]
    assert "Walked the build" in spawned.stderr  # the walk keeps the time, not a crawl
    # a second and a half of the walk's own time (see _share)
    share = _share(before, started, ended)
    margin = 1.5 / share
    assert took < 2 + margin, f"{took:.2f} s after level 1 began, for --max-time 2 ({share:.0%})"
    written = _stopped_report(wide, spawned, "closespider_timeout")
    unchecked = [e for e in written["urls"] if e["outcome"] == "unchecked"]
    assert unchecked and unchecked[0]["error"] == "Not checked: time limit reached"


# -- a build of many files, none linked (issue 41) ------------------------------------

FLAT, FOLDERS, EACH = 100_000, 100, 1_000  # one flat folder, and folders of pages


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """200,000 empty pages no link reaches (100,000 in one folder, as a
    generated API reference, and 100 folders of 1,000) and an index that
    links to none of them: every page an orphan, to be listed and read."""
    root = tmp_path_factory.mktemp("many")
    build = root / "public"
    (build / "api").mkdir(parents=True)
    for i in range(FLAT):
        os.close(os.open(build / "api" / f"f{i}.html", os.O_CREAT | os.O_WRONLY, 0o644))
    for d in range(FOLDERS):
        folder = build / f"d{d}"
        folder.mkdir()
        for i in range(EACH):
            os.close(os.open(folder / f"p{i}.html", os.O_CREAT | os.O_WRONLY, 0o644))
    (build / "index.html").write_text("<p>no links</p>")
    return root


def test_the_pages_no_link_reached_are_listed_lazily(many):
    """The enumeration of the unread pages holds a chunk of one folder's
    listing and a batch of pages, never the build's names: its first batch
    over 200,000 files costs well under the 14 MB their names' list would."""
    import tracemalloc

    from linkaudit.localbuild.inventory import BATCH, BuildPages
    from linkaudit.rules.judge import Verdict
    from linkaudit.state.memory import MemoryState

    pages = BuildPages(str(many / "public"), "http://127.0.0.1:1/")
    state = MemoryState()
    tracemalloc.start()
    try:
        names = [f"p{i}.html" for i in range(FLAT + FOLDERS * EACH)]
        as_a_list = tracemalloc.get_traced_memory()[0]
        del names
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        queued = pages.feed(state, lambda url: Verdict(url, None, None), lambda: False)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert queued == BATCH and len(state.next_level()) == BATCH
    assert peak < as_a_list / 4, (peak, as_a_list)
    assert not pages.done  # the rest is listed later, a batch at a time


def test_max_urls_bounds_the_pages_read_of_a_build_of_many_files(many):
    """--max-urls: the first page past it ends the enumeration (the rest is
    never listed): the walk, and the crawl reading the files (--db)."""
    for route in ([], ["--db", "a.db"]):
        run = measure(
            [LINKAUDIT, "public", "--max-urls", "2000", "--report", "r.json", *route],
            cwd=many,
            limit=60,
        )
        assert run.proc.returncode == 3, run.proc.stdout[-1000:] + run.proc.stderr[-2000:]
        assert run.peak_kib < PEAK_KIB, f"peak RSS {run.peak_kib} KiB {route}"
        report = json.loads((many / "r.json").read_text())
        assert report["summary"]["urls"] == 2000, route
        build = report["build"]
        assert build["pages"] == 2000 and build["orphans"] == 1999
        assert build["orphans_sought"] is False and report["complete"] is False
        assert run.proc.stdout.splitlines()[0].endswith(
            "2,000 pages read, 1 reached by links, 1,999 orphans,"
            " the pages no link reached not looked for"
        ), run.proc.stdout


def test_max_time_stops_the_reading_of_a_build_of_many_files(many):
    """--max-time: the enumeration asks the walk's clock every chunk of a
    listing and every page; the report says where it stopped."""
    spawned = Spawned(
        [sys.executable, "-m", "linkaudit", str(many / "public"), "--report",
         str(many / "t.json"), "--max-time", "2", "-v"]
    )  # fmt: skip
    wait_for(
        lambda: "reading the pages no link reached" in spawned.stderr, timeout=60, what="listing"
    )
    listing = time.monotonic()
    code = spawned.wait(timeout=60)
    took = time.monotonic() - listing
    assert code == 3, spawned.stderr[-2000:]
    report = json.loads((many / "t.json").read_text())
    check_no_fault(spawned.stderr, report=report)
    assert report["finish_reason"] == "closespider_timeout" and report["complete"] is False
    assert 1 < report["build"]["pages"] < FLAT + FOLDERS * EACH
    assert report["build"]["orphans_sought"] is False
    assert took < 2 + 4, f"{took:.2f} s after the listing began, for --max-time 2 (report included)"
