"""Many courts in one crawl: one scheduler *lane* a court, dispatched round-robin.

:class:`extensions.scheduler.HarvestScheduler` returns a :class:`MultiCourtScheduler` when the
spider names several courts (``spider.courts``, ``-a courts=FILE`` or ``-a courts=registered``;
docs/multi-court.md). Each court gets a lane: a :class:`HarvestScheduler` of its own with its
crawl lock (SQLite lock file, PostgreSQL lease), run, generation, open cases and case cap, over
one store shared by the lanes (one connection, one group commit a reactor turn).

* Dispatch: :meth:`next_request` asks the lanes in turn, starting after the lane that sent the
  last request, so a court whose case cap is reached (or that has nothing pending) never holds
  back another. Politeness is per court in the downloader: every request of a court carries
  ``download_slot = <court id>`` (the spider sets it), so each court has its own delay and
  concurrency (``DOWNLOAD_SLOTS`` keyed by court id) even when several courts share a host.
* Routing: a new request goes to the lane of its court (``meta["harvest_court"]``, else the
  court of its key ``<kind>|<court>|...``); a retry, redirect or outcome to the lane that
  dispatched its row (``meta["harvest_rid"]``).
* Workers (``-a max_courts=K``): at most K lanes are open at once; a lane whose court has
  nothing pending or in flight is closed (its run ended, its lock or lease given up) and the
  next court is claimed: a court locked by a live crawl elsewhere is skipped (tried again
  later), an expired lease is taken over (:mod:`extensions.pg_store`).
* Pauses (workers): a court down, refusing or answering 5xx for ``HARVEST_PAUSE_AFTER``
  requests in a row, each after its whole attempt budget, sends nothing more; once its last
  request in flight ended, its failed requests go back to pending, its lane closes and the
  court is paused with back-off (:mod:`extensions.pausing`); the worker claims it again when it
  is due (and waits for it, up to ``HARVEST_PAUSE_WAIT_MAX``), as does any other crawl.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import time
from typing import TYPE_CHECKING, Any

from harvest.base.clock import format_utc
from harvest.base.close_reasons import FINISHED, PAUSED, SHUTDOWN
from harvest.base.meta import META_COURT, META_KEY, META_PARENT, META_RID

from .alerts import CourtAlerts
from .pausing import PausePolicy, is_court_down
from .scheduler import HarvestScheduler, watch_closing
from .store import CrawlLocked, ErrorFilter, Status, kind_and_court

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request, Spider
    from scrapy.http import Response

__all__ = ["MultiCourtScheduler", "court_of_request"]

logger = logging.getLogger(__name__)

#: Seconds between two attempts to claim the courts other live crawls hold (workers): a third of
#: ``HARVEST_LEASE_TTL`` (an expired lease is seen within the TTL and a third), within these.
RECLAIM_MIN, RECLAIM_MAX = 1.0, 30.0


def court_of_request(request: Request) -> str | None:
    """The court a request belongs to: ``meta["harvest_court"]``, else its key's court."""
    court = request.meta.get(META_COURT)
    if isinstance(court, str) and court:
        return court
    key = request.meta.get(META_KEY)
    parsed = kind_and_court(key) if isinstance(key, str) else None
    return parsed[1] if parsed is not None else None


