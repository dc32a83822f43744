"""What a start URL says of the site's extent.

A URL is near when it starts with a near prefix, and the start URLs are the
prefixes unless ``--near`` names others.  A start URL that names a
directory's index page (``https://example.com/docs/index.html``) is read as
the directory it stands for, as a browser's address for that directory
would be: otherwise the site would be that one page, and every sibling page
far.  The names are the index files of the common servers and static hosts
(Apache's ``DirectoryIndex``, nginx's ``index``, IIS's default documents,
GitHub Pages, Netlify)."""

from __future__ import annotations

from urllib.parse import urlsplit

INDEX_PAGES = frozenset(
    {
        "index.html",
        "index.htm",
        "index.xhtml",
        "index.shtml",
        "index.php",
        "default.htm",
        "default.html",
        "default.asp",
        "default.aspx",
    }
)


def site_prefix(start_url: str) -> str:
    """The near prefix a canonical start URL stands for: its directory when
    it names an index page (without a query), else itself."""
    parts = urlsplit(start_url)
    if parts.query:
        return start_url
    directory, _, name = parts.path.rpartition("/")
    if name.lower() not in INDEX_PAGES:
        return start_url
    return parts._replace(path=directory + "/", fragment="").geturl()


def directory_of(start_url: str) -> str | None:
    """The directory a start URL that names a page (not a directory) lies
    in, or, for a directory with a query (``/?a=1``, a prefix that holds
    little but that page), the directory without it; None when it names a
    directory already."""
    parts = urlsplit(start_url)
    if parts.path.endswith("/") or not parts.path:
        return parts._replace(query="", fragment="").geturl() if parts.query else None
    return parts._replace(path=parts.path.rpartition("/")[0] + "/", query="", fragment="").geturl()
