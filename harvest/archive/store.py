"""WARC files of the harvest and their index: writing, reading back, status and pruning.

Layout (docs/archive.md)::

    <workspace>/archive/index.sqlite                     key -> latest record (file, offset, ...)
    <workspace>/archive/<court>/<run>-<seq>.warc.gz      WARC/1.1, one gzip member per record

One *entry* is three records written with one ``write(2)``: ``request``, ``response`` and a
``metadata`` record (``application/json``: the request key, its kind and what the parser needs
besides the page, e.g. the list row of a case). The file is then ``fsync``-ed and only then is
the entry indexed, so the index never points at a missing or torn entry; a ``kill -9`` leaves at
worst an unindexed entry at a file's end. A writer never appends to an existing file (each run
starts a new one) and holds an exclusive ``flock`` on the file it writes, which is how pruning
knows to leave it alone.

No Scrapy here: :mod:`harvest.archive.middleware` turns a Scrapy response into an
:class:`Exchange`.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import http
import io
import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.warcwriter import WARCWriter

from harvest.archive.encoder import RecordIds, encode_record, http_block, make_record_id
from harvest.base.clock import format_utc
from harvest.base.scrubbing import REDACTED_HEADER, SECRET_HEADERS
from harvest.base.workspace import ensure_workspace, open_private, secure_sqlite_files

__all__ = [
    "ARCHIVE_DIR",
    "DEFAULT_MAX_FILE_BYTES",
    "INDEX_DB",
    "ArchiveError",
    "ArchiveIndex",
    "ArchiveWriter",
    "ArchivedPage",
    "CorruptRecord",
    "Exchange",
    "IndexEntry",
    "prune",
    "read_entry",
]

logger = logging.getLogger(__name__)

#: The archive's directory in the workspace, and its index database inside it.
ARCHIVE_DIR = "archive"
INDEX_DB = "index.sqlite"
#: ``HARVEST_ARCHIVE_MAX_FILE_BYTES``: a file is closed and a new one started past this size.
DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
WARC_SUFFIX = ".warc.gz"
#: The payload is stored as the spider parsed it (decoded): these no longer describe it.
_DROP = frozenset({"content-encoding", "transfer-encoding", "content-length"})
#: ``WARC-Type: metadata`` content type of an entry's context.
CONTEXT_TYPE = "application/json"
_BUSY_TIMEOUT_S = 30.0
#: Index rows per INSERT statement (12 parameters each, under SQLite's 32,766).
_ROWS_PER_STATEMENT = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    key         TEXT PRIMARY KEY,     -- the logical request key (meta harvest_key)
    court       TEXT NOT NULL,
    kind        TEXT NOT NULL,        -- list, case, tab, warmup
    tab         TEXT,                 -- the tab slug of a tab key
    file        TEXT NOT NULL,        -- relative to archive/
    offset      INTEGER NOT NULL,     -- of the entry's first record (its request)
    length      INTEGER NOT NULL,     -- of the whole entry (request, response, metadata)
    fetched_at  TEXT NOT NULL,
    digest      TEXT NOT NULL,        -- WARC-Payload-Digest of the response
    status      INTEGER NOT NULL,
    url         TEXT NOT NULL,
    run         TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_by_court ON records (court, kind, key);
CREATE INDEX IF NOT EXISTS records_by_file ON records (file);
"""
# -- entry history (additive: issue 28) -----------------------------------------------------
#: Every entry ever indexed, not only the latest of its key (``scrapy case`` shows the record
#: behind each version of a case). Pruning keeps the entries younger than the retention
#: (``HARVEST_ARCHIVE_RETENTION_DAYS``) and forgets the ones it removes. An index created
#: before it gains the table, filled with the latest entries, on its first writable open.
_HISTORY_SCHEMA = """
CREATE TABLE history (
    key         TEXT NOT NULL,
    court       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    tab         TEXT,
    file        TEXT NOT NULL,
    offset      INTEGER NOT NULL,
    length      INTEGER NOT NULL,
    fetched_at  TEXT NOT NULL,
    digest      TEXT NOT NULL,
    status      INTEGER NOT NULL,
    url         TEXT NOT NULL,
    run         TEXT NOT NULL,
    PRIMARY KEY (key, file, offset)
) WITHOUT ROWID;
CREATE INDEX history_by_file ON history (file);
INSERT INTO history SELECT * FROM records;
"""
# -- end of entry history -------------------------------------------------------------------


