"""The kept counts (extensions/state_counts.py) equal the grouping queries they replace: on
random transitions of both backends, on crawled states (faults, requeue, resume, a refresh of
every case, reparse), after concurrent writers and folds on PostgreSQL, and after an upgrade of
a state written before them (filled once from its rows)."""

from __future__ import annotations

import random
import sqlite3
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest

from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SqliteRequestStore
from extensions.state_counts import case_totals, ensure_sqlite, fold_postgres, old_case_totals
from extensions.state_queries import StateReader, connect_readonly, court_progress
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, scrapy_command
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)

STATUSES = ("pending", "inflight", "ok", "error")
_INSERT = (
    "INSERT INTO requests (key, kind, court, group_key, status, priority, method, url, request, "
    "created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 'GET', 'http://x/', ?, 't', 't')"
)


class _Db:
    """Write SQL to either backend (``?`` placeholders)."""

    def __init__(self, conn: Any, pg: bool, close: Any) -> None:
        self.conn, self.pg = conn, pg
        close(conn)

    def run(self, sql: str, params: Any = ()) -> list[Any]:
        if self.pg:
            if params:
                sql = sql.replace("%", "%%").replace("?", "%s")
            cur = self.conn.execute(sql, params or None)
        else:
            cur = self.conn.execute(sql, params)
        return cur.fetchall() if cur.description else []


@pytest.fixture
def closing() -> Any:
    """Connections opened by a test, closed after it."""
    opened: list[Any] = []
    yield opened.append
    for conn in opened:
        conn.close()


def _request_counts(db: _Db) -> list[tuple[str, str, str, int]]:
    return sorted(
        (str(c), str(k), str(s), int(n))
        for c, k, s, n in db.run("SELECT court, kind, status, n FROM request_counts WHERE n <> 0")
    )


def _grouped(db: _Db) -> list[tuple[str, str, str, int]]:
    return sorted(
        (str(c), str(k), str(s), int(n))
        for c, k, s, n in db.run(
            "SELECT court, kind, status, count(*) FROM requests GROUP BY court, kind, status"
        )
    )


def _assert_exact(db: _Db, reader: StateReader) -> dict[str, tuple[int, int]]:
    got = case_totals(reader)
    assert got == old_case_totals(reader)
    assert _request_counts(db) == _grouped(db)
    for court in got:
        assert case_totals(reader, [court]) == {court: got[court]}
    return got


def _fill_random(db: _Db, rng: random.Random, start: int = 0) -> int:
    i = start
    blob = b"\x00"
    for court in ("pn-a", "pa-b"):
        for g in range(120):
            kinds = ["case"] + ["tab"] * rng.randint(0, 3) if rng.random() > 0.1 else ["tab"]
            for kind in kinds:
                i += 1
                db.run(_INSERT, (f"k{i}", kind, court, f"{court}|{g}", rng.choice(STATUSES), blob))
        i += 1
        db.run(_INSERT, (f"list{i}", "list", court, None, "ok", blob))
    return i


def _transitions(db: _Db, reader: StateReader, rng: random.Random, *, fold: bool) -> None:
    for step in range(12):
        status = rng.choice(STATUSES)
        db.run(
            "UPDATE requests SET status = ? WHERE id IN "
            "(SELECT id FROM requests ORDER BY random() LIMIT 40)",
            (status,),
        )
        if fold and step % 3 == 2:
            fold_postgres(db.conn, ["pn-a"] if step % 2 else None)
        _assert_exact(db, reader)
    db.run("UPDATE requests SET status = 'ok'")
    got = _assert_exact(db, reader)
    assert all(known == complete for known, complete in got.values())
    db.run("DELETE FROM requests WHERE id % 5 = 0")
    _assert_exact(db, reader)


