"""Three scrapyd nodes, twelve courts, one PostgreSQL; one node killed mid-harvest.

What the README's "Many courts, many machines" tells an operator to do, on one machine: one
PostgreSQL database (tests/support/postgres.py), twelve replica courts (mixed variants, each
answer delayed ``--latency`` so the work is bound by politeness, not CPU), the courts registered
once with ``scrapy courts add``, three scrapyd instances (each its own directories, its own
workspace, the project deployed to each as ``scrapyd-deploy`` does), and one worker job per node
scheduled through its ``schedule.json`` with ``courts=registered`` and ``max_courts=2``.

``HARVEST_DATABASE_URL`` and ``HARVEST_LEASE_TTL`` are in the **environment of each scrapyd
process** (README): a ``schedule.json`` setting is logged by Scrapy ("Overridden settings") and
so would put the password into the job's log. The test checks no file of any node holds it.

Mid-harvest the first node's scrapyd is SIGKILLed together with its job (its process group): its
two courts' leases stop being renewed; the two other nodes take them over (``lease_takeover``
events, timed): at once, as the nodes share this host and the job's pid is gone, or once the
leases have expired, every court's ``scrapy export`` equals its ground
truth, and ``ship.py`` posts every document to the reference ingest API exactly once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from reference.sipp_site.testing import Replica, running_replica
from tests.support.harvest_run import exported, mismatches, run, scrapy_args, truth_by_key
from tests.support.ingest import FAST, run_ship, ship_env, start_server
from tests.support.paths import SCRAPY
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)
from tests.support.scrapyd import (
    add_version,
    answers,
    api,
    build_egg,
    copy_tracked,
    make_host,
    wait_finished,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

CASES = 8
VARIANTS = ("pn", "pa", "ptun", "militer")
#: twelve courts: (variant, court id), the variants mixed
COURTS = tuple(
    (VARIANTS[k % 4], f"{VARIANTS[k % 4]}-node{k + 1:02d}") for k in range(12)
)  # fmt: skip
TTL = 4.0
LATENCY = "0.2"
#: the job's settings (schedule.json ``setting=``): nothing secret
JOB_SETTINGS = {
    "CONCURRENT_REQUESTS": "16",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "2",
    "DOWNLOAD_DELAY": "0.1",
    "AUTOTHROTTLE_ENABLED": "False",
    "TELNETCONSOLE_ENABLED": "False",
    "DOWNLOAD_TIMEOUT": "10",
    "LOG_LEVEL": "INFO",
}


@dataclass(frozen=True)
class Node:
    name: str
    home: Path
    sock: Path
    proc: subprocess.Popen[bytes]  # scrapyd, leader of its own process group

    @property
    def job(self) -> str:
        return f"worker-{self.name}"

    def log(self) -> str:
        path = self.home / "logs" / "harvest" / "sipp" / f"{self.job}.log"
        return path.read_text(encoding="utf-8") if path.exists() else ""


@contextlib.contextmanager
def scrapyd_node(name: str, home: Path, python: Path, env: dict[str, str]) -> Iterator[Node]:
    """A scrapyd in ``home`` (its own session, so its job processes share its process group)."""
    home.mkdir(parents=True)
    sock = home / "scrapyd.sock"
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        f"http_port = 0\nunix_socket_path = {sock}\n"
        f"eggs_dir = {home}/eggs\nlogs_dir = {home}/logs\ndbs_dir = {home}/dbs\n"
        "items_dir =\njobs_dir =\npoll_interval = 0.5\nmax_proc = 1\n"
    )
    with (home / "scrapyd.out").open("ab") as out:
        proc = subprocess.Popen(
            [str(python), "-m", "scrapyd", f"--pidfile={home}/scrapyd.pid"],
            cwd=home,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until(lambda: answers(sock), timeout=60, what=f"scrapyd {name} answers", proc=proc)
        yield Node(name, home, sock, proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def query(url: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()  # type: ignore[arg-type]


def held_by(url: str, job: str) -> list[str]:
    rows = query(url, "SELECT court FROM court_leases WHERE job = %s ORDER BY court", (job,))
    return [c for (c,) in rows]


def schedule(node: Node) -> None:
    """README step 4: one worker, its settings (no secret) as ``setting=``."""
    form = [("project", "harvest"), ("spider", "sipp"), ("jobid", node.job)]
    form += [("courts", "registered"), ("max_courts", "2")]
    settings = {"HARVEST_WORKSPACE": str(node.home / "ws"), **JOB_SETTINGS}
    form += [("setting", f"{k}={v}") for k, v in settings.items()]
    answer = api(node.sock, "schedule.json", form)
    assert answer["status"] == "ok", answer


def utc(text: str) -> dt.datetime:
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)


@pytest.fixture
def url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue("pg_database"))


def test_three_nodes_share_twelve_courts_and_survive_a_killed_node(
    tmp_path: Path, url: str
) -> None:
    secret = urlsplit(url).password
    assert secret
    egg = build_egg(copy_tracked(_mkdir(tmp_path / "src")), tmp_path / "harvest.egg")
    python = make_host(_mkdir(tmp_path / "host"))
    env = {**os.environ, "HARVEST_DATABASE_URL": url, "HARVEST_LEASE_TTL": f"{TTL:g}"}
    env.pop("HARVEST_WORKSPACE", None)
    with contextlib.ExitStack() as stack:
        reps: dict[str, Replica] = {
            court: stack.enter_context(
                running_replica(
                    cases=CASES,
                    seed=60 + k,
                    variant=variant,
                    court_id=court,
                    extra_args=["--latency", LATENCY],
                )
            )
            for k, (variant, court) in enumerate(COURTS)
        }
        # README step 3: register the courts once
        listing = tmp_path / "courts.csv"
        rows = [f"{rep.url},{court}" for court, rep in reps.items()]
        listing.write_text("base_url,court_id\n" + "\n".join(rows) + "\n", encoding="utf-8")
        added = run(
            [*SCRAPY, "courts", "add", str(listing),
             *scrapy_args(tmp_path / "ws", {"HARVEST_DATABASE_URL": url})]
        )  # fmt: skip
        assert added.returncode == 0, added.stderr[-2000:]
        assert added.stdout == "12 courts added, 0 changed, 0 unchanged; 12 registered\n"

        doomed, *survivors = nodes = [
            stack.enter_context(scrapyd_node(name, tmp_path / name, python, env))
            for name in ("a", "b", "c")
        ]
        for node in nodes:
            add_version(node.sock, "r1", egg)
        t0 = time.monotonic()
        # node a first (it claims the first two courts), then b and c
        schedule(doomed)
        first = wait_until(
            lambda: len(got := held_by(url, doomed.job)) == 2 and got,
            timeout=120,
            what="node a's worker holds two courts",
        )
        assert first == sorted(c for _, c in COURTS[:2])
        for node in survivors:
            schedule(node)
        for node in survivors:
            wait_until(
                lambda node=node: len(held_by(url, node.job)) == 2,  # type: ignore[misc]
                timeout=120,
                what=f"node {node.name}'s worker holds two courts",
            )
        # node a's two courts are under way, not done
        wait_until(
            lambda: (
                query(
                    url,
                    "SELECT count(DISTINCT court) FROM requests WHERE status = 'ok' "
                    "AND court = ANY(%s)",
                    (first,),
                )
                == [(2,)]
            ),
            timeout=120,
            what="both courts of node a have pages done",
        )
        ((job_pid,),) = query(url, "SELECT DISTINCT pid FROM court_leases WHERE job = %s",
                              (doomed.job,))  # fmt: skip
        assert os.getpgid(job_pid) == doomed.proc.pid  # the job is in scrapyd's process group
        os.killpg(doomed.proc.pid, signal.SIGKILL)
        killed_at = dt.datetime.now(dt.UTC)
        doomed.proc.wait()
        wait_until(
            lambda: not Path(f"/proc/{job_pid}").exists() or "zombie" in _proc_state(job_pid),
            timeout=30,
            what="node a's job process is gone",
        )
        expiry = dict(query(url, "SELECT court, expires_at FROM court_leases WHERE job = %s",
                            (doomed.job,)))  # fmt: skip
        assert sorted(expiry) == first
        for node in survivors:
            wait_finished(node.sock, node.job, timeout=600)
        harvest_s = time.monotonic() - t0
        logs = {node.name: node.log() for node in survivors}
        for name, text in logs.items():
            assert "Spider closed (finished)" in text, (name, text[-3000:])

        # every court's export equals its ground truth
        for court, rep in reps.items():
            truth = truth_by_key(rep.write_truth(tmp_path / f"truth-{court}.jsonl"))
            got = exported(tmp_path / "ws", "--court", court, "-s", f"HARVEST_DATABASE_URL={url}")
            assert mismatches(got, truth) == {}, court
            assert len(got) == CASES, court

    # the runs: node a's two courts killed and finished by a survivor; the others once each
    survivor_pids = {
        pid
        for (pid,) in query(url, "SELECT DISTINCT pid FROM runs WHERE job <> %s", (doomed.job,))
    }
    assert len(survivor_pids) == 2
    runs = query(url, "SELECT court, close_reason, pid, job, ended_at FROM runs ORDER BY id")
    for _, court in COURTS:
        mine = [(r, pid, job) for c, r, pid, job, _ in runs if c == court]
        if court in first:
            assert [r for r, _, _ in mine] == ["killed", "finished"], (court, mine)
            assert mine[0][1:] == (job_pid, doomed.job)
            assert mine[1][1] in survivor_pids
        else:
            assert [r for r, _, _ in mine] == ["finished"], (court, mine)
            assert mine[0][1] in survivor_pids
    assert {job for *_, job, _ in runs} == {node.job for node in nodes}
    assert query(url, "SELECT count(*) FROM court_leases") == [(0,)]
    assert query(url, "SELECT DISTINCT status FROM requests") == [("ok",)]

    # the takeovers: one per court of node a, each at the survivors' next try (every TTL/3 s)
    # once its holder is known dead (same host) or its lease has expired: a worker whose slots
    # are all busy still takes over a court whose crawl is gone (beyond max_courts:
    # docs/multi-court.md), so no dead node's court waits for a free slot
    takeovers = query(
        url, "SELECT at, detail FROM events WHERE event = 'lease_takeover' ORDER BY id"
    )
    assert len(takeovers) == 2
    delays: dict[str, float] = {}
    for at_text, detail in takeovers:
        court = next(c for c in first if detail.startswith(f"court {c}: "))
        assert f"lease of pid {job_pid} " in detail
        assert f"job {doomed.job} " in detail
        at = utc(at_text)
        assert (expiry[court] - killed_at).total_seconds() <= TTL
        if "was held by a dead process (" in detail:
            # the nodes share this host: a survivor knows node a's job is dead (its pid is
            # gone here) and takes over at its next try, without waiting out the lease
            assert at >= killed_at, (court, at, killed_at)
            assert at <= killed_at + dt.timedelta(seconds=TTL / 3 + 3), (court, at)
        else:
            # taken over once expired: never before (the event's time is read just before the
            # statement that finds the lease expired: 0.1 s of leeway)
            assert "expired at " in detail, detail
            assert at >= expiry[court] - dt.timedelta(seconds=0.1), (court, at, expiry[court])
            assert at <= expiry[court] + dt.timedelta(seconds=TTL / 3 + 3), (court, at)
        delays[court] = (at - killed_at).total_seconds()

    # ship.py from any node (here node b's workspace): every document posted exactly once
    ship_ws = survivors[0].home / "ws"
    server = start_server(tmp_path / "ingest.sqlite")
    try:
        ship = ship_env(HARVEST_DATABASE_URL=url)
        shipped = run_ship(ship_ws, "--endpoint", server.url, *FAST, env=ship)
        assert shipped.returncode == 0, shipped.stderr
        total = CASES * len(COURTS)
        assert shipped.stdout.startswith(f"shipped {total} (created {total}, updated 0)")
        created = Counter(k for k, r in server.log_results() if r == "created")
        assert len(created) == total
        assert set(created.values()) == {1}
        assert len(server.rows()) == total
        posts = server.stats()["posts"]
        again = run_ship(ship_ws, "--endpoint", server.url, *FAST, env=ship)
        assert again.returncode == 0, again.stderr
        assert f"skipped {total}" in again.stdout
        assert server.stats()["posts"] == posts
    finally:
        server.stop()

    # the password: in no file of any node (scrapyd's output, job logs, workspace)
    for node in nodes:
        for path in node.home.rglob("*"):
            if path.is_file() and not path.is_socket():
                assert secret.encode() not in path.read_bytes(), path
    print(
        f"\nnodes: harvest {harvest_s:.1f} s; takeover after the kill: "
        + ", ".join(f"{c} {k:.1f} s" for c, k in delays.items())
    )  # fmt: skip


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


def _proc_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:", 1)[1].split("\n", 1)[0]
    except (OSError, IndexError):
        return "zombie"