class ArchiveError(RuntimeError):
    """The archive cannot be written or read; the message says what and where."""


class CorruptRecord(ArchiveError):
    """An indexed entry does not read back (missing file, torn entry or digest mismatch)."""


@dataclass(frozen=True)
class Exchange:
    """One final response and the request it answers, as the spider received them."""

    url: str
    method: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    status: int
    protocol: str
    response_headers: list[tuple[str, str]]
    body: bytes
    #: Seconds since the epoch when the response was received.
    fetched_at: float
    #: The entry's context (metadata record): JSON-able.
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class IndexEntry:
    """One row of the index: where the latest entry of ``key`` is."""

    key: str
    court: str
    kind: str
    tab: str | None
    file: str
    offset: int
    length: int
    fetched_at: str
    digest: str
    status: int
    url: str
    run: str


@dataclass(frozen=True)
class ArchivedPage:
    """An entry read back: the response's headers and body, and the entry's context."""

    entry: IndexEntry
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    context: dict[str, Any]


def payload_digest(body: bytes) -> str:
    """``sha1:<base32>``, the form of ``WARC-Payload-Digest`` warcio writes."""
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode("ascii")


def key_kind(key: str) -> tuple[str, str | None]:
    """``(kind, tab slug)`` of a logical request key (``tab|<court>|<number>|<slug>``, ...)."""
    kind = key.split("|", 1)[0]
    tab = key.rsplit("|", 1)[1] if kind == "tab" else None
    return kind, tab


