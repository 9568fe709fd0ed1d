"""A lease whose holder is known dead on this very host is taken over at once, not after its
TTL (issue 24): the pid is gone, or it now names another process (reused). A lease held from
another host, or by a live process of this host, is refused, and the refusal says where that
crawl is instead of "on this workspace". A real server: tests/support/postgres.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest

from extensions.pg_store import PostgresRequestStore
from extensions.store import CrawlLocked, RunInfo, Status
from harvest.base.liveness import holder_state, process_identity
from tests.support.paths import REPO

HOST = socket.gethostname()
ME = RunInfo(court="c1", spider="sipp", pid=os.getpid(), host=HOST, job="job-new", started_at="t1")


@pytest.fixture
def url(pg_database: str) -> str:
    return pg_database


@pytest.fixture
def opened() -> Iterator[Callable[..., PostgresRequestStore]]:
    stores: list[PostgresRequestStore] = []

    def open_(url: str, **kw: object) -> PostgresRequestStore:
        store = PostgresRequestStore.open(url, **kw)  # type: ignore[arg-type]
        stores.append(store)
        return store

    yield open_
    for store in reversed(stores):
        store.close()


def _holder_process(url: str, *, ttl: float) -> subprocess.Popen[str]:
    """A worker of this host holding court c1 (a long TTL) with one row in flight."""
    script = (
        "import os, socket, time\n"
        "from extensions.pg_store import PostgresRequestStore\n"
        "from extensions.store import RunInfo\n"
        "from tests.support.store import new\n"
        f"s = PostgresRequestStore.open({url!r}, lease_ttl={ttl}, heartbeat_interval=0.3)\n"
        "run = RunInfo('c1', 'sipp', os.getpid(), socket.gethostname(), 'job-old', 't0')\n"
        "s.acquire_crawl_lock(run)\n"
        "rid, _ = s.start_run(run)\n"
        "s.add(new('case|c1|1'), rid)\n"
        "s.claim('c1', rid, busy_groups=[], held=[])\n"
        "print('holding', flush=True)\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "holding"
    return proc


def test_a_holder_killed_on_this_host_is_taken_over_at_once(url: str, opened) -> None:
    holder = _holder_process(url, ttl=600)
    try:
        s = opened(url)
        with pytest.raises(CrawlLocked) as info:  # alive: refused, and said where it runs
            s.acquire_crawl_lock(ME)
        message = str(info.value)
        assert "is already being crawled by another process on this host sharing the request" in (
            message
        )
        assert "on this workspace" not in message
        assert f"pid {holder.pid}" in message
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    t0 = time.monotonic()
    s.acquire_crawl_lock(ME)  # the lease has ~600 s left: taken over because its pid is gone
    assert time.monotonic() - t0 < 5.0
    assert s.count(court="c1", status=Status.PENDING) == 1
    assert s.count(status=Status.INFLIGHT) == 0
    with psycopg.connect(url) as conn:
        ((detail,),) = conn.execute(
            "SELECT detail FROM events WHERE event = 'lease_takeover'"
        ).fetchall()
        lease = conn.execute("SELECT pid, job, proc_start FROM court_leases").fetchall()
    assert f"lease of pid {holder.pid} host {HOST} job job-old run 1 was held by a dead " in detail
    assert f"pid {holder.pid} is gone on this host" in detail
    assert "1 requests in flight sent back to pending" in detail
    assert lease == [(os.getpid(), "job-new", process_identity())]


def _plant_lease(url: str, *, pid: int, host: str, identity: str | None, ttl: float) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO court_leases (court, holder, pid, host, job, started_at, acquired_at, "
            "heartbeat_at, expires_at, proc_start) VALUES ('c1', 'someone-else', %s, %s, "
            "'job-old', 't0', now(), now(), now() + make_interval(secs => %s), %s)",
            (pid, host, ttl, identity),
        )


def test_a_holder_whose_pid_was_reused_is_taken_over_at_once(url: str, opened) -> None:
    s = opened(url)  # creates the schema
    mine = process_identity()
    assert mine is not None
    boot, _, ticks = mine.partition(":")
    # this very pid, but recorded with another start time: the holder died, its pid was reused
    _plant_lease(url, pid=os.getpid(), host=HOST, identity=f"{boot}:{int(ticks) - 7}", ttl=600)
    s.acquire_crawl_lock(ME)
    with psycopg.connect(url) as conn:
        ((detail,),) = conn.execute(
            "SELECT detail FROM events WHERE event = 'lease_takeover'"
        ).fetchall()
    assert f"pid {os.getpid()} on this host is now another process" in detail


@pytest.mark.parametrize(
    ("host", "identity", "where"),
    [
        # another node: never judged from here, whatever its pid is here
        ("node-b", "boot:1", "from host node-b (another node or workspace sharing"),
        # this host name, but another boot (or another machine of the same name): not judged
        (HOST, "another-boot:1", f"from host {HOST} (another node or workspace sharing"),
        # a lease taken by older code (no identity): waits for its TTL as before
        (HOST, None, f"from host {HOST} (another node or workspace sharing"),
    ],
)
def test_a_holder_not_known_dead_keeps_its_lease(
    url: str, opened, host: str, identity: str | None, where: str
) -> None:
    s = opened(url)
    gone = _a_dead_pid()
    _plant_lease(url, pid=gone, host=host, identity=identity, ttl=600)
    with pytest.raises(CrawlLocked) as info:
        s.acquire_crawl_lock(ME)
    message = str(info.value)
    assert f"court 'c1' is already being crawled {where}" in message
    assert "on this workspace" not in message


def _a_dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_holder_state_judges_only_this_host_and_boot() -> None:
    mine = process_identity()
    assert mine is not None
    assert not holder_state(HOST, os.getpid(), mine).dead
    assert holder_state(HOST, os.getpid(), mine).same_host
    dead = _a_dead_pid()
    boot = mine.partition(":")[0]
    state = holder_state(HOST, dead, f"{boot}:1")
    assert (state.dead, state.why) == (True, f"pid {dead} is gone on this host")
    assert not holder_state("elsewhere", dead, f"{boot}:1").dead
    assert not holder_state(HOST, dead, None).dead
