"""Template findings on real documentation sets (issue 31): the groups of
every broken URL of the Python, PostgreSQL and GIO docs (Debian's packages,
tests/setup.sh), audited as local builds, each listed below and checked by
hand against the files (grep):

- Python, as shipped: ``whatsnew/changelog.html`` is not in the package.
  Two pages (tutorial/index, whatsnew/2.0) link to it in their head
  (``<link rel="prev">``) and in the navigation (the related bars, a
  ``div[role=navigation]``, and the sidebar's ``nav``): one finding per
  kind.  The generated indexes (genindex-*.html, which repeat the same runs
  of links) and the "what's new" pages link to it in their main content:
  one page group of 15 pages, not 121 groups.
- Python, with ``_static/pydoctheme.css`` and ``py-modindex.html`` taken
  out of a copy: the stylesheet is in every page's head, the module index
  in every page's related bars (and in the index page's own content).
- PostgreSQL, as shipped: ``<link rev="made" href="pgsql-docs@...">`` in
  the head of each of its 1,167 files (the root is index.html again):
  one finding.
- GIO, with ``style.css`` and ``home.png`` taken out of a copy: the
  stylesheet in every head, the home icon in the navigation table
  (``table.navigation``) of every page but the index; the ``api-index-2-NN``
  pages Debian leaves out are linked from the pages' content only.

A build's page is a file: the root served at ``/`` and ``/index.html`` is
one page with two links (issue 41).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import validate
from tests.helpers.command import run

PYTHON = Path("/usr/share/doc/python3.11/html")
POSTGRESQL = Path("/usr/share/doc/postgresql-doc-15/html")
GIO = Path("/usr/share/gtk-doc/html/gio")


def docs(path: Path) -> Path:
    if not path.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: tests/setup.sh did not install it")
        pytest.skip(f"{path} is missing: run tests/setup.sh")
    return path


def copy_without(tmp_path: Path, source: Path, *gone: str) -> Path:
    """A copy of ``source`` (symbolic links copied as the files they name)
    without the files ``gone``."""
    copy = tmp_path / "site"
    shutil.copytree(source, copy)
    for name in gone:
        (copy / name).unlink()
    return copy


def groups(tmp_path: Path, site: Path) -> list[str]:
    """The audit's groups of broken URLs of the site, one line each: target,
    kind, kind of block [the pages' blocks], pages, links, the first and
    last page."""
    out = run(tmp_path, str(site), "--skip-far", "-q", "--format", "json", timeout=300)
    assert out.returncode == 1, out.stderr
    report = json.loads((tmp_path / "linkaudit-report.json").read_text())
    validate(report)
    root = report["start_urls"][0]
    broken = {e["url"] for e in report["urls"] if e["outcome"] == "broken"}
    lines = []
    for g in report["groups"]:
        assert g["target"] in broken
        pages = sorted({"/" + r["url"][len(root) :] for r in g["referrers"]})
        runs = {re.sub("^links:[0-9a-f]{8}$", "links:*", b) for b in g.get("blocks", ())}
        shown = " ".join(pages) if len(pages) <= 3 else f"{pages[0]} ... {pages[-1]}"
        lines.append(
            f"{g['target'][len(root) :]} {g['kind']} {g.get('block', '-')} [{' '.join(sorted(runs))}]"
            f" {g['pages']} pages, {len(g['referrers'])} links: {shown}"
        )
    return lines


def test_python_docs_groups(tmp_path):
    # (every page read, the four no link reaches too; a page at / and at
    # /index.html is one file, its places given once)
    site = copy_without(tmp_path, docs(PYTHON), "_static/pydoctheme.css", "py-modindex.html")
    assert groups(tmp_path, site) == [
        "_static/pydoctheme.css?2022.1 template head [head] 529 pages, 529 links:"
        " / ... /whatsnew/index.html",
        "py-modindex.html template navigation [div[role=navigation]] 529 pages, 1058 links:"
        " / ... /whatsnew/index.html",
        "py-modindex.html page - [] 1 pages, 1 links: /",
        "whatsnew/changelog.html template head [head] 2 pages, 2 links:"
        " /tutorial/index.html /whatsnew/2.0.html",
        "whatsnew/changelog.html template navigation [div[role=navigation] nav] 2 pages, 8 links:"
        " /tutorial/index.html /whatsnew/2.0.html",
        "whatsnew/changelog.html page - [] 15 pages, 1441 links:"
        " /contents.html ... /whatsnew/index.html",
    ]


def test_postgresql_docs_groups(tmp_path):
    assert groups(tmp_path, docs(POSTGRESQL)) == [
        "pgsql-docs@lists.postgresql.org template head [head] 1167 pages, 1167 links:"
        " / ... /xtypes.html",
    ]


GIO_CONTENT = """\
api-index-2-18.html 12 24 /GEmblem.html /gio-Unix-Mounts.html
api-index-2-20.html 9 27 /GAppInfo.html /GUnixOutputStream.html
api-index-2-22.html 31 254 /GAsyncInitable.html /GVolumeMonitor.html
api-index-2-24.html 18 40 /GAppInfo.html /gio-Desktop-file-based-GAppInfo.html
api-index-2-26.html 35 390 /GCredentials.html /gio-Watching-Bus-Names.html
api-index-2-28.html 24 166 /GAction.html /gio-gpollableutils.html
api-index-2-30.html 30 196 /ExampleAnimal.html /gio-Desktop-file-based-GAppInfo.html
api-index-2-32.html 31 165 /GActionGroup.html /gio-Unix-Mounts.html
api-index-2-34.html 26 52 /GAppInfo.html /gio-gpollableutils.html
api-index-2-36.html 17 59 /ExampleAnimal.html /gio-gnetworking.h.html
api-index-2-38.html 11 35 /GAction.html /gio-Desktop-file-based-GAppInfo.html
api-index-2-40.html 13 80 /GAppInfoMonitor.html /gio-GSettingsSchema-GSettingsSchemaSource.html
api-index-2-42.html 3 5 /GApplication.html /GNotification.html /gio-Desktop-file-based-GAppInfo.html
api-index-2-44.html 14 40 /GApplication.html /gio-Unix-Mounts.html
api-index-2-46.html 10 12 /GDBusConnection.html /gio-GSettingsSchema-GSettingsSchemaSource.html
api-index-2-48.html 7 61 /GDatagramBased.html /GTlsBackend.html
api-index-2-50.html 4 10 /GAppInfo.html /GVfs.html
api-index-2-52.html 3 3 /GFileInfo.html /gio-GContentType.html /gio-Unix-Mounts.html
api-index-2-54.html 1 2 /gio-Unix-Mounts.html
api-index-2-56.html 5 13 /GApplication.html /gio-Unix-Mounts.html
api-index-2-58.html 4 12 /GDrive.html /gio-Unix-Mounts.html
api-index-2-60.html 16 34 /GAppInfo.html /gio-gpollableutils.html
api-index-2-62.html 1 2 /GFileInfo.html
api-index-2-64.html 3 10 /GListStore.html /GMemoryMonitor.html /GTask.html
api-index-2-66.html 4 6 /GDtlsConnection.html /gio-Unix-Mounts.html
api-index-2-68.html 5 10 /GDBusMethodInvocation.html /gio-D-Bus-Utilities.html
api-index-2-70.html 8 33 /GDtlsConnection.html /gio-TLS-Overview.html
api-index-2-72.html 5 18 /GAppInfo.html /GTlsCertificate.html
api-index-2-74.html 6 19 /GAppInfo.html /gio-GIOError.html
api-index-deprecated.html 1 2 /api-index-full.html"""


def test_gio_docs_groups(tmp_path):
    site = copy_without(tmp_path, docs(GIO), "style.css", "home.png")
    content = []
    for line in GIO_CONTENT.splitlines():
        target, pages, links, *shown = line.split()
        between = " ".join(shown) if len(shown) != 2 or int(pages) <= 3 else " ... ".join(shown)
        content.append(f"{target} page - [] {pages} pages, {links} links: {between}")
    assert groups(tmp_path, site) == [
        *content,
        "home.png template navigation [table.navigation] 228 pages, 228 links:"
        " /ExampleAnimal.html ... /volume_mon.html",
        "style.css template head [head] 229 pages, 229 links: / ... /volume_mon.html",
    ]
