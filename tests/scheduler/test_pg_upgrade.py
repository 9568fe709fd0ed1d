"""A schema upgrade of a PostgreSQL request state never runs under live crawls of the older
version (issue 24): it waits for their leases, then refuses with the documented message, and
the older crawl goes on untouched. The older crawl is the previous release's code
(tests/support/previous_release.py: ``git archive`` of its commit, run through PYTHONPATH)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from extensions.pg_store import PostgresRequestStore
from extensions.store import StateError
from tests.support.previous_release import previous_release

_OLD_WORKER = """
import os, sys, time
from extensions.pg_store import PostgresRequestStore
from extensions.store import RunInfo, NewRequest
s = PostgresRequestStore.open(sys.argv[1], lease_ttl=2.0, heartbeat_interval=0.3)
run = RunInfo("c1", "sipp", os.getpid(), "old-node", "old", "t0")
s.acquire_crawl_lock(run)
rid, _ = s.start_run(run)
print("holding", flush=True)
sys.stdin.readline()
s.add(NewRequest(key="case|c1|after", kind="case", court="c1", group=None, priority=1,
                 method="GET", url="http://court/after", blob=b"x", generation=0), rid)
s.commit()
print("still writing", flush=True)
sys.stdin.readline()
s.close()
print("stopped", flush=True)
"""


def _columns(url: str, table: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {
            str(r[0])
            for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s",
                (table,),
            )
        }


def test_an_upgrade_waits_for_older_crawls_then_refuses_and_changes_nothing(
    pg_database: str, tmp_path: Path
) -> None:
    old = previous_release(tmp_path)
    worker = subprocess.Popen(
        [sys.executable, "-c", _OLD_WORKER, pg_database],
        cwd=old,
        env={**os.environ, "PYTHONPATH": str(old)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert worker.stdin is not None
    assert worker.stdout is not None
    try:
        assert worker.stdout.readline().strip() == "holding"
        assert "format" not in _columns(pg_database, "requests")  # the older schema
        t0 = time.monotonic()
        with pytest.raises(StateError) as info:
            PostgresRequestStore.open(pg_database, lease_ttl=2.0)
        waited = time.monotonic() - t0
        assert 2.0 <= waited < 15.0
        message = str(info.value)
        assert message.startswith("cannot upgrade the request state postgresql://")
        assert (
            "1 crawls of an older harvest version still hold court leases in it (court c1 pid "
            f"{worker.pid} host old-node job old); waited 2 s for them to end. Nothing was "
            "changed: let them finish (or stop them, one Ctrl+C each), then start this version "
            "again"
        ) in message
        assert "format" not in _columns(pg_database, "requests")  # nothing changed
        worker.stdin.write("\n")
        worker.stdin.flush()
        assert worker.stdout.readline().strip() == "still writing"  # the older crawl lives on
        worker.stdin.write("\n")
        worker.stdin.flush()
        assert worker.stdout.readline().strip() == "stopped"
    finally:
        if worker.poll() is None:
            os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
        worker.stdin.close()
        worker.stdout.close()
    store = PostgresRequestStore.open(pg_database, lease_ttl=2.0)  # no older crawl: upgraded
    try:
        assert "format" in _columns(pg_database, "requests")
        assert "proc_start" in _columns(pg_database, "court_leases")
        with psycopg.connect(pg_database) as conn:
            rows = conn.execute("SELECT key, format FROM requests").fetchall()
        assert rows == [("case|c1|after", 1)]  # the older crawl's row, of format 1
    finally:
        store.close()
