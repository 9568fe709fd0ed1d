"""The request state and the item store on PostgreSQL, end to end as a user runs it: a crawl of
the replica through faults, ``scrapy status`` (text and ``--json``), ``scrapy requeue``, more
crawls until done, ``scrapy export`` equal to the replica's truth, ``ship.py`` posting every
document once to the reference ingest API. Nothing of either store is in the workspace, and
the database password is in no output, log or ship-log."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from extensions.pg_store import PostgresRequestStore
from extensions.state_queries import reason_group
from extensions.store import RunInfo
from harvest.base.dburl import url_password
from harvest.base.scrubbing import redact_url
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    run,
    scrapy_command,
    truth_by_key,
)
from tests.support.ingest import FAST, log_lines, run_ship, ship_env, start_server
from tests.support.paths import SCRAPY
from tests.support.postgres import PostgresServer, pg_database, pg_server  # noqa: F401

pytestmark = pytest.mark.slow

COURT = "pn-replika"
CASES = 12


def _sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return [tuple(row) for row in conn.execute(query, params)]  # type: ignore[arg-type]


def _db(url: str) -> list[str]:
    return ["-s", f"HARVEST_DATABASE_URL={url}"]


@pytest.fixture(scope="module")
def database(pg_server: PostgresServer) -> Iterator[str]:  # noqa: F811
    name = pg_server.create_database()
    try:
        yield pg_server.url(name)
    finally:
        pg_server.drop_database(name)


def test_crawl_status_requeue_export_and_ship_on_postgres(database: str, tmp_path: Path) -> None:
    url = database
    secret = url_password(url)
    assert secret
    ws = tmp_path / "ws"
    outputs: list[str] = []
    with running_replica(
        cases=CASES, seed=11, court_id=COURT, faults=0.08, fault_seed=3
    ) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        first = crawl(
            replica.url, COURT, ws, settings={"RETRY_TIMES": "0", "HARVEST_DATABASE_URL": url}
        )
        outputs.append(first.stderr)
        assert first.returncode == 3, first.stderr[-3000:]  # finished with failed requests

        # status --json: the counts are those of the database
        errors = _sql(url, "SELECT last_error FROM requests WHERE status = 'error'")
        assert errors, "the faults left no failed request: pick another fault seed"
        by_status = dict(_sql(url, "SELECT status, count(*) FROM requests GROUP BY status"))
        status = scrapy_command("status", ws, "--json", "--limit", "50", *_db(url))
        outputs += [status.stdout, status.stderr]
        assert status.returncode == 0, status.stderr
        doc = json.loads(status.stdout)
        assert doc["state"] == redact_url(url)
        (court,) = doc["courts"]
        assert (court["court"], court["ok"], court["error"]) == (
            COURT,
            by_status.get("ok", 0),
            by_status["error"],
        )
        assert court["waiting"] == by_status.get("pending", 0) + by_status.get("inflight", 0)
        groups = {g["reason"]: g["count"] for g in doc["error_groups"]}
        assert groups == dict(Counter(reason_group(r) for (r,) in errors))
        assert doc["runs"][0]["state"] == "ended"  # the lease was given up at the end
        assert doc["parts"] == {"missing": 0, "items": "present", "sample": []}
        # the text form: the same numbers
        text = scrapy_command("status", ws, "--limit", "50", *_db(url))
        outputs += [text.stdout, text.stderr]
        assert text.returncode == 0, text.stderr
        assert f"request state: {redact_url(url)}" in text.stdout
        assert re.search(
            rf"^  {COURT}: {court['cases_complete']}/{court['cases_known']} complete",
            text.stdout,
            re.MULTILINE,
        )
        for reason, count in groups.items():
            assert re.search(rf"^\s+{count}  {re.escape(reason)}  \[", text.stdout, re.MULTILINE)

        # requeue: every failed request back to pending, then crawl until nothing fails
        requeue = scrapy_command("requeue", ws, *_db(url))
        outputs += [requeue.stdout, requeue.stderr]
        assert requeue.returncode == 0, requeue.stderr
        n = by_status["error"]
        assert requeue.stdout == f"requeued {n} failed request{'s' if n != 1 else ''} to pending\n"
        assert _sql(url, "SELECT count(*) FROM requests WHERE status = 'error'") == [(0,)]
        for _ in range(8):
            again = crawl(replica.url, COURT, ws, settings={"HARVEST_DATABASE_URL": url})
            outputs.append(again.stderr)
            assert again.returncode in (0, 3), again.stderr[-3000:]
            if again.returncode == 0:
                break
            assert scrapy_command("requeue", ws, *_db(url)).returncode == 0
        assert again.returncode == 0

        # a part lost from the item store: the next crawl's cross-check (in the database)
        # finds it missing and rebuilds it from the page archive first: nothing is fetched
        (key, part) = _sql(url, "SELECT dedupe_key, part FROM parts WHERE part <> 'case' LIMIT 1")[
            0
        ]
        with psycopg.connect(url) as conn:
            conn.execute("DELETE FROM parts WHERE dedupe_key = %s AND part = %s", (key, part))
        exchanges = _sql(url, "SELECT count(*) FROM url_log")
        healed = crawl(replica.url, COURT, ws, settings={"HARVEST_DATABASE_URL": url})
        outputs.append(healed.stderr)
        assert healed.returncode == 0, healed.stderr[-3000:]
        assert re.search(
            rf"rebuilt [1-9]\d* parts of {COURT} from the page archive", healed.stderr
        )
        assert _sql(url, "SELECT count(*) FROM url_log") == exchanges
        released = _sql(url, "SELECT detail FROM events WHERE event = 'released'")
        assert not [d for (d,) in released if key in d]
        assert _sql(
            url, "SELECT count(*) FROM parts WHERE dedupe_key = %s AND part = %s", (key, part)
        ) == [(1,)]

    # export: the replica's truth, read from the database
    assert mismatches(exported(ws, *_db(url)), truth) == {}
    assert len(truth) == CASES
    assert not (ws / "items.sqlite").exists()
    assert not (ws / "state.sqlite").exists()
    assert _sql(url, "SELECT count(*), sum(complete) FROM cases") == [(CASES, CASES)]
    page = tmp_path / "status.html"
    html = scrapy_command("status", ws, "--html", str(page), *_db(url))
    assert html.returncode == 0, html.stderr
    assert COURT in page.read_text(encoding="utf-8")
    final = json.loads(scrapy_command("status", ws, "--json", *_db(url)).stdout)
    assert (final["courts"][0]["cases_complete"], final["courts"][0]["error"]) == (CASES, 0)
    assert final["parts"]["missing"] == 0

    # ship.py: every document posted once (the ship-log stays in the workspace)
    server = start_server(tmp_path / "ingest.sqlite")
    try:
        env = ship_env(HARVEST_DATABASE_URL=url)
        shipped = run_ship(ws, "--endpoint", server.url, *FAST, env=env)
        outputs += [shipped.stdout, shipped.stderr]
        assert shipped.returncode == 0, shipped.stderr
        assert shipped.stdout.startswith(f"shipped {CASES} (created {CASES}, updated 0)")
        versions = dict(_sql(url, "SELECT dedupe_key, updated_at FROM cases"))
        rows = server.rows()
        assert set(rows) == set(truth) == set(versions)
        created = Counter(k for k, r in server.log_results() if r == "created")
        assert set(created.values()) == {1}
        assert len(created) == CASES
        posts = server.stats()["posts"]
        again_ship = run_ship(ws, "--endpoint", server.url, *FAST, env=env)
        outputs += [again_ship.stdout, again_ship.stderr]
        assert again_ship.returncode == 0, again_ship.stderr
        assert f"skipped {CASES}" in again_ship.stdout
        assert server.stats()["posts"] == posts  # nothing posted twice
    finally:
        server.stop()
    ship_log = (ws / "ship-log.jsonl").read_text(encoding="utf-8")
    assert len(log_lines(ws)) >= CASES

    # the password: in no output, no log, no file of the workspace
    for text_out in [*outputs, ship_log]:
        assert secret not in text_out
    for path in ws.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_reparse_rebuilds_the_items_in_the_database_from_the_archive(
    pg_database: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The archive stays in the workspace, the items are in the database: with the item tables
    emptied, ``scrapy reparse`` rebuilds every part there without the court."""
    url = pg_database
    ws = tmp_path / "ws"
    with running_replica(cases=6, seed=4, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        done = crawl(replica.url, COURT, ws, settings={"HARVEST_DATABASE_URL": url})
    assert done.returncode == 0, done.stderr[-3000:]
    (parts,) = _sql(url, "SELECT count(*) FROM parts")[0]
    with psycopg.connect(url) as conn:
        conn.execute("DELETE FROM parts")
        conn.execute("DELETE FROM cases")
    reparse = [*SCRAPY, "reparse", "-s", f"HARVEST_WORKSPACE={ws}", *_db(url)]
    # a crawl of the court (on any machine) holds its lease: the reparse refuses to race it
    crawling = PostgresRequestStore.open(url)
    crawling.acquire_crawl_lock(RunInfo(COURT, "sipp", 4242, "node-b", "job-7", "t0"))
    try:
        refused = run(reparse, timeout=300)
    finally:
        crawling.close()
    assert refused.returncode == 1
    assert f"court {COURT!r} is being crawled" in refused.stderr
    assert "node-b" in refused.stderr
    assert _sql(url, "SELECT count(*) FROM parts") == [(0,)]
    rebuilt = run(reparse, timeout=300)
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    assert rebuilt.stdout.rstrip().endswith(
        f"{parts} created, 0 unchanged, 0 updated, 0 failed"
    ), rebuilt.stdout
    assert mismatches(exported(ws, *_db(url)), truth) == {}
    assert not (ws / "items.sqlite").exists()
    assert _sql(url, "SELECT count(*) FROM court_leases") == [(0,)]  # given up at its end
