"""A stop that always ends: one signal stops within a bound, a second one exits at once with 5.

Scrapy's own handling of SIGINT/SIGTERM (a scrapyd cancel sends one) is: the first signal closes
the spider gracefully, however long that takes; the second stops the reactor, and the process
then exits 0 with no summary. :class:`StopGuard` wraps the two handlers of the
:class:`~scrapy.crawler.CrawlerProcess` that runs ``scrapy crawl``:

* **First signal**: Scrapy's graceful close (requests in flight finish or are put back to
  pending; nothing new is sent), plus a watchdog: if the process is still running
  ``HARVEST_STOP_TIMEOUT`` seconds later (default ``DOWNLOAD_TIMEOUT`` + 15), it is forced as
  by a second signal, with a line saying so.
* **Second signal** (or the watchdog): the summary is logged from the state, the log handlers
  are flushed, and the process exits with 5 (:attr:`~harvest.exit_status.ExitStatus.STOPPED`)
  within :data:`FORCE_BACKSTOP` seconds, whatever it was doing. What was in flight stays
  ``inflight`` in the state, as after ``kill -9``: the next crawl puts it back to pending, so
  nothing is lost.

The process exits with ``os._exit``: nothing else runs after the summary (no interpreter
shutdown that could wait on a thread).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from typing import TYPE_CHECKING, Any

from scrapy.utils.ossignal import install_shutdown_handlers, signal_names

from harvest.exit_status import ExitStatus

from .progress import ProgressReporter
from .stop_bound import STOP_MARGIN, stop_timeout

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler, CrawlerProcessBase

__all__ = ["FORCE_BACKSTOP", "STOP_MARGIN", "StopGuard", "stop_timeout"]

logger = logging.getLogger(__name__)

#: Seconds a forced stop may spend writing its summary before the process exits anyway.
FORCE_BACKSTOP = 1.5


class StopGuard:
    """The stop handling of one ``scrapy crawl`` process (see the module docstring)."""

    def __init__(
        self,
        crawler: Crawler,
        timeout: float,
        *,
        exit_process: Callable[[int], Any] = os._exit,
    ) -> None:
        self.crawler = crawler
        self.timeout = timeout
        self._exit = exit_process
        self._forcing = threading.Lock()
        self._watchdog: threading.Timer | None = None
        #: a stop signal arrived (the process then exits as soon as the crawl is summed up)
        self.signalled = False

    def install(self, process: CrawlerProcessBase) -> None:
        """Wrap ``process``'s signal handlers (before ``process.start()`` installs them)."""
        graceful = process._signal_shutdown

        def first(signum: int, frame: Any) -> None:
            self.signalled = True
            graceful(signum, frame)  # also installs process._signal_kill for the next one
            self._arm_watchdog(signum)

        def second(signum: int, frame: Any) -> None:
            install_shutdown_handlers(signal.SIG_IGN)  # a third one changes nothing
            # not here: a signal handler must not log (the interrupted code may be writing)
            self._force_soon(f"forced by a second {signal_names.get(signum, signum)}")

        process._signal_shutdown = first  # type: ignore[method-assign, assignment]
        process._signal_kill = second  # type: ignore[method-assign, assignment]

    def _arm_watchdog(self, signum: int) -> None:
        name = signal_names.get(signum, str(signum))
        timer = threading.Timer(
            self.timeout, self.force, (f"the stop after {name} took over {self.timeout:g} s",)
        )
        timer.daemon = True
        timer.name = "harvest-stop-watchdog"
        self._watchdog = timer
        timer.start()

    def _force_soon(self, why: str) -> None:
        worker = threading.Thread(target=self.force, args=(why,), daemon=True)
        worker.name = "harvest-forced-stop"
        worker.start()

    def force(self, why: str) -> None:
        """Log the summary and exit 5 now (at most :data:`FORCE_BACKSTOP` s from here)."""
        if not self._forcing.acquire(blocking=False):
            return  # already forcing
        backstop = threading.Timer(FORCE_BACKSTOP, self._exit, (int(ExitStatus.STOPPED),))
        backstop.daemon = True
        backstop.start()
        try:
            logger.warning("stopping now: %s (HARVEST_STOP_TIMEOUT %g s)", why, self.timeout)
            reporter = self._reporter()
            if reporter is not None:
                _, text = reporter.summary(why, forced=True)
                logger.warning("%s", text)
            else:
                logger.warning("exit status 5: stopped before the end (%s)", why)
        except Exception:  # the exit below must happen whatever failed
            logger.exception("the forced stop's summary failed")
        finally:
            _flush_logs()
            self._exit(int(ExitStatus.STOPPED))

    def exit_after_stop(self, status: int) -> None:
        """After a stop signal, once the crawl is closed and summed up: exit with ``status``
        now. The state and the stores are closed; what is left is the interpreter's shutdown,
        which was seen waiting 13 s for a thread after a scrapyd cancel (under heavy load)."""
        if not self.signalled or not self._forcing.acquire(blocking=False):
            return
        _flush_logs()
        self._exit(status)

    def _reporter(self) -> ProgressReporter | None:
        extensions = getattr(self.crawler, "extensions", None)
        for ext in getattr(extensions, "middlewares", ()):
            if isinstance(ext, ProgressReporter) and ext.is_open:
                return ext
        return None


def _flush_logs() -> None:
    for handler in logging.getLogger().handlers:
        with contextlib.suppress(OSError, ValueError):
            handler.flush()
