"""Pacing (extensions/pacing.py), quiet Scrapy loggers, the callbacks' generator-return check."""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import statistics
from collections.abc import Iterator

import pytest
from scrapy import Request
from scrapy.core.downloader import Slot
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.misc import is_generator_with_return_value
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

from extensions.pacing import PacedAutoThrottle, PacedDownloader, PacedSlot, PriorityQueue
from extensions.quietlog import QuietScrapyLogs, log_level
from harvest.spiders.sipp import SippSpider


def gaps(slot: Slot, n: int, *, late: float = 0.0, idle: float = 0.0) -> list[float]:
    """Gaps between sends of a slot, paced as Scrapy's downloader paces it
    (``Downloader._process_queue``).

    Right after a send the downloader asks ``download_delay()`` and arms a timer for it (other
    events do nothing while the timer is armed). When the timer fires (``late`` seconds after
    it was due: a busy machine) it asks again: if that answer is longer than the time waited,
    it waits for the difference and asks again, else it sends. ``idle``: every 4th request
    arrives only this long after the gap ended (nothing was queued), and is sent at once.
    """
    out = []
    slot.lastseen = 0.0
    for i in range(n):
        waited, delay = 0.0, slot.download_delay()  # the look right after the send
        if idle and i % 4 == 3:
            waited = delay + idle
            assert slot.download_delay() <= waited  # the look when it arrives: sent
        while waited < delay:
            waited = delay + late  # the timer fires
            delay = slot.download_delay()
        out.append(waited)
        slot.lastseen += waited  # the send
    return out


def test_a_delay_drawn_once_per_gap_keeps_the_mean_gap_at_the_delay() -> None:
    random.seed(16)
    ours = gaps(PacedSlot(2, 1.0, 0.5, floor=1.0), 4000)
    random.seed(16)
    scrapys = gaps(Slot(2, 1.0, 0.5), 4000)
    assert statistics.fmean(ours) == pytest.approx(1.0, abs=0.02)
    assert min(ours) >= 0.5
    assert max(ours) <= 1.5
    # Scrapy's slot draws again when its timer fires and waits again for a longer draw
    assert statistics.fmean(scrapys) > 1.15


def test_draws_come_in_mirrored_pairs_so_any_stretch_averages_the_delay() -> None:
    random.seed(3)
    ours = gaps(PacedSlot(2, 1.0, 0.5, floor=1.0), 300)
    pairs = [a + b for a, b in zip(ours[::2], ours[1::2], strict=True)]
    assert pairs == pytest.approx([2.0] * 150)
    assert len({round(g, 6) for g in ours}) > 140  # each gap is still random
    for start in range(0, 280, 40):  # a stretch of 20 requests anywhere
        assert statistics.fmean(ours[start : start + 20]) == pytest.approx(1.0)


def test_a_late_timer_is_taken_off_the_next_gap_within_the_jitter() -> None:
    random.seed(7)
    ours = gaps(PacedSlot(2, 1.0, 0.5, floor=1.0), 4000, late=0.04)
    random.seed(7)
    scrapys = gaps(Slot(2, 1.0, 0.5), 4000, late=0.04)
    assert statistics.fmean(ours) == pytest.approx(1.0, abs=0.02)
    assert min(ours) >= 0.5
    assert statistics.fmean(scrapys) > 1.2
    # a request that came late (nothing was queued) shortens the next gap, never under 0.5 s,
    # and the gaps never add up to less than the delay each
    random.seed(8)
    idle = gaps(PacedSlot(2, 1.0, 0.5, floor=1.0), 4000, idle=0.3)
    assert min(idle) >= 0.5
    assert statistics.fmean(idle) >= 1.0
    fixed = gaps(PacedSlot(2, 1.0, 0.0, floor=1.0), 100, late=0.04)
    assert min(fixed) == pytest.approx(1.04)  # no jitter: no gap shorter than the delay


def test_the_draw_is_kept_until_the_next_send_and_follows_autothrottle() -> None:
    slot = PacedSlot(2, 1.0, 0.5, floor=1.0)
    slot.lastseen = 10.0
    first = slot.download_delay()
    assert 0.5 <= first <= 1.5
    assert {slot.download_delay() for _ in range(50)} == {first}
    slot.delay = 2.0  # AutoThrottle slows the court down: the same factor, the new delay
    assert slot.download_delay() == pytest.approx(2 * first)
    slot.lastseen = 11.2  # a send: a new gap, a new draw
    draws = set()
    for t in range(30):
        slot.lastseen = 12.0 + t
        draws.add(slot.download_delay())
    assert len(draws) > 25
    assert PacedSlot(2, 1.0, 0.0, floor=1.0).download_delay() == 1.0


def req(priority: int, rid: int | None = None, url: str = "http://127.0.0.1/") -> Request:
    meta = {"harvest_rid": rid} if rid is not None else {}
    return Request(url, priority=priority, meta=meta)


def drain(queue: PriorityQueue) -> Iterator[Request]:
    while queue:
        yield queue.popleft()[0]


