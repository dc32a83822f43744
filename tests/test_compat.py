"""The 0.1 import paths a settings file may name still load the same
objects, for one release, with a DeprecationWarning naming the new path."""

from __future__ import annotations

import pytest
from scrapy.utils.misc import load_object


@pytest.mark.parametrize(
    "old, new",
    [
        ("linkaudit.sqlitestate.SQLiteState", "linkaudit.state.sqlite.SQLiteState"),
        ("linkaudit.pipelines.ReportPipeline", "linkaudit.output.pipelines.ReportPipeline"),
        ("linkaudit.journal.JournalPipeline", "linkaudit.output.journal.JournalPipeline"),
        ("linkaudit.extensions.CrawlDelay", "linkaudit.extensions.crawldelay.CrawlDelay"),
        ("linkaudit.extensions.DrainOnClose", "linkaudit.extensions.drain.DrainOnClose"),
        ("linkaudit.archive.PageArchive", "linkaudit.output.archive.PageArchive"),
        ("linkaudit.progress.Progress", "linkaudit.extensions.progress.Progress"),
        ("linkaudit.download.HttpDownloadHandler", "linkaudit.network.handler.HttpDownloadHandler"),
        ("linkaudit.exporters.CsvItemExporter", "linkaudit.output.exporters.CsvItemExporter"),
        (
            "linkaudit.logformatter.LinkAuditLogFormatter",
            "linkaudit.output.logformatter.LinkAuditLogFormatter",
        ),
        ("linkaudit.classify.TrapGuards", "linkaudit.rules.guards.TrapGuards"),
        ("linkaudit.classify.judge_status", "linkaudit.rules.statuses.judge_status"),
        ("linkaudit.urls.canonicalize", "linkaudit.rules.urls.canonicalize"),
    ],
)
def test_old_paths_load_the_new_objects(old, new):
    with pytest.warns(DeprecationWarning, match=new.rsplit(".", 1)[0]):
        assert load_object(old) is load_object(new)


def test_the_state_paths_still_work_without_a_warning():
    assert load_object("linkaudit.state.MemoryState") is load_object(
        "linkaudit.state.memory.MemoryState"
    )
