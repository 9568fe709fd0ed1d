"""A court at its polite limit: pacing, first complete case, cases per hour, CPU per response.

    .venv/bin/python bench/bench_pace.py [--seconds 180] [--cases 2000] [--cpu-cases 200]

Runs the real ``sipp`` spider against the replica (``reference.sipp_site``, 127.0.0.1 only) with
the project's default politeness (``DOWNLOAD_DELAY`` 1.0 s with +-50% jitter, 2 requests in flight
per court, AutoThrottle on, 16 in total), twice **side by side in one run**:

* ``new``: the project's settings (``extensions.pacing.PacedDownloader`` and
  ``PacedAutoThrottle``, the case cap ``HARVEST_CASE_LOOKAHEAD`` = 1,
  ``WARN_ON_GENERATOR_RETURN_VALUE`` off, ``QuietScrapyLogs``);
* ``old``: the same crawl with Scrapy's downloader and AutoThrottle, no case cap, Scrapy's
  generator-return check and its loggers at DEBUG (what the project did before issue 16).

Each crawl runs ``--seconds`` (``CLOSESPIDER_TIMEOUT``) into its own workspace; both crawl the
same replica court at once (two crawls of one court in two workspaces: each keeps its own
politeness, so the replica sees two polite crawlers). From each workspace's ``url_log`` and
``requests`` tables it prints:

* requests per second per court: (exchanges - 1) / (last - first response time), and the mean,
  min and max gap (target >= 0.97 x 1/delay);
* time to the first complete case (all of its rows ok), from the first response, against its
  requests (its own exchanges + the list page that listed it) x delay (target <= 1.2 x);
* complete cases per hour against the delay-bound maximum 3600 / (requests per complete case x
  delay): over the whole run (ramp-up and the cases still open at the end included) and in the
  steady state (between the first and the last completion; target >= 0.95);
* the cases started in the first two minutes and those complete by then.

Then CPU per response, old vs new, from unthrottled crawls (delay 0, AutoThrottle off, 16 in
flight: only CPU is measured, so politeness would just make the run longer) of ``--cpu-cases``
cases, alternating old/new for ``--rounds`` rounds (the crawl process's user + system time,
start-up included, over its responses), and a cProfile of one unthrottled crawl of each: the
shares of the state store (``extensions/``), the item store (``pipelines/``), Scrapy's
generator-return check and log records.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import itertools
import pstats
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reference.sipp_site.testing import UNTHROTTLED_SETTINGS, running_replica  # noqa: E402

COURT = "pn-pace"
DELAY = 1.0
#: What the project did before issue 16 (Scrapy's downloader, AutoThrottle and logging).
OLD = {
    "DOWNLOADER": "scrapy.core.downloader.Downloader",
    "EXTENSIONS": '{"scrapy.extensions.throttle.AutoThrottle": 0}',
    "HARVEST_CASE_LOOKAHEAD": "-1",
    "WARN_ON_GENERATOR_RETURN_VALUE": "True",
}
NEW: dict[str, str] = {}
COMMON = {"LOG_LEVEL": "INFO", "LOGSTATS_INTERVAL": "600", "TELNETCONSOLE_ENABLED": "False"}
_STATS = re.compile(r"Dumping Scrapy stats:\n(\{.*?\})\n", re.DOTALL)


def crawl_cmd(url: str, ws: Path, settings: dict[str, str]) -> list[str]:
    cmd = [sys.executable, "-m", "scrapy", "crawl", "sipp", "-a", f"base_url={url}"]
    cmd += ["-a", f"court_id={COURT}"]
    for k, v in {**COMMON, **settings, "HARVEST_WORKSPACE": str(ws)}.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd


def _t(text: str) -> float:
    return dt.datetime.fromisoformat(text).timestamp()


def pacing(ws: Path) -> dict[str, float]:
    """The politeness numbers of one crawl, from its state database."""
    db = sqlite3.connect(ws / "state.sqlite")
    try:
        log = db.execute("SELECT at, request_id FROM url_log ORDER BY id").fetchall()
        rows = db.execute(
            "SELECT id, kind, group_key, status, updated_at FROM requests"
        ).fetchall()
        first_run = db.execute("SELECT min(started_at) FROM runs").fetchone()[0]
    finally:
        db.close()
    times = sorted(_t(at) for at, _ in log)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    t0 = times[0]
    per_row: dict[int, int] = {}
    first_seen: dict[int, float] = {}
    for at, rid in log:
        if rid is not None:
            per_row[rid] = per_row.get(rid, 0) + 1
            first_seen.setdefault(rid, _t(at))
    groups: dict[str, list[tuple[int, str, str]]] = {}
    lists = 0
    for rid, kind, group, status, updated in rows:
        if kind == "list":
            lists += per_row.get(rid, 0)
        elif group is not None:
            groups.setdefault(group, []).append((rid, status, updated))
    complete = {
        g: (max(_t(u) for _, _, u in rs), sum(per_row.get(rid, 0) for rid, _, _ in rs))
        for g, rs in groups.items()
        if all(s == "ok" for _, s, _ in rs)
    }
    began = {
        g: min(first_seen[rid] for rid, _, _ in rs if rid in first_seen)
        for g, rs in groups.items()
        if any(rid in first_seen for rid, _, _ in rs)
    }
    done_at = sorted(at for at, _ in complete.values())
    if complete:
        first_group = min(complete, key=lambda g: complete[g][0])
        first_at, first_requests = complete[first_group]
        first_requests += 1  # the list page that listed it
    else:  # nothing complete in the whole run
        first_at, first_requests = float("nan"), 0
    reqs_per_case = statistics.fmean(n for _, n in complete.values()) + lists / max(1, len(groups))
    bound = 3600.0 / (reqs_per_case * DELAY)
    whole = len(complete) / (times[-1] - t0) * 3600.0
    steady = (len(done_at) - 1) / (done_at[-1] - done_at[0]) * 3600.0 if len(done_at) > 2 else 0
    two_min = t0 + 120.0
    started_2min = sum(1 for at in began.values() if at <= two_min)
    return {
        "requests": float(len(times)),
        "seconds": times[-1] - t0,
        "rate": (len(times) - 1) / (times[-1] - t0),
        "gap_mean": statistics.fmean(gaps),
        "gap_min": min(gaps),
        "gap_max": max(gaps),
        "startup": t0 - _t(first_run),
        "first_case_s": first_at - t0,
        "first_case_requests": float(first_requests),
        "complete": float(len(complete)),
        "started": float(len(began)),
        "reqs_per_case": reqs_per_case,
        "bound_per_h": bound,
        "whole_per_h": whole,
        "steady_per_h": steady,
        "started_2min": float(started_2min),
        "complete_2min": float(sum(1 for at in done_at if at <= two_min)),
    }


def polite_side_by_side(url: str, tmp: Path, seconds: float) -> dict[str, dict[str, float]]:
    procs = {}
    for name, settings in (("old", OLD), ("new", NEW)):
        ws = tmp / f"polite-{name}"
        cmd = crawl_cmd(url, ws, {**settings, "CLOSESPIDER_TIMEOUT": str(seconds)})
        log = (tmp / f"polite-{name}.log").open("w")
        procs[name] = (subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=log), ws, log)
    out = {}
    for name, (proc, ws, log) in procs.items():
        rc = proc.wait(timeout=seconds + 120)
        log.close()
        if rc != 0:
            text = (tmp / f"polite-{name}.log").read_text()
            raise SystemExit(f"{name} polite crawl failed (exit {rc}):\n{text[-3000:]}")
        out[name] = pacing(ws)
    return out


def cpu_crawl(url: str, tmp: Path, name: str, settings: dict[str, str]) -> float:
    """CPU ms per response of one unthrottled crawl (the crawl process, start-up included)."""
    ws = tmp / f"cpu-{name}-{time.monotonic_ns()}"
    cmd = crawl_cmd(url, ws, {**UNTHROTTLED_SETTINGS, **settings})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = _STATS.search(proc.stderr)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"{name} crawl failed:\n{proc.stderr[-3000:]}")
    stats = ast.literal_eval(re.sub(r"datetime\.datetime\([^)]*\)", "None", m.group(1)))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu * 1000.0 / float(stats["response_received_count"])


SHARES = {
    "state store (extensions/sqlite_store.py)": lambda f, n: "/extensions/sqlite_store.py" in f,
    "item store (pipelines/: DedupePipeline.process_item)": lambda f, n: (
        "/pipelines/dedupe.py" in f and n == "process_item"
    ),
    "generator-return check (warn_on_generator_with_return_value)": lambda f, n: (
        n == "warn_on_generator_with_return_value"
    ),
    "log records (logging.Logger.debug/log)": lambda f, n: (
        f.endswith("logging/__init__.py") and n in ("debug", "log")
    ),
}


def profile_shares(url: str, tmp: Path, name: str, settings: dict[str, str]) -> dict[str, Any]:
    """Run one unthrottled crawl under cProfile; each part's share of the profiled time."""
    out = tmp / f"{name}.prof"
    ws = tmp / f"prof-{name}"
    cmd = crawl_cmd(url, ws, {**UNTHROTTLED_SETTINGS, **settings})
    cmd[1:2] = ["-m", "cProfile", "-o", str(out), "-m"]  # python -m cProfile -o F -m scrapy
    subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    prof = pstats.Stats(str(out))
    total = max(ct for (_f, _l, _n), (_cc, _nc, _tt, ct, _c) in prof.stats.items())  # type: ignore[attr-defined]
    shares: dict[str, Any] = {"total_s": total}
    for label, pred in SHARES.items():
        # sum the cumulative time of the matching functions not called from one another
        cum = 0.0
        for (f, _l, n), (_cc, _nc, _tt, ct, callers) in prof.stats.items():  # type: ignore[attr-defined]
            if pred(f, n) and not any(pred(cf, cn) for (cf, _cl, cn) in callers):
                cum += ct
        shares[label] = cum / total
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="each polite crawl")
    parser.add_argument("--cases", type=int, default=2000, help="cases of the replica court")
    parser.add_argument("--cpu-cases", type=int, default=200, help="cases of the CPU crawls")
    parser.add_argument("--rounds", type=int, default=3, help="old/new CPU crawl pairs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pace-") as name:
        tmp = Path(name)
        with running_replica(cases=args.cases, seed=16, court_id=COURT) as rep:
            polite = polite_side_by_side(rep.url, tmp, args.seconds)
        with running_replica(cases=args.cpu_cases, seed=16, court_id=COURT) as rep:
            cpu: dict[str, list[float]] = {"old": [], "new": []}
            for r in range(args.rounds):
                for which in ("old", "new") if r % 2 == 0 else ("new", "old"):
                    ms = cpu_crawl(rep.url, tmp, which, OLD if which == "old" else NEW)
                    cpu[which].append(ms)
                    print(f"cpu round {r + 1} {which}: {ms:.2f} CPU ms/response", flush=True)
            shares = {w: profile_shares(rep.url, tmp, w, OLD if w == "old" else NEW) for w in cpu}
    print()
    print(
        f"replica court, {args.cases} cases; default politeness: DOWNLOAD_DELAY {DELAY} s "
        f"(+-50%), 2 in flight per court, AutoThrottle on; {args.seconds:.0f} s per crawl, "
        "old and new side by side"
    )
    for which in ("old", "new"):
        p = polite[which]
        print(
            f"  {which}: {p['requests']:.0f} requests in {p['seconds']:.1f} s = "
            f"{p['rate']:.3f} requests/s per court ({p['rate'] * DELAY:.3f} x 1/delay; gaps "
            f"mean {p['gap_mean']:.3f} s, min {p['gap_min']:.3f}, max {p['gap_max']:.3f})"
        )
        print(
            f"       first complete case after {p['first_case_s']:.1f} s for "
            f"{p['first_case_requests']:.0f} requests = "
            f"{p['first_case_s'] / (p['first_case_requests'] * DELAY):.2f} x (requests x delay)"
        )
        print(
            f"       {p['complete']:.0f} complete of {p['started']:.0f} started cases; "
            f"{p['reqs_per_case']:.2f} requests per complete case (list pages shared); "
            f"delay-bound maximum {p['bound_per_h']:.0f} cases/h"
        )
        print(
            f"       complete cases/h: whole run {p['whole_per_h']:.0f} "
            f"({p['whole_per_h'] / p['bound_per_h']:.3f} x max), steady state "
            f"{p['steady_per_h']:.0f} ({p['steady_per_h'] / p['bound_per_h']:.3f} x max)"
        )
        print(
            f"       first two minutes: {p['started_2min']:.0f} cases started, "
            f"{p['complete_2min']:.0f} complete"
        )
    old_ms, new_ms = statistics.median(cpu["old"]), statistics.median(cpu["new"])
    ratios = [n / o for o, n in zip(cpu["old"], cpu["new"], strict=True)]
    print(
        f"CPU per response, unthrottled {args.cpu_cases}-case crawls, {args.rounds} rounds: "
        f"old {old_ms:.2f} ms, new {new_ms:.2f} ms: new/old {new_ms / old_ms:.3f} "
        f"(per round {min(ratios):.3f}-{max(ratios):.3f})"
    )
    print("cProfile shares of one unthrottled crawl (old -> new):")
    for label in SHARES:
        print(f"  {label:62s} {shares['old'][label]:6.1%} -> {shares['new'][label]:6.1%}")
    print(
        "targets: rate >= 0.97 x 1/delay; first case <= 1.2 x (its requests x delay); "
        "cases/h >= 0.95 x the delay-bound maximum"
    )


if __name__ == "__main__":
    main()
