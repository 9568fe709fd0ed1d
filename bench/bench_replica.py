"""How many responses per second the replica serves on one core (it must not be the bottleneck).

    .venv/bin/python bench/bench_replica.py [--cases 5000] [--seconds 3] [--connections 8]

Starts the replica (``python -m reference.sipp_site``) pinned to CPU 0 and a load client pinned to
CPU 1 (keep-alive raw sockets, several threads), then measures, side by side in one run:

- ``list``      the all-cases list, random pages among the first 20 (a 20-row full page; the
                plain-page rate),
- ``list-cold`` every page once, in order (each first visit generates its 20 cases),
- ``detail``    ``show_detil`` -> 302 -> ``/detil_perkara`` pairs (two responses each),
- ``fragment``  ``show_riwayat_perkara`` -> 302 -> ``/riwayat_perkara`` pairs,
- ``crawl``     what a harvest does: a new list page, then each case's detail and every tab,
- ``baseline``  the standard library's ``http.server`` serving one saved list page from memory
                (what a naive mock server would manage), pinned to the same core.

Prints responses/s for each and the replica/baseline ratio. Only talks to 127.0.0.1; bounded in
time (about 4 x --seconds plus start-up).
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import multiprocessing as mp
import os
import random
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the checkout

from reference.sipp_site.testing import running_replica

TOKEN = re.compile(rb'show_detil/([A-Za-z0-9]+={0,2})"')
TEMPLATE = re.compile(rb"window\.open\('[^']*(/list_perkara/page/)'\+pageNumber\+'(/[^']+)'")


class Conn:
    """A minimal keep-alive HTTP/1.1 client: cheap enough not to be the bottleneck."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.cookie = b""

    def get(self, path: bytes) -> tuple[int, bytes, bytes]:
        cookie = b"Cookie: " + self.cookie + b"\r\n" if self.cookie else b""
        self.sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + cookie + b"\r\n")
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        m = re.search(rb"Set-Cookie: (PHPSESSID=[^;]+)", head)
        if m:
            self.cookie = m.group(1)
        loc = re.search(rb"Location: http://[^/]+(/\S*)", head)
        return int(head[9:12]), body, loc.group(1) if loc else b""

    def _fill(self) -> None:
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("server closed the connection")
        self.buf += data

    def close(self) -> None:
        self.sock.close()


class BenchError(RuntimeError):
    """A response that is not what the benchmark asked for: the numbers would be meaningless."""


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise BenchError(f"unexpected {what} response; the replica is broken or faulty")


def _run(port: int, seconds: float, connections: int, work: Callable[[Conn], int]) -> int:
    stop = time.monotonic() + seconds
    counts = [0] * connections

    def worker(k: int) -> None:
        conn = Conn(port)
        try:
            while time.monotonic() < stop:
                counts[k] += work(conn)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts)


def _client(
    port: int,
    kind: str,
    seconds: float,
    connections: int,
    pin: bool,
    out: mp.Queue,  # type: ignore[type-arg]
) -> None:
    if pin:
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setaffinity(0, {1 % (os.cpu_count() or 1)})
    warm = Conn(port)
    _, page, _ = warm.get(b"/")
    prefix, suffix = TEMPLATE.search(page).groups()  # type: ignore[union-attr]
    tokens = TOKEN.findall(page)
    warm.close()
    rng = random.Random(1)

    cold_pages = iter(range(1, 10**9))

    def list_page(conn: Conn) -> int:
        status, body, _ = conn.get(prefix + str(rng.randint(1, 20)).encode() + suffix)
        _check(status == 200 and b"total_perkara" in body, "list page")
        return 1

    def list_cold(conn: Conn) -> int:
        status, body, _ = conn.get(prefix + str(next(cold_pages)).encode() + suffix)
        _check(status == 200 and b"total_perkara" in body, "list page")
        return 1

    def detail(conn: Conn) -> int:
        status, _, loc = conn.get(b"/show_detil/" + rng.choice(tokens))
        status2, body, _ = conn.get(loc)
        _check(status == 302 and status2 == 200 and b"INFORMASI DETAIL" in body, "detail")
        return 2

    def fragment(conn: Conn) -> int:
        status, _, loc = conn.get(b"/show_riwayat_perkara/" + rng.choice(tokens))
        status2, body, _ = conn.get(loc)
        _check(status == 302 and status2 == 200 and b"closeLoading" in body, "fragment")
        return 2

    lock = threading.Lock()

    def crawl(conn: Conn) -> int:
        """What a harvest does per list page: the page, then every case's detail and tabs."""
        with lock:
            n = next(cold_pages)
        status, body, _ = conn.get(prefix + str(n).encode() + suffix)
        _check(status == 200 and b"total_perkara" in body, "list page")
        done = 1
        for token in TOKEN.findall(body):
            status, _, loc = conn.get(b"/show_detil/" + token)
            status2, page, _ = conn.get(loc)
            _check(status == 302 and status2 == 200 and b"INFORMASI DETAIL" in page, "detail")
            done += 2
            shown = set(re.findall(rb"<a href=\"#(tabs\d+)\" id='tabInfo'>", page))
            for div, url in re.findall(
                rb"\$\('#(tabs\d+)'\)\.load\('http://[^/]+(/[^']+)'\)", page
            ):
                if div in shown and not url.startswith(b"/show_diversi/"):
                    status, _, loc = conn.get(url)
                    status2, frag, _ = conn.get(loc)
                    _check(status2 == 200 and b"closeLoading" in frag, "fragment")
                    done += 2
        return done

    def static(conn: Conn) -> int:
        status, body, _ = conn.get(b"/")
        _check(status == 200 and len(body) > 1000, "baseline page")
        return 1

    work = {
        "list": list_page,
        "list-cold": list_cold,
        "detail": detail,
        "fragment": fragment,
        "crawl": crawl,
        "baseline": static,
    }[kind]
    out.put(_run(port, seconds, connections, work))


