"""What Scrapy logs about items and errors: never an item's data, one line per site error.

``LOG_FORMATTER = "extensions.logformatter.PartLogFormatter"`` (harvest/settings.py).

* Items: Scrapy's own formatter writes the whole item into "Scraped from", "Dropped" and "Error
  processing" lines (a full case document, at ERROR level when the disk is full). This one
  writes the item's keys instead: its class, the identifying fields of a case part (court, case
  number, part) and the names of the other fields, never their values, at every level.
* Expected site errors (an error page served with 200, a 5xx, a timeout, a refused connection:
  :class:`harvest.errors.PageError` and Scrapy's ``RETRY_EXCEPTIONS``) are logged once, as one
  WARNING line with reason, URL and attempt, by :class:`extensions.scheduler.HarvestScheduler`
  when it records the error; Scrapy's own lines for them (``Error downloading ...``, ``Spider
  error processing ...`` with a 60-line traceback) move to DEBUG here, and ``Gave up retrying``
  by ``RETRY_GIVE_UP_LOG_LEVEL = "DEBUG"``. Any other exception (a bug) keeps its ERROR line and
  traceback.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter, is_item
from scrapy.logformatter import LogFormatter
from scrapy.utils.misc import load_object

from harvest.errors import PageError

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure

__all__ = ["IDENTIFYING_FIELDS", "PartLogFormatter", "item_summary"]

#: Fields whose values identify an item without being its content (they make the dedupe key).
IDENTIFYING_FIELDS = ("court", "nomor_perkara", "part")
_MAX_VALUE = 120


def item_summary(item: Any) -> str:
    """``CasePart(court='pn-x', nomor_perkara='1/Pid.B/2024/PN X', part='case'; data, url, ...)``.

    Identifying values are cut to 120 characters; every other field is named, never shown.
    """
    name = type(item).__name__
    if not is_item(item):
        return f"{name}(...)"
    adapter = ItemAdapter(item)
    shown = []
    for key in IDENTIFYING_FIELDS:
        if key in adapter:
            value = adapter.get(key)
            text = repr(value if not isinstance(value, str) else value[:_MAX_VALUE])
            shown.append(f"{key}={text}")
    others = sorted(str(k) for k in adapter.field_names() if k not in IDENTIFYING_FIELDS)
    return f"{name}({', '.join(shown)}; fields {', '.join(others) or '-'})"


class PartLogFormatter(LogFormatter):
    """Scrapy's :class:`~scrapy.logformatter.LogFormatter` with items replaced by their keys and
    expected site errors at DEBUG (module docstring)."""

    def __init__(self, expected: tuple[type[BaseException], ...] = (PageError,)) -> None:
        self.expected = expected

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        retried: list[type[BaseException]] = []
        for path in crawler.settings.getlist("RETRY_EXCEPTIONS"):
            obj = load_object(path) if isinstance(path, str) else path
            if isinstance(obj, type) and issubclass(obj, BaseException):
                retried.append(obj)
        return cls((PageError, *retried))

    def _quiet(self, result: LogFormatterResult, failure: Failure) -> LogFormatterResult:
        if isinstance(failure.value, self.expected):
            return {**result, "level": logging.DEBUG}
        return result

    def spider_error(
        self, failure: Failure, request: Request, response: Response | Failure, spider: Spider
    ) -> LogFormatterResult:
        return self._quiet(super().spider_error(failure, request, response, spider), failure)

    def download_error(
        self, failure: Failure, request: Request, spider: Spider, errmsg: str | None = None
    ) -> LogFormatterResult:
        result = super().download_error(failure, request, spider, errmsg)
        return self._quiet(result, failure)

    def scraped(
        self, item: Any, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult:
        result = super().scraped(item, response, spider)
        result["args"] = {**dict(result["args"]), "item": item_summary(item)}  # type: ignore[call-overload]
        return result

    def dropped(
        self,
        item: Any,
        exception: BaseException,
        response: Response | Failure | None,
        spider: Spider,
    ) -> LogFormatterResult:
        result = super().dropped(item, exception, response, spider)
        result["args"] = {**dict(result["args"]), "item": item_summary(item)}  # type: ignore[call-overload]
        return result

    def item_error(
        self,
        item: Any,
        exception: BaseException,
        response: Response | Failure | None,
        spider: Spider,
    ) -> LogFormatterResult:
        result = super().item_error(item, exception, response, spider)
        result["args"] = {**dict(result["args"]), "item": item_summary(item)}  # type: ignore[call-overload]
        return result
