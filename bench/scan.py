"""The page scan alone, on a directory of HTML files: what a default audit
does with each page's text once it has it, without Scrapy, HTTP or state.

    .venv/bin/python bench/scan.py DIR [DIR ...] [--passes 5]
    .venv/bin/python bench/scan.py DIR [DIR ...] --digest   # what the scan gives

For each directory, every ``*.html``/``*.htm`` file is read and decoded
first (not timed); then each pass times, in CPU seconds of this process:
``capped_links`` (CSS on, as by default), ``canonicalize`` of every link
against the page's URL (the URL cache emptied before each pass, or later
passes would resolve nothing), ``landmarks``, ``page_blocks``,
``says_not_found`` and ``looks_like_app_shell``.  Prints the median and the
spread of the passes, per step and in all.  Run it with ``PYTHONPATH`` set to the tree to measure:
two trees' medians, taken in turn, compare two versions of the scan.

``--digest`` prints instead, per directory, a digest of everything the scan
gives (links, lines, bases, images, anchors, dropped counts in each mode,
canonical URLs, landmarks, blocks, soft-404 titles): two versions of the
scan that print the same digests give the same output on those pages.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path

from linkaudit.rules import urls
from linkaudit.rules.appshell import looks_like_app_shell
from linkaudit.rules.html import capped_links
from linkaudit.rules.html.landmarks import landmarks
from linkaudit.rules.html.lowered import lowered
from linkaudit.rules.soft404 import says_not_found
from linkaudit.rules.templates import page_blocks
from linkaudit.rules.urls import InvalidURL, canonicalize

LIMIT = 100_000  # LINKAUDIT_PAGE_MAXLINKS's default
STEPS = ("links", "canonicalize", "landmarks", "page_blocks", "says_not_found", "app_shell")


def pages(root: Path) -> list[tuple[str, str]]:
    """(URL, text) of every HTML file under ``root``, decoded as UTF-8."""
    found = []
    for path in sorted(root.rglob("*.htm*")):
        if path.is_file():
            url = "http://127.0.0.1/" + path.relative_to(root).as_posix()
            found.append((url, path.read_bytes().decode("utf-8", "replace")))
    return found


def page_base(base: str | None, url: str) -> str:
    """The URL a page's links resolve against: its ``<base>`` when it parses."""
    if base is not None:
        try:
            return canonicalize(base, url)
        except InvalidURL:
            pass  # the Standard: a base that does not parse is ignored
    return url


def one_pass(site: list[tuple[str, str]]) -> dict[str, float]:
    """CPU seconds of each step over every page of ``site``."""
    spent = dict.fromkeys(STEPS, 0.0)
    clock = time.process_time
    urls._resolve.cache_clear()
    lowered.cache_clear()
    for url, text in site:
        t0 = clock()
        (raw, base, _images, _anchors), _dropped = capped_links(text, css=True, limit=LIMIT)
        t1 = clock()
        base_url = page_base(base, url)
        links: list[tuple[str, int | None]] = []
        seen: dict[str, str] = {}
        for value, line, _tag in raw:
            key = seen.get(value)
            if key is None:
                try:
                    key = canonicalize(value, base_url)
                except InvalidURL:
                    key = value
                seen[value] = key
            links.append((key, line))
        t2 = clock()
        blocks = landmarks(text)
        t3 = clock()
        page_blocks(links, blocks)
        t4 = clock()
        says_not_found(text)
        t5 = clock()
        looks_like_app_shell(text)
        t6 = clock()
        took_each = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5)
        for step, took in zip(STEPS, took_each, strict=True):
            spent[step] += took
    return spent


MODES = ({}, {"css": True}, {"anchors": True}, {"css": True, "anchors": True}, {"limit": 7})


def digest(site: list[tuple[str, str]]) -> str:
    """A digest of all the scan gives on ``site`` (reprs: equal outputs,
    equal digests, whatever objects they are made of)."""
    sha = hashlib.sha256()
    for url, text in site:
        for mode in MODES:
            (raw, base, images, anchors), dropped = capped_links(text, **mode)
            names = sorted(anchors) if anchors is not None else None
            sha.update(repr((raw, base, images, names, dropped)).encode())
        raw, base = capped_links(text, css=True).extracted[:2]
        base_url = page_base(base, url)
        links: list[tuple[str, int | None]] = []
        for value, line, _tag in raw:
            try:
                links.append((canonicalize(value, base_url), line))
            except InvalidURL as exc:
                links.append((f"invalid: {exc}", line))
        blocks = landmarks(text)
        sha.update(repr((links, blocks, page_blocks(links, blocks), says_not_found(text))).encode())
    return sha.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--digest", action="store_true", help="print what the scan gives")
    args = parser.parse_args()
    for root in args.dirs:
        site = pages(root)
        if args.digest:
            print(f"{root}: {digest(site)}", flush=True)
            continue
        size = sum(len(t) for _u, t in site)
        runs = [one_pass(site) for _ in range(args.passes)]
        totals = [sum(r.values()) for r in runs]
        steps = "  ".join(f"{s} {statistics.median(r[s] for r in runs):.3f}" for s in STEPS)
        print(
            f"{root}: {len(site)} pages, {size / 1e6:.1f} M chars; scan CPU median "
            f"{statistics.median(totals):.3f} s (min {min(totals):.3f}, max {max(totals):.3f})"
            f"\n    {steps}",
            flush=True,
        )


if __name__ == "__main__":
    main()
