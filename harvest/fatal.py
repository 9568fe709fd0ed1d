"""A fatal close of the crawl, said once: :func:`close_fatal` (issue 24).

When a store the crawl writes to fails (the request state, the item store, the page archive),
every request still in flight meets the same failure. The first component to meet it closes
the spider with its fatal close reason (``harvest.base.close_reasons.FATAL_CLOSE_REASONS``)
and logs the one ERROR line that says what failed and what to do; each later failure of the
same crawl is logged at DEBUG, with its detail, so that ``-s LOG_LEVEL=DEBUG`` shows them all.

Stats: ``harvest/fatal/<reason>`` counts the failures met per reason (the first included).
"""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING

from scrapy.utils.defer import deferred_from_coro

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["close_fatal", "fatal_reason"]

logger = logging.getLogger(__name__)

STAT_PREFIX = "harvest/fatal"

#: The fatal close reason of each crawl that met one (the first one wins).
_closed: weakref.WeakKeyDictionary[Crawler, str] = weakref.WeakKeyDictionary()


def fatal_reason(crawler: Crawler | None) -> str | None:
    """The fatal close reason ``crawler`` was closed with, ``None`` if none (yet)."""
    return _closed.get(crawler) if crawler is not None else None


def close_fatal(
    crawler: Crawler | None, reason: str, message: str, *, log: logging.Logger = logger
) -> bool:
    """Close ``crawler``'s spider with the fatal ``reason``; ``message`` (what failed and what to
    do) is logged at ERROR on ``log`` the first time, at DEBUG after. Returns whether this call
    was the first (the one that closes)."""
    if crawler is not None and crawler.stats is not None:
        crawler.stats.inc_value(f"{STAT_PREFIX}/{reason}")
    if crawler is not None and crawler in _closed:
        log.debug("%s (the crawl is already closing: %s)", message, _closed[crawler])
        return False
    log.error("%s; closing the spider (%s)", message, reason)
    if crawler is None:
        return True
    _closed[crawler] = reason
    try:
        engine = crawler.engine
    except RuntimeError:  # not started yet (Scrapy >= 2.14 raises): nothing to close
        return True
    if engine is not None and engine.running:
        deferred_from_coro(engine.close_spider_async(reason=reason))
    return True
