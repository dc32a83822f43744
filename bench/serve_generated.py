"""Serve the generated site (bench/gen_site.py) over HTTP with every rule a
server applies besides serving files, for audits of it as a live site
(bench/digest.py) where nginx is not installed:

    .venv/bin/python bench/serve_generated.py --pages 10000 --out /tmp/gen-live &
    kill -USR1 %1    # before each audit: the 429 URL answers 429 once again

It is the test suite's server (tests/sitegen.py): the near and far origins
on 127.0.0.1 and 127.0.0.2 (random ports, printed as ``START FAR``), their
redirects and chains, 410 and 500, robots.txt rules, and a URL that answers
429 with ``Retry-After: 1`` the first time.  SIGUSR1 resets the servers'
counts, so that every audit meets the same answers; SIGTERM stops them.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.sitegen import generated_site  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=10000)
    p.add_argument("--out", type=Path, required=True, help="where the site is generated")
    ns = p.parse_args()
    stop = threading.Event()
    with ExitStack() as stack:
        site = generated_site(stack, ns.out, pages=ns.pages, far_host="127.0.0.2")
        signal.signal(signal.SIGUSR1, lambda *_: site.clear_logs())
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        print(site.start, site.far.url, flush=True)
        stop.wait()


if __name__ == "__main__":
    main()
