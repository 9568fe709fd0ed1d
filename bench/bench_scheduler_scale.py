"""The scheduler at 1,000,000 requests: peak memory, time to the first request, ``scrapy status``.

Builds a state with ``--rows`` pending request rows (real pickled requests, SIPP-like keys and
groups, one court), then measures, each in a fresh subprocess:

* peak RSS of :class:`HarvestScheduler` opening that state and dispatching ``--dispatch``
  requests, against Scrapy's memory scheduler (``scrapy.core.scheduler.Scheduler``, default
  queues) holding the same number of requests;
* time from ``HarvestScheduler.open()`` to the first request returned by ``next_request()``
  (target < 2 s), plus the same for the whole ``scrapy``-free process start;
* ``scrapy status --json`` on that state (target < 1 s): the in-process report and the whole
  command (Python + Scrapy start-up included).

    .venv/bin/python bench/bench_scheduler_scale.py [--rows 1000000]

Only local files are touched (a temporary directory). Bounded by the row count.
"""

from __future__ import annotations

import argparse
import json
import pickle
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scrapy import Request, Spider

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from harvest.base.meta import META_COOKIEJAR, META_GROUP, META_KEY, META_RID
from tests.support.paths import REPO

COURT = "pn-bench"
_INSERT = (
    "INSERT INTO requests (key, kind, court, group_key, status, priority, method, url, request,"
    " created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)"
)


class BenchSpider(Spider):
    name = "bench"
    court_id = COURT

    def parse_case(self, response: object) -> None:
        pass


def _request(i: int) -> Request:
    number = f"{i}/Pid.B/2024/PN Bch"
    return Request(
        f"http://127.0.0.1:8800/show_detil/{i:012d}TOKENTOKENTOKENTOKEN",
        callback=BenchSpider().parse_case,
        priority=10 if i % 3 else 20,
        meta={
            META_KEY: f"case|{COURT}|{number}",
            META_GROUP: f"{COURT}|{number}",
            META_COOKIEJAR: f"{COURT}|{number}",
            "sipp_case_raw": number,
        },
    )


def build_state(ws: Path, rows: int) -> float:
    """Write ``rows`` pending rows through the store's schema, in big transactions."""
    from extensions.sqlite_store import SqliteRequestStore
    from harvest.base.clock import utc_now

    ws.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    store = SqliteRequestStore.open(ws / "state.sqlite")
    store.close()
    db = sqlite3.connect(ws / "state.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = OFF")
    spider = BenchSpider()
    now = utc_now()
    template = _request(0).to_dict(spider=spider)  # one real to_dict; rows vary url and meta
    batch: list[tuple[object, ...]] = []
    db.execute("BEGIN")
    for i in range(rows):
        number = f"{i}/Pid.B/2024/PN Bch"
        key, group = f"case|{COURT}|{number}", f"{COURT}|{number}"
        url = f"http://127.0.0.1:8800/show_detil/{i:012d}TOKENTOKENTOKENTOKEN"
        priority = 10 if i % 3 else 20
        meta = {META_KEY: key, META_GROUP: group, META_COOKIEJAR: group}
        meta["sipp_case_raw"] = number
        d = dict(template, url=url, meta=meta, priority=priority)
        blob = pickle.dumps(d, protocol=4)
        batch.append((key, "case", COURT, group, priority, "GET", url, blob, now, now))
        if len(batch) == 20000:
            db.executemany(
                _INSERT,
                batch,
            )
            batch.clear()
    if batch:
        db.executemany(
            _INSERT,
            batch,
        )
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return time.perf_counter() - t0


