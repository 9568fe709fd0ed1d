"""Rows for the request-store tests: a run, a new request from its key, a row's events read from
any store (tests/scheduler/test_store.py, the store contract, and the PostgreSQL store's own tests;
also imported by the worker scripts those tests run as subprocesses).
"""

from __future__ import annotations

import os
import sqlite3

from extensions.memory_store import MemoryRequestStore
from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SqliteRequestStore
from extensions.store import NewRequest, RunInfo

RUN = RunInfo(court="c1", spider="s", pid=os.getpid(), host="h", job="job-7", started_at="t0")


def new(
    key: str,
    *,
    group: str | None = None,
    priority: int = 0,
    court: str = "c1",
    generation: int = 0,
    blob: bytes | None = None,
) -> NewRequest:
    kind = key.split("|", 1)[0]
    return NewRequest(
        key=key,
        kind=kind,
        court=court,
        group=group,
        priority=priority,
        method="GET",
        url=f"http://127.0.0.1/{key}",
        blob=key.encode() if blob is None else blob,
        generation=generation,
    )


def events_of(
    store: SqliteRequestStore | MemoryRequestStore | PostgresRequestStore, rid: int
) -> list[tuple[str, str]]:
    """``(event, detail)`` of one row, in order, from any store."""
    if isinstance(store, MemoryRequestStore):
        return [(e[3], e[4] or "") for e in store._d.events if e[2] == rid]
    store.commit()
    if isinstance(store, PostgresRequestStore):
        sql = "SELECT event, detail FROM events WHERE request_id = %s ORDER BY id"
        return [(str(e), str(d or "")) for e, d in store._conn.execute(sql, (rid,))]
    con = sqlite3.connect(store.path)
    try:
        return [
            (str(e), str(d or ""))
            for e, d in con.execute(
                "SELECT event, detail FROM events WHERE request_id = ? ORDER BY id", (rid,)
            )
        ]
    finally:
        con.close()