def test_sqlite_counts_follow_every_transition(tmp_path: Path, closing: Any) -> None:
    path = tmp_path / "state.sqlite"
    SqliteRequestStore.open(path).close()
    db = _Db(sqlite3.connect(path, isolation_level=None), pg=False, close=closing)
    reader = connect_readonly(path)
    closing(reader)
    rng = random.Random(7)
    _fill_random(db, rng)
    first = _assert_exact(db, reader)
    assert set(first) == {"pn-a", "pa-b"}
    _transitions(db, reader, rng, fold=False)


def test_postgres_counts_follow_every_transition_before_and_after_folds(
    pg_database: str,  # noqa: F811
    closing: Any,
) -> None:
    PostgresRequestStore.open(pg_database).close()
    db = _Db(psycopg.connect(pg_database, autocommit=True), pg=True, close=closing)
    reader = connect_readonly(pg_database)
    closing(reader)
    rng = random.Random(7)
    _fill_random(db, rng)
    _assert_exact(db, reader)
    _transitions(db, reader, rng, fold=True)
    fold_postgres(db.conn, None)
    assert db.run("SELECT count(*) FROM case_count_deltas") == [(0,)]
    assert db.run("SELECT count(*) FROM request_count_deltas") == [(0,)]
    _assert_exact(db, reader)


def test_postgres_concurrent_writers_and_folds_stay_exact(
    pg_database: str,  # noqa: F811
    closing: Any,
) -> None:
    PostgresRequestStore.open(pg_database).close()
    seed = _Db(psycopg.connect(pg_database, autocommit=True), pg=True, close=closing)
    _fill_random(seed, random.Random(3))
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            db = _Db(psycopg.connect(pg_database, autocommit=True), pg=True, close=closing)
            rng = random.Random(n)
            for step in range(40):
                db.run(
                    "UPDATE requests SET status = ? WHERE id IN "
                    "(SELECT id FROM requests WHERE id % 4 = ? ORDER BY random() LIMIT 10)",
                    (rng.choice(STATUSES), n),
                )
                if step % 5 == 0:
                    fold_postgres(db.conn, None)
        except (psycopg.Error, AssertionError) as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    reader = connect_readonly(pg_database)
    closing(reader)
    _assert_exact(seed, reader)
    fold_postgres(seed.conn, None)
    _assert_exact(seed, reader)


def test_sqlite_upgrade_fills_the_counts_of_an_older_state_once(
    tmp_path: Path, closing: Any
) -> None:
    path = tmp_path / "state.sqlite"
    SqliteRequestStore.open(path).close()
    db = _Db(sqlite3.connect(path, isolation_level=None), pg=False, close=closing)
    _fill_random(db, random.Random(11))
    reader = connect_readonly(path)
    closing(reader)
    expected = old_case_totals(reader)
    # the state as code before the counts wrote it: no case tables, views or triggers
    for name in ("requests_case_insert", "requests_case_update", "requests_case_delete",
                 "case_counts_insert", "case_counts_update"):  # fmt: skip
        db.run(f"DROP TRIGGER {name}")
    db.run("DROP VIEW case_progress")
    db.run("DROP TABLE case_groups")
    db.run("DROP TABLE case_counts")
    db.run("UPDATE requests SET status = 'ok' WHERE id % 3 = 0")  # changed while uncounted
    expected = old_case_totals(reader)
    assert case_totals(reader) == expected  # read-only, not upgraded: grouped
    SqliteRequestStore.open(path).close()  # the upgrade
    assert case_totals(reader) == expected
    assert int(db.run("SELECT count(*) FROM case_groups")[0][0]) == 2
    assert ensure_sqlite(db.conn) is None  # once
    db.run("UPDATE requests SET status = 'pending' WHERE id % 7 = 0")
    _assert_exact(db, reader)


