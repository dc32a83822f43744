"""Generate a deterministic static test site, with its ground truth.

    python bench/gen_site.py --pages 10000 --out /tmp/linkaudit-bench/site-10000

writes ``near/`` (the audited site), ``far/`` (a second origin), the rules a
server must apply besides serving files (``rules.json``, per origin:
redirects, error statuses, a URL that answers 429 once), and the ground truth
(``truth.json``: every reachable URL, whether it is near, an HTML page, and
the outcome and status an audit must report).  The same arguments always
give the same site, byte for byte.

Per page: 10-30 KB of text in nested folders, about 28 links: 22 to other
pages (relative with ``./`` and ``../``, root-relative, absolute), 3 images,
1-2 links to the far origin (a tenth of those are 404), and about 0.4 broken
near links, so 1-2 % of link occurrences are broken.  A few binaries with no
file extension (5 MB each by default), and the hard cases every audit must
get right (``SPECIALS``): redirects, chains of them (one into a 404, one to
the far origin), 410 and 500 near and far, a robots.txt rule on each origin,
and a URL that answers 429 with ``Retry-After: 1`` the first time.  Each hard
case is linked from one of the first pages and, now and then, from others.

The test suite serves the site with its own server (tests/sitegen.py), the
benchmark with nginx (bench/run.py; nginx answers the 429 URL with 200 every
time, which is its outcome after the retry anyway).
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import random
from pathlib import Path

WORDS = (
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud "
    "exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure "
    "in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint "
    "occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est"
).split()
BINARY_SIZE = 5 * 1024 * 1024
BINARIES = 5
PAGE_LINKS = 22
IMAGES_PER_PAGE = 3
BROKEN_PER_PAGE = 0.42  # expected broken near links per page
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
ROBOTS = {
    "near": "User-agent: *\nDisallow: /private/\n",
    "far": "User-agent: *\nDisallow: /ext/secret/\n",
}
# The hard cases: (origin, path, rule).  A rule is ("redirect", status,
# target: a path on the same origin, or "far:path"), ("status", code),
# ("blocked",) for a path robots.txt disallows, or ("busy",): 429 with
# Retry-After: 1 the first time, then the page.
SPECIALS: tuple[tuple[str, str, tuple], ...] = (
    ("near", "/moved/old-home", ("redirect", 301, "/")),
    ("near", "/moved/old-first", ("redirect", 301, "page:1")),
    ("near", "/moved/chain-1", ("redirect", 301, "/moved/chain-2")),
    ("near", "/moved/chain-2", ("redirect", 302, "page:2")),
    ("near", "/moved/into-404", ("redirect", 301, "/moved/nowhere.html")),
    ("near", "/moved/away", ("redirect", 307, "far:/ext/e0.html")),
    ("near", "/status/gone.html", ("status", 410)),
    ("near", "/status/error.html", ("status", 500)),
    ("near", "/private/report.html", ("blocked",)),
    ("near", "/busy.html", ("busy",)),
    ("far", "/ext/gone.html", ("status", 410)),
    ("far", "/ext/error.html", ("status", 500)),
    ("far", "/ext/moved", ("redirect", 308, "/ext/e1.html")),
    ("far", "/ext/secret/plans.html", ("blocked",)),
)


def page_path(i: int) -> str:
    """URL path of page i; page 0 is the home page."""
    if i == 0:
        return "/"
    return f"/s{i % 20}/t{(i // 20) % 25}/p{i}.html"


def _relative(src: str, dst: str, rng: random.Random) -> str:
    """dst written relative to the page src (``./x``, ``../../y``)."""
    base = posixpath.dirname(src) if not src.endswith("/") else src.rstrip("/") or "/"
    rel = posixpath.relpath(dst, base or "/")
    if not rel.startswith("../") and rng.random() < 0.5:
        rel = "./" + rel
    return rel


def generate(
    pages: int,
    out: Path,
    near: str,
    far: str,
    seed: int = 1,
    binary_size: int = BINARY_SIZE,
) -> dict:
    rng = random.Random(seed)
    paragraphs = [
        "<p>" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 110))) + "</p>\n"
        for _ in range(300)
    ]
    n_images = max(1, pages // 4)
    n_far = max(10, pages // 5)
    far_missing = set(rng.sample(range(2, n_far), max(1, n_far // 10)))  # e0, e1 exist
    n_broken = max(1, pages // 10)
    origins = {"near": near, "far": far}
    truth: dict[str, dict] = {}
    rules: dict[str, dict] = {o: {"redirects": {}, "statuses": {}, "busy": []} for o in origins}

    def note(url: str, near_: bool, html: bool, outcome: str = "ok", status: int | None = 200):
        truth.setdefault(
            url,
            {
                "near": near_,
                "html": html,
                "broken": outcome == "broken",
                "outcome": outcome,
                "status": status,
            },
        )

    def resolve_target(origin: str, target: str) -> tuple[str, str]:
        """(origin, path) of a rule's target."""
        if target.startswith("far:"):
            return "far", target[4:]
        if target.startswith("page:"):
            return origin, page_path(min(int(target[5:]), pages - 1))
        return origin, target

    # the hard cases: rules for the server, truth for the audit
    for origin, path, rule in SPECIALS:
        url = origins[origin] + path
        kind = rule[0]
        if kind == "redirect":
            t_origin, t_path = resolve_target(origin, rule[2])
            location = t_path if t_origin == origin else origins[t_origin] + t_path
            rules[origin]["redirects"][path] = [rule[1], location]
            note(url, origin == "near", False, "redirect", rule[1])
        elif kind == "status":
            rules[origin]["statuses"][path] = rule[1]
            note(url, origin == "near", False, "broken", rule[1])
        elif kind == "blocked":
            note(url, origin == "near", True, "blocked", None)
        elif kind == "busy":
            rules[origin]["busy"].append(path)
            note(url, origin == "near", True, "ok", 200)
    # where a redirect leads to nothing
    note(near + "/moved/nowhere.html", True, False, "broken", 404)

    (out / "near").mkdir(parents=True, exist_ok=True)
    (out / "far" / "ext" / "secret").mkdir(parents=True, exist_ok=True)
    for sub in ("img", "bin", "private", "status"):
        (out / "near" / sub).mkdir(exist_ok=True)
    for origin, robots in ROBOTS.items():
        (out / origin / "robots.txt").write_text(robots)
    occurrences = 0
    for i in range(pages):
        src = page_path(i)
        note(near + src, True, True)
        targets: list[tuple[str, str]] = []  # (how it is written, absolute URL)
        page_targets = [(i + 1) % pages] + [rng.randrange(pages) for _ in range(PAGE_LINKS - 1)]
        for t in page_targets:
            dst = page_path(t)
            form = rng.random()
            if form < 0.6 and dst != "/":
                written = _relative(src, dst, rng)
            elif form < 0.8:
                written = dst
            else:
                written = near + dst
            targets.append((f'<a href="{written}">page {t}</a>', near + dst))
        for _ in range(IMAGES_PER_PAGE):
            k = rng.randrange(n_images)
            dst = f"/img/i{k}.png"
            targets.append((f'<img src="{_relative(src, dst, rng)}" alt="">', near + dst))
            note(near + dst, True, False)
        for _ in range(rng.choice((1, 2))):
            k = rng.randrange(n_far)
            url = f"{far}/ext/e{k}.html"
            targets.append((f'<a href="{url}">elsewhere {k}</a>', url))
            if k in far_missing:
                note(url, False, True, "broken", 404)
            else:
                note(url, False, True)
        if rng.random() < BROKEN_PER_PAGE:
            k = rng.randrange(n_broken)
            dst = f"/s{k % 20}/gone{k}.html"
            targets.append((f'<a href="{dst}">gone {k}</a>', near + dst))
            note(near + dst, True, False, "broken", 404)
        if rng.random() < 0.01:
            k = rng.randrange(BINARIES)
            targets.append((f'<a href="/bin/blob{k}">download {k}</a>', f"{near}/bin/blob{k}"))
            note(f"{near}/bin/blob{k}", True, False)
        # each hard case on one of the first pages, and now and then elsewhere
        for n, (origin, path, _rule) in enumerate(SPECIALS):
            if i == n % pages or rng.random() < 0.005:
                url = origins[origin] + path
                written = path if origin == "near" else url
                targets.append((f'<a href="{written}">special</a>', url))
        occurrences += len(targets)
        body = [f"<!doctype html>\n<html><head><title>Page {i}</title></head><body>\n"]
        size, goal = 0, rng.randint(10_000, 30_000)
        per_link = max(1, goal // (len(targets) + 1))
        for n, (tag, _url) in enumerate(targets, 1):
            while size < per_link * n:
                para = rng.choice(paragraphs)
                body.append(para)
                size += len(para)
            body.append(tag + "\n")
        while size < goal:
            para = rng.choice(paragraphs)
            body.append(para)
            size += len(para)
        body.append("</body></html>\n")
        path = out / "near" / (src.lstrip("/") or "index.html")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(body))
    for k in range(n_images):
        (out / "near" / "img" / f"i{k}.png").write_bytes(PNG)
    for k in range(n_far):
        if k not in far_missing:
            (out / "far" / "ext" / f"e{k}.html").write_text(f"<p>far page {k}</p>\n")
    blob = random.Random(seed + 1).randbytes(binary_size)
    for k in range(BINARIES):
        (out / "near" / "bin" / f"blob{k}").write_bytes(blob)
    # pages that exist but that an audit must not fetch, or only after a 429
    (out / "near" / "private" / "report.html").write_text("<p>private</p>\n")
    (out / "far" / "ext" / "secret" / "plans.html").write_text("<p>secret</p>\n")
    (out / "near" / "busy.html").write_text("<p>busy, then fine</p>\n")
    # what the other redirects lead to: existing pages (first noted above, if linked)
    for origin, _path, rule in SPECIALS:
        if rule[0] == "redirect":
            t_origin, t_path = resolve_target(origin, rule[2])
            note(origins[t_origin] + t_path, t_origin == "near", True)
    summary = {
        "pages": pages,
        "start": near + "/",
        "near": near,
        "far": far,
        "link_occurrences": occurrences,
        "urls": truth,  # only what is linked (or redirected to) is reachable
    }
    (out / "truth.json").write_text(json.dumps(summary))
    (out / "rules.json").write_text(json.dumps(rules, indent=1))
    return summary


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=1000)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--near", default="http://127.0.0.1:8081", help="origin of the site")
    p.add_argument("--far", default="http://127.0.0.2:8081", help="origin of the far site")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--binary-size", type=int, default=BINARY_SIZE, help="bytes per binary")
    ns = p.parse_args()
    truth = generate(
        ns.pages, ns.out, ns.near.rstrip("/"), ns.far.rstrip("/"), ns.seed, ns.binary_size
    )
    urls = truth["urls"].values()
    print(
        f"{ns.out}: {truth['pages']} pages, {len(truth['urls'])} URLs, "
        f"{truth['link_occurrences']} link occurrences, "
        f"{sum(u['broken'] for u in urls)} broken, {sum(not u['near'] for u in urls)} far"
    )
    os.sync()


if __name__ == "__main__":
    main()
