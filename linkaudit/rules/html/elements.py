"""The element tables of link extraction: which elements and attributes are
links, and which elements change how the tokenizer reads what follows."""

from __future__ import annotations

# Which attributes of which HTML elements are links: every URL attribute
# the HTML Standard has a browser fetch or navigate to (docs/urls.md lists
# them against the Standard, and those not read, with why).
_BACKGROUND = ("background",)  # obsolete, still fetched (Rendering, 15.3)
LINK_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "audio": ("src",),
    "body": _BACKGROUND,
    "button": ("formaction",),  # a submit button, its form sent with GET
    "embed": ("src",),
    "form": ("action",),  # sent with GET
    "frame": ("src",),
    "iframe": ("src",),
    "img": ("src", "srcset"),
    "input": ("src", "formaction"),  # type=image; type=submit or image, GET
    "link": ("href", "imagesrcset"),  # imagesrcset: rel=preload as=image
    "object": ("data",),
    "script": ("src",),
    "source": ("src", "srcset"),
    "table": _BACKGROUND,
    "tbody": _BACKGROUND,
    "td": _BACKGROUND,
    "tfoot": _BACKGROUND,
    "th": _BACKGROUND,
    "thead": _BACKGROUND,
    "tr": _BACKGROUND,
    "track": ("src",),
    "video": ("src", "poster"),
}
# Elements whose links follow more than their tables' attribute (rel, type,
# the form's method): links_in_tag reads them
RULED = frozenset({"link", "input", "form", "button"})
# Elements that hold a link only with an attribute whose name holds one of
# these words: without one, the skipping expression jumps over them (half
# the tags of a Doxygen page are <a> without href; tables are common)
LINKED_BY: dict[str, tuple[str, ...]] = {
    "href": ("a",),
    "background": tuple(n for n, attrs in LINK_ATTRIBUTES.items() if attrs == _BACKGROUND),
    "action": ("button",),  # formaction (every <form> is read: its method)
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

# Start tags the tokenizer hands on (every other tag is skipped unread)
INTERESTING = frozenset(
    set(LINK_ATTRIBUTES) | TEXT_CONTENT | {"base", "meta", "svg", "math", "image", "font"}
)
