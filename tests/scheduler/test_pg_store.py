"""What the PostgreSQL store does beyond the store contract (tests/scheduler/test_store.py):
claims under concurrency (SKIP LOCKED), the court lease with its heartbeat and takeover, clear
errors for an unreachable or foreign database that never show the password, and the setting
that selects it. A real server: tests/support/postgres.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from scrapy.settings import Settings

from extensions.config import SchedulerConfig
from extensions.pg_store import LeaseLost, PostgresRequestStore
from extensions.store import NOTICES, CrawlLocked, RunInfo, StateError, Status
from harvest.base.scrubbing import redact_url
from harvest.base.settings_error import SettingsError
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    run,
    scrapy_args,
    truth_by_key,
)
from tests.support.missing_parts import N1, N2, fill_requests, store_two_parts
from tests.support.net import refused_port
from tests.support.paths import REPO, SCRAPY
from tests.support.store import events_of, new

RUN = RunInfo(court="c1", spider="sipp", pid=os.getpid(), host="h1", job="job-7", started_at="t0")
OTHER = RunInfo(court="c1", spider="sipp", pid=4242, host="h2", job="job-9", started_at="t1")


@pytest.fixture
def opened() -> Iterator[Callable[..., PostgresRequestStore]]:
    """Open stores, every one closed at the end of the test (before its database is dropped)."""
    stores: list[PostgresRequestStore] = []

    def open_(url: str, **kw: object) -> PostgresRequestStore:
        store = PostgresRequestStore.open(url, **kw)  # type: ignore[arg-type]
        stores.append(store)
        return store

    yield open_
    for store in reversed(stores):
        store.close()


@pytest.fixture
def url(pg_database: str, opened: object) -> str:
    return pg_database


def _password(url: str) -> str:
    pw = urlsplit(url).password
    assert pw
    return pw


def _with_password(url: str, password: str) -> str:
    p = urlsplit(url)
    netloc = f"{p.username}:{password}@{p.hostname}:{p.port}"
    return urlunsplit((p.scheme, netloc, p.path, p.query, ""))


# --- claims -----------------------------------------------------------------------------------


def test_two_stores_claiming_at_once_never_take_one_row_twice(url: str, opened) -> None:
    a, b = opened(url), opened(url)
    for i in range(1000):
        a.add(new(f"case|c1|{i}", priority=i % 7), 1)
    claimed: dict[str, list[int]] = {"a": [], "b": []}
    start = threading.Barrier(2)

    def worker(name: str, store: PostgresRequestStore) -> None:
        start.wait()
        while (c := store.claim("c1", 1, busy_groups=[], held=[])) is not None:
            claimed[name].append(c.id)
            assert store.finish(c.id, 1, ok=True)

    threads = [threading.Thread(target=worker, args=(n, s)) for n, s in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    every = claimed["a"] + claimed["b"]
    assert len(every) == 1000
    assert len(set(every)) == 1000  # each row claimed exactly once
    assert claimed["a"]  # both took part
    assert claimed["b"]
    assert a.count(status=Status.OK) == 1000
    with psycopg.connect(url) as conn:
        attempts = Counter(r[0] for r in conn.execute("SELECT attempts FROM requests"))
        dispatched = conn.execute(
            "SELECT count(*) FROM events WHERE event = 'dispatched'"
        ).fetchone()
    assert attempts == {1: 1000}
    assert dispatched == (1000,)


def test_a_row_being_claimed_is_skipped_not_waited_for(url: str, opened) -> None:
    commits: list[Callable[[], None]] = []
    a = opened(url, defer_commit=commits.append)  # group commit: its claim stays uncommitted
    b = opened(url, busy_timeout=2.0)
    b.add(new("case|c1|1", priority=9), 1)
    b.add(new("case|c1|2", priority=1), 1)
    first = a.claim("c1", 1, busy_groups=[], held=[])
    assert first is not None
    assert first.key == "case|c1|1"
    t0 = time.monotonic()
    second = b.claim("c1", 1, busy_groups=[], held=[])
    assert time.monotonic() - t0 < 1.0  # not blocked on a's row lock
    assert second is not None
    assert second.key == "case|c1|2"
    assert b.claim("c1", 1, busy_groups=[], held=[]) is None  # the locked row is not offered
    commits.pop()()
    assert b.count(status=Status.INFLIGHT) == 2


# --- the court lease --------------------------------------------------------------------------


def test_a_live_lease_is_refused_naming_its_holder(url: str, opened) -> None:
    s1, s2 = opened(url), opened(url)
    s1.acquire_crawl_lock(RUN)
    s1.start_run(RUN)
    with pytest.raises(CrawlLocked) as info:
        s2.acquire_crawl_lock(OTHER)
    message = str(info.value)
    for part in (f"pid {os.getpid()}", "host h1", "job job-7", "started_at t0", "run_id 1"):
        assert part in message
    assert "lease in postgresql://harvest:***@" in message
    assert _password(url) not in message
    assert info.value.holder["pid"] == os.getpid()
    s2.acquire_crawl_lock(RunInfo(**{**OTHER.__dict__, "court": "c2"}))  # another court: free
    s1.release_crawl_lock()
    s2.release_crawl_lock()
    s2.acquire_crawl_lock(OTHER)  # given up by its holder: free at once


def test_the_heartbeat_keeps_a_live_lease_beyond_its_ttl(url: str, opened) -> None:
    s1 = opened(url, lease_ttl=1.0, heartbeat_interval=0.2)
    s2 = opened(url, lease_ttl=1.0)
    s1.acquire_crawl_lock(RUN)
    time.sleep(2.0)  # two TTLs: only the heartbeat keeps it
    with pytest.raises(CrawlLocked):
        s2.acquire_crawl_lock(OTHER)
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT heartbeat_at > acquired_at, expires_at > now() FROM court_leases"
        ).fetchone()
    assert row == (True, True)


def test_one_store_holds_and_renews_the_leases_of_several_courts(url: str, opened) -> None:
    """A multi-court worker: one store, one lease a court, all renewed by one heartbeat; one
    court given up leaves the others held."""
    c2 = RunInfo(**{**RUN.__dict__, "court": "c2"})
    s1 = opened(url, lease_ttl=1.0, heartbeat_interval=0.2)
    s2 = opened(url, lease_ttl=1.0)
    s1.acquire_crawl_lock(RUN)
    s1.acquire_crawl_lock(c2)
    with pytest.raises(StateError, match="already holds the lease of court 'c2'"):
        s1.acquire_crawl_lock(c2)
    time.sleep(2.0)  # two TTLs: only the heartbeat keeps them
    for court in ("c1", "c2"):
        with pytest.raises(CrawlLocked, match=f"court '{court}'"):
            s2.acquire_crawl_lock(RunInfo(**{**OTHER.__dict__, "court": court}))
    s1.release_crawl_lock("c1")
    s2.acquire_crawl_lock(OTHER)  # c1 given up: free at once
    time.sleep(1.5)  # c2 still renewed after c1 went
    with pytest.raises(CrawlLocked, match="court 'c2'"):
        s2.acquire_crawl_lock(RunInfo(**{**OTHER.__dict__, "court": "c2"}))
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT court, expires_at > now() FROM court_leases ORDER BY court"
        ).fetchall()
    assert rows == [("c1", True), ("c2", True)]
    s1.close()
    s2.acquire_crawl_lock(RunInfo(**{**OTHER.__dict__, "court": "c2"}))


def _wait_for_takeover(store: PostgresRequestStore, run: RunInfo, within: float) -> float:
    t0 = time.monotonic()
    while True:
        try:
            store.acquire_crawl_lock(run)
            return time.monotonic() - t0
        except CrawlLocked:
            if time.monotonic() - t0 > within:
                raise
            time.sleep(0.1)


def test_a_killed_holder_loses_its_court_after_the_ttl(url: str, opened) -> None:
    """A worker holding c1 with two rows in flight is SIGKILLed: within the TTL its lease is
    taken over and its inflight rows are pending again, with events naming the old holder."""
    script = (
        "import os, time\n"
        "from extensions.pg_store import PostgresRequestStore\n"
        "from extensions.store import RunInfo\n"
        "from tests.support.store import new\n"
        f"s = PostgresRequestStore.open({url!r}, lease_ttl=1.5, heartbeat_interval=0.3)\n"
        "run = RunInfo('c1', 'sipp', os.getpid(), 'h-dead', 'job-dead', 't')\n"
        "s.acquire_crawl_lock(run)\n"
        "rid, _ = s.start_run(run)\n"
        "for i in range(3):\n"
        "    s.add(new(f'case|c1|{i}'), rid)\n"
        "s.claim('c1', rid, busy_groups=[], held=[])\n"
        "s.claim('c1', rid, busy_groups=[], held=[])\n"
        "print('holding', flush=True)\n"
        "time.sleep(60)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "holding"
        s = opened(url, lease_ttl=1.5)
        time.sleep(2.0)  # the holder heartbeats: still its court after more than a TTL
        with pytest.raises(CrawlLocked, match=f"pid {holder.pid}"):
            s.acquire_crawl_lock(RUN)
        assert s.count(status=Status.INFLIGHT) == 2
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        holder.stdout.close()
    waited = _wait_for_takeover(s, RUN, within=5.0)
    assert waited <= 1.5 + 0.5  # within the TTL (plus the polling step and slack)
    assert s.count(court="c1", status=Status.PENDING) == 3
    assert s.count(status=Status.INFLIGHT) == 0
    with psycopg.connect(url) as conn:
        notes = [
            r[0]
            for r in conn.execute("SELECT detail FROM events WHERE event = 'released' ORDER BY id")
        ]
        takeover = conn.execute(
            "SELECT detail FROM events WHERE event = 'lease_takeover'"
        ).fetchall()
        lease = conn.execute("SELECT pid, host, job FROM court_leases").fetchall()
    assert len(notes) == 2
    assert all(f"lease of pid {holder.pid} host h-dead job job-dead run 1 expired" in n
               for n in notes)  # fmt: skip
    assert len(takeover) == 1
    assert "2 requests in flight sent back to pending" in takeover[0][0]
    assert lease == [(os.getpid(), "h1", "job-7")]
    run_id, killed = s.start_run(RUN)
    assert (run_id, killed) == (2, [1])
    c = s.claim("c1", run_id, busy_groups=[], held=[])
    assert c is not None
    assert c.attempts == 2  # the row the dead worker had, dispatched again


def test_a_holder_that_stalled_past_its_ttl_has_lost_the_court(url: str, opened) -> None:
    stalled = opened(url, lease_ttl=0.5, heartbeat_interval=3600)  # never heartbeats in time
    stalled.acquire_crawl_lock(RUN)
    run_id, _ = stalled.start_run(RUN)
    rid = stalled.add(new("case|c1|1"), run_id)
    assert stalled.claim("c1", run_id, busy_groups=[], held=[]) is not None
    other = opened(url, lease_ttl=30)
    _wait_for_takeover(other, OTHER, within=3.0)
    with pytest.raises(LeaseLost, match="was lost"):
        stalled.heartbeat()
    with pytest.raises(StateError, match="no more state changes"):
        stalled.finish(rid or 0, run_id, ok=True)
    assert other.count(status=Status.PENDING) == 1  # the stalled claim went back, not its ok
    stalled.close()  # gives up nothing: the lease is the other's
    with pytest.raises(CrawlLocked, match="pid 4242"):
        opened(url).acquire_crawl_lock(RUN)


# --- errors -----------------------------------------------------------------------------------


def test_an_unreachable_server_is_a_clear_error_without_the_password(url: str) -> None:
    p = urlsplit(url)
    with refused_port() as port, pytest.raises(StateError) as info:
        PostgresRequestStore.open(
            urlunsplit((p.scheme, f"{p.username}:{p.password}@127.0.0.1:{port}", p.path, "", ""))
        )
    message = str(info.value)
    assert message.startswith("cannot connect to the request-state database postgresql://")
    assert "check that the PostgreSQL server runs" in message
    assert _password(url) not in message
    assert ":***@127.0.0.1:" in message


def test_a_wrong_password_is_refused_and_never_shown(url: str) -> None:
    wrong = _with_password(url, "not-the-Secret-123")
    with pytest.raises(StateError) as info:
        PostgresRequestStore.open(wrong)
    message = str(info.value)
    assert "password authentication failed" in message
    assert "not-the-Secret-123" not in message
    assert "HARVEST_DATABASE_URL" in message


def test_a_database_of_other_tables_is_refused_untouched(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE requests (id int, payload text)")
        conn.execute("INSERT INTO requests VALUES (1, 'theirs')")
    with pytest.raises(StateError) as info:
        PostgresRequestStore.open(url)
    message = str(info.value)
    assert "holds tables that are not a harvest state" in message
    assert "Nothing was changed" in message
    assert _password(url) not in message
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT * FROM requests").fetchall() == [(1, "theirs")]
        assert conn.execute("SELECT to_regclass('runs')").fetchone() == (None,)


def test_another_schema_version_is_refused(url: str, opened) -> None:
    opened(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE harvest_schema SET version = 4")
    with pytest.raises(StateError, match="schema version 4, this code expects 3"):
        PostgresRequestStore.open(url)
    with pytest.raises(StateError, match="schema version 4, this code expects 3"):
        PostgresRequestStore.open(url, readonly=True)


def test_readonly_on_an_empty_database_says_nothing_was_crawled(url: str) -> None:
    with pytest.raises(StateError, match="nothing has been crawled into this database"):
        PostgresRequestStore.open(url, readonly=True)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT to_regclass('requests')").fetchone() == (None,)


def test_a_server_lost_mid_crawl_is_a_state_error(url: str, opened) -> None:
    s = opened(url)
    s.add(new("case|c1|1"), 1)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'harvest' AND pid <> pg_backend_pid()"
        )
    with pytest.raises(StateError) as info:
        s.claim("c1", 1, busy_groups=[], held=[])
    message = str(info.value)
    assert message.startswith("cannot claim a request in the request state postgresql://")
    assert _password(url) not in message


def test_the_urls_own_options_are_kept_and_commits_follow_synchronous(url: str, opened) -> None:
    """A ``search_path`` given in the URL puts the tables in that schema; ``NORMAL`` commits
    asynchronously, ``FULL`` waits for the WAL flush; ``busy_timeout`` is the lock timeout."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA crawl_state")
    in_schema = f"{url}?options=-csearch_path%3Dcrawl_state"
    normal = opened(in_schema, busy_timeout=2.5)
    assert normal.path == f"{redact_url(url)}?options=-csearch_path%3Dcrawl_state"
    assert normal._conn.execute("SHOW synchronous_commit").fetchone() == ("off",)
    assert normal._conn.execute("SHOW lock_timeout").fetchone() == ("2500ms",)
    full = opened(in_schema, synchronous="FULL")
    assert full._conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
    with psycopg.connect(url) as conn:
        assert conn.execute(
            "SELECT table_schema FROM information_schema.tables WHERE table_name = 'requests'"
        ).fetchall() == [("crawl_state",)]