class MultiCourtScheduler(HarvestScheduler):
    """The scheduler of a multi-court crawl (see the module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lanes: dict[str, HarvestScheduler] = {}
        self._turn = 0  # index in the lanes of the next lane to ask first
        self._owner: dict[int, HarvestScheduler] = {}  # row id in flight -> its lane
        self._waiting: list[str] = []  # courts not claimed yet (workers), in order
        self._max: int | None = None
        self._next_claim = 0.0
        self._reclaim = min(RECLAIM_MAX, max(RECLAIM_MIN, self.config.lease_ttl / 3))
        self._told: set[str] = set()  # courts whose "skipped for now" was logged at INFO
        self.finished: list[str] = []  # courts whose lane closed with nothing left
        self.pauses = PausePolicy()
        self.alerts = CourtAlerts(None)
        self._streak: dict[str, list[int]] = {}  # court -> rows failed "court down" in a row
        self._down_reason: dict[str, str] = {}
        self._paused: dict[str, float] = {}  # court -> paused until (epoch seconds)
        self._resuming: set[str] = set()  # courts claimed while paused: the first ok resumes

    # --- opening and closing --------------------------------------------------------------------

    def open(self, spider: Spider) -> None:
        self.spider = spider
        courts: dict[str, Any] = dict(getattr(spider, "courts", {}) or {})
        max_courts = getattr(spider, "max_courts", None)
        self._max = int(max_courts) if max_courts else None
        self.court = ",".join(courts)
        if self.crawler is not None:
            self.pauses = PausePolicy.from_settings(self.crawler.settings)
            self.alerts = CourtAlerts.from_crawler(self.crawler)
        store = self.config.open_store(defer_commit=self._commit_at_end_of_turn)
        watch_closing(store, self.crawler)
        self._store = store
        self._waiting = list(courts)
        try:
            self._claim(strict=self._max is None)
        except BaseException:
            for lane in self.lanes.values():
                lane.close(SHUTDOWN)
            self.lanes.clear()
            self._store = None
            store.close()
            raise
        if self.crawler is not None:
            from scrapy import signals

            self.crawler.signals.connect(self._item_scraped, signal=signals.item_scraped)
            self.crawler.signals.connect(self._item_dropped, signal=signals.item_dropped)
            self.crawler.signals.connect(self._item_error, signal=signals.item_error)
        logger.info(
            "multi-court crawl: %d courts open (%s)%s, state %s",
            len(self.lanes),
            ", ".join(self.lanes),
            f", {len(self._waiting)} waiting (max_courts={self._max})" if self._waiting else "",
            store.path,
        )

    def _claim(self, *, strict: bool) -> None:
        """Open lanes for waiting courts up to ``max_courts``.

        ``strict`` (an explicit court list): a court another live crawl holds refuses the crawl
        (:class:`CrawlLocked`). Otherwise (a worker) it is skipped and tried again later.
        """
        skipped: list[str] = []
        paused: list[str] = []
        self._load_pauses()
        while self._waiting and (self._max is None or len(self.lanes) < self._max):
            court = self._waiting.pop(0)
            if not strict and self._is_paused(court):
                paused.append(court)
                continue
            if not strict and self._done(court):
                logger.info("court %s is done (finished by this or another crawl)", court)
                self.finished.append(court)
                continue
            if not self._open_lane(court, strict=strict):
                skipped.append(court)
        # courts another crawl held are tried first at the next claim: one whose holder died
        # (its lease expired) has work begun and waiting, so it comes before a fresh court
        self._waiting[:0] = skipped
        self._waiting.extend(paused)
        self._next_claim = time.monotonic() + self._reclaim

    # --- pauses (extensions/pausing.py) ---------------------------------------------------------

    def _load_pauses(self) -> None:
        assert self._store is not None
        self._paused = {p.court: _epoch(p.paused_until) for p in self._store.court_pauses()}

    def _is_paused(self, court: str) -> bool:
        until = self._paused.get(court)
        return until is not None and until > self.pauses.now()

    def _worth_waiting(self, court: str) -> bool:
        """A waiting court keeps a worker open unless it is paused past ``wait_max``."""
        until = self._paused.get(court)
        return until is None or until <= self.pauses.now() + self.pauses.wait_max

    def _pausing(self, court: str) -> bool:
        """The court failed "down" ``HARVEST_PAUSE_AFTER`` times in a row, or in every request
        it had left: it sends nothing more until it is paused."""
        streak = self._streak.get(court)
        if not streak or self._max is None or not self.pauses.enabled:
            return False
        if len(streak) >= self.pauses.after:
            return True
        # fewer failures, but they are all the court had left: its whole budget failed
        lane = self.lanes.get(court)
        return (
            lane is not None
            and not lane._inflight
            and not lane._held
            and not lane.store.has_pending(court)
        )

    def _outcome(self, court: str, rid: int, ok: bool, reason: str | None) -> None:
        if not ok and is_court_down(reason):
            self._streak.setdefault(court, []).append(rid)
            self._down_reason[court] = str(reason)
            return
        # the court answered (a page error too is an answer)
        streak = self._streak.pop(court, [])
        if ok and court in self._resuming:
            self._resuming.discard(court)
            assert self._store is not None
            if streak:
                # tried again while still down: what failed before it answered goes back
                # (once per pause, so a request that always fails still ends as error)
                back = self._store.requeue(ErrorFilter(court=court, ids=tuple(streak)))
                logger.info(
                    "court %s: %d requests that failed before it answered again back to pending",
                    court,
                    back,
                )
            if self._store.resume_court(court):
                self._paused.pop(court, None)
                self._inc("courts_resumed")
                logger.info("court %s answers again: its pause is over", court)
                self.alerts.court_changed(court, "resumed")

    def _pause(self, court: str, lane: HarvestScheduler) -> None:
        """Close the lane of a court that is down and record its pause (see the module doc)."""
        assert self._store is not None
        store = self._store
        rids = self._streak.pop(court, [])
        reason = self._down_reason.pop(court, "down")
        before = {p.court: p.pause_count for p in store.court_pauses()}.get(court, 0)
        now = self.pauses.now()
        delay = self.pauses.delay(before + 1)
        until = format_utc(now + delay)
        back = store.requeue(ErrorFilter(court=court, ids=tuple(rids)))
        count = store.pause_court(court, reason=reason, until=until, at=format_utc(now))
        lane.close(PAUSED)
        del self.lanes[court]
        self._owner = {rid: owner for rid, owner in self._owner.items() if owner is not lane}
        self._resuming.discard(court)
        self._paused[court] = now + delay
        self._waiting.append(court)
        self._inc("courts_paused")
        logger.warning(
            "court %s paused until %s (%s; pause %d in a row, back-off %.0f s): %d failed "
            "requests back to pending; claimed again then, by this worker or the next crawl",
            court,
            until,
            reason,
            count,
            delay,
            back,
        )
        self.alerts.court_changed(court, "paused", reason=reason, until=until, count=count)

    def _adopt(self) -> None:
        """A worker whose slots are all busy still takes over the waiting courts whose work a
        crawl began and left (rows pending or in flight, their lease free or expired): a dead
        worker's courts wait no longer than the lease, beyond ``max_courts`` if need be. Courts
        a live crawl holds stay waiting; fresh courts wait for a free slot."""
        assert self._store is not None
        for court in list(self._waiting):
            if self._is_paused(court):
                continue
            begun = self._store.has_pending(court) or self._store.count(
                court=court, status=Status.INFLIGHT
            )
            if begun and self._open_lane(court, strict=False):
                self._waiting.remove(court)
                self._inc("courts_adopted")
                logger.info(
                    "court %s taken over beyond max_courts=%s: the crawl that began it is gone",
                    court,
                    self._max,
                )
        self._next_claim = time.monotonic() + self._reclaim

    def _open_lane(self, court: str, *, strict: bool) -> bool:
        """Open the court's lane (its lock or lease, run, generation) and send its first
        requests; ``False`` when another live crawl holds it (only when not ``strict``)."""
        assert self.spider is not None
        assert self._store is not None
        lane = HarvestScheduler(
            config=self.config,
            stats=self.stats,
            fingerprint=self._fingerprint,
            crawler=self.crawler,
            items_path=self.items_path,
        )
        try:
            lane.open_court(self.spider, court, court, store=self._store)
        except CrawlLocked as exc:
            if strict:
                raise
            log = logger.debug if court in self._told else logger.info
            self._told.add(court)
            log("court %s skipped for now (tried again every %.0f s): %s", court,
                self._reclaim, exc)  # fmt: skip
            return False
        self.lanes[court] = lane
        lane.on_outcome = functools.partial(self._outcome, court)
        if court in self._paused:  # due again: the first success ends the pause
            self._resuming.add(court)
            logger.info("court %s: its pause is due, trying it again", court)
        self._inc("courts_claimed")
        starter = getattr(self.spider, "start_court", None)
        if callable(starter) and self.crawler is not None:
            # the court's first requests (its list page or menu), through this scheduler
            for request in starter(court):
                self.enqueue_request(request)
        return True

    def _done(self, court: str) -> bool:
        """A worker's court needs nothing: its last generation is finished, nothing of it is
        pending or in flight, and the crawl asks for no refresh (``-a refresh=none``) or its
        last generation already is the refresh of the crawl's day. Read without the court's
        lock: a court finished meanwhile by another worker is seen done at its next claim."""
        assert self._store is not None
        assert self.spider is not None
        generations = self._store.generations(court)
        if not generations or not generations[-1].finished:
            return False
        last = generations[-1]
        policy = str(getattr(self.spider, "refresh_policy", None) or "none")
        today = str(getattr(self.spider, "refresh_today", None) or "")
        if self._store.has_pending(court) or self._store.count(
            court=court, status=Status.INFLIGHT
        ):
            return False
        return policy == "none" or (last.number > 0 and last.today == today)

    def close(self, reason: str) -> None:
        if self._store is None:
            return
        for lane in list(self.lanes.values()):
            lane.close(reason)
        self.lanes.clear()
        self._owner.clear()
        store, self._store = self._store, None
        store.close()

    def _retire(self) -> None:
        """Close the lanes whose court is done; claim the next courts (workers): at once when
        a lane closed (a slot is free), else every ``HARVEST_LEASE_TTL``/3 s."""
        freed = False
        for court, lane in list(self.lanes.items()):
            if self._pausing(court) and not lane._inflight:
                self._pause(court, lane)
                freed = True
                continue
            if lane._inflight or lane._redirected or lane._held:
                continue
            if lane.store.has_pending(court):
                continue
            if self._max is None:
                continue  # an explicit list: every lane stays open until the crawl closes
            lane.close(FINISHED)
            del self.lanes[court]
            self._owner = {rid: owner for rid, owner in self._owner.items() if owner is not lane}
            self.finished.append(court)
            self._inc("courts_finished")
            logger.info("court %s finished; %d courts open", court, len(self.lanes))
            freed = True
        if self._waiting and (freed or time.monotonic() >= self._next_claim):
            if self._max is not None and len(self.lanes) >= self._max:
                self._adopt()
            else:
                self._claim(strict=False)
        elif time.monotonic() >= self._next_claim:
            self._next_claim = time.monotonic() + self._reclaim

    # --- engine contract ------------------------------------------------------------------------

    def has_pending_requests(self) -> bool:
        if self._max is not None:
            self._retire()
        pending = any(lane.has_pending_requests() for lane in self.lanes.values())
        return pending or any(self._worth_waiting(c) for c in self._waiting)

    def __len__(self) -> int:
        return sum(len(lane) for lane in self.lanes.values())

    def enqueue_request(self, request: Request) -> bool:
        rid = request.meta.get(META_RID)
        lane = self._owner.get(rid) if isinstance(rid, int) else None
        if lane is None:
            court = court_of_request(request)
            lane = self.lanes.get(court) if court is not None else None
        if lane is None:
            logger.error(
                "request %s names no court of this crawl (meta %s=%r): dropped",
                request.url,
                META_COURT,
                request.meta.get(META_COURT),
            )
            self._inc("no_court")
            return False
        parent = request.meta.get(META_PARENT)
        accepted = lane.enqueue_request(request)
        if isinstance(parent, int):
            self._forget(parent, lane)
        return accepted

    def next_request(self) -> Request | None:
        if self._fatal:
            return None
        if self._max is not None and time.monotonic() >= self._next_claim:
            # a busy engine seldom asks has_pending_requests: the worker's claims and
            # takeovers keep their pace here too
            self._retire()
        courts = list(self.lanes)
        for i in range(len(courts)):
            index = (self._turn + i) % len(courts)
            if self._pausing(courts[index]):
                continue  # down: nothing more is sent until it is paused
            lane = self.lanes[courts[index]]
            request = lane.next_request()
            if request is None:
                continue
            self._turn = index + 1
            rid = request.meta.get(META_RID)
            if isinstance(rid, int):
                self._owner[rid] = lane
            return request
        return None

    # --- outcomes: to the lane of the row -------------------------------------------------------

    def _lane(self, rid: Any) -> HarvestScheduler | None:
        return self._owner.get(rid) if isinstance(rid, int) else None

    def _forget(self, rid: int, lane: HarvestScheduler) -> None:
        if rid not in lane._inflight and rid not in lane._held and rid not in lane._redirected:
            self._owner.pop(rid, None)

    def _route(self, rid: Any, call: Callable[[HarvestScheduler], None]) -> None:
        lane = self._lane(rid)
        if lane is not None:
            call(lane)
            self._forget(rid, lane)

    def run_id_of(self, request: Request) -> int:
        lane = self._lane(request.meta.get(META_RID))
        if lane is None:
            court = court_of_request(request)
            lane = self.lanes.get(court) if court is not None else None
        return lane.run_id if lane is not None else 0

    def note_response(self, request: Request, status: int) -> None:
        lane = self._lane(request.meta.get(META_RID))
        if lane is not None:
            lane.note_response(request, status)

    def note(self, request: Request | None, event: str, detail: str) -> None:
        lane = self._lane(request.meta.get(META_RID)) if request is not None else None
        if lane is None and request is not None:
            court = court_of_request(request)
            lane = self.lanes.get(court) if court is not None else None
        if lane is not None:
            lane.note(request, event, detail)
        else:
            super().note(request, event, detail)

    def fail(self, request: Request, reason: str, *, http_status: int | None = None) -> None:
        rid = request.meta.get(META_RID)
        self._route(rid, lambda lane: lane.fail(request, reason, http_status=http_status))

    def output_started(self, response: Response) -> int | None:
        lane = self._lane(response.meta.get(META_RID))
        return lane.output_started(response) if lane is not None else None

    def output_request(self, rid: int, request: Request) -> None:
        self._route(rid, lambda lane: lane.output_request(rid, request))

    def output_item(self, rid: int) -> None:
        self._route(rid, lambda lane: lane.output_item(rid))

    def output_done(self, rid: int, warnings: Any = None) -> None:
        self._route(rid, lambda lane: lane.output_done(rid, warnings))

    def output_failed(self, rid: int, exc: BaseException) -> None:
        self._route(rid, lambda lane: lane.output_failed(rid, exc))

    def _settle(self, rid: int, item_error: str | None = None) -> None:
        self._route(rid, lambda lane: lane._settle(rid, item_error))


def _epoch(text: str) -> float:
    """A :func:`harvest.base.clock.format_utc` time as seconds since the epoch."""
    return dt.datetime.fromisoformat(text).timestamp()
