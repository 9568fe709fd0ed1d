"""The resumable scheduler: Scrapy's scheduler contract over a durable :class:`RequestStore`.

``SCHEDULER = "extensions.scheduler.HarvestScheduler"``. Every request is a row of the store
(``<workspace>/state.sqlite``), deduplicated on ``meta["harvest_key"]`` (fallback: Scrapy's request
fingerprint), so the dedupe set lives on disk and memory stays flat in the number of requests.

* ``enqueue_request``: a new key becomes a ``pending`` row (committed); a known key is a duplicate
  (``False``, the engine sends ``request_dropped``), even with ``dont_filter=True``, because
  ``start()`` re-yields its seeds on every run. A retry or redirect of a row in flight carries
  the row id in ``meta["harvest_rid"]`` and belongs to that row, never a new row: a retry is a
  transition (``inflight -> pending``); a redirect hop is no transition at all (the row stays
  ``inflight`` while its target is sent from memory; a crash restarts it from the original).
* ``next_request``: the ``pending`` row of this court with the highest priority (then oldest) whose
  ``harvest_group`` has nothing in flight becomes ``inflight``. A group stays reserved across a
  retry or redirect of its row.
* The case cap: a group (a case) is *open* from the dispatch of its first row until none of its
  rows is pending or in flight. A court works on at most its concurrency +
  ``HARVEST_CASE_LOOKAHEAD`` open groups; at the cap only rows of open groups are dispatched
  (no new case, no list page), so cases finish one after another instead of all starting at
  once. Open groups are stored: a resumed crawl finishes them before starting new ones.
* Outcomes are reported by the middlewares of :mod:`extensions.outcome` and
  :mod:`extensions.urllog` through :meth:`HarvestScheduler.fail`, :meth:`note_response` and the
  ``output_*`` methods: a row becomes ``ok`` only after its callback's output is exhausted,
  every request it yielded is a committed row, and every item it yielded has passed the item
  pipelines.
* ``open``: takes the court's crawl lock (a second live crawl of the court refuses, naming the
  holder), records the run, and puts the court's ``inflight`` rows back to ``pending``.
  ``close`` puts rows still in flight back to ``pending`` and records the close reason; nothing
  depends on it running (a killed crawl is recovered by the next ``open``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import socket
import sqlite3
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import Request, signals
from scrapy.core.scheduler import BaseScheduler, Scheduler
from scrapy.http import Response
from scrapy.utils.asyncio import call_later
from scrapy.utils.misc import load_object
from scrapy.utils.spider import DefaultSpider
from twisted.python.failure import Failure

from harvest.base.clock import utc_now
from harvest.base.close_reasons import STATE_ERROR, UNSERIALIZABLE_REQUEST
from harvest.base.meta import META_GROUP, META_KEY, META_PARENT, META_REFRESH_GENERATION, META_RID
from harvest.base.scrubbing import strip_userinfo
from harvest.base.workspace import ITEMS_DB, resolve_workspace
from harvest.fatal import close_fatal, fatal_reason

from .config import SchedulerConfig
from .reasons import reason_for_exception, scrub
from .serialization import UnserializableRequest, dumps_request, loads_request
from .stop_bound import engine_closing, stop_timeout
from .store import (
    REQUEST_FORMAT,
    Claimed,
    Generation,
    NewRequest,
    PageWarning,
    RequestStore,
    RunInfo,
    StateError,
    Status,
    kind_and_court,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from scrapy.statscollectors import StatsCollector

__all__ = ["HarvestScheduler", "court_of", "harvests_a_court"]

logger = logging.getLogger(__name__)

STAT = "harvest/scheduler/"
#: Requests kept in memory between enqueue and dispatch (bounded: memory stays flat).
RECENT_CACHE = 4096
_REDIRECT_META = ("redirect_urls", "redirect_times", "redirect_ttl", "redirect_reasons")
ORPHAN_REASON = (
    "no outcome recorded: the download ended without a final response or exception reaching "
    "extensions.outcome (see the crawl log for an error raised by a downloader middleware)"
)


def harvests_a_court(crawler: Crawler) -> bool:
    """Whether the crawl is a harvest (its spider names a ``court_id``): only then is the state
    opened. Scrapy's ``shell``, ``fetch`` and ``view`` run a spider without one."""
    spider = crawler.spider
    if spider is None:  # scrapy shell builds the engine before its spider
        return crawler.spidercls is not DefaultSpider
    return bool(getattr(spider, "court_id", None))


