"""Addresses on 127.0.0.1 for tests. Servers bind port 0 themselves and print the port they got;
this module has only what no server can give."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections for as long as the block runs.

    The socket is bound (so no one else can take the port meanwhile) and never listens: the
    kernel answers every connection attempt with a reset, "connection refused".
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
