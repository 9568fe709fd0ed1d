"""Shipping throughput: ``ship.py`` vs minimal clients against the same reference server.

Everything runs in this one invocation, side by side, on 127.0.0.1 only. For each number of
connections C in ``--connections`` (default 1 and 4), each round:

1. ``ship.py --concurrency C`` (the real CLI, a subprocess) ships every document of a workspace
   of ``--cases`` complete cases (real item store) to a fresh reference ingest server: store
   read, local validation and re-hash, retries armed, every answer checked against the
   contract, one ship-log line per answer, group-committed (fsync per 128 final lines or 0.5 s);
2. a *minimal keep-alive client on the same HTTP library* (``requests``: one ``Session`` per
   connection, prepared requests sent with ``Session.send``, the same fast path ship.py uses)
   posts the same pre-encoded bodies from C threads to another fresh server: no store, no
   validation, no log, no retries;
3. a *bare* ``http.client`` client does the same (the most a Python client gets).

Prints documents/s of each and the ratios ship.py / minimal client at each C. The phases are
interleaved ``--rounds`` times (default 2) and the best of each is kept, so that load from other
processes on the machine hits all of them alike. Then reading a ship-log of ``--log-lines``
lines (default 1,000,000; 0 skips it): time and the bytes per key of the skip index.

    .venv/bin/python bench/bench_ship.py [--cases 1500] [--rounds 2] [--connections 1,4]
                                         [--log-lines 1000000]
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from urllib.parse import urlsplit

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from harvest.base.workspace import open_private
from harvest.shipping.documents import encode
from harvest.shipping.shiplog import read_ship_log
from pipelines.store import ItemStore
from tests.support.ingest import TOKEN, IngestServer, ship_env, start_server
from tests.support.paths import REPO, SHIP


def build(workspace: Path, cases: int) -> list[bytes]:
    workspace.mkdir(mode=0o700)
    with ItemStore.open(workspace / "items.sqlite") as store:
        for i in range(cases):
            number = f"{i}/Pdt.G/2024/PA Bch"
            store.upsert_part(
                court="pa-bench",
                case_number=number,
                part="case",
                data={
                    "nomor_perkara": number,
                    "jenis_perkara": "Cerai Gugat",
                    "para_pihak": f"Penggugat {i} melawan Tergugat {i}",
                    "tabs": [
                        {"slug": "penetapan", "label": "Penetapan", "available": True},
                        {"slug": "riwayat_perkara", "label": "Riwayat", "available": True},
                    ],
                },
            )
            store.upsert_part(
                court="pa-bench",
                case_number=number,
                part="tab:penetapan",
                data={"tanggal": "2024-03-01", "hakim": f"Hakim {i % 9}"},
            )
            store.upsert_part(
                court="pa-bench",
                case_number=number,
                part="tab:riwayat_perkara",
                data=[{"tanggal": f"2024-01-{d:02d}", "tahapan": "Sidang"} for d in range(1, 6)],
            )
        return [encode(d) for d in store.iter_documents(versions=True)]


def post_http_client(url: str, bodies: list[bytes], results: list[int]) -> None:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    for body in bodies:
        conn.request("POST", "/items", body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        results.append(response.status)
    conn.close()


def post_requests(url: str, bodies: list[bytes], results: list[int]) -> None:
    session = requests.Session()
    session.trust_env = False
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    for body in bodies:
        prepared = requests.PreparedRequest()
        prepared.prepare(method="POST", url=url + "/items", headers=headers, data=body)
        response = session.send(prepared, timeout=(3.05, 30), allow_redirects=False)
        response.content  # noqa: B018 - read the answer
        results.append(response.status_code)
    session.close()


CLIENTS = {"requests": post_requests, "http.client": post_http_client}


def minimal(db: Path, bodies: list[bytes], connections: int, client: str) -> float:
    server: IngestServer = start_server(db)
    try:
        slices = [bodies[i::connections] for i in range(connections)]
        results: list[int] = []
        threads = [
            threading.Thread(target=CLIENTS[client], args=(server.url, s, results)) for s in slices
        ]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
    finally:
        server.stop()
    assert results.count(201) == len(bodies), f"unexpected answers: {set(results)}"
    return len(bodies) / elapsed


def ship_rate(db: Path, workspace: Path, connections: int) -> tuple[float, str]:
    server: IngestServer = start_server(db)
    try:
        start = time.perf_counter()
        result = subprocess.run(
            [*SHIP, "--workspace", str(workspace), "--endpoint", server.url, "-q",
             "--concurrency", str(connections)],
            cwd=REPO,
            env=ship_env(),
            capture_output=True,
            text=True,
            check=False,
        )  # fmt: skip
        wall = time.perf_counter() - start
    finally:
        server.stop()
    if result.returncode != 0:
        raise SystemExit(f"ship.py failed ({result.returncode}): {result.stderr}")
    # documents/s as ship.py measures it (its run, without interpreter start-up)
    rate = float(result.stdout.rsplit(", ", 1)[1].split()[0])
    return rate, f"{result.stdout.strip()} (wall with start-up {wall:.1f}s)"


def fsync_cost(path: Path, n: int = 200) -> float:
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)
    try:
        start = time.perf_counter()
        for _ in range(n):
            os.write(fd, b"x" * 250 + b"\n")
            os.fsync(fd)
        return (time.perf_counter() - start) / n * 1000
    finally:
        os.close(fd)


def log_read(path: Path, lines: int) -> tuple[float, float, float, int]:
    keys = max(1, lines // 2)
    with path.open("wb") as f:
        for i in range(lines):
            final = i % 5 != 0
            record = {
                "final": final,
                "key": f"sipp.pn-jakartapusat:{i % keys}/Pid.B/2024/PN Jkt.Pst",
                "content_hash": "sha256:" + hashlib.sha256(str(i).encode()).hexdigest(),
                "outcome": "ok" if final else "retry",
                "time": "2026-11-30T00:54:58.308Z",
                "attempt": 1,
                "endpoint": "http://127.0.0.1:8900",
                "status": 201 if final else 503,
                "result": "created" if final else None,
                "error": None if final else "503 fault injection: 503, retry later",
                "ms": 3,
            }
            f.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
    size = path.stat().st_size
    start, cpu = time.perf_counter(), time.process_time()
    state = read_ship_log(path)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    del state
    tracemalloc.start()
    state = read_ship_log(path)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return wall, cpu, held / max(1, len(state.shipped)), size


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=1500)
    p.add_argument("--connections", default="1,4", help="comma-separated (default 1,4)")
    p.add_argument("--rounds", type=int, default=2, help="phases interleaved; best kept")
    p.add_argument("--log-lines", type=int, default=1_000_000)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ship-") as tmp:
        t = Path(tmp)
        bodies = build(t / "ws", args.cases)
        print(f"{len(bodies)} documents, {sum(map(len, bodies)) / len(bodies):.0f} bytes each")
        best: dict[tuple[str, int], float] = {}
        counts = [int(c) for c in args.connections.split(",")]
        for r in range(args.rounds):
            for c in counts:
                log = t / "ws" / "ship-log.jsonl"
                if log.exists():
                    log.unlink()  # each round ships everything again, to a fresh server
                rate, summary = ship_rate(t / f"ship{r}-{c}.sqlite", t / "ws", c)
                print(f"  round {r + 1}, {c} connection(s): ship.py {rate:.1f}/s [{summary}]")
                best["ship.py", c] = max(best.get(("ship.py", c), 0.0), rate)
                for client in CLIENTS:
                    rate = minimal(t / f"{client}{r}-{c}.sqlite", bodies, c, client)
                    print(f"  round {r + 1}, {c} connection(s): {client} {rate:.1f}/s")
                    best[client, c] = max(best.get((client, c), 0.0), rate)
        fsync_ms = fsync_cost(t / "fsync-probe")
        for c in counts:
            ship_c, req_c, raw_c = best["ship.py", c], best["requests", c], best["http.client", c]
            print(
                f"{c} connection(s): ship.py {ship_c:.1f}/s, minimal requests client "
                f"{req_c:.1f}/s, bare http.client {raw_c:.1f}/s; ratio ship.py / requests "
                f"{ship_c / req_c:.2f}, ship.py / http.client {ship_c / raw_c:.2f}"
            )
        print(
            f"(one fsync costs {fsync_ms:.2f} ms here; ship.py does one per 128 answers or 0.5 s)"
        )
        if args.log_lines:
            wall, cpu, per_key, size = log_read(t / "ship-log.jsonl", args.log_lines)
            print(
                f"ship-log read: {args.log_lines} lines ({size / 1e6:.0f} MB) in {wall:.2f}s "
                f"(cpu {cpu:.2f}s); skip index {per_key:.0f} bytes per key"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
