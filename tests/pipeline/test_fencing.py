"""A worker that lost its lease writes no item part (issue 24), and an older page never
overwrites a newer one.

The fencing test is a real stall: a worker process holding court c1's lease (and the item
store) is stopped with SIGSTOP past the lease TTL; another crawl takes the court over and
stores a newer part; the stopped worker is continued and writes the part of the page it was
parsing when it stopped. Today's store lets it overwrite the new holder's part (last writer
wins); fenced, it is refused and the new holder's part stays.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import psycopg

from extensions.pg_store import PostgresRequestStore
from extensions.store import RunInfo
from pipelines.item_backends import open_item_store
from pipelines.store import UpsertResult
from tests.support.item_backends import ItemBackend
from tests.support.items import case_data
from tests.support.paths import REPO

NUMBER = "7/Pdt.G/2026/PN A"
KEY = "sipp.pn-a:7/Pdt.G/2026/PN A"

_WORKER = """
import json, os, socket, sys
from extensions.pg_store import PostgresRequestStore
from extensions.store import RunInfo
from pipelines.item_backends import open_item_store
from tests.support.items import case_data

url, workspace = sys.argv[1], sys.argv[2]
state = PostgresRequestStore.open(url, lease_ttl=1.0, heartbeat_interval=0.2)
state.acquire_crawl_lock(RunInfo("pn-a", "sipp", os.getpid(), socket.gethostname(), "old", "t0"))
items = open_item_store(__import__("pathlib").Path(workspace), database_url=url)
number = "7/Pdt.G/2026/PN A"
print(items.upsert_part(court="pn-a", case_number=number, part="case",
                        data=case_data(number, {}, who="old worker, first page"),
                        url="http://court/old", fetched_at="2026-12-01T00:00:01.000Z").value,
      flush=True)
sys.stdin.readline()  # stopped before this line returns; continued: write the page it had
try:
    result = items.upsert_part(court="pn-a", case_number=number, part="case",
                               data=case_data(number, {}, who="old worker, stale page"),
                               url="http://court/old", fetched_at="2026-12-01T00:00:02.000Z")
    print("wrote", result.value, flush=True)
except Exception as exc:
    print("refused", type(exc).__name__, str(exc), flush=True)
"""


def test_a_worker_stopped_past_its_ttl_writes_no_part_over_the_new_holders(
    pg_database: str, tmp_path
) -> None:
    url = pg_database
    worker = subprocess.Popen(
        [sys.executable, "-c", _WORKER, url, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert worker.stdin is not None
    assert worker.stdout is not None
    new_state: PostgresRequestStore | None = None
    try:
        assert worker.stdout.readline().strip() == "created"
        os.kill(worker.pid, signal.SIGSTOP)  # a stall: no heartbeat, no write
        new_state = PostgresRequestStore.open(url, lease_ttl=30)
        deadline = time.monotonic() + 10
        while True:  # the new holder takes the court over once the stopped worker's lease expired
            try:
                new_state.acquire_crawl_lock(
                    RunInfo("pn-a", "sipp", os.getpid(), socket.gethostname(), "new", "t1")
                )
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        items = open_item_store(tmp_path, database_url=url)
        try:
            newer = case_data(NUMBER, {}, who="new holder")
            assert (
                items.upsert_part(
                    court="pn-a",
                    case_number=NUMBER,
                    part="case",
                    data=newer,
                    url="http://court/new",
                    fetched_at="2026-12-01T00:00:03.000Z",
                )
                is UpsertResult.UPDATED
            )
        finally:
            items.close()
        os.kill(worker.pid, signal.SIGCONT)
        worker.stdin.write("go\n")
        worker.stdin.flush()
        answer = worker.stdout.readline().strip()
    finally:
        if worker.poll() is None:
            os.kill(worker.pid, signal.SIGCONT)
        worker.wait(timeout=30)
        worker.stdin.close()
        worker.stdout.close()
        if new_state is not None:
            new_state.close()
    assert answer.startswith("refused LeaseFenced item store postgresql://")
    assert "the lease of court 'pn-a' is no longer this crawl's" in answer
    assert f"now held by pid {os.getpid()} host {socket.gethostname()}" in answer
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT data_json::json->>'who', url, fetched_at FROM parts WHERE dedupe_key = %s",
            (KEY,),
        ).fetchall()
    assert rows == [("new holder", "http://court/new", "2026-12-01T00:00:03.000Z")]


def test_an_older_fetch_never_overwrites_a_newer_part(backend: ItemBackend) -> None:
    with backend.open() as store:
        assert (
            store.upsert_part(
                court="pn-a",
                case_number=NUMBER,
                part="case",
                data=case_data(NUMBER, {}, who="newer page"),
                url="http://court/b",
                fetched_at="2026-12-01T10:00:00.000Z",
            )
            is UpsertResult.CREATED
        )
        assert (
            store.upsert_part(
                court="pn-a",
                case_number=NUMBER,
                part="case",
                data=case_data(NUMBER, {}, who="older page"),
                url="http://court/a",
                fetched_at="2026-12-01T09:59:59.999Z",
            )
            is UpsertResult.STALE
        )
        part = store.get_part(KEY, "case")
        assert part is not None
        assert (part.data["who"], part.url, part.fetched_at) == (
            "newer page",
            "http://court/b",
            "2026-12-01T10:00:00.000Z",
        )
        # the same time again (a re-parse of that page) or a later one is stored as before
        assert (
            store.upsert_part(
                court="pn-a",
                case_number=NUMBER,
                part="case",
                data=case_data(NUMBER, {}, who="newest page"),
                url="http://court/c",
                fetched_at="2026-12-01T10:00:00.000Z",
            )
            is UpsertResult.UPDATED
        )


def test_a_reparse_of_the_archived_page_is_not_stale(backend: ItemBackend) -> None:
    """``scrapy reparse`` upserts with the archive's time of the page, which precedes the
    crawl's parse time of that very page: it is not an older page."""
    with backend.open() as store:
        store.upsert_part(
            court="pn-a",
            case_number=NUMBER,
            part="case",
            data=case_data(NUMBER, {}, who="parsed by the crawl"),
            fetched_at="2026-12-01T10:00:00.050Z",
        )
        assert (
            store.upsert_part(
                court="pn-a",
                case_number=NUMBER,
                part="case",
                data=case_data(NUMBER, {}, who="parsed again from the archive"),
                fetched_at="2026-12-01T10:00:00.000Z",
                replay=True,
            )
            is UpsertResult.UPDATED
        )