def test_the_slot_sends_the_best_request_first() -> None:
    queue = PriorityQueue()
    later_case = req(10, rid=40)
    older_tab = req(20, rid=31)
    newer_tab = req(20, rid=55)
    tab_hop = req(22, rid=57)  # RedirectMiddleware's +2 on a tab's redirect
    warmup = req(20)  # a session warm-up sent for a tab (no row of its own)
    list_page = req(0, rid=3)
    same_a, same_b = req(10, rid=41, url="http://127.0.0.1/a"), req(10, rid=41)
    for r in (later_case, newer_tab, list_page, older_tab, same_a, warmup, tab_hop, same_b):
        queue.append((r, Deferred()))
    assert len(queue) == 8
    assert [e[0] for e in queue][:2] == [tab_hop, warmup]  # iteration: in order, not consumed
    assert list(drain(queue)) == [
        tab_hop, warmup, older_tab, newer_tab, later_case, same_a, same_b, list_page,
    ]  # fmt: skip
    assert not queue


def test_the_downloader_gives_every_court_a_paced_slot_with_its_own_floor() -> None:
    crawler = get_crawler(
        settings_dict={
            "DOWNLOAD_DELAY": 1.0,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
            "DOWNLOAD_SLOTS": {"slow.example": {"delay": 3.0, "concurrency": 1}},
            "DOWNLOADER_MIDDLEWARES_BASE": {},
            "DOWNLOADER_MIDDLEWARES": {},
            # no HTTP client (it wants a running reactor): only slots are looked at
            "DOWNLOAD_HANDLERS": {"http": None, "https": None},
        }
    )

    async def slots() -> None:  # the slot GC timer wants a running event loop
        downloader = PacedDownloader(crawler)
        key, slot = downloader._get_slot(Request("https://sipp.pn-x.go.id/list_perkara"))
        assert key == "sipp.pn-x.go.id"
        assert isinstance(slot, PacedSlot)
        assert isinstance(slot.queue, PriorityQueue)
        assert (slot.concurrency, slot.delay, slot.jitter, slot.floor) == (2, 1.0, 0.5, 1.0)
        assert downloader._get_slot(Request("https://sipp.pn-x.go.id/detil"))[1] is slot
        _, slow = downloader._get_slot(Request("https://slow.example/"))
        assert isinstance(slow, PacedSlot)
        assert (slow.concurrency, slow.delay, slow.floor) == (1, 3.0, 3.0)
        downloader.close()

    asyncio.run(slots())


def test_autothrottle_never_goes_under_the_court_delay() -> None:
    crawler = get_crawler(settings_dict={"AUTOTHROTTLE_ENABLED": True, "DOWNLOAD_DELAY": 1.0})
    throttle = PacedAutoThrottle(crawler)
    throttle.mindelay, throttle.maxdelay = 1.0, 30.0
    request = Request("https://slow.example/")
    fast = HtmlResponse(request.url, status=200, body=b"<html></html>", request=request)
    slow_court = PacedSlot(1, 3.0, 0.5, floor=3.0)
    throttle._adjust_delay(slow_court, 0.05, fast)  # Scrapy's would set 1.525 s
    assert slow_court.delay == 3.0
    other = PacedSlot(2, 1.0, 0.5, floor=1.0)
    throttle._adjust_delay(other, 0.05, fast)
    assert other.delay == 1.0
    throttle._adjust_delay(other, 4.0, fast)  # a slow response slows the court down
    assert other.delay == 4.0
    throttle._adjust_delay(other, 60.0, fast)
    assert other.delay == 30.0  # AUTOTHROTTLE_MAX_DELAY


def test_quiet_scrapy_logs_drop_records_under_the_log_level_at_the_call() -> None:
    scrapy_logger = logging.getLogger("scrapy")
    before = scrapy_logger.level
    try:
        scrapy_logger.setLevel(logging.DEBUG)
        QuietScrapyLogs.from_crawler(get_crawler(settings_dict={"LOG_LEVEL": "INFO"}))
        assert not logging.getLogger("scrapy.core.engine").isEnabledFor(logging.DEBUG)
        assert logging.getLogger("scrapy.core.engine").isEnabledFor(logging.INFO)
        with pytest.raises(NotConfigured, match="DEBUG"):
            QuietScrapyLogs.from_crawler(get_crawler(settings_dict={"LOG_LEVEL": "DEBUG"}))
    finally:
        scrapy_logger.setLevel(before)
    assert (log_level("warning"), log_level(30), log_level("30")) == (30, 30, 30)
    with pytest.raises(NotConfigured, match="is not a logging level"):
        log_level("LOUD")


def test_no_spider_callback_is_a_generator_returning_a_value() -> None:
    # WARN_ON_GENERATOR_RETURN_VALUE is off (Scrapy re-read the source on every response):
    # the check it made runs here, once, on every callback of the spider
    callbacks = [
        member
        for name, member in inspect.getmembers(SippSpider, inspect.isfunction)
        if name.startswith("parse")
    ]
    assert {c.__name__ for c in callbacks} >= {"parse_list", "parse_case", "parse_tab"}
    assert [c.__name__ for c in callbacks if is_generator_with_return_value(c)] == []
