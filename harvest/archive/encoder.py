"""Our WARC/1.1 record encoder: the bytes warcio's ``WARCWriter(gzip=True)`` writes, made cheaply.

An archive entry (request, response and metadata record, one gzip member each) built through
warcio's record objects costs about 0.7 ms of pure Python per page (``StatusAndHeaders`` objects,
header look-ups, ``BytesIO`` streams, digests computed twice). This module writes the same
records directly: the same WARC header order and values, the same HTTP header block, the same
digests (``sha1:`` base32), the same gzip member (``zlib`` level 9, gzip wrapper). A test pins
byte equality with warcio for the same inputs and record ids (``tests/archive/test_encoder.py``);
warcio stays the reader (``read_entry``) and writes the rare header block that is not ASCII (its
RFC 8187 percent-encoding), so that path is warcio's by construction.

The gzip compression and the digests are C code that releases the interpreter lock: in the
archive's writer thread they run beside the crawl's own thread.

Imports nothing of Scrapy.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
import zlib
from collections.abc import Callable, Sequence

from warcio.statusandheaders import StatusAndHeaders

__all__ = ["WARC_VERSION", "encode_record", "gzip_member", "http_block", "make_record_id"]

WARC_VERSION = "WARC/1.1"
#: warcio's default ``Content-Type`` of each record type it writes here.
RECORD_CONTENT_TYPES = {
    "response": "application/http; msgtype=response",
    "request": "application/http; msgtype=request",
    "metadata": "application/warc-fields",
    "warcinfo": "application/warc-fields",
}


def make_record_id() -> str:
    """``<urn:uuid:...>``, a new ``WARC-Record-ID`` (warcio's form)."""
    return f"<urn:uuid:{uuid.uuid4()}>"


def sha1_digest(data: bytes) -> str:
    """``sha1:<base32>``, the form of warcio's block and payload digests."""
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def gzip_member(data: bytes) -> bytes:
    """One gzip member of ``data`` as warcio's ``GzippingWrapper`` writes it (level 9, gzip
    wrapper; one call: the interpreter lock is released once, not twice)."""
    return zlib.compress(data, 9, wbits=zlib.MAX_WBITS + 16)


def http_block(protocol: str, statusline: str, headers: Sequence[tuple[str, str]]) -> bytes:
    """The HTTP header block of a request or response record (first line, headers, blank line),
    as warcio's ``StatusAndHeaders(statusline, headers, protocol=protocol)`` writes it.

    ASCII as warcio writes it; a block that is not ASCII is left to warcio itself (it
    percent-encodes such values, RFC 8187), so the bytes stay warcio's.
    """
    first = protocol + (" " if protocol and statusline else "") + statusline
    text = (first + "\r\n" if first else "") + "".join(
        f"{name}: {value}\r\n" for name, value in headers
    )
    try:
        return text.encode("ascii") + b"\r\n"
    except UnicodeEncodeError:
        block: bytes = StatusAndHeaders(
            statusline, list(headers), protocol=protocol
        ).to_ascii_bytes()
        return block


def encode_record(
    record_type: str,
    uri: str,
    *,
    date: str,
    record_id: str,
    payload: bytes,
    http: bytes = b"",
    concurrent_to: str | None = None,
    content_type: str | None = None,
) -> tuple[bytes, str]:
    """One gzip-compressed WARC record and its ``WARC-Payload-Digest``.

    The headers in warcio's order for a record made by ``create_warc_record(uri, type,
    warc_headers_dict={"WARC-Date": ..., ["WARC-Concurrent-To": ...]})`` and written by
    ``write_record``: date, concurrent-to, type, record id, target URI, payload digest, block
    digest, content type, content length. ``http`` is the record's HTTP header block (empty
    for a metadata record: its block is the payload).
    """
    payload_digest = sha1_digest(payload)
    block_digest = sha1_digest(http + payload) if http else payload_digest
    lines = [WARC_VERSION, f"WARC-Date: {date}"]
    if concurrent_to is not None:
        lines.append(f"WARC-Concurrent-To: {concurrent_to}")
    lines += [
        f"WARC-Type: {record_type}",
        f"WARC-Record-ID: {record_id}",
        f"WARC-Target-URI: {uri}",
        f"WARC-Payload-Digest: {payload_digest}",
        f"WARC-Block-Digest: {block_digest}",
        f"Content-Type: {content_type or RECORD_CONTENT_TYPES[record_type]}",
        f"Content-Length: {len(http) + len(payload)}",
        "",
        "",
    ]
    head = "\r\n".join(lines).encode("utf-8")
    return gzip_member(b"".join((head, http, payload, b"\r\n\r\n"))), payload_digest


#: A source of record ids (tests pass a fixed sequence; the default is :func:`make_record_id`).
RecordIds = Callable[[], str]
