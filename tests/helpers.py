"""Helpers shared by the test modules, in one place: no test module imports
another (tests/test_layout.py holds to it).  Fixtures are in conftest.py,
the test servers in server.py and rawserver.py, generated sites in
sitegen.py."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import os
import random
import re
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
from hypothesis import strategies as st

from linkaudit.items import UrlResult
from linkaudit.output.report.facts import ReportFacts
from linkaudit.rules.html.landmarks import _CANDIDATE, candidate
from tests.conftest import ROOT, run_process

# -- the command -----------------------------------------------------------------------
LINKAUDIT = str(Path(sys.executable).with_name("linkaudit"))  # installed by pip -e .
HANG_BOUND = 30  # seconds: a run that hangs fails here, not at the suite's timeout


def run(tmp_path, *args, timeout=90):
    return run_process([LINKAUDIT, *args], cwd=tmp_path, timeout=timeout)


def refused(out, words: str) -> str:
    """The run stopped with exit code 2 and one error line holding ``words``."""
    assert out.returncode == 2, out.stdout + out.stderr
    errors = [line for line in out.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and errors[0].startswith("linkaudit: error: "), out.stderr
    assert words in errors[0], out.stderr
    assert "Traceback" not in out.stderr
    return errors[0]


# -- feeds -------------------------------------------------------------------------------
ITEM_SCHEMA = json.loads((ROOT / "docs" / "item.schema.json").read_text())
ITEM = jsonschema.Draft202012Validator(ITEM_SCHEMA)


def valid_item(item: dict) -> None:
    """A feed item holds to docs/item.schema.json."""
    errors = [f"{list(e.path)}: {e.message}" for e in ITEM.iter_errors(item)]
    assert not errors, (item, errors)


# -- a local build served (linkaudit/localbuild/directory.py) ----------------------------------
SERVE = """
import sys, time
from linkaudit.localbuild.directory import DirectorySite
with DirectorySite(sys.argv[1]) as site:
    print(site.url, flush=True)
    time.sleep(120)
"""


def request(
    url: str, method: str = "GET", read: int | None = None, headers: dict | None = None
) -> tuple[int, dict, bytes]:
    """One request (``headers`` may name another ``Host``); at most ``read``
    bytes of the body are read."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(method, parts.path, headers=headers or {})
        answer = conn.getresponse()
        body = answer.read(read) if read is not None else answer.read()
        return answer.status, dict(answer.getheaders()), body
    finally:
        conn.close()


# -- content served --------------------------------------------------------------------
def urlset(*locs: str) -> str:
    """A sitemap listing ``locs``."""
    rows = "\n".join(f"  <url>\n    <loc>{loc}</loc>\n  </url>" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{rows}\n</urlset>\n'
    )


def many_links() -> Iterator[bytes]:
    """300,000 links, generated as they are sent (4.4 MB: under the 5 MiB page cap)."""
    yield b"<!doctype html><base href=/x/>\n<a href=/first>first</a>\n"
    for start in range(0, 300_000, 10_000):
        yield "".join(f"<a href={n}>" for n in range(start, start + 10_000)).encode()
    yield b"\n<a href=/last>last</a>\n"


def certificate(directory, name: str, *, expired: bool) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1, valid now or expired."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    start, end = (
        (now - datetime.timedelta(days=30), now - datetime.timedelta(days=1))
        if expired
        else (
            now - datetime.timedelta(days=1),
            now + datetime.timedelta(days=30),
        )
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / f"{name}.pem", directory / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_file), str(key_file)


# -- stored results (hypothesis) --------------------------------------------------------
_text = st.text(max_size=40)
_maybe_text = st.none() | _text
_page = st.none() | st.fixed_dictionaries(
    {
        "bytes": st.integers(0, 10**7),
        "last_modified": st.none() | st.just("2015-10-21T07:28:00+00:00"),
        "links": st.integers(0, 10**5),
        "images": st.integers(0, 10**4),
    }
)
url_results = st.builds(
    UrlResult,
    url=st.text(min_size=1, max_size=60),
    near=st.booleans(),
    outcome=st.sampled_from(["ok", "redirect", "broken", "blocked", "excluded", "unchecked"]),
    depth=st.integers(0, 50),
    status=st.none() | st.integers(100, 999),
    error=_maybe_text,
    method=st.sampled_from([None, "HEAD", "GET"]),
    content_type=_maybe_text,
    location=_maybe_text,
    referrer_count=st.integers(0, 10**6),
    truncated=st.booleans(),
    page=_page,
    checked_at=_maybe_text,
    from_cache=st.booleans(),
    not_modified=st.booleans(),
    warning=_maybe_text,
    new=st.booleans(),
    etag=_maybe_text,
    stored_links=st.booleans(),
)


# -- linear cost (issue 24) --------------------------------------------------------------
GROWTH = 8
GROWTH_BOUND = 16  # linear: about 8; quadratic: about 64


