"""The ingest server's SQLite store: one row per ``dedupe_key``, upserted in one statement.

Tables: ``items`` (the latest document per key, its content hash and a version that grows on
every change) and ``ingest_log`` (one row per accepted POST: key, hash, result; for tests and
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

# The one atomic statement of the contract: no row back -> unchanged; version 1 -> created;
# version > 1 -> updated (docs/shipping-notes.md section 5.2).
_UPSERT = """
INSERT INTO items (dedupe_key, source_type, source_id, content_hash, complete, document,
                   version, created_at, updated_at)
VALUES (:key, :st, :sid, :hash, :complete, :document, 1, :now, :now)
ON CONFLICT (dedupe_key) DO UPDATE SET
    source_type = excluded.source_type, source_id = excluded.source_id,
    content_hash = excluded.content_hash, complete = excluded.complete,
    document = excluded.document, version = items.version + 1,
    updated_at = excluded.updated_at
WHERE items.content_hash IS NOT excluded.content_hash
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
        self._connection().executescript(_SCHEMA)

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
        """Upsert ``document`` on its key; return (``created``/``updated``/``unchanged``, version).

        The upsert and its ``ingest_log`` row commit together, before this returns.
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
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(_UPSERT, params).fetchone()
                if row is None:
                    result = "unchanged"
                    (version,) = conn.execute(
                        "SELECT version FROM items WHERE dedupe_key = ?", (key,)
                    ).fetchone()
                else:
                    (version,) = row
                    result = "created" if version == 1 else "updated"
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
                "SELECT document, content_hash, version, created_at, updated_at FROM items"
                " WHERE dedupe_key = ?",
                (key,),
            )
            .fetchone()
        )
        if row is None:
            return None
        document, content_hash, version, created_at, updated_at = row
        return {
            "key": key,
            "content_hash": content_hash,
            "version": version,
            "created_at": created_at,
            "updated_at": updated_at,
            "document": json.loads(document),
        }

    def ping(self) -> None:
        """Raise if the database cannot answer a query."""
        self._connection().execute("SELECT count(*) FROM items LIMIT 1").fetchone()
