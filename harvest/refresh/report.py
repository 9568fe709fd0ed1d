"""Per court, what ``scrapy status`` says of refreshes (docs/refresh.md, "Status").

* ``last``: the court's last generation (number, policy, today, started / finished);
* ``due_now``: known cases the due policy (:mod:`harvest.refresh.policy`) holds due as of
  ``HARVEST_REFRESH_TODAY`` (default: the current UTC date): what ``-a refresh=due`` would
  fetch besides new and changed cases;
* ``refreshed``: cases whose detail request is ``ok`` in the last generation;
* ``changed``: of the documents that existed before the last generation started, how many
  changed in it (their ``content_hash`` moved: the item store's document time is after the
  generation's start), and ``new``: documents first stored in it.

Read-only: the request state through the store, the item store through a ``mode=ro``
connection.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harvest.refresh.planner import RefreshConfig, policy_inputs
from harvest.refresh.policy import case_facts, due

if TYPE_CHECKING:
    from extensions.store import Generation, RequestStore

__all__ = ["refresh_report", "utc_today"]


def refresh_report(
    store: RequestStore, items: Path, config: RefreshConfig, *, court: str | None = None
) -> list[dict[str, Any]]:
    """One entry per court with generations (see the module docstring), by court."""
    by_court: dict[str, list[Generation]] = {}
    for g in store.generations(court):
        by_court.setdefault(g.court, []).append(g)
    out: list[dict[str, Any]] = []
    for name, gens in sorted(by_court.items()):
        last = gens[-1]
        rows = store.row_states(name, "case")
        inputs = policy_inputs(gens, rows)
        due_now = 0
        for doc in _documents(items, name):
            if doc["case"] is None:
                continue
            last_fetch = inputs.get(doc["source_id"], (None, None))[1]
            facts = case_facts(doc["case"], doc["tabs"], last_fetch)
            if due(facts, config.today, min_days=config.min_days, max_days=config.max_days).due:
                due_now += 1
        refreshed = sum(1 for r in rows if r.generation == last.number and r.status == "ok")
        changed, new = _changes(items, name, last.started_at)
        out.append(
            {
                "court": name,
                "generations": len(gens),
                "last": last.as_dict(),
                "today": config.today.isoformat(),
                "due_now": due_now,
                "refreshed": refreshed,
                "changed": changed,
                "new": new,
            }
        )
    return out


def _connect(items: Path) -> sqlite3.Connection | None:
    if not items.is_file():
        return None
    return sqlite3.connect(f"{items.resolve().as_uri()}?mode=ro", uri=True, timeout=30)


def _documents(items: Path, court: str) -> Iterator[dict[str, Any]]:
    """The court's documents as ``{"source_id", "case", "tabs"}`` (only what the policy
    reads: the case part and the tabs it looks at)."""
    conn = _connect(items)
    if conn is None:
        return
    wanted = ("case", "tab:jadwal_sidang", "tab:riwayat_perkara", "tab:putusan", "tab:banding",
              "tab:kasasi", "tab:pk")  # fmt: skip
    try:
        current: dict[str, Any] | None = None
        for source_id, part, data in conn.execute(
            f"SELECT source_id, part, data_json FROM parts WHERE court = ? AND part IN "
            f"({','.join('?' * len(wanted))}) ORDER BY dedupe_key, part",
            (court, *wanted),
        ):
            if current is None or current["source_id"] != source_id:
                if current is not None:
                    yield current
                current = {"source_id": source_id, "case": None, "tabs": {}}
            if part == "case":
                current["case"] = json.loads(data)
            else:
                current["tabs"][part[4:]] = json.loads(data)
        if current is not None:
            yield current
    finally:
        conn.close()


def _changes(items: Path, court: str, since: str) -> tuple[int, int]:
    """(documents stored before ``since`` whose content changed after it, documents new since)."""
    conn = _connect(items)
    if conn is None:
        return 0, 0
    try:
        row = conn.execute(
            "SELECT coalesce(sum(first_seen < ? AND updated_at >= ?), 0), "
            "coalesce(sum(first_seen >= ?), 0) FROM cases WHERE court = ?",
            (since, since, since, court),
        ).fetchone()
    finally:
        conn.close()
    return int(row[0]), int(row[1])


def utc_today() -> dt.date:
    """The current UTC date (the policy's day when ``HARVEST_REFRESH_TODAY`` is not set)."""
    return dt.datetime.now(dt.UTC).date()