def least_cpu(work: Callable[[], object], repeat: int = 5) -> float:
    """The least CPU time of ``repeat`` runs (the machine is shared)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def slow_landmarks(text: str) -> list[tuple[str, int, int]]:
    """``landmarks`` the plain way: each block's lines counted from the top,
    each block's end found by reading on from its start tag; the head from
    the head and body tags read in turn; a block dropped when it starts in
    the span of a main content kept before it."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = []
    tags = [
        (m.start(), m.group(1), m.group(2).lower())
        for m in re.finditer(r"<(/?)(head|body)(?=[\s/>])", text, re.I | re.A)
    ]
    if tags:
        start, slash, name = tags[0]
        if slash or name == "body":
            span = (0, start)
        else:
            ends = [at for at, slash, name in tags[1:] if slash or name == "body"]
            span = (start, ends[0]) if ends else None
        if span is not None:
            blocks.append(("head", text.count("\n", 0, span[0]) + 1, text.count("\n", 0, span[1]) + 1))
    mains: list[tuple[int, int]] = []
    for m in _CANDIDATE.finditer(text):
        named = candidate(m)
        if named is None:
            continue
        name, signature = named
        # the one change: end tags' names compared ASCII case-insensitively,
        # as HTML does (``</section>`` does not close a ``<ſection>``)
        end_tag = re.compile(rf"<(/?)(?ai:{re.escape(name)})(?=[\s/>])")
        depth, end = 1, len(text)
        for e in end_tag.finditer(text, m.end()):
            depth += -1 if e.group(1) else 1
            if depth == 0:
                end = e.start()
                break
        if any(a < m.start() < b for a, b in mains):
            continue
        if signature == "main":
            mains.append((m.start(), end))
        first = text.count("\n", 0, m.start()) + 1
        blocks.append((signature, first, first + text.count("\n", m.start(), end)))
    return blocks


def slow_page_blocks(links, marks):
    """``page_blocks`` as it was: every link tested against every landmark."""
    blocks, in_landmark = [], set()
    for signature, first, last in marks:
        if signature == "main":  # its inner lines
            inner = [i for i, (_u, line) in enumerate(links) if line is not None and first < line < last]
            in_landmark.update(inner)
            blocks.append(["main", first, last, None])
            continue
        members = [i for i, (_u, line) in enumerate(links) if line is not None and first <= line <= last]
        if members:
            in_landmark.update(members)
            hashes = sorted({zlib.crc32(links[i][0].encode("utf-8", "surrogatepass")) for i in members})
            blocks.append([signature, first, last, hashes])
    run: list = []

    def add_run():
        if len(run) >= 3:
            digest = zlib.crc32("\n".join(u for u, _ in run).encode("utf-8", "surrogatepass"))
            blocks.append([f"links:{digest:08x}", run[0][1], run[-1][1], None])
        run.clear()

    for i, (url, line) in enumerate(links):
        if i in in_landmark or line is None:
            add_run()
            continue
        if run and line - run[-1][1] > 1:
            add_run()
        run.append((url, line))
    add_run()
    return blocks if any(b[0] != "main" for b in blocks) else None


OPENERS = [
    ("nav", "<nav>"),
    ("NAV", '<NAV class="x">'),
    ("footer", "<footer >"),
    ("header", "<header\n>"),
    ("aside", "<aside/>"),
    ("div", '<div class="menu">'),
    ("div", "<div id='sidebar' class=x>"),
    ("div", "<div>"),  # not a block: nests with the blocks of its name
    ("ul", '<ul class="nav navbar">'),
    ("section", '<section role="navigation">'),
    ("section", '<section role="main">'),  # the main content: no block inside it
    ("main", "<MAIN>"),
    ("head", "<head>"),  # the head: from here to </head> or <body>
    ("body", '<body class="nav">'),  # never a block, and the head's end
    ("li", '<li class="menu-item">'),  # an item
    ("Div", '<Div class="Footer">'),
]


TRICKS = [
    "text words",
    "<divx class=menu>",
    "<p>",
    "<!-- c -->",
    '<a class="headerlink" href="#x">x</a>',  # a word inside a longer one
    '<div class="x id=menu">',
    '<p title="<nav>">',
    "<div class=nav_bar>",
    '<DIV CLASS="Side-Bar SIDEBAR">',
    "<div\nclass='footer'\n>",
    "<p>the navigation menu, header and footer</p>",
    "<ul role=navigation class=x>",
    "<ſection role=navigation>",  # a letter a case-blind regex takes for s
]


def random_page(rng: random.Random) -> str:
    """A page of nested blocks, links and text; some blocks never closed,
    some closed twice, newlines of every kind, lines holding several tags."""
    parts: list[str] = []
    stack: list[str] = []
    for _ in range(rng.randrange(5, 120)):
        roll = rng.random()
        if roll < 0.3:
            name, tag = rng.choice(OPENERS)
            parts.append(tag)
            stack.append(name)
        elif roll < 0.5 and stack:
            name = stack.pop() if rng.random() < 0.9 else rng.choice(OPENERS)[0]
            parts.append(rng.choice([f"</{name}>", f"</{name.upper()} >", f"</{name}\n>"]))
        elif roll < 0.85:
            parts.append(f'<a href="/p{rng.randrange(12)}">x</a>')
        else:
            parts.append(rng.choice(TRICKS))
        parts.append(rng.choice(["\n", "\n", "\r\n", "\r", " ", "\n\n"]))
    return "".join(parts)


# -- the standards' own test data (tests/data/fetch.sh) --------------------------------
UPSTREAM = Path(__file__).resolve().parent / "data" / "upstream"


def upstream(relative: str) -> Path:
    path = UPSTREAM / relative
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: tests/data/fetch.sh did not run")
        pytest.skip(f"{path} is missing: run tests/data/fetch.sh")
    return path


def unescaped(value):
    """A doubleEscaped html5lib test's value, its \\uXXXX escapes read."""
    if isinstance(value, str):
        return re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), value)
    if isinstance(value, list):
        return [unescaped(v) for v in value]
    if isinstance(value, dict):
        return {unescaped(k): unescaped(v) for k, v in value.items()}
    return value


# -- report facts for a state built by hand -------------------------------------------------
def site_facts(**fields: object) -> ReportFacts:
    """The facts of an audit of ``http://s/`` that finished, ``fields`` changed."""
    base: dict = dict(
        start_urls=["http://s/"],
        near_prefixes=["http://s/"],
        started_at="then",
        finished_at="now",
        finish_reason="finished",
        pages=0,
        requests=0,
    )
    return ReportFacts(**{**base, **fields})
