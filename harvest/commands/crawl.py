"""``scrapy crawl``: Scrapy's command, with an exit status that says how the crawl ended.

Scrapy exits 0 whenever the crawl started. This command exits with the code of
:mod:`harvest.exit_status` (README, "Exit status"): 0 done, 1 refused to start or stopped by a
fatal error, 3 failed requests left, 4 blocked by a JavaScript challenge with the browser off,
5 stopped with requests still waiting (also a stop forced by a second signal or overdue past
``HARVEST_STOP_TIMEOUT``: :mod:`extensions.stopping`). A bad spider argument is one line on
stderr (no traceback) and exit 1; a fatal close (the request state or the item store failed,
e.g. a full disk) adds one line saying what to do
(:data:`harvest.base.close_reasons.FATAL_ADVICE`). The summary itself is logged by
:class:`extensions.progress.ProgressReporter`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError

from extensions import expected_failures
from extensions.progress import exit_status_of
from extensions.stopping import StopGuard, stop_timeout
from extensions.store import StateError
from harvest.base.close_reasons import FATAL_ADVICE
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import WorkspaceError
from harvest.exit_status import ExitStatus
from harvest.spider_args import SpiderArgumentError

if TYPE_CHECKING:
    import argparse

    from scrapy import Spider
    from twisted.python.failure import Failure

__all__ = ["Command"]

logger = logging.getLogger(__name__)

#: Why a crawl refuses to start, each with a message that says the fix (exit status 1).
REFUSALS = (WorkspaceError, SettingsError, StateError)


class Command(ScrapyCrawlCommand):
    def long_desc(self) -> str:
        return (
            "Run a spider (scrapy crawl sipp -a base_url=...; README.md, 'Spider arguments'). "
            "Exit status: 0 done, 1 refused to start or fatal error, 3 failed requests left, "
            "4 blocked by a JavaScript challenge with the browser off, 5 stopped with requests "
            "still waiting (README.md, 'Exit status')."
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) < 1:
            raise UsageError
        if len(args) > 1:
            raise UsageError("running 'scrapy crawl' with more than one spider is not supported")
        assert self.crawler_process
        assert self.settings is not None
        feeds = self.settings.getdict("FEEDS")
        if feeds and not self.settings.getbool("HARVEST_ALLOW_FEEDS"):
            # case data names real people: it stays in the private workspace (0700/0600)
            sys.stderr.write(
                f"scrapy crawl: refusing to write feed files ({', '.join(map(str, feeds))}): "
                "they would put case data outside the private workspace, readable by others. "
                "The harvest is in the workspace; take it out with scrapy export or ship.py. "
                "Under scrapyd set 'items_dir =' (empty) in scrapyd.conf; to write feeds "
                "anyway add -s HARVEST_ALLOW_FEEDS=True.\n"
            )
            self.exitcode = int(ExitStatus.REFUSED)
            return
        # an expected failure is the one line saying what to do; its tracebacks are DEBUG
        expected_failures.install()
        opened: list[bool] = []
        closed: list[str] = []
        refused: list[str] = []

        def spider_opened(spider: Spider, **_: Any) -> None:
            opened.append(True)

        def spider_closed(spider: Spider, reason: str, **_: Any) -> None:
            closed.append(str(reason))

        def bad_argument(failure: Failure) -> Failure | None:
            if isinstance(failure.value, SpiderArgumentError):
                refused.append(str(failure.value))
                return None
            return failure

        def bad_argument_task(task: asyncio.Future[Any]) -> None:
            exc = None if task.cancelled() else task.exception()
            if isinstance(exc, SpiderArgumentError):
                refused.append(str(exc))
            elif isinstance(exc, REFUSALS):
                # an unusable workspace or setting, the court locked: one line, no traceback
                logger.error("the crawl cannot start: %s", exc)
            elif exc is not None:
                logger.error("the crawl failed to start", exc_info=exc)

        try:
            timeout = stop_timeout(self.settings)
        except SettingsError as exc:
            sys.stderr.write(f"scrapy crawl: {exc}\n")
            self.exitcode = int(ExitStatus.REFUSED)
            return
        crawler = self._create_crawler(args[0])
        # one signal stops within HARVEST_STOP_TIMEOUT; a second exits 5 at once with the summary
        guard = StopGuard(crawler, timeout)
        guard.install(self.crawler_process)
        crawler.signals.connect(spider_opened, signal=signals.spider_opened, weak=False)
        crawler.signals.connect(spider_closed, signal=signals.spider_closed, weak=False)
        started: Any = self.crawler_process.crawl(crawler, **opts.spargs)
        if isinstance(started, asyncio.Future):
            started.add_done_callback(bad_argument_task)
        else:
            started.addErrback(bad_argument)
        self.crawler_process.start()
        for message in refused:
            sys.stderr.write(f"scrapy crawl: {message}\n")
        status = exit_status_of(crawler)
        if status is None:
            # the spider never opened (bad arguments or settings, the court locked) or it
            # closed before the summary could be made
            failed = refused or self.crawler_process.bootstrap_failed or not opened
            status = int(ExitStatus.REFUSED) if failed else int(ExitStatus.DONE)
        for reason in closed:
            if reason in FATAL_ADVICE:
                sys.stderr.write(
                    f"scrapy crawl: the crawl stopped early ({reason}): "
                    f"{FATAL_ADVICE[reason]}. Nothing recorded as done lacks its data: "
                    "fix the cause and run the same command again to resume.\n"
                )
        self.exitcode = status
        sys.stderr.flush()
        guard.exit_after_stop(status)  # stopped by a signal: nothing is left to wait for
