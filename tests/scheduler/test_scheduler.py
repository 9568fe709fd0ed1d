"""HarvestScheduler without a reactor: engine contract, dedupe, groups, transitions, outcomes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.request import RequestFingerprinter
from twisted.python.failure import Failure

from extensions.config import SchedulerConfig
from extensions.scheduler import HarvestScheduler
from extensions.store import CrawlLocked
from harvest.base.meta import META_PARENT, META_RID
from harvest.base.settings_error import SettingsError
from tests.support.scheduler import StatsStub, UnitSpider, req


def make(
    ws: Path, spider: UnitSpider | None = None, **config: Any
) -> tuple[HarvestScheduler, StatsStub]:
    stats = StatsStub()
    s = HarvestScheduler(
        # without a reactor there is no end of turn: commit each transition (group commit is
        # covered by test_store and by every crawl test)
        config=SchedulerConfig(workspace=str(ws), commit="each", **config),
        stats=stats,  # type: ignore[arg-type]
        fingerprint=RequestFingerprinter().fingerprint,
    )
    s.open(spider or UnitSpider())
    return s, stats


def rows(ws: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(ws / "state.sqlite")
    try:
        return db.execute(
            "SELECT key, kind, court, status, attempts FROM requests ORDER BY id"
        ).fetchall()
    finally:
        db.close()


def respond(request: Request, status: int = 200) -> HtmlResponse:
    return HtmlResponse(request.url, status=status, body=b"<html></html>", request=request)


def test_new_keys_are_rows_and_known_keys_are_duplicates(ws: Path) -> None:
    s, stats = make(ws)
    assert s.enqueue_request(req("case|c1|1"))
    assert not s.enqueue_request(req("case|c1|1", dont_filter=True))  # seeds re-yielded
    assert s.enqueue_request(req(None, "http://127.0.0.1/a?b=2&a=1"))
    assert not s.enqueue_request(req(None, "http://127.0.0.1/a?a=1&b=2#frag"))  # same fingerprint
    assert len(s) == 2
    assert s.has_pending_requests()
    got = rows(ws)
    assert got[0] == ("case|c1|1", "case", "c1", "pending", 0)
    assert got[1][0].startswith("other|c1|")
    assert got[1][1:3] == ("other", "c1")
    assert stats.values["harvest/scheduler/duplicate"] == 2
    assert stats.values["scheduler/enqueued"] == 2


def test_next_request_rebuilds_the_request_in_priority_order(ws: Path) -> None:
    s, stats = make(ws)
    s.enqueue_request(req("list|c1|all|1", priority=0))
    s.enqueue_request(req("case|c1|1", priority=10, meta={"x": [1, 2]}))
    s.enqueue_request(req("tab|c1|1|a", priority=20))
    first = s.next_request()
    assert first is not None
    assert first.meta["harvest_key"] == "tab|c1|1|a"
    assert isinstance(first.meta[META_RID], int)
    assert first.callback is not None
    assert first.callback.__name__ == "parse_case"
    second = s.next_request()
    assert second is not None
    assert second.meta["x"] == [1, 2]
    assert stats.values["scheduler/dequeued"] == 2
    assert [r[3] for r in rows(ws)] == ["pending", "inflight", "inflight"]


def test_one_request_of_a_group_in_flight(ws: Path) -> None:
    s, _ = make(ws)
    s.enqueue_request(req("tab|c1|1|a", priority=20, meta={"harvest_group": "g1"}))
    s.enqueue_request(req("tab|c1|1|b", priority=20, meta={"harvest_group": "g1"}))
    s.enqueue_request(req("case|c1|2", priority=10, meta={"harvest_group": "g2"}))
    a = s.next_request()
    assert a is not None
    assert a.meta["harvest_key"] == "tab|c1|1|a"
    nxt = s.next_request()
    assert nxt is not None
    assert nxt.meta["harvest_key"] == "case|c1|2"
    assert s.next_request() is None
    assert s.has_pending_requests()
    rid = s.output_started(respond(a))
    assert rid is not None
    s.output_done(rid)
    b = s.next_request()
    assert b is not None
    assert b.meta["harvest_key"] == "tab|c1|1|b"


def finish_ok(s: HarvestScheduler, request: Request, *children: Request) -> None:
    """The callback of ``request`` yields ``children`` and ends: its row is ok."""
    rid = s.output_started(respond(request))
    assert rid is not None
    for child in children:
        s.output_request(rid, child)
        s.enqueue_request(child)
    s.output_done(rid)


def case(n: int) -> Request:
    return req(f"case|c1|{n}", priority=10, meta={"harvest_group": f"c1|{n}"})


def tab(n: int, slug: str) -> Request:
    return req(f"tab|c1|{n}|{slug}", priority=20, meta={"harvest_group": f"c1|{n}"})


def test_case_cap_finishes_started_cases_before_starting_more(ws: Path) -> None:
    # concurrency 1 + lookahead 1: at most two cases at once
    s, stats = make(ws, court_concurrency=1, case_lookahead=1)
    for n in (1, 2, 3):
        s.enqueue_request(case(n))
    s.enqueue_request(req("list|c1|all|2", priority=0))
    c1, c2 = s.next_request(), s.next_request()
    assert c1 is not None
    assert c2 is not None
    assert [c1.meta["harvest_key"], c2.meta["harvest_key"]] == ["case|c1|1", "case|c1|2"]
    assert s.next_request() is None  # the cap: neither case 3 nor the next list page
    assert s.has_pending_requests()
    finish_ok(s, c1, tab(1, "a"), tab(1, "b"))  # case 1 goes on with its tabs
    t1a = s.next_request()
    assert t1a is not None
    assert t1a.meta["harvest_key"] == "tab|c1|1|a"
    assert s.next_request() is None  # case 1's next tab waits for its group; case 3 waits
    finish_ok(s, c2)  # case 2 had no tab: done, a place is free
    c3 = s.next_request()
    assert c3 is not None
    assert c3.meta["harvest_key"] == "case|c1|3"
    assert s.next_request() is None
    finish_ok(s, t1a)
    t1b = s.next_request()
    assert t1b is not None
    assert t1b.meta["harvest_key"] == "tab|c1|1|b"
    finish_ok(s, t1b)
    lst = s.next_request()  # case 1 done: the list page may go now
    assert lst is not None
    assert lst.meta["harvest_key"] == "list|c1|all|2"
    assert stats.values["harvest/scheduler/cases_started"] == 3
    assert stats.values["harvest/scheduler/cases_finished"] == 2


def test_case_cap_survives_a_restart_with_started_cases_first(ws: Path) -> None:
    s, _ = make(ws, court_concurrency=1, case_lookahead=1)
    for n in (1, 2, 3, 4):
        s.enqueue_request(case(n))
    c1, c2 = s.next_request(), s.next_request()
    assert c1 is not None
    assert c2 is not None
    finish_ok(s, c1, tab(1, "a"))
    # a crash: nothing closes (case 2 stays in flight, case 1 has a tab pending)
    assert s._store is not None
    s._store.close()
    s._store = None
    s, _ = make(ws, court_concurrency=1, case_lookahead=1)
    got = [s.next_request(), s.next_request()]
    assert [r.meta["harvest_key"] for r in got if r is not None] == ["tab|c1|1|a", "case|c1|2"]
    assert s.next_request() is None  # cases 3 and 4 wait for the started ones
    for r in got:
        assert r is not None
        finish_ok(s, r)
    nxt = s.next_request()
    assert nxt is not None
    assert nxt.meta["harvest_key"] == "case|c1|3"


def test_case_cap_off_starts_every_case(ws: Path) -> None:
    s, _ = make(ws, court_concurrency=1, case_lookahead=-1)
    for n in (1, 2, 3, 4):
        s.enqueue_request(case(n))
    assert all(s.next_request() is not None for _ in range(4))


def test_case_cap_is_the_court_concurrency_plus_the_lookahead() -> None:
    config = SchedulerConfig(
        workspace="", court_concurrency=2, case_lookahead=1, slot_concurrency=(("slow.id", 1),)
    )
    assert config.case_cap("sipp.pn-x.go.id") == 3
    assert config.case_cap("slow.id") == 2
    assert SchedulerConfig(workspace="", case_lookahead=-1).case_cap("x") is None
    with pytest.raises(SettingsError, match="HARVEST_CASE_LOOKAHEAD must be a whole number >= 0"):
        SchedulerConfig(workspace="", case_lookahead=-2)


def test_retry_is_a_transition_of_the_row(ws: Path) -> None:
    s, stats = make(ws)
    s.enqueue_request(req("case|c1|1", meta={"harvest_group": "g"}))
    s.enqueue_request(req("case|c1|2", meta={"harvest_group": "g"}, priority=-5))
    first = s.next_request()
    assert first is not None
    retry = first.copy()
    retry.meta["retry_times"] = 1
    retry.dont_filter = True
    assert s.enqueue_request(retry)
    assert rows(ws)[0][3] == "pending"
    assert len(rows(ws)) == 2
    again = s.next_request()  # the group stays reserved for the retried row
    assert again is not None
    assert again.meta["harvest_key"] == "case|c1|1"
    assert again.meta["retry_times"] == 1
    assert rows(ws)[0][4] == 2
    assert stats.values["harvest/scheduler/retried"] == 1


def redirect_hop(s: HarvestScheduler, url: str, target_url: str) -> None:
    """Enqueue and dispatch ``case|c1|1`` at ``url``, then enqueue its redirect to ``target_url``
    (as RedirectMiddleware makes it)."""
    s.enqueue_request(req("case|c1|1", url))
    first = s.next_request()
    assert first is not None
    target = first.replace(url=target_url)
    target.meta["redirect_urls"] = [first.url]
    assert s.enqueue_request(target)


def test_redirect_is_followed_in_run_and_restarts_from_the_original_after_a_crash(
    ws: Path,
) -> None:
    s, _ = make(ws)
    redirect_hop(s, "http://127.0.0.1/show/tok", "http://127.0.0.1/detail")
    # a hop is no transition: the row stays in flight with one attempt, nothing is written
    assert rows(ws) == [("case|c1|1", "case", "c1", "inflight", 1)]
    assert len(s) == 1
    assert s.has_pending_requests()
    followed = s.next_request()
    assert followed is not None
    assert followed.url == "http://127.0.0.1/detail"
    assert not s.has_pending_requests()
    # a retry of the redirect target restarts the chain from the original request
    retry = followed.copy()
    retry.meta["retry_times"] = 1
    assert s.enqueue_request(retry)
    restarted = s.next_request()
    assert restarted is not None
    assert restarted.url == "http://127.0.0.1/show/tok"
    assert restarted.meta["retry_times"] == 1
    assert "redirect_urls" not in restarted.meta
    # crash: the process dies with the row in flight; the next run resends the original
    s.store.release_crawl_lock()
    s2, stats2 = make(ws)
    resent = s2.next_request()
    assert resent is not None
    assert resent.url == "http://127.0.0.1/show/tok"
    assert resent.meta["retry_times"] == 1
    assert stats2.values["harvest/scheduler/released"] == 1


def test_the_outcome_of_a_redirected_row_records_where_it_led(ws: Path) -> None:
    s, _ = make(ws)
    redirect_hop(s, "http://user:pw@127.0.0.1/show/tok", "http://user:pw@127.0.0.1/detail")
    followed = s.next_request()
    assert followed is not None
    rid = s.output_started(respond(followed))
    assert rid is not None
    s.output_done(rid)
    db = sqlite3.connect(ws / "state.sqlite")
    assert db.execute("SELECT status, attempts, url FROM requests").fetchall() == [
        ("ok", 1, "http://127.0.0.1/detail")
    ]
    assert [e for (e,) in db.execute("SELECT event FROM events WHERE request_id = 1")] == [
        "enqueued",
        "dispatched",
        "ok",
    ]


def test_ok_only_after_children_committed_and_items_stored(ws: Path) -> None:
    s, _ = make(ws)
    s.enqueue_request(req("case|c1|1"))
    parent = s.next_request()
    assert parent is not None
    response = respond(parent)
    rid = s.output_started(response)
    assert rid is not None
    child = req("tab|c1|1|a")
    child.meta[META_RID] = rid  # copied meta must not make it a re-dispatch of the parent
    s.output_request(rid, child)
    s.output_item(rid)
    s.output_done(rid)
    assert rows(ws)[0][3] == "inflight"
    assert s.enqueue_request(child)
    assert META_PARENT not in child.meta
    assert rows(ws)[0][3] == "inflight"
    assert rows(ws)[1][:4] == (
        "tab|c1|1|a",
        "tab",
        "c1",
        "pending",
    )
    s._item_scraped({"x": 1}, response)
    assert rows(ws)[0][3] == "ok"


def test_item_error_and_callback_error_keep_the_reason(ws: Path) -> None:
    s, _ = make(ws)
    s.enqueue_request(req("case|c1|1"))
    s.enqueue_request(req("case|c1|2"))
    a, b = s.next_request(), s.next_request()
    assert a is not None
    assert b is not None
    ra = s.output_started(respond(a))
    assert ra is not None
    s.output_item(ra)
    s.output_done(ra)
    s._item_error({}, respond(a), Failure(ValueError("disk full")))
    rb = s.output_started(respond(b))
    assert rb is not None
    s.output_failed(rb, KeyError("tabs"))
    errors = dict(
        sqlite3.connect(ws / "state.sqlite").execute(
            "SELECT key, last_error FROM requests WHERE status = 'error'"
        )
    )
    assert errors == {
        "case|c1|1": "item not stored: ValueError: disk full",
        "case|c1|2": "KeyError: 'tabs'",
    }


def test_fail_strips_credentials(ws: Path) -> None:
    s, _ = make(ws)
    s.enqueue_request(req("case|c1|1"))
    r = s.next_request()
    assert r is not None
    s.fail(r, "TunnelError: proxy http://user:s3cret@proxy:8080 refused, token=abc123")
    (reason,) = (
        sqlite3.connect(ws / "state.sqlite").execute("SELECT last_error FROM requests").fetchone()
    )
    assert "s3cret" not in reason
    assert "abc123" not in reason
    assert reason == "TunnelError: proxy http://proxy:8080 refused, token=***"


def _not_a_method(response: object) -> None:
    """A callback that is not a spider method: cannot be stored."""


def test_unserializable_request_fails_loudly(ws: Path, caplog: pytest.LogCaptureFixture) -> None:
    s, stats = make(ws)
    bad = Request("http://127.0.0.1/x", callback=_not_a_method, meta={"harvest_key": "case|c1|1"})
    assert not s.enqueue_request(bad)
    assert stats.values["harvest/scheduler/unserializable"] == 1
    assert "must be methods of the spider" in caplog.text
    assert rows(ws) == []
    assert s.next_request() is None


def test_close_releases_in_flight_and_records_the_run(ws: Path) -> None:
    s, _ = make(ws)
    s.enqueue_request(req("case|c1|1"))
    assert s.next_request() is not None
    s.close("shutdown")
    db = sqlite3.connect(ws / "state.sqlite")
    assert db.execute("SELECT status FROM requests").fetchall() == [("pending",)]
    assert db.execute("SELECT close_reason, ended_at IS NOT NULL FROM runs").fetchall() == [
        ("shutdown", 1)
    ]
    s2, _ = make(ws)  # lock released by close
    assert len(s2) == 1


def test_second_scheduler_of_the_court_refuses(ws: Path) -> None:
    make(ws)
    with pytest.raises(CrawlLocked, match="already being crawled"):
        make(ws)
    other = UnitSpider()
    other.court_id = "c2"
    make(ws, other)  # another court on the same workspace is fine


def test_config_validates() -> None:
    with pytest.raises(SettingsError, match="HARVEST_STATE_SYNCHRONOUS"):
        SchedulerConfig(workspace="/x", synchronous="OFF")
    with pytest.raises(SettingsError, match="HARVEST_STATE_BUSY_TIMEOUT"):
        SchedulerConfig(workspace="/x", busy_timeout=0)
    with pytest.raises(SettingsError, match="cannot be imported"):
        SchedulerConfig(workspace="/x", store="nowhere.Store")
    with pytest.raises(SettingsError, match="HARVEST_STATE_COMMIT must be one of turn, each"):
        SchedulerConfig(workspace="/x", commit="sometimes")


def test_the_scheduler_runs_unchanged_on_another_store(ws: Path) -> None:
    store = "extensions.memory_store.MemoryRequestStore"
    s = HarvestScheduler(
        config=SchedulerConfig(workspace=str(ws), store=store),
        stats=None,
        fingerprint=RequestFingerprinter().fingerprint,
    )
    s.open(UnitSpider())
    assert s.enqueue_request(req("case|c1|1", meta={"harvest_group": "g"}))
    assert not s.enqueue_request(req("case|c1|1"))
    r = s.next_request()
    assert r is not None
    rid = s.output_started(respond(r))
    assert rid is not None
    s.output_done(rid)
    report = s.store.status_report()
    assert report.totals() == {"pending": 0, "inflight": 0, "ok": 1, "error": 0}
    s.close("finished")
    assert not (ws / "state.sqlite").exists()
