"""The HTML Standard's micro-syntaxes that hold URLs: ``srcset`` ("parse a
srcset attribute") and ``<meta http-equiv=refresh>`` ("shared declarative
refresh steps")."""

from __future__ import annotations

import re

_ASCII_SPACE = "\t\n\f\r "
_FLOAT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[0-9]+")


def parse_srcset(value: str) -> list[str]:
    """The URLs of a ``srcset`` value: the HTML Standard's "parse a srcset
    attribute", which drops a candidate whose descriptors are invalid."""
    urls: list[str] = []
    pos, n = 0, len(value)
    while True:
        while pos < n and (value[pos] in _ASCII_SPACE or value[pos] == ","):
            pos += 1
        if pos >= n:
            return urls
        start = pos
        while pos < n and value[pos] not in _ASCII_SPACE:
            pos += 1
        url = value[start:pos]
        descriptors: list[str] = []
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            pos = _descriptors(value, pos, descriptors)
        if _valid_descriptors(descriptors):
            urls.append(url)


def _descriptors(value: str, pos: int, out: list[str]) -> int:
    """The descriptor tokenizer: words up to a comma outside parentheses."""
    n = len(value)
    while pos < n and value[pos] in _ASCII_SPACE:
        pos += 1
    current, in_parens = "", False
    while pos < n:
        c = value[pos]
        pos += 1
        if in_parens:
            current += c
            if c == ")":
                in_parens = False
        elif c in _ASCII_SPACE:
            if current:
                out.append(current)
                current = ""
        elif c == ",":
            break
        else:
            current += c
            if c == "(":
                in_parens = True
    if current:
        out.append(current)
    return pos


def _valid_descriptors(descriptors: list[str]) -> bool:
    width = density = height = False
    for d in descriptors:
        kind, number = d[-1:], d[:-1]
        if kind == "w" and not (width or density) and _INTEGER.fullmatch(number):
            width = int(number) > 0
            if not width:
                return False
        elif kind == "x" and not (width or density or height) and _FLOAT.fullmatch(number):
            density = True
            if float(number) < 0:
                return False
        elif kind == "h" and not (height or density) and _INTEGER.fullmatch(number):
            height = int(number) > 0
            if not height:
                return False
        else:
            return False
    return not (height and not width)


def parse_meta_refresh(content: str) -> str:
    """The URL of a ``<meta http-equiv=refresh content=...>`` (the Standard's
    "shared declarative refresh steps"), or ``""`` when browsers ignore the
    value or it refreshes the page itself."""
    pos, n = 0, len(content)

    def skip_space() -> None:
        nonlocal pos
        while pos < n and content[pos] in _ASCII_SPACE:
            pos += 1

    def digits(dots: bool) -> int:
        nonlocal pos
        start = pos
        while pos < n and (content[pos] in "0123456789" or dots and content[pos] == "."):
            pos += 1
        return pos - start

    skip_space()
    if not digits(False) and content[pos : pos + 1] != ".":
        return ""  # no time: not a refresh
    digits(True)
    if pos < n:
        if content[pos] not in ";," + _ASCII_SPACE:
            return ""
        skip_space()
        if content[pos : pos + 1] in (";", ","):
            pos += 1
        skip_space()
    if pos >= n:
        return ""  # a time alone: the page refreshes itself
    url = content[pos:]
    if content[pos] in "Uu":
        pos += 1
        if content[pos : pos + 1] not in ("R", "r"):
            return url
        pos += 1
        if content[pos : pos + 1] not in ("L", "l"):
            return url
        pos += 1
        skip_space()
        if content[pos : pos + 1] != "=":
            return url
        pos += 1
        skip_space()
    quote = content[pos : pos + 1]
    if quote in ("'", '"'):
        return content[pos + 1 :].split(quote, 1)[0]
    return content[pos:]
