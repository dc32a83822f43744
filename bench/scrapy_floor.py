"""Scrapy's floor on a site: a bare spider that GETs every URL of the site
once (dedupe in a set), reads each HTML page's links with linkaudit's
tokenizer and follows them; none of linkaudit's components, checks, state
or report.  What a link checker built on Scrapy cannot beat.

    python bench/scrapy_floor.py http://127.0.0.1:PORT/ 32

It prints the URLs and pages it fetched.  Where a peer is faster than
this, no link checker on Scrapy (linkaudit included) can catch it up: the
difference is the framework, not the checks.
"""

from __future__ import annotations

import sys
import time
from urllib.parse import urldefrag, urljoin

import scrapy
from scrapy.crawler import CrawlerProcess

from linkaudit.rules.html import extract_links


class Floor(scrapy.Spider):
    name = "floor"

    def __init__(self, start: str, **kw):
        super().__init__(**kw)
        self.site = start
        self.seen = {start}
        self.pages = self.urls = 0

    async def start(self):
        yield scrapy.Request(self.site, callback=self.parse, dont_filter=True)

    def parse(self, response):
        self.urls += 1
        if b"html" not in (response.headers.get(b"Content-Type") or b""):
            return
        self.pages += 1
        for value, _line, _tag in extract_links(response.text).links:
            url = urldefrag(urljoin(response.url, value.strip()))[0]
            if url.startswith(self.site) and url not in self.seen:
                self.seen.add(url)
                yield scrapy.Request(url, callback=self.parse, dont_filter=True)


def main() -> None:
    start, concurrency = sys.argv[1], int(sys.argv[2])
    t0 = time.monotonic()
    process = CrawlerProcess(
        {
            "LOG_LEVEL": "ERROR",
            "CONCURRENT_REQUESTS": concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
            "DOWNLOAD_DELAY": 0,
            "ROBOTSTXT_OBEY": False,
            "COOKIES_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "HTTPERROR_ALLOWED_CODES": list(range(300, 600)),
            "REDIRECT_ENABLED": False,
            "RETRY_ENABLED": False,
        }
    )
    crawler = process.create_crawler(Floor)
    process.crawl(crawler, start=start)
    process.start()
    spider = crawler.spider
    print(spider.urls, "URLs", spider.pages, "pages", f"{time.monotonic() - t0:.2f} s")


if __name__ == "__main__":
    main()