def court_of(spider: Spider) -> str:
    """The crawl's court: ``spider.court_id``, else the spider's name."""
    return str(getattr(spider, "court_id", None) or spider.name)


@dataclasses.dataclass
class _Flight:
    """A row in flight in this process, and what its outcome still waits for."""

    group: str | None
    retries: int
    blob: bytes  # the row's stored (original) request
    attempt: int = 0  # dispatches of the row so far (this one included)
    request_url: str = ""
    http_status: int | None = None
    url: str | None = None  # where redirects led (recorded with the outcome)
    started: bool = False  # callback output began
    exhausted: bool = False  # callback output fully consumed
    outstanding: int = 0  # yielded requests not yet committed + items not yet through pipelines
    item_error: str | None = None
    warnings: tuple[PageWarning, ...] = ()  # the page's parse warnings, stored with its ok


def watch_closing(store: RequestStore, crawler: Crawler | None) -> None:
    """Let ``store`` give its crawl locks up once the engine's close overruns
    ``HARVEST_STOP_TIMEOUT`` (:meth:`extensions.store.RequestStore.watch_closing`)."""
    if crawler is not None:
        store.watch_closing(engine_closing(crawler), stop_timeout(crawler.settings))


class HarvestScheduler(BaseScheduler):
    """Scrapy scheduler over durable request state (see the module docstring)."""

    def __init__(
        self,
        *,
        config: SchedulerConfig,
        stats: StatsCollector | None,
        fingerprint: Callable[[Request], bytes],
        crawler: Crawler | None = None,
        items_path: Path | None = None,
    ) -> None:
        #: False in a lane of a multi-court crawl: the store is the crawl's, shared by lanes
        self._owns_store = True
        #: False in a lane: the multi-court scheduler receives the item signals and routes them
        self.config = config
        #: the item store the crawl writes to: cross-checked on open (None: no check)
        self.items_path = items_path
        self.stats = stats
        self._fingerprint = fingerprint
        self.crawler = crawler
        self._store: RequestStore | None = None
        self.spider: Spider | None = None
        self._signals = True
        self.court = ""
        self.run_id = 0
        self._inflight: dict[int, _Flight] = {}
        self._busy: dict[str, int] = {}  # group -> row id holding it
        # pending rows sent back by a retry in this run: the request to send next and the group
        # they keep reserved
        self._held: dict[int, tuple[str | None, Request]] = {}
        # rows in flight whose redirect target waits to be sent (first in, first out)
        self._redirected: dict[int, Request] = {}
        # requests enqueued in this run and not yet dispatched, newest RECENT_CACHE kept: a
        # dispatch then skips unpickling (the stored row is the same request)
        self._recent: dict[int, Request] = {}
        # the case cap (None: no cap) and the open groups, oldest first
        self._cap: int | None = None
        self._open: dict[str, None] = {}
        self._inflight_left: set[int] = set()  # rows left in flight at a fatal close
        self._fatal = False
        #: the request state itself failed (a lock, an outage): nothing more is written to it
        self._state_broken = False
        #: the court's generation this crawl works in (docs/refresh.md)
        self.generation: Generation | None = None
        #: told each outcome ``(row id, ok, reason)`` once stored (a worker's court pauses,
        #: extensions/multi.py)
        self.on_outcome: Callable[[int, bool, str | None], None] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not harvests_a_court(crawler):
            # scrapy shell / fetch / view run Scrapy's DefaultSpider: they never touch the
            # harvest state (no court "default", no run, no lock); Scrapy's scheduler serves them
            return Scheduler.from_crawler(crawler)  # type: ignore[return-value]
        if cls is HarvestScheduler and getattr(crawler.spider, "courts", None):
            # several courts in one crawl (-a courts=...): one lane a court (docs/multi-court.md)
            from .multi import MultiCourtScheduler

            return MultiCourtScheduler.from_crawler(crawler)  # type: ignore[return-value]
        config = SchedulerConfig.from_settings(crawler.settings)
        items = None
        if _stores_parts(crawler.settings):
            items = resolve_workspace(config.workspace) / ITEMS_DB
        return cls(
            config=config,
            stats=crawler.stats,
            fingerprint=crawler.request_fingerprinter.fingerprint,
            crawler=crawler,
            items_path=items,
        )

    def _rebuild_from_archive(self, spider: Spider, store: RequestStore) -> None:
        """Ok requests without their parts are rebuilt from the page archive first, by the
        spider's ``rebuild_from_archive(court)`` (the scheduler never imports the parsers);
        only what the archive lacks is then sent back to pending by the check."""
        rebuild = getattr(spider, "rebuild_from_archive", None)
        if self.items_path is None or not callable(rebuild):
            return
        if not store.check_parts(self.items_path, court=self.court).missing:
            return
        rebuilt = int(rebuild(self.court))
        if rebuilt:
            self._inc("parts_rebuilt", rebuilt)

    @property
    def store(self) -> RequestStore:
        if self._store is None:
            raise RuntimeError("HarvestScheduler used before open() or after close()")
        return self._store

    # --- engine contract ------------------------------------------------------------------------

    def open(self, spider: Spider) -> None:
        self.open_court(
            spider, court_of(spider), urlsplit(str(getattr(spider, "base_url", ""))).hostname
        )

    def open_court(
        self,
        spider: Spider,
        court: str,
        slot: str | None,
        *,
        store: RequestStore | None = None,
    ) -> None:
        """Open the crawl of ``court``: its lock, run, generation and open cases.

        ``slot``: the court's download slot (its ``DOWNLOAD_SLOTS`` key, for the case cap).
        ``store``: a store shared by the lanes of a multi-court crawl (not closed here; only
        the court's lock is released at :meth:`close`); ``None``: open the configured one.
        """
        self.spider = spider
        self.court = court
        if store is None:
            store = self.config.open_store(defer_commit=self._commit_at_end_of_turn)
            watch_closing(store, self.crawler)
        else:
            self._owns_store = False
            self._signals = False
        job = getattr(spider, "_job", None)
        run = RunInfo(
            court=self.court,
            spider=spider.name,
            pid=os.getpid(),
            host=socket.gethostname(),
            job=str(job) if job else None,
            started_at=utc_now(),
        )
        try:
            store.acquire_crawl_lock(run)
            self.run_id, killed = store.start_run(run)
            released = store.release_inflight(
                self.court, self.run_id, why="in flight when a previous run ended"
            )
            rebuild = getattr(spider, "rebuild_older_parts", None)
            if self.items_path is not None and callable(rebuild):
                # an upgrade: parts of an older item format re-parsed from the archive (no
                # request); the check below sends back what is still of an older format
                rebuild(self.court)
            if self.items_path is not None:
                self._rebuild_from_archive(spider, store)
            check = (
                store.check_parts(self.items_path, court=self.court, reset_run=self.run_id)
                if self.items_path is not None
                else None
            )
            generation = store.begin_generation(
                self.court,
                policy=str(getattr(spider, "refresh_policy", None) or "none"),
                today=str(getattr(spider, "refresh_today", None) or utc_now()[:10]),
                run_id=self.run_id,
            )
            pending = store.count(court=self.court, status=Status.PENDING)
            # groups started before this run, finished first (a done one is forgotten now)
            opened = [
                g
                for g in store.open_groups(self.court)
                if not store.close_group_if_done(self.court, g)
            ]
        except BaseException:
            if self._owns_store:
                store.close()
            else:
                store.release_crawl_lock(self.court)
            raise
        self._store = store
        self.generation = generation
        self._open = dict.fromkeys(opened)
        self._cap = self.config.case_cap(slot)
        if opened:
            logger.info(
                "%d cases started before are finished first (case cap %s)",
                len(opened),
                self._cap if self._cap is not None else "off",
            )
        for dead in killed:
            logger.warning(
                "run %d of court %s ended without closing (killed or crashed); taking over",
                dead,
                self.court,
            )
        if released:
            logger.info("%d requests in flight at the last stop are pending again", released)
            self._inc("released", released)
        if check is not None and check.missing:
            logger.warning(
                "%d requests of %s were ok but their parts are missing from the item store %s "
                "(%s): sent back to pending, to be fetched again (e.g. %s)",
                check.missing,
                self.court,
                self.items_path,
                check.items,
                ", ".join(f"{key} -> {part}" for key, part in check.sample[:3]),
            )
            self._inc("parts_missing", check.missing)
        logger.info(
            "%s crawl of %s (%d requests scheduled), run %d, state %s",
            "Resuming" if pending else "Starting",
            self.court,
            pending,
            self.run_id,
            store.path,
            extra={"spider": spider},
        )
        self._log_generation(spider, generation, pending)
        hook = getattr(spider, "on_generation", None)
        if callable(hook):
            # the spider plans its walk from the generation and the rows (harvest/refresh)
            hook(generation, store)
        if self.crawler is not None and self._signals:
            self.crawler.signals.connect(self._item_scraped, signal=signals.item_scraped)
            self.crawler.signals.connect(self._item_dropped, signal=signals.item_dropped)
            self.crawler.signals.connect(self._item_error, signal=signals.item_error)

    def _log_generation(self, spider: Spider, generation: Generation, pending: int) -> None:
        asked = str(getattr(spider, "refresh_policy", None) or "none")
        if generation.started_now:
            if generation.number:
                logger.info(
                    "refresh of %s: generation %d started (policy %s, today %s)",
                    self.court,
                    generation.number,
                    generation.policy,
                    generation.today,
                )
            self._inc("generation_started")
        elif not generation.finished:
            logger.info(
                "resuming generation %d of %s (policy %s, today %s)%s",
                generation.number,
                self.court,
                generation.policy,
                generation.today,
                f"; -a refresh={asked} applies once it is finished"
                if asked not in ("none", generation.policy)
                else "",
            )
        elif not pending:
            logger.info(
                "court %s is up to date as of generation %d (policy %s, today %s, finished "
                "%s): nothing to do. To bring it up to date, crawl again with -a refresh=due "
                "(new, changed and due cases) or -a refresh=all (every case)",
                self.court,
                generation.number,
                generation.policy,
                generation.today,
                generation.finished_at,
            )

    def _commit_at_end_of_turn(self, commit: Callable[[], None]) -> None:
        """Group commit: the store's ``commit`` runs once the reactor has run what is ready now
        (``HARVEST_STATE_COMMIT = "turn"``)."""
        call_later(0, self._commit, commit)

    def _commit(self, commit: Callable[[], None]) -> None:
        if self._store is None:
            return  # closed meanwhile: close() committed
        try:
            commit()
        except (StateError, sqlite3.Error) as exc:
            self._die(STATE_ERROR, f"cannot commit the request state: {exc}")

    def close(self, reason: str) -> None:
        if self._store is None:
            return
        store, self._store = self._store, None
        if self._state_broken:
            self._close_broken(store)
            return
        try:
            left = [*self._inflight, *self._inflight_left]
            if left:
                n = store.release_inflight(
                    self.court, self.run_id, ids=left, why=f"run closed ({reason}) in flight"
                )
                logger.info("%d requests still in flight at close are pending again", n)
            generation = self.generation
            if (
                generation is not None
                and not generation.finished
                and store.finish_generation_if_done(self.court, generation.number)
            ):
                logger.info(
                    "generation %d of %s is finished (policy %s)",
                    generation.number,
                    self.court,
                    generation.policy,
                )
            store.end_run(self.run_id, reason)
        except StateError as exc:
            # a failed commit (full disk): the next run takes over exactly as after a kill
            logger.error("run %d not closed in the request state: %s", self.run_id, exc)
        finally:
            if self._owns_store:
                store.close()
            else:
                try:  # the court's last transitions are durable before another crawl may take it
                    store.commit()
                except StateError as exc:
                    logger.error("run %d: last changes not committed: %s", self.run_id, exc)
                store.release_crawl_lock(self.court)
            self._forget_all()

    def _close_broken(self, store: RequestStore) -> None:
        """Close a request state that failed (locked, unreachable): nothing more is written to
        it; the next run finds this run's rows in flight and sends them again, as after a kill."""
        try:
            if self._owns_store:
                store.close()
            else:
                store.release_crawl_lock(self.court)
        except (StateError, sqlite3.Error) as exc:
            logger.debug("run %d: the failed request state closed with: %s", self.run_id, exc)
        finally:
            self._forget_all()

    def _forget_all(self) -> None:
        self._inflight.clear()
        self._inflight_left.clear()
        self._busy.clear()
        self._held.clear()
        self._redirected.clear()
        self._recent.clear()
        self._open.clear()

    def has_pending_requests(self) -> bool:
        if self._fatal:
            return False  # closing: nothing more is claimed
        if self._redirected:
            return True
        if self._inflight and self._engine_idle():
            self._fail_orphans()
        try:
            return self.store.has_pending(self.court)
        except (StateError, sqlite3.Error) as exc:
            self._die(STATE_ERROR, f"cannot read the request state: {exc}")
            return False

    def _engine_idle(self) -> bool:
        engine = self.crawler.engine if self.crawler is not None else None
        if engine is None:
            return False
        slot = engine.scraper.slot
        return not engine.downloader.active and slot is not None and slot.is_idle()

    def _fail_orphans(self) -> None:
        """Rows in flight while the engine holds nothing: their outcome can never come.

        This happens when a download fails in a way no middleware sees (an exception raised in
        another downloader middleware's ``process_response`` skips every ``process_exception``).
        They end ``error`` (requeue them) instead of blocking their group forever.
        """
        for rid in list(self._inflight):
            if fatal_reason(self.crawler) is None:
                logger.error("request row %d left the engine without an outcome: error", rid)
            self._finish(rid, ok=False, reason=ORPHAN_REASON)

    def __len__(self) -> int:
        try:
            pending = self.store.count(court=self.court, status=Status.PENDING)
        except (StateError, sqlite3.Error) as exc:
            self._die(STATE_ERROR, f"cannot read the request state: {exc}")
            pending = 0
        return pending + len(self._redirected)

    def enqueue_request(self, request: Request) -> bool:
        parent = request.meta.pop(META_PARENT, None)
        try:
            rid = request.meta.get(META_RID)
            if rid is not None and rid in self._inflight:
                accepted = self._retry_or_redirect(rid, request)
            else:
                request.meta.pop(META_RID, None)
                accepted = self._add(request)
        except UnserializableRequest as exc:
            self._inc("unserializable")
            self._die(UNSERIALIZABLE_REQUEST, str(exc))
            return False
        except (StateError, sqlite3.Error) as exc:
            self._die(STATE_ERROR, f"cannot record {request!r}: {exc}")
            return False
        if parent is not None:
            self._settle(parent)
        return accepted

    def next_request(self) -> Request | None:
        if self._fatal:
            return None
        try:
            return self._next_request()
        except (StateError, sqlite3.Error) as exc:
            self._die(STATE_ERROR, f"cannot claim the next request: {exc}")
            return None

    def _next_request(self) -> Request | None:
        if self._redirected:  # a hop of a row in flight: nothing to claim, nothing to write
            rid = next(iter(self._redirected))
            if self.stats is not None:
                self.stats.inc_value("scheduler/dequeued")
            return self._redirected.pop(rid)
        while True:
            only: list[str] | None = None
            if self._cap is not None and len(self._open) >= self._cap:
                # at the cap: only the open groups' rows (a busy group's only through its
                # held, i.e. retried, row)
                held_groups = {g for g, _ in self._held.values() if g is not None}
                only = [g for g in self._open if g not in self._busy or g in held_groups]
                if not only:
                    return None
            claimed = self.store.claim(
                self.court,
                self.run_id,
                busy_groups=list(self._busy),
                held=list(self._held),
                only_groups=only,
            )
            if claimed is None:
                return None
            assert self.spider is not None
            blob = claimed.blob
            if claimed.group is not None and claimed.group not in self._open:
                self._open[claimed.group] = None
                self.store.open_group(self.court, claimed.group, self.run_id)
                self._inc("cases_started")
            held = self._held.pop(claimed.id, None)
            if held is not None:
                request = held[1]
                break
            recent = self._recent.pop(claimed.id, None)
            if recent is not None:
                request = recent
                break
            try:
                if claimed.format != REQUEST_FORMAT:
                    raise UnserializableRequest(
                        f"request {claimed.key} was stored in request format {claimed.format}, "
                        f"this harvest reads format {REQUEST_FORMAT}"
                    )
                request = loads_request(claimed.blob, self.spider)
            except UnserializableRequest as exc:
                rebuilt = self._rebuild(claimed, exc)
                if rebuilt is not None:
                    request, blob = rebuilt
                    break
                self._inc("unserializable")
                self.store.finish(claimed.id, self.run_id, ok=False, reason=scrub(str(exc)))
                self._release_group(claimed.id, claimed.group)
                logger.error("%s", exc)
                continue
            break
        request.meta[META_RID] = claimed.id
        if claimed.retries:
            request.meta["retry_times"] = claimed.retries
        else:
            request.meta.pop("retry_times", None)
        self._inflight[claimed.id] = _Flight(
            group=claimed.group,
            retries=claimed.retries,
            blob=blob,
            attempt=claimed.attempts,
            request_url=strip_userinfo(request.url),
        )
        if claimed.group is not None:
            self._busy[claimed.group] = claimed.id
        self._inc("dispatched")
        if self.stats is not None:
            self.stats.inc_value("scheduler/dequeued")
        return request

    def _rebuild(
        self, claimed: Claimed, why: UnserializableRequest
    ) -> tuple[Request, bytes] | None:
        """A stored request that cannot be read (another request format, a pickle older code
        wrote that today's spider cannot rebuild), made again from its row by the spider's
        ``request_from_row(kind, key, url, method)``; ``None`` when the spider cannot."""
        assert self.spider is not None
        hook = getattr(self.spider, "request_from_row", None)
        if not callable(hook):
            return None
        try:
            request = hook(claimed.kind, claimed.key, claimed.url, claimed.method)
            if request is None:
                return None
            blob = dumps_request(request, self.spider)
        except (UnserializableRequest, LookupError, ValueError, TypeError) as exc:
            # the spider cannot either: the row fails as before
            logger.debug("request %s not rebuilt from its row: %s", claimed.key, exc)
            return None
        self._inc("rebuilt")
        logger.warning("%s: rebuilt from its row (kind, key, url)", scrub(str(why)))
        return request, blob

    # --- enqueue helpers ------------------------------------------------------------------------

    def _add(self, request: Request) -> bool:
        assert self.spider is not None
        given = request.meta.get(META_KEY)
        parsed = kind_and_court(given) if isinstance(given, str) else None
        if parsed is not None:
            kind, court = parsed
            key = str(given)
        else:
            kind, court = "other", self.court
            if isinstance(given, str) and given:
                key = given
            else:
                key = f"other|{court}|{self._fingerprint(request).hex()}"
        group = request.meta.get(META_GROUP)
        blob = dumps_request(request, self.spider)
        new_id = self.store.add(
            NewRequest(
                key=key,
                kind=kind,
                court=court,
                group=str(group) if group is not None else None,
                priority=request.priority,
                method=request.method,
                url=strip_userinfo(request.url),
                blob=blob,
                generation=self._generation_of(request),
            ),
            self.run_id,
        )
        if new_id is None:
            self._inc("duplicate")
            return False
        self._recent[new_id] = request
        if len(self._recent) > RECENT_CACHE:
            del self._recent[next(iter(self._recent))]
        self._inc("enqueued")
        if self.stats is not None:
            self.stats.inc_value("scheduler/enqueued")
        return True

    def _generation_of(self, request: Request) -> int:
        """The request's generation: ``meta[META_REFRESH_GENERATION]``, else the crawl's."""
        given = request.meta.get(META_REFRESH_GENERATION)
        if isinstance(given, int) and not isinstance(given, bool):
            return given
        return self.generation.number if self.generation is not None else 0

    def _retry_or_redirect(self, rid: int, request: Request) -> bool:
        """A retry or redirect of row ``rid``, which stays the same row.

        A redirect hop leaves the row ``inflight`` (nothing is written; the exchange is in
        url_log): its target is sent next, from memory. A retry is ``inflight -> pending`` with
        the retry count, priority and current URL recorded; the stored request stays the row's
        original one, so a resumed crawl restarts a redirect chain from its start. A retry of a
        redirected request starts again from the original request too (a redirect target may
        depend on a one-shot server session, as SIPP's ``show_*`` -> tab redirects do), keeping
        the retry's meta.
        """
        assert self.spider is not None
        flight = self._inflight[rid]
        retries = int(request.meta.get("retry_times", 0) or 0)
        self._inc("retried" if retries > flight.retries else "redirected")
        if self.stats is not None:
            self.stats.inc_value("scheduler/enqueued")
        if retries <= flight.retries:
            flight.url = strip_userinfo(request.url)
            self._redirected[rid] = request
            return True
        nxt = request
        if request.meta.get("redirect_urls"):
            original = loads_request(flight.blob, self.spider)
            meta = {k: v for k, v in request.meta.items() if k not in _REDIRECT_META}
            nxt = original.replace(
                meta={**original.meta, **meta}, priority=request.priority, dont_filter=True
            )
        done = self.store.retry(
            rid,
            self.run_id,
            url=strip_userinfo(nxt.url),
            priority=nxt.priority,
            retries=retries,
        )
        del self._inflight[rid]
        if done:
            self._held[rid] = (flight.group, nxt)  # keeps its group reserved until sent
        else:
            self._release_group(rid, flight.group)
        return done

    # --- outcomes (called by the middlewares of extensions.outcome) -----------------------------

    def run_id_of(self, request: Request) -> int:
        """The run that records ``request``'s exchanges (one run a court)."""
        return self.run_id

    def note_response(self, request: Request, status: int) -> None:
        """Remember the final HTTP status of a row in flight (stored with its outcome)."""
        flight = self._inflight.get(request.meta.get(META_RID, -1))
        if flight is not None:
            flight.http_status = status

    def note(self, request: Request | None, event: str, detail: str) -> None:
        """Record a notice (:data:`extensions.store.NOTICES`) about ``request``'s row, if any."""
        rid = request.meta.get(META_RID) if request is not None else None
        try:
            self.store.note(
                self.run_id,
                rid if isinstance(rid, int) else None,
                event,
                scrub(detail, keep_spacing=True),
            )
        except (StateError, sqlite3.Error) as exc:
            self._die(STATE_ERROR, f"cannot record a {event} notice: {exc}")
        self._inc(f"notice/{event}")

    def fail(self, request: Request, reason: str, *, http_status: int | None = None) -> None:
        """The row of ``request`` ends ``error`` with ``reason`` (first outcome wins)."""
        rid = request.meta.get(META_RID)
        if rid is None or rid not in self._inflight:
            return
        self._finish(rid, ok=False, reason=scrub(reason), http_status=http_status)

    def output_started(self, response: Response) -> int | None:
        """The callback output of ``response`` begins; returns the row id to track, if any."""
        rid = _rid_of(response)
        flight = self._inflight.get(rid) if rid is not None else None
        if flight is None:
            return None
        flight.started = True
        return rid

    def output_request(self, rid: int, request: Request) -> None:
        """A request yielded by row ``rid``'s callback: ``rid`` waits until it is committed."""
        flight = self._inflight.get(rid)
        request.meta.pop(META_RID, None)  # a child is never a re-dispatch of its parent
        if flight is not None:
            flight.outstanding += 1
            request.meta[META_PARENT] = rid

    def output_item(self, rid: int) -> None:
        flight = self._inflight.get(rid)
        if flight is not None:
            flight.outstanding += 1

    def output_done(self, rid: int, warnings: Any = None) -> None:
        """The callback output of row ``rid`` is exhausted; ``warnings``: the page's parse
        warnings as the spider left them in ``meta[META_PARSE_WARNINGS]`` (``[[page, label,
        kind], ...]``), recorded with the row's ``ok``."""
        flight = self._inflight.get(rid)
        if flight is not None:
            flight.exhausted = True
            flight.warnings = page_warnings(warnings)
            self._maybe_ok(rid, flight)

    def output_failed(self, rid: int, exc: BaseException) -> None:
        if rid in self._inflight:
            self._finish(rid, ok=False, reason=reason_for_exception(exc))

    def _settle(self, rid: int, item_error: str | None = None) -> None:
        flight = self._inflight.get(rid)
        if flight is None:
            return
        flight.outstanding -= 1
        if item_error and flight.item_error is None:
            flight.item_error = item_error
        self._maybe_ok(rid, flight)

    def _maybe_ok(self, rid: int, flight: _Flight) -> None:
        if flight.exhausted and flight.outstanding <= 0:
            if flight.item_error is not None:
                self._finish(rid, ok=False, reason=flight.item_error)
            else:
                self._finish(rid, ok=True)

    def _finish(
        self, rid: int, *, ok: bool, reason: str | None = None, http_status: int | None = None
    ) -> None:
        flight = self._inflight.pop(rid)
        self._redirected.pop(rid, None)
        if self._state_broken or (not ok and fatal_reason(self.crawler) is not None):
            # the crawl is closing on a fatal error: a failure now is that error's echo (a page
            # the full archive could not keep, a part the item store refused), not the
            # request's outcome; the row stays in flight and the next run sends it again
            logger.debug("row %d left in flight at a fatal close (%s)", rid, reason)
            self._inflight_left.add(rid)
            self._release_group(rid, flight.group)
            return
        status = http_status if http_status is not None else flight.http_status
        try:
            self.store.finish(
                rid,
                self.run_id,
                ok=ok,
                reason=reason,
                http_status=status,
                url=flight.url,
                warnings=flight.warnings if ok else (),
            )
        except (StateError, sqlite3.Error) as exc:
            self._die(STATE_ERROR, f"cannot record the outcome of row {rid}: {exc}")
            return
        finally:
            self._release_group(rid, flight.group)
        self._inc("ok" if ok else "error")
        if self.on_outcome is not None:
            self.on_outcome(rid, ok, reason)
        if not ok:
            # the one line of an expected site error (extensions/logformatter.py)
            logger.warning(
                "failed: %s | %s | attempt %d",
                reason,
                flight.url or flight.request_url,
                flight.attempt,
            )

    def _release_group(self, rid: int, group: str | None) -> None:
        self._held.pop(rid, None)
        if group is None:
            return
        if self._busy.get(group) == rid:
            del self._busy[group]
        if self._state_broken:
            return
        if group in self._open and group not in self._busy:
            try:
                done = self.store.close_group_if_done(self.court, group)
            except (StateError, sqlite3.Error) as exc:
                self._die(STATE_ERROR, f"cannot record the end of case {group}: {exc}")
                return
            if done:
                del self._open[group]
                self._inc("cases_finished")

    # --- item signals ---------------------------------------------------------------------------

    def _item_scraped(self, item: Any, response: Response | Failure | None) -> None:
        rid = _rid_of(response)
        if rid is not None:
            self._settle(rid)

    def _item_dropped(self, item: Any, response: Response | Failure | None) -> None:
        rid = _rid_of(response)
        if rid is not None:
            self._settle(rid)

    def _item_error(
        self, item: Any, response: Response | Failure | None, failure: Failure
    ) -> None:
        rid = _rid_of(response)
        if rid is not None:
            exc = failure.value or RuntimeError("unknown item error")
            self._settle(rid, item_error="item not stored: " + reason_for_exception(exc))

    # --- misc -----------------------------------------------------------------------------------

    def _inc(self, name: str, count: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(STAT + name, count)

    @property
    def state_broken(self) -> bool:
        """The request state failed (a lock, an outage): nothing more is written to it."""
        return self._state_broken

    def state_failed(self, doing: str, exc: BaseException) -> None:
        """A companion (the URL log) could not ``doing`` in the request state: close the crawl."""
        self._die(STATE_ERROR, f"cannot {doing}: {exc}")

    def _die(self, reason: str, message: str) -> None:
        if "disk is full" in message:
            message += (
                "; the disk holding the workspace is full: free space and run the crawl again "
                "(nothing is lost)"
            )
        elif "database is locked" in message:
            message += (
                f"; another process holds a lock on the request state {self._where()}: end it "
                "(fuser names it) and run the crawl again (nothing is lost)"
            )
        if reason == STATE_ERROR:
            self._state_broken = True
        self._fatal = True
        close_fatal(self.crawler, reason, message, log=logger)

    def _where(self) -> str:
        path = getattr(self._store, "path", None)
        return repr(str(path)) if path is not None else "(its database)"


def _stores_parts(settings: BaseSettings) -> bool:
    """Whether an enabled item pipeline stores case parts (class attribute ``STORES_PARTS``)."""
    for path, order in settings.getwithbase("ITEM_PIPELINES").items():
        if order is None:
            continue
        try:
            cls = load_object(path) if isinstance(path, str) else path
        except (ImportError, NameError, ValueError, AttributeError):
            continue  # Scrapy itself reports the bad path when it builds the pipelines
        if getattr(cls, "STORES_PARTS", False):
            return bool(settings.getbool("DEDUPE_ENABLED", True))
    return False


def page_warnings(raw: Any) -> tuple[PageWarning, ...]:
    """``[[page, label, kind], ...]`` (repeats allowed) -> one :class:`PageWarning` per
    distinct warning with its count, in first-seen order; anything malformed is ignored."""
    counted: dict[tuple[str, str, str], int] = {}
    if isinstance(raw, list | tuple):
        for item in raw:
            if (
                isinstance(item, list | tuple)
                and len(item) == 3
                and all(isinstance(x, str) for x in item)
            ):
                key = (str(item[0]), str(item[1]), str(item[2]))
                counted[key] = counted.get(key, 0) + 1
    return tuple(PageWarning(p, label, k, n) for (p, label, k), n in counted.items())


def _rid_of(obj: Response | Failure | None) -> int | None:
    request = None
    if isinstance(obj, Response):
        request = obj.request
    elif isinstance(obj, Failure):
        request = getattr(obj, "request", None)
    if request is None:
        return None
    rid = request.meta.get(META_RID)
    return rid if isinstance(rid, int) else None
