"""The workspace item store: keys, idempotent upserts, completeness, documents, bad input."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pipelines.store import (
    InvalidPart,
    ItemStore,
    ItemStoreError,
    UpsertResult,
)
from tests.support.item_backends import ItemBackend
from tests.support.items import case_data
from tests.support.paths import PY, REPO

COURT = "pa-jakartaselatan"
NUMBER = "1234/Pdt.G/2024/PA.JS"
KEY = f"sipp.{COURT}:{NUMBER}"


def sha256_of(obj: object) -> str:
    """The content hash computed here, independently of harvest.base.canonical."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# --- idempotent upserts ----------------------------------------------------------------------


def test_same_part_three_times_is_one_row_created_then_unchanged_twice(
    store: ItemStore, backend: ItemBackend
) -> None:
    data = case_data(NUMBER, {"pihak": True})
    results = [
        store.upsert_part(court=COURT, case_number=NUMBER, part="case", data=data)
        for _ in range(3)
    ]

    assert results == [UpsertResult.CREATED, UpsertResult.UNCHANGED, UpsertResult.UNCHANGED]
    assert backend.rows("SELECT dedupe_key, part FROM parts") == [(KEY, "case")]
    assert backend.rows("SELECT dedupe_key FROM cases") == [(KEY,)]
    assert store.count_parts() == 1


def test_changed_content_is_updated_with_a_new_hash_and_times_kept(store: ItemStore) -> None:
    before = case_data(NUMBER, {}, status_perkara="Persidangan")
    after = case_data(NUMBER, {}, status_perkara="Minutasi")
    assert store.upsert_part(court=COURT, case_number=NUMBER, part="case", data=before) == (
        UpsertResult.CREATED
    )
    first = store.get_part(KEY, "case")
    doc_before = store.get_document(KEY)

    assert store.upsert_part(court=COURT, case_number=NUMBER, part="case", data=after) == (
        UpsertResult.UPDATED
    )
    second = store.get_part(KEY, "case")
    doc_after = store.get_document(KEY)

    assert first is not None
    assert second is not None
    assert doc_before is not None
    assert doc_after is not None
    assert first.part_hash == sha256_of(before)
    assert second.part_hash == sha256_of(after)
    assert second.data == after
    assert doc_after["content_hash"] != doc_before["content_hash"]
    assert doc_after["content_hash"] == sha256_of(
        {"schema_version": 2, "complete": True, "case": after, "tabs": {}}
    )
    assert second.first_seen == first.first_seen
    assert second.last_changed > first.last_changed
    assert store.count_parts() == 1


