"""The replica's HTTP/1.1 server: a raw asyncio protocol (keep-alive, pipelining) with the
low-level control faults need (connection resets, truncated bodies, hangs), the JavaScript gate
and live registration of new cases.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gzip
import logging
import socket
import struct
import sys
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from .challenge import COOKIE as CHALLENGE_COOKIE
from .challenge import Challenge
from .faults import FaultPicker
from .model import CourtData, number_of
from .render import (
    APACHE_500,
    CI_404,
    CI_DB_ERROR,
    CI_GENERAL_ERROR,
    NGINX_PAGE,
    PHP_NOTICE,
    challenge_page,
)
from .site import Request, Response, Site

logger = logging.getLogger(__name__)

REASONS = {
    200: "OK",
    301: "Moved Permanently",
    302: "Found",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Temporarily Unavailable",
}
MAX_HEADER = 64 * 1024
MAX_BODY = 1024 * 1024
SERVER_HEADERS = (
    b"Server: Apache/2.4.25 (Debian)\r\nX-Powered-By: PHP/5.6.40\r\n"
    b"Cache-Control: no-store, no-cache, must-revalidate\r\n"
)


@dataclass(frozen=True)
class ServerOptions:
    challenge: bool = False
    live_interval: float = 0.0  # seconds between registrations; 0 = not live
    live_max: int = 1000
    access_log: bool = False
    gzip: bool = True
    #: the install's path: ``/`` or a sub-path such as ``/sipp/`` (base_url() then carries it,
    #: and requests outside it are 404)
    base_path: str = "/"
    #: seconds every answer waits before it is sent (``--latency``): asynchronous, so one
    #: replica serves many slow requests at once, as a far-away court does
    latency: float = 0.0


class Replica:
    """The serving state shared by all connections: site, faults, gate, live registration."""

    def __init__(
        self, site: Site, faults: FaultPicker, challenge: Challenge, options: ServerOptions
    ) -> None:
        self.site = site
        self.faults = faults
        self.challenge = challenge
        self.options = options
        self.registered = 0

    async def live(self) -> None:
        """Register one new case every ``live_interval`` seconds (``--live``)."""
        data: CourtData = self.site.data
        while self.registered < self.options.live_max:
            await asyncio.sleep(self.options.live_interval)
            index = data.register()
            self.site.registered()
            self.registered += 1
            print(
                f"registered case {number_of(data, index)} (registered {self.registered}, "
                f"cases {len(data)})",
                flush=True,
            )


def _parse_cookies(header: str) -> dict[str, str]:
    """``Cookie:`` pairs as PHP reads them: split on ``;``, name up to the first ``=``."""
    out: dict[str, str] = {}
    for part in header.split(";"):
        name, sep, value = part.partition("=")
        if sep and name.strip():
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            out.setdefault(name.strip(), value)
    return out


def _serialise(resp: Response, keep_alive: bool, head_only: bool = False) -> bytes:
    lines = [f"HTTP/1.1 {resp.status} {REASONS.get(resp.status, 'Unknown')}\r\n".encode()]
    lines.append(SERVER_HEADERS)
    for k, v in resp.headers:
        lines.append(f"{k}: {v}\r\n".encode("latin-1"))
    lines.append(f"Content-Length: {len(resp.body)}\r\n".encode())
    lines.append(b"Connection: keep-alive\r\n\r\n" if keep_alive else b"Connection: close\r\n\r\n")
    if not head_only:
        lines.append(resp.body)
    return b"".join(lines)


class HttpProtocol(asyncio.Protocol):
    """One client connection: parse requests, answer them in order, inject faults."""

    def __init__(self, replica: Replica, port: int) -> None:
        self.replica = replica
        self.port = port
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.queue: deque[Request] = deque()
        self.busy = False
        self.closed = False
        self.accept_gzip = False
        self._waiting: set[asyncio.Future[None]] = set()  # answers held by --latency

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > MAX_HEADER:
                    self._bad_request()
                return
            head = self.buf[:end].decode("latin-1")
            lines = head.split("\r\n")
            try:
                method, target, version = lines[0].split(" ", 2)
            except ValueError:
                self._bad_request()
                return
            headers: dict[str, str] = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            try:
                length = int(headers.get("content-length", "0") or 0)
            except ValueError:
                self._bad_request()
                return
            if length > MAX_BODY:
                self._bad_request()
                return
            if len(self.buf) < end + 4 + length:
                return
            body = self.buf[end + 4 : end + 4 + length]
            self.buf = self.buf[end + 4 + length :]
            cookies = _parse_cookies(headers["cookie"]) if "cookie" in headers else {}
            if version.strip().upper() == "HTTP/1.0" and "connection" not in headers:
                headers["connection"] = "close"  # HTTP/1.0 closes unless asked to keep alive
            path = unquote(target.split("?", 1)[0])
            self.queue.append(Request(method.upper(), path, headers, body, cookies))
            if not self.busy:
                self._drain()

    def _bad_request(self) -> None:
        if self.transport is not None:
            self.transport.write(_serialise(Response.html("Bad Request", 400), False))
            self.transport.close()
        self.closed = True

    def _base(self, req: Request) -> str:
        host = req.headers.get("host") or f"127.0.0.1:{self.port}"
        return f"http://{host}{self.replica.options.base_path}"

    def _drain(self) -> None:
        while self.queue and not self.busy and not self.closed:
            req = self.queue.popleft()
            keep_alive = req.headers.get("connection", "").lower() != "close"
            self._answer(req, keep_alive)

    def _write(self, resp: Response, keep_alive: bool, head_only: bool) -> None:
        assert self.transport is not None
        self.transport.write(_serialise(self._compressed(resp), keep_alive, head_only))
        if not keep_alive:
            self.transport.close()
            self.closed = True

    def _compressed(self, resp: Response) -> Response:
        """gzip the body when the client accepts it (the real sites enable gzip output)."""
        if not self.accept_gzip or len(resp.body) < 256:
            return resp
        body = gzip.compress(resp.body, compresslevel=1, mtime=0)
        headers = [*resp.headers, ("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
        return Response(resp.status, body, headers, full_page=resp.full_page)

    def _answer(self, req: Request, keep_alive: bool) -> None:
        latency = self.replica.options.latency
        if latency > 0:
            # this connection waits (its next requests queue behind), the others are served
            self.busy = True
            task = asyncio.ensure_future(self._after(latency, req, keep_alive))
            self._waiting.add(task)
            task.add_done_callback(self._waiting.discard)
            return
        self._answer_now(req, keep_alive)

    async def _after(self, seconds: float, req: Request, keep_alive: bool) -> None:
        await asyncio.sleep(seconds)
        self.busy = False
        if not self.closed:
            self._answer_now(req, keep_alive)
            self._drain()

    def _answer_now(self, req: Request, keep_alive: bool) -> None:
        replica = self.replica
        base = self._base(req)
        prefix = replica.options.base_path
        if prefix != "/":
            # a sub-path install: the app lives under the prefix, the rest of the host is not
            # SIPP (the web server's own 404)
            if req.path != prefix.rstrip("/") and not req.path.startswith(prefix):
                self._write(Response.html(CI_404, 404), keep_alive, req.method == "HEAD")
                return
            req = dataclasses.replace(req, path="/" + req.path[len(prefix) :])
        self.accept_gzip = replica.options.gzip and "gzip" in req.headers.get(
            "accept-encoding", ""
        )
        head_only = req.method == "HEAD"
        if replica.options.access_log:
            print(f"{req.method} {req.path}", file=sys.stderr, flush=True)
        if replica.options.challenge and not replica.challenge.cleared(
            req.cookies.get(CHALLENGE_COOKIE), req.user_agent
        ):
            page = challenge_page(replica.challenge.script(req.user_agent))
            self._write(Response.html(page, 403), keep_alive, head_only)
            return
        fault = replica.faults.pick()
        if fault is None:
            self._write(self._handle(req, base), keep_alive, head_only)
            return
        cfg = replica.faults.config
        if fault in ("502", "503"):
            reason = REASONS[int(fault)]
            page = NGINX_PAGE.format(code=fault, reason=reason)
            self._write(Response.html(page, int(fault)), keep_alive, head_only)
        elif fault == "reset":
            self._reset()
        elif fault == "hang":
            self._later(self._hang(cfg.hang_seconds))
        else:
            resp = self._handle(req, base)  # the app runs: one-shot values are consumed
            if fault == "slow":
                self._later(self._slow(resp, keep_alive, head_only, cfg.slow_seconds))
            elif fault == "500":
                self._write(Response.html(APACHE_500, 500), keep_alive, head_only)
            elif fault == "db_error":
                self._write(Response.html(CI_DB_ERROR), keep_alive, head_only)
            elif fault == "ci_error":
                self._write(Response.html(CI_GENERAL_ERROR), keep_alive, head_only)
            elif fault == "php_error":
                self._write(self._php_notice(resp), keep_alive, head_only)
            elif fault == "truncate":
                self._truncate(resp)

    def _handle(self, req: Request, base: str) -> Response:
        """The site's response; a bug in the replica becomes a logged 500, never a dead server."""
        try:
            return self.replica.site.handle(req, base)
        except Exception:
            logger.exception("replica error on %s %s", req.method, req.path)
            return Response.html(APACHE_500, 500)

    @staticmethod
    def _php_notice(resp: Response) -> Response:
        """A notice printed before the page; before a redirect it breaks the redirect (200)."""
        if resp.status == 302:
            text = PHP_NOTICE + (
                "\n<div><h4>A PHP Error was encountered</h4><p>Severity: Warning</p>"
                "<p>Message:  Cannot modify header information - headers already sent</p></div>"
            )
            return Response.html(text)
        body = PHP_NOTICE.encode() + resp.body
        return Response(resp.status, body, resp.headers, full_page=resp.full_page)

    def _later(self, coro: Coroutine[Any, Any, None]) -> None:
        self.busy = True
        task = asyncio.ensure_future(coro)
        task.add_done_callback(self._resume)

    def _resume(self, _task: asyncio.Future[None]) -> None:
        self.busy = False
        if not self.closed:
            self._drain()

    async def _slow(
        self, resp: Response, keep_alive: bool, head_only: bool, seconds: float
    ) -> None:
        await asyncio.sleep(seconds)
        if not self.closed:
            self._write(resp, keep_alive, head_only)

    async def _hang(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        if self.transport is not None and not self.closed:
            self.transport.close()
        self.closed = True

    def _reset(self) -> None:
        assert self.transport is not None
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()
        self.closed = True

    def _truncate(self, resp: Response) -> None:
        assert self.transport is not None
        raw = _serialise(self._compressed(resp), True)
        cut = len(raw) - max(len(resp.body) // 2, 1)
        self.transport.write(raw[:cut])
        self.transport.close()
        self.closed = True


async def serve(replica: Replica, host: str, port: int) -> None:
    """Serve until cancelled; prints ``listening on http://HOST:PORT/<base path>`` once bound."""
    loop = asyncio.get_running_loop()
    bound_port = port
    server = await loop.create_server(
        lambda: HttpProtocol(replica, bound_port), host, port, reuse_address=True, backlog=512
    )
    sockets = server.sockets or ()
    if sockets:
        bound_port = sockets[0].getsockname()[1]
    print(f"listening on http://{host}:{bound_port}{replica.options.base_path}", flush=True)
    live_task = None
    if replica.options.live_interval > 0:
        live_task = asyncio.ensure_future(replica.live())
    try:
        async with server:
            await server.serve_forever()
    finally:
        if live_task is not None:
            live_task.cancel()
