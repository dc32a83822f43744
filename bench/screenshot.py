"""A report as the HTML page, and a full-page screenshot of it in headless
Chromium (the system's, as the tests use it: tests/browser.py).

    python bench/screenshot.py REPORT.json OUT.png [--html OUT.html] [--width 1280]

``make screenshot`` runs it on the demo site's report: build/report.png.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: linkaudit and tests

from linkaudit.output.formats.html.page import as_html  # noqa: E402
from tests.browser import chromium, full_page_png, missing  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a linkaudit JSON report")
    parser.add_argument("png", type=Path, help="where the screenshot goes")
    parser.add_argument("--html", type=Path, help="also keep the HTML page here")
    parser.add_argument("--width", type=int, default=1280, help="window width in CSS pixels")
    args = parser.parse_args(argv)
    why = missing()
    if why:
        parser.error(why)
    page = as_html(json.loads(args.report.read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory() as tmp:
        html = args.html or Path(tmp) / "report.html"
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(page, encoding="utf-8")
        with chromium(width=args.width) as driver:
            driver.get(html.resolve().as_uri())
            args.png.parent.mkdir(parents=True, exist_ok=True)
            args.png.write_bytes(full_page_png(driver))
    print(f"{args.png}" + (f" and {args.html}" if args.html else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
