"""The archive's downloader middleware: every final response the spider parses, into WARC.

Writing happens in the archive writer (:mod:`harvest.archive.worker`: a thread of the crawl by
default, or a process of its own, ``HARVEST_ARCHIVE_WRITER``) with group commit: the responses
that arrive while a batch is being written form the next batch (encoded, written, one
``fsync``, indexed in one transaction), and each response goes on to its callback only once its
entry is indexed. The reactor never waits for the disk, nor spends its CPU on WARC encoding,
compression or digests: it only hands the exchange over.

Placed outermost but for the outcome middleware (``DOWNLOADER_MIDDLEWARES`` 30: below Retry 550,
Redirect 600 and page validation 580), it sees each request's *final* response (the last of a
redirect chain, an error page whose retries are spent) and the session warm-ups, which the
session middleware downloads through the same chain. A response is archived, fsync-ed and
indexed before its callback runs, so its parts are never stored without their page.

Settings (README, "Settings reference"): ``HARVEST_ARCHIVE`` (bool, default True),
``HARVEST_ARCHIVE_MAX_FILE_BYTES`` (int, default 256 MiB), ``HARVEST_ARCHIVE_WRITER`` (str,
``thread`` or ``process``, default ``thread``). Stats: ``harvest/archive/records``,
``harvest/archive/bytes``, ``harvest/archive/warmups``, ``harvest/archive/not_kept``.

A page that cannot be archived (a full disk) closes the crawl with ``harvest_archive_error``
(exit status 1, one ERROR line saying what to do): its callback never runs, so nothing of it is
recorded done, and its request, left in flight, is pending again for the next crawl.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.reactor import is_asyncio_reactor_installed

from harvest.archive import worker
from harvest.archive.store import (
    ARCHIVE_DIR,
    DEFAULT_MAX_FILE_BYTES,
    INDEX_DB,
    ArchiveError,
    ArchiveIndex,
    ArchiveWriter,
    Exchange,
    IndexEntry,
    new_run_name,
)
from harvest.base.close_reasons import ARCHIVE_ERROR
from harvest.base.meta import (
    META_BROWSER_PASS,
    META_CASE,
    META_COURT,
    META_CUT,
    META_EXPECT,
    META_IS_WARMUP,
    META_KEY,
    META_LABELS_MISSING,
    META_PAGE_ERROR,
    META_PAGE_ERROR_KIND,
    META_PARSE_CONTEXT,
    META_SHOWN_LABELS,
)
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import WORKSPACE_ENV, ensure_workspace, resolve_workspace
from harvest.errors import AnswerNotKept
from harvest.fatal import close_fatal

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings

__all__ = ["ArchiveMiddleware", "archive_enabled", "disk_full"]

logger = logging.getLogger(__name__)

#: ``HARVEST_ARCHIVE``: keep a WARC copy of every parsed page.
DEFAULT_ARCHIVE = True
#: ``HARVEST_ARCHIVE_WRITER``: where entries are encoded and written (``thread`` or ``process``).
DEFAULT_WRITER = "thread"
WRITERS = ("thread", "process")
STAT_PREFIX = "harvest/archive"


def archive_enabled(settings: BaseSettings) -> bool:
    try:
        return settings.getbool("HARVEST_ARCHIVE", DEFAULT_ARCHIVE)
    except ValueError as exc:
        raise SettingsError(
            f"HARVEST_ARCHIVE={settings.get('HARVEST_ARCHIVE')!r} is not a boolean; use "
            "True/False (or 1/0)"
        ) from exc


def archive_writer(settings: BaseSettings) -> str:
    """``HARVEST_ARCHIVE_WRITER``, checked: ``thread`` or ``process``."""
    value = str(settings.get("HARVEST_ARCHIVE_WRITER", DEFAULT_WRITER) or DEFAULT_WRITER)
    if value.strip().lower() not in WRITERS:
        raise SettingsError(f"HARVEST_ARCHIVE_WRITER={value!r} is neither 'thread' nor 'process'")
    return value.strip().lower()


def archive_root(settings: BaseSettings) -> Path:
    """``<HARVEST_WORKSPACE>/archive``."""
    return resolve_workspace(settings.get(WORKSPACE_ENV)) / ARCHIVE_DIR


class ArchiveMiddleware:
    """Write each final response (and warm-up) to the workspace's WARC archive."""

    def __init__(
        self, crawler: Crawler, root: Path, max_file_bytes: int, writer: str = DEFAULT_WRITER
    ) -> None:
        self.crawler = crawler
        self.root = root
        self.max_file_bytes = max_file_bytes
        self.writer = writer
        self._thread_writers: worker.Writers | None = None
        self.court = ""
        self.run = new_run_name()
        self._writers: dict[str, ArchiveWriter] = {}
        self._batcher: _Batcher | None = None
        self.pages = 0
        self.bytes = 0
        self.off = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not archive_enabled(settings):
            raise NotConfigured("HARVEST_ARCHIVE is off: pages are not archived")
        try:
            max_bytes = settings.getint("HARVEST_ARCHIVE_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES)
        except ValueError as exc:
            raise SettingsError(
                "HARVEST_ARCHIVE_MAX_FILE_BYTES="
                f"{settings.get('HARVEST_ARCHIVE_MAX_FILE_BYTES')!r} is not a whole number"
            ) from exc
        if max_bytes < 1:
            raise SettingsError(
                f"HARVEST_ARCHIVE_MAX_FILE_BYTES must be positive, not {max_bytes}"
            )
        mw = cls(crawler, archive_root(settings), max_bytes, archive_writer(settings))
        crawler.signals.connect(mw.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        return mw

    def spider_opened(self) -> None:
        spider = self.crawler.spider
        self.court = str(getattr(spider, "court_id", None) or getattr(spider, "name", "spider"))
        # a multi-court crawl: each page goes to its court's archive (meta["harvest_court"])

    def _software(self) -> str:
        return f"harvest ({self.crawler.settings.get('BOT_NAME', 'harvest')})"

    def _open_batcher(self) -> _Batcher:
        if self._batcher is None:
            ensure_workspace(self.root)
            if self.writer == "thread":
                writers = self._thread_writers = worker.Writers(
                    str(self.root), self.run, self.max_file_bytes, self._software()
                )
                self._batcher = _Batcher(
                    ThreadPoolExecutor(max_workers=1, thread_name_prefix="harvest-archive"),
                    writers.write_many,
                )
            else:
                self._batcher = _Batcher(
                    ProcessPoolExecutor(
                        max_workers=1,
                        mp_context=multiprocessing.get_context("spawn"),
                        initializer=worker.start,
                        initargs=(
                            str(self.root),
                            self.court,
                            self.run,
                            self.max_file_bytes,
                            self._software(),
                            os.getpid(),  # the writer exits when this process is gone
                        ),
                    ),
                    worker.write_many,
                )
            logger.info(
                "Archiving pages to %s/%s (run %s, writer %s)",
                self.root,
                self.court,
                self.run,
                self.writer,
            )
        return self._batcher

    def _open_writer(self, court: str) -> ArchiveWriter:
        writer = self._writers.get(court)
        if writer is None:
            first = next(iter(self._writers.values()), None)
            index = first.index if first is not None else ArchiveIndex.open(self.root / INDEX_DB)
            writer = self._writers[court] = ArchiveWriter(
                self.root,
                court,
                index,
                max_file_bytes=self.max_file_bytes,
                run=self.run,
                software=self._software(),
            )
        return writer

    def spider_closed(self) -> None:
        if self._batcher is not None:
            self._batcher.shutdown()
            self._batcher = None
        if self._thread_writers is not None:  # its thread has finished: closed here
            self._thread_writers.close()
            self._thread_writers = None
        if self._writers:
            writers = list(self._writers.values())
            for writer in writers:
                writer.close()
            writers[0].index.close()
            self._writers.clear()
        if self.pages:
            logger.info("Archived %d pages (%d bytes) in run %s", self.pages, self.bytes, self.run)

    async def process_response(  # type: ignore[override]
        self, request: Request, response: Response
    ) -> Response:
        meta = request.meta
        if meta.get(META_BROWSER_PASS) or self.off or "archived" in response.flags:
            return response  # ("archived": read back from the archive, harvest.archive.replay)
        court = meta.get(META_COURT)
        court = court if isinstance(court, str) and court else self.court
        key = meta.get(META_KEY)
        warmup = bool(meta.get(META_IS_WARMUP))
        if warmup:
            key = f"warmup|{court}|{response.url}"
        elif not isinstance(key, str):
            return response
        context: dict[str, Any] = {
            "court": court,
            "expect": meta.get(META_EXPECT),
            "case": meta.get(META_CASE),
            "labels_missing": bool(meta.get(META_LABELS_MISSING)),
            "shown_labels": list(meta.get(META_SHOWN_LABELS) or ()),
            "warmup": warmup,
            "parse": meta.get(META_PARSE_CONTEXT),
        }
        if meta.get(META_CUT):
            context["cut"] = meta[META_CUT]
        if meta.get(META_PAGE_ERROR):
            context["page_error"] = meta[META_PAGE_ERROR]
            context["page_error_kind"] = meta.get(META_PAGE_ERROR_KIND)
        exchange = Exchange(
            url=response.url,
            method=request.method,
            request_headers=_header_list(request.headers),
            request_body=request.body,
            status=response.status,
            protocol=response.protocol or "HTTP/1.1",
            response_headers=_header_list(response.headers),
            body=response.body,
            fetched_at=time.time(),
            context=context,
        )
        try:
            if is_asyncio_reactor_installed():
                entry = await self._open_batcher().write(court, key, exchange)
            else:  # another reactor: write in line (each page waits for its fsync)
                entry = self._open_writer(court).write(key, exchange)
        except (ArchiveError, OSError) as exc:
            raise self._not_kept(request, exc) from exc
        self.pages += 1
        self.bytes += entry.length
        stats = self.crawler.stats
        if stats is not None:
            stats.inc_value(f"{STAT_PREFIX}/records")
            stats.inc_value(f"{STAT_PREFIX}/bytes", entry.length)
            if warmup:
                stats.inc_value(f"{STAT_PREFIX}/warmups")
        return response

    def _not_kept(self, request: Request, exc: BaseException) -> AnswerNotKept:
        """The page of ``request`` could not be archived: the crawl closes (one ERROR line for
        the crawl, the detail at DEBUG), and the request is not an outcome (pending again)."""
        logger.debug("cannot archive %s", request.url, exc_info=exc)
        stats = self.crawler.stats
        if stats is not None:
            stats.inc_value(f"{STAT_PREFIX}/not_kept")
        if disk_full(exc):
            message = (
                f"the page archive {str(self.root)!r} is full ({_first_line(exc)}): free space "
                "on its disk and run the crawl again (nothing is lost); pages whose archive "
                "failed are fetched again"
            )
        else:
            message = (
                f"the page archive {str(self.root)!r} cannot be written ({_first_line(exc)}): "
                "fix it and run the crawl again (nothing is lost), or crawl with "
                "HARVEST_ARCHIVE=False"
            )
        close_fatal(self.crawler, ARCHIVE_ERROR, message, log=logger)
        return AnswerNotKept(request.url)


def disk_full(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what it was raised from) says the disk is full. The writer process's
    exceptions arrive pickled, their cause lost: their text is read too."""
    seen = 0
    while exc is not None and seen < 16:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(exc)
        if any(sign in text for sign in _FULL_SIGNS):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


#: How a full disk reads in an error's text (``strerror`` of ENOSPC/EDQUOT, SQLite's).
_FULL_SIGNS = ("No space left on device", "Disk quota exceeded", "database or disk is full")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class _Batcher:
    """Group commit in the archive writer: ``await write(key, exchange)`` returns the entry once
    it is on disk and indexed; exchanges submitted while a batch is written form the next."""

    def __init__(
        self,
        executor: Executor,
        write_many: Callable[[Sequence[tuple[str, str, Exchange]]], list[IndexEntry]],
    ) -> None:
        self._executor = executor
        self._write_many = write_many
        self._pending: list[tuple[str, str, Exchange, asyncio.Future[IndexEntry]]] = []
        self._busy = False

    async def write(self, court: str, key: str, exchange: Exchange) -> IndexEntry:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[IndexEntry] = loop.create_future()
        self._pending.append((court, key, exchange, future))
        if not self._busy:
            self._next(loop)
        return await future

    def _next(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._pending = self._pending, []
        try:
            work = loop.run_in_executor(
                self._executor, self._write_many, [(c, key, ex) for c, key, ex, _ in batch]
            )
        except (BrokenExecutor, RuntimeError) as exc:  # the writer died, or is shut down
            self._fail(batch, exc)
            return
        self._busy = True
        work.add_done_callback(lambda done: self._finished(loop, batch, done))

    @staticmethod
    def _fail(
        batch: list[tuple[str, str, Exchange, asyncio.Future[IndexEntry]]], exc: BaseException
    ) -> None:
        if isinstance(exc, BrokenExecutor):
            exc = ArchiveError(
                f"the archive writer died ({exc}); pages cannot be archived: see the "
                "log above, or crawl with HARVEST_ARCHIVE=False"
            )
        for _, _, _, future in batch:
            if not future.done():
                future.set_exception(exc)

    def _finished(
        self,
        loop: asyncio.AbstractEventLoop,
        batch: list[tuple[str, str, Exchange, asyncio.Future[IndexEntry]]],
        done: asyncio.Future[list[IndexEntry]],
    ) -> None:
        self._busy = False
        exc = done.exception()
        if exc is not None:
            self._fail(batch, exc)
        else:
            for (_, _, _, future), entry in zip(batch, done.result(), strict=True):
                if not future.done():
                    future.set_result(entry)
        if self._pending:
            self._next(loop)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)


def _header_list(headers: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name in headers:
        for value in headers.getlist(name):
            out.append((_text(name), _text(value)))
    return out


def _text(value: bytes | str) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value
