"""The floor: what a Python process cannot beat.  GET every page of the site
once (the list comes from the ground truth: no discovery, no dedupe, no
checks) with aiohttp, ``concurrency`` at a time, and parse each with lxml,
collecting its links.  Prints the number of pages fetched and links found.

    python bench/floor.py pages.txt 32
"""

from __future__ import annotations

import asyncio
import sys

import aiohttp
import lxml.html


async def crawl(urls: list[str], concurrency: int) -> tuple[int, int]:
    queue: asyncio.Queue[str] = asyncio.Queue()
    for url in urls:
        queue.put_nowait(url)
    counts = [0, 0]

    async def worker(session: aiohttp.ClientSession) -> None:
        while True:
            try:
                url = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            async with session.get(url) as resp:
                body = await resp.read()
            doc = lxml.html.document_fromstring(body, base_url=url)
            doc.make_links_absolute(url)
            counts[0] += 1
            counts[1] += sum(1 for _ in doc.iterlinks())

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    return counts[0], counts[1]


def main() -> None:
    with open(sys.argv[1]) as fh:
        urls = [line.strip() for line in fh if line.strip()]
    pages, links = asyncio.run(crawl(urls, int(sys.argv[2])))
    print(pages, "pages", links, "links")


if __name__ == "__main__":
    main()
