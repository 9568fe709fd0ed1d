"""Requests and parts that disagree, for the cross-check of the request store with the item
store (``check_parts``): :func:`fill_requests` makes a run whose rows up to the first pending one
are ok, :func:`store_two_parts` stores only two of their parts, so the ok tab
``jadwal_sidang`` of :data:`N1` and the ok case :data:`N2` are missing
(tests/hardening/test_stores.py for every store, tests/scheduler/test_pg_store.py for PostgreSQL).
"""

from __future__ import annotations

from pathlib import Path

from extensions.memory_store import MemoryRequestStore
from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SqliteRequestStore
from extensions.store import NewRequest, RunInfo
from pipelines.item_backends import open_item_store

N1 = "1/Pid.B/2024/PN A"
N2 = "2/Pdt.G/2024/PN A"
ROWS = [
    ("list|pn-a|all|1", "list", "ok"),
    (f"case|pn-a|{N1}", "case", "ok"),
    (f"tab|pn-a|{N1}|pihak", "tab", "ok"),
    (f"tab|pn-a|{N1}|jadwal_sidang", "tab", "ok"),
    (f"case|pn-a|{N2}", "case", "ok"),
    ("case|pn-a|3/Pid.B/2024/PN A", "case", "pending"),
    ("case|pn-b|9/Pid.B/2024/PN B", "case", "ok"),
]


def run_info(court: str = "pn-a") -> RunInfo:
    return RunInfo(court, "sipp", 1, "host", None, "2026-01-01T00:00:00.000Z")


def fill_requests(store: SqliteRequestStore | MemoryRequestStore) -> dict[str, int]:
    run_id, _ = store.start_run(run_info())
    ids = {}
    for key, kind, _status in ROWS:
        court = key.split("|")[1]
        rid = store.add(NewRequest(key, kind, court, None, 0, "GET", "http://x/", b"blob"), run_id)
        assert rid is not None
        ids[key] = rid
    for key, _, status in ROWS:
        if status == "ok":
            claimed = store.claim(key.split("|")[1], run_id, busy_groups=[], held=[])
            assert claimed is not None
            store.finish(claimed.id, run_id, ok=True)
        else:
            break  # the rows after the first pending one stay pending (claim order = id)
    store.commit()
    return ids


def store_two_parts(path: Path, store: object = None) -> Path:
    """Two parts of N1 in the item store beside ``store``: ``path``, or for the PostgreSQL
    request store its own database (the item store is the database's there)."""
    url = store._url if isinstance(store, PostgresRequestStore) else None
    with open_item_store(path.parent, database_url=url) as items:
        items.upsert_part(
            court="pn-a",
            case_number=N1,
            part="case",
            data={"tabs": [{"slug": "pihak", "available": True}]},
        )
        items.upsert_part(court="pn-a", case_number=N1, part="tab:pihak", data=[{"nama": "A"}])
    return path
