"""harvest.shipping.transport: one POST to real servers on 127.0.0.1, what comes back."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from harvest.shipping.errors import ConfigError
from harvest.shipping.transport import RequestsTransport, TransportError
from tests.support.net import refused_port

TOKEN = "transport-token-0123456789"


class Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, dict[str, str], bytes, int]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append((self.path, dict(self.headers), body, self.client_address[1]))
        page = b"<html><body><form action=/login>Sign in</form></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.send_header("Retry-After", "3")
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def html_server() -> Iterator[str]:
    Recorder.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_post_sends_the_body_and_token_and_returns_the_answer_on_one_connection(
    html_server: str,
) -> None:
    transport = RequestsTransport(TOKEN, endpoints=[html_server])
    try:
        answers = [
            transport.post(
                html_server + "/items", b'{"a":1}', {"Content-Type": "application/json"}
            )
            for _ in range(3)
        ]
    finally:
        transport.close()
    assert [a.status for a in answers] == [200, 200, 200]
    assert answers[0].content_type == "text/html; charset=utf-8"
    assert answers[0].body.startswith(b"<html><body><form action=/login>")
    assert answers[0].retry_after == "3"
    assert [s[0] for s in Recorder.seen] == ["/items"] * 3
    assert Recorder.seen[0][1]["Authorization"] == f"Bearer {TOKEN}"
    assert Recorder.seen[0][2] == b'{"a":1}'
    assert len({s[3] for s in Recorder.seen}) == 1  # one kept-alive connection


def test_a_refused_connection_is_a_connect_error() -> None:
    transport = RequestsTransport(TOKEN)
    with refused_port() as port, pytest.raises(TransportError) as info:
        transport.post(f"http://127.0.0.1:{port}/items", b"{}", {})
    assert info.value.connect is True
    assert str(info.value).startswith("cannot connect: ")
    assert TOKEN not in str(info.value)


def test_a_connection_dropped_after_the_request_is_not_a_connect_error() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def drop() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.close()  # the request arrived; no answer

    thread = threading.Thread(target=drop, daemon=True)
    thread.start()
    transport = RequestsTransport(TOKEN, read_timeout=5)
    try:
        with pytest.raises(TransportError) as info:
            transport.post(f"http://127.0.0.1:{listener.getsockname()[1]}/items", b"{}", {})
    finally:
        listener.close()
    assert info.value.connect is False
    assert str(info.value).startswith("connection lost: ")


def test_a_url_the_library_cannot_use_is_a_configuration_error() -> None:
    transport = RequestsTransport(TOKEN)
    with pytest.raises(ConfigError, match="is not usable"):
        transport.post("http://127.0.0.1:99999/items", b"{}", {})
