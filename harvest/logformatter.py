"""Log lines of expected site errors: one line each, from the scheduler; tracebacks for bugs only.

A request that fails for a reason the site causes (an error page served with 200, a 5xx, a
timeout, a refused connection: :class:`harvest.errors.PageError` and Scrapy's
``RETRY_EXCEPTIONS``) is logged once, as one WARNING line with its reason, URL and attempt, by
:class:`extensions.scheduler.HarvestScheduler` when it records the error. Scrapy's own lines for
it (``Error downloading ...`` and ``Spider error processing ...`` with a 60-line traceback,
``Gave up retrying ...``: ``RETRY_GIVE_UP_LOG_LEVEL = "DEBUG"`` in harvest/settings.py) move to
DEBUG. Any other exception (a bug) keeps Scrapy's ERROR line and traceback.

``LOG_FORMATTER = "harvest.logformatter.HarvestLogFormatter"``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

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

__all__ = ["HarvestLogFormatter"]


class HarvestLogFormatter(LogFormatter):
    """Scrapy's log formatter with expected site errors at DEBUG (module docstring)."""

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
