"""The ingest server's SQLite store: one row per ``dedupe_key``, upserted in one statement.

Tables: ``items`` (the latest document per key, its content hash, a ``version`` that grows on
every change here, and ``source_version``: the highest document ``version`` seen for the key)
and ``ingest_log`` (one row per accepted POST: key, hash, result; for tests and
demos). WAL mode, ``synchronous=NORMAL``, a busy timeout; one connection per thread.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    dedupe_key   TEXT PRIMARY KEY,
    source_type  TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    complete     INTEGER NOT NULL,
    document     TEXT NOT NULL,
    version      INTEGER NOT NULL,
    source_version INTEGER,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ingest_log (
    id              INTEGER PRIMARY KEY,
    at              TEXT NOT NULL,
    dedupe_key      TEXT NOT NULL,
    content_hash    TEXT NOT NULL,
    result          TEXT NOT NULL,
    version         INTEGER NOT NULL,
    idempotency_key TEXT
);
"""

_INSERT = """
INSERT INTO items (dedupe_key, source_type, source_id, content_hash, complete, document,
                   version, source_version, created_at, updated_at)
VALUES (:key, :st, :sid, :hash, :complete, :document, 1, :sv, :now, :now)
"""
_UPDATE = """
UPDATE items SET source_type = :st, source_id = :sid, content_hash = :hash,
    complete = :complete, document = :document, version = version + 1, source_version = :sv,
    updated_at = :now
WHERE dedupe_key = :key
RETURNING version
"""


class DatabaseBusy(RuntimeError):
    """SQLite stayed locked past the busy timeout: the caller answers 503."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ItemDatabase:
    """Thread-safe access (a connection per thread) to the server's ``items`` table."""

    def __init__(self, path: Path, *, busy_timeout_ms: int = 5000) -> None:
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        conn = self._connection()
        conn.executescript(_SCHEMA)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(items)")}
        if "source_version" not in columns:  # a database of an earlier server
            conn.execute("ALTER TABLE items ADD COLUMN source_version INTEGER")

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def upsert(
        self, document: dict[str, Any], *, idempotency_key: str | None = None
    ) -> tuple[str, int]:
        """Upsert ``document`` on its key; return (result, the row's version).

        ``created``, ``updated``, ``unchanged`` (same content hash), or ``stale``: the document
        carries a ``version`` older than the highest seen for the key (or equal to it with other
        content), and is not applied. The check and the write are one ``BEGIN IMMEDIATE``
        transaction, committed with its ``ingest_log`` row before this returns.
        """
        conn = self._connection()
        now = _now()
        key = document["dedupe_key"]
        params = {
            "key": key,
            "st": document["source_type"],
            "sid": document["source_id"],
            "hash": document["content_hash"],
            "complete": int(document["complete"]),
            "document": json.dumps(document, ensure_ascii=False, separators=(",", ":")),
            "now": now,
        }
        incoming = document.get("version")
        params["sv"] = incoming
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(
                    "SELECT content_hash, version, source_version FROM items WHERE dedupe_key = ?",
                    (key,),
                ).fetchone()
                if row is None:
                    conn.execute(_INSERT, params)
                    result, version = "created", 1
                else:
                    stored_hash, version, stored_sv = row
                    same = stored_hash == document["content_hash"]
                    if (
                        incoming is not None
                        and stored_sv is not None
                        and (incoming < stored_sv or (incoming == stored_sv and not same))
                    ):
                        # an older version (a late request of an earlier run): never applied
                        result = "unchanged" if same else "stale"
                    elif same:
                        result = "unchanged"
                        if incoming is not None and (stored_sv is None or incoming > stored_sv):
                            conn.execute(
                                "UPDATE items SET source_version = :sv, document = :document"
                                " WHERE dedupe_key = :key",
                                params,
                            )
                    else:
                        (version,) = conn.execute(_UPDATE, params).fetchone()
                        result = "updated"
                conn.execute(
                    "INSERT INTO ingest_log (at, dedupe_key, content_hash, result, version,"
                    " idempotency_key) VALUES (?, ?, ?, ?, ?, ?)",
                    (now, key, document["content_hash"], result, version, idempotency_key),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise DatabaseBusy(f"database {self._path} is busy: {exc}") from exc
            raise
        return result, int(version)

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored row for ``key`` (document parsed), or ``None``."""
        row = (
            self._connection()
            .execute(
                "SELECT document, content_hash, version, source_version, created_at, updated_at"
                " FROM items"
                " WHERE dedupe_key = ?",
                (key,),
            )
            .fetchone()
        )
        if row is None:
            return None
        document, content_hash, version, source_version, created_at, updated_at = row
        return {
            "key": key,
            "content_hash": content_hash,
            "version": version,
            "source_version": source_version,
            "created_at": created_at,
            "updated_at": updated_at,
            "document": json.loads(document),
        }

    def ping(self) -> None:
        """Raise if the database cannot answer a query."""
        self._connection().execute("SELECT count(*) FROM items LIMIT 1").fetchone()
