"""A crawl that reports itself: a progress line at a steady interval, a summary at the end.

``EXTENSIONS = {"extensions.progress.ProgressReporter": 0}`` (harvest/settings.py). Every
``HARVEST_PROGRESS_INTERVAL`` seconds (float, default 60; ``0`` = no progress lines, the summary
stays) it logs one line from the state database (``state.sqlite``, read-only)::

    progress pn-x: cases 120/340 complete (35.3%); requests 980 ok, 45 waiting, 3 failed;
    41.2 req/min; ETA 1m06s

*cases* are the court's case groups (complete = detail and every tab ``ok``), *waiting* is
``pending + inflight``, the rate counts requests that ended (``ok`` or ``error``) in this run
over its duration, and the ETA is *waiting* over that rate. When the spider closes it logs the
summary (the same numbers, the run's duration, the close reason, the failed requests by reason)
and sets the stat ``harvest/exit_status`` to the code ``scrapy crawl`` exits with
(:mod:`harvest.exit_status`).

Switched off (``NotConfigured``) for a crawl without the harvest state (Scrapy's own scheduler,
``scrapy shell``).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import load_object
from twisted.internet.task import LoopingCall
from twisted.internet.threads import deferToThread

from harvest.dburl import redact_url
from harvest.exit_status import (
    ADVICE,
    CHALLENGE_REASON,
    FATAL_CLOSE_REASONS,
    CrawlFacts,
    ExitStatus,
    decide,
)
from harvest.settings_error import SettingsError
from harvest.workspace import STATE_DB, WorkspaceError, resolve_workspace

from .config import SchedulerConfig
from .scheduler import HarvestScheduler, court_of, harvests_a_court
from .state_queries import (
    READ_ERRORS,
    CourtProgress,
    connect_readonly,
    court_progress,
    error_groups,
)

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from twisted.internet.defer import Deferred

__all__ = ["DEFAULT_INTERVAL", "ProgressReporter", "format_duration", "progress_line"]

logger = logging.getLogger(__name__)

#: Default of ``HARVEST_PROGRESS_INTERVAL`` (seconds between progress lines).
DEFAULT_INTERVAL = 60.0
STAT_EXIT = "harvest/exit_status"


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


def progress_line(p: CourtProgress, *, ended: int, elapsed: float) -> str:
    """One progress line (see the module docstring); ``ended``: requests that ended in this run."""
    share = f" ({100.0 * p.cases_complete / p.cases_known:.1f}%)" if p.cases_known else ""
    rate = ended * 60.0 / elapsed if elapsed > 0 else 0.0
    if p.waiting == 0:
        eta = "nothing waiting"
    elif rate > 0:
        eta = "ETA " + format_duration(p.waiting * 60.0 / rate)
    else:
        eta = "ETA unknown (nothing ended yet)"
    return (
        f"progress {p.court}: cases {p.cases_complete}/{p.cases_known} complete{share}; "
        f"requests {p.ok} ok, {p.waiting} waiting, {p.error} failed; {rate:.1f} req/min; {eta}"
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
        return o

    @property
    def is_open(self) -> bool:
        """The spider opened: :meth:`summary` has a court and a state to read."""
        return self._opened

    def spider_opened(self, spider: Spider) -> None:
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
        current = self._read()
        self._ended_before = (current.ok + current.error) if current is not None else 0
        if self.interval > 0:
            self._loop = LoopingCall(self.report)
            self._loop.start(self.interval, now=False)

    def _read(self) -> CourtProgress | None:
        if self._path is None or (isinstance(self._path, Path) and not self._path.exists()):
            return None
        try:
            conn = connect_readonly(self._path, timeout=5)
            try:
                if self._courts:
                    wanted = set(self._courts)
                    found = [p for p in court_progress(conn) if p.court in wanted]
                else:
                    found = court_progress(conn, self._court)
            finally:
                conn.close()
        except READ_ERRORS as exc:
            logger.warning("progress: cannot read %s: %s", self._where(), exc)
            return None
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
        """One progress line. The counting query scans the court's rows (a second on a million),
        so it runs in a thread, off the crawl's event loop; the next line waits for it."""
        d: Deferred[CourtProgress | None] = deferToThread(self._read)
        return d.addCallback(self._log_progress)

    def _log_progress(self, p: CourtProgress | None) -> None:
        if p is None:
            return
        elapsed = time.monotonic() - self._started
        logger.info("%s", progress_line(p, ended=self._ended(p), elapsed=elapsed))

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if not self._opened:
            return  # refused to start (the court locked, a bad setting): nothing to sum up
        status, text = self.summary(reason)
        if self.crawler.stats is not None:
            self.crawler.stats.set_value(STAT_EXIT, int(status))
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
            except READ_ERRORS as exc:
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
            lines.append(progress_line(p, ended=self._ended(p), elapsed=elapsed))
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
