"""Request-state throughput, SQLite vs PostgreSQL: the same loop on both stores, side by side.

For each backend and commit mode the loop is the scheduler's: ``--rows`` requests added (one
court, SIPP-like keys, a 600-byte request blob), then ``claim`` + ``finish(ok)`` until none is
left. Commit modes as ``HARVEST_STATE_COMMIT``: ``each`` (every transition commits) and
``turn`` (group commit: one commit per ``--turn`` transitions, as the scheduler commits once per
reactor turn). Prints adds/s and claims+finishes/s (one claim and its finish count as one) and
the PostgreSQL/SQLite ratio.

PostgreSQL: ``--url`` (a database the bench may fill; its tables must not exist yet), else a
throwaway server started from the Debian binaries (tests/support/postgres.py) **with fsync on**
(the store's ``NORMAL`` = ``synchronous_commit off``, as SQLite's ``synchronous=NORMAL``), on
127.0.0.1, over TCP. SQLite: a temporary ``state.sqlite``. Both on this machine's disk.

    .venv/bin/python bench/bench_state_backends.py [--rows 20000] [--turn 50]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SqliteRequestStore
from extensions.store import NewRequest, RunInfo
from tests.support.postgres import bench_databases

COURT = "pn-bench"
BLOB = b"x" * 600


def _request(i: int) -> NewRequest:
    number = f"{i}/Pid.B/2024/PN Bch"
    return NewRequest(
        key=f"case|{COURT}|{number}",
        kind="case",
        court=COURT,
        group=f"{COURT}|{number}",
        priority=10 if i % 3 else 20,
        method="GET",
        url=f"http://127.0.0.1:8800/show_detil/{i:012d}",
        blob=BLOB,
    )


def run_loop(open_store: Callable[..., Any], rows: int, turn: int) -> dict[str, float]:
    pending: list[Callable[[], None]] = []
    store = open_store(defer_commit=pending.append if turn else None)
    run = RunInfo(COURT, "bench", 1, "bench", None, "t0")
    store.acquire_crawl_lock(run)
    run_id, _ = store.start_run(run)
    n = 0

    def tick() -> None:
        nonlocal n
        n += 1
        if turn and n % turn == 0 and pending:
            pending.pop()()

    t0 = time.perf_counter()
    for i in range(rows):
        store.add(_request(i), run_id)
        tick()
    store.commit()
    pending.clear()
    added = time.perf_counter() - t0
    t0 = time.perf_counter()
    done = 0
    while (c := store.claim(COURT, run_id, busy_groups=[], held=[])) is not None:
        tick()
        store.finish(c.id, run_id, ok=True, http_status=200)
        tick()
        done += 1
    store.commit()
    pending.clear()
    claimed = time.perf_counter() - t0
    store.end_run(run_id, "finished")
    store.close()
    assert done == rows, (done, rows)
    return {"adds/s": rows / added, "claims+finishes/s": done / claimed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--turn", type=int, default=50, help="transitions per group commit")
    parser.add_argument("--url", help="a PostgreSQL database to use instead of a throwaway one")
    args = parser.parse_args()

    results: dict[tuple[str, str], dict[str, float]] = {}
    with (
        bench_databases(args.url) as make_db,
        tempfile.TemporaryDirectory(prefix="bench-state-") as tmp,
    ):
        for mode, turn in (("each", 0), ("turn", args.turn)):
            path = Path(tmp) / f"state-{mode}.sqlite"
            results["sqlite", mode] = run_loop(
                lambda **kw: SqliteRequestStore.open(path, **kw),  # noqa: B023
                args.rows,
                turn,
            )
            url = make_db()
            results["postgres", mode] = run_loop(
                lambda **kw: PostgresRequestStore.open(url, **kw),  # noqa: B023
                args.rows,
                turn,
            )
            if args.url:
                break  # one database given: one mode

    print(f"{args.rows} requests, one court; group commit every {args.turn} transitions")
    print(f"{'mode':6} {'metric':18} {'sqlite':>10} {'postgres':>10} {'pg/sqlite':>10}")
    for mode in ("each", "turn"):
        if ("sqlite", mode) not in results:
            continue
        for metric in ("adds/s", "claims+finishes/s"):
            a = results["sqlite", mode][metric]
            b = results["postgres", mode][metric]
            print(f"{mode:6} {metric:18} {a:10.0f} {b:10.0f} {b / a:10.2f}")


if __name__ == "__main__":
    main()
