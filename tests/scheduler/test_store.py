"""The request-state store contract, run against the SQLite store (close-and-reopen included)."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from extensions.memory_store import MemoryRequestStore
from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SCHEMA_VERSION, SqliteRequestStore
from extensions.store import (
    CourtCheck,
    CourtRecord,
    CrawlLocked,
    ErrorFilter,
    Exchange,
    PageWarning,
    RunInfo,
    StateError,
    Status,
    kind_and_court,
)
from tests.support.paths import REPO
from tests.support.store import RUN, events_of, new


class StoreContract:
    """Behaviour every RequestStore must have; subclasses say how to open one (:meth:`make`).

    Every store a test opens is closed when the test ends (its checkpointer thread stopped),
    whatever the test did with it.
    """

    def make(self, path: Path) -> SqliteRequestStore | MemoryRequestStore:
        raise NotImplementedError

    def open(self, path: Path) -> SqliteRequestStore | MemoryRequestStore:
        store = self.make(path)
        self._opened.append(store)
        return store

    @pytest.fixture(autouse=True)
    def _close_opened(self) -> Iterator[None]:
        self._opened: list[SqliteRequestStore | MemoryRequestStore] = []
        yield
        for store in reversed(self._opened):
            store.close()

    def close_reopen_and_claim_again(self, db: Path) -> int:
        """Add two rows, claim one, close, reopen, release and claim it again; its id."""
        s = self.open(db)
        run_id, _ = s.start_run(RUN)
        a = s.add(new("case|c1|1", group="g"), run_id)
        s.add(new("case|c1|2"), run_id)
        s.claim("c1", run_id, busy_groups=[], held=[])
        s.close()
        s = self.open(db)
        assert s.add(new("case|c1|1"), run_id) is None  # dedupe survives
        assert s.count(status=Status.INFLIGHT) == 1
        assert s.release_inflight("c1", run_id, why="open") == 1
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        assert (c.id, c.attempts) == (a, 2)
        s.close()
        assert a is not None
        return a

    def test_close_and_reopen_keeps_the_state(self, db: Path) -> None:
        self.close_reopen_and_claim_again(db)

    def test_registered_courts_keep_their_order_and_take_new_values(self, db: Path) -> None:
        s = self.open(db)
        assert s.courts() == []
        first = [
            CourtRecord("pn-a", "http://127.0.0.1:1/"),
            CourtRecord("pa-b", "http://127.0.0.1:2/", "Perdata", "putusan,saksi"),
        ]
        assert s.add_courts(first) == (2, 0)
        assert s.add_courts(first) == (0, 0)  # again: nothing changes
        assert s.add_courts(
            [CourtRecord("pn-c", "http://127.0.0.1:3/"), CourtRecord("pn-a", "http://x.id/")]
        ) == (1, 1)
        got = s.courts()
        assert [(c.court, c.base_url, c.listing, c.tabs) for c in got] == [
            ("pn-a", "http://x.id/", None, None),
            ("pa-b", "http://127.0.0.1:2/", "Perdata", "putusan,saksi"),
            ("pn-c", "http://127.0.0.1:3/", None, None),
        ]
        assert all(c.added_at.startswith("20") for c in got)
        s.close()
        assert [c.court for c in self.open(db).courts()] == ["pn-a", "pa-b", "pn-c"]

    def test_a_court_list_overrides_a_directory_row_and_a_new_url_clears_its_check(
        self, db: Path
    ) -> None:
        s = self.open(db)
        directory = CourtRecord(
            "pn-a", "http://127.0.0.1:1/", kind="pn", name="Pengadilan Negeri A",
            province="Jawa Barat", high_court="PT Bandung",
        )  # fmt: skip
        assert s.add_courts([directory]) == (1, 0)
        check = CourtCheck(
            "redirected", "http://127.0.0.2:1/", 200, "redirect (301)", "2026-12-02T01:00:00.000Z"
        )
        assert s.record_court_check("pn-a", check) is True
        assert s.record_court_check("pn-zz", check) is False  # not registered
        (got,) = s.courts()
        assert got.check() == check
        assert got.crawl_url == "http://127.0.0.2:1/"
        # the user's own list: its columns win, the directory's facts it lacks are kept, and
        # the check stays (same URL)
        mine = CourtRecord("pn-a", "http://127.0.0.1:1/", "Pidana", None, proxy="env:PROXY_A")
        assert s.add_courts([mine]) == (0, 1)
        (got,) = s.courts()
        assert (got.listing, got.proxy, got.name, got.province, got.kind) == (
            "Pidana", "env:PROXY_A", "Pengadilan Negeri A", "Jawa Barat", "pn",
        )  # fmt: skip
        assert got.check() is None  # a new proxy: the court is reached another way
        assert s.record_court_check("pn-a", check) is True
        moved = CourtRecord("pn-a", "http://127.0.0.9:1/", "Pidana", None, proxy="env:PROXY_A")
        assert s.add_courts([moved]) == (0, 1)
        (got,) = s.courts()
        assert (got.access, got.effective_base_url, got.checked_at) == (None, None, None)
        assert got.crawl_url == "http://127.0.0.9:1/"

    def test_a_paused_court_counts_its_pauses_and_its_failed_rows_go_back_by_id(
        self, db: Path
    ) -> None:
        """Issue #27 (court_pauses): a pause in a row counts up, is listed with its times and
        reason, survives a reopen and goes on resume; requeue by ids touches only those."""
        s = self.open(db)
        assert s.court_pauses() == []
        run_id, _ = s.start_run(RUN)
        ids = [s.add(new(f"case|c1|{n}"), run_id) for n in range(3)]
        for _ in ids:
            c = s.claim("c1", run_id, busy_groups=[], held=[])
            assert c is not None
            s.finish(c.id, run_id, ok=False, reason="HTTP 503")
        s.commit()
        first, second = int(ids[0] or 0), int(ids[1] or 0)
        assert s.requeue(ErrorFilter(court="c1", ids=(first, second))) == 2
        assert s.count(court="c1", status=Status.ERROR) == 1
        assert s.count(court="c1", status=Status.PENDING) == 2
        at, until = "2026-12-02T01:00:00.000Z", "2026-12-02T01:05:00.000Z"
        assert s.pause_court("c1", reason="HTTP 503", until=until, at=at) == 1
        later = "2026-12-02T01:25:00.000Z"
        assert s.pause_court("c1", reason="HTTP 502", until=later, at=until) == 2
        s.commit()
        s.close()
        s = self.open(db)
        (pause,) = s.court_pauses()
        assert pause.as_dict() == {
            "court": "c1",
            "paused_at": until,
            "paused_until": later,
            "pause_reason": "HTTP 502",
            "pause_count": 2,
        }
        assert s.resume_court("c1") is True
        assert s.resume_court("c1") is False
        assert s.court_pauses() == []

    def test_one_store_holds_the_locks_of_several_courts(self, db: Path) -> None:
        """A multi-court crawl: one store, one lock a court, each given up on its own."""
        c2 = RunInfo(**{**RUN.__dict__, "court": "c2"})
        s1 = self.open(db)
        s1.acquire_crawl_lock(RUN)
        s1.acquire_crawl_lock(c2)
        with pytest.raises(StateError, match=r"already holds the .* of court 'c2'"):
            s1.acquire_crawl_lock(c2)
        s2 = self.open(db)
        for run in (RUN, c2):
            with pytest.raises(CrawlLocked, match=f"court '{run.court}' is already being"):
                s2.acquire_crawl_lock(run)
        s1.release_crawl_lock("c1")  # c1 done: free at once, c2 still held
        s2.acquire_crawl_lock(RUN)
        with pytest.raises(CrawlLocked, match="court 'c2'"):
            s2.acquire_crawl_lock(c2)
        s1.release_crawl_lock("c9")  # a court it does not hold: nothing happens
        with pytest.raises(CrawlLocked, match="court 'c2'"):
            s2.acquire_crawl_lock(c2)
        s1.close()  # gives up every lock left
        s2.acquire_crawl_lock(c2)

    @pytest.fixture
    def db(self, tmp_path: Path) -> Path:
        return tmp_path / "state.sqlite"

    def test_add_dedupes_on_key(self, db: Path) -> None:
        s = self.open(db)
        first = s.add(new("case|c1|1"), 1)
        assert isinstance(first, int)
        assert s.add(new("case|c1|1"), 1) is None
        assert s.count() == 1
        assert s.count(status=Status.PENDING) == 1

    def test_claim_order_is_priority_then_oldest(self, db: Path) -> None:
        s = self.open(db)
        s.add(new("list|c1|a|1", priority=0), 1)
        s.add(new("case|c1|1", priority=10), 1)
        s.add(new("tab|c1|1|x", priority=20), 1)
        s.add(new("case|c1|2", priority=10), 1)
        keys = []
        while (c := s.claim("c1", 1, busy_groups=[], held=[])) is not None:
            keys.append(c.key)
            assert c.attempts == 1
        assert keys == ["tab|c1|1|x", "case|c1|1", "case|c1|2", "list|c1|a|1"]
        assert s.count(status=Status.INFLIGHT) == 4
        assert not s.has_pending("c1")

    def test_claim_skips_busy_groups_unless_held(self, db: Path) -> None:
        s = self.open(db)
        a = s.add(new("tab|c1|1|a", group="g1", priority=20), 1)
        s.add(new("tab|c1|2|a", group="g2", priority=10), 1)
        c = s.claim("c1", 1, busy_groups=["g1"], held=[])
        assert c is not None
        assert c.key == "tab|c1|2|a"
        assert s.claim("c1", 1, busy_groups=["g1", "g2"], held=[]) is None
        assert s.has_pending("c1")  # waiting for its group, still pending
        c = s.claim("c1", 1, busy_groups=["g1", "g2"], held=[a or 0])
        assert c is not None
        assert c.key == "tab|c1|1|a"
        assert c.group == "g1"

    def test_claim_restricted_to_open_groups(self, db: Path) -> None:
        s = self.open(db)
        s.add(new("list|c1|a|2", priority=0), 1)
        s.add(new("case|c1|3", group="g3", priority=10), 1)
        g1a = s.add(new("tab|c1|1|a", group="g1", priority=20), 1)
        s.add(new("tab|c1|2|a", group="g2", priority=20), 1)
        s.add(new("tab|c1|1|b", group="g1", priority=20), 1)
        s.add(new("case|c9|1", group="g9", priority=10, court="c9"), 1)
        # the cap is reached: only rows of open groups, never a list page or a new case
        c = s.claim("c1", 1, busy_groups=[], held=[], only_groups=["g2"])
        assert c is not None
        assert c.key == "tab|c1|2|a"
        assert s.claim("c1", 1, busy_groups=["g2"], held=[], only_groups=["g2"]) is None
        assert s.claim("c1", 1, busy_groups=[], held=[], only_groups=[]) is None
        assert s.claim("c1", 1, busy_groups=[], held=[], only_groups=["g9"]) is None  # c9's
        # a busy group's rows wait, except its held (retried) row
        assert s.claim("c1", 1, busy_groups=["g1"], held=[], only_groups=["g1"]) is None
        c = s.claim("c1", 1, busy_groups=["g1"], held=[g1a or 0], only_groups=["g1"])
        assert c is not None
        assert c.key == "tab|c1|1|a"
        c = s.claim("c1", 1, busy_groups=[], held=[], only_groups=["g1", "g3"])
        assert c is not None
        assert c.key == "tab|c1|1|b"  # priority first, across the allowed groups
        c = s.claim("c1", 1, busy_groups=[], held=[], only_groups=["g1", "g3"])
        assert c is not None
        assert c.key == "case|c1|3"
        assert s.claim("c1", 1, busy_groups=[], held=[], only_groups=["g1", "g3"]) is None
        c = s.claim("c1", 1, busy_groups=[], held=[])  # no cap: the list page
        assert c is not None
        assert c.key == "list|c1|a|2"

    def test_open_groups_close_when_done_and_survive_reopening(self, db: Path) -> None:
        s = self.open(db)
        run_id, _ = s.start_run(RUN)
        case = s.add(new("case|c1|1", group="c1|1", priority=10), run_id)
        s.add(new("case|c1|2", group="c1|2", priority=10), run_id)
        s.add(new("case|c1|3", group="c1|3", priority=10), run_id)
        for _ in range(2):
            c = s.claim("c1", run_id, busy_groups=[], held=[])
            assert c is not None
            assert c.group is not None
            s.open_group("c1", c.group, run_id)
        s.open_group("c1", "c1|1", run_id)  # idempotent
        s.open_group("c9", "c9|1", run_id)  # another court's
        assert s.open_groups("c1") == ["c1|1", "c1|2"]
        assert not s.close_group_if_done("c1", "c1|1")  # its case row is in flight
        assert case is not None
        # the case yields a tab (committed before the case's ok): still open after the ok
        tab = s.add(new("tab|c1|1|a", group="c1|1", priority=20), run_id)
        s.finish(case, run_id, ok=True)
        assert not s.close_group_if_done("c1", "c1|1")
        c = s.claim("c1", run_id, busy_groups=["c1|2"], held=[], only_groups=["c1|1"])
        assert c is not None
        assert c.id == tab
        s.retry(c.id, run_id, url="u", priority=20, retries=1)  # pending again: still open
        assert not s.close_group_if_done("c1", "c1|1")
        s.close()
        # a restart: the open groups come back, oldest first, for the crawl to finish first
        s = self.open(db)
        assert s.open_groups("c1") == ["c1|1", "c1|2"]
        assert s.open_groups("c9") == ["c9|1"]
        assert s.release_inflight("c1", run_id, why="open") == 1  # case 2's row
        c = s.claim("c1", run_id, busy_groups=[], held=[], only_groups=["c1|1", "c1|2"])
        assert c is not None
        assert c.key == "tab|c1|1|a"
        s.finish(c.id, run_id, ok=False, reason="HTTP 500")  # an error is done too
        assert s.close_group_if_done("c1", "c1|1")
        assert s.open_groups("c1") == ["c1|2"]
        assert s.count(court="c1", status=Status.PENDING) == 2  # case 2, case 3 (not started)
        s.close()
        s = self.open(db)
        assert s.open_groups("c1") == ["c1|2"]

    def test_claim_only_takes_rows_of_the_court(self, db: Path) -> None:
        s = self.open(db)
        s.add(new("case|c2|1", court="c2"), 1)
        assert s.claim("c1", 1, busy_groups=[], held=[]) is None
        assert s.has_pending("c2")
        assert not s.has_pending("c1")

    def test_finish_records_outcome_once(self, db: Path) -> None:
        s = self.open(db)
        rid = s.add(new("case|c1|1"), 1)
        assert rid is not None
        assert not s.finish(rid, 1, ok=False, reason="x")  # not inflight yet
        s.claim("c1", 1, busy_groups=[], held=[])
        assert s.finish(rid, 1, ok=False, reason="HTTP 503", http_status=503)
        assert not s.finish(rid, 1, ok=True)  # first outcome wins
        report = s.status_report()
        assert report.latest_errors[0]["last_error"] == "HTTP 503"
        assert report.latest_errors[0]["last_status"] == 503

    def test_retry_is_a_transition_of_the_same_row(self, db: Path) -> None:
        s = self.open(db)
        rid = s.add(new("case|c1|1", priority=10), 1)
        assert rid is not None
        s.claim("c1", 1, busy_groups=[], held=[])
        assert s.retry(rid, 1, url="http://127.0.0.1/b", priority=9, retries=1)
        assert s.count() == 1
        c = s.claim("c1", 1, busy_groups=[], held=[])
        assert c is not None
        assert (c.id, c.attempts, c.retries, c.blob) == (rid, 2, 1, b"case|c1|1")
        assert not s.retry(rid + 1, 1, url="u", priority=0, retries=1)

    def test_release_inflight_by_court_and_by_ids(self, db: Path) -> None:
        s = self.open(db)
        ids = [s.add(new(f"case|c1|{i}"), 1) for i in range(3)]
        other = s.add(new("case|c2|1", court="c2"), 1)
        for _ in range(3):
            s.claim("c1", 1, busy_groups=[], held=[])
        s.claim("c2", 1, busy_groups=[], held=[])
        assert s.release_inflight("c1", 2, ids=[ids[0] or 0], why="close") == 1
        assert s.release_inflight("c1", 2, why="open") == 2
        assert s.count(court="c1", status=Status.PENDING) == 3
        assert s.count(court="c2", status=Status.INFLIGHT) == 1
        assert other is not None

    def test_requeue_filters_and_counts(self, db: Path) -> None:
        s = self.open(db)
        rows = {
            "tab|c1|1|a": "HTTP 500",
            "tab|c1|2|a": "unavailable: route broken",
            "case|c1|3": "HTTP 500",
            "case|c2|4": "DownloadTimeoutError: took longer than 5 seconds",
        }
        for key, reason in rows.items():
            court = key.split("|")[1]
            rid = s.add(new(key, court=court), 1)
            assert rid is not None
            s.claim(court, 1, busy_groups=[], held=[])
            s.finish(rid, 1, ok=False, reason=reason)
        assert s.requeue(ErrorFilter(kind="tab"), dry_run=True) == 2
        assert s.count(status=Status.ERROR) == 4  # dry run changed nothing
        assert s.requeue(ErrorFilter(reason="http 5", court="c1")) == 2
        assert s.requeue(ErrorFilter(older_than="2000-01-01T00:00:00.000Z")) == 0
        assert s.requeue(ErrorFilter(older_than="2999-01-01T00:00:00.000Z")) == 2
        assert s.count(status=Status.PENDING) == 4
        c = s.claim("c1", 1, busy_groups=[], held=[])
        assert c is not None
        assert c.attempts == 2
        assert c.retries == 0

    def test_status_report(self, db: Path) -> None:
        s = self.open(db)
        run_id, killed = s.start_run(RUN)
        assert killed == []
        for i in range(5):
            s.add(new(f"case|c1|{i}"), run_id)
        s.add(new("tab|c1|0|a"), run_id)
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        s.finish(c.id, run_id, ok=False, reason="HTTP 404", http_status=404)
        s.log_exchange(run_id, Exchange(c.id, "GET", "u", "u", 404, "response", 10, 1.5))
        report = s.status_report(limit=3)
        assert report.totals() == {"pending": 5, "inflight": 0, "ok": 0, "error": 1}
        assert {(r["kind"], r["status"], r["count"]) for r in report.counts} == {
            ("case", "pending", 4),
            ("tab", "pending", 1),
            ("case", "error", 1),
        }
        assert len(report.oldest_pending) == 3
        assert [e["key"] for e in report.latest_errors] == [c.key]
        assert report.runs[0]["job"] == "job-7"
        assert report.runs[0]["ended_at"] is None
        assert s.status_report(court="nope").totals() == dict.fromkeys(
            ["pending", "inflight", "ok", "error"], 0
        )

    def test_parse_warnings_are_recorded_with_the_ok_and_counted_per_label(self, db: Path) -> None:
        s = self.open(db)
        run_id, _ = s.start_run(RUN)
        for key in ("tab|c1|1|saksi", "tab|c1|2|saksi", "case|c1|3", "case|c2|4"):
            s.add(new(key, court=key.split("|")[1]), run_id)
        saksi = PageWarning("tab:saksi", "saksi", "page")
        row = PageWarning("detail", "Nama Baru", "row", 2)
        ids = {}
        for court in ("c1", "c2"):
            while (c := s.claim(court, run_id, busy_groups=[], held=[])) is not None:
                ids[c.key] = c.id
        s.finish(ids["tab|c1|1|saksi"], run_id, ok=True, warnings=[saksi])
        # an error records no warnings (its page was not parsed into data)
        s.finish(ids["tab|c1|2|saksi"], run_id, ok=False, reason="HTTP 500", warnings=[saksi])
        s.finish(ids["case|c1|3"], run_id, ok=True, warnings=[row])
        s.finish(ids["case|c2|4"], run_id, ok=True, warnings=[row])
        report = s.status_report()
        assert [(w["court"], w["page"], w["label"], w["kind"], w["pages"], w["count"])
                for w in report.warnings] == [
            ("c1", "detail", "Nama Baru", "row", 1, 2),
            ("c1", "tab:saksi", "saksi", "page", 1, 1),
            ("c2", "detail", "Nama Baru", "row", 1, 2),
        ]  # fmt: skip
        assert report.warnings[1]["example_url"] == "http://127.0.0.1/tab|c1|1|saksi"
        assert report.as_dict()["parse_warnings"] == report.warnings
        assert [w["court"] for w in s.status_report(court="c2").warnings] == ["c2"]
        assert len(s.status_report(limit=1).warnings) == 1
        # requeued and parsed again: its ok records its warnings
        assert s.requeue(ErrorFilter(kind="tab")) == 1
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        assert c.id == ids["tab|c1|2|saksi"]
        s.finish(c.id, run_id, ok=True, warnings=[saksi])
        report = s.status_report()
        assert [(w["court"], w["page"], w["pages"], w["count"]) for w in report.warnings] == [
            ("c1", "tab:saksi", 2, 2),
            ("c1", "detail", 1, 2),
            ("c2", "detail", 1, 2),
        ]
        s.close()

    def test_an_older_generations_row_is_renewed_once_per_generation(self, db: Path) -> None:
        s = self.open(db)
        run_id, _ = s.start_run(RUN)
        key = "case|c1|1/Pid.B/2024/PN X"
        rid = s.add(new(key, group="g"), run_id)
        assert rid is not None
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        assert c.id == rid
        s.finish(rid, run_id, ok=True, http_status=200)
        [first] = s.row_states("c1", "case")
        assert (first.status, first.generation) == ("ok", 0)
        assert first.succeeded_at is not None
        # the same generation (a resumed crawl re-yielding its seeds): duplicate, nothing changes
        assert s.add(new(key, group="g"), run_id) is None
        # a refresh (generation 1): the same row back to pending with the new request
        assert s.add(new(key, group="g", generation=1, blob=b"render 2"), run_id) == rid
        [renewed] = s.row_states("c1", "case")
        assert (renewed.status, renewed.generation) == ("pending", 1)
        assert renewed.succeeded_at == first.succeeded_at  # the last success is kept
        assert s.count(court="c1", status=Status.PENDING) == 1
        assert s.count(court="c1", status=Status.OK) == 0
        # within generation 1 (pending, and later ok) and from an older one: duplicates
        assert s.add(new(key, generation=1, blob=b"render 3"), run_id) is None
        assert s.add(new(key, generation=0), run_id) is None
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        assert (c.id, c.blob, c.attempts) == (rid, b"render 2", 1)  # attempts reset
        s.finish(rid, run_id, ok=False, reason="HTTP 500")
        assert s.add(new(key, generation=1), run_id) is None
        # an error row of generation 1 is renewed by generation 2, its error cleared
        assert s.add(new(key, generation=2), run_id) == rid
        assert s.status_report().latest_errors == []
        assert [e for e, _ in events_of(s, rid)] == [
            "enqueued", "dispatched", "ok", "renewed", "dispatched", "error", "renewed",
        ]  # fmt: skip
        assert ("renewed", "generation 2") in events_of(s, rid)
        # a row in flight is never renewed under its request
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        assert s.add(new(key, generation=3), run_id) is None
        [inflight] = s.row_states("c1", "case")
        assert (inflight.status, inflight.generation) == ("inflight", 2)

    def test_generations_begin_resume_and_finish(self, db: Path) -> None:
        s = self.open(db)
        run_id, _ = s.start_run(RUN)
        g0 = s.begin_generation("c1", policy="due", today="2024-06-19", run_id=run_id)
        # nothing harvested yet: generation 0, the first harvest, whatever was asked
        assert (g0.number, g0.policy, g0.today) == (0, "initial", "2024-06-19")
        assert g0.started_now
        again = s.begin_generation("c1", policy="all", today="2024-06-20", run_id=run_id)
        assert (again.number, again.policy, again.started_now) == (0, "initial", False)
        s.add(new("list|c1|all|1"), run_id)
        assert s.finish_generation_if_done("c1", 0) is False
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        assert s.finish_generation_if_done("c1", 0) is False  # in flight
        s.finish(c.id, run_id, ok=True)
        assert s.finish_generation_if_done("c1", 0) is True
        [done] = s.generations("c1")
        assert done.finished
        # a plain crawl of the finished court: the finished generation, nothing new
        plain = s.begin_generation("c1", policy="none", today="2024-06-26", run_id=run_id)
        assert (plain.number, plain.finished, plain.started_now) == (0, True, False)
        g1 = s.begin_generation("c1", policy="due", today="2024-06-26", run_id=run_id)
        assert (g1.number, g1.policy, g1.today, g1.started_now) == (1, "due", "2024-06-26", True)
        # unfinished: resumed, whatever is asked
        resumed = s.begin_generation("c1", policy="all", today="2024-07-01", run_id=run_id)
        assert (resumed.number, resumed.policy, resumed.today) == (1, "due", "2024-06-26")
        assert s.add(new("list|c1|all|1", generation=1), run_id) is not None
        assert s.finish_generation_if_done("c1", 1) is False
        other = s.begin_generation("c2", policy="none", today="2024-06-26", run_id=run_id)
        assert (other.court, other.number) == ("c2", 0)
        assert [(g.court, g.number, g.finished) for g in s.generations()] == [
            ("c1", 0, True),
            ("c1", 1, False),
            ("c2", 0, False),
        ]
        with pytest.raises(ValueError, match="refresh policy"):
            s.begin_generation("c1", policy="sometimes", today="2024-06-26", run_id=run_id)


class TestMemoryStore(StoreContract):
    def make(self, path: Path) -> MemoryRequestStore:
        return MemoryRequestStore.open(path)


class TestSqliteStore(StoreContract):
    def make(self, path: Path) -> SqliteRequestStore:
        return SqliteRequestStore.open(path)

    def test_close_and_reopen_keeps_the_events(self, db: Path) -> None:
        a = self.close_reopen_and_claim_again(db)
        events = sqlite3.connect(db).execute(
            "SELECT event FROM events WHERE request_id = ? ORDER BY id", (a,)
        )
        assert [e for (e,) in events] == ["enqueued", "dispatched", "released", "dispatched"]

    def test_files_are_private_and_wal(self, db: Path) -> None:
        s = self.open(db)
        s.add(new("case|c1|1"), 1)
        for suffix in ("", "-wal", "-shm"):
            p = Path(f"{db}{suffix}")
            if p.exists():
                assert stat.S_IMODE(p.stat().st_mode) == 0o600
        assert sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0] == "wal"

    def test_damaged_file_is_a_clear_error(self, db: Path) -> None:
        db.write_bytes(b"this is not a database" * 100)
        with pytest.raises(StateError, match="damaged or not a harvest state database"):
            self.open(db)
        assert db.read_bytes().startswith(b"this is not")  # nothing overwritten

    def test_other_schema_version_is_refused(self, db: Path) -> None:
        self.open(db).close()
        sqlite3.connect(db).execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        with pytest.raises(StateError, match="schema version"):
            self.open(db)

    def test_a_version_1_state_is_read_without_warnings_and_upgraded_on_write(
        self, db: Path
    ) -> None:
        s = self.open(db)
        run_id, _ = s.start_run(RUN)
        s.add(new("case|c1|1"), run_id)
        s.close()
        con = sqlite3.connect(db)
        for name in ("parse_warnings_insert", "parse_warnings_delete"):
            con.execute(f"DROP TRIGGER {name}")
        con.execute("DROP TABLE parse_warnings")
        con.execute("DROP TABLE parse_warning_counts")
        con.execute("PRAGMA user_version = 1")
        con.commit()
        con.close()
        ro = SqliteRequestStore.open(db, readonly=True)
        assert ro.status_report().warnings == []
        assert ro.status_report().totals()["pending"] == 1
        ro.close()
        s = self.open(db)
        c = s.claim("c1", run_id, busy_groups=[], held=[])
        assert c is not None
        s.finish(c.id, run_id, ok=True, warnings=[PageWarning("detail", "X", "row")])
        assert [w["label"] for w in s.status_report().warnings] == ["X"]
        s.close()
        assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION

    def test_a_version_2_state_is_migrated_to_generations(self, db: Path) -> None:
        s = self.open(db)
        run_id, _ = s.start_run(RUN)
        for key, court in (("case|c1|1", "c1"), ("case|c1|2", "c1"), ("case|c2|1", "c2")):
            s.add(new(key, court=court), run_id)
        for court in ("c1", "c2"):
            c = s.claim(court, run_id, busy_groups=[], held=[])
            assert c is not None
            s.finish(c.id, run_id, ok=True)
        s.close()
        # make it the version 2 file the previous release wrote: no generations table, no
        # generation/succeeded_at columns, the transition trigger without 'renewed'
        con = sqlite3.connect(db)
        trigger = con.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'requests_transition'"
        ).fetchone()[0]
        con.execute("DROP TRIGGER requests_transition")
        con.execute("DROP TABLE generations")
        con.execute("ALTER TABLE requests DROP COLUMN generation")
        con.execute("ALTER TABLE requests DROP COLUMN succeeded_at")
        old = "\n".join(line for line in trigger.splitlines() if "'renewed'" not in line)
        con.execute(old)
        con.execute("PRAGMA user_version = 2")
        con.commit()
        con.close()
        ro = SqliteRequestStore.open(db, readonly=True)
        assert ro.generations() == []
        assert {r.generation for r in ro.row_states("c1", "case")} == {0}
        ro.close()
        s = self.open(db)
        assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        gens = {g.court: g for g in s.generations()}
        assert (gens["c1"].number, gens["c1"].policy, gens["c1"].finished) == (0, "initial", False)
        assert (gens["c2"].number, gens["c2"].finished) == (0, True)
        states = {r.key: r for r in s.row_states("c1", "case")}
        assert states["case|c1|1"].generation == 0
        assert states["case|c1|1"].succeeded_at is not None  # its ok's time
        assert states["case|c1|2"].succeeded_at is None  # still pending
        # a refresh renews the migrated rows, with the new trigger's detail
        rid = s.add(new("case|c2|1", court="c2", generation=1), run_id)
        assert rid is not None
        assert events_of(s, rid)[-1] == ("renewed", "generation 1")
        s.close()

    def test_readonly_without_state_is_a_clear_error(self, db: Path) -> None:
        with pytest.raises(StateError, match="nothing has been crawled"):
            SqliteRequestStore.open(db, readonly=True)
        assert not db.exists()

    def test_crawl_lock_refuses_a_live_holder_and_names_it(self, db: Path) -> None:
        s1 = self.open(db)
        s1.acquire_crawl_lock(RUN)
        s1.start_run(RUN)
        s2 = self.open(db)
        with pytest.raises(CrawlLocked) as info:
            s2.acquire_crawl_lock(RUN)
        message = str(info.value)
        assert f"pid {os.getpid()}" in message
        assert "host h" in message
        assert "job job-7" in message
        assert "started_at t0" in message
        other = RunInfo(**{**RUN.__dict__, "court": "c2"})
        s2.acquire_crawl_lock(other)  # another court crawls concurrently
        s1.close()
        s2.release_crawl_lock()
        s2.acquire_crawl_lock(RUN)  # released on close

    def test_dead_holder_is_taken_over(self, db: Path, tmp_path: Path) -> None:
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                (
                    "import os, sys, time\n"
                    "from pathlib import Path\n"
                    "from extensions.sqlite_store import SqliteRequestStore\n"
                    "from extensions.store import RunInfo\n"
                    f"s = SqliteRequestStore.open(Path({str(db)!r}))\n"
                    "run = RunInfo('c1', 's', os.getpid(), 'h', None, 't')\n"
                    "s.acquire_crawl_lock(run); s.start_run(run)\n"
                    "print('locked', flush=True); time.sleep(60)\n"
                ),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        s = self.open(db)
        with pytest.raises(CrawlLocked, match=f"pid {holder.pid}"):
            s.acquire_crawl_lock(RUN)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        holder.stdout.close()
        s.acquire_crawl_lock(RUN)
        run_id, killed = s.start_run(RUN)
        assert killed == [1]
        assert run_id == 2
        report = s.status_report()
        assert [(r["id"], r["close_reason"]) for r in report.runs] == [(2, None), (1, "killed")]


class TestSqliteStoreGroupCommit(StoreContract):
    """The contract holds under group commit too (commits only where the store makes them)."""

    def make(self, path: Path) -> SqliteRequestStore:
        self.scheduled: list[Callable[[], None]] = []
        return SqliteRequestStore.open(path, defer_commit=self.scheduled.append)

    def test_transitions_are_durable_at_the_deferred_commit(self, db: Path) -> None:
        s = self.open(db)
        run_id, _ = s.start_run(RUN)  # a transaction of its own: committed at once
        assert self.scheduled == []
        s.add(new("case|c1|1"), run_id)
        s.add(new("case|c1|2"), run_id)
        claimed = s.claim("c1", run_id, busy_groups=[], held=[])
        assert claimed is not None
        assert len(self.scheduled) == 1  # one commit for the whole turn
        other = sqlite3.connect(db)
        assert other.execute("SELECT count(*) FROM requests").fetchone() == (0,)
        self.scheduled.pop()()
        assert other.execute("SELECT status FROM requests ORDER BY id").fetchall() == [
            ("inflight",),
            ("pending",),
        ]
        assert other.execute(
            "SELECT event FROM events WHERE request_id IS NOT NULL ORDER BY id"
        ).fetchall() == [("enqueued",), ("enqueued",), ("dispatched",)]
        s.finish(claimed.id, run_id, ok=True)
        assert len(self.scheduled) == 1  # the next transition opens the next group
        s.end_run(run_id, "finished")  # commits the group first, then its own transaction
        assert other.execute("SELECT status FROM requests ORDER BY id").fetchall() == [
            ("ok",),
            ("pending",),
        ]
        assert other.execute("SELECT close_reason FROM runs").fetchall() == [("finished",)]
        s.add(new("case|c1|3"), run_id)
        s.close()  # commits what is left
        self.scheduled.pop()()  # a commit scheduled before close finds nothing to do
        assert other.execute("SELECT count(*) FROM requests").fetchone() == (3,)

    def test_a_crash_loses_only_the_uncommitted_turn(self, db: Path) -> None:
        script = (
            "import os\n"
            "from pathlib import Path\n"
            "from extensions.sqlite_store import SqliteRequestStore\n"
            "from tests.support.store import RUN, new\n"
            "commits = []\n"
            f"s = SqliteRequestStore.open(Path({str(db)!r}), defer_commit=commits.append)\n"
            "run_id, _ = s.start_run(RUN)\n"
            "s.add(new('case|c1|1'), run_id)\n"
            "s.claim('c1', run_id, busy_groups=[], held=[])\n"
            "commits.pop()()\n"
            "s.finish(1, run_id, ok=True)\n"
            "s.add(new('case|c1|2'), run_id)\n"
            "os.kill(os.getpid(), 9)\n"
        )
        proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, check=False)
        assert proc.returncode == -signal.SIGKILL
        s = SqliteRequestStore.open(db)
        # the committed turn (add + claim) survived; the lost one (ok + a new row) reverts:
        # the row is in flight, and the next run's open puts it back to pending
        assert s.count(status=Status.INFLIGHT) == 1
        assert s.count() == 1
        assert s.release_inflight("c1", 2, why="open") == 1
        s.close()


def test_kind_and_court() -> None:
    assert kind_and_court("tab|pn-x|1/Pid.B/2024/PN X|saksi") == ("tab", "pn-x")
    assert kind_and_court("list|pn-x|all|3") == ("list", "pn-x")
    assert kind_and_court("other|pn-x|abc") is None
    assert kind_and_court("something") is None


class TestPostgresStore(StoreContract):
    """The contract on PostgreSQL (a database per test on the throwaway server:
    tests/support/postgres.py); its own behaviour: tests/scheduler/test_pg_store.py."""

    @pytest.fixture(autouse=True)
    def _close_opened(self, pg_database: str) -> Iterator[None]:
        # after pg_database in setup: the stores are closed before the database is dropped
        self.url = pg_database
        self._opened = []
        yield
        for store in reversed(self._opened):
            store.close()

    def make(self, path: Path) -> PostgresRequestStore:  # type: ignore[override]
        return PostgresRequestStore.open(self.url)


class TestPostgresStoreGroupCommit(TestPostgresStore):
    def make(self, path: Path) -> PostgresRequestStore:  # type: ignore[override]
        self.scheduled: list[Callable[[], None]] = []
        return PostgresRequestStore.open(self.url, defer_commit=self.scheduled.append)
