"""SIPP sessions: one cookie jar per case, bounded in number, warmed by a full page when cold.

SIPP serves details and tabs through a one-shot value in the server-side PHP session, and tab
fragments only carry party labels when that session has rendered a full page before
(docs/sipp.md, Sessions). Every request of a case uses ``meta["cookiejar"] = <case group>``.

This middleware replaces Scrapy's ``CookiesMiddleware`` with two changes:

* **Bounded jars.** Scrapy keeps every jar forever; over 100,000 cases that is a leak. Jars live
  in an LRU map of at most ``SIPP_SESSION_MAX_JARS`` entries. The scheduler never has two requests
  of one group in flight and finishes started cases first, so live groups are few; a jar evicted
  and needed again is simply a cold session.
* **Warm-up.** A request flagged ``meta["sipp_needs_warm_session"]`` (tab fragments) whose jar
  has not rendered a full page in this process first fetches ``meta["sipp_warmup_url"]`` (the
  court's root list page) in the same jar, out of band (it is not a request row; the URL log still
  sees it). A jar counts as warm after any full page (list or detail) answered 200 in it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware
from scrapy.exceptions import NotConfigured
from scrapy.http.cookies import CookieJar

from harvest.meta import (
    META_COOKIEJAR,
    META_FORCE_WARM,
    META_FULL_PAGE,
    META_IS_WARMUP,
    META_NEEDS_WARM,
    META_WARMUP_URL,
)

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Default of ``SIPP_SESSION_MAX_JARS``: cookie jars kept at once (least recently used dropped).
DEFAULT_MAX_JARS = 256


class BoundedJars(OrderedDict[Any, CookieJar]):
    """A mapping of cookie jars that creates jars on demand and keeps only the newest ``limit``,
    with a "warm" flag per jar (its session has loaded a full page) that leaves with the jar."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.evicted = 0
        self._warm: set[Any] = set()

    def __getitem__(self, key: Any) -> CookieJar:
        if key in self:
            self.move_to_end(key)
            return super().__getitem__(key)
        jar = CookieJar()
        self[key] = jar
        while len(self) > self.limit:
            old, _ = self.popitem(last=False)
            self._warm.discard(old)
            self.evicted += 1
        return jar

    def is_warm(self, key: Any) -> bool:
        return key in self._warm and key in self

    def mark_warm(self, key: Any) -> None:
        if key in self:
            self._warm.add(key)

    def forget(self, key: Any) -> None:
        """Drop a jar and its warm flag (the next request starts a fresh session)."""
        self.pop(key, None)
        self._warm.discard(key)


class SippSessionMiddleware(CookiesMiddleware):
    """Cookie jars per case (bounded) with a full-page warm-up for cold sessions."""

    def __init__(self, debug: bool = False, *, max_jars: int = DEFAULT_MAX_JARS) -> None:
        super().__init__(debug)
        self._jars = BoundedJars(max_jars)
        self.jars = self._jars  # type: ignore[assignment]

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("COOKIES_ENABLED"):
            raise NotConfigured
        max_jars = crawler.settings.getint("SIPP_SESSION_MAX_JARS", DEFAULT_MAX_JARS)
        if max_jars < 1:
            raise ValueError(
                f"SIPP_SESSION_MAX_JARS must be at least 1 (got {max_jars}); it bounds the "
                "cookie jars kept at once, default 256"
            )
        o = cls(crawler.settings.getbool("COOKIES_DEBUG"), max_jars=max_jars)
        o.crawler = crawler
        return o

    def is_warm(self, jar_key: Any) -> bool:
        return self._jars.is_warm(jar_key)

    def forget(self, jar_key: Any) -> None:
        """Drop a jar and its warm flag (the next request starts a fresh session)."""
        self._jars.forget(jar_key)

    async def process_request(self, request: Request) -> None:  # type: ignore[override]
        jar_key = request.meta.get(META_COOKIEJAR)
        if request.meta.pop(META_FORCE_WARM, False):
            self.forget(jar_key)
        if request.meta.get(META_NEEDS_WARM) and not self.is_warm(jar_key):
            await self._warm_up(request, jar_key)
        super().process_request(request)

    async def _warm_up(self, request: Request, jar_key: Any) -> None:
        url = request.meta.get(META_WARMUP_URL)
        if not url:
            return
        warmup = Request(
            url,
            meta={META_COOKIEJAR: jar_key, META_IS_WARMUP: True, META_FULL_PAGE: True},
            dont_filter=True,
            priority=request.priority,
        )
        logger.debug("warming session %s with %s before %s", jar_key, url, request.url)
        stats = self.crawler.stats
        assert self.crawler.engine is not None
        # Out of band: the engine downloads it through the downloader middlewares (cookies,
        # retries, URL log) without a scheduler row. A failure propagates as this request's
        # download failure, which is what it is.
        await self.crawler.engine.download_async(warmup)
        if stats is not None:
            stats.inc_value("harvest/session/warmups")

    def process_response(  # type: ignore[override]
        self, request: Request, response: Response
    ) -> Request | Response:
        result = super().process_response(request, response)
        if request.meta.get(META_FULL_PAGE) and response.status == 200:
            self._jars.mark_warm(request.meta.get(META_COOKIEJAR))
        return result
