"""Courts that come back by themselves: when a court is paused, for how long, and why.

A court whose requests fail one after another for a reason the court causes by being away
(the connection refused or reset, a timeout, no answer, a 5xx), each after its whole attempt
budget (``RETRY_TIMES``), is *paused*: ``HARVEST_PAUSE_AFTER`` such failures in a row (default
3; ``0``: never pause) with no success between them. A worker (``-a max_courts=K``,
docs/multi-court.md) then sends those failed requests back to pending, closes the court's lane
(its lease given up), and records the pause in ``court_pauses`` (both backends) with its reason
and ``paused_until``: the court is claimed again only then, by this worker (which waits for it)
or by whichever crawl claims it next, with no ``scrapy requeue``. The back-off grows with the
pauses in a row: ``HARVEST_PAUSE_BACKOFF`` seconds (default 300), times 4 each pause, at most
``HARVEST_PAUSE_BACKOFF_MAX`` (default 21600, 6 h). The first success of the court forgets the
pause (event ``court_resumed``).

Pure policy here (the clock is injected); :mod:`extensions.multi` applies it.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from harvest.base.settings_error import SettingsError

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = ["BACKOFF_FACTOR", "PausePolicy", "is_court_down"]

#: Each pause in a row waits this many times longer than the one before.
BACKOFF_FACTOR = 4.0
DEFAULT_AFTER = 3
DEFAULT_BACKOFF = 300.0
DEFAULT_BACKOFF_MAX = 21600.0
#: A worker keeps waiting for a paused court due within this many seconds; a court due later
#: is left to the next crawl (the worker ends once nothing else is left).
DEFAULT_WAIT_MAX = 3600.0

#: Reasons (extensions/reasons.py) that say the court is away, not that a page is wrong.
_DOWN = re.compile(
    r"^(HTTP 5\d\d\b|(DownloadConnectionRefusedError|DownloadTimeoutError|DownloadFailedError|"
    r"ConnectionRefusedError|ConnectionLost|ConnectionDone|ConnectError|TCPTimedOutError|"
    r"TimeoutError|ResponseNeverReceived|ResponseFailed|DNSLookupError|NoRouteError|"
    r"ConnectingCancelledError)\b)"
)


def is_court_down(reason: str | None) -> bool:
    """Whether a request's final failure reason says its court is down or refusing."""
    return bool(reason) and _DOWN.match(reason or "") is not None


@dataclasses.dataclass(frozen=True)
class PausePolicy:
    """``HARVEST_PAUSE_*`` (see the module docstring)."""

    after: int = DEFAULT_AFTER
    backoff: float = DEFAULT_BACKOFF
    backoff_max: float = DEFAULT_BACKOFF_MAX
    wait_max: float = DEFAULT_WAIT_MAX
    now: Callable[[], float] = time.time

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> PausePolicy:
        def number(name: str, default: float) -> float:
            raw = settings.get(name, default)
            try:
                value = float(raw)
            except (TypeError, ValueError):
                value = -1.0
            if value < 0:
                raise SettingsError(
                    f"{name} must be a number of seconds (or a count) >= 0, got {raw!r} "
                    f"(default {default:g})"
                )
            return value

        return cls(
            after=int(number("HARVEST_PAUSE_AFTER", DEFAULT_AFTER)),
            backoff=number("HARVEST_PAUSE_BACKOFF", DEFAULT_BACKOFF),
            backoff_max=number("HARVEST_PAUSE_BACKOFF_MAX", DEFAULT_BACKOFF_MAX),
            wait_max=number("HARVEST_PAUSE_WAIT_MAX", DEFAULT_WAIT_MAX),
        )

    @property
    def enabled(self) -> bool:
        return self.after > 0

    def delay(self, count: int) -> float:
        """Seconds the ``count``-th pause in a row lasts (1: the first)."""
        return min(self.backoff_max, self.backoff * BACKOFF_FACTOR ** max(0, count - 1))
