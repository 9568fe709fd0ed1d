"""Helpers of the archive tests: an exchange to write, ``warcio check`` / ``warcio index``, and
warcio's own encoding of an entry (the oracle of :mod:`harvest.archive.encoder`)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from harvest.archive.store import (
    _DROP,
    CONTEXT_TYPE,
    ArchiveIndex,
    Exchange,
    IndexEntry,
    _reason,
    _redact,
    _request_target,
    _warc_date,
    read_entry,
)

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


def warcio_entry(key: str, exchange: Exchange, ids: Callable[[], str]) -> tuple[bytes, str]:
    """An entry as warcio writes it (the archive's encoder before issue 29, verbatim but for
    the record ids, drawn from ``ids``): the bytes and the response's payload digest."""

    class Writer(WARCWriter):  # type: ignore[misc]
        @classmethod
        def _make_warc_id(cls) -> str:
            return ids()

    buf = io.BytesIO()
    writer = Writer(buf, gzip=True, warc_version="1.1")
    date = _warc_date(exchange.fetched_at)
    reason = _reason(exchange.status)
    response_headers = _redact(exchange.response_headers, drop=_DROP)
    response_headers.append(("Content-Length", str(len(exchange.body))))
    response = writer.create_warc_record(
        exchange.url,
        "response",
        payload=io.BytesIO(exchange.body),
        length=len(exchange.body),
        http_headers=StatusAndHeaders(
            f"{exchange.status} {reason}".strip(), response_headers, protocol=exchange.protocol
        ),
        warc_headers_dict={"WARC-Date": date},
    )
    response_id = response.rec_headers.get_header("WARC-Record-ID")
    digest: str = response.rec_headers.get_header("WARC-Payload-Digest")
    target, host = _request_target(exchange.url)
    request_headers = _redact(exchange.request_headers, drop=frozenset())
    if not any(name.lower() == "host" for name, _ in request_headers):
        request_headers.insert(0, ("Host", host))
    request = writer.create_warc_record(
        exchange.url,
        "request",
        payload=io.BytesIO(exchange.request_body),
        length=len(exchange.request_body),
        http_headers=StatusAndHeaders(
            f"{exchange.method} {target} {exchange.protocol}",
            request_headers,
            protocol="",
            is_http_request=True,
        ),
        warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": response_id},
    )
    context = json.dumps(
        {"harvest_key": key, **exchange.context}, ensure_ascii=False, sort_keys=True
    ).encode("utf-8")
    metadata = writer.create_warc_record(
        exchange.url,
        "metadata",
        payload=io.BytesIO(context),
        length=len(context),
        warc_content_type=CONTEXT_TYPE,
        warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": response_id},
    )
    for record in (request, response, metadata):
        writer.write_record(record)
    return buf.getvalue(), digest
