"""linkaudit against public test data written by neither this project nor
its peers (tests/data/README.md says where it comes from):

- the web-platform-tests URL cases (``urltestdata.json``): every case whose
  input, or base and result, is http(s);
- Unicode's UTS #46 conformance data (``IdnaTestV2.txt``), read with the URL
  Standard's options (CheckHyphens and VerifyDnsLength off, no STD3 rules);
- html5lib-tests: the tokenizer tests (every start tag, with its
  attributes) and the tree-construction tests (every link of the tree).

The data is fetched by ``tests/data/fetch.sh`` (the README's test command
runs it).  Without it these tests are skipped, except in CI, where they fail.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

from linkaudit.rules.html import Tag, extract_links, start_tags
from linkaudit.rules.html import links_in_tag as _links_in_tag
from linkaudit.rules.urls import C0_SPACE as _C0_SPACE
from linkaudit.rules.urls import InvalidURL, canonicalize, scheme_of
from tests.helpers.standards import unescaped, upstream

HTTP = ("http:", "https:")


def _contract(href: str) -> str:
    """The contract's form of a WHATWG href (our own rules, tested apart)."""
    return canonicalize(href)


# -- the URL Standard -------------------------------------------------------------------
def test_web_platform_tests_url_data():
    cases = [
        c for c in json.loads(upstream("url/urltestdata.json").read_text()) if isinstance(c, dict)
    ]
    agree, differ, applicable = 0, [], 0
    for case in cases:
        value, base = case["input"], case.get("base")
        base_http = bool(base) and base.lower().startswith(HTTP)
        if scheme_of(value) not in ("http", "https") and not (scheme_of(value) == "" and base_http):
            continue  # another scheme: never requested, reported as written
        if not case.get("failure") and not case["href"].startswith(HTTP):
            continue
        applicable += 1
        try:
            got = canonicalize(value, canonicalize(base) if base_http else None)
        except InvalidURL:
            got = None
        want = None if case.get("failure") else _contract(case["href"])
        if got == want:
            agree += 1
        else:
            differ.append((value, base, got, want))
    assert applicable >= 400
    assert not differ, differ[:10]
    assert agree == applicable


# Statuses the URL Standard does not check: CheckHyphens=false (V2, V3),
# UseSTD3ASCIIRules=false (U1), VerifyDnsLength=false (A4_1, A4_2)
_IGNORED = {"V2", "V3", "U1", "A4_1", "A4_2"}
_FORBIDDEN = set("\0\t\n\r #%/:<>?@[\\]^|\x7f") | {chr(c) for c in range(0x20)}


def _unescape(text: str) -> str:
    return re.sub(
        r"\\u([0-9A-Fa-f]{4})|\\x\{([0-9A-Fa-f]+)\}",
        lambda m: chr(int(m.group(1) or m.group(2), 16)),
        text,
    )


def test_uts46_conformance_data():
    """Every line whose host the URL parser hands to IDNA.  Two kinds of
    difference are known and counted (docs/design.md): ada does not apply
    the Bidi rule (B1-B6: such names cannot be registered, so they fail as
    "DNS lookup failed" instead of "Invalid URL"), and this data is Unicode
    15.0's while ada's tables are newer: some code points the data calls
    disallowed (P1, V6) became valid, and a Punycode label that decodes to
    one starting with "xn--" became invalid (15.1).  Nothing else may
    differ."""
    agree, bidi, newer, other = 0, 0, 0, []
    for raw in upstream("idna/IdnaTestV2.txt").read_text(encoding="utf-8").splitlines():
        raw = raw.split("#", 1)[0].strip()
        if not raw:
            continue
        cols = [c.strip() for c in raw.split(";")]
        source = _unescape(cols[0])
        to_unicode = _unescape(cols[1]) or source
        to_ascii = _unescape(cols[3]) or to_unicode
        statuses = set(re.findall(r"[A-Z][0-9A-Z_]*", cols[4] or cols[2])) - _IGNORED
        if not source or _FORBIDDEN & set(source) or (not statuses and _FORBIDDEN & set(to_ascii)):
            continue  # the URL parser rejects or splits it before IDNA
        last = (source if statuses else to_ascii).rstrip(".").rpartition(".")[2].lower()
        if last.isdigit() or last.startswith("0x"):
            continue  # the URL parser reads the host as IPv4
        try:
            got = canonicalize(f"http://{source}/")[len("http://") : -1]
        except InvalidURL:
            got = None
        want = None if statuses else to_ascii
        if got == want:
            agree += 1
        elif want is None and statuses & {"B1", "B2", "B3", "B4", "B5", "B6"}:
            bidi += 1
        elif want is None and statuses & {"P1", "V6"}:
            newer += 1
        elif got is None and "xn--xn--" in source.lower():
            newer += 1  # a label decoding to "xn--...": invalid since UTS #46 15.1
        else:
            other.append((source, got, want, statuses))
    assert agree > 5400
    assert not other, other[:10]
    assert bidi < 100 and newer < 150, (bidi, newer)  # counted in the closing note