def child_harvest(ws: str, dispatch: int) -> None:
    t_start = time.perf_counter()
    from scrapy.utils.request import RequestFingerprinter

    from extensions.config import SchedulerConfig
    from extensions.scheduler import HarvestScheduler

    t_imported = time.perf_counter()
    s = HarvestScheduler(
        config=SchedulerConfig(workspace=ws, commit="each"),  # no reactor: no end of turn
        stats=None,
        fingerprint=RequestFingerprinter().fingerprint,
    )
    s.open(BenchSpider())
    first = s.next_request()
    t_first = time.perf_counter()
    assert first is not None
    got = 1
    # keep the dispatched ones "in flight" with groups, like a crawl with 16 slots would not:
    # finish each right away so the loop keeps dispatching
    rid = first.meta[META_RID]
    s._finish(rid, ok=True)
    while got < dispatch:
        r = s.next_request()
        assert r is not None
        s._finish(r.meta[META_RID], ok=True)
        got += 1
    t_done = time.perf_counter()
    s.close("finished")
    print(
        json.dumps(
            {
                "open_to_first_s": t_first - t_imported,
                "process_to_first_s": t_first - t_start,
                "dispatch_per_s": (got - 1) / max(t_done - t_first, 1e-9),
                "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def child_memory(rows: int) -> None:
    from scrapy.core.scheduler import Scheduler
    from scrapy.utils.test import get_crawler

    # single-domain crawl: the downloader-aware queue only adds per-slot bookkeeping
    crawler = get_crawler(
        BenchSpider, {"SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue"}
    )
    crawler.spider = BenchSpider()
    scheduler = Scheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    t0 = time.perf_counter()
    for i in range(rows):
        scheduler.enqueue_request(_request(i))
    t1 = time.perf_counter()
    first = scheduler.next_request()
    assert first is not None
    print(
        json.dumps(
            {
                "enqueue_s": t1 - t0,
                "held": len(scheduler),
                "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def run_child(*args: str) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, __file__, *args], cwd=REPO, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dispatch", type=int, default=2000)
    parser.add_argument("--child", choices=["harvest", "memory"])
    parser.add_argument("--ws")
    args = parser.parse_args()
    if args.child == "harvest":
        child_harvest(args.ws, args.dispatch)
        return
    if args.child == "memory":
        child_memory(args.rows)
        return

    with tempfile.TemporaryDirectory(prefix="bench-sched-") as tmp:
        ws = Path(tmp) / "ws"
        built = build_state(ws, args.rows)
        size = (ws / "state.sqlite").stat().st_size / 2**20
        print(f"state: {args.rows:,} pending rows built in {built:.1f}s ({size:.0f} MiB)")

        harvest = run_child(
            "--child", "harvest", "--ws", str(ws), "--dispatch", str(args.dispatch)
        )
        memory = run_child("--child", "memory", "--rows", str(args.rows))

        from extensions.sqlite_store import SqliteRequestStore

        store = SqliteRequestStore.open(ws / "state.sqlite", readonly=True)
        t0 = time.perf_counter()
        report = store.status_report()
        t_report = time.perf_counter() - t0
        store.close()
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "scrapy", "status", "--json", "-s", f"HARVEST_WORKSPACE={ws}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        t_cmd = time.perf_counter() - t0
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "scrapy", "version"], cwd=REPO, capture_output=True, check=True
        )
        t_noop = time.perf_counter() - t0
        totals = json.loads(proc.stdout)["totals"]

    print()
    print(f"rows: {args.rows:,}")
    print(
        f"peak RSS  harvest scheduler (open + {args.dispatch} dispatches): "
        f"{harvest['maxrss_mib']:.0f} MiB"
    )
    print(
        f"peak RSS  Scrapy memory scheduler holding {memory['held']:,.0f} requests: "
        f"{memory['maxrss_mib']:.0f} MiB"
    )
    print(f"  ratio harvest / memory: {harvest['maxrss_mib'] / memory['maxrss_mib']:.3f}")
    print(
        f"time to first request: open() -> next_request() {harvest['open_to_first_s']:.3f}s "
        f"(target < 2 s); with the scheduler imports {harvest['process_to_first_s']:.3f}s"
    )
    print(f"dispatch rate after the first: {harvest['dispatch_per_s']:.0f} requests/s")
    print(
        f"scrapy status: report {t_report:.3f}s in-process (target < 1 s); whole command "
        f"{t_cmd:.3f}s, of which Python+Scrapy start-up ~{t_noop:.3f}s (scrapy version)"
    )
    print(f"  status totals: {totals} (report counted {sum(report.totals().values()):,})")


if __name__ == "__main__":
    main()