def test_a_group_transaction_that_failed_is_never_committed_as_if_it_had_not(
    url: str, opened
) -> None:
    """Under group commit a failed statement aborts the whole group: the store says so and
    records nothing more (PostgreSQL would turn the COMMIT of an aborted transaction into a
    silent ROLLBACK)."""
    commits: list[Callable[[], None]] = []
    s = opened(url, defer_commit=commits.append)
    s.add(new("case|c1|1"), 1)
    with pytest.raises(StateError, match="division by zero"):
        s._x("SELECT 1 / 0", doing="divide")
    with pytest.raises(StateError, match=r"failed \(divide\): no more state changes"):
        s.add(new("case|c1|2"), 1)
    raw = opened(url, defer_commit=commits.append)
    raw.add(new("case|c1|3"), 1)
    with pytest.raises(psycopg.errors.DivisionByZero):
        raw._conn.execute("SELECT 1 / 0")  # aborted behind the store's back
    with pytest.raises(StateError, match=r"cannot commit the request state .*INERROR"):
        raw.commit()
    with pytest.raises(StateError, match="no more state changes"):
        raw.add(new("case|c1|4"), 1)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM requests").fetchone() == (0,)


def test_a_server_lost_before_the_group_commit_says_what_to_do_and_records_nothing(
    url: str, opened
) -> None:
    """The outage that meets the group COMMIT rather than a statement (fresh-clone CI met it by
    timing, issue 24): one StateError naming what to do, nothing of the group recorded, and
    nothing more written in the run."""
    commits: list[Callable[[], None]] = []
    s = opened(url, defer_commit=commits.append)
    s.add(new("case|c1|1"), 1)
    assert commits == [s.commit]  # the group is open, its COMMIT scheduled
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'harvest' AND pid <> pg_backend_pid()"
        )
    with pytest.raises(StateError) as info:
        s.commit()
    message = str(info.value)
    assert message.startswith("cannot commit the request state postgresql://")
    assert message.endswith(
        "nothing of the last moment was recorded, and nothing more will be in this run; check "
        "that the PostgreSQL server runs and is reachable (HARVEST_DATABASE_URL), then run "
        "again: the next run redoes it"
    )
    assert _password(url) not in message
    with pytest.raises(StateError, match="a commit of the request state failed: no more state"):
        s.add(new("case|c1|2"), 1)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM requests").fetchone() == (0,)


