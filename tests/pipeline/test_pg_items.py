"""What only the PostgreSQL item store does: several processes writing one database at once,
errors that never name the password, a database that is not (yet) an item store.

The contract itself (upserts, merge, versions, completeness, snapshots) runs on both backends
in test_store.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from harvest.base.dburl import url_password
from harvest.base.scrubbing import redact_url
from pipelines.item_backends import open_item_store
from pipelines.pg_items import PostgresItemStore
from pipelines.store import ItemStore, ItemStoreError, merge_document
from tests.support.net import refused_port
from tests.support.paths import REPO

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pipelines.item_backends import open_item_store
    url, court, parts, start_at = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    cases, tabs = 40, 12
    store = open_item_store(Path("."), database_url=url)
    while time.time() < start_at:  # both writers start together
        time.sleep(0.001)
    listed = [{"slug": f"t{t}", "label": f"T{t}", "available": True} for t in range(tabs)]
    for c in range(cases):
        number = f"{c}/Pdt.G/2024/PA X"
        mine = range(0, tabs, 2) if parts == "even" else range(1, tabs, 2)
        if parts == "case":
            store.upsert_part(court=court, case_number=number, part="case",
                              data={"n": c, "tabs": listed})
            continue
        for t in mine:
            store.upsert_part(court=court, case_number=number, part=f"tab:t{t}",
                              data=[{"by": parts, "t": t}])
    store.close()
    """
)


def _run_writers(url: str, *jobs: tuple[str, str]) -> None:
    """Start one writer process per ``(court, parts)`` at the same moment; all must succeed."""
    import time

    start_at = f"{time.time() + 2.0:.3f}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, court, parts, start_at],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        for court, parts in jobs
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err[-3000:]


def _check_every_case_whole(store: ItemStore, court: str) -> None:
    """Every case of ``court``: 1 + 12 parts, complete, and its stored hash is the hash of the
    merge of every part (no part missing from ``cases``)."""
    documents = list(store.iter_documents(complete_only=False, court=court))
    assert len(documents) == 40
    for document in documents:
        assert document["complete"] is True, document["dedupe_key"]
        assert sorted(document["tabs"]) == sorted(f"t{t}" for t in range(12))
        assert store.missing_tabs(document["dedupe_key"]) == []
        again = merge_document(
            dedupe_key=document["dedupe_key"],
            source_type=document["source_type"],
            source_id=document["source_id"],
            parts=[("case", document["case"])]
            + [(f"tab:{slug}", data) for slug, data in document["tabs"].items()],
        )
        assert document["content_hash"] == again["content_hash"]


def test_two_processes_writing_different_cases_lose_nothing(pg_database: str) -> None:
    _run_writers(pg_database, ("pa-satu", "case"), ("pa-dua", "case"))
    _run_writers(pg_database, ("pa-satu", "even"), ("pa-dua", "even"))
    with open_item_store(REPO, database_url=pg_database, readonly=True) as store:
        assert store.count_parts() == 2 * 40 * 7  # the case part and the even tabs of each
        assert store.count_documents() == 80
        assert store.count_documents(complete_only=True) == 0  # the odd tabs are missing
        assert store.missing_tabs("sipp.pa-satu:0/Pdt.G/2024/PA X") == [
            f"t{t}" for t in range(1, 12, 2)
        ]


def test_the_same_cases_from_two_processes_never_lose_a_part(pg_database: str) -> None:
    """Two processes write the case parts at once (creating the schema at once too); then
    one writes the even tabs, the other the odd tabs of the same 40 cases at the same moment,
    in step. The case row is recomputed under the case's lock, so each write merges every part
    committed before it: every case ends complete with the hash of all its parts. (Without
    the lock, tried: the two inserts of one case part collide on the primary key, and a tab
    written while the other process wrote left its case incomplete.)"""
    _run_writers(pg_database, ("pa-satu", "case"), ("pa-satu", "case"))
    _run_writers(pg_database, ("pa-satu", "even"), ("pa-satu", "odd"))
    with open_item_store(REPO, database_url=pg_database, readonly=True) as store:
        assert store.count_parts() == 40 * 13
        assert store.count_documents(complete_only=True) == 40
        _check_every_case_whole(store, "pa-satu")
    with psycopg.connect(pg_database) as conn:
        # the version of a case is after the last change of every one of its parts
        late = conn.execute(
            "SELECT count(*) FROM cases c JOIN parts p ON p.dedupe_key = c.dedupe_key "
            "WHERE p.last_changed > c.updated_at"
        ).fetchone()
    assert late == (0,)


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}:{password}@{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


def test_a_refused_login_names_the_url_without_the_password(pg_database: str) -> None:
    wrong = _with_password(pg_database, "not-the-Secret-4711")
    with pytest.raises(ItemStoreError) as caught:
        open_item_store(REPO, database_url=wrong)
    message = str(caught.value)
    assert message.startswith(f"cannot connect to the item-store database {redact_url(wrong)}: ")
    assert "password authentication failed" in message
    assert "not-the-Secret-4711" not in message
    assert url_password(pg_database) not in message


def test_an_unreachable_server_says_what_to_check(pg_database: str) -> None:
    parts = urlsplit(pg_database)
    with refused_port() as port:
        netloc = f"{parts.username}:{parts.password}@127.0.0.1:{port}"
        down = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        with pytest.raises(ItemStoreError, match="check that the PostgreSQL server") as caught:
            PostgresItemStore.connect(down)
    message = str(caught.value)
    assert "Connection refused" in message
    assert str(parts.password) not in message


def test_readonly_on_an_empty_database_says_nothing_was_harvested(pg_database: str) -> None:
    with pytest.raises(ItemStoreError, match="nothing has been harvested into this database"):
        open_item_store(REPO, database_url=pg_database, readonly=True)
    with psycopg.connect(pg_database) as conn:
        assert conn.execute("SELECT to_regclass('harvest_item_schema')").fetchone() == (None,)


def test_a_foreign_parts_table_is_refused_and_left_alone(pg_database: str) -> None:
    with psycopg.connect(pg_database) as conn:
        conn.execute("CREATE TABLE parts (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO parts VALUES (1, 'bolt')")
    with pytest.raises(ItemStoreError, match=r"not a harvest item store\. Nothing was changed"):
        open_item_store(REPO, database_url=pg_database)
    with psycopg.connect(pg_database) as conn:
        assert conn.execute("SELECT * FROM parts").fetchall() == [(1, "bolt")]
        assert conn.execute("SELECT to_regclass('harvest_item_schema')").fetchone() == (None,)
        assert conn.execute("SELECT to_regclass('cases')").fetchone() == (None,)


def test_a_server_lost_mid_crawl_is_an_item_store_error_without_the_password(
    pg_database: str,
) -> None:
    with open_item_store(REPO, database_url=pg_database) as store:
        store.upsert_part(court="pa-satu", case_number="1/X", part="tab:a", data=[])
        with psycopg.connect(pg_database, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'harvest' AND pid <> pg_backend_pid()"
            )
        with pytest.raises(ItemStoreError) as caught:
            store.upsert_part(court="pa-satu", case_number="1/X", part="tab:b", data=[])
    message = str(caught.value)
    assert message.startswith(f"item store {redact_url(pg_database)}: ")
    assert "the next crawl fetches it again" in message
    assert url_password(pg_database) not in message


def test_the_sqlite_open_is_refused_on_the_postgres_class() -> None:
    with pytest.raises(TypeError, match=r"use PostgresItemStore\.connect"):
        PostgresItemStore.open(REPO / "items.sqlite")
