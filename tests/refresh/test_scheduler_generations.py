"""The scheduler's side of a refresh, without a reactor: it opens the court's generation from
the spider's policy and day, hands it to the spider, renews older rows once per generation and
records the generation finished at close."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from scrapy.utils.request import RequestFingerprinter

from extensions.config import SchedulerConfig
from extensions.scheduler import HarvestScheduler
from tests.support.refresh import RefreshSpider, fetch_all, list_page
from tests.support.scheduler import StatsStub


def open_scheduler(ws: Path, spider: RefreshSpider) -> tuple[HarvestScheduler, StatsStub]:
    stats = StatsStub()
    s = HarvestScheduler(
        config=SchedulerConfig(workspace=str(ws), commit="each"),
        stats=stats,  # type: ignore[arg-type]
        fingerprint=RequestFingerprinter().fingerprint,
    )
    s.open(spider)
    return s, stats


def generations(ws: Path) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(ws / "state.sqlite")
    try:
        return con.execute(
            "SELECT generation, policy, today, finished_at IS NOT NULL FROM generations"
        ).fetchall()
    finally:
        con.close()


def test_generations_through_the_scheduler(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    # the first harvest: generation 0, whatever the policy asked
    spider = RefreshSpider("none", "2024-06-19")
    s, stats = open_scheduler(ws, spider)
    assert [(g.number, g.policy) for g in spider.opened] == [(0, "initial")]
    assert s.enqueue_request(list_page(0))
    assert fetch_all(s) == 1
    s.close("finished")
    assert generations(ws) == [(0, "initial", "2024-06-19", 1)]
    assert stats.values.get("harvest/scheduler/generation_started") == 1

    # a plain crawl of the finished court: the seed is a duplicate, nothing to do
    spider = RefreshSpider("none", "2024-06-26")
    s, stats = open_scheduler(ws, spider)
    assert spider.opened[0].finished
    assert not s.enqueue_request(list_page(0))
    assert fetch_all(s) == 0
    s.close("finished")

    # a refresh: generation 1, the same key renewed once; a request without the meta key
    # belongs to the crawl's generation
    spider = RefreshSpider("due", "2024-06-26")
    s, stats = open_scheduler(ws, spider)
    assert [(g.number, g.policy, g.today) for g in spider.opened] == [(1, "due", "2024-06-26")]
    assert s.enqueue_request(list_page(1))
    assert not s.enqueue_request(list_page(1))
    assert not s.enqueue_request(list_page(None))
    s.close("shutdown")  # stopped with the page pending: generation 1 stays unfinished
    assert generations(ws)[-1] == (1, "due", "2024-06-26", 0)

    # the next plain crawl resumes generation 1 and finishes it
    spider = RefreshSpider("none", "2024-07-01")
    s, stats = open_scheduler(ws, spider)
    assert [(g.number, g.policy, g.today) for g in spider.opened] == [(1, "due", "2024-06-26")]
    assert fetch_all(s) == 1
    s.close("finished")
    assert generations(ws) == [
        (0, "initial", "2024-06-19", 1),
        (1, "due", "2024-06-26", 1),
    ]
