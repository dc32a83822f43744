"""Bugs on purpose, for tests of how linkaudit handles a fault of its own.

Each component raises a programming error (not a network failure) for URLs
whose path names it, and is switched on with -s like any component."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from scrapy import signals

from linkaudit.state.memory import MemoryState


class BuggyDownloaderMiddleware:
    def process_request(self, request: Any) -> None:
        if "/bug-request" in request.url:
            raise TypeError("injected bug in a downloader middleware")


class BuggySpiderMiddleware:
    def process_spider_input(self, response: Any) -> None:
        if "/bug-input" in response.url:
            raise AttributeError("injected bug before the callback")

    async def process_spider_output(
        self, response: Any, result: AsyncIterable[Any]
    ) -> AsyncIterator[Any]:
        async for thing in result:
            yield thing
        if "/bug-output" in response.url:
            raise KeyError("injected bug after the callback")


class BuggyPipeline:
    def process_item(self, item: Any) -> Any:
        if "/bug-item" in item.url:
            raise ValueError("injected bug in a pipeline")
        return item


class BuggyRobotParser:
    """A robots.txt parser that fails on every real file (ROBOTSTXT_PARSER;
    Scrapy builds one with an empty body at start to check the setting)."""

    @classmethod
    def from_crawler(cls, crawler: Any, robotstxt_body: bytes) -> Any:
        if robotstxt_body:
            raise TypeError("injected bug in the robots.txt parser")
        from scrapy.robotstxt import ProtegoRobotParser

        return ProtegoRobotParser.from_crawler(crawler, robotstxt_body)


class BuggyState(MemoryState):
    """The default state with a fault for one link: queueing a URL whose
    path names it fails (LINKAUDIT_STATE), while its page is being scanned."""

    def enqueue(self, url: str, depth: int, referer: str | None) -> None:
        if "/bug-link" in url:
            raise RuntimeError("injected bug while queueing a link")
        super().enqueue(url, depth, referer)


class LoopBlocker:
    """An extension that holds the event loop still, as scanning a huge page
    does: the first GET answer of a path containing ``/block-loop`` sleeps
    in a ``response_received`` handler, on the reactor's thread, for the
    seconds the path names after it (``/block-loop-3``)."""

    def __init__(self, crawler: Any) -> None:
        self.done = False
        crawler.signals.connect(self.on_response, signal=signals.response_received)

    @classmethod
    def from_crawler(cls, crawler: Any) -> LoopBlocker:
        return cls(crawler)

    def on_response(self, response: Any, request: Any, spider: Any) -> None:
        found = re.search(r"/block-loop-(\d+(?:\.\d+)?)", request.url)
        if found and request.method == "GET" and not self.done:
            self.done = True
            time.sleep(float(found.group(1)))
