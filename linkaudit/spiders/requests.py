"""The request of one check: a URL, the phase it is asked in (``head``,
``get``, ``fallback``...), and what the answer's reader needs in ``meta``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scrapy.http import Request

from linkaudit.meta import CHECK_URL, DEPTH, HISTORY, PHASE, REFERRER
from linkaudit.rules.recheck import History
from linkaudit.rules.referrer import referrer_header


def check_request(
    url: str,
    depth: int,
    referer: str | None,
    phase: str,
    history: History | None,
    callback: Callable[..., Any],
    errback: Callable[..., Any],
) -> Request:
    """A fresh Request each time (never ``request.replace()``): copying the
    HEAD's meta into the GET would carry Scrapy's internal keys along."""
    # verbatim_url: the canonical URL is what a browser requests; Scrapy's
    # safe_url_string would escape it again ("%2z" into "%252z", "|")
    meta: dict[str, Any] = {
        CHECK_URL: url,
        DEPTH: depth,
        PHASE: phase,
        "handle_httpstatus_all": True,
        "verbatim_url": True,
    }
    if history is not None:
        meta[HISTORY] = history
    if referer:
        meta[REFERRER] = referer
    # what a browser would tell: the full URL to the same origin, only
    # the origin to another, nothing from https to http
    sent = referrer_header(referer, url)
    return Request(
        url,
        method="HEAD" if phase == "head" else "GET",
        headers={"Referer": sent} if sent else None,
        meta=meta,
        callback=callback,
        errback=errback,
        dont_filter=True,  # the state dedupes; no fingerprinting needed
    )
