"""Bodies that are too big, compressed, lying about their type, or sent where
none belongs: capped, decoded, scanned for what they hold, never a crash."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import zlib

import brotli
import pytest

from tests.conftest import CRAWL_TIMEOUT, ROOT, Crawl, crawl_command, run_crawl
from tests.peak import measure
from tests.server import Route

MB = 1024 * 1024
CAP = {"LINKAUDIT_PAGE_MAXSIZE": str(MB)}
FILLER = b"<p>" + b"lorem ipsum dolor sit amet " * 40 + b"</p>\n"


def _endless():
    yield b'<html><body><a href="/first">first</a>\n'
    for _ in itertools.count():
        yield FILLER * 64


def test_endless_page_is_cut_at_the_cap_and_what_was_read_is_scanned(tmp_path, server):
    server.add("/", Route(stream=_endless))
    server.add("/first", "ok")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=CAP)
    home = crawl.url(f"{server.url}/")
    assert home["outcome"] == "ok" and home["truncated"] is True and home["error"] is None
    assert crawl.url(f"{server.url}/first")["outcome"] == "ok"
    assert crawl.report["complete"] is True
    (get,) = server.hits("/", "GET")
    # the client hung up soon after the cap: only socket buffers more were sent
    assert get.body_bytes < 16 * MB


def test_fifty_megabyte_page_with_a_length(tmp_path, server):
    body = b'<a href="/early">e</a>\n' + FILLER * (50 * MB // len(FILLER))
    body += b'<a href="/late">l</a>\n'
    server.add("/", Route(body=body))
    server.add("/early", "ok")
    server.add("/late", "ok")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/", settings=CAP)
    assert crawl.url(f"{server.url}/")["truncated"] is True
    assert crawl.url(f"{server.url}/early")["outcome"] == "ok"
    assert f"{server.url}/late" not in {u["url"] for u in crawl.report["urls"]}
    assert server.hits("/late") == []


def _deflate(data: bytes) -> bytes:
    return zlib.compress(data)


@pytest.mark.parametrize(
    "encoding, compress",
    [("gzip", gzip.compress), ("deflate", _deflate), ("br", brotli.compress)],
)
def test_compressed_pages_are_decoded(tmp_path, server, encoding, compress):
    html = b'<html><body>\n<a href="/inner">in</a>\n<a href="/gone">x</a></body></html>'
    server.add("/", Route(body=compress(html), headers={"Content-Encoding": encoding}))
    server.add("/inner", "ok")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    assert crawl.url(f"{server.url}/inner")["outcome"] == "ok"
    gone = crawl.url(f"{server.url}/gone")
    assert gone["outcome"] == "broken"
    assert gone["referrers"] == [{"url": f"{server.url}/", "line": 3}]
    assert "truncated" not in crawl.url(f"{server.url}/")
    assert encoding in server.hits("/", "GET")[0].headers.get("Accept-Encoding", "")


def _gzip_bomb(size: int) -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [comp.compress(b'<a href="/in-bomb">b</a>\n')]
    zeros = b"\0" * MB
    parts.extend(comp.compress(zeros) for _ in range(size // MB))
    parts.append(comp.flush())
    return b"".join(parts)


def test_gzip_bomb_does_not_expand_past_the_cap(tmp_path, server):
    bomb = _gzip_bomb(1024 * MB)  # 1 GiB of zeros in about 1 MB
    assert len(bomb) < 2 * MB
    server.add("/", Route(body=bomb, headers={"Content-Encoding": "gzip"}))
    server.add("/in-bomb", "ok")
    report = tmp_path / "report.json"
    start, written = f"start={server.url}/", f"report={report}"
    cmd = crawl_command(tmp_path, "-a", start, "-a", written, settings=CAP)
    # the crawl's own peak (tests/peak.py): the test process's children's
    # peak would hold whatever else this worker ran before
    run = measure(cmd, limit=CRAWL_TIMEOUT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    proc = run.proc
    crawl = Crawl(proc.returncode, proc.stdout, proc.stderr, json.loads(report.read_text()))
    home = crawl.url(f"{server.url}/")
    assert home["outcome"] == "ok" and home["truncated"] is True
    assert crawl.url(f"{server.url}/in-bomb")["outcome"] == "ok"
    # a crawl is ~100 MB; expanded, this one would be 1 GiB
    assert run.peak_kib < 400 * 1024


def test_content_types_missing_odd_or_lying(tmp_path, server):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    links = ["/png-as-html", "/no-type", "/shouty", "/params", "/corrupt-gzip"]
    server.add("/", "\n".join(f'<a href="{p}">x</a>' for p in links))
    server.add("/png-as-html", Route(body=png, content_type="text/html"))
    server.add("/no-type", Route(body='<a href="/from-untyped">x</a>', content_type=None))
    server.add(
        "/shouty",
        Route(body='<a href="/from-shouty">x</a>', content_type="TEXT/HTML; Charset=UTF-8"),
    )
    server.add(
        "/params",
        Route(body='<a href="/from-params">x</a>', content_type='text/html ; charset="latin-1"'),
    )
    server.add(
        "/corrupt-gzip",
        Route(body=b"this is not gzip", headers={"Content-Encoding": "gzip"}),
    )
    for path in ("/from-shouty", "/from-params"):
        server.add(path, "ok")
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    for path in links:
        assert crawl.url(f"{server.url}{path}")["outcome"] == "ok", path
    assert crawl.url(f"{server.url}/png-as-html")["content_type"] == "text/html"
    assert crawl.url(f"{server.url}/no-type")["content_type"] is None
    assert crawl.url(f"{server.url}/shouty")["content_type"] == "text/html"
    # HTML detection is by media type: an untyped page is not scanned
    assert server.methods("/no-type") == ["HEAD"]
    assert crawl.url(f"{server.url}/from-shouty")["outcome"] == "ok"
    assert crawl.url(f"{server.url}/from-params")["outcome"] == "ok"
    assert "Traceback" not in crawl.stderr


def test_head_and_get_disagree_the_get_decides(tmp_path, server):
    big = b"\x89PNG" + b"\0" * (20 * MB)
    server.add("/", '<a href="/liar">x</a>')
    server.add("/liar", Route(body=big, content_type="image/png", head_content_type="text/html"))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    entry = crawl.url(f"{server.url}/liar")
    assert entry["outcome"] == "ok"
    assert (entry["method"], entry["content_type"]) == ("GET", "image/png")
    assert server.methods("/liar") == ["HEAD", "GET"]
    assert server.hits("/liar", "GET")[0].body_bytes < 20 * MB


def test_head_answered_with_a_body(tmp_path, server):
    server.add("/", "\n".join(f'<a href="/h{i}">x</a>' for i in range(6)))
    server.add("/h*", Route(body="page", content_type="text/plain", head_body=b"JUNK" * 100))
    crawl = run_crawl(tmp_path, "-a", f"start={server.url}/")
    for i in range(6):
        entry = crawl.url(f"{server.url}/h{i}")
        # the junk after the HEAD must not be read as the next answer
        assert (entry["outcome"], entry["status"], entry["method"]) == ("ok", 200, "HEAD")
    assert "Traceback" not in crawl.stderr