def test_changes_within_one_millisecond_still_move_last_changed_and_the_version(
    store: ItemStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the clock stands still (two writes in one millisecond, or a clock stepped back)
    monkeypatch.setattr("pipelines.store.utc_now", lambda: "2026-11-30T18:17:27.554Z")
    for status in ("Persidangan", "Minutasi", "Putusan"):
        store.upsert_part(
            court=COURT,
            case_number=NUMBER,
            part="case",
            data=case_data(NUMBER, {}, status_perkara=status),
        )
    part = store.get_part(KEY, "case")
    assert part is not None
    assert part.first_seen == "2026-11-30T18:17:27.554Z"
    # each change one millisecond after the one before it: the ingest API never sees a newer
    # document with the version of an older one (it would answer "stale" and drop it)
    assert part.last_changed == "2026-11-30T18:17:27.556Z"
    (document,) = store.iter_documents(versions=True)
    assert document["version"] == 1796062647556  # 2026-11-30T18:17:27.556Z


def test_unchanged_moves_last_seen_and_volatile_fields_but_not_last_changed(
    store: ItemStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the second write is a second later (two writes within one millisecond were seen on CI:
    # an unchanged part then has an equal last_seen, rightly)
    times = iter(["2026-11-30T20:55:56.597Z", "2026-11-30T20:55:57.597Z"])
    monkeypatch.setattr("pipelines.store.utc_now", lambda: next(times))
    data = case_data(NUMBER, {})
    store.upsert_part(
        court=COURT, case_number=NUMBER, part="case", data=data, url="http://a/1", fetched_at="t1"
    )
    first = store.get_part(KEY, "case")
    # Same content, other key order, other url and fetch time: still unchanged.
    reordered = dict(reversed(list(data.items())))
    result = store.upsert_part(
        court=COURT,
        case_number=NUMBER,
        part="case",
        data=reordered,
        url="http://a/2",
        fetched_at="t2",
    )
    second = store.get_part(KEY, "case")

    assert result is UpsertResult.UNCHANGED
    assert first is not None
    assert second is not None
    assert (second.url, second.fetched_at) == ("http://a/2", "t2")
    assert second.part_hash == first.part_hash
    assert second.last_changed == first.last_changed
    assert (first.last_seen, second.last_seen) == (
        "2026-11-30T20:55:56.597Z",
        "2026-11-30T20:55:57.597Z",
    )


def test_whitespace_variants_of_one_case_number_are_one_key(store: ItemStore) -> None:
    variants = [NUMBER, f"  {NUMBER}\n", "1234/Pdt.G/2024/PA.JS\t", " 1234/Pdt.G/2024/PA.JS  "]
    spaced = ["12/Pid.B/2024/PN  Jkt.Pst", "12/Pid.B/2024/PN Jkt.Pst", "12/Pid.B/2024/PN\tJkt.Pst"]
    results = [
        store.upsert_part(court=COURT, case_number=v, part="tab:pihak", data=[{"nama": "A"}])
        for v in variants + spaced
    ]

    assert results.count(UpsertResult.CREATED) == 2
    assert [d["dedupe_key"] for d in store.iter_documents(complete_only=False)] == [
        f"sipp.{COURT}:12/Pid.B/2024/PN Jkt.Pst",
        KEY,
    ]
    record = store.get_part(f"sipp.{COURT}:12/Pid.B/2024/PN Jkt.Pst", "tab:pihak")
    assert record is not None
    assert record.source_id == "12/Pid.B/2024/PN Jkt.Pst"
    assert record.case_number_raw == "12/Pid.B/2024/PN\tJkt.Pst"  # the raw text of the last write


def test_parts_survive_close_and_reopen(backend: ItemBackend) -> None:
    with backend.open() as store:
        store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[1])
    with backend.open() as store:
        assert store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[1]) is (
            UpsertResult.UNCHANGED
        )
        assert store.count_parts() == 1


CRASHING_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from pipelines.item_backends import open_item_store
    url = sys.argv[1] if sys.argv[1].startswith("postgresql://") else None
    store = open_item_store(Path(sys.argv[1]), database_url=url)
    for i in range(50):
        tabs = [{"slug": "pihak", "label": "Pihak", "available": True}]
        store.upsert_part(court="pa-x", case_number=f"{i}/Pdt.G/2024/PA X", part="case",
                          data={"n": i, "tabs": tabs})
        store.upsert_part(court="pa-x", case_number=f"{i}/Pdt.G/2024/PA X", part="tab:pihak",
                          data=[{"nama": f"P{i}"}])
    # The crash: after the item writes, before any request could be marked ok; no close().
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_crash_after_item_write_then_rerun_leaves_no_duplicate(backend: ItemBackend) -> None:
    crashed = subprocess.run(
        [sys.executable, "-c", CRASHING_WRITER, backend.target],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode == -9, crashed.stderr

    # The re-run: the same requests run again and yield the same parts.
    with backend.open() as store:
        assert store.count_parts() == 100  # durable without close()
        results = []
        for i in range(50):
            tabs = [{"slug": "pihak", "label": "Pihak", "available": True}]
            number = f"{i}/Pdt.G/2024/PA X"
            results.append(
                store.upsert_part(
                    court="pa-x", case_number=number, part="case", data={"n": i, "tabs": tabs}
                )
            )
            results.append(
                store.upsert_part(
                    court="pa-x", case_number=number, part="tab:pihak", data=[{"nama": f"P{i}"}]
                )
            )
        assert set(results) == {UpsertResult.UNCHANGED}
        assert store.count_parts() == 100
        assert store.count_documents() == 50
        assert store.count_documents(complete_only=True) == 50
    assert backend.rows("SELECT count(*), count(DISTINCT dedupe_key || part) FROM parts") == [
        (100, 100)
    ]


# --- completeness and documents --------------------------------------------------------------


def test_case_is_complete_when_case_part_and_every_available_tab_are_present(
    store: ItemStore,
) -> None:
    data = case_data(NUMBER, {"pihak": True, "jadwal_sidang": True, "diversi": False})
    store.upsert_part(court=COURT, case_number=NUMBER, part="case", data=data)
    assert store.missing_tabs(KEY) == ["pihak", "jadwal_sidang"]
    assert store.count_documents(complete_only=True) == 0

    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[{"nama": "A"}])
    assert store.missing_tabs(KEY) == ["jadwal_sidang"]
    assert list(store.iter_documents(complete_only=True)) == []

    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:jadwal_sidang", data=[])
    assert store.missing_tabs(KEY) == []
    assert store.count_documents(complete_only=True) == 1
    (document,) = store.iter_documents(complete_only=True)
    assert document["complete"] is True
    assert set(document["tabs"]) == {"pihak", "jadwal_sidang"}  # diversi is not awaited


def test_tabs_before_their_case_part_make_a_partial_document_with_case_null(
    store: ItemStore,
) -> None:
    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[{"nama": "A"}])

    document = store.get_document(KEY)
    assert document == {
        "dedupe_key": KEY,
        "source_type": f"sipp.{COURT}",
        "source_id": NUMBER,
        "schema_version": 2,
        "content_hash": sha256_of(
            {
                "schema_version": 2,
                "complete": False,
                "case": None,
                "tabs": {"pihak": [{"nama": "A"}]},
            }
        ),
        "complete": False,
        "case": None,
        "tabs": {"pihak": [{"nama": "A"}]},
    }
    assert store.missing_tabs(KEY) is None
    assert store.count_documents() == 1
    assert store.count_documents(complete_only=True) == 0

    store.upsert_part(
        court=COURT, case_number=NUMBER, part="case", data=case_data(NUMBER, {"pihak": True})
    )
    assert store.count_documents(complete_only=True) == 1


