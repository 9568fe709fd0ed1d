"""Our WARC encoder writes the bytes warcio writes (issue 29): same inputs, same record ids."""

from __future__ import annotations

import dataclasses
import itertools
import zlib

import pytest

from harvest.archive.encoder import gzip_member
from harvest.archive.store import Exchange, encode_entry, payload_digest
from tests.support.archive import exchange, warcio_entry


def _ids() -> object:
    counter = itertools.count(1)
    return lambda: f"<urn:uuid:00000000-0000-4000-8000-{next(counter):012d}>"


CASES = {
    "detail page": exchange(1, expect="detail", case="12/Pid.B/2024/PN X", parse={"row": [1]}),
    "no reason phrase (status 299)": dataclasses.replace(exchange(2), status=299),
    "404": dataclasses.replace(exchange(3), status=404),
    "POST with a body": dataclasses.replace(
        exchange(4), method="POST", request_body=b"search=Perkara+12&x=%C3%A9"
    ),
    "a Host header of its own": dataclasses.replace(
        exchange(5), request_headers=[("host", "sipp.example"), ("Accept", "*/*")]
    ),
    "no query, no path": dataclasses.replace(exchange(6), url="http://127.0.0.1:8000"),
    "non-ASCII response header (warcio percent-encodes it)": dataclasses.replace(
        exchange(7), response_headers=[("Content-Disposition", "inline; filename=pütusan.pdf")]
    ),
    "non-ASCII context, escaped URL": dataclasses.replace(
        exchange(8, label="Pengadilan Négeri"), url="http://127.0.0.1:8000/cari?q=%C3%BC"
    ),
    "empty body": exchange(9, body=b""),
    "a body of several warcio buffers (16 KiB each)": exchange(
        10, body=bytes(range(256)) * 300 + "Perkara — ".encode() * 5000
    ),
    "HTTP/1.0, fractional fetch time": dataclasses.replace(
        exchange(11), protocol="HTTP/1.0", fetched_at=1_790_000_000.999_999_7
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_entry_is_the_bytes_warcio_writes(name: str) -> None:
    ex: Exchange = CASES[name]
    ours, our_digest = encode_entry("case|pn-x|12/Pid.B/2024/PN X", ex, ids=_ids())  # type: ignore[arg-type]
    theirs, their_digest = warcio_entry("case|pn-x|12/Pid.B/2024/PN X", ex, _ids())  # type: ignore[arg-type]
    assert ours == theirs
    assert our_digest == their_digest == payload_digest(ex.body)


def test_record_ids_are_drawn_in_warcios_order() -> None:
    data, _ = encode_entry("k", exchange(1), ids=_ids())  # type: ignore[arg-type]
    text = zlib.decompressobj(zlib.MAX_WBITS + 16).decompress(data).decode()
    # the first member is the request: its own id is the second drawn, the response's the first
    assert "WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000002>" in text
    assert "WARC-Concurrent-To: <urn:uuid:00000000-0000-4000-8000-000000000001>" in text


def test_a_gzip_member_is_independent_of_how_warcio_chunks_its_writes() -> None:
    data = bytes(range(256)) * 1000
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS + 16)
    chunked = b"".join(
        compressor.compress(data[i : i + 16384]) for i in range(0, len(data), 16384)
    )
    assert gzip_member(data) == chunked + compressor.flush()