# -- the HTML Standard's tokenizer and tree builder --------------------------------------
_STATE_TAGS = {"Script data state": "script", "PLAINTEXT state": "plaintext"}


def test_html5lib_tokenizer_tests():
    """Every start tag and its attributes, for every test that has markup
    (tests of text and character references in text are not about links)."""
    files = sorted(upstream("html5lib-tests/tokenizer").glob("*.test"))
    agree, differ = 0, []
    for path in files:
        for test in json.loads(path.read_text(encoding="utf-8")).get("tests", []):
            if test.get("doubleEscaped"):
                test = unescaped(test)
            value, output = test["input"], test["output"]
            want = [(o[1], o[2]) for o in output if isinstance(o, list) and o[0] == "StartTag"]
            if not want and "<" not in value:
                continue
            for state in test.get("initialStates", ["Data state"]):
                if state == "Data state":
                    got = [(n, a) for n, a, _, _ in start_tags(value, tree=False, every=True)]
                elif state == "CDATA section state":
                    continue  # only in SVG and MathML content
                else:  # a text-content element's state: start inside one
                    tag = test.get("lastStartTag") or _STATE_TAGS.get(state, "xmp")
                    got = [(n, a) for n, a, _, _ in start_tags(f"<{tag}>" + value, every=True)][1:]
                if got == want:
                    agree += 1
                else:
                    differ.append((path.name, test["description"], state, got, want))
    assert agree > 1600
    assert not differ, differ[:10]


def _dat_tests(path: Path) -> list[dict[str, list[str]]]:
    tests: list[dict[str, list[str]]] = []
    section = None
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("#") and line.rstrip() in (
            "#data",
            "#errors",
            "#new-errors",
            "#document",
            "#document-fragment",
            "#script-on",
            "#script-off",
        ):
            section = line.rstrip()
            if section == "#data":
                tests.append({})
            tests[-1][section] = []
        elif tests and section:
            tests[-1][section].append(line)
    return tests


_ELEMENT = re.compile(r"^\| ( *)<(?:(svg|math) )?([^>]+)>$")
_ATTRIBUTE = re.compile(r'^\| ( *)(?:(xlink|xml|xmlns) )?([^=\s]+)="(.*)$', re.S)


def _tree_links(document: list[str]) -> tuple[list[str], str | None]:
    """The links of an expected tree, by linkaudit's rules, and its base."""
    elements: list[list] = []
    i = 0
    while i < len(document):
        line = document[i]
        m = _ELEMENT.match(line)
        if m:
            elements.append([m.group(3).lower(), m.group(2) or "html", {}, len(m.group(1))])
        else:
            m = _ATTRIBUTE.match(line)
            if m and elements and len(m.group(1)) == elements[-1][3] + 2:
                value = m.group(4)
                while not value.endswith('"') and i + 1 < len(document):
                    i += 1
                    value += "\n" + document[i]
                name = (m.group(2) + ":" if m.group(2) else "") + m.group(3)
                elements[-1][2].setdefault(name.lower(), value[:-1])
        i += 1
    links, base = [], None
    for name, namespace, attrs, _ in elements:
        if namespace == "html" and name == "base":
            base = attrs["href"] if base is None and "href" in attrs else base
            continue
        links += [v for v in _links_in_tag(Tag(name, attrs, 0, namespace)) if v.strip(_C0_SPACE)]
    return links, base


def test_html5lib_tree_construction_tests():
    """The links of the tree a browser builds, for every test with markup
    (scripting off, as linkaudit reads <noscript>; fragments are not pages).
    The tree builder clones some elements (the adoption agency, foster
    parenting): one link in the source, so links compare as sets."""
    agree, clones, differ = 0, 0, []
    for path in sorted(upstream("html5lib-tests/tree-construction").glob("*.dat")):
        for test in _dat_tests(path):
            if "#document-fragment" in test or "#script-on" in test or "#document" not in test:
                continue
            data = "\n".join(test["#data"])
            want, base = _tree_links(test["#document"])
            if not want and base is None and "<" not in data:
                continue
            extracted = extract_links(data)
            got = [link.value for link in extracted.links]
            if collections.Counter(got) == collections.Counter(want) and extracted.base == base:
                agree += 1
            elif set(got) == set(want) and extracted.base == base:
                clones += 1
            else:
                differ.append((path.name, data[:100], sorted(got), sorted(want)))
    assert agree > 1300
    assert clones <= 5
    assert not differ, differ[:10]
