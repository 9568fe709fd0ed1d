"""The notices spider middleware: list rows the spider reports are logged, counted and recorded.

``NoticeSpiderMiddleware`` (spider order 15, just inside
:class:`extensions.outcome.OutcomeSpiderMiddleware`) takes every
:class:`harvest.base.items.RowProblem` out of a callback's output: it is never an item and never
counts against the request. Each one is logged (WARNING, page URL and row number), counted
(``harvest/list/row_error``, ``harvest/list/number_clash``) and, under the harvest scheduler,
recorded as a notice event on the list page's request row (``scrapy status`` lists them). The
list page itself stays ``ok``: ``scrapy requeue`` has nothing to loop on.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from harvest.base.items import RowProblem

from .outcome import harvest_scheduler

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterable
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response

__all__ = ["NoticeSpiderMiddleware"]

logger = logging.getLogger(__name__)

STAT = "harvest/list/"


class NoticeSpiderMiddleware:
    """Consumes :class:`~harvest.base.items.RowProblem` elements of the callback output."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_spider_output(self, response: Response, result: Iterable[Any]) -> Iterable[Any]:
        for element in result:
            if isinstance(element, RowProblem):
                self._record(response, element)
            else:
                yield element

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        async for element in result:
            if isinstance(element, RowProblem):
                self._record(response, element)
            else:
                yield element

    def _record(self, response: Response, problem: RowProblem) -> None:
        detail = f"{problem.page_url} row {problem.row}: {problem.detail}"
        logger.warning("list %s: %s", problem.event.replace("_", " "), detail)
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value(STAT + problem.event)
        scheduler = harvest_scheduler(self.crawler)
        if scheduler is not None:
            scheduler.note(response.request, problem.event, detail)
