"""``scrapy reparse``: rebuild the item store from the page archive with today's parsers.

For each indexed key (a case's detail page, a tab fragment), the archived page is read back (its
digest checked), judged like the crawl judges a page (:func:`harvest.sipp.page_error`), parsed by
:mod:`harvest.parts` exactly as the spider parses it, and its parts are upserted into
``items.sqlite`` through :class:`pipelines.store.ItemStore` as the dedupe pipeline does. No
network. A page that no longer parses, an archived error page or an unreadable entry is listed
with its reason and its stored parts are left as they are.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy.http import HtmlResponse

from harvest.archive.store import (
    ARCHIVE_DIR,
    INDEX_DB,
    ArchiveError,
    ArchiveIndex,
    CorruptRecord,
    IndexEntry,
    read_entry,
)
from harvest.base.clock import utc_now
from harvest.base.holder_lock import HolderLock, LockHeld
from harvest.base.items import CasePart
from harvest.base.workspace import ITEMS_DB
from harvest.parts import parts_of_page
from harvest.sipp import page_error
from harvest.sipp.error_pages import TRUNCATED
from pipelines.item_backends import open_item_store
from pipelines.store import InvalidPart, ItemStore, ItemStoreError, UpsertResult, validate_part

__all__ = ["KINDS", "CourtBeingCrawled", "Failure", "ReparseReport", "reparse"]

logger = logging.getLogger(__name__)

#: The kinds of page that yield parts.
KINDS = ("case", "tab")
_EXPECT = {"case": "detail", "tab": "tab"}

#: ``progress(done, total, elapsed_seconds)``.
Progress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class Failure:
    key: str
    url: str
    reason: str


@dataclass
class ReparseReport:
    pages: int = 0
    created: int = 0
    unchanged: int = 0
    updated: int = 0
    stale: int = 0  # never with replay=True; kept so that every UpsertResult has a counter
    failed: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "created": self.created,
            "unchanged": self.unchanged,
            "updated": self.updated,
            "failed": [f.__dict__ for f in self.failed],
            "seconds": round(self.seconds, 3),
            "dry_run": self.dry_run,
        }


class PageFailed(Exception):
    """This page yields no parts today; the message is the reason."""


def pages_to_reparse(
    index: ArchiveIndex, *, court: str | None, kind: str | None, tab: str | None
) -> list[IndexEntry]:
    kinds = ["tab"] if tab is not None else ([kind] if kind else list(KINDS))
    return index.entries(court=court, kinds=kinds, tab=tab)


def parts_of_entry(root: Path, entry: IndexEntry) -> list[CasePart]:
    """The parts today's parsers make of an archived page; :class:`PageFailed` says why none."""
    try:
        page = read_entry(root, entry)
    except CorruptRecord as exc:
        raise PageFailed(f"unreadable archive entry: {exc}") from exc
    context = page.context
    if context.get("page_error"):
        raise PageFailed(f"the archived page is an error page ({context['page_error']})")
    if not 200 <= page.status < 300:
        raise PageFailed(f"the archived response is HTTP {page.status}")
    parse_context = context.get("parse")
    if not isinstance(parse_context, dict):
        raise PageFailed("the archive entry has no parse context (archived by an older harvest)")
    response = HtmlResponse(
        entry.url,
        status=page.status,
        # decoded as the crawl decoded it: the declared charset, else the page's own
        headers={k: v for k, v in page.headers if k.lower() == "content-type"},
        body=page.body,
    )
    html = response.text
    reason = page_error(
        html,
        expect=_EXPECT[entry.kind],
        case_number=context.get("case"),
        party_labels_missing=bool(context.get("labels_missing")),
        shown_labels=tuple(context.get("shown_labels") or ()),
    )
    if reason == TRUNCATED and context.get("cut"):
        reason = None  # the app's cut, kept as data when crawled (harvest/sipp/cut.py)
    if reason is not None:
        raise PageFailed(f"not a good {_EXPECT[entry.kind]} page today: {reason}")
    try:
        return parts_of_page(
            entry.kind, entry.court, parse_context, html, entry.url, entry.fetched_at
        )
    except Exception as exc:  # any parser failure is this page's failure, listed with its reason
        raise PageFailed(f"parse failed: {type(exc).__name__}: {exc}") from exc


class CourtBeingCrawled(ArchiveError):
    """A live crawl of the court holds its crawl lock: the reparse would race it."""


#: The crawl lock of a court (docs/scheduler.md, "One crawl per court and workspace").
_LOCK_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def _lock_courts(workspace: Path, courts: list[str]) -> list[Callable[[], None]]:
    """Take the crawl lock of every court to reparse, so that no crawl of it runs meanwhile (a
    crawl could store a newer page's parts that the reparse of an older one then overwrites)."""
    held: list[HolderLock] = []
    holder = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started_at": utc_now(),
        "job": "scrapy reparse",
    }
    try:
        for court in courts:
            lock = HolderLock(workspace / f"crawl-{_LOCK_SAFE_NAME.sub('_', court)}.lock")
            try:
                lock.acquire({**holder, "court": court})
            except LockHeld as exc:
                who = ", ".join(f"{k} {v}" for k, v in exc.holder.items() if v not in (None, ""))
                raise CourtBeingCrawled(
                    f"court {court!r} is being crawled on this workspace ({who}); reparse it "
                    "once that crawl ends, or leave it out with --court"
                ) from None
            held.append(lock)
    except BaseException:
        for lock in held:
            lock.release()
        raise
    return [lock.release for lock in held]