def _redact(headers: Sequence[tuple[str, str]], *, drop: frozenset[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name, value in headers:
        low = name.lower()
        if low in drop:
            continue
        out.append((name, REDACTED_HEADER if low in SECRET_HEADERS else value))
    return out


def _warc_date(moment: float) -> str:
    """WARC/1.1 date with microseconds."""
    return format_utc(moment)[:-5] + f"{moment % 1:.6f}"[1:] + "Z"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------------ index


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return row.fetchone() is not None


class ArchiveIndex:
    """``archive/index.sqlite``: the logical request key -> its latest archived entry."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Self:
        try:
            if readonly:
                if not path.exists():
                    raise ArchiveError(
                        f"no archive index at {str(path)!r}: crawl with HARVEST_ARCHIVE=True "
                        "(the default) first"
                    )
                conn = sqlite3.connect(
                    f"{path.as_uri()}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT_S
                )
            else:
                ensure_workspace(path.parent)
                os.close(open_private(path, os.O_RDWR))
                # used by one thread at a time: the crawl's archive worker, or a command
                conn = sqlite3.connect(
                    path,
                    timeout=_BUSY_TIMEOUT_S,
                    isolation_level=None,
                    check_same_thread=False,
                )
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
                if not _has_table(conn, "history"):
                    conn.executescript(f"BEGIN IMMEDIATE; {_HISTORY_SCHEMA} COMMIT;")
                secure_sqlite_files(path)
        except sqlite3.Error as exc:
            raise ArchiveError(f"archive index {str(path)!r}: {exc}") from exc
        return cls(path, conn)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def put(self, entry: IndexEntry) -> None:
        """Point ``entry.key`` at ``entry`` (committed on return)."""
        self.put_many([entry])

    def put_many(self, entries: Sequence[IndexEntry]) -> None:
        """Point each entry's key at it, in one transaction (committed on return).

        One multi-row statement per table and chunk (in order: a key twice in ``entries`` ends
        at its last entry), so a batch costs a few SQLite calls, not two per entry.
        """
        try:
            rows = [
                (
                    entry.key,
                    entry.court,
                    entry.kind,
                    entry.tab,
                    entry.file,
                    entry.offset,
                    entry.length,
                    entry.fetched_at,
                    entry.digest,
                    entry.status,
                    entry.url,
                    entry.run,
                )
                for entry in entries
            ]
            self._conn.execute("BEGIN IMMEDIATE")
            for start in range(0, len(rows), _ROWS_PER_STATEMENT):
                chunk = rows[start : start + _ROWS_PER_STATEMENT]
                values = ",".join(["(?,?,?,?,?,?,?,?,?,?,?,?)"] * len(chunk))
                params = [value for row in chunk for value in row]
                for table in ("records", "history"):
                    self._conn.execute(
                        f"INSERT OR REPLACE INTO {table} (key, court, kind, tab, file, offset,"
                        f" length, fetched_at, digest, status, url, run) VALUES {values}",
                        params,
                    )
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
            raise ArchiveError(f"archive index {str(self.path)!r}: cannot index: {exc}") from exc

    def get(self, key: str) -> IndexEntry | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM records WHERE key = ?", (key,)
        ).fetchone()
        return IndexEntry(*row) if row else None

    def entries(
        self,
        *,
        court: str | None = None,
        kinds: Sequence[str] = (),
        tab: str | None = None,
        file: str | None = None,
    ) -> list[IndexEntry]:
        """The entries matching every filter given, ordered by file and offset (read order)."""
        where: list[str] = []
        params: list[Any] = []
        for column, value in (("court", court), ("tab", tab), ("file", file)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if kinds:
            where.append(f"kind IN ({','.join('?' * len(kinds))})")
            params.extend(kinds)
        sql = f"SELECT {_COLUMNS} FROM records"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._conn.execute(sql + " ORDER BY file, offset", params).fetchall()
        return [IndexEntry(*row) for row in rows]

    def history(self, key: str) -> list[IndexEntry]:
        """Every entry of ``key`` the index still knows, oldest fetch first (an index without
        the history table: the latest entry only)."""
        table = "history" if _has_table(self._conn, "history") else "records"
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM {table} WHERE key = ? ORDER BY fetched_at, file, offset",
            (key,),
        ).fetchall()
        return [IndexEntry(*row) for row in rows]

    def superseded(self, court: str, since: str) -> list[IndexEntry]:
        """The court's history entries fetched at or after ``since`` that are not the latest
        of their key (what a prune with a retention keeps besides the latest)."""
        rows = self._conn.execute(
            f"SELECT {', '.join('h.' + c for c in _COLUMNS.split(', '))} FROM history AS h"
            " LEFT JOIN records AS r ON r.key = h.key AND r.file = h.file AND r.offset = h.offset"
            " WHERE h.court = ? AND h.fetched_at >= ? AND r.key IS NULL",
            (court, since),
        ).fetchall()
        return [IndexEntry(*row) for row in rows]

    def repoint_history(self, moves: Sequence[tuple[IndexEntry, str, int]]) -> None:
        """Move history entries to ``(new file, new offset)`` in one transaction."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "UPDATE OR REPLACE history SET file = ?, offset = ? WHERE key = ? AND file = ?"
                " AND offset = ?",
                [(new, at, old.key, old.file, old.offset) for old, new, at in moves],
            )
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
            where = f"archive index {str(self.path)!r}"
            raise ArchiveError(f"{where}: cannot re-point: {exc}") from exc

    def forget_file(self, file: str) -> None:
        """Drop the history entries of a file pruning removes."""
        try:
            self._conn.execute("DELETE FROM history WHERE file = ?", (file,))
        except sqlite3.Error as exc:
            raise ArchiveError(f"archive index {str(self.path)!r}: cannot forget: {exc}") from exc

    def repoint(self, moves: Sequence[tuple[IndexEntry, str, int]]) -> int:
        """Move entries to ``(new file, new offset)`` in one transaction; an entry re-pointed
        meanwhile (a newer fetch) is left alone. Returns how many moved."""
        moved = 0
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            for old, new_file, new_offset in moves:
                cur = self._conn.execute(
                    "UPDATE records SET file = ?, offset = ? WHERE key = ? AND file = ?"
                    " AND offset = ?",
                    (new_file, new_offset, old.key, old.file, old.offset),
                )
                moved += cur.rowcount
                if cur.rowcount:
                    self._conn.execute(
                        "UPDATE OR REPLACE history SET file = ?, offset = ? WHERE key = ?"
                        " AND file = ? AND offset = ?",
                        (new_file, new_offset, old.key, old.file, old.offset),
                    )
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
            raise ArchiveError(
                f"archive index {str(self.path)!r}: cannot re-point: {exc}"
            ) from exc
        return moved

    def referenced(self, file: str) -> bool:
        row = self._conn.execute("SELECT 1 FROM records WHERE file = ? LIMIT 1", (file,))
        return row.fetchone() is not None

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per court: indexed entries by kind, oldest and newest fetch."""
        out: dict[str, dict[str, Any]] = {}
        rows = self._conn.execute(
            "SELECT court, kind, COUNT(*), MIN(fetched_at), MAX(fetched_at), SUM(length)"
            " FROM records GROUP BY court, kind ORDER BY court, kind"
        )
        for court, kind, count, oldest, newest, length in rows:
            info = out.setdefault(
                court,
                {"records": 0, "indexed_bytes": 0, "kinds": {}, "oldest": None, "newest": None},
            )
            info["records"] += count
            info["indexed_bytes"] += length
            info["kinds"][kind] = count
            info["oldest"] = min(filter(None, (info["oldest"], oldest)))
            info["newest"] = max(filter(None, (info["newest"], newest)))
        return out


_COLUMNS = "key, court, kind, tab, file, offset, length, fetched_at, digest, status, url, run"


# ------------------------------------------------------------------------------------ writer


def new_run_name(now: float | None = None) -> str:
    """``20261130T155311Z-<pid>``: names a writer's files (sorts in time order)."""
    moment = time.time() if now is None else now
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(moment)) + f"-{os.getpid()}"


