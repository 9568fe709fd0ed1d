"""The parsers on golden fixtures: pages written from the real SIPP templates, with the
expected data written by hand beside each page (tests/fixtures/golden/README.md)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from harvest.sipp import parse_detail_page, parse_list_page, parse_tab
from harvest.sipp.warnings import collect_warnings
from tests.support.pages import FIXTURES

GOLDEN = FIXTURES / "golden"
NAMES = sorted(p.name for p in GOLDEN.iterdir() if (p / "fixture.json").is_file())


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def parsed(page: str, html: str, url: str, show_url: str | None = None) -> Any:
    """The object a golden fixture's ``expected.json`` is compared with (with ``show_url``, a
    detail page's tabs carry their URL too: a cut page builds them from it)."""
    if page.startswith("tab:"):
        return parse_tab(page.removeprefix("tab:"), html)
    if page == "detail":
        detail = parse_detail_page(html, url, show_url=show_url)
        return {
            "nomor_perkara": detail.nomor_perkara,
            **detail.data,
            "tabs": [
                {"slug": t.slug, "label": t.label, "available": t.available}
                | ({"url": t.url} if show_url is not None else {})
                for t in detail.tabs
            ],
        }
    if page == "list":
        listing = parse_list_page(html, url)
        return {
            "title": listing.title,
            "total_cases": listing.total_cases,
            "page_url_template": listing.page_url_template,
            "no_data": listing.no_data,
            "menu": [dataclasses.asdict(m) for m in listing.menu],
            "rows": [r.data for r in listing.rows],
        }
    raise ValueError(f"unknown page kind {page!r} in a golden fixture")


def test_there_are_golden_fixtures():
    assert NAMES, "no golden fixtures under tests/fixtures/golden/"


@pytest.mark.parametrize("name", NAMES)
def test_golden_fixture(name: str):
    folder = GOLDEN / name
    meta = _load(folder / "fixture.json")
    html = (folder / "page.html").read_text(encoding="utf-8")
    with collect_warnings() as warnings:
        got = parsed(meta["page"], html, meta["url"], meta.get("show_url"))
    assert got == _load(folder / "expected.json")
    assert [dataclasses.asdict(w) for w in warnings] == meta.get("warnings", [])


@pytest.mark.parametrize("name", NAMES)
def test_a_dead_branch_says_why(name: str):
    """``"reachable": false`` comes with the reason no stock install serves the page."""
    meta = _load(GOLDEN / name / "fixture.json")
    assert meta.get("reachable", True) in (True, False)
    if meta.get("reachable") is False:
        assert len(meta.get("unreachable", "")) > 40, meta
    else:
        assert "unreachable" not in meta
