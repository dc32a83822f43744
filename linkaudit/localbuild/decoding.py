"""A file's bytes as text, decoded as Scrapy decodes a response's body
(``TextResponse.text``): the byte-order mark, then the charset of the
Content-Type, then the page's own declaration (``<meta charset>``), then a
guess.  The walk of a local build must read each page as the crawl reads
it, or the two routes would disagree on a page in another encoding."""

from __future__ import annotations

from w3lib.encoding import (
    html_body_declared_encoding,
    html_to_unicode,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)

_DEFAULT = "ascii"  # TextResponse._DEFAULT_ENCODING


def decoded(content_type: str, body: bytes) -> str:
    declared = (
        read_bom(body)[0]
        or http_content_type_encoding(content_type)
        or html_body_declared_encoding(body)
    )
    if declared:
        return html_to_unicode(f"charset={declared}", body)[1]
    return html_to_unicode(content_type, body, auto_detect_fun=_guess, default_encoding=_DEFAULT)[1]


def _guess(text: bytes) -> str | None:
    for encoding in (_DEFAULT, "utf-8"):
        try:
            text.decode(encoding)
        except UnicodeError:
            continue
        return resolve_encoding(encoding)
    from charset_normalizer import from_bytes  # Scrapy's guess, when nothing else tells

    match = from_bytes(text).best()
    return resolve_encoding(match.encoding) if match else None
