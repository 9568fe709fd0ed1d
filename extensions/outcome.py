"""Outcome capture: the middlewares that tell :class:`HarvestScheduler` how each request ended.

The engine never tells a scheduler how a request ended, so two companions report it:

* :class:`OutcomeDownloaderMiddleware` (downloader order 20, below Retry 550 and Redirect 600):
  sees only the final response or final exception of a request. A non-2xx final response the
  spider does not handle (``HttpErrorMiddleware`` rules) makes the row ``error`` with
  ``HTTP <status>``; a final exception (after retries; ``IgnoreRequest`` and
  ``harvest.errors.PageError`` included) makes it ``error`` with its reason
  (:func:`extensions.reasons.reason_for_exception`), except
  :class:`harvest.errors.StoppedBeforeSending` (the crawl is stopping and the request was never
  sent): that row stays in flight, and the scheduler's close puts it back to pending.
* :class:`OutcomeSpiderMiddleware` (spider order 10, outermost): wraps the callback output. Each
  yielded request and item is counted against the row; the row becomes ``ok`` when the output is
  exhausted, every yielded request is a committed row and every item has passed the pipelines
  (``item_scraped``/``item_dropped``; ``item_error`` makes it ``error``). A callback exception
  makes it ``error`` with the exception as reason. The page's parse warnings, which the spider
  leaves in ``response.meta["harvest_parse_warnings"]``, are recorded with the ``ok``.

An exception *raised from another downloader middleware's* ``process_response`` skips every
``process_exception`` (Scrapy's rule), so neither middleware sees it: the scheduler notices the row
in flight while the engine holds nothing and ends it ``error`` with
:data:`~extensions.scheduler.ORPHAN_REASON` (``scrapy requeue`` sends it back), instead of letting
it block its group.

Both middlewares switch themselves off (``NotConfigured``) unless ``SCHEDULER`` is
:class:`~extensions.scheduler.HarvestScheduler`, so a benchmark or test can swap the scheduler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import load_object

from harvest.base.meta import META_PARSE_WARNINGS, META_RID
from harvest.errors import StoppedBeforeSending

from .reasons import reason_for_exception, reason_for_status
from .scheduler import HarvestScheduler

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterable
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response

__all__ = ["OutcomeDownloaderMiddleware", "OutcomeSpiderMiddleware", "harvest_scheduler"]


def _is_harvest_class(cls: object) -> bool:
    # not issubclass()/isinstance(): BaseScheduler's metaclass answers those by duck typing, so
    # every scheduler would pass
    return isinstance(cls, type) and HarvestScheduler in cls.__mro__


def _require_harvest_scheduler(crawler: Crawler) -> None:
    if not _is_harvest_class(load_object(crawler.settings["SCHEDULER"])):
        raise NotConfigured("SCHEDULER is not extensions.scheduler.HarvestScheduler")


def harvest_scheduler(crawler: Crawler) -> HarvestScheduler | None:
    """The running :class:`HarvestScheduler` of ``crawler``, if the crawl is open."""
    engine = crawler.engine
    scheduler = engine.scheduler if engine is not None else None
    if _is_harvest_class(type(scheduler)):
        assert isinstance(scheduler, HarvestScheduler)
        if scheduler._store is not None:
            return scheduler
    return None


def http_status_handled(response: Response, request: Request, crawler: Crawler) -> bool:
    """Whether the spider receives ``response`` in its callback (``HttpErrorMiddleware`` rules)."""
    if 200 <= response.status < 300:
        return True
    meta = request.meta
    if meta.get("handle_httpstatus_all", False):
        return True
    if "handle_httpstatus_list" in meta:
        return response.status in meta["handle_httpstatus_list"]
    settings = crawler.settings
    if settings.getbool("HTTPERROR_ALLOW_ALL"):
        return True
    allowed = getattr(
        crawler.spider, "handle_httpstatus_list", settings.getlist("HTTPERROR_ALLOWED_CODES")
    )
    return response.status in [int(s) for s in allowed]


class OutcomeDownloaderMiddleware:
    """Records the final response status or final exception of each request row."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        _require_harvest_scheduler(crawler)
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if META_RID in request.meta and (scheduler := harvest_scheduler(self.crawler)) is not None:
            if http_status_handled(response, request, self.crawler):
                scheduler.note_response(request, response.status)
            else:
                scheduler.fail(
                    request, reason_for_status(response.status), http_status=response.status
                )
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        if isinstance(exception, StoppedBeforeSending):
            return  # not an outcome: back to pending at close
        if META_RID in request.meta and (scheduler := harvest_scheduler(self.crawler)) is not None:
            scheduler.fail(request, reason_for_exception(exception))


class OutcomeSpiderMiddleware:
    """Marks a row ``ok`` once its callback output is fully handled, ``error`` if it raised."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        _require_harvest_scheduler(crawler)
        return cls(crawler)

    def process_spider_output(self, response: Response, result: Iterable[Any]) -> Iterable[Any]:
        scheduler = harvest_scheduler(self.crawler)
        rid = scheduler.output_started(response) if scheduler is not None else None
        if scheduler is None or rid is None:
            yield from result
            return
        try:
            for element in result:
                self._count(scheduler, rid, element)
                yield element
        except Exception as exc:
            scheduler.output_failed(rid, exc)
            raise
        scheduler.output_done(rid, response.meta.get(META_PARSE_WARNINGS))

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        scheduler = harvest_scheduler(self.crawler)
        rid = scheduler.output_started(response) if scheduler is not None else None
        if scheduler is None or rid is None:
            async for element in result:
                yield element
            return
        try:
            async for element in result:
                self._count(scheduler, rid, element)
                yield element
        except Exception as exc:
            scheduler.output_failed(rid, exc)
            raise
        scheduler.output_done(rid, response.meta.get(META_PARSE_WARNINGS))

    @staticmethod
    def _count(scheduler: HarvestScheduler, rid: int, element: Any) -> None:
        if isinstance(element, Request):
            scheduler.output_request(rid, element)
        elif element is not None:
            scheduler.output_item(rid)

    def process_spider_exception(self, response: Response, exception: Exception) -> None:
        scheduler = harvest_scheduler(self.crawler)
        if scheduler is not None:
            rid = response.meta.get(META_RID) if response.request is not None else None
            if isinstance(rid, int):
                scheduler.output_failed(rid, exception)
