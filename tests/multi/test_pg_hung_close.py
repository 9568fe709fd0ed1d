"""A worker whose close hangs gives its courts up (issue 29): once its engine has been closing
for longer than ``HARVEST_STOP_TIMEOUT``, its store stops renewing the court leases, so another
worker takes the court over after the lease TTL instead of never.

The store's rule with an injected clock (no waiting), then a real crawl on PostgreSQL whose
pipeline's ``close_spider`` blocks, and a second crawl that takes the court over and finishes
it."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg
import pytest

from extensions.pg_store import PostgresRequestStore
from extensions.store import CrawlLocked, RunInfo, StateError
from reference.sipp_site.testing import running_replica
from tests.support.hanging_close import pipelines
from tests.support.harvest_run import crawl, crawl_command, start
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)
from tests.support.waiting import wait_until

COURT = "pn-hung"


def query(url: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()  # type: ignore[arg-type]


def _run(pid: int) -> RunInfo:
    return RunInfo(
        court=COURT,
        spider="sipp",
        pid=pid,
        host=socket.gethostname(),
        job=None,
        started_at="2024-06-19T00:00:00Z",
    )


def _beat_at(url: str) -> Any:
    ((at,),) = query(url, "SELECT heartbeat_at FROM court_leases WHERE court = %s", (COURT,))
    return at


def test_a_store_stops_renewing_once_its_close_overruns_the_bound(
    pg_database: str,  # noqa: F811
) -> None:
    url = pg_database
    now = [100.0]
    closing = [False]
    store = PostgresRequestStore.open(url, lease_ttl=1.0, heartbeat_interval=3600)
    other = PostgresRequestStore.open(url, lease_ttl=30.0, heartbeat_interval=3600)
    try:
        # pid 1 is alive and not ours: the lease is held until it expires
        store.acquire_crawl_lock(_run(1))
        store.watch_closing(lambda: closing[0], 5.0, clock=lambda: now[0])
        run_id, _ = store.start_run(_run(1))
        store.heartbeat()
        first = _beat_at(url)
        closing[0] = True  # the engine began closing: the next beat (at 100) sees it
        store.heartbeat()
        now[0] = 104.9
        store.heartbeat()
        renewed = _beat_at(url)
        assert renewed > first  # within the bound: renewed
        now[0] = 105.1  # 5.1 s closing: over the bound
        store.heartbeat()
        assert _beat_at(url) == renewed  # not renewed any more
        with pytest.raises(StateError, match="closing for more than 5 s"):
            store.end_run(run_id, "finished")
        time.sleep(1.2)  # the 1 s lease expires
        other.acquire_crawl_lock(_run(os.getpid()))
        (detail,) = query(url, "SELECT detail FROM events WHERE event = 'lease_takeover'")
        assert "lease of pid 1 " in detail[0]
        assert "expired at" in detail[0]
    finally:
        other.close()
        store.close()


def test_a_store_that_closes_in_time_keeps_its_lease(pg_database: str) -> None:  # noqa: F811
    url = pg_database
    now = [0.0]
    store = PostgresRequestStore.open(url, lease_ttl=30.0, heartbeat_interval=3600)
    other = PostgresRequestStore.open(url, lease_ttl=30.0, heartbeat_interval=3600)
    try:
        store.acquire_crawl_lock(_run(1))
        store.watch_closing(lambda: now[0] >= 10, 5.0, clock=lambda: now[0])
        for at in (0.0, 9.0, 10.0, 14.0, 15.0):
            now[0] = at
            before = _beat_at(url)
            store.heartbeat()
            assert _beat_at(url) > before, at
        with pytest.raises(CrawlLocked):
            other.acquire_crawl_lock(_run(os.getpid()))
    finally:
        other.close()
        store.close()


@pytest.mark.slow
def test_a_worker_whose_close_hangs_loses_its_court_to_the_next(
    tmp_path: Path,
    pg_database: str,  # noqa: F811
) -> None:
    url = pg_database
    ws = tmp_path / "ws"
    log = tmp_path / "hung.log"
    ttl, bound = 2.0, 1.0
    settings = {
        "HARVEST_DATABASE_URL": url,
        "HARVEST_LEASE_TTL": str(ttl),
        "HARVEST_ARCHIVE": "False",
    }
    with running_replica(cases=4, seed=9, court_id=COURT) as rep:
        hung = start(
            crawl_command(
                rep.url,
                COURT,
                ws,
                settings={
                    **settings,
                    "HARVEST_STOP_TIMEOUT": str(bound),
                    "ITEM_PIPELINES": json.dumps(pipelines()),
                },
            ),
            log,
        )
        try:
            wait_until(
                lambda: "closing for more than 1 s (HARVEST_STOP_TIMEOUT)" in log.read_text(),
                timeout=120,
                what="the hung worker gives its lease up",
                proc=hung,
            )
            text = log.read_text()
            assert "hanging_close: close_spider hangs now" in text
            assert f"the leases of {COURT} are no longer renewed" in text
            stopped = _beat_at(url)
            time.sleep(ttl / 3 * 2)  # two heartbeat intervals: nothing renews it
            assert _beat_at(url) == stopped
            assert hung.poll() is None  # still hanging, holding its court no more
            # the next worker takes the court over once the lease expires (within the TTL)
            t0 = time.monotonic()
            nxt = crawl(rep.url, COURT, ws, settings=settings, timeout=120)
            assert nxt.returncode == 0, nxt.stderr[-3000:]
            assert time.monotonic() - t0 < 60
            assert f"court {COURT}: the lease of pid {hung.pid}" in nxt.stderr
        finally:
            os.kill(hung.pid, signal.SIGKILL)
            hung.wait(timeout=30)
    takeovers = query(url, "SELECT detail FROM events WHERE event = 'lease_takeover'")
    assert len(takeovers) == 1
    assert f"pid {hung.pid}" in takeovers[0][0]
    runs = query(url, "SELECT close_reason, pid FROM runs ORDER BY id")
    assert runs[-1][0] == "finished"
    assert runs[-1][1] != hung.pid
    assert query(url, "SELECT count(*) FROM court_leases") == [(0,)]
