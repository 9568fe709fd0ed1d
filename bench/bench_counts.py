"""The kept counts (extensions/state_counts.py): what ``scrapy status`` and a worker's periodic
queries cost on a big state, before (grouping the rows) and after (reading the counts).

* **SQLite** (``--sqlite-rows``, default 1,000,000): a ``state.sqlite`` of that many request
  rows (10 courts; each case one ``case`` row and four ``tab`` rows; 90 % ok, 5 % pending, 5 %
  error), written as code before the counts wrote it (no count tables). ``scrapy status --json``
  and ``scrapy version`` are timed side by side (``--rounds`` interleaved rounds, medians): on
  that state read-only (the grouping, *before*), then after a writable open filled the counts
  (the upgrade: its fill time is printed), *after*. Target: status <= 1.1x version.
* **PostgreSQL** (``--pg-rows``, default 10,000,000; 0 skips): the same shape over 100 courts,
  generated in SQL (``generate_series``), also as older code wrote it; the old grouping queries
  are timed, then the upgrade's fill, then each query a worker holding two courts runs
  periodically, after a heartbeat's worth of transitions (``--transitions``): the progress line
  (:func:`court_progress` of its courts), ``count``, ``has_pending``, the heartbeat with its
  fold, ``court_pauses``, ``generations``. Target: each under 50 ms (median of ``--rounds``).
  ``--url``: a database the bench may fill; else a throwaway server with fsync on.

    .venv/bin/python bench/bench_counts.py [--sqlite-rows N] [--pg-rows N] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

import psycopg

from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SqliteRequestStore
from extensions.state_counts import old_case_totals
from extensions.state_queries import connect_readonly, court_progress
from extensions.store import RunInfo
from tests.support.paths import REPO
from tests.support.postgres import bench_databases

TABS = 4  # tab rows per case

_SQLITE_DROP = (
    "DROP TRIGGER requests_case_insert",
    "DROP TRIGGER requests_case_update",
    "DROP TRIGGER requests_case_delete",
    "DROP TRIGGER case_counts_insert",
    "DROP TRIGGER case_counts_update",
    "DROP VIEW case_progress",
    "DROP TABLE case_groups",
    "DROP TABLE case_counts",
)

_PG_DROP = (
    "DROP TRIGGER requests_count_insert ON requests; "
    "DROP TRIGGER requests_count_update ON requests; "
    "DROP TRIGGER requests_count_delete ON requests; "
    "DROP FUNCTION harvest_fold_counts(text[]); DROP VIEW case_progress; "
    "DROP VIEW request_counts; DROP TABLE request_count_totals, request_count_deltas, "
    "case_counts, case_groups, case_count_deltas; DROP INDEX requests_ok; "
    "CREATE VIEW request_counts AS SELECT court, kind, status, count(*) AS n "
    "FROM requests GROUP BY court, kind, status"
)

# rows in SQL: row i is of case i / 5 (kind 'case' for i % 5 = 0), court (i / 5) % courts;
# status from a hash of the case: 90 % ok, 5 % pending, 5 % error
_ROWS_SQL = """
SELECT 'r|' || i, CASE WHEN i % {per} = 0 THEN 'case' ELSE 'tab' END,
       'pn-c' || ((i / {per}) % {courts}), 'g|' || (i / {per}),
       CASE WHEN ((i / {per}) * 7919 + i % {per}) % 20 = 0 THEN 'pending'
            WHEN ((i / {per}) * 7919 + i % {per}) % 20 = 1 THEN 'error' ELSE 'ok' END,
       0, 'GET', 'http://127.0.0.1/x/' || i, {blob}, '2024-06-19T00:00:00Z',
       '2024-06-19T00:00:00Z', CASE WHEN ((i / {per}) * 7919 + i % {per}) % 20 = 1
       THEN 'HTTP 503' END
