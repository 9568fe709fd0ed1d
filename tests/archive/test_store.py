"""The WARC writer, reader, index and pruning of harvest/archive/store.py, on disk."""

from __future__ import annotations

import gzip
import json
import os
import stat
from pathlib import Path

import pytest

from harvest.archive.reparse import CourtBeingCrawled, reparse
from harvest.archive.store import (
    ArchiveIndex,
    ArchiveWriter,
    CorruptRecord,
    encode_entry,
    payload_digest,
    prune,
    read_entry,
    status,
)
from harvest.base.holder_lock import HolderLock
from harvest.base.scrubbing import REDACTED_HEADER
from tests.support.archive import exchange, read_all, warcio
from tests.support.harvest_run import scrapy_command

COURT = "pn-test"
KEY = "case|pn-test|{n}/Pid.B/2024/PN Tst"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "ws" / "archive"


def write(root: Path, keys: range, *, run: str, max_bytes: int = 1 << 20) -> None:
    with ArchiveIndex.open(root / "index.sqlite") as index:
        writer = ArchiveWriter(root, COURT, index, run=run, max_file_bytes=max_bytes)
        for n in keys:
            writer.write(KEY.format(n=n), exchange(n, row={"nomor_perkara": f"{n}/Pid.B"}))
        writer.close()


def test_an_entry_reads_back_with_its_context_and_redacted_headers(root: Path) -> None:
    write(root, range(3), run="r1")
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        entry = index.get(KEY.format(n=1))
        assert entry is not None
        page = read_entry(root, entry)
    assert page.body == "<html><body>Perkara 1 — Pidana</body></html>".encode()
    assert page.status == 200
    assert page.context == {"harvest_key": KEY.format(n=1), "row": {"nomor_perkara": "1/Pid.B"}}
    assert entry.kind == "case"
    assert entry.court == COURT
    assert entry.run == "r1"
    assert entry.fetched_at == "2026-09-21T14:13:21.250Z"
    assert entry.digest == payload_digest(page.body)
    raw = gzip.decompress((root / entry.file).read_bytes()).decode()
    # no cookie or credential reaches the file; the body is stored decoded, so no encoding
    for secret in ("secret-session-1", "secret-session-2", "c2VjcmV0", "Content-Encoding"):
        assert secret not in raw
    assert f"Cookie: {REDACTED_HEADER}" in raw
    assert f"Set-Cookie: {REDACTED_HEADER}" in raw
    assert f"Authorization: {REDACTED_HEADER}" in raw
    assert "GET /show_detil/tok1?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8000" in raw
    assert "WARC-Target-URI: http://127.0.0.1:8000/show_detil/tok1?x=1" in raw
    assert "WARC-Date: 2026-09-21T14:13:21.250000Z" in raw


