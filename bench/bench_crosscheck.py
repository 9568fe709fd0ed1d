"""What the stores' cross-check and the unclean-stop quick check cost on a large state.

``python -m bench.bench_crosscheck [--cases 100000] [--tabs 9] [--missing 1000]`` builds, in a
temporary directory, a state.sqlite of ``cases * (1 + tabs)`` ok case/tab rows of one court and
an items.sqlite holding every part but ``missing`` of them, then times (wall clock, best of 3):

* the cross-check as ``scrapy status`` runs it (read-only, counts only);
* the cross-check as a crawl's start runs it (finds and sends ``missing`` rows back to pending);
* ``PRAGMA quick_check`` as an open after an unclean stop runs it.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from extensions.sqlite_store import SqliteRequestStore
from extensions.store import RunInfo
from pipelines.store import ItemStore

COURT = "pn-bench"


def build(directory: Path, cases: int, tabs: int, missing: int) -> tuple[Path, Path]:
    state, items = directory / "state.sqlite", directory / "items.sqlite"
    store = SqliteRequestStore.open(state)
    run_id, _ = store.start_run(RunInfo(COURT, "sipp", 1, "h", None, "2026-01-01T00:00:00Z"))
    store.end_run(run_id, "finished")
    store.close()
    ItemStore.open(items).close()
    slugs = [f"tab{i}" for i in range(tabs)]
    con = sqlite3.connect(state)
    icon = sqlite3.connect(items)
    at = "2026-01-01T00:00:00.000Z"

    def rows() -> Iterator[tuple[str, str, str, str]]:
        for c in range(cases):
            number = f"{c}/Pid.B/2024/PN Bench"
            yield (f"case|{COURT}|{number}", "case", number, "case")
            for slug in slugs:
                yield (f"tab|{COURT}|{number}|{slug}", "tab", number, f"tab:{slug}")

    every = cases * (1 + tabs) // missing
    with con, icon:
        for n, (key, kind, number, part) in enumerate(rows(), start=1):
            con.execute(
                "INSERT INTO requests (key, kind, court, status, priority, method, url, request,"
                " created_at, updated_at, last_event) VALUES (?, ?, ?, 'ok', 0, 'GET', 'u', x'',"
                " ?, ?, 'ok')",
                (key, kind, COURT, at, at),
            )
            if n % every != 0:
                icon.execute(
                    "INSERT INTO parts VALUES (?, ?, ?, ?, ?, '{}', 'h', 'u', ?, ?, ?, ?)",
                    (f"sipp.{COURT}:{number}", part, COURT, number, number, at, at, at, at),
                )
    con.close()
    icon.close()
    return state, items


def best(fn: Callable[[], object], times: int = 3) -> float:
    out = []
    for _ in range(times):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--tabs", type=int, default=9)
    parser.add_argument("--missing", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        state, items = build(Path(tmp), args.cases, args.tabs, args.missing)
        total = args.cases * (1 + args.tabs)
        took = time.perf_counter() - t0
        sizes = f"{state.stat().st_size >> 20} MiB state, {items.stat().st_size >> 20} MiB items"
        print(f"built {total} ok rows ({sizes}) in {took:.1f}s")
        ro = SqliteRequestStore.open(state, readonly=True)
        found = ro.check_parts(items, court=COURT)
        print(f"read-only check (scrapy status): {found.missing} missing, "
              f"{best(lambda: ro.check_parts(items, court=COURT)):.2f}s")  # fmt: skip
        ro.close()
        rw = SqliteRequestStore.open(state)
        t0 = time.perf_counter()
        reset = rw.check_parts(items, court=COURT, reset_run=1)
        print(f"check + reset at crawl start: {reset.missing} sent back, "
              f"{time.perf_counter() - t0:.2f}s")  # fmt: skip
        print(f"check at the next start (nothing missing): "
              f"{best(lambda: rw.check_parts(items, court=COURT, reset_run=1)):.2f}s")  # fmt: skip
        rw.close()
        con = sqlite3.connect(state)
        quick = best(lambda: con.execute("PRAGMA quick_check(5)").fetchall(), 1)
        print(f"PRAGMA quick_check (open after an unclean stop): {quick:.2f}s")
        con.close()


if __name__ == "__main__":
    main()
