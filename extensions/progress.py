"""A crawl that reports itself: a progress line at a steady interval, a summary at the end.

``EXTENSIONS = {"extensions.progress.ProgressReporter": 0}`` (harvest/settings.py). Every
``HARVEST_PROGRESS_INTERVAL`` seconds (float, default 60; ``0`` = no progress lines, the summary
stays) it logs one line from the state database (``state.sqlite``, read-only)::

    progress pn-x: cases 120/340 complete (35.3%; 340 published); requests 980 ok,
    45 waiting, 3 failed; 1.01 exchanges/s; ETA 1h06m at 1.00/s

*cases* are the court's case groups (complete = detail and every tab ``ok``) of the court's
published count (``Total : N Perkara`` of its list, capped by ``-a max_cases``; the spider's
stat ``harvest/list/published_cases/<court>``), or of the cases known so far when it published
none (``-a since``/``until``); the percentage never goes down. *waiting* is
``pending + inflight``; the rate is this run's HTTP exchanges (responses and download failures:
redirect hops and retries each count, the unit of politeness) per second; the ETA is the
requests still to come (waiting, plus the cases not yet known at this run's requests per case)
in exchanges (this run's exchanges per ended request) at the polite rate: 1 / ``DOWNLOAD_DELAY``
exchanges per second a court with work left (the measured rate when the delay is 0). A
multi-court crawl logs one line summed over its courts and names its slowest court (the
smallest share complete). When the spider closes it sums up
(the same numbers, the run's duration, the close reason, the failed requests by reason; logged
last, once the engine stopped) and sets the stat ``harvest/exit_status`` to the code
``scrapy crawl`` exits with (:mod:`harvest.exit_status`).

Switched off (``NotConfigured``) for a crawl without the harvest state (Scrapy's own scheduler,
``scrapy shell``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import load_object
from twisted.internet.task import LoopingCall
from twisted.internet.threads import deferToThread

from harvest.base.close_reasons import FATAL_CLOSE_REASONS
from harvest.base.scrubbing import redact_url
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import STATE_DB, WorkspaceError, resolve_workspace
from harvest.exit_status import ADVICE, CHALLENGE_REASON, CrawlFacts, ExitStatus, decide

from .config import SchedulerConfig
from .scheduler import HarvestScheduler, court_of, harvests_a_court
from .state_queries import (
    CourtProgress,
    connect_readonly,
    court_progress,
    error_groups,
    read_errors,
)

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from twisted.internet.defer import Deferred

__all__ = ["DEFAULT_INTERVAL", "Pace", "ProgressReporter", "format_duration", "progress_line"]

logger = logging.getLogger(__name__)

#: Default of ``HARVEST_PROGRESS_INTERVAL`` (seconds between progress lines).
DEFAULT_INTERVAL = 60.0
STAT_EXIT = "harvest/exit_status"
#: The spider's stat of a court's published case count (``Total : N Perkara``), by court id.
STAT_PUBLISHED = "harvest/list/published_cases/"


def format_duration(seconds: float) -> str:
    """``1h02m``, ``4m10s``, ``12s``."""
    s = max(0, round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    if h:
        return f"{h}h{m:02d}m"
    if m:
        return f"{m}m{sec:02d}s"
    return f"{sec}s"


@dataclass(frozen=True)
class Pace:
    """What the ETA needs beyond the state's counts (all of this process's run)."""

    #: HTTP exchanges of this run (responses and download failures, redirects and retries
    #: each one): the unit of politeness
    exchanges: int = 0
    #: the court's published case count (``Total : N Perkara``, capped by ``max_cases``), summed
    #: over the courts that published one; ``None``: unknown (cases known so far instead)
    published: int | None = None
    #: exchanges per second the courts are crawled at when at their politeness limit (1 /
    #: ``DOWNLOAD_DELAY`` a court); ``None``: no delay, the measured rate is the pace
    polite_rate: float | None = None
    #: the share shown last (the percentage shown never goes down)
    floor: float = 0.0


def expected_cases(p: CourtProgress, pace: Pace) -> int:
    """The cases the crawl will have: the published count, or the known ones when more."""
    return max(p.cases_known, pace.published or 0)


def progress_line(
    p: CourtProgress, *, ended: int, elapsed: float, pace: Pace | None = None
) -> str:
    """One progress line (see the module docstring); ``ended``: requests that ended in this run.

    ``cases C/E complete (S%)``: E is the court's published total when known; S never goes
    below ``pace.floor``. The rate is HTTP exchanges per second of this run; the ETA is the
    requests still to come (waiting, and those of cases not yet known at this run's requests per
    case) in exchanges (this run's exchanges per ended request) at the polite rate.
    """
    pace = pace or Pace()
    expected = expected_cases(p, pace)
    share = max(pace.floor, 100.0 * p.cases_complete / expected) if expected else 0.0
    of = f"; {pace.published} published" if pace.published is not None else ""
    shown = f" ({share:.1f}%{of})" if expected else ""
    rate = pace.exchanges / elapsed if elapsed > 0 else 0.0
    requests = p.ok + p.error + p.waiting
    unknown = max(0, expected - p.cases_known)
    per_case = requests / p.cases_known if p.cases_known else 0.0
    remaining = p.waiting + unknown * per_case
    per_request = pace.exchanges / ended if ended else 1.0
    speed = pace.polite_rate if pace.polite_rate else rate
    if remaining <= 0:
        eta = "nothing waiting"
    elif speed > 0:
        eta = f"ETA {format_duration(remaining * per_request / speed)} at {speed:.2f}/s"
    else:
        eta = "ETA unknown (nothing exchanged yet)"
    return (
        f"progress {p.court}: cases {p.cases_complete}/{expected} complete{shown}; "
        f"requests {p.ok} ok, {p.waiting} waiting, {p.error} failed; "
        f"{rate:.2f} exchanges/s; {eta}"
    )


class ProgressReporter:
    """Progress lines every ``HARVEST_PROGRESS_INTERVAL`` seconds and a summary at close."""

    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self._loop: LoopingCall | None = None
        self._started = time.monotonic()
        self._ended_before: int | None = None
        self._court = ""
        self._courts: list[str] = []
        # state.sqlite, or the state database's URL (PostgreSQL)
        self._path: Path | str | None = None
        self._opened = False
        self._final: tuple[ExitStatus, str] | None = None
        self._floor = 0.0  # the percentage shown last
        self._per_court: list[CourtProgress] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        scheduler = load_object(crawler.settings["SCHEDULER"])
        if not (isinstance(scheduler, type) and HarvestScheduler in scheduler.__mro__):
            raise NotConfigured("SCHEDULER is not extensions.scheduler.HarvestScheduler")
        if not harvests_a_court(crawler):
            raise NotConfigured("not a harvest crawl: the spider names no court_id")
        raw = crawler.settings.get("HARVEST_PROGRESS_INTERVAL", DEFAULT_INTERVAL)
        try:
            interval = float(raw)
        except (TypeError, ValueError):
            interval = -1.0
        if interval < 0:
            raise SettingsError(
                f"HARVEST_PROGRESS_INTERVAL must be a number of seconds (0 = no progress "
                f"lines), got {raw!r} (default {DEFAULT_INTERVAL:g})"
            )
        o = cls(crawler, interval)
        crawler.signals.connect(o.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(o.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(o.engine_stopped, signal=signals.engine_stopped)
        return o

    @property
    def is_open(self) -> bool:
        """The spider opened: :meth:`summary` has a court and a state to read."""
        return self._opened

    async def spider_opened(self, spider: Spider) -> None:
        self._court = court_of(spider)
        #: a multi-court crawl's courts (docs/multi-court.md): progress and summary sum them
        self._courts = [str(c) for c in (getattr(spider, "courts", None) or {})]
        if self._courts:
            self._court = f"{len(self._courts)} courts"
        self._opened = True
        try:
            config = SchedulerConfig.from_settings(self.crawler.settings)
            self._path = config.database_url or resolve_workspace(config.workspace) / STATE_DB
        except (SettingsError, WorkspaceError):  # the scheduler reported the same already
            self._path = None
        self._started = time.monotonic()
        if self.interval > 0:
            self._loop = LoopingCall(self.report)
            self._loop.start(self.interval, now=False)
        # the counts at the start (what this run ended is counted from them), read off the
        # event loop; the engine waits for it before the first request
        current = await maybe_deferred_to_future(deferToThread(self._read))
        self._ended_before = (current.ok + current.error) if current is not None else 0

    def _read(self) -> CourtProgress | None:
        if self._path is None or (isinstance(self._path, Path) and not self._path.exists()):
            return None
        try:
            conn = connect_readonly(self._path, timeout=5)
            try:
                if self._courts:  # this worker's courts only (indexed reads of the counts)
                    found = court_progress(conn, courts=self._courts)
                else:
                    found = court_progress(conn, self._court)
            finally:
                conn.close()
        except read_errors() as exc:
            logger.warning("progress: cannot read %s: %s", self._where(), exc)
            return None
        self._per_court = list(found)
        total = CourtProgress(self._court, 0, 0, 0, 0, 0, 0)
        for p in found:
            total = CourtProgress(
                self._court,
                total.cases_known + p.cases_known,
                total.cases_complete + p.cases_complete,
                total.pending + p.pending,
                total.inflight + p.inflight,
                total.ok + p.ok,
                total.error + p.error,
            )
        return total

    def _where(self) -> str:
        """The state as messages name it (a database URL without its password)."""
        return redact_url(self._path) if isinstance(self._path, str) else str(self._path)

    def _ended(self, p: CourtProgress) -> int:
        return max(0, p.ok + p.error - (self._ended_before or 0))

    def report(self) -> Deferred[None]:
        """One progress line, read from the kept counts of this crawl's courts
        (:mod:`extensions.state_counts`) in a thread, off the crawl's event loop; the next line
        waits for it."""
        d: Deferred[CourtProgress | None] = deferToThread(self._read)
        return d.addCallback(self._log_progress)

    def _published(self, court: str) -> int | None:
        stats = self.crawler.stats
        value = stats.get_value(f"{STAT_PUBLISHED}{court}") if stats is not None else None
        return int(value) if value is not None else None

    def _pace(self, p: CourtProgress) -> Pace:
        """The run's exchanges, the published totals and the polite rate of ``p``'s courts."""
        stats = self.crawler.stats
        exchanges = 0
        if stats is not None:
            exchanges = int(stats.get_value("downloader/response_count", 0) or 0) + int(
                stats.get_value("downloader/exception_count", 0) or 0
            )
        courts = [c.court for c in self._per_court] or [self._court]
        published: int | None = None
        for court, c in zip(courts, self._per_court or [p], strict=False):
            n = self._published(court)
            if n is not None or published is not None:
                published = (published or 0) + (n if n is not None else c.cases_known)
        delay = self.crawler.settings.getfloat("DOWNLOAD_DELAY", 0.0)
        open_courts = sum(1 for c in self._per_court if c.waiting) or 1
        polite = open_courts / delay if delay > 0 else None
        return Pace(exchanges, published, polite, self._floor)

    def line(self, p: CourtProgress, elapsed: float) -> str:
        """The progress line of ``p`` now; a multi-court crawl adds its slowest court."""
        pace = self._pace(p)
        text = progress_line(p, ended=self._ended(p), elapsed=elapsed, pace=pace)
        expected = expected_cases(p, pace)
        if expected:
            self._floor = max(self._floor, 100.0 * p.cases_complete / expected)
        if len(self._per_court) > 1:

            def share(c: CourtProgress) -> float:
                n = max(c.cases_known, self._published(c.court) or 0)
                return c.cases_complete / n if n else 0.0

            slowest = min(self._per_court, key=share)
            known = max(slowest.cases_known, self._published(slowest.court) or 0)
            text += (
                f"; slowest {slowest.court}: {slowest.cases_complete}/{known} complete, "
                f"{slowest.waiting} waiting"
            )
        return text

    def _log_progress(self, p: CourtProgress | None) -> None:
        if p is None:
            return
        elapsed = time.monotonic() - self._started
        logger.info("%s", self.line(p, elapsed))

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if not self._opened:
            return  # refused to start (the court locked, a bad setting): nothing to sum up
        # read off the event loop; the engine waits for it before the stats are closed
        final = await maybe_deferred_to_future(deferToThread(self.summary, reason))
        status, _ = final
        if self.crawler.stats is not None:
            self.crawler.stats.set_value(STAT_EXIT, int(status))
        self._final = final

    def engine_stopped(self) -> None:
        """The summary, last: after Scrapy's stats dump and "Spider closed" (a scrapyd job's log
        ends with it)."""
        if self._final is None:
            return
        status, text = self._final
        self._final = None
        log = logger.info if status is ExitStatus.DONE else logger.warning
        log("%s", text)

    def summary(self, reason: str, *, forced: bool = False) -> tuple[ExitStatus, str]:
        """The exit status and the summary of a crawl that ends with ``reason``, read from the
        state. ``forced``: the process exits now (a second signal, an overdue stop) with
        :attr:`ExitStatus.STOPPED`, whatever the state says. Safe from another thread."""
        p = self._read()
        elapsed = time.monotonic() - self._started
        failed_challenge = 0
        groups = []
        if p is not None and p.error and self._path is not None:
            try:
                conn = connect_readonly(self._path, timeout=5)
                try:
                    courts = self._courts or [self._court]
                    groups = [g for c in courts for g in error_groups(conn, c, limit=5)][:5]
                    failed_challenge = sum(
                        int(
                            conn.execute(
                                "SELECT count(*) FROM requests WHERE court = ? "
                                "AND status = 'error' AND substr(last_error, 1, ?) = ?",
                                (court, len(CHALLENGE_REASON), CHALLENGE_REASON),
                            ).fetchone()[0]
                        )
                        for court in courts
                    )
                finally:
                    conn.close()
            except read_errors() as exc:
                logger.warning("summary: cannot read %s: %s", self._where(), exc)
        facts = CrawlFacts(
            close_reason=reason,
            fatal=reason in FATAL_CLOSE_REASONS,
            waiting=p.waiting if p is not None else 0,
            failed=p.error if p is not None else 0,
            challenged_with_browser_off=failed_challenge > 0,
        )
        status = ExitStatus.STOPPED if forced else decide(facts)
        lines = [f"summary {self._court}: {reason} after {format_duration(elapsed)}"]
        if p is not None:
            lines.append(self.line(p, elapsed))
        for g in groups:
            lines.append(f"  failed: {g.count} x {g.reason} (e.g. {g.example_url})")
        lines.append(f"exit status {int(status)}: {ADVICE[status]}")
        return status, "\n".join(lines)


def exit_status_of(crawler: Crawler) -> int | None:
    """The exit status the summary decided, or ``None`` (the spider never opened)."""
    try:
        stats = crawler.stats
    except RuntimeError:  # the crawl never started (a bad spider argument)
        return None
    value: Any = stats.get_value(STAT_EXIT) if stats is not None else None
    return int(value) if value is not None else None
