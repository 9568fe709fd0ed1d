"""The small spider (and its item store) the scheduler's crawl tests run as a subprocess.

``scrapy crawl mini -s SPIDER_MODULES=tests.support.minispider -a base_url=<MiniSite.url>``.
It routes like the sipp spider: list pages (priority 0) -> cases (10) -> tabs (20), every request
with a ``harvest_key``, cases and tabs with the case's ``harvest_group``. Items are upserted into
``<workspace>/mini-items.sqlite`` by :class:`MiniStorePipeline` (idempotent, committed per item).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.http import Response

from harvest.base.workspace import resolve_workspace

ITEMS_DB = "mini-items.sqlite"


class MiniSpider(Spider):
    name = "mini"

    def __init__(self, base_url: str, court_id: str = "mini", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url.rstrip("/")
        self.court_id = court_id

    async def start(self) -> AsyncIterator[Request]:
        yield Request(
            f"{self.base_url}/list?page=1",
            callback=self.parse_list,
            dont_filter=True,
            meta={"harvest_key": f"list|{self.court_id}|all|1"},
        )

    def parse_list(self, response: Response) -> Iterator[Request]:
        for href in response.css("a.case::attr(href)").getall():
            case = int(parse_qs(urlsplit(href).query)["id"][0])
            yield response.follow(
                href,
                callback=self.parse_case,
                priority=10,
                meta={
                    "harvest_key": f"case|{self.court_id}|{case}",
                    "harvest_group": f"{self.court_id}|{case}",
                },
            )
        nxt = response.css("a.next::attr(href)").get()
        if nxt:
            page = int(parse_qs(urlsplit(nxt).query)["page"][0])
            yield response.follow(
                nxt,
                callback=self.parse_list,
                meta={"harvest_key": f"list|{self.court_id}|all|{page}"},
            )

    def parse_case(self, response: Response) -> Iterator[Any]:
        case = int(response.css("h1::text").get("").split()[-1])
        yield {"court": self.court_id, "case": case, "part": "case", "data": response.text}
        for href in response.css("a.tab::attr(href)").getall():
            tab = parse_qs(urlsplit(href).query)["t"][0]
            yield response.follow(
                href,
                callback=self.parse_tab,
                priority=20,
                cb_kwargs={"case": case, "tab": tab},
                meta={
                    "harvest_key": f"tab|{self.court_id}|{case}|{tab}",
                    "harvest_group": f"{self.court_id}|{case}",
                },
            )

    def parse_tab(self, response: Response, case: int, tab: str) -> Iterator[Any]:
        yield {"court": self.court_id, "case": case, "part": f"tab:{tab}", "data": response.text}


class MiniStorePipeline:
    """Upserts items on (court, case, part) into ``<workspace>/mini-items.sqlite``."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> MiniStorePipeline:
        return cls(crawler)

    def open_spider(self) -> None:
        ws = resolve_workspace(self.crawler.settings.get("HARVEST_WORKSPACE"))
        self.db = sqlite3.connect(Path(ws) / ITEMS_DB, isolation_level=None)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS items (court TEXT, case_no INTEGER, part TEXT, data TEXT, "
            "PRIMARY KEY (court, case_no, part))"
        )

    def close_spider(self) -> None:
        self.db.close()

    def process_item(self, item: dict[str, Any]) -> dict[str, Any]:
        self.db.execute(
            "INSERT INTO items VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET data = excluded.data",
            (item["court"], item["case"], item["part"], item["data"]),
        )
        return item


def stored_items(workspace: Path) -> set[tuple[str, int, str]]:
    path = workspace / ITEMS_DB
    if not path.exists():
        return set()
    db = sqlite3.connect(path)
    try:
        return {(c, n, p) for c, n, p in db.execute("SELECT court, case_no, part FROM items")}
    finally:
        db.close()
