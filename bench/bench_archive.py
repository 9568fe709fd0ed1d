"""What the page archive costs and what ``scrapy reparse`` buys.

One replica court (faults off) is crawled by the real ``sipp`` spider, scheduler and pipeline (no
download delay, AutoThrottle off, 16 requests in flight), once per round with the archive off
(``HARVEST_ARCHIVE=False``) and once with it on, in alternating order. Prints:

* archive size: compressed bytes on disk per case and per archived page (WARC, gzip per record:
  request + response + metadata record per page, a warcinfo per file), and the ratio to the
  decoded page bytes;
* crawl CPU per page (the crawl process's user + system time / responses, start-up included),
  median per mode;
* crawl throughput: pages/s = responses received / the crawl's ``elapsed_time_seconds``
  (Scrapy's own stats: start-up excluded), per mode; the on/off ratio of each round and their
  median (pairing the runs of a round cancels the drift of a shared machine; target >= 0.95);
* reparse: ``scrapy reparse`` of the last archived workspace into an empty item store (pages/s
  as it reports), and the pure parse rate (read + parse, nothing stored) in-process, against
  the crawl's pages/s.

    .venv/bin/python bench/bench_archive.py [--cases 200] [--rounds 3] [--baseline DIR]

``--baseline DIR``: a checkout of another commit (``git archive main | tar -x -C DIR``); its
crawls run in the same rounds, interleaved with this checkout's (same replica, same machine
load), and its ratio and CPU are printed beside this checkout's.

Only 127.0.0.1 is contacted; each crawl is bounded by ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from harvest.archive.reparse import PageFailed, pages_to_reparse, parts_of_entry
from harvest.archive.store import ArchiveIndex
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import UNTHROTTLED_SETTINGS
from tests.support.paths import REPO

COURT = "pn-bench"
_STATS = re.compile(r"Dumping Scrapy stats:\n(\{.*?\})\n", re.DOTALL)


def crawl(
    url: str, ws: Path, archive: bool, max_seconds: float, checkout: Path = REPO
) -> dict[str, Any]:
    settings = {
        **UNTHROTTLED_SETTINGS,
        "HARVEST_WORKSPACE": str(ws),
        "HARVEST_ARCHIVE": str(archive),
        "LOG_LEVEL": "INFO",
    }
    cmd = [sys.executable, "-m", "scrapy", "crawl", "sipp", "-a", f"base_url={url}"]
    cmd += ["-a", f"court_id={COURT}"]
    for k, v in settings.items():
        cmd += ["-s", f"{k}={v}"]
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.run(
        cmd, cwd=checkout, env=env, capture_output=True, text=True, timeout=max_seconds,
        check=False,
    )  # fmt: skip
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    m = _STATS.search(proc.stderr)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"crawl failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    stats = ast.literal_eval(re.sub(r"datetime\.datetime\([^)]*\)", "None", m.group(1)))
    responses = float(stats.get("response_received_count", 0))
    elapsed = float(stats["elapsed_time_seconds"])
    return {
        "responses": responses,
        "elapsed": elapsed,
        "per_s": responses / elapsed,
        "cpu_ms": cpu * 1000.0 / responses,  # the crawl process's CPU, start-up included
        "archived": float(stats.get("harvest/archive/records", 0)),
        "decoded_bytes": float(stats.get("httpcompression/response_bytes", 0)),
    }


def archive_bytes(ws: Path) -> int:
    return sum(p.stat().st_size for p in (ws / "archive").glob("*/*.warc.gz"))


def parse_only(ws: Path) -> tuple[int, float]:
    """Read and parse every archived detail and tab page in-process; nothing stored."""
    root = ws / "archive"
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        entries = pages_to_reparse(index, court=None, kind=None, tab=None)
    t0 = time.perf_counter()
    for entry in entries:
        try:
            parts_of_entry(root, entry)
        except PageFailed as exc:
            raise SystemExit(f"{entry.key}: {exc}") from exc
    return len(entries), time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-seconds", type=float, default=900)
    parser.add_argument("--baseline", type=Path, default=None, help="a checkout to compare")
    args = parser.parse_args()
    checkouts = {"this": REPO}
    if args.baseline is not None:
        checkouts["baseline"] = args.baseline.resolve()
    runs: dict[tuple[str, bool], list[dict[str, Any]]] = {
        (name, archive): [] for name in checkouts for archive in (False, True)
    }
    ratios: dict[str, list[float]] = {name: [] for name in checkouts}
    with (
        tempfile.TemporaryDirectory(prefix="bench-archive-") as tmp,
        running_replica(cases=args.cases, seed=7, court_id=COURT) as replica,
    ):
        last_on = Path(tmp)
        for r in range(args.rounds):
            order = [(name, archive) for name in checkouts for archive in (False, True)]
            if r % 2:
                order.reverse()  # alternate: neither checkout nor mode always runs first
            this: dict[tuple[str, bool], dict[str, Any]] = {}
            for name, archive in order:
                ws = Path(tmp) / f"r{r}-{name}-{'on' if archive else 'off'}"
                result = crawl(replica.url, ws, archive, args.max_seconds, checkouts[name])
                if archive and name == "this":
                    result["bytes"] = archive_bytes(ws)
                    last_on = ws
                this[name, archive] = result
                runs[name, archive].append(result)
                print(
                    f"round {r + 1} {name:8} archive {'on ' if archive else 'off'}: "
                    f"{result['responses']:.0f} responses in {result['elapsed']:.1f}s = "
                    f"{result['per_s']:.1f} pages/s, {result['cpu_ms']:.2f} ms CPU/page",
                    flush=True,
                )
            for name in checkouts:
                ratios[name].append(this[name, True]["per_s"] / this[name, False]["per_s"])
        on = runs["this", True][-1]
        per_case = on["bytes"] / args.cases
        per_page = on["bytes"] / on["archived"]
        print(
            f"archive: {on['bytes']} bytes for {args.cases} cases, {on['archived']:.0f} pages: "
            f"{per_case / 1024:.1f} KiB/case, {per_page / 1024:.2f} KiB/page "
            f"({on['bytes'] / on['decoded_bytes']:.2f} of the decoded page bytes)"
        )
        for name in checkouts:
            print(
                f"{name}: crawl throughput on/off: median {statistics.median(ratios[name]):.3f} "
                f"(rounds: {', '.join(f'{x:.3f}' for x in ratios[name])}; target >= 0.95)"
            )
            cpu_off = statistics.median(x["cpu_ms"] for x in runs[name, False])
            cpu_on = statistics.median(x["cpu_ms"] for x in runs[name, True])
            print(
                f"{name}: crawl CPU per page: {cpu_off:.2f} ms off, {cpu_on:.2f} ms on "
                f"(+{cpu_on - cpu_off:.2f} ms, medians; start-up and writer included)"
            )
        crawl_rate = statistics.median(x["per_s"] for x in runs["this", True])
        (last_on / "items.sqlite").unlink()
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "scrapy", "reparse", "--json",
             "-s", f"HARVEST_WORKSPACE={last_on}"],
            cwd=REPO, capture_output=True, text=True, check=True,
        )  # fmt: skip
        wall = time.perf_counter() - t0
        report = ast.literal_eval(proc.stdout.replace("true", "True").replace("false", "False"))
        rate = report["pages"] / report["seconds"]
        pages, seconds = parse_only(last_on)
        print(
            f"reparse: {report['pages']} pages in {report['seconds']:.1f}s = {rate:.0f} pages/s "
            f"({wall:.1f}s with start-up), {rate / crawl_rate:.1f}x the crawl's "
            f"{crawl_rate:.1f} pages/s; parse only: {pages / seconds:.0f} pages/s"
        )


if __name__ == "__main__":
    main()