class _OpenFile:
    """One WARC file being written: created new (never appended to), ``0600``, ``flock``-ed."""

    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.path = root / name
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.fd = open_private(self.path, os.O_WRONLY | os.O_APPEND | os.O_EXCL)
        fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.size = 0
        self._queued: list[bytes] = []
        _fsync_dir(self.path.parent)

    def append(self, data: bytes, *, sync: bool = True) -> int:
        """Write ``data`` at the end (and ``fsync`` unless told not to); returns its offset."""
        offset = self.queue(data)
        self._write_queued()
        if sync:
            self.sync()
        return offset

    def queue(self, data: bytes) -> int:
        """Append ``data`` in memory (written, with what else is queued, by one ``write(2)`` at
        the next :meth:`sync`, :meth:`append` or :meth:`close`); returns its offset."""
        offset = self.size
        self._queued.append(data)
        self.size += len(data)
        return offset

    def _write_queued(self) -> None:
        if not self._queued:
            return
        data = self._queued[0] if len(self._queued) == 1 else b"".join(self._queued)
        self._queued.clear()
        view = memoryview(data)
        try:
            while view:
                written = os.write(self.fd, view)
                view = view[written:]
        except OSError:
            self.size = os.fstat(self.fd).st_size  # the next entry's offset is the file's end
            raise

    def sync(self) -> None:
        self._write_queued()
        os.fsync(self.fd)

    def close(self) -> None:
        try:
            self._write_queued()
        finally:
            os.close(self.fd)