def _cpu_seconds(pid: int) -> float:
    """User+system CPU time a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Rate:
    wall: float  # responses per second of wall-clock time
    cpu: float  # responses per second of the server's own CPU time (one core)


def _measure(
    port: int, server_pid: int, kind: str, seconds: float, connections: int, pin: bool
) -> Rate:
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    p = ctx.Process(target=_client, args=(port, kind, seconds, connections, pin, q))
    p.start()
    cpu0, t0 = _cpu_seconds(server_pid), time.monotonic()
    count = int(q.get(timeout=seconds + 60))
    wall, cpu = time.monotonic() - t0, _cpu_seconds(server_pid) - cpu0
    p.join(timeout=30)
    return Rate(wall=count / wall, cpu=count / max(cpu, 1e-3))


def _pin(pid: int) -> None:
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(pid, {0})


def _baseline_server(page: bytes, pin: bool, out: mp.Queue) -> None:  # type: ignore[type-arg]
    if pin:
        _pin(0)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=UTF-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    out.put(server.server_address[1])
    server.serve_forever()


@contextlib.contextmanager
def baseline(page: bytes, pin: bool) -> Iterator[tuple[int, int]]:
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    p = ctx.Process(target=_baseline_server, args=(page, pin, q), daemon=True)
    p.start()
    try:
        port = int(q.get(timeout=30))
        assert p.pid is not None
        yield port, p.pid
    finally:
        p.terminate()
        p.join(timeout=10)


def _app_rate(cases: int) -> float:
    """List pages per CPU-second of the application alone (no sockets)."""
    from reference.sipp_site.court import make_court
    from reference.sipp_site.model import CourtData
    from reference.sipp_site.site import Request, Site
    from reference.sipp_site.tokens import TokenCodec

    site = Site(CourtData(make_court("pn"), seed=1, cases=cases), codec=TokenCodec(1))
    rng = random.Random(2)
    pages = max(cases // 20, 1)
    reqs = [
        Request(
            "GET",
            f"/list_perkara/page/{rng.randint(1, min(pages, 200))}",
            {},
            b"",
            {"PHPSESSID": "b"},
        )
        for _ in range(2000)
    ]
    for r in reqs[:400]:
        site.handle(r, "http://127.0.0.1/")
    t0 = time.process_time()
    for r in reqs:
        site.handle(r, "http://127.0.0.1/")
    return len(reqs) / (time.process_time() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--no-pin", action="store_true", help="do not pin server/client to CPUs")
    opts = ap.parse_args(argv)
    rates: dict[str, Rate] = {}
    with running_replica(cases=opts.cases, seed=1) as rep:
        pin = not opts.no_pin
        if pin:
            _pin(rep.process.pid)
        for kind in ("list", "list-cold", "detail", "fragment", "crawl"):
            rates[kind] = _measure(
                rep.port, rep.process.pid, kind, opts.seconds, opts.connections, pin
            )
        conn = Conn(rep.port)
        _, page, _ = conn.get(b"/")
        conn.close()
    with baseline(page, pin) as (port, pid):
        rates["baseline"] = _measure(port, pid, "baseline", opts.seconds, opts.connections, pin)
    app = _app_rate(opts.cases)
    where = "server pinned to CPU 0, client to CPU 1" if pin else "no CPU pinning"
    print(f"replica ({opts.cases} cases), {where}, {opts.connections} keep-alive connections")
    print(f"  {'':<9} {'wall-clock':>12} {'per server CPU-second':>22}")
    for kind, rate in rates.items():
        print(f"  {kind:<9} {rate.wall:9.0f}/s {rate.cpu:18.0f}/s")
    ratio = rates["list"].cpu / rates["baseline"].cpu
    print(f"  list pages vs stdlib http.server serving one static page (CPU): {ratio:.2f}x")
    print(f"  app only (no sockets), CPU time of one core: {app:.0f} list pages/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