def test_merged_document_is_exactly_the_design_document(
    store: ItemStore, backend: ItemBackend
) -> None:
    case = case_data(NUMBER, {"pihak": True, "riwayat_perkara": True, "we_kppu": False})
    pihak = {"penggugat": [{"nama": "Siti"}], "tergugat": [{"nama": "Budi"}]}
    riwayat = [{"tanggal": "2024-01-02", "tahapan": "Pendaftaran"}]
    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:riwayat_perkara", data=riwayat)
    store.upsert_part(court=COURT, case_number=NUMBER, part="case", data=case, url="http://x")
    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=pihak)

    expected = {
        "dedupe_key": "sipp.pa-jakartaselatan:1234/Pdt.G/2024/PA.JS",
        "source_type": "sipp.pa-jakartaselatan",
        "source_id": "1234/Pdt.G/2024/PA.JS",
        "schema_version": 2,
        "content_hash": sha256_of(
            {
                "schema_version": 2,
                "complete": True,
                "case": case,
                "tabs": {"pihak": pihak, "riwayat_perkara": riwayat},
            }
        ),
        "complete": True,
        "case": case,
        "tabs": {"pihak": pihak, "riwayat_perkara": riwayat},
    }
    assert store.get_document(KEY) == expected
    assert list(store.iter_documents()) == [expected]
    stored_hash = backend.rows("SELECT content_hash FROM cases")
    assert stored_hash == [(expected["content_hash"],)]


def test_documents_stream_in_key_order_filtered_by_court(store: ItemStore) -> None:
    for court, number in [("pn-b", "2/X"), ("pa-a", "9/X"), ("pn-b", "10/X"), ("pa-a", "1/X")]:
        store.upsert_part(court=court, case_number=number, part="case", data=case_data(number, {}))
    store.upsert_part(court="pa-a", case_number="5/X", part="tab:pihak", data=[])

    keys = [d["dedupe_key"] for d in store.iter_documents()]
    assert keys == ["sipp.pa-a:1/X", "sipp.pa-a:9/X", "sipp.pn-b:10/X", "sipp.pn-b:2/X"]
    everything = [d["dedupe_key"] for d in store.iter_documents(complete_only=False)]
    assert everything == ["sipp.pa-a:1/X", "sipp.pa-a:5/X", *keys[1:]]
    assert [d["source_id"] for d in store.iter_documents(court="pn-b")] == ["10/X", "2/X"]
    assert list(store.iter_documents(court="pn-none")) == []
    assert (store.count_documents(), store.count_documents(complete_only=True)) == (5, 4)
    assert store.get_document("sipp.pa-a:404/X") is None