class ArchiveWriter:
    """Writes the entries of one court to ``archive/<court>/<run>-<seq>.warc.gz`` and indexes
    each one after it is on disk. One writer per process and court."""

    def __init__(
        self,
        root: Path,
        court: str,
        index: ArchiveIndex,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        run: str | None = None,
        software: str = "harvest",
    ) -> None:
        self.root = root
        self.court = court
        self.index = index
        self.max_file_bytes = max_file_bytes
        self.run = run or new_run_name()
        self.software = software
        self._file: _OpenFile | None = None
        self._seq = 0
        self.bytes_written = 0
        self.entries_written = 0

    def _current(self) -> _OpenFile:
        if self._file is not None and self._file.size >= self.max_file_bytes:
            self._file.sync()  # what a batch wrote to it is durable before it is indexed
            self._file.close()
            self._file = None
        if self._file is None:
            self._seq += 1
            name = f"{self.court}/{self.run}-{self._seq:05d}{WARC_SUFFIX}"
            self._file = _OpenFile(self.root, name)
            buf = io.BytesIO()
            writer = WARCWriter(buf, gzip=True, warc_version="1.1")
            writer.write_record(
                writer.create_warcinfo_record(
                    name.rsplit("/", 1)[1],
                    {
                        "software": self.software,
                        "format": "WARC File Format 1.1",
                        "isPartOf": f"harvest {self.court}",
                        "description": "pages of a SIPP harvest run (docs/archive.md)",
                    },
                )
            )
            self._file.append(buf.getvalue())
        return self._file

    def write(self, key: str, exchange: Exchange) -> IndexEntry:
        """Archive ``exchange`` under ``key``: write, fsync, then index. Returns the entry."""
        return self.write_many([(key, exchange)])[0]

    def write_many(self, batch: Sequence[tuple[str, Exchange]]) -> list[IndexEntry]:
        """Archive several exchanges: write them all, one ``fsync``, then index them all in one
        transaction (group commit). Returns their entries, in order."""
        entries: list[IndexEntry] = []
        try:
            for key, exchange in batch:
                kind, tab = key_kind(key)
                data, digest = encode_entry(key, exchange)
                current = self._current()
                offset = current.queue(data)
                entries.append(
                    IndexEntry(
                        key=key,
                        court=self.court,
                        kind=kind,
                        tab=tab,
                        file=current.name,
                        offset=offset,
                        length=len(data),
                        fetched_at=format_utc(exchange.fetched_at),
                        digest=digest,
                        status=exchange.status,
                        url=exchange.url,
                        run=self.run,
                    )
                )
            if self._file is not None:
                self._file.sync()
        except OSError as exc:
            raise ArchiveError(
                f"cannot write the archive under {str(self.root)!r}: {exc.strerror}; free disk "
                "space or set HARVEST_ARCHIVE=False"
            ) from exc
        self.index.put_many(entries)
        self.bytes_written += sum(e.length for e in entries)
        self.entries_written += len(entries)
        return entries

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def encode_entry(
    key: str, exchange: Exchange, *, ids: RecordIds = make_record_id
) -> tuple[bytes, str]:
    """The gzip-per-record bytes of one entry (request, response, metadata) and the response's
    payload digest.

    The bytes warcio's ``WARCWriter(gzip=True, warc_version="1.1")`` writes for these records
    (:mod:`harvest.archive.encoder`; a test pins the equality). ``ids`` gives the record ids,
    drawn in warcio's order: response, request, metadata.
    """
    date = _warc_date(exchange.fetched_at)
    reason = _reason(exchange.status)
    response_headers = _redact(exchange.response_headers, drop=_DROP)
    response_headers.append(("Content-Length", str(len(exchange.body))))
    response_id, request_id, metadata_id = ids(), ids(), ids()
    response, digest = encode_record(
        "response",
        exchange.url,
        date=date,
        record_id=response_id,
        payload=exchange.body,
        http=http_block(
            exchange.protocol, f"{exchange.status} {reason}".strip(), response_headers
        ),
    )
    target, host = _request_target(exchange.url)
    request_headers = _redact(exchange.request_headers, drop=frozenset())
    if not any(name.lower() == "host" for name, _ in request_headers):
        request_headers.insert(0, ("Host", host))
    request, _ = encode_record(
        "request",
        exchange.url,
        date=date,
        record_id=request_id,
        payload=exchange.request_body,
        http=http_block(exchange.method, f"{target} {exchange.protocol}", request_headers),
        concurrent_to=response_id,
    )
    context = json.dumps(
        {"harvest_key": key, **exchange.context}, ensure_ascii=False, sort_keys=True
    ).encode("utf-8")
    metadata, _ = encode_record(
        "metadata",
        exchange.url,
        date=date,
        record_id=metadata_id,
        payload=context,
        concurrent_to=response_id,
        content_type=CONTEXT_TYPE,
    )
    return request + response + metadata, digest