def test_files_are_private_rotated_and_pass_warcio_check_and_index(root: Path) -> None:
    write(root, range(12), run="r1", max_bytes=2500)
    files = sorted((root / COURT).iterdir())
    assert len(files) >= 4  # about 1.1 kB per entry: rotated every 3 entries or so
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    for path in [*files, root / "index.sqlite"]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for path in files:
        checked = warcio("check", path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        lines = [json.loads(x) for x in warcio("index", path).stdout.splitlines()]
        assert lines[0]["warc-type"] == "warcinfo"
        assert {x["warc-type"] for x in lines[1:]} == {"request", "response", "metadata"}
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        assert len(read_all(root, index)) == 12


def test_a_torn_entry_at_a_files_end_is_skipped_and_left_alone(root: Path) -> None:
    write(root, range(3), run="r1")
    (path,) = (root / COURT).iterdir()
    # kill -9 in the middle of the next entry's write: half of it reaches the file, unindexed
    torn, _ = encode_entry(KEY.format(n=9), exchange(9))
    with path.open("ab") as f:
        f.write(torn[: len(torn) // 2])
    size = path.stat().st_size
    write(root, range(3, 5), run="r2")  # the next run starts a new file
    assert path.stat().st_size == size
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        assert sorted(read_all(root, index)) == sorted(KEY.format(n=n) for n in range(5))
        assert index.get(KEY.format(n=9)) is None
    # pruning rewrites the file without its torn tail: every file passes warcio check again
    with ArchiveIndex.open(root / "index.sqlite") as index:
        result = prune(root, index)
        assert result.files_removed == 1
        assert result.entries_moved == 3
        assert sorted(read_all(root, index)) == sorted(KEY.format(n=n) for n in range(5))
    assert not path.exists()
    for other in (root / COURT).iterdir():
        assert warcio("check", other).returncode == 0


def test_a_damaged_entry_is_reported_not_returned(root: Path) -> None:
    write(root, range(2), run="r1")
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        entry = index.get(KEY.format(n=1))
        assert entry is not None
        path = root / entry.file
        data = bytearray(path.read_bytes())
        data[entry.offset + entry.length // 2] ^= 0xFF
        path.write_bytes(bytes(data))
        with pytest.raises(CorruptRecord, match=r"case\|pn-test\|1/Pid.B/2024/PN Tst"):
            read_entry(root, entry)
        path.write_bytes(bytes(data[: entry.offset + 10]))
        with pytest.raises(CorruptRecord, match="before the entry's end"):
            read_entry(root, entry)


def test_prune_keeps_the_latest_entry_of_each_key_and_leaves_a_busy_file(root: Path) -> None:
    write(root, range(10), run="r1")
    write(root, range(5), run="r2")  # keys 0-4 fetched again
    with ArchiveIndex.open(root / "index.sqlite") as index:
        before = {e.key: e for e in index.entries()}
        # a crawl still writing: its file is flock-ed and must not be touched
        busy = ArchiveWriter(root, COURT, index, run="r3")
        busy.write(KEY.format(n=20), exchange(20))
        result = prune(root, index)
        busy.close()
        after = read_all(root, index)
        summary = status(root, index)
    assert result.files_busy == [f"{COURT}/r3-00001.warc.gz"]
    assert result.files_removed == 1  # r1: half superseded; r2 holds only latest entries
    assert result.entries_moved == 5
    assert sorted(after) == sorted([*before, KEY.format(n=20)])
    assert {e.file for e in after.values()} == {
        f"{COURT}/r2-00001.warc.gz",
        f"{COURT}/r3-00001.warc.gz",
        *(e.file for k, e in after.items() if e.run == "r1"),
    }
    assert all(e.file.endswith("-pruned-00001.warc.gz") for e in after.values() if e.run == "r1")
    assert sorted(p.name for p in (root / COURT).iterdir() if p.name.startswith("r")) == [
        "r2-00001.warc.gz",
        "r3-00001.warc.gz",
    ]
    court = summary["courts"][COURT]
    assert court["records"] == 11
    assert court["files"] == 3
    assert court["kinds"] == {"case": 11}
    assert (court["oldest"], court["newest"]) == (
        "2026-09-21T14:13:20.250Z",
        "2026-09-21T14:13:40.250Z",
    )
    assert court["bytes"] == sum(p.stat().st_size for p in (root / COURT).iterdir())
    assert result.bytes_after < result.bytes_before


def test_scrapy_archive_prints_the_status_and_prunes(root: Path) -> None:
    write(root, range(6), run="r1")
    write(root, range(3), run="r2")
    ws = root.parent
    shown = scrapy_command("archive", ws)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"archive {root}"
    assert lines[2].split()[:4] == [COURT, "2", "0.01", "6"]
    assert lines[3].split() == ["case", "6"]
    pruned = scrapy_command("archive", ws, "--prune", "--json")
    assert pruned.returncode == 0, pruned.stderr
    report = json.loads(pruned.stdout)
    assert report["pruned"]["files_removed"] == 1
    assert report["pruned"]["entries_moved"] == 3
    assert report["courts"][COURT]["records"] == 6
    assert report["courts"][COURT]["files"] == 2
    with ArchiveIndex.open(root / "index.sqlite", readonly=True) as index:
        assert len(read_all(root, index)) == 6


def test_reparse_refuses_a_court_being_crawled_and_lists_pages_without_context(
    root: Path,
) -> None:
    write(root, range(2), run="r1")
    ws = root.parent
    crawl_lock = HolderLock(ws / f"crawl-{COURT}.lock")
    crawl_lock.acquire({"pid": 4242, "host": "harvester-1", "job": "crawl"})
    try:
        with pytest.raises(CourtBeingCrawled, match=r"'pn-test' is being crawled .*pid 4242"):
            reparse(ws)
        assert reparse(ws, dry_run=True).pages == 2  # a dry run writes nothing: no lock needed
    finally:
        crawl_lock.release()
    report = reparse(ws)
    assert [(f.key, f.reason) for f in report.failed] == [
        (
            KEY.format(n=n),
            "the archive entry has no parse context (archived by an older harvest)",
        )
        for n in range(2)
    ]
    assert (report.created, report.unchanged, report.updated) == (0, 0, 0)


def test_reparse_of_chosen_keys_under_the_callers_own_crawl_lock(root: Path) -> None:
    write(root, range(4), run="r1")
    ws = root.parent
    crawl_lock = HolderLock(ws / f"crawl-{COURT}.lock")
    crawl_lock.acquire({"pid": os.getpid(), "job": "crawl"})  # the crawl, checking its stores
    try:
        report = reparse(
            ws, keys=[KEY.format(n=2), "case|pn-test|no such case"], take_crawl_lock=False
        )
    finally:
        crawl_lock.release()
    assert report.pages == 1
    assert [f.key for f in report.failed] == [KEY.format(n=2)]
