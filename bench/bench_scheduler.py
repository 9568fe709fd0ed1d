"""Crawl throughput of the harvest scheduler against Scrapy's memory and JOBDIR schedulers.

One replica court (faults off) is crawled by the real ``sipp`` spider and pipeline, with no
download delay, AutoThrottle off and 16 concurrent requests, once per round by each of:

* ``harvest``: the project's settings (``extensions.scheduler.HarvestScheduler``, state in
  SQLite, outcome and URL-log middlewares, group commit once per reactor turn);
* ``harvest-each``: the same with ``HARVEST_STATE_COMMIT = "each"`` (every transition and
  url_log row commits on its own: what group commit saves);
* ``harvest-pg``: the project's settings with the request state and the item store on
  PostgreSQL (``HARVEST_DATABASE_URL``: a new database per crawl on a throwaway server with
  fsync on, or on ``--database-url``; docs/postgres.md);
* ``memory``: ``SCHEDULER = scrapy.core.scheduler.Scheduler`` without JOBDIR (the outcome
  middlewares switch themselves off with a foreign scheduler);
* ``jobdir``: the same with ``JOBDIR`` (pickle LIFO disk queues).

Two workloads: ``details`` (``-a tabs=none``: list pages and case details, one request per case
at a time, where every scheduler that keeps a request chain's session crawls correctly) and
``full`` (every tab too). Throughput = responses received / the
crawl's ``elapsed_time_seconds`` (Scrapy's own stats, so process start-up is excluded); CPU
ms/response = the crawl process's user + system time per response (start-up included). Prints
each run, then per scheduler the median of its per-round ratios to ``memory`` (pairing runs of
the same round cancels the load drift of a shared machine; target for ``harvest`` >= 0.9)
with their range. JOBDIR pickles its requests, which drops the session a request chain is lent
(an in-memory object, docs/scheduler.md "Which schedulers can carry a SIPP harvest"), so even
the details workload breaks there. Every scheduler's line says its complete cases out of the
expected (details workload: cases with their ``case`` part; full: case part and every tab),
and a scheduler whose runs did not complete every case gets no ratio (:func:`summarise`).

    .venv/bin/python bench/bench_scheduler.py [--cases 600] [--full-cases 60] [--rounds 5]
        [--no-pg] [--database-url postgresql://...]

Only 127.0.0.1 is contacted; each crawl is bounded by ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import UNTHROTTLED_SETTINGS
from tests.support.paths import REPO
from tests.support.postgres import bench_databases

COURT = "pn-bench"
FAST = {**UNTHROTTLED_SETTINGS, "LOG_LEVEL": "INFO", "LOGSTATS_INTERVAL": "600"}
_STATS = re.compile(r"Dumping Scrapy stats:\n(\{.*?\})\n", re.DOTALL)


def crawl(
    name: str,
    url: str,
    tmp: Path,
    max_seconds: float,
    spider_args: list[str],
    database: Callable[[], str] | None = None,
) -> dict[str, float]:
    ws = tmp / f"ws-{name}"
    settings = {**FAST, "HARVEST_WORKSPACE": str(ws)}
    env = dict(os.environ)
    if name == "harvest-pg":
        assert database is not None
        env["HARVEST_DATABASE_URL"] = database()  # a new database (never on a command line)
    if name in ("memory", "jobdir"):
        settings["SCHEDULER"] = "scrapy.core.scheduler.Scheduler"
    if name == "jobdir":
        settings["JOBDIR"] = str(tmp / "jobdir")
    if name == "harvest-each":
        settings["HARVEST_STATE_COMMIT"] = "each"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "sipp", "-a", f"base_url={url}"]
    cmd += ["-a", f"court_id={COURT}", *spider_args]
    for k, v in settings.items():
        cmd += ["-s", f"{k}={v}"]
    t0 = time.perf_counter()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        cmd, cwd=REPO, capture_output=True, text=True, timeout=max_seconds, check=False, env=env
    )
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - t0
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    m = _STATS.search(proc.stderr)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"{name} crawl failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    stats = ast.literal_eval(re.sub(r"datetime\.datetime\([^)]*\)", "None", m.group(1)))
    only = ["--complete-only"] if not spider_args else []  # tabs=none: no case is complete
    export = subprocess.run(
        [sys.executable, "-m", "scrapy", "export", *only, "-s", f"HARVEST_WORKSPACE={ws}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    responses = float(stats.get("response_received_count", 0))
    elapsed = float(stats["elapsed_time_seconds"])
    return {
        "responses": responses,
        "elapsed": elapsed,
        "wall": wall,
        "per_s": responses / elapsed,
        "cpu_ms": cpu * 1000.0 / responses,  # the crawl process's CPU, start-up included
        "retries": float(stats.get("retry/count", 0)),
        "complete": float(len(export.stdout.splitlines())),
    }


WORKLOADS = {
    # list pages and case details only: one request per case at a time by construction, so
    # the comparison is about the scheduler alone (JOBDIR still breaks the session chain)
    "details": ["-a", "tabs=none"],
    # the real crawl: details and every tab, whose one-shot sessions need the group rule
    "full": [],
}


def _median_run(results: list[dict[str, float]]) -> dict[str, float]:
    """The run with the median throughput (robust to one disturbed run on a shared machine)."""
    ordered = sorted(results, key=lambda r: r["per_s"])
    return ordered[(len(ordered) - 1) // 2]


ALL_NAMES = ("harvest", "harvest-each", "harvest-pg", "memory", "jobdir")
BASE = "memory"


def summarise(workload: str, cases: int, runs: dict[str, list[dict[str, float]]]) -> list[str]:
    """The summary lines of one workload: per scheduler its throughput (median run), its
    complete cases out of ``cases`` (the fewest of its runs, and the most when they differ),
    and its ratio to ``memory`` (the median of the per-round ratios, with their range) only
    when every run of both completed every case: a scheduler that does not harvest the court
    (a pickling scheduler breaks SIPP's session chain, docs/scheduler.md) has no throughput
    worth comparing."""
    rounds = max((len(r) for r in runs.values()), default=0)
    lines = [f"{workload} ({cases} cases, {rounds} rounds):"]
    base = runs.get(BASE, [])
    base_complete = bool(base) and all(r["complete"] >= cases for r in base)
    for name, results in runs.items():
        if not results:
            continue
        best = _median_run(results)
        done = sorted(int(r["complete"]) for r in results)
        complete = f"{done[0]}/{cases}" if done[0] == done[-1] else f"{done[0]}-{done[-1]}/{cases}"
        cpu = statistics.median(r["cpu_ms"] for r in results)
        line = (
            f"  {name:12s} {best['per_s']:6.1f} responses/s (median run)   "
            f"complete cases {complete:>11s}   {cpu:5.1f} CPU ms/response   "
        )
        if done[0] < cases:
            line += "no ratio: did not complete its cases"
        elif name == BASE:
            line += "(the base)"
        elif not base_complete:
            line += f"no ratio: {BASE} did not complete its cases"
        else:
            ratios = [
                mine["per_s"] / other["per_s"] for mine, other in zip(results, base, strict=True)
            ]
            line += (
                f"ratio to {BASE} {statistics.median(ratios):.2f} "
                f"(rounds {min(ratios):.2f}-{max(ratios):.2f})"
            )
        lines.append(line)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=600, help="cases of the details workload")
    parser.add_argument("--full-cases", type=int, default=60, help="cases of the full workload")
    parser.add_argument("--rounds", type=int, default=5, help="crawls per scheduler (median)")
    parser.add_argument("--max-seconds", type=float, default=600)
    parser.add_argument("--no-pg", action="store_true", help="leave out harvest-pg")
    parser.add_argument(
        "--database-url",
        help="a PostgreSQL database harvest-pg may fill (default: a throwaway server)",
    )
    args = parser.parse_args()
    names = tuple(n for n in ALL_NAMES if not (args.no_pg and n == "harvest-pg"))
    with contextlib.ExitStack() as stack:
        database = None if args.no_pg else stack.enter_context(bench_databases(args.database_url))
        summary = run_workloads(args, names, database)
    print()
    print("replica, faults off, no delay, AutoThrottle off, 16 concurrent requests")
    print("\n".join(summary))
    print("target: harvest >= 0.90 x memory (details workload); no ratio without every case")


def run_workloads(
    args: argparse.Namespace, names: tuple[str, ...], database: Callable[[], str] | None
) -> list[str]:
    summary: list[str] = []
    for workload, cases in (("details", args.cases), ("full", args.full_cases)):
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
        with running_replica(cases=cases, seed=1, court_id=COURT) as rep:
            for r in range(args.rounds):
                # one crawl of each per round, the order rotated every round, so load drift and
                # position in the round hit every scheduler alike
                for name in names[r % len(names) :] + names[: r % len(names)]:
                    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
                        res = crawl(
                            name,
                            rep.url,
                            Path(tmp),
                            args.max_seconds,
                            WORKLOADS[workload],
                            database,
                        )
                    print(
                        f"{workload:7s} round {r + 1} {name:12s} "
                        f"{res['responses']:5.0f} responses in {res['elapsed']:5.1f}s = "
                        f"{res['per_s']:6.1f}/s  "
                        f"{res['cpu_ms']:5.1f} CPU ms/response  retries {res['retries']:4.0f}  "
                        f"complete cases {res['complete']:.0f}/{cases}",
                        flush=True,
                    )
                    runs[name].append(res)
        summary += summarise(workload, cases, runs)
    return summary


if __name__ == "__main__":
    main()
