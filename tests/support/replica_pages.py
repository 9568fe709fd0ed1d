"""Crawl a running replica page by page, as the spider does, keeping each page with its parse.

``crawl_pages(rep.url, check)`` walks the all-cases list (every page, through the paging
template), each case's detail (its ``show_detil`` redirect) and every available tab of it (its
``.load()`` URL, ``show_<slug>`` redirect), cases split over a few cookie sessions, and calls
``check`` on a :class:`Page` per page: its kind (``list``, ``detail``, ``tab:<slug>``), URL,
HTML, the parsed object the text-coverage and golden checks compare (:func:`parsed_object`)
and the parse warnings. Every page is checked with :func:`harvest.sipp.page_error` first (no
faults expected).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import requests

from harvest.sipp import ListRow, page_error, parse_detail_page, parse_list_page, parse_tab
from harvest.sipp.warnings import ParseWarning, collect_warnings

__all__ = ["Page", "case_pages", "crawl_pages", "list_rows", "parsed_object"]

TIMEOUT = 30
T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Page:
    kind: str
    url: str
    html: str
    data: Any
    warnings: tuple[ParseWarning, ...]
    case: str | None = None


def parsed_object(kind: str, html: str, url: str) -> Any:
    """What a page's parse gives, as the golden fixtures hold it (tests/fixtures/golden)."""
    if kind.startswith("tab:"):
        return parse_tab(kind.removeprefix("tab:"), html)
    if kind == "detail":
        detail = parse_detail_page(html, url)
        return {
            "nomor_perkara": detail.nomor_perkara,
            **detail.data,
            "tabs": [
                {"slug": t.slug, "label": t.label, "available": t.available} for t in detail.tabs
            ],
        }
    if kind == "list":
        listing = parse_list_page(html, url)
        return {
            "title": listing.title,
            "total_cases": listing.total_cases,
            "page_url_template": listing.page_url_template,
            "no_data": listing.no_data,
            "menu": [dataclasses.asdict(m) for m in listing.menu],
            "rows": [r.data for r in listing.rows],
        }
    raise ValueError(f"unknown page kind {kind!r}")


def _session() -> requests.Session:
    """A session that reads no proxy settings from the environment (the replica is on
    127.0.0.1; looking the proxies up again for every request cost a fifth of a crawl)."""
    session = requests.Session()
    session.trust_env = False
    return session


def _get(session: requests.Session, url: str, expect: str, **kw: Any) -> requests.Response:
    resp = session.get(url, timeout=TIMEOUT)
    assert resp.status_code == 200, (url, resp.status_code)
    reason = page_error(resp.text, expect=expect, **kw)
    assert reason is None, f"{url}: {reason}"
    return resp


def _page(kind: str, resp: requests.Response, case: str | None = None) -> Page:
    with collect_warnings() as found:
        data = parsed_object(kind, resp.text, resp.url)
    return Page(kind, resp.url, resp.text, data, tuple(found), case)


def list_rows(base_url: str, session: requests.Session) -> tuple[list[Page], list[ListRow]]:
    """Every page of the all-cases list and the rows they hold (the session is warmed)."""
    _get(session, base_url, "list")  # a full page first: the session is warm
    resp = _get(session, base_url + "list_perkara", "list")
    listing = parse_list_page(resp.text, resp.url)
    pages = [_page("list", resp)]
    rows = list(listing.rows)
    template = listing.page_url_template
    number = 1
    while template is not None and number * 20 < (listing.total_cases or 0):
        number += 1
        resp = _get(session, template.format(page=number), "list")
        listing = parse_list_page(resp.text, resp.url)
        pages.append(_page("list", resp))
        rows += listing.rows
    return pages, rows


def case_pages(base_url: str, rows: list[ListRow]) -> Iterator[Page]:
    """The detail page and every available tab of each row's case, in a session of its own."""
    session = _session()
    _get(session, base_url, "list")
    for row in rows:
        resp = _get(session, row.detail_url, "detail", case_number=row.nomor_perkara)
        detail = parse_detail_page(resp.text, resp.url)
        yield _page("detail", resp, row.nomor_perkara)
        for tab in detail.tabs:
            if not tab.available:
                continue
            frag = _get(session, tab.url, "tab", party_labels_missing=detail.party_labels_missing)
            yield _page(f"tab:{tab.slug}", frag, row.nomor_perkara)


def crawl_pages(base_url: str, check: Callable[[Page], T], *, workers: int = 2) -> list[T]:
    """``check(page)`` for every list page, detail page and tab fragment of the replica at
    ``base_url``: the cases are split over ``workers`` sessions crawling at once (the replica
    renders while a worker parses)."""
    session = _session()
    pages, rows = list_rows(base_url, session)
    results = [check(page) for page in pages]
    chunks = [rows[i::workers] for i in range(workers)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(
            lambda chunk: [check(p) for p in case_pages(base_url, chunk)], chunks
        ):
            results += part
    return results
