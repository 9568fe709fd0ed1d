"""Serving the reference ingest API with uvicorn on a socket bound before start-up.

The socket is bound first so that ``--port 0`` works: the real port is printed on stdout
(``ingest_api listening on http://HOST:PORT``) before the server accepts connections.
The uvicorn HTTP protocol is subclassed only to expose each connection's transport in the ASGI
scope, which the commit-then-drop fault needs to abort the connection without an answer.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from reference.ingest_api.app import TRANSPORT_EXTENSION, create_app
from reference.ingest_api.config import ServerConfig


class TransportExposingH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, adding ``scope["extensions"]["harvest.transport"]``."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        inner = self.app

        async def app_with_transport(scope: Any, receive: Any, send: Any) -> None:
            scope.setdefault("extensions", {})[TRANSPORT_EXTENSION] = transport
            await inner(scope, receive, send)

        self.app = app_with_transport


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted sockets only when their
    # proto says TCP; with proto 0 every kept-alive answer waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(
    config: ServerConfig,
    sock: socket.socket,
    *,
    access_log: bool = False,
    ready: Callable[[], None] | None = None,
) -> None:
    """Run until SIGINT/SIGTERM. ``ready`` is called once the app (and its database, tables
    created) exists, before the first connection is accepted: what announces the server."""
    app = create_app(config)
    if ready is not None:
        ready()
    uv_config = uvicorn.Config(
        app,
        http=TransportExposingH11Protocol,
        lifespan="off",
        log_level="info" if access_log else "warning",
        access_log=access_log,
        timeout_keep_alive=30,
    )
    uvicorn.Server(uv_config).run(sockets=[sock])
