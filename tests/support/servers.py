"""Real servers on 127.0.0.1 for the hardening tests: a rewriting HTTP proxy in front of the
replica, a TLS terminator with a self-signed certificate, and a server that counts its hits."""

from __future__ import annotations

import contextlib
import datetime as dt
import http.client
import http.server
import ipaddress
import socket
import socketserver
import ssl
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

#: ``rewrite(path, status, body) -> body | (status, headers, body)``: change a replica answer.
Rewrite = Callable[[str, int, bytes], "bytes | tuple[int, dict[str, str], bytes]"]


@dataclass
class Served:
    url: str
    port: int
    hits: list[str] = field(default_factory=list)


@contextlib.contextmanager
def rewriting_proxy(upstream_port: int, rewrite: Rewrite) -> Iterator[Served]:
    """An HTTP proxy on 127.0.0.1 forwarding to the replica (``Host`` kept, so the replica's
    links point at the proxy), uncompressed, with ``rewrite`` applied to every answer."""
    served = Served("", 0)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            served.hits.append(self.path)
            conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "accept-encoding"}
            conn.request("GET", self.path, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            out_headers = [
                (k, v)
                for k, v in resp.getheaders()
                if k.lower() not in ("content-length", "connection", "content-encoding")
            ]
            conn.close()
            status = resp.status
            changed = rewrite(self.path, status, body)
            if isinstance(changed, tuple):
                status, extra, body = changed
                out_headers = [(k, v) for k, v in out_headers if k not in extra] + list(
                    extra.items()
                )
            else:
                body = changed
            self.send_response(status)
            for k, v in out_headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    with _serving(Handler) as (url, port):
        served.url, served.port = url, port
        yield served


@contextlib.contextmanager
def counting_server(body: bytes = b"<html>elsewhere</html>") -> Iterator[Served]:
    """Another local server: answers 200 to everything and counts what it was asked."""
    served = Served("", 0)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    with _serving(Handler) as (url, port):
        served.url, served.port = url, port
        yield served


@contextlib.contextmanager
def _serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[tuple[str, int]]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        yield f"http://127.0.0.1:{port}/", int(port)
    finally:
        server.shutdown()
        server.server_close()


def self_signed(directory: Path, *, ip: str | None = "127.0.0.1", dns: str | None = None) -> Path:
    """Write a self-signed certificate + key (PEM, one file) for ``ip`` and/or ``dns``."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, dns or ip or "court")])
    sans: list[x509.GeneralName] = []
    if ip:
        sans.append(x509.IPAddress(ipaddress.ip_address(ip)))
    if dns:
        sans.append(x509.DNSName(dns))
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    path = directory / f"court-{dns or ip}.pem"
    path.write_bytes(
        cert.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return path


@contextlib.contextmanager
def tls_terminator(upstream_port: int, pem: Path) -> Iterator[Served]:
    """TLS on 127.0.0.1 in front of the replica (plain TCP piped both ways), like a court's
    reverse proxy: the replica behind it still writes ``http://`` links."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pem)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    served = Served(f"https://127.0.0.1:{port}/", port)
    stop = threading.Event()

    def pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def handle(raw: socket.socket) -> None:
        try:
            conn = context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()  # the client refused our certificate
            return
        served.hits.append("connection")
        with conn, socket.create_connection(("127.0.0.1", upstream_port)) as upstream:
            back = threading.Thread(target=pipe, args=(upstream, conn), daemon=True)
            back.start()
            pipe(conn, upstream)
            back.join(timeout=30)

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=handle, args=(raw,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


@contextlib.contextmanager
def catch_all() -> Iterator[Served]:
    """A listener on 127.0.0.1 that stands for every host but the court: point ``HTTP(S)_PROXY``
    (and Chromium's proxy) at it and every connection to another name lands here. It records
    each connection's first line (``CONNECT publicsuffix.org:443 ...``, ``GET http://x/ ...``)
    in ``hits`` and answers 502."""
    served = Served("", 0)

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            self.request.settimeout(10)
            try:
                line = self.request.makefile("rb").readline(4096)
            except OSError:
                line = b""
            served.hits.append(line.decode("latin-1").strip() or "(nothing sent)")
            with contextlib.suppress(OSError):
                self.request.sendall(
                    b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        served.port = int(server.server_address[1])
        served.url = f"http://127.0.0.1:{served.port}"
        yield served
    finally:
        server.shutdown()
        server.server_close()
