"""The offline demo: every part of harvest against the local replica and reference ingest API.

Nothing here talks to anything but 127.0.0.1. Run it with ``scripts/demo`` (which sets up first).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl_command
from tests.support.ingest import ship_env, start_server
from tests.support.paths import REPO, SCRAPY, SHIP
from tests.support.scheduler import wait_for_progress

COURT = "pn-replika"
#: The demo's crawls: the replica is ours (no politeness delay); a progress line every 2 s. Only
#: the crawl's own report is shown (progress lines, summary, failures), not Scrapy's INFO lines.
CRAWL_SETTINGS = {"DOWNLOAD_TIMEOUT": "5", "LOG_LEVEL": "INFO", "HARVEST_PROGRESS_INTERVAL": "2"}
#: Log lines of the crawl the demo shows (with their continuation lines).
SHOWN = re.compile(r"\[extensions\.progress\]|\] (WARNING|ERROR):")
STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ")


def step(text: str) -> None:
    print(f"\n\033[1m== {text}\033[0m", flush=True)


def start_crawl(args: list[str]) -> subprocess.Popen[str]:
    """Start a crawl whose report (progress lines, summary, warnings) is echoed as it comes."""
    print("$", " ".join(a if " " not in a else repr(a) for a in args), flush=True)
    proc = subprocess.Popen(args, cwd=REPO, stderr=subprocess.PIPE, text=True)

    def pump() -> None:
        assert proc.stderr is not None
        showing = False
        for line in proc.stderr:
            if STAMP.match(line):
                showing = bool(SHOWN.search(line))
                line = line[20:]  # without the date: the progress lines are what matters
            if showing:
                print("  " + line, end="", flush=True)

    threading.Thread(target=pump, daemon=True).start()
    return proc


def run_crawl(args: list[str]) -> int:
    proc = start_crawl(args)
    code = proc.wait()
    time.sleep(0.2)  # let the last lines through
    print(f"crawl exit status {code}", flush=True)
    return code


def run(args: list[str], *, env: dict[str, str] | None = None, check: bool = True) -> int:
    print("$", " ".join(a if " " not in a else repr(a) for a in args), flush=True)
    return subprocess.run(args, cwd=REPO, env=env, check=check).returncode


def crawl_args(base_url: str, workspace: Path) -> list[str]:
    return crawl_command(base_url, COURT, workspace, settings=CRAWL_SETTINGS)


def scrapy(command: str, workspace: Path, *args: str) -> list[str]:
    return [*SCRAPY, command, *args, "-s", f"HARVEST_WORKSPACE={workspace}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", type=float, default=0.10)
    parser.add_argument("--dir", type=Path, default=REPO / "demo")
    opts = parser.parse_args()

    demo = opts.dir.resolve()
    shutil.rmtree(demo, ignore_errors=True)
    demo.mkdir(parents=True)
    workspace = demo / "workspace"
    truth = demo / "truth.jsonl"
    exported = demo / "export.jsonl"
    step(f"ground truth of the replica court ({opts.cases} cases, seed {opts.seed})")
    with running_replica(
        cases=opts.cases, seed=opts.seed, court_id=COURT, faults=opts.faults
    ) as replica:
        replica.write_truth(truth)
        base = replica.url
        step(f"crawl the replica at {base} with {opts.faults:.0%} faulty responses; kill -9 it")
        crawl = start_crawl(crawl_args(base, workspace))
        wait_for_progress(workspace, 300, timeout=120, proc=cast("Any", crawl))
        crawl.send_signal(signal.SIGKILL)
        crawl.wait()
        time.sleep(0.2)
        print("crawl killed with SIGKILL after 300 exchanges")
        run(scrapy("status", workspace))

        step("run the same command again: it resumes where the killed run stopped")
        run_crawl(crawl_args(base, workspace))
        run(scrapy("status", workspace))

        step("the court is healthy again: requeue what failed, crawl once more")
        replica.faults_off()  # same address and data: the stored requests stay valid
        run(scrapy("requeue", workspace))
        run_crawl(crawl_args(base, workspace))
        run(scrapy("status", workspace))
        page = demo / "status.html"
        run(scrapy("status", workspace, "--html", str(page)))
        print(f"status page (open it in a browser): {page}")

    step("export complete cases and compare with the ground truth, field by field")
    run(scrapy("export", workspace, "--complete-only", "--out", str(exported)))
    want = {d["dedupe_key"]: d for d in map(json.loads, truth.read_text().splitlines())}
    got = {d["dedupe_key"]: d for d in map(json.loads, exported.read_text().splitlines())}
    for doc in got.values():
        doc.pop("content_hash", None)
    equal = sum(1 for k, d in want.items() if got.get(k) == d)
    print(f"{equal} of {len(want)} cases equal the ground truth; {len(got)} exported")

    step("ship to the reference ingest API (20% of answers faulty), then ship again")
    api = start_server(
        demo / "ingest.sqlite", "--faults", "0.2", "--slow-seconds", "0.5", "--retry-after", "1"
    )
    env = ship_env()
    ship = [*SHIP, "--workspace", str(workspace), "--endpoint", api.url]
    try:
        run([*ship, "--dry-run"], env=env, check=False)
        first = run(ship, env=env, check=False)
        second = run(ship, env=env, check=False)
    finally:
        api.stop()
    print(f"\nship exit codes: first {first}, second {second}")
    print(f"workspace: {workspace}  (state.sqlite, items.sqlite, ship-log.jsonl)")
    return 0 if equal == len(want) and first == 0 and second == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