def test_postgres_upgrade_fills_the_counts_of_an_older_state_once(
    pg_database: str,  # noqa: F811
    closing: Any,
) -> None:
    PostgresRequestStore.open(pg_database).close()
    db = _Db(psycopg.connect(pg_database, autocommit=True), pg=True, close=closing)
    _fill_random(db, random.Random(11))
    # the database as code before the counts wrote it
    db.run(
        "DROP TRIGGER requests_count_insert ON requests; "
        "DROP TRIGGER requests_count_update ON requests; "
        "DROP TRIGGER requests_count_delete ON requests; "
        "DROP FUNCTION harvest_fold_counts(text[]); DROP VIEW case_progress; "
        "DROP VIEW request_counts; DROP TABLE request_count_totals, request_count_deltas, "
        "case_counts, case_groups, case_count_deltas; "
        "CREATE VIEW request_counts AS SELECT court, kind, status, count(*) AS n "
        "FROM requests GROUP BY court, kind, status"
    )
    db.run("UPDATE requests SET status = 'ok' WHERE id % 3 = 0")
    reader = connect_readonly(pg_database)
    closing(reader)
    expected = old_case_totals(reader)
    assert case_totals(reader) == expected  # not upgraded: grouped
    PostgresRequestStore.open(pg_database).close()  # the upgrade
    assert db.run("SELECT count(*) FROM case_count_deltas") == [(0,)]
    assert case_totals(reader) == expected
    _assert_exact(db, reader)
    db.run("UPDATE requests SET status = 'error' WHERE id % 7 = 0")
    _assert_exact(db, reader)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_counts_equal_the_grouping_on_crawled_states(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, closing: Any
) -> None:
    ws = tmp_path / "ws"
    settings = {"RETRY_TIMES": "0", "HARVEST_ARCHIVE": "True"}
    if backend == "postgres":
        url = str(request.getfixturevalue("pg_database"))
        settings["HARVEST_DATABASE_URL"] = url
        db = _Db(psycopg.connect(url, autocommit=True), pg=True, close=closing)
        reader: StateReader = connect_readonly(url)
        closing(reader)
        db_args = ["-s", f"HARVEST_DATABASE_URL={url}"]
    else:
        db_args = []
    court = "pn-counts"
    with running_replica(cases=14, seed=5, court_id=court, faults=0.1, fault_seed=4) as rep:
        first = crawl(rep.url, court, ws, settings=settings)
        assert first.returncode == 3, first.stderr[-3000:]  # finished with failed requests
        if backend == "sqlite":
            db = _Db(
                sqlite3.connect(ws / "state.sqlite", isolation_level=None), pg=False, close=closing
            )
            reader = connect_readonly(ws / "state.sqlite")
            closing(reader)
        failed = _assert_exact(db, reader)
        assert failed[court][0] == 14
        assert failed[court][1] < 14
        (progress,) = court_progress(reader, court)
        assert (progress.cases_known, progress.cases_complete) == failed[court]
        assert scrapy_command("requeue", ws, *db_args).returncode == 0
        assert db.run("SELECT count(*) FROM requests WHERE status = 'error'") == [(0,)]
        requeued = _assert_exact(db, reader)
        assert requeued[court][1] <= failed[court][1]
        clean = {k: v for k, v in settings.items() if k != "RETRY_TIMES"}

        def until_clean(spider_args: dict[str, str] | None = None) -> None:
            """Crawl (the faults go on), requeue what failed, until a crawl ends clean."""
            for _ in range(8):
                again = crawl(rep.url, court, ws, spider_args=spider_args, settings=clean)
                assert again.returncode in (0, 3), again.stderr[-3000:]
                _assert_exact(db, reader)
                if again.returncode == 0:
                    return
                assert scrapy_command("requeue", ws, *db_args).returncode == 0
                _assert_exact(db, reader)
                spider_args = None  # the refresh generation is begun: resume it
            pytest.fail("8 crawls did not end without failed requests")

        until_clean()
        assert _assert_exact(db, reader) == {court: (14, 14)}
        until_clean({"refresh": "all"})
        assert db.run("SELECT max(generation) FROM requests") == [(1,)]
        assert _assert_exact(db, reader) == {court: (14, 14)}
    reparse = scrapy_command("reparse", ws, "--court", court, *db_args)
    assert reparse.returncode == 0, reparse.stderr[-3000:]
    assert _assert_exact(db, reader) == {court: (14, 14)}