def test_a_reader_sees_one_snapshot_while_a_writer_goes_on(backend: ItemBackend) -> None:
    with backend.open() as writer:
        for number in ("1/A", "2/A"):
            writer.upsert_part(
                court="pa-a", case_number=number, part="case", data=case_data(number, {})
            )
        with backend.open(readonly=True) as reader:
            documents = reader.iter_documents()
            first = next(documents)
            writer.upsert_part(
                court="pa-a", case_number="3/A", part="case", data=case_data("3/A", {})
            )
            rest = list(documents)
            assert [d["source_id"] for d in [first, *rest]] == ["1/A", "2/A"]
            assert reader.count_documents() == 3  # a new read sees the new case


def test_a_reading_left_unfinished_when_the_store_closes_goes_quietly(
    backend: ItemBackend,
) -> None:
    """``ship.py`` stops reading mid-way (an answer that ends the run) and closes the store:
    the abandoned iteration is collected later without an error (pytest turns any "exception
    ignored" into a failure)."""
    import gc

    store = backend.open()
    for number in ("1/A", "2/A", "3/A"):
        store.upsert_part(
            court="pa-a", case_number=number, part="case", data=case_data(number, {})
        )
    documents = store.iter_documents()
    assert next(documents)["source_id"] == "1/A"
    store.close()
    del documents
    gc.collect()


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("court", "number", "part", "data", "reason"),
    [
        (None, NUMBER, "case", case_data(NUMBER, {}), "missing-court"),
        ("  ", NUMBER, "case", case_data(NUMBER, {}), "missing-court"),
        ("pa x/y", NUMBER, "case", case_data(NUMBER, {}), "bad-court"),
        (COURT, None, "case", case_data(NUMBER, {}), "missing-case-number"),
        (COURT, " \t\n", "case", case_data(NUMBER, {}), "missing-case-number"),
        (COURT, 1234, "case", case_data(NUMBER, {}), "missing-case-number"),
        (COURT, NUMBER, "tab:", [], "bad-part"),
        (COURT, NUMBER, "tabs:pihak", [], "bad-part"),
        (COURT, NUMBER, "Case", {}, "bad-part"),
        (COURT, NUMBER, "tab:pihak/../x", [], "bad-part"),
        (COURT, NUMBER, None, [], "bad-part"),
        (COURT, NUMBER, "tab:pihak", [float("nan")], "not-serialisable"),
        (COURT, NUMBER, "tab:pihak", {"raw": b"\x00"}, "not-serialisable"),
        (COURT, NUMBER, "tab:pihak", {"ids": {1, 2}}, "not-serialisable"),
        (COURT, NUMBER, "tab:pihak", {"when": object()}, "not-serialisable"),
        (COURT, NUMBER, "tab:pihak", [{"ok": 1}, {2: "int key"}], "not-serialisable"),
        (COURT, NUMBER, "case", ["not", "an", "object"], "bad-case-data"),
        (COURT, NUMBER, "case", {"nomor_perkara": NUMBER}, "bad-case-data"),
        (COURT, NUMBER, "case", {"tabs": [{"slug": "pihak"}]}, "bad-case-data"),
        (COURT, NUMBER, "case", {"tabs": [{"slug": "a b", "available": True}]}, "bad-case-data"),
    ],
)
def test_bad_parts_are_refused_with_a_reason_and_nothing_is_written(
    store: ItemStore, backend: ItemBackend, court, number, part, data, reason
) -> None:
    with pytest.raises(InvalidPart) as caught:
        store.upsert_part(court=court, case_number=number, part=part, data=data)

    assert caught.value.reason == reason
    assert str(caught.value)  # says what is wrong
    assert backend.rows("SELECT count(*) FROM parts") == [(0,)]
    assert backend.rows("SELECT count(*) FROM cases") == [(0,)]


def test_a_bad_part_leaves_the_stored_version_of_that_part_intact(store: ItemStore) -> None:
    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[{"nama": "A"}])
    with pytest.raises(InvalidPart):
        store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[{1, 2}])
    record = store.get_part(KEY, "tab:pihak")
    assert record is not None
    assert record.data == [{"nama": "A"}]


# --- the file --------------------------------------------------------------------------------


def test_store_files_are_private(store_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with ItemStore.open(store_path) as store:
            store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[1])
            files = sorted(p.name for p in store_path.parent.iterdir())
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in store_path.parent.iterdir()}
    finally:
        os.umask(old)
    assert files == ["items.sqlite", "items.sqlite-shm", "items.sqlite-wal"]
    assert modes == dict.fromkeys(files, 0o600)
    assert rows(store_path, "PRAGMA journal_mode") == [("wal",)]


