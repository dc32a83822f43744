"""Character references in attribute values, by the HTML Standard's
tokenizer: the attribute rule for names without ";" and the numeric rules."""

from __future__ import annotations

import re
from html.entities import html5 as _ENTITIES

_CHARREF = re.compile(r"&(?:#([xX][0-9A-Fa-f]*|[0-9]*)(;?)|([A-Za-z][A-Za-z0-9]*;?))")
_LONGEST_NAME = max(map(len, _ENTITIES))
# Numeric references to C1 controls mean windows-1252 (the HTML Standard's table)
_C1 = {
    n: bytes([n]).decode("cp1252")
    for n in range(0x80, 0xA0)
    if n not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}


def _charref(m: re.Match[str]) -> str:
    digits, name = m.group(1), m.group(3)
    if digits is not None:
        hex_ = digits[:1] in ("x", "X")
        number = digits[1:] if hex_ else digits
        if not number:  # "&#" or "&#x" with no digits: not a reference
            return m.group(0)
        value = int(number, 16 if hex_ else 10)
        if value == 0 or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            return "\ufffd"
        return _C1.get(value) or chr(value)
    # the longest name in the table; without ";" and followed by "=" or an
    # alphanumeric, an attribute keeps it as written (&sect=2, &copy2)
    for size in range(min(len(name), _LONGEST_NAME), 1, -1):
        candidate = name[:size]
        if candidate in _ENTITIES:
            if candidate[-1] != ";":
                after = name[size : size + 1] or m.string[m.end() : m.end() + 1]
                if after == "=" or after.isascii() and after.isalnum():
                    return m.group(0)
            return _ENTITIES[candidate] + name[size:]
    return m.group(0)


def decode_attribute(value: str) -> str:
    """An attribute value as the tokenizer hands it on."""
    if "&" in value:
        value = _CHARREF.sub(_charref, value)
    if "\0" in value:
        value = value.replace("\0", "\ufffd")
    return value
