"""The element tables of link extraction: which elements and attributes are
links, and which elements change how the tokenizer reads what follows."""

from __future__ import annotations

# Which attributes of which HTML elements are links.
LINK_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "audio": ("src",),
    "embed": ("src",),
    "frame": ("src",),
    "iframe": ("src",),
    "img": ("src", "srcset"),
    "input": ("src",),  # type=image only
    "link": ("href",),
    "object": ("data",),
    "script": ("src",),
    "source": ("src", "srcset"),
    "track": ("src",),
    "video": ("src", "poster"),
}
# SVG elements that point somewhere (SVG 2 href, else xlink:href)
SVG_LINKS = frozenset({"a", "image", "use", "feimage", "script"})
# <link rel=preconnect href=https://cdn/> names an origin, not a resource:
# checking it would report the origin's home page, a false positive.
LINK_RELS_SKIPPED = frozenset({"preconnect", "dns-prefetch"})
# HTML elements whose content the tokenizer reads as text
RAWTEXT = frozenset({"style", "xmp", "iframe", "noembed", "noframes"})
RCDATA = frozenset({"textarea", "title"})
TEXT_CONTENT = RAWTEXT | RCDATA | {"script", "plaintext"}
# An HTML start tag in SVG or MathML content that ends that content
BREAKOUT = frozenset(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i "
    "img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt "
    "u ul var".split()
)
HTML_CONTAINERS = BREAKOUT | frozenset(
    "html article aside body button details dialog fieldset figure footer form header li "
    "main nav section summary table tbody td tfoot th thead tr".split()
)
SVG_HTML_POINTS = frozenset({"foreignobject", "desc", "title"})
MATH_TEXT_POINTS = frozenset({"mi", "mo", "mn", "ms", "mtext"})
# HTML elements that never have content (no end tag to wait for)
VOID = frozenset(
    "area base br col embed hr img image input keygen link meta param source track wbr".split()
)

INTERESTING = (
    set(LINK_ATTRIBUTES) | TEXT_CONTENT | {"base", "meta", "svg", "math", "image", "font"}
)  # Start tags the tokenizer hands on (every other tag is skipped unread)
INTERESTING = frozenset(
    set(LINK_ATTRIBUTES) | TEXT_CONTENT | {"base", "meta", "svg", "math", "image", "font"}
)