FROM {source}
"""
_COLS = (
    "key, kind, court, group_key, status, priority, method, url, request, created_at, "
    "updated_at, last_error"
)


def _median(f: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _cmd(*args: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "scrapy", *args], cwd=REPO, capture_output=True,
                   check=True)  # fmt: skip
    return time.perf_counter() - t0


def side_by_side(ws: Path, rounds: int, *extra: str) -> tuple[float, float, float]:
    """Medians of ``scrapy status --json [extra]`` and ``scrapy version``, interleaved; their
    ratio."""
    status, version = [], []
    for _ in range(rounds):
        status.append(_cmd("status", "--json", *extra, "-s", f"HARVEST_WORKSPACE={ws}"))
        version.append(_cmd("version"))
    s, v = statistics.median(status), statistics.median(version)
    return s, v, s / v


def bench_sqlite(rows: int, rounds: int, *, keep: str | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-counts-") as tmp:
        ws = Path(keep or tmp) / "ws"
        ws.mkdir()
        path = ws / "state.sqlite"
        SqliteRequestStore.open(path).close()
        db = sqlite3.connect(path, isolation_level=None)
        for statement in _SQLITE_DROP:
            db.execute(statement)
        t0 = time.perf_counter()
        db.execute("PRAGMA synchronous = OFF")
        db.execute("BEGIN")
        db.execute(
            f"INSERT INTO requests ({_COLS}) WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL "
            f"SELECT i + 1 FROM g WHERE i < {rows - 1}) "
            + _ROWS_SQL.format(per=TABS + 1, courts=10, blob="x'00'", source="g")
        )
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        print(f"sqlite: {rows:,} rows written in {time.perf_counter() - t0:.1f} s")
        _cmd("version")  # compiled once
        s, v, ratio = side_by_side(ws, rounds, "--no-parts-check")
        print(f"  before (grouping): status --no-parts-check {s:.3f} s, version {v:.3f} s: "
              f"{ratio:.2f}x")  # fmt: skip
        t0 = time.perf_counter()
        SqliteRequestStore.open(path).close()
        print(f"  upgrade: counts filled in one transaction, open took "
              f"{time.perf_counter() - t0:.2f} s")  # fmt: skip
        reader = connect_readonly(path)
        t_new = _median(lambda: court_progress(reader), rounds)
        t_old = _median(lambda: old_case_totals(reader), rounds)
        reader.close()
        print(f"  court_progress (all courts): {t_new * 1000:.1f} ms; grouping {t_old:.2f} s")
        s, v, ratio = side_by_side(ws, rounds, "--no-parts-check")
        print(f"  after (counts):    status --no-parts-check {s:.3f} s, version {v:.3f} s: "
              f"{ratio:.2f}x (target <= 1.1x)")  # fmt: skip
        s, v, ratio = side_by_side(ws, rounds)
        print(f"  after, with the parts cross-check (every ok row against items.sqlite, absent "
              f"here): status {s:.3f} s, version {v:.3f} s: {ratio:.2f}x")  # fmt: skip
        db.close()


def _ms(f: Callable[[], Any], rounds: int, between: Callable[[], Any] | None = None) -> float:
    times = []
    for _ in range(rounds):
        if between is not None:
            between()
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def bench_postgres(url: str, rows: int, rounds: int, transitions: int) -> None:
    courts = 100
    PostgresRequestStore.open(url).close()
    db = psycopg.connect(url, autocommit=True)
    db.execute(_PG_DROP)
    t0 = time.perf_counter()
    db.execute("SET synchronous_commit = off")
    db.execute(
        f"INSERT INTO requests ({_COLS}) "  # type: ignore[arg-type]
        + _ROWS_SQL.format(
            per=TABS + 1,
            courts=courts,
            blob="'\\x00'::bytea",
            source=f"generate_series(0::bigint, {rows - 1}) AS g(i)",
        )
    )
    db.execute("VACUUM ANALYZE requests")
    print(f"postgresql: {rows:,} rows over {courts} courts written in "
          f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
    mine = ["pn-c1", "pn-c2"]
    reader = connect_readonly(url)
    t_all = _median(lambda: old_case_totals(reader), 1)
    t_two = _median(lambda: old_case_totals(reader, mine), 1)
    t_view = _median(lambda: reader.execute("SELECT * FROM request_counts").fetchall(), 1)
    print(f"  before: case grouping {t_two:.2f} s (2 courts), {t_all:.1f} s (every court); "
          f"request_counts view {t_view:.1f} s")  # fmt: skip
    t0 = time.perf_counter()
    store = PostgresRequestStore.open(url, heartbeat_interval=3600)
    print(f"  upgrade: counts filled in one transaction, open took "
          f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    for court in mine:
        store.acquire_crawl_lock(
            RunInfo(court, "sipp", os.getpid(), socket.gethostname(), None, "2024-06-19")
        )
    step = [0]

    def churn() -> None:
        """A heartbeat's transitions of this worker: rows of its courts, one at a time."""
        for _ in range(transitions):
            step[0] += 1
            k = (step[0] * 7919) % (rows // ((TABS + 1) * courts))
            i = (k * courts + 1) * (TABS + 1) + step[0] % (TABS + 1)  # a row of court pn-c1
            db.execute(
                "UPDATE requests SET status = CASE status WHEN 'ok' THEN 'pending' "
                "ELSE 'ok' END WHERE key = %s",
                (f"r|{i}",),
            )

    results = {
        "progress (court_progress of its 2 courts)": _ms(
            lambda: court_progress(reader, courts=mine), rounds, churn
        ),
        "count(court)": _ms(lambda: store.count(court=mine[0]), rounds, churn),
        "has_pending(court)": _ms(lambda: store.has_pending(mine[0]), rounds, churn),
        "heartbeat + fold": _ms(store.heartbeat, rounds, churn),
        "court_pauses()": _ms(store.court_pauses, rounds, churn),
        "generations(court)": _ms(lambda: store.generations(mine[0]), rounds, churn),
    }
    for name, ms in results.items():
        print(f"  {name}: {ms:.1f} ms (target < 50 ms)")
    churn()
    store.fold_counts()
    exact = court_progress(reader, courts=mine)
    old = old_case_totals(reader, mine)
    assert {p.court: (p.cases_known, p.cases_complete) for p in exact} == old, (exact, old)
    print(f"  checked: the counts equal the grouping ({old})")
    store.close()
    reader.close()
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sqlite-rows", type=int, default=1_000_000)
    parser.add_argument("--pg-rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--transitions", type=int, default=200)
    parser.add_argument("--url")
    parser.add_argument("--keep", help="build the SQLite state in this directory, keep it")
    args = parser.parse_args()
    if args.sqlite_rows:
        bench_sqlite(args.sqlite_rows, args.rounds, keep=args.keep)
    if args.pg_rows:
        with bench_databases(args.url) as make:
            bench_postgres(make(), args.pg_rows, args.rounds, args.transitions)


if __name__ == "__main__":
    main()
