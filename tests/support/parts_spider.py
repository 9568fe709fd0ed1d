"""A spider that yields case parts straight from ``start()`` (no network): good and bad ones.

Run by ``tests/pipeline/test_crawl_pipeline.py`` with ``scrapy runspider`` inside the project,
so the project's settings (pipeline, scheduler) apply as in a real crawl.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from scrapy import Spider

from harvest.base.items import CasePart

NUMBER = "1/Pid.B/2024/PN Tst"
TABS = [
    {"slug": "pihak", "label": "Pihak", "available": True},
    {"slug": "diversi", "label": "Diversi", "available": False},
]


class PartsSpider(Spider):
    name = "parts"
    court_id = "pn-test"

    async def start(self) -> AsyncIterator[CasePart]:
        for _ in range(3):
            yield CasePart(
                court="pn-test",
                nomor_perkara=NUMBER,
                part="case",
                data={"nomor_perkara": NUMBER, "tabs": TABS},
                url="http://127.0.0.1/detil",
            )
        yield CasePart(
            court="pn-test", nomor_perkara=f" {NUMBER}\t", part="tab:pihak", data=[{"nama": "A"}]
        )
        yield CasePart(court="pn-test", nomor_perkara="", part="case", data={"tabs": []})
        yield CasePart(
            court="pn-test", nomor_perkara="2/Pid.B/2024/PN Tst", part="tab:pihak", data=[{1, 2}]
        )
