"""Peak memory of a long crawl, and whether it grows with the number of cases.

Crawls a replica court of ``--cases`` cases (default 20,000; every case type, every tab) with the
real spider, scheduler and pipeline, sampling the crawl process's RSS once a second together with
the number of finished cases. Prints RSS when 10/25/50/75/100% of the cases are finished, the peak,
and the growth from 25% to 100% (flat memory means that number stays near zero).

    .venv/bin/python bench/bench_crawl_memory.py [--cases 20000] [--concurrency 16]

Only 127.0.0.1 is contacted. Bounded by ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from reference.sipp_site.testing import running_replica
from tests.support.paths import REPO


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def finished_cases(items_db: Path) -> int:
    if not items_db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{items_db}?mode=ro", uri=True, timeout=1)
        try:
            (n,) = con.execute("SELECT COUNT(*) FROM cases WHERE complete = 1").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return 0
    return int(n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-seconds", type=float, default=3600)
    opts = parser.parse_args()

    with (
        tempfile.TemporaryDirectory() as tmp,
        running_replica(cases=opts.cases, seed=opts.seed, court_id="pn-replika") as replica,
    ):
        workspace = Path(tmp) / "ws"
        cmd = [
            sys.executable, "-m", "scrapy", "crawl", "sipp",
            "-a", f"base_url={replica.url}", "-a", "court_id=pn-replika",
            "-s", f"HARVEST_WORKSPACE={workspace}", "-s", "LOG_LEVEL=WARNING",
            "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
            "-s", f"CONCURRENT_REQUESTS={opts.concurrency}",
            "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={opts.concurrency}",
        ]  # fmt: skip
        started = time.monotonic()
        crawl = subprocess.Popen(cmd, cwd=REPO)
        samples: list[tuple[float, int, float]] = []
        while crawl.poll() is None:
            rss = rss_mib(crawl.pid)
            if rss is not None:
                samples.append(
                    (time.monotonic() - started, finished_cases(workspace / "items.sqlite"), rss)
                )
            if time.monotonic() - started > opts.max_seconds:
                crawl.kill()
                print(f"stopped after --max-seconds={opts.max_seconds}")
                break
            time.sleep(1.0)
        crawl.wait()
        done = finished_cases(workspace / "items.sqlite")

    elapsed = time.monotonic() - started
    print(
        f"\ncrawl of {opts.cases} cases: {done} complete in {elapsed:.0f} s "
        f"({done / elapsed:.1f} cases/s), exit code {crawl.returncode}"
    )
    if not samples:
        print("no samples")
        return 1
    print(f"{'progress':>9} {'cases':>7} {'RSS MiB':>8}")
    marks = {}
    for pct in (10, 25, 50, 75, 100):
        target = done * pct / 100
        at = next((s for s in samples if s[1] >= target), samples[-1])
        marks[pct] = at[2]
        print(f"{pct:>8}% {at[1]:>7} {at[2]:>8.1f}")
    peak = max(s[2] for s in samples)
    print(
        f"peak RSS {peak:.1f} MiB; growth from 25% to 100% of cases: "
        f"{marks[100] - marks[25]:+.1f} MiB ({(marks[100] / marks[25] - 1) * 100:+.1f}%)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
