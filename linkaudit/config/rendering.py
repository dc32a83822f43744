"""``--render``: the browser it needs, found before the audit starts.

A render needs two things this package does not bring: Playwright's Python
package (with scrapy-playwright, ``pip install scrapy-linkaudit[render]``) and a
Chromium on the machine.  Playwright's own browser download is not used: it
drives the system's Chromium (Debian's ``chromium`` package) through its
``executable_path``.  Without either, ``--render`` is one line naming what
to install, exit 2, before any request.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

# the names Chromium's packages install on the PATH, in the order looked for
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL = "install Chromium (Debian, Ubuntu: apt install chromium) or give --browser PATH"


def find_browser(given: str) -> str:
    """The browser's executable: ``given`` (a path, or a name on the PATH),
    else the first of :data:`BROWSERS` on the PATH.  ValueError: none, in
    words naming what to install."""
    if given:
        path = shutil.which(given) if os.sep not in given else given
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise ValueError(f"{given!r} is not an executable browser: {INSTALL}")
        return os.path.abspath(path)
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    raise ValueError(f"no Chromium found on the PATH: {INSTALL}")


def check_browser(path: str) -> None:
    """ValueError unless ``path`` answers ``--version`` as a Chromium (or
    Chrome) does: an executable that is no browser fails here, not at each
    page."""
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=20, errors="replace"
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ValueError(f"{path} does not run ({exc.__class__.__name__}): {INSTALL}") from None
    said = done.stdout.strip().splitlines()[:1]
    if done.returncode != 0 or not said or "chrom" not in said[0].lower():
        raise ValueError(
            f"{path} is not a Chromium (its --version: {said[0][:80]!r}): {INSTALL}"
            if said
            else f"{path} is not a Chromium: {INSTALL}"
        )


def check_playwright() -> None:
    """ValueError when the rendering packages are missing."""
    for module in ("playwright", "scrapy_playwright"):
        if importlib.util.find_spec(module) is None:
            raise ValueError(
                "rendering needs Playwright: pip install 'playwright==1.65.2' "
                "'scrapy-playwright==0.0.48' (no browser download: it drives the system's "
                "Chromium)"
            )


def rendering_browser(values: Mapping[str, Any]) -> str:
    """The browser ``--render`` will start, checked now; the setting's
    value when nothing is rendered."""
    if values["LINKAUDIT_RENDER"] == "never":
        return str(values["LINKAUDIT_BROWSER"])
    check_playwright()
    path = find_browser(values["LINKAUDIT_BROWSER"])
    check_browser(path)
    return path
