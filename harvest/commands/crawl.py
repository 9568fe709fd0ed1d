"""``scrapy crawl``: Scrapy's command, with an exit status that says when a crawl failed.

Scrapy exits 0 whenever the crawl started, even when it was closed because its data could not be
stored. This command exits 1, with one line on stderr saying what to do, when the spider closed
for a reason in :data:`FATAL_CLOSE_REASONS` (the request state or the item store failed, e.g.
a full disk; a request that cannot be stored; the court's TLS certificate failed verification).
Everything else is Scrapy's ``crawl``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError

if TYPE_CHECKING:
    import argparse

    from scrapy import Spider

__all__ = ["FATAL_CLOSE_REASONS", "Command"]

#: Close reasons after which ``scrapy crawl`` exits 1, and what to do about each.
FATAL_CLOSE_REASONS = {
    "item_store_error": "the item store could not be written (see the ERROR lines above: "
    "a full disk, a damaged items.sqlite)",
    "harvest_state_error": "the request state could not be written (see the ERROR lines above: "
    "a full disk, a damaged state.sqlite)",
    "harvest_unserializable_request": "a request could not be stored in the request state",
    "harvest_tls_error": "the court's TLS certificate failed verification",
}


class Command(ScrapyCrawlCommand):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) < 1:
            raise UsageError
        if len(args) > 1:
            raise UsageError("running 'scrapy crawl' with more than one spider is not supported")
        assert self.crawler_process
        closed: list[str] = []

        def spider_closed(spider: Spider, reason: str, **_: Any) -> None:
            closed.append(str(reason))

        crawler = self._create_crawler(args[0])
        crawler.signals.connect(spider_closed, signal=signals.spider_closed, weak=False)
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
        for reason in closed:
            if reason in FATAL_CLOSE_REASONS:
                sys.stderr.write(
                    f"scrapy crawl: the crawl stopped early ({reason}): "
                    f"{FATAL_CLOSE_REASONS[reason]}. Nothing recorded as done lacks its data: "
                    "fix the cause and run the same command again to resume.\n"
                )
                self.exitcode = 1
