"""What ``scrapy crawl sipp`` exits with: one code per way a crawl can end (README, "Exit status").

========  ===================================================================================
code      meaning
========  ===================================================================================
``0``     done: nothing of the court waits or failed
``1``     refused to start, or stopped by a fatal error: bad spider arguments or settings, an
          unusable workspace, the court already being crawled, ``-a listing`` not in the
          court's menu, the state, item store or page archive failing (a full disk, a lock, a
          database outage)
``2``     the command line itself is wrong (Scrapy's usage error)
``3``     finished with failed requests left: see ``scrapy status``, then ``scrapy requeue``
``4``     blocked by a JavaScript challenge with the browser off: ``-s SIPP_BROWSER=challenge``
``5``     stopped before the end (Ctrl+C, a scrapyd cancel, a ``CLOSESPIDER_*`` limit) with
          requests still waiting: run the same command again to resume
========  ===================================================================================

Pure: the crawl command gathers the facts (:class:`CrawlFacts`), :func:`decide` names the code.
The close reasons it reads are spelt in :mod:`harvest.base.close_reasons`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from harvest.base.close_reasons import FINISHED

__all__ = [
    "CHALLENGE_REASON",
    "CrawlFacts",
    "ExitStatus",
    "decide",
]

#: How the reason of a request failed by a JavaScript challenge with the browser off begins
#: (``harvest.clearance.OFF_REASON``).
CHALLENGE_REASON = "court behind a JavaScript challenge"


class ExitStatus(enum.IntEnum):
    DONE = 0
    REFUSED = 1
    USAGE = 2
    FAILED_LEFT = 3
    CHALLENGE = 4
    STOPPED = 5


#: What each code tells the user (printed with the crawl's summary).
ADVICE = {
    ExitStatus.DONE: "done: every request of the court succeeded",
    ExitStatus.REFUSED: "refused to start or stopped by a fatal error (see the ERROR lines above)",
    ExitStatus.USAGE: "the command line is wrong (scrapy crawl -h)",
    ExitStatus.FAILED_LEFT: "finished with failed requests left: scrapy status shows them by "
    "reason; scrapy requeue sends them back, then crawl again",
    ExitStatus.CHALLENGE: "the court answered with a JavaScript challenge and the browser is "
    "off: run again with -s SIPP_BROWSER=challenge (docs/browser.md)",
    ExitStatus.STOPPED: "stopped before the end with requests still waiting: run the same "
    "command again to resume",
}


@dataclass(frozen=True)
class CrawlFacts:
    """How a crawl ended, as far as the exit status cares."""

    #: Scrapy's close reason (``finished``, ``shutdown``, ...); ``None``: the spider never opened.
    close_reason: str | None
    #: The close reason is one that means "refused" or "fatal" (bad listing, full disk, ...).
    fatal: bool = False
    #: Requests of the court still ``pending`` or ``inflight`` in the state.
    waiting: int = 0
    #: Requests of the court in ``error``.
    failed: int = 0
    #: A JavaScript challenge was seen while the browser was off.
    challenged_with_browser_off: bool = False


def decide(facts: CrawlFacts) -> ExitStatus:
    """The exit status for ``facts`` (see the module docstring for the order of precedence)."""
    if facts.close_reason is None or facts.fatal:
        return ExitStatus.REFUSED
    if facts.challenged_with_browser_off and facts.failed:
        return ExitStatus.CHALLENGE
    if facts.waiting and facts.close_reason != FINISHED:
        return ExitStatus.STOPPED
    if facts.failed:
        return ExitStatus.FAILED_LEFT
    if facts.waiting:
        return ExitStatus.STOPPED
    return ExitStatus.DONE
