"""What the audit writes, read or built by hand: feed items held to
docs/item.schema.json, and the facts of an audit for the report's
builders."""

from __future__ import annotations

import json

import jsonschema

from linkaudit.output.report.facts import ReportFacts
from tests.conftest import ROOT

ITEM_SCHEMA = json.loads((ROOT / "docs" / "item.schema.json").read_text())
ITEM = jsonschema.Draft202012Validator(ITEM_SCHEMA)


def valid_item(item: dict) -> None:
    """A feed item holds to docs/item.schema.json."""
    errors = [f"{list(e.path)}: {e.message}" for e in ITEM.iter_errors(item)]
    assert not errors, (item, errors)


def site_facts(**fields: object) -> ReportFacts:
    """The facts of an audit of ``http://s/`` that finished, ``fields`` changed."""
    base: dict = dict(
        start_urls=["http://s/"],
        near_prefixes=["http://s/"],
        started_at="then",
        finished_at="now",
        finish_reason="finished",
        pages=0,
        requests=0,
    )
    return ReportFacts(**{**base, **fields})
