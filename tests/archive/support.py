"""Helpers of the archive tests: an exchange to write, ``warcio check`` / ``warcio index``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from harvest.archive.store import ArchiveIndex, Exchange, IndexEntry, read_entry

#: The ``warcio`` command of this interpreter's environment.
WARCIO = str(Path(sys.executable).parent / "warcio")


def exchange(n: int, *, body: bytes | None = None, **context: Any) -> Exchange:
    return Exchange(
        url=f"http://127.0.0.1:8000/show_detil/tok{n}?x=1",
        method="GET",
        request_headers=[
            ("User-Agent", "harvest-test"),
            ("Cookie", "ci_session=secret-session-1"),
            ("Authorization", "Basic c2VjcmV0"),
        ],
        request_body=b"",
        status=200,
        protocol="HTTP/1.1",
        response_headers=[
            ("Content-Type", "text/html; charset=UTF-8"),
            ("Set-Cookie", "ci_session=secret-session-2; path=/"),
            ("Content-Encoding", "gzip"),
        ],
        body=body
        if body is not None
        else f"<html><body>Perkara {n} — Pidana</body></html>".encode(),
        fetched_at=1_790_000_000.25 + n,
        context=dict(context),
    )


def warcio(command: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [WARCIO, command, str(path)], capture_output=True, text=True, check=False, timeout=60
    )


def read_all(root: Path, index: ArchiveIndex) -> dict[str, IndexEntry]:
    """Every indexed entry, each read back (digest checked): ``{key: entry}``."""
    out = {}
    for entry in index.entries():
        read_entry(root, entry)
        out[entry.key] = entry
    return out
