"""Generate a deterministic static test site for the benchmark.

    python bench/gen_site.py --pages 10000 --out /tmp/linkaudit-bench/site-10000

writes ``near/`` (the audited site), ``far/`` (a second origin), the
redirects nginx must answer (``redirects.json``) and the ground truth
(``truth.json``: every reachable URL, whether it is near, an HTML page,
broken).  The same arguments always give the same site, byte for byte.

Per page: 10-30 KB of text in nested folders, about 28 links: 22 to other
pages (relative with ``./`` and ``../``, root-relative, absolute), 3 images,
1-2 links to the far origin (a tenth of those are 404), and about 0.4 broken
near links, so 1-2 % of link occurrences are broken.  A few 5 MB binaries
with no file extension, and two redirects, are linked from some pages.
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


def generate(pages: int, out: Path, near: str, far: str, seed: int = 1) -> dict:
    rng = random.Random(seed)
    paragraphs = [
        "<p>" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 110))) + "</p>\n"
        for _ in range(300)
    ]
    n_images = max(1, pages // 4)
    n_far = max(10, pages // 5)
    far_missing = set(rng.sample(range(n_far), max(1, n_far // 10)))
    n_broken = max(1, pages // 10)
    redirects = {"/moved/old-home": "/", "/moved/old-first": page_path(1 if pages > 1 else 0)}
    truth: dict[str, dict] = {}

    def note(url: str, near_: bool, html: bool, broken: bool) -> None:
        truth.setdefault(url, {"near": near_, "html": html, "broken": broken})

    (out / "near").mkdir(parents=True, exist_ok=True)
    (out / "far" / "ext").mkdir(parents=True, exist_ok=True)
    (out / "near" / "img").mkdir(exist_ok=True)
    (out / "near" / "bin").mkdir(exist_ok=True)
    for robots in (out / "near" / "robots.txt", out / "far" / "robots.txt"):
        robots.write_text("User-agent: *\nAllow: /\n")
    occurrences = 0
    for i in range(pages):
        src = page_path(i)
        note(near + src, True, True, False)
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
            note(near + dst, True, False, False)
        for _ in range(rng.choice((1, 2))):
            k = rng.randrange(n_far)
            url = f"{far}/ext/e{k}.html"
            targets.append((f'<a href="{url}">elsewhere {k}</a>', url))
            note(url, False, True, k in far_missing)
        if rng.random() < BROKEN_PER_PAGE:
            k = rng.randrange(n_broken)
            dst = f"/s{k % 20}/gone{k}.html"
            targets.append((f'<a href="{dst}">gone {k}</a>', near + dst))
            note(near + dst, True, False, True)
        if rng.random() < 0.01:
            k = rng.randrange(BINARIES)
            targets.append((f'<a href="/bin/blob{k}">download {k}</a>', f"{near}/bin/blob{k}"))
            note(f"{near}/bin/blob{k}", True, False, False)
        if rng.random() < 0.005:
            old = rng.choice(sorted(redirects))
            targets.append((f'<a href="{old}">old</a>', near + old))
            note(near + old, True, False, False)
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
    blob = random.Random(seed + 1).randbytes(BINARY_SIZE)
    for k in range(BINARIES):
        (out / "near" / "bin" / f"blob{k}").write_bytes(blob)
    # only what is linked is reachable: keep truth to that
    summary = {
        "pages": pages,
        "start": near + "/",
        "near": near,
        "far": far,
        "link_occurrences": occurrences,
        "urls": truth,
    }
    (out / "truth.json").write_text(json.dumps(summary))
    (out / "redirects.json").write_text(json.dumps(redirects))
    return summary


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=1000)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--near", default="http://127.0.0.1:8081", help="origin of the site")
    p.add_argument("--far", default="http://127.0.0.2:8081", help="origin of the far site")
    p.add_argument("--seed", type=int, default=1)
    ns = p.parse_args()
    truth = generate(ns.pages, ns.out, ns.near.rstrip("/"), ns.far.rstrip("/"), ns.seed)
    urls = truth["urls"].values()
    print(
        f"{ns.out}: {truth['pages']} pages, {len(truth['urls'])} URLs, "
        f"{truth['link_occurrences']} link occurrences, "
        f"{sum(u['broken'] for u in urls)} broken, {sum(not u['near'] for u in urls)} far"
    )
    os.sync()


if __name__ == "__main__":
    main()
