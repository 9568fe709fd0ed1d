"""Courts per hour with 1, 2 and 3 workers sharing one PostgreSQL, on politeness-bound courts.

Starts ``--courts`` replica courts (variants pn, pa, ptun, militer in turn; ``--cases`` each;
every answer delayed ``--latency`` seconds, asynchronously, as a far-away court is) on 127.0.0.1
and a throwaway PostgreSQL server (tests/support/postgres.py; or ``--url``). For each worker
count W: a new database, the courts registered (``scrapy courts add``), W worker processes
(``scrapy crawl sipp -a courts=registered -a max_courts=K``) started together and run to the end,
each court one request at a time, ``--delay`` apart, AutoThrottle off. Prints, per W: wall
seconds, courts per hour, responses, CPU seconds of the workers, and the scaling ratio against
one worker (ideal: W).

    .venv/bin/python bench/bench_nodes.py [--courts 12] [--cases 4] [--workers 1,2,3]
        [--max-courts 2] [--latency 0.2] [--delay 0.1] [--url postgresql://...]

Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

import psycopg

from reference.sipp_site.testing import Replica, running_replica
from tests.support.harvest_run import scrapy_args
from tests.support.paths import REPO, SCRAPY
from tests.support.postgres import bench_databases

VARIANTS = ("pn", "pa", "ptun", "militer")


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(
    workers: int, url: str, courts_csv: Path, ws: Path, settings: dict[str, str], max_courts: int
) -> tuple[float, float, int, int]:
    """(wall s, CPU s, courts finished, responses) of ``workers`` workers on a new database."""
    args = scrapy_args(ws, {**settings, "HARVEST_DATABASE_URL": url})
    added = subprocess.run(
        [*SCRAPY, "courts", "add", str(courts_csv), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    if added.returncode != 0:
        raise SystemExit(f"scrapy courts add failed: {added.stderr[-2000:]}")
    command = [*SCRAPY, "crawl", "sipp", "-a", "courts=registered", "-a",
               f"max_courts={max_courts}", *args]  # fmt: skip
    cpu0 = cpu_children()
    t0 = time.monotonic()
    procs = [
        subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(workers)
    ]
    for p in procs:
        if p.wait() != 0:
            raise SystemExit(f"a worker exited with status {p.returncode}")
    wall = time.monotonic() - t0
    with psycopg.connect(url) as conn:
        ((finished,),) = conn.execute(
            "SELECT count(*) FROM runs WHERE close_reason = 'finished'"
        ).fetchall()
        ((responses,),) = conn.execute("SELECT count(*) FROM requests").fetchall()
    return wall, cpu_children() - cpu0, int(finished), int(responses)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--courts", type=int, default=12)
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--workers", default="1,2,3", help="worker counts, comma-separated")
    parser.add_argument("--max-courts", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--url", default=None, help="a database the benchmark may fill")
    opts = parser.parse_args()
    counts = [int(w) for w in opts.workers.split(",")]
    settings = {
        "DOWNLOAD_DELAY": str(opts.delay),
        "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
        "AUTOTHROTTLE_ENABLED": "False",
        "CONCURRENT_REQUESTS": "16",
        "HARVEST_ARCHIVE": "False",
        "HARVEST_PROGRESS_INTERVAL": "0",
        "HARVEST_LEASE_TTL": "10",
        "LOG_LEVEL": "WARNING",
    }
    results: dict[int, tuple[float, float, int, int]] = {}
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        contextlib.ExitStack() as stack,
        bench_databases(opts.url) as new_database,
    ):
        tmp = Path(tmp_name)
        reps: dict[str, Replica] = {}
        for i in range(opts.courts):
            variant = VARIANTS[i % len(VARIANTS)]
            court = f"{variant}-nodes{i:02d}"
            reps[court] = stack.enter_context(
                running_replica(
                    cases=opts.cases, seed=11 + i, variant=variant, court_id=court,
                    extra_args=["--latency", str(opts.latency)],
                )
            )  # fmt: skip
        courts_csv = tmp / "courts.csv"
        courts_csv.write_text(
            "base_url,court_id\n" + "".join(f"{r.url},{c}\n" for c, r in reps.items()),
            encoding="utf-8",
        )
        for w in counts:
            results[w] = one_run(
                w, new_database(), courts_csv, tmp / f"ws{w}", settings, opts.max_courts
            )
            if results[w][2] != opts.courts:
                raise SystemExit(f"{w} workers finished {results[w][2]} of {opts.courts} courts")
    print(
        f"{opts.courts} courts x {opts.cases} cases, latency {opts.latency} s, delay "
        f"{opts.delay} s, one request at a time per court, max_courts {opts.max_courts}"
    )
    print(f"{'workers':>8}{'wall s':>10}{'courts/h':>10}{'responses':>11}{'CPU s':>8}{'scale':>8}")
    base = results[counts[0]][0]  # wall of the first count (1 worker)
    for w in counts:
        wall, cpu, finished, responses = results[w]
        print(
            f"{w:>8}{wall:>10.1f}{3600 * finished / wall:>10.0f}{responses:>11}{cpu:>8.1f}"
            f"{base / wall:>8.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
