"""Politeness pacing per court: the mean gap between requests equals the configured delay.

``DOWNLOADER = "extensions.pacing.PacedDownloader"`` gives every downloader slot (one per court
host) a :class:`PacedSlot`; ``extensions.pacing.PacedAutoThrottle`` replaces Scrapy's AutoThrottle
extension. What they change, and why (docs/scheduler.md, "Pacing"):

* **The delay is drawn once per gap.** Scrapy's slot draws a new randomised delay
  (``DOWNLOAD_DELAY`` x U(1 - jitter, 1 + jitter)) every time it looks at its queue: when a
  request arrives, when a download ends, and when its own timer fires. When the timer of a short
  draw fires, a new draw is usually longer than the time already waited, so the slot waits again:
  a gap ends at the first draw that is not longer than the time waited, which biases every gap
  up (measured: 1.27 s mean for a 1.0 s delay, a court at 0.79 of its polite rate). A
  :class:`PacedSlot` draws the random factor once after each request it sends and keeps it until
  the next, so gaps are uniform on [delay x (1 - jitter), delay x (1 + jitter)], mean = delay;
  the draws come in mirrored pairs (``1 + u``, then ``1 - u``), so the mean holds over any
  stretch of the crawl, not only in expectation.
  When AutoThrottle changes the delay meanwhile, the same factor applies to the new delay. A
  send that went out late (a busy machine's timer) is taken off the next gap, within the
  jittered range, so lateness does not add up either.
* **The best request goes first.** Scrapy's slot sends its queue first in, first out; the
  scheduler hands over requests of a few cases at once (the case cap), so a FIFO slot would
  interleave them and every case would take cap x longer to complete. A :class:`PacedSlot` sends
  the queued request of the highest ``priority`` first, then the oldest row
  (``meta["harvest_rid"]``): a started case's next tab goes before another case's detail, and
  the first case is complete after about its own requests x delay.
* **AutoThrottle only slows down.** Scrapy's AutoThrottle may lower a slot's delay to
  ``DOWNLOAD_DELAY`` even when the court's ``DOWNLOAD_SLOTS`` entry asks for a longer one;
  :class:`PacedAutoThrottle` never goes under the slot's own configured delay.
"""

from __future__ import annotations

import heapq
import itertools
import random
from typing import TYPE_CHECKING, Any

from scrapy.core.downloader import Downloader, Slot
from scrapy.extensions.throttle import AutoThrottle

if TYPE_CHECKING:
    from collections.abc import Iterator

    from scrapy import Request, Spider
    from scrapy.http import Response
    from twisted.internet.defer import Deferred

__all__ = ["PacedAutoThrottle", "PacedDownloader", "PacedSlot", "PriorityQueue"]

#: Row id of a dispatched request (extensions.scheduler.META_RID; not imported: no cycle).
_META_RID = "harvest_rid"

_Entry = tuple["Request", "Deferred[Response]"]


class PriorityQueue:
    """The queue of a :class:`PacedSlot`: the deque operations Scrapy's downloader uses
    (``append``, ``popleft``, ``len``, truth, iteration), in priority order.

    Order: ``priority`` descending, then the scheduler's row id ascending (the older row: rows of
    a case started earlier were created earlier), then arrival. A request without a row id (a
    session warm-up, sent for the row that waits on it) goes before rows of its priority.
    """

    __slots__ = ("_counter", "_heap")

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, int, _Entry]] = []
        self._counter = itertools.count()

    def append(self, entry: _Entry) -> None:
        request = entry[0]
        rid = request.meta.get(_META_RID)
        order = rid if isinstance(rid, int) else -1
        heapq.heappush(self._heap, (-request.priority, order, next(self._counter), entry))

    def popleft(self) -> _Entry:
        return heapq.heappop(self._heap)[3]

    def __len__(self) -> int:
        return len(self._heap)

    def __bool__(self) -> bool:
        return bool(self._heap)

    def __iter__(self) -> Iterator[_Entry]:
        return (item[3] for item in sorted(self._heap))


