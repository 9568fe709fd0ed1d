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
cases, an old and a new crawl at the same time in each of ``--rounds`` rounds (so both see the
same load of a shared machine): the crawl process's CPU time from spider open to close
(:class:`CpuMeter`, start-up excluded) over its responses; the new/old ratio is the median of
the rounds' ratios. Last, a
cProfile of one unthrottled crawl of each (again at the same time): the shares of the state store
(``extensions/sqlite_store.py``), the item store (``pipelines/``), Scrapy's generator-return
check and log records, and their profiled milliseconds per response.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import itertools
import json
import pstats
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from harvest import settings as project_settings
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import UNTHROTTLED_SETTINGS
from tests.support.paths import REPO as ROOT

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler


class CpuMeter:
    """Records the crawl process's CPU time from spider open to close (``bench/cpu_seconds``):
    CPU per response without the interpreter's and Scrapy's start-up."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.t0 = 0.0
        crawler.signals.connect(self.opened, signal=signals.spider_opened)
        crawler.signals.connect(self.closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def opened(self) -> None:
        self.t0 = time.process_time()

    def closed(self) -> None:
        assert self.crawler.stats is not None
        self.crawler.stats.set_value("bench/cpu_seconds", time.process_time() - self.t0)


COURT = "pn-pace"
DELAY = 1.0
METER = "bench.bench_pace.CpuMeter"
#: What the project did before issue 16 (Scrapy's downloader, AutoThrottle and logging).
OLD = {
    "DOWNLOADER": "scrapy.core.downloader.Downloader",
    "EXTENSIONS": json.dumps({"scrapy.extensions.throttle.AutoThrottle": 0, METER: 0}),
    "HARVEST_CASE_LOOKAHEAD": "-1",
    "WARN_ON_GENERATOR_RETURN_VALUE": "True",
}
#: The project's settings (its extensions, plus the CPU meter).
NEW = {"EXTENSIONS": json.dumps({**project_settings._PACING_EXTENSIONS, METER: 0})}
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
        first_at, own = complete[first_group]
        first_requests = own + 1.0  # and the list page that listed it
    else:  # nothing complete in the whole run
        first_at, first_requests = float("nan"), float("nan")
    reqs_per_case = statistics.fmean([n for _, n in complete.values()] or [float("nan")])
    reqs_per_case += lists / max(1, len(groups))
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


def cpu_pair(url: str, tmp: Path) -> dict[str, float]:
    """CPU ms per response of an old and a new unthrottled crawl run at the same time (the same
    machine load for both), each from spider open to close."""
    procs = {}
    for name, settings in (("old", OLD), ("new", NEW)):
        ws = tmp / f"cpu-{name}-{time.monotonic_ns()}"
        cmd = crawl_cmd(url, ws, {**UNTHROTTLED_SETTINGS, **settings})
        procs[name] = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
    out = {}
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=900)
        m = _STATS.search(err)
        if proc.returncode != 0 or m is None:
            raise SystemExit(f"{name} crawl failed:\n{err[-3000:]}")
        stats = ast.literal_eval(re.sub(r"datetime\.datetime\([^)]*\)", "None", m.group(1)))
        cpu = float(stats["bench/cpu_seconds"])
        out[name] = cpu * 1000.0 / float(stats["response_received_count"])
    return out


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


def profile_shares(url: str, tmp: Path) -> dict[str, dict[str, Any]]:
    """One unthrottled old and new crawl under cProfile, at the same time; each part's share
    of the profiled time."""
    procs = {}
    for name, settings in (("old", OLD), ("new", NEW)):
        cmd = crawl_cmd(url, tmp / f"prof-{name}", {**UNTHROTTLED_SETTINGS, **settings})
        # python -m cProfile -o FILE -m scrapy crawl ...
        cmd[1:2] = ["-m", "cProfile", "-o", str(tmp / f"{name}.prof"), "-m"]
        procs[name] = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
    return {name: _shares(tmp / f"{name}.prof", proc) for name, proc in procs.items()}


def _shares(out: Path, proc: subprocess.Popen[str]) -> dict[str, Any]:
    _, err = proc.communicate(timeout=900)
    m = _STATS.search(err)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"profiled crawl failed:\n{err[-3000:]}")
    stats = ast.literal_eval(re.sub(r"datetime\.datetime\([^)]*\)", "None", m.group(1)))
    prof = pstats.Stats(str(out))
    total = max(ct for (_f, _l, _n), (_cc, _nc, _tt, ct, _c) in prof.stats.items())  # type: ignore[attr-defined]
    shares: dict[str, Any] = {
        "total_s": total,
        "responses": float(stats["response_received_count"]),
    }
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
    parser.add_argument("--rounds", type=int, default=5, help="old/new CPU crawl pairs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pace-") as name:
        tmp = Path(name)
        with running_replica(cases=args.cases, seed=16, court_id=COURT) as rep:
            polite = polite_side_by_side(rep.url, tmp, args.seconds)
        with running_replica(cases=args.cpu_cases, seed=16, court_id=COURT) as rep:
            cpu: dict[str, list[float]] = {"old": [], "new": []}
            for r in range(args.rounds):
                pair = cpu_pair(rep.url, tmp)
                for which, ms in pair.items():
                    cpu[which].append(ms)
                print(
                    f"cpu round {r + 1}: old {pair['old']:.2f}, new {pair['new']:.2f} "
                    "CPU ms/response",
                    flush=True,
                )
            shares = profile_shares(rep.url, tmp)
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
        f"CPU per response (spider open to close), unthrottled {args.cpu_cases}-case crawls, "
        f"{args.rounds} rounds: old {old_ms:.2f} ms, new {new_ms:.2f} ms (medians); new/old "
        f"{statistics.median(ratios):.3f} (median of the rounds' ratios; "
        f"{min(ratios):.3f}-{max(ratios):.3f})"
    )
    print("cProfile shares of one unthrottled crawl of each, run at the same time (old -> new):")
    for label in SHARES:
        o, n = shares["old"], shares["new"]
        ms_o = o[label] * o["total_s"] * 1000 / o["responses"]
        ms_n = n[label] * n["total_s"] * 1000 / n["responses"]
        print(
            f"  {label:62s} {o[label]:6.1%} -> {n[label]:6.1%}   "
            f"({ms_o:.2f} -> {ms_n:.2f} profiled ms/response)"
        )
    print(
        f"  whole profiled crawl: {o['total_s'] * 1000 / o['responses']:.2f} -> "
        f"{n['total_s'] * 1000 / n['responses']:.2f} profiled ms/response"
    )
    print(
        "targets: rate >= 0.97 x 1/delay; first case <= 1.2 x (its requests x delay); "
        "cases/h >= 0.95 x the delay-bound maximum"
    )


if __name__ == "__main__":
    main()
