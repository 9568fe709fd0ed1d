"""Archived pages answer their own requests again: a resumed crawl does not ask the court twice.

A crawl killed (or stopped by an upgrade) between archiving a page and committing its request's
``ok`` leaves that request pending with its page already in the archive. When the next crawl
dispatches it, :class:`ArchiveReplayMiddleware` answers it from the archive instead of the
court, and the spider parses it as it would the court's answer: parts, the case's tab requests,
the next list page (docs/archive.md, "Upgrades and resumed crawls"). Only a page that is

* the latest archived for the request's key, archived by an earlier run (a retry within this
  run always goes to the court) and within the court's current generation (a refresh never
  sees an older generation's pages),
* a 2xx answer the crawl judged good (no page error), read back with its digest intact, and
* for a case or a tab, archived with its parse context,

is replayed, once per request (if the spider or the validation rejects it, the retry goes to the
court). A replayed answer makes no ``url_log`` row (no exchange with the court happened) and is
not archived again. Stat: ``harvest/archive/replayed``. Switched off with the archive
(``HARVEST_ARCHIVE = False``) and in multi-court crawls (they do not archive yet).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse

from harvest.archive.middleware import archive_enabled, archive_root
from harvest.archive.store import INDEX_DB, ArchiveError, ArchiveIndex, CorruptRecord, read_entry
from harvest.base.clock import utc_now
from harvest.base.meta import META_BROWSER_PASS, META_IS_WARMUP, META_KEY

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

__all__ = ["REPLAYED_FLAG", "ArchiveReplayMiddleware"]

logger = logging.getLogger(__name__)

#: ``Response.flags`` of an answer read back from the archive.
REPLAYED_FLAG = "archived"
#: ``Request.meta`` key: this request was answered from the archive once already.
META_REPLAYED = "harvest_replayed"
_KINDS = ("list", "case", "tab")


class ArchiveReplayMiddleware:
    """Answer a request from the archive when it holds this generation's page (module doc)."""

    def __init__(self, crawler: Crawler, root: Path) -> None:
        self.crawler = crawler
        self.root = root
        self.opened_at = ""  # the crawl's start: pages archived before it are an earlier run's
        self._index: ArchiveIndex | None = None
        self._off = False
        self.replayed = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not archive_enabled(crawler.settings):
            raise NotConfigured("HARVEST_ARCHIVE is off: no page is replayed from it")
        mw = cls(crawler, archive_root(crawler.settings))
        crawler.signals.connect(mw.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        return mw

    def spider_opened(self) -> None:
        self.opened_at = utc_now()
        spider = self.crawler.spider
        self._off = bool(getattr(spider, "courts", None)) or not getattr(spider, "court_id", None)
        if self._off:
            return
        try:
            self._index = ArchiveIndex.open(self.root / INDEX_DB, readonly=True)
        except ArchiveError:
            self._index = None  # no archive yet: nothing to replay

    def spider_closed(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None
        if self.replayed:
            logger.info("%d requests answered from the archive (no request)", self.replayed)

    def _generation_start(self) -> str | None:
        """When the court's current generation started (the scheduler's), else ``None``."""
        engine = self.crawler.engine
        scheduler = getattr(engine, "scheduler", None) if engine is not None else None
        generation = getattr(scheduler, "generation", None)
        started = getattr(generation, "started_at", None)
        return started if isinstance(started, str) else None

    def process_request(self, request: Request) -> Response | None:
        meta = request.meta
        key = meta.get(META_KEY)
        if (
            self._off
            or self._index is None
            or not isinstance(key, str)
            or key.split("|", 1)[0] not in _KINDS
            or meta.get(META_IS_WARMUP)
            or meta.get(META_BROWSER_PASS)
            or meta.get(META_REPLAYED)
        ):
            return None
        since = self._generation_start()
        if since is None:
            return None
        try:
            entry = self._index.get(key)
        except sqlite3.Error as exc:
            logger.debug("archive index not read for %s: %s", key, exc)
            return None
        if entry is None or not since <= entry.fetched_at < self.opened_at:
            return None
        try:
            page = read_entry(self.root, entry)
        except CorruptRecord as exc:
            logger.debug("archived page of %s not replayed: %s", key, exc)
            return None
        context: dict[str, Any] = page.context
        if (
            not 200 <= page.status < 300
            or context.get("page_error")
            or (entry.kind != "list" and not isinstance(context.get("parse"), dict))
        ):
            return None
        meta[META_REPLAYED] = True
        self.replayed += 1
        stats = self.crawler.stats
        if stats is not None:
            stats.inc_value("harvest/archive/replayed")
        logger.debug("%s answered from the archive (%s, %s)", key, entry.url, entry.fetched_at)
        return HtmlResponse(
            entry.url,
            status=page.status,
            headers={k: v for k, v in page.headers if k.lower() == "content-type"},
            body=page.body,
            request=request,
            flags=[REPLAYED_FLAG],
        )
