"""The case parts of a page, built by one pure function per page kind: the spider calls them on
a fresh response, ``scrapy reparse`` on an archived one, so both produce the same parts.

What a page's parts need besides the page itself is its *parse context* (a small JSON-able dict
the spider puts in ``meta[META_PARSE_CONTEXT]``; the page archive keeps it with the page):

- a detail page: ``{"case_raw": <case number as the list shows it>, "row": <its list row>}``
  (``row`` is :class:`harvest.sipp.ListRow` as a dict; the ``case`` part keeps part of it);
- a tab fragment: ``{"case_raw": ..., "tab": <slug>}``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from harvest.base.items import CASE_PART, CasePart, tab_part
from harvest.sipp import DetailPage, ListRow, case_part_data, parse_detail_page, parse_tab

__all__ = [
    "build_case_part",
    "build_tab_part",
    "case_context",
    "parts_of_page",
    "tab_context",
]


def case_context(row: ListRow) -> dict[str, Any]:
    """The parse context of a case's detail page, from its list row."""
    return {"case_raw": row.nomor_perkara, "row": dataclasses.asdict(row)}


def tab_context(raw_number: str, slug: str) -> dict[str, Any]:
    """The parse context of one tab fragment of a case."""
    return {"case_raw": raw_number, "tab": slug}


def build_case_part(
    court: str,
    context: dict[str, Any],
    html: str,
    url: str,
    fetched_at: str,
    *,
    show_url: str | None = None,
) -> tuple[CasePart, DetailPage]:
    """The ``case`` part of a detail page, and the parsed page (its tabs route the crawl).

    ``show_url``: the ``show_detil/<tok>`` URL the page was reached by (a page the app cut
    short has no tab script; its tab URLs are built from it). Raises
    :class:`harvest.sipp.ParseError` when the page does not parse.
    """
    detail = parse_detail_page(html, url, show_url=show_url)
    row_fields = context.get("row")
    row = ListRow(**row_fields) if row_fields else None
    part = CasePart(
        court=court,
        nomor_perkara=context["case_raw"],
        part=CASE_PART,
        data=case_part_data(court, row, detail),
        url=url,
        fetched_at=fetched_at,
    )
    return part, detail


def build_tab_part(
    court: str, context: dict[str, Any], html: str, url: str, fetched_at: str
) -> CasePart:
    """The ``tab:<slug>`` part of a tab fragment (raises :class:`harvest.sipp.ParseError`)."""
    slug: str = context["tab"]
    return CasePart(
        court=court,
        nomor_perkara=context["case_raw"],
        part=tab_part(slug),
        data=parse_tab(slug, html),
        url=url,
        fetched_at=fetched_at,
    )


def parts_of_page(
    kind: str, court: str, context: dict[str, Any], html: str, url: str, fetched_at: str
) -> list[CasePart]:
    """The parts a page of ``kind`` (``case`` or ``tab``) yields; list pages yield none."""
    if kind == "case":
        return [build_case_part(court, context, html, url, fetched_at)[0]]
    if kind == "tab":
        return [build_tab_part(court, context, html, url, fetched_at)]
    return []