def _reason(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


def _request_target(url: str) -> tuple[str, str]:
    """The request line's target (path and query) and the ``Host`` header of ``url``."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), parts.netloc


# ------------------------------------------------------------------------------------ reading


def read_entry(root: Path, entry: IndexEntry) -> ArchivedPage:
    """Read ``entry`` back from its file, its payload digest checked against the index.

    Raises :class:`CorruptRecord` when the file is missing, the entry torn, or a digest off.
    """
    path = root / entry.file
    try:
        with path.open("rb") as f:
            f.seek(entry.offset)
            data = f.read(entry.length)
    except OSError as exc:
        raise CorruptRecord(f"{entry.key}: cannot read {str(path)!r}: {exc.strerror}") from exc
    if len(data) != entry.length:
        raise CorruptRecord(
            f"{entry.key}: {entry.file} ends at {entry.offset + len(data)}, before the entry's "
            f"end {entry.offset + entry.length}"
        )
    status = 0
    headers: list[tuple[str, str]] = []
    body: bytes | None = None
    context: dict[str, Any] | None = None
    try:
        for record in ArchiveIterator(io.BytesIO(data), check_digests=True):
            content = record.content_stream().read()
            if record.digest_checker.passed is False:
                raise CorruptRecord(
                    f"{entry.key}: {record.rec_type} record in {entry.file}@{entry.offset}: "
                    f"{'; '.join(map(str, record.digest_checker.problems))}"
                )
            if record.rec_type == "response":
                body = content
                assert record.http_headers is not None
                status = int(record.http_headers.get_statuscode())
                headers = list(record.http_headers.headers)
            elif record.rec_type == "metadata":
                context = json.loads(content)
    except (ArchiveLoadFailed, OSError, EOFError, ValueError) as exc:
        raise CorruptRecord(f"{entry.key}: {entry.file}@{entry.offset}: {exc}") from exc
    if body is None or context is None:
        raise CorruptRecord(f"{entry.key}: {entry.file}@{entry.offset} is not a whole entry")
    if payload_digest(body) != entry.digest:
        raise CorruptRecord(
            f"{entry.key}: payload digest {payload_digest(body)} != indexed {entry.digest}"
        )
    return ArchivedPage(entry=entry, status=status, headers=headers, body=body, context=context)


# ------------------------------------------------------------------------------------ status


def court_files(root: Path) -> dict[str, list[Path]]:
    """The WARC files on disk per court directory."""
    out: dict[str, list[Path]] = {}
    if not root.is_dir():
        return out
    for court_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        out[court_dir.name] = sorted(court_dir.glob(f"*{WARC_SUFFIX}"))
    return out


def status(root: Path, index: ArchiveIndex) -> dict[str, Any]:
    """Per court: files, bytes on disk, indexed records (by kind), oldest/newest fetch."""
    summary = index.summary()
    files = court_files(root)
    courts: dict[str, Any] = {}
    for court in sorted(set(summary) | set(files)):
        paths = files.get(court, [])
        info = summary.get(
            court, {"records": 0, "indexed_bytes": 0, "kinds": {}, "oldest": None, "newest": None}
        )
        courts[court] = {
            "files": len(paths),
            "bytes": sum(p.stat().st_size for p in paths),
            **info,
        }
    return {"archive": str(root), "courts": courts}


# ------------------------------------------------------------------------------------ prune


@dataclass
class PruneResult:
    files_removed: int = 0
    files_written: int = 0
    entries_moved: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    files_busy: list[str] = field(default_factory=list)


def _try_lock(path: Path) -> int | None:
    """An fd holding ``LOCK_EX`` on ``path``, or ``None`` when a writer holds it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def prune(
    root: Path,
    index: ArchiveIndex,
    *,
    court: str | None = None,
    retention_days: float = 0.0,
    now: float | None = None,
) -> PruneResult:
    """Keep the latest entry of every key and drop the rest, safely.

    For each court: every file no writer holds is a candidate. The indexed entries in the
    candidates are copied (read back and digest-checked first) into new files, which are
    fsync-ed; the index is then re-pointed in one transaction; only then are the candidates that
    no index row references any more deleted. A crash at any step leaves every indexed entry
    readable (at worst an extra copy, removed by the next prune).

    ``retention_days`` (``HARVEST_ARCHIVE_RETENTION_DAYS``): superseded entries fetched within
    that many days before ``now`` are kept too (copied like the latest ones, and still listed
    by :meth:`ArchiveIndex.history`); 0 keeps the latest entry of each key only. The history
    forgets the entries of the files it removes.
    """
    since = None
    if retention_days > 0:
        since = format_utc((time.time() if now is None else now) - retention_days * 86400)
    result = PruneResult()
    for name, paths in court_files(root).items():
        if court is not None and name != court:
            continue
        locks: dict[str, int] = {}
        try:
            for path in paths:
                rel = f"{name}/{path.name}"
                result.bytes_before += path.stat().st_size
                fd = _try_lock(path)
                if fd is None:
                    result.files_busy.append(rel)
                else:
                    locks[rel] = fd
            _prune_court(root, index, name, locks, result, since)
        finally:
            for fd in locks.values():
                os.close(fd)
    for paths in court_files(root).values():
        for path in paths:
            if court is None or path.parent.name == court:
                result.bytes_after += path.stat().st_size
    return result


def _prune_court(
    root: Path,
    index: ArchiveIndex,
    court: str,
    locks: dict[str, int],
    result: PruneResult,
    since: str | None = None,
) -> None:
    live: dict[str, list[IndexEntry]] = {}
    for entry in index.entries(court=court):
        if entry.file in locks:
            live.setdefault(entry.file, []).append(entry)
    kept: dict[str, list[IndexEntry]] = {}  # superseded entries within the retention
    for entry in index.superseded(court, since) if since is not None else []:
        if entry.file in locks:
            kept.setdefault(entry.file, []).append(entry)
    # files holding nothing but their warcinfo and latest entries are kept as they are
    dead = [
        rel
        for rel in locks
        if (root / rel).stat().st_size
        > _first_record_length(root / rel)
        + sum(e.length for e in live.get(rel, []) + kept.get(rel, []))
    ]
    moves: list[tuple[IndexEntry, str, int]] = []
    history_moves: list[tuple[IndexEntry, str, int]] = []
    entries = [(e, moves) for rel in dead for e in live.get(rel, [])]
    entries += [(e, history_moves) for rel in dead for e in kept.get(rel, [])]
    if entries:
        writer = ArchiveWriter(root, court, index, run=new_run_name() + "-pruned")
        try:
            for entry, into in entries:
                read_entry(root, entry)  # digest-checked before it is copied
                with (root / entry.file).open("rb") as f:
                    f.seek(entry.offset)
                    data = f.read(entry.length)
                current = writer._current()
                into.append((entry, current.name, current.append(data)))
            result.files_written += writer._seq
        finally:
            writer.close()
        _fsync_dir(root / court)
        result.entries_moved += index.repoint(moves)
        index.repoint_history(history_moves)
    removed = False
    for rel in dead:
        if index.referenced(rel):
            continue  # re-pointed elsewhere meanwhile? then it stays until the next prune
        index.forget_file(rel)
        (root / rel).unlink(missing_ok=True)
        result.files_removed += 1
        removed = True
    if removed:
        _fsync_dir(root / court)


def _first_record_length(path: Path) -> int:
    """The length of a file's first record (its warcinfo); 0 if it has none readable."""
    try:
        with path.open("rb") as f:
            it = ArchiveIterator(f)
            for _record in it:
                it.read_to_end()
                return int(it.get_record_length())
    except (ArchiveLoadFailed, OSError, EOFError, ValueError):
        return 0
    return 0


def iter_pages(
    root: Path, entries: Sequence[IndexEntry]
) -> Iterator[tuple[IndexEntry, ArchivedPage | CorruptRecord]]:
    """Each entry with its page read back, or the :class:`CorruptRecord` saying why not."""
    for entry in entries:
        try:
            yield entry, read_entry(root, entry)
        except CorruptRecord as exc:
            yield entry, exc
