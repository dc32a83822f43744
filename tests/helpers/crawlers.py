"""Scrapy components built as a crawl builds them (``from_crawler``), with
no crawl: the fast tier (tests/unit/) feeds them Request and Response
objects and a clock of its own, and asserts what they return and decide."""

from __future__ import annotations

from typing import Any

from scrapy.core.downloader import Downloader, Slot
from scrapy.crawler import Crawler
from scrapy.http import Request, Response
from scrapy.utils.test import get_crawler

from linkaudit import settings as default_settings
from linkaudit.config import Config, bind_config


def crawler(**settings: Any) -> Crawler:
    """A crawler with linkaudit's settings, ``settings`` over them, and its
    configuration read once, as an audit binds it (``config_of``); not started."""
    values = {k: getattr(default_settings, k) for k in dir(default_settings) if k.isupper()}
    values.update(settings)
    made = get_crawler(settings_dict=values)
    bind_config(made, Config.build(made.settings, require_start=False))
    return made


class Engine:
    """What the host components ask of Scrapy's engine: its downloader (a
    real one: its slots, their keys and queues), whether it runs, and the
    requests handed back to it (``crawled``)."""

    def __init__(self, crawler: Crawler) -> None:
        self.downloader = Downloader(crawler)
        self.running = True
        self.crawled: list[Request] = []
        # what ``download_async`` gives: by URL, an answer or an exception to raise
        self.answers: dict[str, Response | BaseException] = {}
        self.downloaded: list[Request] = []

    def crawl(self, request: Request) -> None:
        self.crawled.append(request)

    async def download_async(self, request: Request) -> Response:
        self.downloaded.append(request)
        answer = self.answers[request.url]
        if isinstance(answer, BaseException):
            raise answer
        return answer.replace(request=request)

    def slot(self, request: Request, delay: float = 0.0, concurrency: int = 8) -> Slot:
        """The download slot of ``request``'s host, made as the downloader
        makes one when the host's first request arrives."""
        key = self.downloader.get_slot_key(request)
        if key not in self.downloader.slots:
            self.downloader.slots[key] = Slot(concurrency, delay, 0.0)
        return self.downloader.slots[key]


def engined(**settings: Any) -> tuple[Crawler, Engine]:
    """A crawler as :func:`crawler`, with an :class:`Engine`."""
    made = crawler(**settings)
    engine = Engine(made)
    made.engine = engine  # type: ignore[assignment]
    return made, engine


class Clock:
    """A clock the test moves: ``time()`` and ``monotonic()`` for a
    module's ``time``, and the timers of ``call_later``, fired by
    :meth:`advance` when their time comes."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.timers: list[tuple[float, Any, tuple[Any, ...]]] = []

    def time(self) -> float:
        return self.now

    monotonic = time

    def call_later(self, delay: float, func: Any, *args: Any) -> None:
        self.timers.append((self.now + delay, func, args))

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = sorted((t for t in self.timers if t[0] <= self.now), key=lambda t: t[0])
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, func, args in due:
            func(*args)
