"""The URL log: every HTTP exchange actually made (each attempt, retries and redirects included).

:class:`UrlLogMiddleware` sits next to the downloader (order 950), so it sees each attempt as it
happens: the request as sent, the raw response (status, bytes) or the download exception, and
the time taken: ``ms`` is the network time (Scrapy's ``download_latency``), ``queue_ms`` the
time the attempt waited in the downloader before it (download delay, concurrency). Rows go to
``url_log`` of the request state with the row id of the request
(``NULL`` for out-of-band requests such as session warm-ups). URLs are stored without
``user:password@``. Switched off by ``HARVEST_STATE_URL_LOG = False`` or a foreign ``SCHEDULER``.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import TYPE_CHECKING

from scrapy.exceptions import NotConfigured

from harvest.base.meta import META_RID, META_SENT_AT
from harvest.base.scrubbing import strip_userinfo

from .config import SchedulerConfig
from .outcome import _require_harvest_scheduler, harvest_scheduler
from .store import Exchange, StateError

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

__all__ = ["UrlLogMiddleware"]

logger = logging.getLogger(__name__)


class UrlLogMiddleware:
    """Writes one ``url_log`` row per HTTP exchange."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        _require_harvest_scheduler(crawler)
        if not SchedulerConfig.from_settings(crawler.settings).url_log:
            raise NotConfigured("HARVEST_STATE_URL_LOG is off")
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        request.meta[META_SENT_AT] = time.monotonic()

    def process_response(self, request: Request, response: Response) -> Response:
        self._log(request, response.url, response.status, "response", len(response.body))
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        self._log(request, request.url, None, type(exception).__name__, 0)

    def _log(
        self, request: Request, final_url: str, status: int | None, outcome: str, size: int
    ) -> None:
        sent = request.meta.pop(META_SENT_AT, None)
        if sent is None:  # no exchange happened (answered or refused before the downloader)
            return
        scheduler = harvest_scheduler(self.crawler)
        if scheduler is None:
            return
        rid = request.meta.get(META_RID)
        total = (time.monotonic() - sent) * 1000.0
        # Scrapy's download_latency: request sent -> response headers, network only; the rest of
        # the attempt was spent queued (download delay, the court's concurrency slots)
        latency = request.meta.get("download_latency") if status is not None else None
        network = min(total, float(latency) * 1000.0) if latency is not None else total
        exchange = Exchange(
            request_id=rid if isinstance(rid, int) else None,
            method=request.method,
            url=strip_userinfo(request.url),
            final_url=strip_userinfo(final_url),
            status=status,
            outcome=outcome,
            bytes=size,
            ms=network,
            queue_ms=total - network if latency is not None else None,
        )
        if scheduler.state_broken:
            return  # the request state failed (locked, unreachable): the crawl is closing
        try:
            scheduler.store.log_exchange(scheduler.run_id_of(request), exchange)
        except (StateError, sqlite3.Error) as exc:  # a full disk, a lock, an outage: closing
            logger.debug("url_log row not written: %s", exc)
            scheduler.state_failed("record an exchange in url_log", exc)
