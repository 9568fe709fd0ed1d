"""The two stores check each other (issue 11, findings 2 and 9): ok requests whose parts are
missing from items.sqlite go back to pending; a damaged state is refused with a recovery path."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from extensions.memory_store import MemoryRequestStore
from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SqliteRequestStore
from extensions.store import NewRequest, StateError, Status
from pipelines.store import ItemStore, ItemStoreError
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    scrapy_command,
    state_query,
    truth_by_key,
)
from tests.support.missing_parts import N1, N2, fill_requests, run_info, store_two_parts
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)

COURT = "pn-replika"


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "sqlite":
        s = SqliteRequestStore.open(tmp_path / "state.sqlite")
    elif request.param == "postgres":
        s = PostgresRequestStore.open(request.getfixturevalue("pg_database"))
    else:
        s = MemoryRequestStore.open(tmp_path / f"memory-{id(request)}")
    yield s
    s.close()


def test_ok_rows_whose_parts_are_missing_are_found_and_sent_back(store, tmp_path: Path) -> None:
    fill_requests(store)
    items = store_two_parts(tmp_path / "items.sqlite", store)
    check = store.check_parts(items, court="pn-a")
    assert check.items == "present"
    assert check.sample == [
        (f"tab|pn-a|{N1}|jadwal_sidang", "tab:jadwal_sidang"),
        (f"case|pn-a|{N2}", "case"),
    ]
    assert check.missing == 2
    assert store.count(court="pn-a", status=Status.OK) == 5  # a check alone changes nothing

    reset = store.check_parts(items, court="pn-a", reset_run=7)
    assert reset.missing == 2
    assert store.count(court="pn-a", status=Status.OK) == 3
    assert store.count(court="pn-a", status=Status.PENDING) == 3
    assert store.check_parts(items, court="pn-a").missing == 0
    assert store.check_parts(items).missing == 0  # every court (pn-b: its case is pending)


def test_a_lost_item_store_sends_back_every_ok_case_and_tab(store, tmp_path: Path) -> None:
    fill_requests(store)
    missing = tmp_path / "gone" / "items.sqlite"
    check = store.check_parts(missing, court="pn-a", reset_run=2)
    assert (check.missing, check.items) == (4, "missing")
    assert not missing.exists()  # the check never creates the file
    assert store.count(court="pn-a", status=Status.OK) == 1  # the list page: it has no part


def test_the_reset_is_an_audit_event_naming_the_part(tmp_path: Path) -> None:
    store = SqliteRequestStore.open(tmp_path / "state.sqlite")
    ids = fill_requests(store)
    store.check_parts(store_two_parts(tmp_path / "items.sqlite"), court="pn-a", reset_run=1)
    store.close()
    con = sqlite3.connect(tmp_path / "state.sqlite")
    events = con.execute(
        "SELECT request_id, event, detail FROM events WHERE event = 'released' ORDER BY id"
    ).fetchall()
    assert events == [
        (
            ids[f"tab|pn-a|{N1}|jadwal_sidang"],
            "released",
            (
                f"was ok, but its part tab:jadwal_sidang of sipp.pn-a:{N1} is missing from "
                "items.sqlite: fetched again"
            ),
        ),
        (
            ids[f"case|pn-a|{N2}"],
            "released",
            (
                f"was ok, but its part case of sipp.pn-a:{N2} is missing from items.sqlite: "
                "fetched again"
            ),
        ),
    ]


def test_a_damaged_item_store_is_named_with_a_remedy_that_loses_nothing(tmp_path: Path) -> None:
    store = SqliteRequestStore.open(tmp_path / "state.sqlite")
    fill_requests(store)
    bad = tmp_path / "items.sqlite"
    bad.write_bytes(b"not a database at all\n" * 200)
    with pytest.raises(StateError, match=r"move it aside with its -wal/-shm files") as caught:
        store.check_parts(bad, court="pn-a", reset_run=1)
    assert "every one whose parts are missing is fetched again" in str(caught.value)
    assert store.count(court="pn-a", status=Status.OK) == 5
    store.close()
    with pytest.raises(ItemStoreError, match=r"fetches again every one whose parts are missing"):
        ItemStore.open(bad)


def _corrupt_index(path: Path, index: str) -> None:
    con = sqlite3.connect(path)
    pages = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = ?", (index,))]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    assert pages, index
    with path.open("r+b") as f:
        for page in pages[1:]:
            f.seek((page - 1) * size + 8)
            f.write(b"\xff" * 64)


def _unclean_state(path: Path, rows: int = 3000) -> None:
    store = SqliteRequestStore.open(path)
    run_id, _ = store.start_run(run_info())
    for i in range(rows):
        store.add(
            NewRequest(f"case|pn-a|{i}/Pid.B/2024/PN A", "case", "pn-a", None, 0, "GET",
                       f"http://x/{i}", b"blob"),
            run_id,
        )  # fmt: skip
    store.close()  # the run is never ended: as after kill -9


def test_a_state_failing_the_quick_check_after_an_unclean_stop_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    _unclean_state(path)
    _corrupt_index(path, "requests_age")
    with pytest.raises(StateError) as caught:
        SqliteRequestStore.open(path)
    message = str(caught.value)
    assert (
        "fails SQLite's integrity check after run 1 (court pn-a) ended without closing" in message
    )
    assert (
        f"sqlite3 '{path}' .recover | sqlite3 '{tmp_path / 'state-recovered.sqlite'}'" in message
    )
    # the recovery path the message gives works, and keeps every request
    recovered = tmp_path / "state-recovered.sqlite"
    assert "(.dump instead of .recover where the sqlite3 shell has no .recover)" in message
    dump = subprocess.run(["sqlite3", str(path), ".recover"], capture_output=True, check=False)
    if dump.returncode != 0:  # Debian's sqlite3 3.40 shell: .recover fails without sqlite_dbpage
        dump = subprocess.run(["sqlite3", str(path), ".dump"], capture_output=True, check=True)
    subprocess.run(["sqlite3", str(recovered)], input=dump.stdout, check=True)
    shutil.move(path, tmp_path / "state.sqlite.bad")
    shutil.move(recovered, path)
    store = SqliteRequestStore.open(path)
    try:
        assert store.count(court="pn-a") == 3000
    finally:
        store.close()


def test_a_state_that_is_not_a_database_names_the_recovery_path(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    path.write_bytes(b"garbage\n" * 1000)
    with pytest.raises(StateError, match=r"\.recover \| sqlite3") as caught:
        SqliteRequestStore.open(path)
    assert "moving it aside alone loses no harvested data" in str(caught.value)


@pytest.mark.slow
def test_after_items_sqlite_is_lost_or_truncated_the_next_crawl_rebuilds_it(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=24, seed=21, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        first = crawl(replica.url, COURT, ws)
        assert first.returncode == 0, first.stderr[-3000:]
        assert mismatches(exported(ws), truth) == {}
        parts = state_query(
            ws, "SELECT count(*) FROM requests WHERE status = 'ok' AND kind IN ('case', 'tab')"
        )[0][0]

        # deleted: status says so, the next crawl rebuilds every case and tab from the archive
        for f in ws.glob("items.sqlite*"):
            f.unlink()
        status = scrapy_command("status", ws)
        assert (
            f"ok requests whose parts are missing from items.sqlite (missing): {parts} "
            "(the next crawl rebuilds them from the page archive and fetches what it lacks)"
        ) in status.stdout
        second = crawl(replica.url, COURT, ws)
        assert second.returncode == 0, second.stderr[-3000:]
        assert (
            f"rebuilt {parts} parts of {COURT} from the page archive ({parts} pages read, "
            "0 failed)"
        ) in second.stderr
        assert "were ok but their parts are missing" not in second.stderr
        assert mismatches(exported(ws), truth) == {}
        assert "every ok request has its parts in items.sqlite" in (
            scrapy_command("status", ws).stdout
        )

        # truncated: refused with the remedy; the remedy (move it aside) rebuilds it
        items = ws / "items.sqlite"
        con = sqlite3.connect(items)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        size = items.stat().st_size
        with items.open("r+b") as f:
            f.truncate(size // 3)
        third = crawl(replica.url, COURT, ws)
        assert third.returncode != 0
        assert "move it aside with its -wal/-shm files" in third.stderr
        for f in ws.glob("items.sqlite*"):
            f.rename(f.with_name(f.name.replace("items.sqlite", "items.sqlite.bad")))
        fourth = crawl(replica.url, COURT, ws)
        assert fourth.returncode == 0, fourth.stderr[-3000:]
        assert mismatches(exported(ws), truth) == {}