# --- the setting ------------------------------------------------------------------------------


def test_redact_url() -> None:
    assert redact_url("postgresql://u:s3cret@db:5432/h") == "postgresql://u:***@db:5432/h"
    assert redact_url("postgresql://db/h?password=s3cret&sslmode=require") == (
        "postgresql://db/h?password=***&sslmode=require"
    )
    assert redact_url("postgresql://u@db/h") == "postgresql://u@db/h"


def test_the_database_url_selects_postgres_and_hides_its_password(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HARVEST_DATABASE_URL", raising=False)
    monkeypatch.delenv("HARVEST_LEASE_TTL", raising=False)
    plain = SchedulerConfig.from_settings(Settings({"HARVEST_WORKSPACE": str(tmp_path)}))
    assert plain.database_url is None
    assert plain.store == "extensions.sqlite_store.SqliteRequestStore"

    monkeypatch.setenv("HARVEST_DATABASE_URL", url)
    monkeypatch.setenv("HARVEST_LEASE_TTL", "45")
    config = SchedulerConfig.from_settings(Settings({"HARVEST_WORKSPACE": str(tmp_path)}))
    assert config.store == "extensions.pg_store.PostgresRequestStore"
    assert config.lease_ttl == 45.0
    assert _password(url) not in repr(config)
    store = config.open_store()
    try:
        assert isinstance(store, PostgresRequestStore)
        assert store.path == redact_url(url)
        assert _password(url) not in store.path
    finally:
        store.close()
    assert not (tmp_path / "state.sqlite").exists()
    # the setting wins over the environment variable
    setting = SchedulerConfig.from_settings(
        Settings({"HARVEST_WORKSPACE": str(tmp_path), "HARVEST_LEASE_TTL": "5"})
    )
    assert setting.lease_ttl == 5.0


def test_bad_database_settings_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HARVEST_DATABASE_URL", raising=False)
    with pytest.raises(SettingsError, match=r"must be a postgresql:// URL .*'mysql://u:\*\*\*@"):
        SchedulerConfig(workspace="/x", database_url="mysql://u:s3cret@db/h")
    with pytest.raises(SettingsError, match="HARVEST_LEASE_TTL must be a positive number"):
        SchedulerConfig(workspace="/x", database_url="postgresql://db/h", lease_ttl=0)
    with pytest.raises(SettingsError, match="set only one"):
        SchedulerConfig(
            workspace="/x",
            database_url="postgresql://db/h",
            store="extensions.memory_store.MemoryRequestStore",
        )
    with pytest.raises(SettingsError, match="HARVEST_LEASE_TTL must be a number of seconds"):
        SchedulerConfig.from_settings(Settings({"HARVEST_LEASE_TTL": "soon"}))


# --- the cross-check with the item store ---------------------------------------------------------


def test_the_parts_reset_is_an_audit_event_naming_the_part(
    url: str, opened, tmp_path: Path
) -> None:
    store = opened(url)
    ids = fill_requests(store)
    # the item store is in the database: the path is not read
    items = store_two_parts(tmp_path / "items.sqlite", store)
    everywhere = store.check_parts(items)  # every court at once: pn-b's case is not ok yet
    assert (everywhere.missing, everywhere.items) == (2, "present")
    assert everywhere.sample == [
        (f"tab|pn-a|{N1}|jadwal_sidang", "tab:jadwal_sidang"),
        (f"case|pn-a|{N2}", "case"),
    ]
    check = store.check_parts(items, court="pn-a", reset_run=1)
    assert check.missing == 2
    with psycopg.connect(url) as conn:
        events = conn.execute(
            "SELECT request_id, detail FROM events WHERE event = 'released' ORDER BY id"
        ).fetchall()
    assert events == [
        (
            ids[f"tab|pn-a|{N1}|jadwal_sidang"],
            (
                f"was ok, but its part tab:jadwal_sidang of sipp.pn-a:{N1} is missing from "
                "the item store: fetched again"
            ),
        ),
        (
            ids[f"case|pn-a|{N2}"],
            (
                f"was ok, but its part case of sipp.pn-a:{N2} is missing from the item store: "
                "fetched again"
            ),
        ),
    ]
    assert store.check_parts(items).missing == 0


def test_a_damaged_item_store_changes_nothing_in_the_database(
    url: str, opened, tmp_path: Path
) -> None:
    """The item store is the database's: a file at the items path is not read; an item store
    whose ``parts`` table is gone fails the check, and no request changes."""
    store = opened(url)
    fill_requests(store)
    bad = tmp_path / "items.sqlite"
    bad.write_bytes(b"not a database at all\n" * 200)
    store_two_parts(bad, store)
    assert store.check_parts(bad, court="pn-a").missing == 2
    with psycopg.connect(url) as conn:
        conn.execute("DROP TABLE parts")
    with pytest.raises(StateError, match=r"cross-check the request state with the item store"):
        store.check_parts(bad, court="pn-a", reset_run=1)
    assert store.count(court="pn-a", status=Status.OK) == 5


# --- a real crawl -------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_crawl_with_its_state_on_postgres_harvests_the_court(url: str, tmp_path: Path) -> None:
    """The scheduler unchanged, the state on PostgreSQL: the export equals the replica's truth,
    every request is ok in the database, no state.sqlite is written, the password is in no log
    line; ``scrapy requeue`` works on it."""
    ws = tmp_path / "ws"
    court = "pn-replika"
    with running_replica(cases=8, seed=5, court_id=court) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        done = crawl(replica.url, court, ws, settings={"HARVEST_DATABASE_URL": url})
    assert done.returncode == 0, done.stderr[-3000:]
    assert mismatches(exported(ws, "-s", f"HARVEST_DATABASE_URL={url}"), truth) == {}
    assert not (ws / "state.sqlite").exists()
    assert not (ws / "items.sqlite").exists()  # the items are in the database too
    assert f"state {redact_url(url)}" in done.stderr
    assert _password(url) not in done.stderr
    with psycopg.connect(url) as conn:
        by_status: dict[str, int] = dict(
            conn.execute("SELECT status, count(*) FROM requests GROUP BY status").fetchall()
        )
        runs = conn.execute("SELECT court, close_reason FROM runs").fetchall()
        leases = conn.execute("SELECT count(*) FROM court_leases").fetchone()
    assert set(by_status) == {"ok"}
    assert by_status["ok"] >= 1 + 8  # a list page and every case, with their tabs
    assert runs == [(court, "finished")]
    assert leases == (0,)  # given up at the end of the crawl
    requeue = run(
        [*SCRAPY, "requeue", "--dry-run", *scrapy_args(ws, {"HARVEST_DATABASE_URL": url})]
    )
    assert requeue.returncode == 0, requeue.stderr[-2000:]
    assert requeue.stdout == "would requeue 0 failed requests to pending\n"


# --- refresh generations (schema 3) ------------------------------------------------------------

#: The schema the PostgreSQL store wrote at version 2 (before generations), as released.
V2_SCHEMA = """
CREATE TABLE IF NOT EXISTS harvest_schema (
    version     INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS requests (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,
    court       TEXT NOT NULL,
    group_key   TEXT,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'inflight', 'ok', 'error')),
    priority    INTEGER NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    retries     INTEGER NOT NULL DEFAULT 0,
    method      TEXT NOT NULL,
    url         TEXT NOT NULL,
    last_status INTEGER,
    last_error  TEXT,
    request     BYTEA NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    run_id      BIGINT,
    last_event  TEXT NOT NULL DEFAULT 'enqueued',
    note        TEXT
);
CREATE INDEX IF NOT EXISTS requests_pending
    ON requests (court, priority DESC, id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS requests_age ON requests (status, updated_at);
CREATE INDEX IF NOT EXISTS requests_by_status ON requests (court, kind, status);
CREATE INDEX IF NOT EXISTS requests_group_open
    ON requests (group_key) WHERE status IN ('pending', 'inflight');

CREATE TABLE IF NOT EXISTS url_log (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at          TEXT NOT NULL,
    run_id      BIGINT,
    request_id  BIGINT,
    method      TEXT NOT NULL,
    url         TEXT NOT NULL,
    final_url   TEXT NOT NULL,
    status      INTEGER,
    outcome     TEXT NOT NULL,
    bytes       BIGINT NOT NULL,
    ms          DOUBLE PRECISION NOT NULL,
    queue_ms    DOUBLE PRECISION
);
CREATE INDEX IF NOT EXISTS url_log_request ON url_log (request_id);

CREATE TABLE IF NOT EXISTS events (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at          TEXT NOT NULL,
    run_id      BIGINT,
    request_id  BIGINT,
    event       TEXT NOT NULL,
    detail      TEXT
);
CREATE INDEX IF NOT EXISTS events_request ON events (request_id);
CREATE INDEX IF NOT EXISTS events_notice ON events (event, id) WHERE event IN ({notices});

CREATE TABLE IF NOT EXISTS runs (
    id           BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    court        TEXT NOT NULL,
    spider       TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    job          TEXT,
    started_at   TEXT NOT NULL,
    ended_at     TEXT,
    close_reason TEXT
);

CREATE TABLE IF NOT EXISTS parse_warnings (
    request_id  BIGINT NOT NULL,
    court       TEXT NOT NULL,
    page        TEXT NOT NULL,
    label       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (request_id, page, label, kind)
);
CREATE INDEX IF NOT EXISTS parse_warnings_by_label
    ON parse_warnings (court, page, label, kind);

CREATE TABLE IF NOT EXISTS open_groups (
    court      TEXT NOT NULL,
    group_key  TEXT NOT NULL,
    opened_at  TEXT NOT NULL,
    run_id     BIGINT,
    seq        BIGINT GENERATED BY DEFAULT AS IDENTITY,
    PRIMARY KEY (court, group_key)
);

CREATE TABLE IF NOT EXISTS court_leases (
    court        TEXT PRIMARY KEY,
    holder       TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    job          TEXT,
    started_at   TEXT NOT NULL,
    run_id       BIGINT,
    acquired_at  TIMESTAMPTZ NOT NULL,
    heartbeat_at TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL
);

-- counts as views, not trigger-kept tables: on a database shared by many workers a counter
-- row per court x kind x status would serialize every transition of a court
CREATE OR REPLACE VIEW request_counts AS
    SELECT court, kind, status, count(*) AS n FROM requests GROUP BY court, kind, status;
CREATE OR REPLACE VIEW parse_warning_counts AS
    SELECT court, page, label, kind, count(*) AS pages, sum(n) AS n,
           max(request_id) AS example
    FROM parse_warnings GROUP BY court, page, label, kind;

-- every transition of a request row is written to events inside the same statement
CREATE OR REPLACE FUNCTION harvest_requests_enqueued() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (at, run_id, request_id, event, detail)
    VALUES (NEW.created_at, NEW.run_id, NEW.id, 'enqueued', NULL);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION harvest_requests_transition() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (at, run_id, request_id, event, detail)
    VALUES (NEW.updated_at, NEW.run_id, NEW.id, NEW.last_event,
            CASE NEW.last_event
                WHEN 'dispatched' THEN 'attempt ' || NEW.attempts
                WHEN 'error' THEN NEW.last_error
                WHEN 'requeued' THEN NEW.last_error
                WHEN 'retry' THEN NEW.url
                WHEN 'released' THEN NEW.note
            END);
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS requests_enqueued ON requests;
CREATE TRIGGER requests_enqueued AFTER INSERT ON requests
    FOR EACH ROW EXECUTE FUNCTION harvest_requests_enqueued();
DROP TRIGGER IF EXISTS requests_transition ON requests;
CREATE TRIGGER requests_transition AFTER UPDATE OF last_event ON requests
    FOR EACH ROW EXECUTE FUNCTION harvest_requests_transition();
""".replace("{notices}", ", ".join(f"'{e}'" for e in NOTICES))


def _a_version_2_state(url: str) -> dict[str, int]:
    """A database as version 2 left it: c1 with an ok case and a pending one, c2 with an ok case
    (rows written as the version 2 store wrote them); the row ids by key."""
    rows = [
        # key, court, status, created_at, updated_at
        ("case|c1|1", "c1", "ok", "2026-10-01T08:00:00.000Z", "2026-10-01T08:05:00.000Z"),
        ("case|c1|2", "c1", "pending", "2026-10-01T08:01:00.000Z", "2026-10-01T08:01:00.000Z"),
        ("case|c2|1", "c2", "ok", "2026-10-03T09:00:00.000Z", "2026-10-04T10:00:00.000Z"),
    ]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(V2_SCHEMA)
        conn.execute("INSERT INTO harvest_schema (version) VALUES (2)")
        ids = {}
        for key, court, status, created, updated in rows:
            row = conn.execute(
                "INSERT INTO requests (key, kind, court, status, priority, method, url, request, "
                "created_at, updated_at, run_id) VALUES (%s, 'case', %s, 'pending', 0, 'GET', "
                "%s, %s, %s, %s, 1) RETURNING id",
                (key, court, f"http://127.0.0.1/{key}", key.encode(), created, created),
            ).fetchone()
            assert row is not None
            ids[key] = int(row[0])
            if status == "ok":
                conn.execute(
                    "UPDATE requests SET status = 'ok', last_event = 'ok', updated_at = %s "
                    "WHERE id = %s",
                    (updated, row[0]),
                )
    return ids


def test_a_version_2_database_is_read_as_generation_0_and_upgraded_on_open(
    url: str, opened
) -> None:
    ids = _a_version_2_state(url)
    ro = opened(url, readonly=True)
    assert ro.generations() == []
    states = ro.row_states("c1", "case")
    assert [(r.key, r.status, r.generation, r.succeeded_at) for r in states] == [
        ("case|c1|1", "ok", 0, "2026-10-01T08:05:00.000Z"),
        ("case|c1|2", "pending", 0, None),
    ]  # fmt: skip
    with psycopg.connect(url) as conn:  # a read-only open changes nothing
        assert conn.execute("SELECT version FROM harvest_schema").fetchall() == [(2,)]

    s = opened(url)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT version FROM harvest_schema").fetchall() == [(3,)]
    assert [(g.court, g.number, g.policy, g.today, g.started_at, g.finished_at)
            for g in s.generations()] == [
        ("c1", 0, "initial", "2026-10-01", "2026-10-01T08:00:00.000Z", None),  # c1|2 pending
        ("c2", 0, "initial", "2026-10-03", "2026-10-03T09:00:00.000Z", "2026-10-04T10:00:00.000Z"),
    ]  # fmt: skip
    assert [(r.key, r.generation, r.succeeded_at) for r in s.row_states("c1", "case")] == [
        ("case|c1|1", 0, "2026-10-01T08:05:00.000Z"),  # its ok's time
        ("case|c1|2", 0, None),
    ]
    # the upgraded trigger names the generation of a renewal; the old row keeps its history
    rid = s.add(new("case|c2|1", court="c2", generation=1), 7)
    assert rid == ids["case|c2|1"]
    assert events_of(s, rid) == [("enqueued", ""), ("ok", ""), ("renewed", "generation 1")]
    assert s.add(new("case|c2|1", court="c2", generation=1), 7) is None
    # the rest of c1's first harvest finishes generation 0
    c = s.claim("c1", 7, busy_groups=[], held=[])
    assert c is not None
    assert c.key == "case|c1|2"
    assert s.finish(c.id, 7, ok=True)
    assert s.finish_generation_if_done("c1", 0) is True
    assert [g.finished for g in s.generations("c1")] == [True]
    # reopening an upgraded database changes nothing more
    again = opened(url)
    assert len(again.generations()) == 2
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT version FROM harvest_schema").fetchall() == [(3,)]


def test_two_workers_opening_a_version_2_database_at_once_upgrade_it_once(url: str) -> None:
    _a_version_2_state(url)
    start = threading.Barrier(4)
    stores: list[PostgresRequestStore] = []
    failures: list[StateError] = []

    def worker() -> None:
        start.wait()
        try:
            stores.append(PostgresRequestStore.open(url))
        except StateError as exc:
            failures.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    try:
        assert failures == []
        assert len(stores) == 4
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT version FROM harvest_schema").fetchall() == [(3,)]
            assert conn.execute(
                "SELECT court, generation FROM generations ORDER BY court"
            ).fetchall() == [("c1", 0), ("c2", 0)]
    finally:
        for store in stores:
            store.close()


def test_a_v2_upgrade_blocked_by_a_running_crawl_says_so_and_changes_nothing(url: str) -> None:
    _a_version_2_state(url)
    with psycopg.connect(url) as holder:  # an old crawl in the middle of a transaction
        holder.execute("UPDATE requests SET priority = 1 WHERE key = 'case|c1|2'")
        with pytest.raises(StateError) as info:
            PostgresRequestStore.open(url, busy_timeout=0.5)
        holder.rollback()
    message = str(info.value)
    assert "cannot upgrade the request state postgresql://harvest:***@" in message
    assert "to schema version 3" in message
    assert "Nothing was changed: let them finish (or stop them), then run again" in message
    assert _password(url) not in message
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT version FROM harvest_schema").fetchall() == [(2,)]
        assert conn.execute("SELECT to_regclass('generations')").fetchone() == (None,)


def _renewable(store: PostgresRequestStore, n: int) -> None:
    """``n`` case rows of c1 fetched (ok) in generation 0."""
    for i in range(n):
        store.add(new(f"case|c1|{i}"), 1)
    while (c := store.claim("c1", 1, busy_groups=[], held=[])) is not None:
        assert store.finish(c.id, 1, ok=True)


def test_two_stores_adding_the_same_keys_at_once_renew_each_row_once(url: str, opened) -> None:
    a, b = opened(url), opened(url)
    _renewable(a, 300)
    renewed: dict[str, list[int]] = {"a": [], "b": []}
    start = threading.Barrier(2)

    def worker(name: str, store: PostgresRequestStore) -> None:
        start.wait()
        for i in range(300):
            rid = store.add(new(f"case|c1|{i}", generation=1, blob=b"gen 1"), 2)
            if rid is not None:
                renewed[name].append(rid)

    threads = [threading.Thread(target=worker, args=(n, s)) for n, s in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    every = renewed["a"] + renewed["b"]
    assert len(every) == 300
    assert len(set(every)) == 300  # each row renewed by exactly one of them
    assert a.count(court="c1", status=Status.PENDING) == 300
    with psycopg.connect(url) as conn:
        assert conn.execute(
            "SELECT event, count(*) FROM events WHERE event = 'renewed' GROUP BY event"
        ).fetchall() == [("renewed", 300)]
        assert conn.execute(
            "SELECT generation, attempts, count(*) FROM requests GROUP BY generation, attempts"
        ).fetchall() == [(1, 0, 300)]


def test_a_renewal_waits_for_one_in_progress_and_then_is_a_duplicate(url: str, opened) -> None:
    """Store a renews a row in a group transaction not yet committed; store b adding the same
    key for the same generation waits for it, then sees it renewed: a duplicate, not a second
    renewal. A plain duplicate (same generation) waits for nothing."""
    commits: list[Callable[[], None]] = []
    a = opened(url, defer_commit=commits.append)
    b = opened(url, busy_timeout=10.0)
    _renewable(b, 2)
    assert a.add(new("case|c1|0", generation=1, blob=b"a's"), 2) == 1
    t0 = time.monotonic()
    assert b.add(new("case|c1|1"), 2) is None  # generation 0: a duplicate, at once
    assert time.monotonic() - t0 < 1.0
    got: list[int | None] = []
    adder = threading.Thread(
        target=lambda: got.append(b.add(new("case|c1|0", generation=1, blob=b"b's"), 3))
    )
    adder.start()
    adder.join(timeout=1.0)
    assert adder.is_alive()  # waiting for a's row lock
    commits.pop()()
    adder.join(timeout=10)
    assert got == [None]
    c = b.claim("c1", 3, busy_groups=[], held=[])
    assert c is not None
    assert (c.key, c.blob) == ("case|c1|0", b"a's")
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM events WHERE event = 'renewed'").fetchone() == (
            1,
        )
