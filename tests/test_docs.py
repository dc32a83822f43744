"""The documentation site builds in strict mode (every link between pages
and every anchor checked by MkDocs) and linkaudit finds no broken link or
missing fragment in it, audited as a build directory like any user's; its
settings reference is generated from ``linkaudit/config/options.py`` and
cannot drift from it."""

from __future__ import annotations

import html
import importlib.util
import json
import shutil
import sys

import pytest

from tests.conftest import ROOT, run_process, validate


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs") / "site"
    built = run_process(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=ROOT
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return out


def test_the_site_has_no_broken_link(site, tmp_path):
    report_path = tmp_path / "docs-report.json"
    # far links (Scrapy's site, GitHub...) are not the docs' to check offline
    ran = run_process(
        [
            sys.executable,
            "-m",
            "linkaudit",
            str(site),
            "--skip-far",
            "--check-fragments",
            "--report",
            str(report_path),
            "-q",
        ],
        cwd=tmp_path,
    )
    report = json.loads(report_path.read_text())
    validate(report)
    broken = [(u["url"], u["error"]) for u in report["urls"] if u["outcome"] == "broken"]
    missing = [
        (u["url"], u["missing_fragments"]) for u in report["urls"] if u.get("missing_fragments")
    ]
    assert (broken, missing) == ([], []), ran.stdout
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert report["complete"] and report["summary"]["pages"] >= 20
    # nothing of the site is fetched from elsewhere (fonts, scripts)
    far = {u["url"] for u in report["urls"] if not u["near"]}
    assert not [u for u in far if "fonts.g" in u or u.endswith(".js") or u.endswith(".css")]


def test_the_settings_reference_is_every_setting(site):
    from linkaudit.config.options import OPTIONS

    page = (site / "reference" / "settings" / "index.html").read_text()
    missing = [o.setting for o in OPTIONS if f"<code>{o.setting}</code>" not in page]
    assert missing == []
    # each setting's command-line option as --help shows it
    flags = [o.flag.usage for o in OPTIONS if o.flag]
    assert (
        flags
        and [f for f in flags if f"<code>{html.escape(f, quote=False)}</code>" not in page] == []
    )


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_setting_without_words_fails_the_build(tmp_path, monkeypatch):
    from mkdocs.exceptions import PluginError

    hooks = _hooks()
    words = tmp_path / "settings.toml"
    shutil.copy(hooks.WORDS, words)
    text = words.read_text()
    monkeypatch.setattr(hooks, "WORDS", words)
    words.write_text(text.replace("LINKAUDIT_DELAY_MARGIN =", "LINKAUDIT_NO_SUCH_SETTING =", 1))
    with pytest.raises(PluginError, match="LINKAUDIT_NO_SUCH_SETTING"):
        hooks.settings_page()
    words.write_text("\n".join(line for line in text.splitlines() if "DELAY_MARGIN =" not in line))
    with pytest.raises(PluginError, match="LINKAUDIT_DELAY_MARGIN"):
        hooks.settings_page()


def test_the_example_report_is_valid():
    validate(json.loads((ROOT / "docs" / "example-report.json").read_text()))


def test_the_guide_for_users_of_other_checkers_names_what_exists():
    """docs/guide/tools.md: every option it offers is one ``linkaudit
    --help`` lists, every ``-s NAME`` a setting, ``--format`` every format;
    it says rendering exists; and the usage line of a build is right."""
    import re

    from linkaudit.command.parser import build_parser
    from linkaudit.config.options import BY_SETTING
    from linkaudit.internals import parser_actions
    from linkaudit.output.formats import FORMATS

    text = (ROOT / "docs" / "guide" / "tools.md").read_text()
    ours = "\n".join(row.split(" | ", 1)[1] for row in text.splitlines() if " | " in row)
    flags = {f for a in parser_actions(build_parser()) for f in a.option_strings}
    named = set(re.findall(r"`(--[a-z][a-z0-9-]*)", ours))
    assert named and named <= flags, named - flags
    settings = set(re.findall(r"`-s ([A-Z_]+)=", ours))
    assert settings and settings <= BY_SETTING.keys(), settings - BY_SETTING.keys()
    formats = re.search(r"`--format text`(.*?) \(what is printed\)", ours).group(0)
    assert set(re.findall(r"`(?:--format )?([a-z]+)`", formats)) == set(FORMATS)
    assert "`--render auto`" in text and "are not seen" not in text
    usage = run_process([sys.executable, "-m", "linkaudit", "--help"]).stdout
    for flag in ("--concurrency", "--render", "--root-url"):
        assert flag in usage
    # a build needs no --root-url: the usage line says it is optional
    assert "linkaudit [OPTIONS] DIRECTORY [--root-url URL]\n" in usage


def test_the_code_cites_its_contract_and_pages_inside_the_repository():
    """The report's contract is a page of the docs (``docs/report.md``), and
    every page the code cites exists: no citation of a file outside the
    repository (a reader of a clone has no ``../shared``)."""
    import re

    cited: dict[str, list[str]] = {}
    for path in sorted((ROOT / "linkaudit").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(ROOT))
        assert "shared/contract" not in text, f"{name} cites a file outside the repository"
        for page in re.findall(r"\bdocs/[\w/.-]+\.(?:md|json|toml)", text):
            cited.setdefault(page, []).append(name)
    assert "docs/report.md" in cited
    gone = {page: names for page, names in cited.items() if not (ROOT / page).is_file()}
    assert not gone, f"pages cited by the code that do not exist: {gone}"
