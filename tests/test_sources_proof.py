"""The proof of --sources on real projects nobody here wrote, built from
their own sources with links broken on purpose (tests/proof/sources.sh,
run by tests/setup.sh: fetched from PyPI and npm by name and version, each
chosen link given a unique sentinel, the file and line edited recorded in
expected.json, then built with the project's own tool).

Each build is audited as a user would; every place of every sentinel's
finding is checked against the line edited: none may be mapped to another
line, and at least 95 % must be mapped."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.helpers.command import run

DATA = Path(__file__).resolve().parent / "data" / "sources"
# name -> (tool, the build, the sources given, the files expected.json names are under)
PROJECTS = {
    "printsite": ("mkdocs", "project/site", "project/docs"),
    "flask": ("sphinx", "project/docs/_build/html", "project/docs"),
    "click": ("sphinx", "project/docs/_build/html", "project/docs"),
    "jekyll": ("jekyll", "project/site/_site", "project/site"),
    "doks": ("hugo", "project/public", "project/content"),
}
# the far links of the projects are not what is proved here: only the
# sentinels' (127.0.0.1:9, where nothing listens) and the build's own
NOT_FAR = r"^https?://(?!127\.0\.0\.1)"
SENTINEL = re.compile(r"sentinel-(\d+)$|missing-s(\d+)(?!\d)")


def _places(report: dict) -> dict[int, list[dict]]:
    """Sentinel id -> the places of its findings (a broken URL's referrers,
    a missing fragment's: MyST writes an unresolved page as #missing.md)."""
    found: dict[int, list[dict]] = {}
    for entry in report["urls"]:
        hit = SENTINEL.search(entry["url"])
        if hit and entry["outcome"] == "broken":
            found.setdefault(int(hit.group(1) or hit.group(2)), []).extend(entry["referrers"])
        for gap in entry.get("missing_fragments", ()):
            hit = SENTINEL.search(gap["fragment"])
            if hit:
                found.setdefault(int(hit.group(1) or hit.group(2)), []).extend(gap["referrers"])
    return found


def _audit(tmp_path: Path, name: str, detect: bool) -> tuple[dict, list[dict]]:
    tool, build, sources = PROJECTS[name]
    folder = DATA / name
    if not (folder / "built").is_file():
        pytest.skip(f"{name} is not built: run tests/setup.sh (tests/proof/sources.sh)")
    args = [str(folder / build), "--report", "r.json", "--check-fragments", "--exclude", NOT_FAR]
    args += ["--timeout", "5", "--no-suggestions", "-q"]
    if not detect:
        args += ["--sources", str(folder / sources)]
    out = run(tmp_path, *args, timeout=120)
    assert out.returncode == 1, out.stderr  # broken on purpose
    report = json.loads((tmp_path / "r.json").read_text())
    said = report["build"]["sources"]
    assert said["tool"] == tool and said["detected"] is detect, said
    return report, json.loads((folder / "expected.json").read_text())


def _score(tmp_path: Path, name: str, report: dict, expected: list[dict]) -> dict:
    places = _places(report)
    right, wrong, unmapped = 0, [], []
    for edit in expected:
        edited = os.path.realpath(DATA / name / "project" / edit["file"])
        for place in places.get(edit["id"], ()):
            source = place.get("source")
            if source is None:
                assert place["unmapped"], place  # says why
                unmapped.append((edit, place))
                continue
            # the line to edit: a reference's definition, else the link's own
            where = source.get("defined") or source
            if (
                os.path.realpath(tmp_path / where["file"]) == edited
                and where["line"] == edit["line"]
            ):
                right += 1
            else:
                wrong.append((edit, place))
    return {"right": right, "wrong": wrong, "unmapped": unmapped, "found": len(places)}


@pytest.mark.parametrize("name", list(PROJECTS))
def test_broken_links_of_real_projects_map_to_the_lines_edited(tmp_path, name):
    report, expected = _audit(tmp_path, name, detect=False)
    score = _score(tmp_path, name, report, expected)
    assert score["wrong"] == [], score["wrong"]  # a wrong line is worse than none
    mapped, places = score["right"], score["right"] + len(score["unmapped"])
    assert places >= 15 and score["found"] >= 15, score  # the proof has enough to say
    assert mapped >= 0.95 * places, score["unmapped"]
    said = report["build"]["sources"]
    assert said["mapped"] >= mapped and said["directories"] == [
        str(DATA / name / PROJECTS[name][2])
        if name != "doks"
        else str(DATA / name / "project" / "content" / "en")
    ]


@pytest.mark.parametrize("name", ["printsite", "doks"])
def test_the_layout_beside_a_build_is_detected(tmp_path, name):
    """No --sources: mkdocs.yml, Hugo's config/ found from the build upward
    (Sphinx's and Jekyll's: tests/test_sources.py, on small builds)."""
    report, expected = _audit(tmp_path, name, detect=True)
    score = _score(tmp_path, name, report, expected)
    assert score["wrong"] == []
    assert score["right"] >= 0.95 * (score["right"] + len(score["unmapped"]))
