"""The offline demo: every part of harvest against the local replica and reference ingest API.

Nothing here talks to anything but 127.0.0.1. Run it with ``scripts/demo`` (which sets up first).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
COURT = "pn-replika"
TOKEN = "demo-token-not-a-secret"


def step(text: str) -> None:
    print(f"\n\033[1m== {text}\033[0m", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextmanager
def service(args: list[str], url: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_http(url)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(args: list[str], *, env: dict[str, str] | None = None, check: bool = True) -> int:
    print("$", " ".join(a if " " not in a else repr(a) for a in args), flush=True)
    return subprocess.run(args, cwd=ROOT, env=env, check=check).returncode


def crawl_args(base_url: str, workspace: Path) -> list[str]:
    return [
        PY, "-m", "scrapy", "crawl", "sipp",
        "-a", f"base_url={base_url}", "-a", f"court_id={COURT}",
        "-s", f"HARVEST_WORKSPACE={workspace}",
        # the replica is ours: no politeness delay needed (real courts keep the defaults)
        "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
        "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16", "-s", "DOWNLOAD_TIMEOUT=5",
        "-s", "LOG_LEVEL=WARNING",
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", type=float, default=0.10)
    parser.add_argument("--dir", type=Path, default=ROOT / "demo")
    opts = parser.parse_args()

    demo = opts.dir.resolve()
    shutil.rmtree(demo, ignore_errors=True)
    demo.mkdir(parents=True)
    workspace = demo / "workspace"
    truth = demo / "truth.jsonl"
    exported = demo / "export.jsonl"
    replica_cmd = [
        PY, "-m", "reference.sipp_site", "--cases", str(opts.cases), "--seed", str(opts.seed),
        "--court-id", COURT,
    ]  # fmt: skip

    step(f"ground truth of the replica court ({opts.cases} cases, seed {opts.seed})")
    run([*replica_cmd, "--truth", str(truth)])

    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    faulty = [*replica_cmd, "--port", str(port), "--faults", str(opts.faults)]
    step(f"crawl the replica at {base} with {opts.faults:.0%} faulty responses; kill -9 it")
    with service(faulty, base, demo / "replica.log"):
        crawl = subprocess.Popen(crawl_args(base, workspace), cwd=ROOT)
        time.sleep(8)
        crawl.send_signal(signal.SIGKILL)
        crawl.wait()
        print("crawl killed with SIGKILL after 8 s")
        run([PY, "-m", "scrapy", "status", "-s", f"HARVEST_WORKSPACE={workspace}"])

        step("run the same command again: it resumes where the killed run stopped")
        run(crawl_args(base, workspace), check=False)
        run([PY, "-m", "scrapy", "status", "-s", f"HARVEST_WORKSPACE={workspace}"])

    step("the court is healthy again: requeue what failed, crawl once more")
    healthy = [*replica_cmd, "--port", str(port)]
    with service(healthy, base, demo / "replica.log"):
        run([PY, "-m", "scrapy", "requeue", "-s", f"HARVEST_WORKSPACE={workspace}"])
        run(crawl_args(base, workspace), check=False)
        run([PY, "-m", "scrapy", "status", "-s", f"HARVEST_WORKSPACE={workspace}"])

    step("export complete cases and compare with the ground truth, field by field")
    run([
        PY, "-m", "scrapy", "export", "--complete-only", "--out", str(exported),
        "-s", f"HARVEST_WORKSPACE={workspace}",
    ])  # fmt: skip
    want = {d["dedupe_key"]: d for d in map(json.loads, truth.read_text().splitlines())}
    got = {d["dedupe_key"]: d for d in map(json.loads, exported.read_text().splitlines())}
    for doc in got.values():
        doc.pop("content_hash", None)
    equal = sum(1 for k, d in want.items() if got.get(k) == d)
    print(f"{equal} of {len(want)} cases equal the ground truth; {len(got)} exported")

    step("ship to the reference ingest API (20% of answers faulty), then ship again")
    api_port = free_port()
    endpoint = f"http://127.0.0.1:{api_port}"
    api = [
        PY, "-m", "reference.ingest_api", "--port", str(api_port), "--token", TOKEN,
        "--db", str(demo / "ingest.sqlite"), "--faults", "0.2",
        "--slow-seconds", "0.5", "--retry-after", "1",
    ]  # fmt: skip
    env = {**os.environ, "INGEST_TOKEN": TOKEN}
    ship = [PY, "ship.py", "--workspace", str(workspace), "--endpoint", endpoint]
    with service(api, f"{endpoint}/healthz", demo / "ingest.log"):
        run([*ship, "--dry-run"], env=env, check=False)
        first = run(ship, env=env, check=False)
        second = run(ship, env=env, check=False)
    print(f"\nship exit codes: first {first}, second {second}")
    print(f"workspace: {workspace}  (state.sqlite, items.sqlite, ship-log.jsonl)")
    return 0 if equal == len(want) and first == 0 and second == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
