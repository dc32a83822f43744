"""A page's blocks (``linkaudit.rules.html.landmarks``) found the plain,
slow way, and random pages of nested blocks to compare the two on."""

from __future__ import annotations

import random
import re
import zlib

from linkaudit.rules.html.landmarks import _CANDIDATE, candidate


def slow_landmarks(text: str) -> list[tuple[str, int, int]]:
    """``landmarks`` the plain way: each block's lines counted from the top,
    each block's end found by reading on from its start tag; the head from
    the head and body tags read in turn; a block dropped when it starts in
    the span of a main content kept before it."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = []
    tags = [
        (m.start(), m.group(1), m.group(2).lower())
        for m in re.finditer(r"<(/?)(head|body)(?=[\s/>])", text, re.I | re.A)
    ]
    if tags:
        start, slash, name = tags[0]
        if slash or name == "body":
            span = (0, start)
        else:
            ends = [at for at, slash, name in tags[1:] if slash or name == "body"]
            span = (start, ends[0]) if ends else None
        if span is not None:
            blocks.append(("head", text.count("\n", 0, span[0]) + 1, text.count("\n", 0, span[1]) + 1))
    mains: list[tuple[int, int]] = []
    for m in _CANDIDATE.finditer(text):
        named = candidate(m)
        if named is None:
            continue
        name, signature = named
        # the one change: end tags' names compared ASCII case-insensitively,
        # as HTML does (``</section>`` does not close a ``<ſection>``)
        end_tag = re.compile(rf"<(/?)(?ai:{re.escape(name)})(?=[\s/>])")
        depth, end = 1, len(text)
        for e in end_tag.finditer(text, m.end()):
            depth += -1 if e.group(1) else 1
            if depth == 0:
                end = e.start()
                break
        if any(a < m.start() < b for a, b in mains):
            continue
        if signature == "main":
            mains.append((m.start(), end))
        first = text.count("\n", 0, m.start()) + 1
        blocks.append((signature, first, first + text.count("\n", m.start(), end)))
    return blocks


def slow_page_blocks(links, marks):
    """``page_blocks`` as it was: every link tested against every landmark."""
    blocks, in_landmark = [], set()
    for signature, first, last in marks:
        if signature == "main":  # its inner lines
            inner = [i for i, (_u, line) in enumerate(links) if line is not None and first < line < last]
            in_landmark.update(inner)
            blocks.append(["main", first, last, None])
            continue
        members = [i for i, (_u, line) in enumerate(links) if line is not None and first <= line <= last]
        if members:
            in_landmark.update(members)
            hashes = sorted({zlib.crc32(links[i][0].encode("utf-8", "surrogatepass")) for i in members})
            blocks.append([signature, first, last, hashes])
    run: list = []

    def add_run():
        if len(run) >= 3:
            digest = zlib.crc32("\n".join(u for u, _ in run).encode("utf-8", "surrogatepass"))
            blocks.append([f"links:{digest:08x}", run[0][1], run[-1][1], None])
        run.clear()

    for i, (url, line) in enumerate(links):
        if i in in_landmark or line is None:
            add_run()
            continue
        if run and line - run[-1][1] > 1:
            add_run()
        run.append((url, line))
    add_run()
    return blocks if any(b[0] != "main" for b in blocks) else None


OPENERS = [
    ("nav", "<nav>"),
    ("NAV", '<NAV class="x">'),
    ("footer", "<footer >"),
    ("header", "<header\n>"),
    ("aside", "<aside/>"),
    ("div", '<div class="menu">'),
    ("div", "<div id='sidebar' class=x>"),
    ("div", "<div>"),  # not a block: nests with the blocks of its name
    ("ul", '<ul class="nav navbar">'),
    ("section", '<section role="navigation">'),
    ("section", '<section role="main">'),  # the main content: no block inside it
    ("main", "<MAIN>"),
    ("head", "<head>"),  # the head: from here to </head> or <body>
    ("body", '<body class="nav">'),  # never a block, and the head's end
    ("li", '<li class="menu-item">'),  # an item
    ("Div", '<Div class="Footer">'),
]


TRICKS = [
    "text words",
    "<divx class=menu>",
    "<p>",
    "<!-- c -->",
    '<a class="headerlink" href="#x">x</a>',  # a word inside a longer one
    '<div class="x id=menu">',
    '<p title="<nav>">',
    "<div class=nav_bar>",
    '<DIV CLASS="Side-Bar SIDEBAR">',
    "<div\nclass='footer'\n>",
    "<p>the navigation menu, header and footer</p>",
    "<ul role=navigation class=x>",
    "<ſection role=navigation>",  # a letter a case-blind regex takes for s
]


def random_page(rng: random.Random) -> str:
    """A page of nested blocks, links and text; some blocks never closed,
    some closed twice, newlines of every kind, lines holding several tags."""
    parts: list[str] = []
    stack: list[str] = []
    for _ in range(rng.randrange(5, 120)):
        roll = rng.random()
        if roll < 0.3:
            name, tag = rng.choice(OPENERS)
            parts.append(tag)
            stack.append(name)
        elif roll < 0.5 and stack:
            name = stack.pop() if rng.random() < 0.9 else rng.choice(OPENERS)[0]
            parts.append(rng.choice([f"</{name}>", f"</{name.upper()} >", f"</{name}\n>"]))
        elif roll < 0.85:
            parts.append(f'<a href="/p{rng.randrange(12)}">x</a>')
        else:
            parts.append(rng.choice(TRICKS))
        parts.append(rng.choice(["\n", "\n", "\r\n", "\r", " ", "\n\n"]))
    return "".join(parts)
