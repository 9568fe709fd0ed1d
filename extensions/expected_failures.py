"""Expected failures are one line; their tracebacks are DEBUG detail (issue 24).

A refused start (an unusable workspace, a bad setting, a locked court, a damaged or unreachable
state), a full disk, a database outage: the crawl already logs one line saying what happened and
what to do (the crawl command's "cannot start" line, the scheduler's and pipeline's ERROR lines,
"the crawl stopped early ..."). Scrapy and the components also log the same failure again with
its traceback, once per place it passes through (the scraper that was never opened, CoreStats
closing a spider that never opened, each item's "Error processing", each failed write...): up
to 140 tracebacks for one cause.

:func:`install` sets a log record factory that makes every record carrying an exception whose
chain (``__cause__``/``__context__``) holds an expected failure a DEBUG record: with the
default ``LOG_LEVEL`` it is not shown, with ``-s LOG_LEVEL=DEBUG`` it is, level DEBUG. Records
without an exception, and tracebacks of anything else (bugs), are left alone.

:class:`CoreStats` replaces Scrapy's (``EXTENSIONS``): Scrapy's asserts, with a traceback, when
a spider that never opened (a refused start) is closed.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from typing import Any

from scrapy import Spider
from scrapy.extensions.corestats import CoreStats as ScrapyCoreStats

from harvest.base.settings_error import SettingsError
from harvest.base.workspace import WorkspaceError

from .store import StateError

__all__ = ["EXPECTED", "CoreStats", "install", "is_expected"]

#: Exception types whose message is the whole story (each says what to do).
EXPECTED: tuple[type[BaseException], ...] = (WorkspaceError, SettingsError, StateError)
#: ``OSError`` numbers of a full disk or quota.
_FULL = (errno.ENOSPC, errno.EDQUOT)
#: How deep the cause/context chain is followed.
_DEPTH = 16

_installed = False


def _expected_types() -> tuple[type[BaseException], ...]:
    from harvest.archive.store import ArchiveError
    from pipelines.store import ItemStoreError

    return (*EXPECTED, ItemStoreError, ArchiveError)


def is_expected(exc: BaseException | None) -> bool:
    """Whether ``exc`` or an exception it was raised from / while handling is expected."""
    types = _expected_types()
    seen = 0
    while exc is not None and seen < _DEPTH:
        if isinstance(exc, types):
            return True
        if isinstance(exc, OSError) and exc.errno in _FULL:
            return True
        if isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def install() -> None:
    """Make the tracebacks of expected failures DEBUG records (idempotent, process-wide)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        info = record.exc_info
        if record.levelno > logging.DEBUG and info and is_expected(info[1]):
            record.levelno = logging.DEBUG
            record.levelname = logging.getLevelName(logging.DEBUG)
        return record

    logging.setLogRecordFactory(factory)


class CoreStats(ScrapyCoreStats):
    """Scrapy's core stats, closing quietly a spider that never opened (a refused start)."""

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.start_time is None:  # never opened: no elapsed time, nothing to assert
            self.stats.set_value("finish_reason", reason)
            return
        super().spider_closed(spider, reason)
