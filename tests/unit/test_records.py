"""The report's typed records (``output/report/records.py``, ``items.Place``)
say what docs/report.schema.json says: each names the fields its JSON
shape has, no other (but those a format adds as it reads), the required
ones required.  The type checker holds the code to the records; this holds
the records to the contract, so neither drifts from the other."""

from __future__ import annotations

import json
import re
import typing
from typing import Any

import pytest

from linkaudit.items import FEED_FIELDS
from linkaudit.output.report import records
from tests.conftest import ROOT, SCHEMA

DEFS, TOP = SCHEMA["$defs"], SCHEMA["properties"]
URL = DEFS["url"]["properties"]
ITEM = json.loads((ROOT / "docs" / "item.schema.json").read_text(encoding="utf-8"))
# an entry's render has no page: the schema's render names it for the
# report's rendered list, which requires it (RenderedPage)
RENDER = {"properties": {k: v for k, v in DEFS["render"]["properties"].items() if k != "page"}}
RENDERED = {**DEFS["render"], "required": TOP["rendered"]["items"]["required"]}

# record -> (its shape in the schema, the fields it has beside the schema's)
SHAPES: dict[str, tuple[dict[str, Any], set[str]]] = {
    # deployed: a format's reading of a build's report (formats/naming.py)
    "Place": (DEFS["referrer"], {"deployed"}),
    "SourceLine": (DEFS["source"], set()),
    "SourceAt": (DEFS["source"]["properties"]["defined"], set()),
    "Summary": (TOP["summary"], set()),
    "GetOnlyHost": (TOP["summary"]["properties"]["get_only_hosts"]["items"], set()),
    "TemplateGroup": (TOP["groups"]["items"], set()),
    "RedirectFix": (TOP["redirect_fixes"]["items"], set()),
    "MissingFragment": (DEFS["url"]["properties"]["missing_fragments"]["items"], set()),
    "BuildSection": (TOP["build"], set()),
    "BuildSources": (TOP["build"]["properties"]["sources"], set()),
    "NotPage": (TOP["build"]["properties"]["not_pages"]["items"], set()),
    # deployed: as Place's
    "ReportEntry": (DEFS["url"], {"deployed"}),
    "PageStats": (URL["page"], set()),
    "RenderSection": (RENDER, set()),
    "RenderedPage": (RENDERED, set()),
    "SuggestionRecord": (URL["suggestion"], set()),
    "ArchivedCopy": (URL["archived"]["oneOf"][1], set()),
    "OfflineSection": (TOP["offline"], set()),
    "SitemapFindings": (TOP["sitemap"], set()),
    "ChangedSince": (TOP["changed_since"], set()),
    "AuditRecord": (TOP["history"]["items"], set()),
    "AuditCounts": (TOP["history"]["items"]["properties"]["summary"], set()),
    "FeedItem": (ITEM, set()),
}


def _fields(record: type) -> tuple[set[str], set[str]]:
    """(required, optional) fields of a TypedDict, read from its hints
    (``__required_keys__`` misses NotRequired under postponed annotations)."""
    hints = typing.get_type_hints(record, include_extras=True)
    required = set()
    for name, hint in hints.items():
        origin = typing.get_origin(hint)
        if origin is typing.Required or (origin is not typing.NotRequired and record.__total__):
            required.add(name)
    return required, set(hints) - required


def test_every_record_is_checked():
    assert set(SHAPES) == set(records.__all__)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_record_has_the_fields_of_its_shape(name):
    shape, beside = SHAPES[name]
    required, optional = _fields(getattr(records, name))
    assert required | optional == set(shape["properties"]) | beside
    assert required == set(shape.get("required", ()))


def test_a_feed_item_has_the_feed_fields_in_their_order():
    """revisions.feed_item makes a FeedItem of FEED_FIELDS: the same names, in order."""
    assert tuple(typing.get_type_hints(records.FeedItem)) == FEED_FIELDS


def test_records_are_types_only():
    """A record is a plain dict at run time: what the report writes."""
    fix: records.RedirectFix = {
        "page": "p",
        "line": 1,
        "from": "a",
        "to": "b",
        "kind": "permanent",
        "statuses": [301],
        "hops": 1,
        "final_outcome": "ok",
        "final_status": 200,
        "loop": False,
    }
    assert type(fix) is dict


def test_the_kinds_formats_compare_are_the_schemas_words():
    """A group's and a redirect fix's kind are enumerations whose values are
    the schema's words: a format that compares with them compares with what
    the report writes."""
    from linkaudit.items import FixKind, GroupKind, Method, Outcome

    assert [k.value for k in GroupKind] == TOP["groups"]["items"]["properties"]["kind"]["enum"]
    fixes = TOP["redirect_fixes"]["items"]["properties"]["kind"]["enum"]
    assert [k.value for k in FixKind] == fixes
    assert [o.value for o in Outcome] == DEFS["outcome"]["enum"]
    assert {m.value for m in Method} == {"HEAD", "GET"}


def test_the_webhook_document_has_the_fields_of_its_table():
    """The webhook's JSON (notify/documents.py) says what the notifications
    page's table says: every field named in its first column, no other."""
    from linkaudit.notify import documents

    text = (ROOT / "docs" / "guide" / "notifications.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}
    required, optional = _fields(documents.WebhookDocument)
    assert not optional
    assert required == named
    new = re.search(r"\| `new` \| `\[\{(.*)\}\]` \|", text)
    assert new is not None
    listed = set(re.findall(r'"(\w+)"', new.group(1)))
    required, optional = _fields(documents.NewLink)
    assert required | optional == {n for n in listed if n not in ("page", "lines", "text", "pages")}
    assert optional == {"archived"}  # "archived"? in the table


def test_the_naming_fields_are_the_build_sections():
    """How a build is named (rules/names.py's BuildNaming) are fields of the
    build section, as the report writes them."""
    from linkaudit.rules.names import BuildNaming

    assert set(typing.get_type_hints(BuildNaming)) <= set(TOP["build"]["properties"])
    assert set(typing.get_type_hints(BuildNaming)) <= set(
        typing.get_type_hints(records.BuildSection)
    )
