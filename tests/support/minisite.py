"""A tiny local site for the scheduler's crawl tests: list pages -> cases -> two tabs per case.

Served by a ``ThreadingHTTPServer`` on ``127.0.0.1:0`` in a thread of the test process (the crawl
runs in a subprocess). It can inject faults (deterministic 503s on first attempts, cases that
always answer 500 or 404, a redirect hop) and it checks the scheduler's group rule: it counts
every moment two requests of one case were being served at once (``overlaps``): from the moment
a request arrives until its answer starts to leave (after that the crawler may legitimately send
the case's next request while this server thread has not run again).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self
from urllib.parse import parse_qs, urlsplit

PAGE_SIZE = 20
TABS = ("a", "b")


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A crawler killed mid-request resets its connections: that is expected here."""


class MiniSite:
    def __init__(
        self,
        cases: int,
        *,
        fault_rate: float = 0.0,
        broken: frozenset[int] = frozenset(),
        missing: frozenset[int] = frozenset(),
        delay: float = 0.0,
    ) -> None:
        self.cases = cases
        self.fault_rate = fault_rate
        self.broken = broken
        self.missing = missing
        self.delay = delay
        self.hits: Counter[str] = Counter()
        self.active: Counter[int] = Counter()
        self.overlaps = 0
        self.served = 0  # every request answered
        self._lock = threading.Lock()
        self.server = _QuietServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def truth(self, court: str) -> set[tuple[str, int, str]]:
        """Every (court, case, part) a complete crawl stores."""
        good = [i for i in range(1, self.cases + 1) if i not in self.broken | self.missing]
        return {(court, i, p) for i in good for p in ("case", *(f"tab:{t}" for t in TABS))}

    def _faulty(self, path: str) -> bool:
        with self._lock:
            self.hits[path] += 1
            hit = self.hits[path]
        if hit > 2 or not self.fault_rate:
            return False
        h = int(hashlib.sha256(f"{path}#{hit}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        return h < self.fault_rate

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True
            _case: int | None = None  # the case being served, until its answer starts to leave

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                # the request is answered from here on: once the bytes leave, the crawler may
                # send the case's next request before this thread gets to run again
                self._leave()
                self.end_headers()
                self.wfile.write(data)

            def _leave(self) -> None:
                case = getattr(self, "_case", None)
                if case is not None:
                    self._case = None
                    with site._lock:
                        site.active[case] -= 1

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                q = {k: v[0] for k, v in parse_qs(parts.query).items()}
                case = int(q["id"]) if "id" in q else None
                with site._lock:
                    site.served += 1
                self._case = case
                if case is not None:
                    with site._lock:
                        site.active[case] += 1
                        if site.active[case] > 1:
                            site.overlaps += 1
                try:
                    self._route(parts.path, q, case)
                finally:
                    self._leave()

            def _route(self, path: str, q: dict[str, str], case: int | None) -> None:
                if site.delay:
                    time.sleep(site.delay)
                if path != "/redirect" and site._faulty(self.path):
                    self._send(503, "busy")
                    return
                if path == "/list":
                    page = int(q["page"])
                    first = (page - 1) * PAGE_SIZE + 1
                    last = min(site.cases, page * PAGE_SIZE)
                    links = []
                    for i in range(first, last + 1):
                        href = f"/redirect?id={i}" if i % 7 == 0 else f"/case?id={i}"
                        links.append(f'<a class="case" href="{href}">{i}</a>')
                    if last < site.cases:
                        links.append(f'<a class="next" href="/list?page={page + 1}">next</a>')
                    self._send(200, "<html><body>" + "".join(links) + "</body></html>")
                elif path == "/redirect":
                    self._send(302, "", {"Location": f"/case?id={case}"})
                elif path == "/case" and case is not None:
                    if case in site.missing:
                        self._send(404, "no such case")
                    elif case in site.broken:
                        self._send(500, "broken")
                    else:
                        tabs = "".join(
                            f'<a class="tab" href="/tab?id={case}&amp;t={t}">{t}</a>' for t in TABS
                        )
                        self._send(200, f"<html><h1>case {case}</h1>{tabs}</html>")
                elif path == "/tab" and case is not None:
                    self._send(200, f"<html><p>tab {q['t']} of {case}</p></html>")
                else:
                    self._send(404, "unknown")

        return Handler
