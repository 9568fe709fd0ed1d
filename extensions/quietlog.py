"""No work for Scrapy log records nobody reads (``EXTENSIONS``: ``QuietScrapyLogs``).

Scrapy sets its ``scrapy`` logger to DEBUG and lets the root handler drop what is under
``LOG_LEVEL``, so at the default ``INFO`` every response still builds a ``Crawled (200)`` record,
every item a ``Scraped from`` record and every redirect a ``Redirecting`` record, each then
thrown away by the handler (about 1.5% of a crawl's CPU, measured by bench/bench_pace.py). This
extension sets the ``scrapy`` logger itself to ``LOG_LEVEL``, so such calls return at once. With
``LOG_LEVEL = DEBUG`` nothing changes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.exceptions import NotConfigured

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

__all__ = ["QuietScrapyLogs", "log_level"]


def log_level(value: object) -> int:
    """The numeric level of a ``LOG_LEVEL`` value (``"INFO"``, ``20``, ``"20"``)."""
    if isinstance(value, int):
        return value
    text = str(value).strip().upper()
    if text.isdigit():
        return int(text)
    level = logging.getLevelName(text)
    if not isinstance(level, int):
        raise NotConfigured(f"LOG_LEVEL {value!r} is not a logging level")
    return level


class QuietScrapyLogs:
    """Raises the ``scrapy`` logger to ``LOG_LEVEL`` (see the module docstring)."""

    def __init__(self, level: int) -> None:
        self.level = level
        scrapy_logger = logging.getLogger("scrapy")
        if scrapy_logger.level < level:
            scrapy_logger.setLevel(level)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        level = log_level(crawler.settings.get("LOG_LEVEL", "DEBUG"))
        if level <= logging.DEBUG:
            raise NotConfigured("LOG_LEVEL is DEBUG: every Scrapy record is wanted")
        return cls(level)
