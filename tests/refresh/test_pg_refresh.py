"""Refresh generations with the request state on PostgreSQL (``HARVEST_DATABASE_URL``).

The scheduler's side without a reactor (as tests/refresh/test_scheduler_generations.py does on
SQLite), then a due refresh of a harvested court against the replica (as
tests/refresh/test_refresh_crawl.py). The state is read from the database itself: ``scrapy
status`` does not read PostgreSQL yet (docs/postgres.md), so the refresh's counts are checked
on the ``requests``, ``url_log``, ``events`` and ``generations`` rows and the crawl's stats; the
export reads ``items.sqlite``, which stays in the workspace.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from scrapy.utils.request import RequestFingerprinter

from extensions.config import SchedulerConfig
from extensions.scheduler import HarvestScheduler
from harvest.base.scrubbing import redact_url
from reference.sipp_site.court import TODAY
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, exported, mismatches, scrapy_command, truth_by_key
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)
from tests.support.refresh import (
    RefreshSpider,
    fetch_all,
    keys_of_generation,
    last_run,
    list_fetches,
    list_page,
)
from tests.support.scheduler import StatsStub

COURT = "pn-replika"
SEED = 23
CASES = 45


@pytest.fixture
def url(request: pytest.FixtureRequest) -> str:
    """A new database on the test server (dropped after the test)."""
    return str(request.getfixturevalue("pg_database"))


def query(url: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


def generations(url: str) -> list[tuple[Any, ...]]:
    return query(
        url,
        "SELECT generation, policy, today, finished_at IS NOT NULL FROM generations "
        "ORDER BY court, generation",
    )


# --- the scheduler, no reactor -----------------------------------------------------------------


def open_scheduler(
    ws: Path, url: str, spider: RefreshSpider
) -> tuple[HarvestScheduler, StatsStub]:
    stats = StatsStub()
    s = HarvestScheduler(
        config=SchedulerConfig(workspace=str(ws), commit="each", database_url=url),
        stats=stats,  # type: ignore[arg-type]
        fingerprint=RequestFingerprinter().fingerprint,
    )
    s.open(spider)
    return s, stats


def test_generations_through_the_scheduler_on_postgres(tmp_path: Path, url: str) -> None:
    ws = tmp_path / "ws"
    # the first harvest: generation 0, whatever the policy asked
    spider = RefreshSpider("none", "2024-06-19")
    s, stats = open_scheduler(ws, url, spider)
    assert [(g.number, g.policy) for g in spider.opened] == [(0, "initial")]
    assert s.enqueue_request(list_page(0))
    assert fetch_all(s) == 1
    s.close("finished")
    assert generations(url) == [(0, "initial", "2024-06-19", True)]
    assert stats.values.get("harvest/scheduler/generation_started") == 1

    # a plain crawl of the finished court: the seed is a duplicate, nothing to do
    spider = RefreshSpider("none", "2024-06-26")
    s, stats = open_scheduler(ws, url, spider)
    assert spider.opened[0].finished
    assert not s.enqueue_request(list_page(0))
    assert fetch_all(s) == 0
    s.close("finished")
    assert "harvest/scheduler/generation_started" not in stats.values

    # a refresh: generation 1, the same key renewed once, a request without the meta key
    # belongs to the crawl's generation
    spider = RefreshSpider("due", "2024-06-26")
    s, stats = open_scheduler(ws, url, spider)
    assert [(g.number, g.policy, g.today) for g in spider.opened] == [(1, "due", "2024-06-26")]
    assert s.enqueue_request(list_page(1))
    assert not s.enqueue_request(list_page(1))
    assert not s.enqueue_request(list_page(None))
    s.close("shutdown")  # stopped with the page pending: generation 1 stays unfinished
    assert generations(url)[-1] == (1, "due", "2024-06-26", False)

    # the next plain crawl resumes generation 1 and finishes it
    spider = RefreshSpider("none", "2024-07-01")
    s, stats = open_scheduler(ws, url, spider)
    assert [(g.number, g.policy, g.today) for g in spider.opened] == [(1, "due", "2024-06-26")]
    assert fetch_all(s) == 1
    s.close("finished")
    assert generations(url) == [
        (0, "initial", "2024-06-19", True),
        (1, "due", "2024-06-26", True),
    ]
    assert query(
        url,
        "SELECT e.event, e.detail FROM events AS e JOIN requests AS r ON r.id = e.request_id "
        "WHERE e.event IN ('enqueued', 'renewed') ORDER BY e.id",
    ) == [("enqueued", None), ("renewed", "generation 1")]
    assert not (ws / "state.sqlite").exists()


# --- a refresh crawl against the replica ---------------------------------------------------------


@pytest.mark.slow
def test_a_due_refresh_on_postgres_fetches_exactly_the_new_cases(tmp_path: Path, url: str) -> None:
    ws = tmp_path / "ws"
    settings = {"HARVEST_REFRESH_TODAY": TODAY.isoformat(), "HARVEST_DATABASE_URL": url}
    with running_replica(cases=CASES, seed=SEED, court_id=COURT) as before:
        first = crawl(before.url, COURT, ws, settings=settings)
        old_truth = truth_by_key(before.truth_path(tmp_path))
    assert first.returncode == 0, first.stderr[-3000:]
    assert f"state {redact_url(url)}" in first.stderr
    assert len(exported(ws, "-s", f"HARVEST_DATABASE_URL={url}")) == CASES
    # the state and the items are in the database, not in the workspace
    assert not (ws / "state.sqlite").exists()
    assert not (ws / "items.sqlite").exists()

    with running_replica(
        cases=CASES, seed=SEED, court_id=COURT, extra_args=["--registered", "25"]
    ) as after:
        # a plain crawl of the finished court does nothing and says how to refresh
        plain = crawl(after.url, COURT, ws, settings=settings)
        assert plain.returncode == 0, plain.stderr[-3000:]
        assert "-a refresh=due" in plain.stderr
        assert list_fetches(url, last_run(url)) == 0

        refresh = crawl(after.url, COURT, ws, spider_args={"refresh": "due"}, settings=settings)
        assert refresh.returncode == 0, refresh.stderr[-3000:]
        truth = truth_by_key(after.write_truth(tmp_path / "truth-after.jsonl", registered=0))
    # 70 rows newest first: page 1 = 20 new, page 2 = 5 new + 15 known, page 3 = 20 known and
    # unchanged: the walk stops after it
    assert list_fetches(url, last_run(url)) == 3
    for stat in (
        "'harvest/refresh/new': 25",
        "'harvest/refresh/skipped_not_due': 35",
        "'harvest/refresh/pages_walked': 3",
        "'harvest/refresh/stopped': 1",
        "'harvest/scheduler/generation_started': 1",
    ):
        assert stat in refresh.stderr, stat
    new_keys = {k.split(":", 1)[1] for k in set(truth) - set(old_truth)}
    assert len(new_keys) == 25
    assert keys_of_generation(url, "case", 1) == {f"case|{COURT}|{n}" for n in new_keys}
    assert keys_of_generation(url, "list", 1) == {f"list|{COURT}|all|{p}" for p in (1, 2, 3)}
    assert mismatches(exported(ws, "-s", f"HARVEST_DATABASE_URL={url}"), truth) == {}
    # scrapy status reads the generations and the documents from the database too
    status = scrapy_command(
        "status", ws, "--json", "-s", f"HARVEST_DATABASE_URL={url}",
        "-s", f"HARVEST_REFRESH_TODAY={TODAY.isoformat()}",
    )  # fmt: skip
    assert status.returncode == 0, status.stderr[-2000:]
    [entry] = json.loads(status.stdout)["refresh"]
    assert (entry["last"]["generation"], entry["last"]["policy"]) == (1, "due")
    assert (entry["refreshed"], entry["new"], entry["changed"], entry["due_now"]) == (25, 25, 0, 0)
    day = TODAY.isoformat()
    assert generations(url) == [(0, "initial", day, True), (1, "due", day, True)]
    # the renewed list page kept its history: enqueued in 0, renewed in 1
    assert query(
        url,
        "SELECT e.event, e.detail FROM events AS e JOIN requests AS r ON r.id = e.request_id "
        "WHERE r.key = %s AND e.event IN ('enqueued', 'renewed') ORDER BY e.id",
        (f"list|{COURT}|all|1",),
    ) == [("enqueued", None), ("renewed", "generation 1")]
    # every row is done, and every case fetched in generation 1 has its success recorded
    assert query(url, "SELECT DISTINCT status FROM requests") == [("ok",)]
    assert query(
        url,
        "SELECT count(*) FROM requests WHERE kind = 'case' AND generation = 1 "
        "AND succeeded_at IS NOT NULL AND succeeded_at > created_at",
    ) == [(25,)]
    assert query(url, "SELECT count(*) FROM court_leases") == [(0,)]
    assert not (ws / "state.sqlite").exists()
    password = urlsplit(url).password
    assert password
    assert password not in first.stderr + plain.stderr + refresh.stderr
