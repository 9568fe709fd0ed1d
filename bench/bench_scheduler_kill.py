"""Side by side: the same kill test with Scrapy's JOBDIR and with the harvest scheduler.

A replica court (faults off) is crawled by the real ``sipp`` spider (list pages and case details,
``-a tabs=none``, so Scrapy's own scheduler crawls it correctly) and killed with SIGKILL at
``--kills`` random moments (after a random number of newly stored cases), resuming each time;
then one last run goes to the end. The same items pipeline writes every case to
``items.sqlite`` in both set-ups, so the only difference is the scheduler's state:

* ``jobdir``: ``SCHEDULER = scrapy.core.scheduler.Scheduler`` with ``JOBDIR`` (disk queues,
  ``requests.seen``), as Scrapy documents for pausing and resuming;
* ``harvest``: the project's scheduler, state in ``state.sqlite``.

Prints how many of the court's cases each set-up harvested, how its last run ended, and what
JOBDIR filtered as already seen (the requests it lost).

    .venv/bin/python bench/bench_scheduler_kill.py [--cases 150] [--kills 5]

Only 127.0.0.1 is contacted. Each run is bounded by ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from pipelines.store import ItemStore, ItemStoreError
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import UNTHROTTLED_SETTINGS
from tests.support.paths import REPO

COURT = "pn-bench"
FAST = {**UNTHROTTLED_SETTINGS, "LOG_LEVEL": "INFO"}


def harvested(ws: Path) -> int:
    path = ws / "items.sqlite"
    if not path.exists():
        return 0
    try:
        store = ItemStore.open(path, readonly=True)
    except ItemStoreError:
        return 0
    try:
        return store.count_documents()
    finally:
        store.close()


def command(name: str, url: str, tmp: Path) -> list[str]:
    settings = {**FAST, "HARVEST_WORKSPACE": str(tmp / f"ws-{name}")}
    if name == "jobdir":
        settings["SCHEDULER"] = "scrapy.core.scheduler.Scheduler"
        settings["JOBDIR"] = str(tmp / "jobdir")
    cmd = [sys.executable, "-m", "scrapy", "crawl", "sipp", "-a", f"base_url={url}"]
    cmd += ["-a", f"court_id={COURT}", "-a", "tabs=none"]
    for k, v in settings.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd


def kill_test(
    name: str, url: str, tmp: Path, kills: int, rng: random.Random, max_seconds: float
) -> dict[str, Any]:
    ws = tmp / f"ws-{name}"
    log = tmp / f"{name}.log"
    cmd = command(name, url, tmp)
    for _ in range(kills):
        target = harvested(ws) + rng.randint(5, 25)
        with log.open("ab") as out:
            proc = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + max_seconds
        while proc.poll() is None and harvested(ws) < target and time.monotonic() < deadline:
            time.sleep(0.05)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    final = subprocess.run(
        cmd, cwd=REPO, capture_output=True, text=True, timeout=max_seconds, check=False
    )
    reason = re.findall(r"Spider closed \((\w+)\)", final.stderr)
    filtered = re.findall(
        r"'(?:dupefilter/filtered|harvest/scheduler/duplicate)': (\d+)", final.stderr
    )
    resumed = re.findall(r"Resuming crawl(?: of \S+)? \((\d+) requests scheduled\)", final.stderr)
    return {
        "cases": harvested(ws),
        "reason": reason[-1] if reason else f"exit {final.returncode}",
        "filtered": int(filtered[-1]) if filtered else 0,
        "resumed": int(resumed[-1]) if resumed else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--max-seconds", type=float, default=300)
    args = parser.parse_args()
    results: dict[str, dict[str, Any]] = {}
    with running_replica(cases=args.cases, seed=1, court_id=COURT) as rep:
        for name in ("jobdir", "harvest"):
            with tempfile.TemporaryDirectory(prefix=f"bench-kill-{name}-") as tmp:
                results[name] = kill_test(
                    name,
                    rep.url,
                    Path(tmp),
                    args.kills,
                    random.Random(args.seed),
                    args.max_seconds,
                )
            print(f"{name:8s} {results[name]}", flush=True)
    print()
    print(f"{args.cases} cases, SIGKILL at {args.kills} random moments, then one run to the end:")
    for name, r in results.items():
        print(
            f"  {name:8s} harvested {r['cases']}/{args.cases} cases; last run closed "
            f"'{r['reason']}'; it resumed {r['resumed']} scheduled requests and filtered "
            f"{r['filtered']} as already seen"
        )
    lost = args.cases - int(results["jobdir"]["cases"])
    print(
        f"  JOBDIR lost {lost} cases and reported success; harvest lost "
        f"{args.cases - int(results['harvest']['cases'])}."
    )


if __name__ == "__main__":
    main()
