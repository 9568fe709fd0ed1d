"""A fatal close is said once (harvest/fatal.py), its reasons are spelt once
(harvest/base/close_reasons.py), and a full archive is recognised through the
writer process's pickled errors (harvest/archive/middleware.py), without a crawl."""

from __future__ import annotations

import errno
import logging

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler

from harvest.archive.middleware import disk_full
from harvest.archive.store import ArchiveError
from harvest.base.close_reasons import (
    ARCHIVE_ERROR,
    BAD_LISTING,
    FATAL_ADVICE,
    FATAL_CLOSE_REASONS,
    FINISHED,
    KILLED,
    PAUSED,
    SHUTDOWN,
)
from harvest.fatal import close_fatal, fatal_reason


def test_the_first_fatal_failure_is_the_error_line_and_the_rest_are_debug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    crawler = get_crawler(Spider)
    assert crawler.stats is not None
    assert fatal_reason(crawler) is None
    with caplog.at_level(logging.DEBUG, logger="harvest.fatal"):
        first = close_fatal(crawler, "harvest_state_error", "cannot record row 1: locked")
        second = close_fatal(crawler, "item_store_error", "cannot store part 'case': gone")
    assert (first, second) == (True, False)
    assert fatal_reason(crawler) == "harvest_state_error"
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ERROR", "cannot record row 1: locked; closing the spider (harvest_state_error)"),
        (
            "DEBUG",
            "cannot store part 'case': gone (the crawl is already closing: harvest_state_error)",
        ),
    ]
    assert crawler.stats.get_value("harvest/fatal/harvest_state_error") == 1
    assert crawler.stats.get_value("harvest/fatal/item_store_error") == 1
    assert fatal_reason(get_crawler(Spider)) is None  # per crawl


def test_a_full_disk_is_recognised_by_errno_or_by_the_text_of_a_pickled_error() -> None:
    assert disk_full(OSError(errno.ENOSPC, "No space left on device"))
    # the writer process's ArchiveError arrives without its cause: its text says it
    assert disk_full(
        ArchiveError("cannot write the archive under '/ws/archive': No space left on device")
    )
    assert disk_full(ArchiveError("archive index '/ws/archive/index.sqlite': cannot index: "
                                  "database or disk is full"))  # fmt: skip
    assert not disk_full(ArchiveError("archive index '/ws/archive/index.sqlite': corrupt"))
    assert not disk_full(OSError(errno.EACCES, "Permission denied"))


def test_a_failed_archive_is_a_fatal_close_reason() -> None:
    assert ARCHIVE_ERROR == "harvest_archive_error"
    assert ARCHIVE_ERROR in FATAL_CLOSE_REASONS


def test_the_close_reasons_are_the_values_the_runs_table_and_the_docs_show() -> None:
    assert (FINISHED, SHUTDOWN, PAUSED, KILLED, BAD_LISTING) == (
        "finished",
        "shutdown",
        "paused",
        "killed",
        "harvest_bad_listing",
    )
    assert sorted(FATAL_CLOSE_REASONS) == [
        "harvest_archive_error",
        "harvest_bad_listing",
        "harvest_state_error",
        "harvest_tls_error",
        "harvest_unserializable_request",
        "item_store_error",
    ]
    # every fatal close of a store says what to do; a bad -a listing says it itself
    assert sorted(FATAL_ADVICE) == sorted(FATAL_CLOSE_REASONS - {BAD_LISTING})