def test_a_file_that_is_not_sqlite_gets_a_clear_error_and_is_left_alone(
    store_path: Path,
) -> None:
    garbage = b"this is not an sqlite database\n" * 200
    store_path.write_bytes(garbage)

    for readonly in (False, True):
        with pytest.raises(ItemStoreError) as caught:
            ItemStore.open(store_path, readonly=readonly)
        message = str(caught.value)
        assert str(store_path) in message
        assert "not a readable SQLite database" in message
        assert "move it aside" in message
    assert store_path.read_bytes() == garbage


def test_a_foreign_sqlite_database_is_refused(store_path: Path) -> None:
    conn = sqlite3.connect(store_path)
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()

    with pytest.raises(ItemStoreError, match="not a harvest item store") as caught:
        ItemStore.open(store_path)
    assert "move it aside" in str(caught.value)
    assert rows(store_path, "SELECT name FROM sqlite_master WHERE type='table'") == [("items",)]


def test_readonly_open_of_a_missing_store_says_nothing_was_harvested(tmp_path: Path) -> None:
    missing = tmp_path / "items.sqlite"
    with pytest.raises(ItemStoreError, match="nothing has been harvested"):
        ItemStore.open(missing, readonly=True)
    assert not missing.exists()


def test_a_readonly_store_refuses_writes(backend: ItemBackend) -> None:
    backend.open().close()
    with (
        backend.open(readonly=True) as store,
        pytest.raises(ItemStoreError, match="read-only"),
    ):
        store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[])


def test_the_store_module_imports_nothing_from_scrapy() -> None:
    probe = (
        "import sys, pipelines.store; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))"
    )
    out = subprocess.run([PY, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- item format versions ----------------------------------------------------------------------


def test_a_part_of_an_older_format_stored_again_unchanged_is_updated_to_the_new_format(
    store: ItemStore, backend: ItemBackend
) -> None:
    case = case_data(NUMBER, {"pihak": True})
    pihak = [{"nama": "Siti"}]
    store.upsert_part(court=COURT, case_number=NUMBER, part="case", data=case)
    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=pihak)
    # as a store of the previous release left it
    backend.rows("UPDATE parts SET schema_version = 1 WHERE part = 'tab:pihak' RETURNING 1")
    old = store.get_document(KEY)
    assert old is not None
    assert old["schema_version"] == 1  # the oldest format among its parts
    assert old["content_hash"] == sha256_of({"complete": True, "case": case, "tabs": old["tabs"]})

    # the same data parsed again by this release: the document changes (its format does)
    assert (
        store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=pihak)
        is UpsertResult.UPDATED
    )
    new = store.get_document(KEY)
    assert new is not None
    assert new["schema_version"] == 2
    assert new["content_hash"] == sha256_of(
        {"schema_version": 2, "complete": True, "case": case, "tabs": {"pihak": pihak}}
    )
    assert backend.rows("SELECT content_hash FROM cases") == [(new["content_hash"],)]
    assert (
        store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=pihak)
        is UpsertResult.UNCHANGED
    )


def test_a_schema_1_item_store_is_read_as_format_1_and_upgraded_on_write(
    sqlite_store: ItemStore, store_path: Path
) -> None:
    store = sqlite_store
    case = case_data(NUMBER, {"pihak": True})
    store.upsert_part(court=COURT, case_number=NUMBER, part="case", data=case)
    store.upsert_part(court=COURT, case_number=NUMBER, part="tab:pihak", data=[])
    store.close()
    con = sqlite3.connect(store_path)
    with con:  # the previous release's file: no parts.schema_version, user_version 1
        con.execute("ALTER TABLE parts DROP COLUMN schema_version")
        con.execute("PRAGMA user_version = 1")
    con.close()
    with ItemStore.open(store_path, readonly=True) as old:
        [doc] = list(old.iter_documents())
        assert doc["schema_version"] == 1
        assert doc["content_hash"] == sha256_of(
            {"complete": True, "case": case, "tabs": {"pihak": []}}
        )
    with ItemStore.open(store_path) as upgraded:
        assert rows(store_path, "PRAGMA user_version") == [(2,)]
        assert rows(store_path, "SELECT part, schema_version FROM parts ORDER BY part") == [
            ("case", 1),
            ("tab:pihak", 1),
        ]
        upgraded.upsert_part(court=COURT, case_number=NUMBER, part="case", data=case)
        doc = upgraded.get_document(KEY)
        assert doc is not None
        assert doc["schema_version"] == 1  # its tab is still format 1
