"""Scrapy's floor on a site: a bare spider that GETs each URL of a list
once (the site's pages), ``concurrency`` at a time, and does nothing with
the answers: no parsing, no checks, no state, none of linkaudit's
components.  What any link checker built on Scrapy pays at least, since it
must fetch every page; where a peer is faster than this, the difference is
the framework, not the checks.

    python bench/scrapy_floor.py pages.txt 32 [head] [--handler PATH]

With ``head``, each page is asked with HEAD first and then with GET, as
linkaudit's default (HEAD-first) audit asks a near page: the floor of that
politeness on Scrapy.  With ``--handler``, the download handler (a class
path) for ``http``: the floor of each HTTP client (``bench/handlers.py``).
It prints the number of pages fetched.
"""

from __future__ import annotations

import sys
from typing import Any

import scrapy
from scrapy.crawler import CrawlerProcess


class Floor(scrapy.Spider):
    name = "floor"

    def __init__(self, urls: list[str], head: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        self.urls = urls
        self.head = head
        self.fetched = 0

    async def start(self) -> Any:
        for url in self.urls:
            if self.head:
                yield scrapy.Request(url, method="HEAD", callback=self.get, dont_filter=True)
            else:
                yield scrapy.Request(url, callback=self.parse, dont_filter=True)

    def get(self, response: Any) -> Any:
        yield scrapy.Request(response.url, callback=self.parse, dont_filter=True)

    def parse(self, response: Any) -> None:
        self.fetched += 1


def main() -> None:
    args = sys.argv[1:]
    handler = None
    if "--handler" in args:
        at = args.index("--handler")
        handler = args[at + 1]
        del args[at : at + 2]
    with open(args[0]) as fh:
        urls = [line.strip() for line in fh if line.strip()]
    concurrency = int(args[1])
    head = args[2:] == ["head"]
    process = CrawlerProcess(
        {
            **({"DOWNLOAD_HANDLERS": {"http": handler}} if handler else {}),
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
    process.crawl(crawler, urls=urls, head=head)
    process.start()
    print(crawler.spider.fetched, "pages")


if __name__ == "__main__":
    main()
