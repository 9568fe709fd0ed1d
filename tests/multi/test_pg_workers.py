"""Workers on PostgreSQL (docs/multi-court.md): ``-a courts=registered -a max_courts=2`` in two
processes sharing one database (request state and items) and four replica courts. Each worker
claims courts by lease and claims the next when one finishes; a worker killed with SIGKILL loses
its courts after the lease TTL and the other finishes them. Every court's export equals its
ground truth."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import psycopg
import pytest

from reference.sipp_site.testing import Replica, running_replica
from tests.support.harvest_run import exported, mismatches, run, scrapy_args, start, truth_by_key
from tests.support.paths import SCRAPY
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

#: (variant, court id, cases)
COURTS = (
    ("pn", "pn-satu", 24),
    ("pa", "pa-dua", 20),
    ("ptun", "ptun-tiga", 16),
    ("militer", "dilmil-empat", 16),
)
TTL = "3"


@pytest.fixture
def url(request: pytest.FixtureRequest) -> str:
    """A new, empty PostgreSQL database (tests/support/postgres.py)."""
    return str(request.getfixturevalue("pg_database"))


@contextlib.contextmanager
def four_courts() -> Iterator[dict[str, Replica]]:
    with contextlib.ExitStack() as stack:
        yield {
            court: stack.enter_context(
                running_replica(cases=cases, seed=41 + i, variant=variant, court_id=court)
            )
            for i, (variant, court, cases) in enumerate(COURTS)
        }


def query(url: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()  # type: ignore[arg-type]


def settings(url: str, **extra: str) -> dict[str, str]:
    return {
        "HARVEST_DATABASE_URL": url,
        "HARVEST_LEASE_TTL": TTL,
        "HARVEST_ARCHIVE": "False",
        # politeness-bound: each court one request at a time, 40 ms apart
        "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
        "DOWNLOAD_DELAY": "0.04",
        **extra,
    }


def register(tmp: Path, ws: Path, url: str, reps: dict[str, Replica]) -> None:
    path = tmp / "courts.csv"
    lines = ["base_url,court_id"] + [f"{rep.url},{court}" for court, rep in reps.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    added = run([*SCRAPY, "courts", "add", str(path), *scrapy_args(ws, settings(url))])
    assert added.returncode == 0, added.stderr[-2000:]
    assert added.stdout == "4 courts added, 0 changed, 0 unchanged; 4 registered\n"


def worker(ws: Path, url: str) -> list[str]:
    return [
        *SCRAPY, "crawl", "sipp", "-a", "courts=registered", "-a", "max_courts=2",
        *scrapy_args(ws, settings(url)),
    ]  # fmt: skip


def leases_of(url: str, pid: int) -> list[str]:
    return [c for (c,) in query(url, "SELECT court FROM court_leases WHERE pid = %s", (pid,))]


def assert_each_court_equals_its_truth(
    tmp: Path, ws: Path, url: str, reps: dict[str, Replica]
) -> None:
    for court, rep in reps.items():
        truth = truth_by_key(rep.write_truth(tmp / f"truth-{court}.jsonl"))
        got = exported(ws, "--court", court, "-s", f"HARVEST_DATABASE_URL={url}")
        assert mismatches(got, truth) == {}, court
        assert len(got) == {c: n for _, c, n in COURTS}[court]


def test_two_workers_share_four_courts_each_harvested_once(tmp_path: Path, url: str) -> None:
    ws = tmp_path / "ws"
    with four_courts() as reps:
        register(tmp_path, ws, url, reps)
        log = tmp_path / "workers.log"
        procs = [start(worker(ws, url), log) for _ in range(2)]
        for proc in procs:
            assert proc.wait(timeout=600) == 0, log.read_text()[-4000:]
        assert_each_court_equals_its_truth(tmp_path, ws, url, reps)
    # each court crawled by one run, finished; the two workers split them
    runs = query(url, "SELECT court, close_reason, pid FROM runs ORDER BY court")
    assert [(c, r) for c, r, _ in runs] == [
        ("dilmil-empat", "finished"),
        ("pa-dua", "finished"),
        ("pn-satu", "finished"),
        ("ptun-tiga", "finished"),
    ]
    assert {pid for _, _, pid in runs} == {p.pid for p in procs}
    assert query(url, "SELECT count(*) FROM court_leases") == [(0,)]
    assert query(url, "SELECT DISTINCT status FROM requests") == [("ok",)]
    # the items are in the database too (docs/postgres.md): nothing in the workspace
    assert query(url, "SELECT count(*) FROM cases WHERE complete = 1") == [(76,)]
    assert not (ws / "items.sqlite").exists()


def test_a_killed_worker_s_courts_are_taken_over_after_the_ttl(tmp_path: Path, url: str) -> None:
    ws = tmp_path / "ws"
    log = tmp_path / "workers.log"
    with four_courts() as reps:
        register(tmp_path, ws, url, reps)
        doomed = start(worker(ws, url), log)
        held = wait_until(
            lambda: len(got := leases_of(url, doomed.pid)) == 2 and got,
            timeout=120,
            what="the first worker holds two courts",
            proc=doomed,
        )
        survivor = start(worker(ws, url), log)
        wait_until(
            lambda: len(leases_of(url, survivor.pid)) == 2,
            timeout=120,
            what="the second worker holds the two other courts",
            proc=survivor,
        )
        # the first worker's courts are under way, not done
        wait_until(
            lambda: (
                query(
                    url,
                    "SELECT count(DISTINCT court) FROM requests WHERE status = 'ok' "
                    "AND court = ANY(%s)",
                    (held,),
                )
                == [(2,)]
            ),
            timeout=120,
            what="both courts of the first worker have pages done",
        )
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait()
        assert survivor.wait(timeout=600) == 0, log.read_text()[-4000:]
        assert_each_court_equals_its_truth(tmp_path, ws, url, reps)
    text = log.read_text()
    for court in held:
        assert f"court {court}: the lease of pid {doomed.pid}" in text
    takeovers = query(url, "SELECT detail FROM events WHERE event = 'lease_takeover' ORDER BY id")
    assert len(takeovers) == 2
    runs = query(url, "SELECT court, close_reason, pid FROM runs ORDER BY court, id")
    for court in held:
        mine = [(r, pid) for c, r, pid in runs if c == court]
        assert mine == [("killed", doomed.pid), ("finished", survivor.pid)], (court, runs)
    for court in {c for _, c, _ in COURTS} - set(held):
        mine = [(r, pid) for c, r, pid in runs if c == court]
        assert mine == [("finished", survivor.pid)], (court, runs)
    assert query(url, "SELECT count(*) FROM requests WHERE status <> 'ok'") == [(0,)]
    assert query(url, "SELECT count(*) FROM court_leases") == [(0,)]