def _lease_courts(database_url: str, courts: list[str]) -> list[Callable[[], None]]:
    """On PostgreSQL the crawl lock is the court's lease in the request state (any machine):
    take it for every court to reparse (one store each, its heartbeat keeping the lease)."""
    from extensions.pg_store import PostgresRequestStore
    from extensions.store import CrawlLocked, RunInfo, StateError

    stores: list[PostgresRequestStore] = []
    try:
        for court in courts:
            store = PostgresRequestStore.open(database_url)
            stores.append(store)
            run = RunInfo(court, "reparse", os.getpid(), socket.gethostname(), None, utc_now())
            try:
                store.acquire_crawl_lock(run)
            except CrawlLocked as exc:
                raise CourtBeingCrawled(
                    f"court {court!r} is being crawled ({exc}); reparse it once that crawl "
                    "ends, or leave it out with --court"
                ) from None
    except StateError as exc:
        for store in stores:
            store.close()
        raise ArchiveError(f"cannot take the courts' crawl leases: {exc}") from None
    except BaseException:
        for store in stores:
            store.close()
        raise
    return [store.close for store in stores]


def reparse(
    workspace: Path,
    *,
    court: str | None = None,
    kind: str | None = None,
    tab: str | None = None,
    dry_run: bool = False,
    keys: Collection[str] | None = None,
    take_crawl_lock: bool = True,
    progress: Progress | None = None,
    progress_every: float = 5.0,
    database_url: str | None = None,
) -> ReparseReport:
    """Re-parse the archived pages of ``workspace`` into its item store (see the module doc).

    ``dry_run`` counts what would be created / updated / unchanged without writing. ``keys``
    keeps only these request keys (``case|...``, ``tab|...``; e.g. the requests a store check
    found done without their parts). ``take_crawl_lock=False`` is for a caller that holds the
    court's crawl lock itself (the crawl, at its start); otherwise the reparse takes it.
    Raises :class:`harvest.archive.store.ArchiveError` without an archive index, and
    :class:`pipelines.store.ItemStoreError` when the item store fails. ``database_url``
    (``HARVEST_DATABASE_URL``): the item store is that PostgreSQL database's.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
    root = workspace / ARCHIVE_DIR
    started = time.monotonic()
    report = ReparseReport(dry_run=dry_run)
    with ArchiveIndex.open(root / INDEX_DB, readonly=True) as index:
        entries = pages_to_reparse(index, court=court, kind=kind, tab=tab)
    if keys is not None:
        wanted = set(keys)
        entries = [e for e in entries if e.key in wanted]
    store_path = workspace / ITEMS_DB
    store: ItemStore | None = None
    locks: list[Callable[[], None]] = []  # what releases each court's crawl lock
    last = started
    try:
        if not dry_run:
            if take_crawl_lock:
                courts = sorted({e.court for e in entries})
                locks = (
                    _lease_courts(database_url, courts)
                    if database_url
                    else _lock_courts(workspace, courts)
                )
            store = open_item_store(workspace, database_url=database_url)
        elif database_url or store_path.exists():
            store = _existing_store(workspace, database_url)
        for done, entry in enumerate(entries, 1):
            report.pages += 1
            try:
                parts = parts_of_entry(root, entry)
                results = [_store(store, part, dry_run=dry_run) for part in parts]
            except PageFailed as exc:
                report.failed.append(Failure(entry.key, entry.url, str(exc)))
                logger.warning("reparse: %s (%s): %s", entry.key, entry.url, exc)
                results = []
            for result in results:
                setattr(report, result.value, getattr(report, result.value) + 1)
            now = time.monotonic()
            if progress is not None and (now - last >= progress_every or done == len(entries)):
                progress(done, len(entries), now - started)
                last = now
    finally:
        if store is not None:
            store.close()
        for release in locks:
            release()
    report.seconds = time.monotonic() - started
    return report


def _existing_store(workspace: Path, database_url: str | None) -> ItemStore | None:
    """The item store read-only, or ``None`` when nothing was harvested into it yet."""
    try:
        return open_item_store(workspace, database_url=database_url, readonly=True)
    except ItemStoreError:
        if database_url:
            return None  # no item tables in the database yet: every part would be created
        raise


def _store(store: ItemStore | None, part: CasePart, *, dry_run: bool) -> UpsertResult:
    try:
        if not dry_run:
            assert store is not None
            return store.upsert_part(
                court=part.court,
                case_number=part.nomor_perkara,
                part=part.part,
                data=part.data,
                url=part.url,
                fetched_at=part.fetched_at,
                replay=True,
            )
        valid = validate_part(
            court=part.court, case_number=part.nomor_perkara, part=part.part, data=part.data
        )
        old = store.get_part(valid.dedupe_key, valid.part) if store is not None else None
    except InvalidPart as exc:
        raise PageFailed(f"bad part ({exc.reason}): {exc}") from exc
    if old is None:
        return UpsertResult.CREATED
    return UpsertResult.UNCHANGED if old.part_hash == valid.part_hash else UpsertResult.UPDATED


def format_progress(done: int, total: int, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = (total - done) / rate if rate > 0 else 0.0
    return (
        f"reparse: {done}/{total} pages ({100 * done / max(total, 1):.0f}%), "
        f"{rate:.0f} pages/s, ETA {eta:.0f}s"
    )
