"""The settings of an audit without Scrapy (``linkaudit/config/plain.py``)
read every option as Scrapy's settings do: the same value, or the same
error, for each of a pool of values typed on a command line."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings

from linkaudit.config import OPTIONS, _with_defaults
from linkaudit.config.plain import PlainSettings
from linkaudit.localbuild.walk import CRAWL_ONLY

TYPED = ["", "1", "0", "true", "False", "yes", "2.5", "-3", "a,b", '{"k": 1}', "[1, 2]",
         "http://127.0.0.1:9/", "linkaudit.state.memory.MemoryState", "x"]  # fmt: skip


def _read(settings, option) -> tuple[str, object]:
    try:
        return "value", option.read(_with_defaults(settings), option.setting)
    except (ValueError, TypeError) as exc:
        return "error", f"{type(exc).__name__}: {exc}"


# what the walk reads (the other options send an audit to the crawl)
READ = [o for o in OPTIONS if o.setting not in CRAWL_ONLY]


@pytest.mark.parametrize("option", READ, ids=[o.setting for o in READ])
def test_every_option_reads_the_same(option, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # options that name files try them here
    for typed in TYPED:
        scrapy_settings, plain = Settings(), PlainSettings()
        scrapy_settings.set(option.setting, typed, priority="cmdline")
        plain.set(option.setting, typed, priority="cmdline")
        assert _read(plain, option) == _read(scrapy_settings, option), typed


@pytest.mark.parametrize(
    "option", [o for o in OPTIONS if o.default is not None], ids=lambda o: o.setting
)
def test_every_default_is_the_project_s(option):
    """Unset, an option has the default the project's settings give it (the
    options whose default is Scrapy's, a user agent or the components, are
    for requests and components: an audit without Scrapy has neither)."""
    project = Settings()
    project.setmodule("linkaudit.settings", priority="project")
    assert _read(PlainSettings(), option) == _read(project, option)


def test_priorities_as_scrapy_s():
    plain = PlainSettings({"A": 1}, priority="cmdline")
    plain.set("A", 2, priority="project")  # lower: kept
    plain.set("B", 3, priority="default")
    plain.set("B", 4, priority="default")  # equal: replaced
    assert (plain.get("A"), plain.get("B"), plain.get("C", 5)) == (1, 4, 5)
