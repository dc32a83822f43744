"""The site of a ``linkaudit`` command that names no live one: the bundled
demo, or a build directory, with the checks of what names it (a directory
alone, ``--port``).  A build is an address on 127.0.0.1, served only when a
request will reach it."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
from typing import Any
from urllib.parse import urlsplit


def local_site(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> Any:
    """The context manager of the audit's local site (nothing for a live
    one); ``ns.local_dir`` set.  A bad use is ``parser.error``: one line."""
    folders = [u for u in ns.urls if os.path.isdir(u)]
    for u in ns.urls:  # a path that is not there: not "not an http(s) URL"
        if "://" not in u and u.startswith((".", "/", "~")) and not os.path.exists(u):
            parser.error(f"{u}: no such directory (give a URL, or a build directory)")
        if "://" not in u and os.path.isfile(u):  # a page of a build: the build is its folder
            folder = os.path.dirname(u.rstrip(os.sep)) or "."
            parser.error(
                f"{u} is a file: give the build directory it is in"
                f" (linkaudit {shlex.quote(folder)}), or a URL"
            )
    if folders and len(ns.urls) > 1:
        parser.error(f"{folders[0]} is a directory: give it alone, without other URLs")
    if getattr(ns, "start", None) and not folders:
        parser.error("--start: only with a build directory (it names a page inside it)")
    if ns.port is not None:
        if not folders:
            parser.error("--port: only with a build directory (it is the build's address)")
        if not (ns.port.isascii() and ns.port.isdigit() and 1 <= int(ns.port) <= 65535):
            parser.error(f"--port: {ns.port!r} is not a port (1-65535)")
        ns.port = int(ns.port)
    try:
        return _local_site(parser, ns, folders[0] if folders else None)
    except OSError as exc:  # --port taken, or no port at all
        where = f"--port {ns.port}: " if ns.port is not None else ""
        parser.error(f"{where}cannot serve the build there ({exc.strerror or exc})")


def _local_site(parser: argparse.ArgumentParser, ns: argparse.Namespace, folder: str | None) -> Any:
    """The bundled demo, or a build directory, served on 127.0.0.1 for the
    audit (the site's own address: the path of --root-url)."""
    ns.local_dir = folder
    start_page(parser, ns)
    if ns.demo:
        from linkaudit.demo import DemoSite

        return DemoSite()
    if folder is None:
        return contextlib.nullcontext()
    return _build_site(ns, folder, urlsplit(ns.root_url).path if ns.root_url else "/")


def start_page(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> None:
    """Where the audit of ``ns.local_dir`` starts (``localbuild/start.py``):
    ``--start`` checked and made a path inside the build (``ns.start``),
    else, without ``DIR/index.html``, the page found (``ns.found_start``,
    set as ``LINKAUDIT_LOCAL_START`` by ``choices.chosen``)."""
    from linkaudit.localbuild.start import NO_PAGE, find_start, given_start

    ns.found_start = None
    if ns.local_dir is None:
        return
    if getattr(ns, "start", None):
        try:
            ns.start = given_start(ns.local_dir, ns.start)
        except ValueError as exc:
            parser.error(f"--start: {exc}")
        return
    found = find_start(ns.local_dir)
    if found.chosen == NO_PAGE:  # an empty build, or a failed one: nothing to audit
        parser.error(f"{ns.local_dir}: no HTML page in the build directory (nothing to audit)")
    ns.found_start = found.path or None


def _build_site(ns: argparse.Namespace, folder: str, base: str) -> Any:
    """A build directory's address on 127.0.0.1, served only when a request
    will reach it: its files not read for its origin (``-s
    LINKAUDIT_LOCAL_READ=false``), or a ``DOWNLOAD_HANDLERS`` of the user's
    in place of the handler that reads them."""
    from linkaudit.config.plain import PlainSettings
    from linkaudit.localbuild.directory import BuildAddress, DirectorySite, stable_ports

    given = PlainSettings(dict(ns.settings))  # -s, the config file's included
    try:
        read = given.getbool("LINKAUDIT_LOCAL_READ", True)
    except ValueError:  # refused in one line once the settings are checked
        read = True
    from linkaudit.command.choices import renders

    if renders(ns):  # the browser requests a rendered page's scripts: a server
        read = False
    if read and "DOWNLOAD_HANDLERS" not in given:
        return BuildAddress(folder, base, ns.port)  # no socket at all
    if ns.port is not None:  # the user's: that one or none
        return DirectorySite(folder, base, (ns.port,))
    # a stored audit (history, Redis's workers) knows the build by its URLs
    stored = ns.db or ns.redis or any(given.get(n) for n in ("LINKAUDIT_DB", "LINKAUDIT_REDIS"))
    return DirectorySite(folder, base, stable_ports(folder) if stored else None)
