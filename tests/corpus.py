"""Odd and hostile hrefs: what a page nobody vetted may hold.

One list, shared by the tests that feed hrefs to the link reader, to whole
crawls and to every output format.  Each value is what a page's author (or
an attacker) wrote in an ``href``; a test that writes them into HTML escapes
them as attribute values (``html.escape``), so the page carries exactly the
value.  Lone surrogates cannot be encoded in a page: ``SURROGATES`` are for
tests that call our functions directly (a value from a state or a feed).
"""

from __future__ import annotations

# Unicode digits that str.isdigit() accepts and int() refuses (superscripts,
# circled digits), and digits of other scripts that int() accepts
UNICODE_DIGIT_PORTS = [
    "HTTP://0:¹",
    "http://example.com:²³/",
    "http://example.com:①/",
    "http://example.com:٣/",  # Arabic-Indic three: int() accepts it
    "http://example.com:８０/",  # fullwidth 80
    "http://[::1]:¹/",
    "//host:⁹⁹/",
]

CONTROLS = [
    "http://example.com/\x00nul",
    "http://exa\x00mple.com/",
    "http://example.com/\x1b[31mred\x1b[0m",
    "http://example.com/\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07",
    "http://example.com/\x07bell\x08back",
    "http://example.com/\x7fdel",
    "\x1b[2J",
    "http://example.com/\u0085next-line",
]

BIDI = [
    "http://example.com/\u202egnp.exe",
    "http://example.com/\u2066isolate\u2069",
    "http://exa\u202emple.com/",
    "\u200f\u200ehttp://example.com/marks",
    "http://example.com/\ufeffbom",
    "http://example.com/\u2028line\u2029para",
]

MARKUP = [
    "http://example.com/<img src=x onerror=alert(1)>",
    'http://example.com/"><script>alert(1)</script>',
    "javascript:alert(document.cookie)",
    "<img src=https://evil.example/track.png>",
    "![img](https://evil.example/track.png)",
    "[click](https://evil.example/)",
    "@octocat please look",
    "mailto:@admins",
    "http://example.com/`code`|table|cell",
    "http://example.com/*bold*_em_~~strike~~",
    "http://example.com/]]></failure><evil>",
    "http://example.com/&amp;&lt;&#0;&#xD800;",
    "http://example.com/--><!--",
    "#<h1>heading</h1>",
]

SCHEMES = [
    "ftp://example.com/file",
    "file:///etc/passwd",
    "data:text/html,<script>alert(1)</script>",
    "data:text/html;base64," + "A" * 300,
    "tel:+1-555-0100",
    "sms:+15550100",
    "irc://irc.example.com/chan",
    "ws://example.com/socket",
    "wss://example.com/socket",
    "blob:http://example.com/uuid",
    "about:blank",
    "chrome://settings",
    "view-source:http://example.com/",
    "vbscript:msgbox(1)",
    "x-unknown-scheme:opaque",
    "HTTPS://EXAMPLE.COM/UPPER",
    "hTtP:relative-to-http",
    "http:",
    "https:",
    "http:///",
    "http://",
]

MALFORMED = [
    "http://[::1",
    "http://[zz::1]/",
    "http://exa mple.com/",
    "http://example.com:99999/",
    "http://example.com:-1/",
    "http://:80/",
    "http://@/",
    "http://user:pass@/",
    "http://%zz/",
    "http://xn--/",
    "http://xn--pokxncvks/",
    "http://999.999.999.999/",
    "http://0x100000000/",
    "http://example.com/%",
    "http://example.com/%%%%",
    "http://example.com/%zz",
    "\\\\server\\share",
    "//",
    "///",
    "?",
    "#",
    "",
    " ",
    "\t\n\r",
    "http://ex\u00adample.com/",  # soft hyphen: mapped away
    "http://\u0000/",
    "http://example.com\u3002jp/",  # ideographic full stop
    "http://ｅｘａｍｐｌｅ.com/",  # fullwidth letters
    "http://a" + "." * 300 + "/",
    "http://" + "a" * 64 + ".example/",
    "http://" + "a." * 130 + "example/",
]

LONG = [
    "http://example.com/" + "a" * 100_000,
    "/" + "%41" * 30_000,
    "http://" + "b" * 100_000 + ".example/",
    "?" + "q=1&" * 25_000,
]

CORPUS: list[str] = [*UNICODE_DIGIT_PORTS, *CONTROLS, *BIDI, *MARKUP, *SCHEMES, *MALFORMED, *LONG]

# Not encodable in a page (UTF-8 has no lone surrogates): for direct calls
SURROGATES = ["http://example.com/\ud800", "http://\udfff.example/", "\udbff\udc00"]
