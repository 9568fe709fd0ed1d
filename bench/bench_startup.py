"""Side by side: the start-up cost of one ``scrapy`` process, this checkout vs a baseline.

The test suite starts ~600 processes (``scrapy crawl``, ``scrapy status``, ...), so what one
costs before it does any work is paid 600 times. For each checkout this runs, interleaved
round by round: a refused ``scrapy crawl sipp`` (no ``base_url``: it loads the project, its
commands and settings, and exits 1), a whole crawl of a 3-case replica court into a fresh
workspace (most crawls of the tests are small), and ``scrapy status`` of that workspace; it prints
the median CPU (user + sys; the crawl's archive writer process included), peak RSS and wall
time of each, with the ratio this/baseline.

    .venv/bin/python bench/bench_startup.py [--rounds 9] [--baseline DIR]

``--baseline``: a copy of another version's tracked files (``git archive main | tar -x -C DIR``)
run with this virtualenv. Bytecode: each checkout runs as the test suite runs it; with
``--compile`` the checkout's own modules are compiled first (what tests/support/bytecode.py does
once per test session), so the difference the compilation makes is seen on its own.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from reference.sipp_site.testing import running_replica
from tests.support.bytecode import compile_checkout
from tests.support.harvest_run import crawl_command
from tests.support.paths import PY, REPO


def measure(cmd: list[str], cwd: Path) -> tuple[float, float, float, int]:
    """CPU seconds (user + sys, with its children), peak RSS in MiB (of the process, not its
    children), wall seconds and exit status of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, usage.ru_maxrss / 1024, wall, os.waitstatus_to_exitcode(status)


def commands(workspace: Path, url: str) -> dict[str, list[str]]:
    ws = ["-s", f"HARVEST_WORKSPACE={workspace}"]
    return {
        "crawl (refused)": [PY, "-m", "scrapy", "crawl", "sipp", *ws],
        "crawl 3 cases": crawl_command(url, "pn-bench", workspace),
        "status": [PY, "-m", "scrapy", "status", *ws],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--compile", action="store_true", help="compile each checkout first")
    args = ap.parse_args()
    checkouts = [("this", REPO)] + ([("baseline", args.baseline)] if args.baseline else [])
    if args.compile:
        for _, cwd in checkouts:
            compile_checkout(cwd)
    rows: dict[tuple[str, str], list[tuple[float, float, float, int]]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp,
        running_replica(cases=3, seed=1, court_id="pn-bench") as replica,
    ):
        for n in range(args.rounds):
            for name, cwd in checkouts:
                for what, cmd in commands(Path(tmp) / f"{name}-{n}", replica.url).items():
                    rows.setdefault((name, what), []).append(measure(cmd, cwd))
    print(f"{'checkout':10} {'command':16} {'CPU s':>7} {'RSS MiB':>8} {'wall s':>7} exit")
    for (name, what), runs in rows.items():
        cpu, rss, wall = (statistics.median(r[i] for r in runs) for i in range(3))
        print(
            f"{name:10} {what:16} {cpu:7.2f} {rss:8.0f} {wall:7.2f} {sorted({r[3] for r in runs})}"
        )
    if args.baseline:
        for what in commands(Path(), ""):
            a, b = rows[("this", what)], rows[("baseline", what)]
            cpu = statistics.median(r[0] for r in a) / statistics.median(r[0] for r in b)
            rss = statistics.median(r[1] for r in a) / statistics.median(r[1] for r in b)
            print(f"this/baseline {what:16} CPU {cpu:.2f}x  RSS {rss:.2f}x")


if __name__ == "__main__":
    main()
