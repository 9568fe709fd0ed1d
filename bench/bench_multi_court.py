"""One process crawling K courts vs K one-court processes, on politeness-bound replica courts.

Starts K replica courts (variants pn, pa, ptun, militer in turn; ``--cases`` each) on 127.0.0.1
and crawls them twice with the same politeness (``--delay`` seconds between requests, one at a
time per court, AutoThrottle off): once as one multi-court process (``-a courts=FILE``), once
as K single-court processes side by side. Prints, side by side: wall time, responses, peak RSS
(summed over the processes, sampled every 0.2 s), CPU seconds (user + system of the crawl
processes) and CPU milliseconds per response, and each court's mean gap between requests (the
politeness each court got).

    .venv/bin/python bench/bench_multi_court.py [--courts 3] [--cases 12] [--delay 0.25]

Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from reference.sipp_site.testing import Replica, running_replica
from tests.support.harvest_run import scrapy_args
from tests.support.paths import REPO, SCRAPY

VARIANTS = ("pn", "pa", "ptun", "militer")


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return 0.0
    return 0.0


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_all(commands: list[list[str]]) -> tuple[float, float, float]:
    """Run the commands side by side; (wall seconds, peak summed RSS MiB, CPU seconds)."""
    cpu0 = cpu_children()
    t0 = time.monotonic()
    procs = [
        subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for cmd in commands
    ]
    peak = 0.0
    while any(p.poll() is None for p in procs):
        peak = max(peak, sum(rss_mib(p.pid) for p in procs if p.poll() is None))
        time.sleep(0.2)
    wall = time.monotonic() - t0
    for p in procs:
        if p.wait() != 0:
            raise SystemExit(f"a crawl exited with status {p.returncode}: {' '.join(p.args)}")  # type: ignore[arg-type]
    return wall, peak, cpu_children() - cpu0


def gaps(workspace: Path) -> dict[str, tuple[int, float]]:
    """Per court: responses and the mean gap between request starts (seconds)."""
    conn = sqlite3.connect(workspace / "state.sqlite")
    out: dict[str, tuple[int, float]] = {}
    try:
        courts = [c for (c,) in conn.execute("SELECT DISTINCT court FROM runs ORDER BY 1")]
        for court in courts:
            starts = sorted(
                dt.datetime.fromisoformat(at).timestamp() - (queue or 0) / 1000 - ms / 1000
                for at, queue, ms in conn.execute(
                    "SELECT u.at, u.queue_ms, u.ms FROM url_log u JOIN runs r "
                    "ON r.id = u.run_id WHERE r.court = ?",
                    (court,),
                )
            )
            mean = (starts[-1] - starts[0]) / (len(starts) - 1) if len(starts) > 1 else 0.0
            out[court] = (len(starts), mean)
    finally:
        conn.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--courts", type=int, default=3)
    parser.add_argument("--cases", type=int, default=12)
    parser.add_argument("--delay", type=float, default=0.25)
    opts = parser.parse_args()
    settings = {
        "DOWNLOAD_DELAY": str(opts.delay),
        "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
        "AUTOTHROTTLE_ENABLED": "False",
        "CONCURRENT_REQUESTS": str(max(16, 2 * opts.courts)),
        "HARVEST_ARCHIVE": "False",
        "HARVEST_PROGRESS_INTERVAL": "0",
        "LOG_LEVEL": "WARNING",
    }
    with tempfile.TemporaryDirectory() as tmp_name, contextlib.ExitStack() as stack:
        tmp = Path(tmp_name)
        reps: dict[str, Replica] = {}
        for i in range(opts.courts):
            variant = VARIANTS[i % len(VARIANTS)]
            court = f"{variant}-bench{i}"
            reps[court] = stack.enter_context(
                running_replica(cases=opts.cases, seed=7 + i, variant=variant, court_id=court)
            )
        courts = tmp / "courts.csv"
        courts.write_text(
            "base_url,court_id\n" + "".join(f"{r.url},{c}\n" for c, r in reps.items()),
            encoding="utf-8",
        )
        multi_ws = tmp / "multi"
        multi = run_all(
            [
                [
                    *SCRAPY,
                    "crawl",
                    "sipp",
                    "-a",
                    f"courts={courts}",
                    *scrapy_args(multi_ws, settings),
                ]
            ]
        )
        single_ws = tmp / "single"
        single = run_all(
            [
                [
                    *SCRAPY,
                    "crawl",
                    "sipp",
                    "-a",
                    f"base_url={r.url}",
                    "-a",
                    f"court_id={c}",
                    *scrapy_args(single_ws, settings),
                ]
                for c, r in reps.items()
            ]
        )
        multi_gaps, single_gaps = gaps(multi_ws), gaps(single_ws)
    responses = [sum(n for n, _ in g.values()) for g in (multi_gaps, single_gaps)]
    print(
        f"{opts.courts} courts x {opts.cases} cases, delay {opts.delay} s, one request at a "
        "time per court"
    )
    print(f"{'':28}{'1 process':>14}{f'{opts.courts} processes':>14}{'ratio':>8}")
    rows = [
        ("wall s", multi[0], single[0]),
        ("responses", responses[0], responses[1]),
        ("peak RSS MiB (sum)", multi[1], single[1]),
        ("CPU s", multi[2], single[2]),
        ("CPU ms / response", 1000 * multi[2] / responses[0], 1000 * single[2] / responses[1]),
    ]
    for name, a, b in rows:
        print(f"{name:28}{a:>14.2f}{b:>14.2f}{a / b if b else 0:>8.2f}")
    for court in reps:
        one, each = multi_gaps[court][1], single_gaps[court][1]
        print(f"  mean gap {court:20} {one:>8.3f} s {each:>11.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
