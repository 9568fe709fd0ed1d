"""Outages give one line, no tracebacks, and lose nothing (issue 24).

Each crawl here meets an outage of something it writes to while it runs: its PostgreSQL server
halted, its ``state.sqlite`` locked by another process, its page archive on a full disk. The
crawl ends, within a bound, with exit status 1 and the one ERROR line that names what failed and
what to do; its log holds no ``Traceback``; nothing was recorded done whose page or parts were
not kept, so once the outage is over the same command resumes the court to a harvest equal to
the replica's truth.
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from reference.sipp_site.testing import running_replica
from tests.support.disk import grow, small_tmpfs
from tests.support.harvest_run import (
    crawl,
    crawl_command,
    exported,
    mismatches,
    start,
    state_query,
    truth_by_key,
)
from tests.support.postgres import ThrowawayServer, server_bindir
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

COURT = "pn-replika"
#: How long a crawl may take to give up once its store is gone (seconds).
BOUND = 120


def _errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if " ERROR: " in line]


def _ok_rows_pg(url: str) -> int:
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            row = conn.execute("SELECT count(*) FROM requests WHERE status = 'ok'").fetchone()
    except psycopg.Error:
        return 0
    return int(row[0]) if row else 0


def _ok_rows_sqlite(workspace: Path) -> int:
    try:
        rows = state_query(workspace, "SELECT count(*) FROM requests WHERE status = 'ok'")
        return int(rows[0][0])
    except sqlite3.OperationalError:
        return 0


def _ended(proc: subprocess.Popen[bytes], log: Path) -> tuple[int, float, str]:
    """Wait up to BOUND for ``proc``: its exit status, the seconds it took, its log."""
    began = time.monotonic()
    try:
        code = proc.wait(timeout=BOUND)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"the crawl did not end within {BOUND}s: {log.read_text()[-3000:]}")
    return code, time.monotonic() - began, log.read_text()


def test_postgres_halted_mid_crawl_is_one_line_and_the_resume_loses_nothing(
    tmp_path: Path,
) -> None:
    bindir = server_bindir()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (scripts/bootstrap installs them)")
    server = ThrowawayServer(bindir)  # the test's own server: it is halted under the crawl
    try:
        admin = server.start()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute('CREATE DATABASE "outage"')
        url = admin.rsplit("/", 1)[0] + "/outage"
        ws = tmp_path / "ws"
        log = tmp_path / "crawl.log"
        settings = {"HARVEST_DATABASE_URL": url}
        with running_replica(
            cases=120, seed=61, court_id=COURT, extra_args=["--latency", "0.05"]
        ) as replica:
            truth = truth_by_key(replica.truth_path(tmp_path))
            proc = start(crawl_command(replica.url, COURT, ws, settings=settings), log)
            wait_until(
                lambda: _ok_rows_pg(url) >= 20, timeout=BOUND, what="20 requests done", proc=proc
            )
            server.halt()
            code, took, text = _ended(proc, log)
            server.restart()
            resumed = crawl(replica.url, COURT, ws, settings=settings)
            harvest = exported(ws, "-s", f"HARVEST_DATABASE_URL={url}")
    finally:
        server.stop()
    assert code == 1, text[-3000:]
    assert text.count("Traceback") == 0, text[-6000:]
    errors = _errors(text)
    assert len(errors) == 1, errors
    # the first store to meet the outage (request state or item store) says it, once
    assert "check that the PostgreSQL server runs and is reachable" in errors[0], errors
    assert re.search(
        r"scrapy crawl: the crawl stopped early \((harvest_state_error|item_store_error)\)", text
    )
    assert took < BOUND
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert mismatches(harvest, truth) == {}


_LOCKER = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
con.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_locked_state_sqlite_is_one_line_within_a_bound_and_the_resume_loses_nothing(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    log = tmp_path / "crawl.log"
    with running_replica(
        cases=120, seed=62, court_id=COURT, extra_args=["--latency", "0.05"]
    ) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        proc = start(crawl_command(replica.url, COURT, ws), log)
        wait_until(
            lambda: _ok_rows_sqlite(ws) >= 20, timeout=BOUND, what="20 requests done", proc=proc
        )
        locker = subprocess.Popen(
            [sys.executable, "-c", _LOCKER, str(ws / "state.sqlite")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert locker.stdout is not None
            assert locker.stdout.readline() == "locked\n"
            code, took, text = _ended(proc, log)
        finally:
            assert locker.stdin is not None
            locker.stdin.close()  # the lock is let go
            locker.wait(timeout=30)
            assert locker.stdout is not None
            locker.stdout.close()
        resumed = crawl(replica.url, COURT, ws)
        harvest = exported(ws)
    assert code == 1, text[-3000:]
    assert text.count("Traceback") == 0, text[-6000:]
    errors = _errors(text)
    assert len(errors) == 1, errors
    assert "database is locked; another process holds a lock on the request state " in errors[0]
    assert (
        f"{str(ws / 'state.sqlite')!r}: end it (fuser names it) and run the crawl again"
        in (errors[0])
    ), errors
    assert "scrapy crawl: the crawl stopped early (harvest_state_error" in text
    assert took < BOUND
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert mismatches(harvest, truth) == {}


def test_a_full_archive_is_one_line_that_says_what_to_do_and_loses_nothing(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir(mode=0o700)
    with (
        small_tmpfs(ws / "archive", "256k") as archive,
        running_replica(cases=80, seed=63, court_id=COURT) as replica,
    ):
        truth = truth_by_key(replica.truth_path(tmp_path))
        began = time.monotonic()
        full = crawl(replica.url, COURT, ws, timeout=BOUND * 2)
        took = time.monotonic() - began
        # nothing recorded done whose page is not in the archive
        done = {key for (key,) in state_query(ws, "SELECT key FROM requests WHERE status = 'ok'")}
        failed = state_query(ws, "SELECT count(*) FROM requests WHERE status = 'error'")
        grow(archive, "64m")  # (its WAL index cannot be read on the full disk: no room for -shm)
        con = sqlite3.connect(f"{(archive / 'index.sqlite').as_uri()}?mode=ro", uri=True)
        try:
            archived = {key for (key,) in con.execute("SELECT key FROM records")}
        finally:
            con.close()
        resumed = crawl(replica.url, COURT, ws)
        harvest = exported(ws)
    assert full.returncode == 1, full.stderr[-3000:]
    assert full.stderr.count("Traceback") == 0, full.stderr[-6000:]
    errors = _errors(full.stderr)
    assert len(errors) == 1, errors
    assert f"the page archive {str(ws / 'archive')!r} is full" in errors[0], errors
    assert "free space on its disk and run the crawl again (nothing is lost)" in errors[0]
    assert "scrapy crawl: the crawl stopped early (harvest_archive_error" in full.stderr
    assert took < BOUND
    assert done, "nothing was done before the archive filled up: make the tmpfs larger"
    assert done - archived == set()
    assert failed == [(0,)]
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert mismatches(harvest, truth) == {}
