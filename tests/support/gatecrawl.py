"""A minimal crawl behind the replica's JavaScript gate, run as a subprocess by the tests.

``python -m tests.support.gatecrawl BASE_URL MODE OUT_JSON [PAGES]`` fetches the list pages
1..PAGES of the replica at BASE_URL, each in its own cookie jar, with only Scrapy's defaults and
:class:`harvest.clearance.ClearanceMiddleware` (``SIPP_BROWSER=MODE``). It writes
``{"items": [...], "stats": {...}}`` to OUT_JSON. It needs none of the project's scheduler,
parsers or pipelines, so it tests the browser pass on its own.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from scrapy import Request, Spider, signals
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response

from harvest.settings import DOWNLOADER_MIDDLEWARES
from harvest.sipp import page_error, parse_list_page
from reference.sipp_site.challenge import COOKIE

USER_AGENT = "harvest-gate-test/1.0 (+tests/browser)"
#: Wired at the project's order (with Scrapy's default middlewares around it).
MIDDLEWARE = "harvest.clearance.ClearanceMiddleware"


class GateSpider(Spider):
    name = "gate"

    def __init__(self, base_url: str, pages: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url
        self.pages = pages

    async def start(self) -> AsyncIterator[Request]:
        for page in range(1, self.pages + 1):
            path = "list_perkara" if page == 1 else f"list_perkara/page/{page}"
            yield Request(self.base_url + path, meta={"cookiejar": page, "page": page})

    def parse(self, response: Response) -> Any:
        yield {
            "page": response.meta["page"],
            "status": response.status,
            "verdict": page_error(response.text, expect="list"),
            "rows": len(parse_list_page(response.text, response.url).rows),
            "sent_user_agent": (response.request.headers.get("User-Agent") or b"").decode()
            if response.request is not None
            else None,
        }


def main(argv: list[str]) -> int:
    base_url, mode, out = argv[0], argv[1], argv[2]
    pages = int(argv[3]) if len(argv) > 3 else 6
    items: list[dict[str, Any]] = []
    process = CrawlerProcess(
        {
            "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
            "DOWNLOADER_MIDDLEWARES": {MIDDLEWARE: DOWNLOADER_MIDDLEWARES[MIDDLEWARE]},
            "SIPP_BROWSER": mode,
            "SIPP_BROWSER_COOKIES": COOKIE,  # the replica's gate (not a product default)
            "USER_AGENT": USER_AGENT,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
            "LOG_LEVEL": "INFO",
            "TELNETCONSOLE_ENABLED": False,
        }
    )
    crawler = process.create_crawler(GateSpider)

    def collect(item: dict[str, Any]) -> None:
        items.append(dict(item))

    crawler.signals.connect(collect, signal=signals.item_scraped)  # held: signals keep weak refs
    process.crawl(crawler, base_url=base_url, pages=pages)
    process.start()
    stats = {k: v for k, v in crawler.stats.get_stats().items() if isinstance(v, (int, float))}
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"items": items, "stats": stats}, fh, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