class PacedSlot(Slot):
    """A downloader slot with a delay drawn once per gap and a priority-ordered queue.

    ``floor``: the smallest delay AutoThrottle may set (the slot's configured delay).

    Draws come in antithetic pairs: a gap of ``delay x (1 + u)`` (``u`` uniform on
    [-jitter, jitter]) is followed by one of ``delay x (1 - u)``. Each gap is as random as
    Scrapy's, and the mean over any stretch of a crawl is the delay (not just its expectation:
    with independent draws a 150-request window is off by 2.4% one time in three).

    A send that went out later than its gap planned (the event loop's timer fired late on a
    busy machine, or nothing was queued at that moment) is owed back on the next gap: that gap
    is shortened by the lateness, at most by ``jitter x delay`` and never under the shortest
    gap the jitter allows (``delay x (1 - jitter)``). Every gap stays in the jittered range and
    the gaps never add up to less than their draws: the mean gap is the delay, not the delay
    plus the timer's lateness.
    """

    def __init__(self, concurrency: int, delay: float, jitter: float, floor: float) -> None:
        super().__init__(concurrency, delay, jitter)
        self.queue = PriorityQueue()  # type: ignore[assignment]
        self.floor = floor
        self._factor = 1.0
        self._mirror: float | None = None  # the next gap's factor: 2 - the last draw
        self._owed = 0.0  # lateness of the last send, taken off this gap
        self._drawn_after: float | None = None  # the ``lastseen`` the factor was drawn for
        self._due: float | None = None  # when the current gap is planned to end

    def download_delay(self) -> float:
        if not self.jitter:
            return self.delay
        if self._drawn_after != self.lastseen:
            # a request went out since the last draw: this is a new gap
            late = self.lastseen - self._due if self._due is not None else 0.0
            self._owed = min(max(0.0, late), self.jitter * self.delay)
            self._drawn_after = self.lastseen
            if self._mirror is None:
                self._factor = 1.0 + random.uniform(-self.jitter, self.jitter)
                self._mirror = 2.0 - self._factor
            else:  # antithetic pairs: every two gaps add up to twice the delay
                self._factor, self._mirror = self._mirror, None
        shortest = self.delay * max(0.0, 1.0 - self.jitter)
        gap = max(shortest, self.delay * self._factor - self._owed)
        self._due = self.lastseen + gap
        return gap


class PacedDownloader(Downloader):
    """Scrapy's downloader with :class:`PacedSlot` slots (``DOWNLOADER`` setting)."""

    def _get_slot(self, request: Request, spider: Spider | None = None) -> tuple[str, Slot]:
        key = self.get_slot_key(request)
        fresh = key not in self.slots
        key, slot = super()._get_slot(request)
        if fresh and not isinstance(slot, PacedSlot):
            configured = self.per_slot_settings.get(key, {}).get("delay")
            floor = float(
                configured if configured is not None else self.settings["DOWNLOAD_DELAY"]
            )
            paced = PacedSlot(slot.concurrency, slot.delay, slot.jitter, floor)
            self.slots[key] = paced
            return key, paced
        return key, slot


class PacedAutoThrottle(AutoThrottle):
    """Scrapy's AutoThrottle that never sets a slot's delay under the slot's configured delay.

    Scrapy's floor is ``DOWNLOAD_DELAY`` for every slot; a court given a longer delay in
    ``DOWNLOAD_SLOTS`` keeps it here. Above the floor it adapts as Scrapy's does (towards
    latency / ``AUTOTHROTTLE_TARGET_CONCURRENCY``, at most ``AUTOTHROTTLE_MAX_DELAY``); it
    never changes a slot's concurrency.
    """

    def _adjust_delay(self, slot: Slot, latency: float, response: Response) -> None:
        super()._adjust_delay(slot, latency, response)
        floor: Any = getattr(slot, "floor", None)
        if isinstance(floor, float) and slot.delay < floor:
            slot.delay = floor
