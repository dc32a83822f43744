"""Where an audit's CPU goes, by component, from a py-spy profile.

    py-spy record -r 50 --format raw -o prof.txt -- python -m linkaudit URL ...
    python bench/cpu_shares.py prof.txt [more.txt ...]

Each sample goes to the first component (in the order below) that one of
its frames belongs to; the command's own frames above the reactor are left
out, or every sample would be ``linkaudit/cli.py``'s (for a walk of a
build, which has no reactor, those above the command's ``main``), and so are
other threads' samples.  Prints one column of shares (%) per profile, as
the "Where the CPU goes" tables of bench/README.md.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

COMPONENTS = [
    ("page scan: CSS", r"_style_attribute_url|linkaudit/rules/css\.py"),
    ("page scan: tokenizer and link extraction", r"capped_links|start_tags|_extract_more"),
    ("page scan: landmarks", r"landmarks \(linkaudit/rules/html/landmarks"),
    ("page scan: template blocks (page_blocks)", r"page_blocks \(linkaudit/rules/templates"),
    ("page scan: soft-404 title and fingerprint", r"says_not_found|fingerprint \(linkaudit"),
    ("per link: resolving and judging", r"resolve_link|canonicalize|LinkRules"),
    ("per link: state (discover, enqueue, record)",
     r"discover_many|place_link|\(linkaudit/state/"),
    ("rest of the page scan (decoding, the loop)",
     r"scan \(linkaudit/components/discovery|place_page \(|_reply \(|decoded \("),
    ("report, journal, pipelines", r"\(linkaudit/output/"),
    ("start-up (imports)", r"<module> |importlib"),
    ("walk of a build (files, static-host rules)",
     r"\(linkaudit/localbuild/|_walked \("),
    ("HTTP client (our handler, Scrapy's, Twisted's)",
     r"download_request|\(linkaudit/network/|http11\.py|twisted/web/"),
    ("spider callbacks, other", r"\(linkaudit/"),
    ("Scrapy engine, scheduler, middlewares, event loop", r""),  # the rest
]  # fmt: skip
_PATTERNS = [(name, re.compile(pattern)) for name, pattern in COMPONENTS]


def shares(path: str) -> tuple[Counter[str], int]:
    """Samples per component, and the total, of one raw profile."""
    found: Counter[str] = Counter()
    total = 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not count.isdigit():
                continue
            frames = stack.split(";")
            # from the reactor down (a crawl), else from the command's main
            # (a walk of a build); samples of other threads (the build's
            # idle server) are left out
            starts = [i for i, f in enumerate(frames) if f.startswith("CrawlerProcess.start")]
            starts = starts or [i for i, f in enumerate(frames) if f.startswith("main (")]
            if not starts:
                continue
            stack = ";".join(frames[starts[0] :])
            total += int(count)
            name = next(name for name, pattern in _PATTERNS if pattern.search(stack))
            found[name] += int(count)
    return found, total


def main(paths: list[str]) -> None:
    if not paths:
        sys.exit("usage: cpu_shares.py PROFILE.txt [...] (py-spy record --format raw)")
    columns = [shares(path) for path in paths]
    print("| where | " + " | ".join(paths) + " |")
    print("| --- |" + " --- |" * len(paths))
    for name, _ in COMPONENTS:
        cells = [f"{100 * found[name] / max(total, 1):.1f} %" for found, total in columns]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| samples | " + " | ".join(str(total) for _, total in columns) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
