"""Refreshing a harvested court against the replica, as a user does it (issue 14).

The replica serves a court as it stands on its day (``reference.sipp_site.court.TODAY``); a
replica started again with ``--registered N`` is the same court after N more registrations (the
newest first on the list, every older row pushed down N places, nothing else changed). The
policy's day is pinned to the replica's (``HARVEST_REFRESH_TODAY``), so no known case is due:
a ``-a refresh=due`` must fetch exactly the new cases and the list pages up to the first page
of known, unchanged rows.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from pipelines.store import ItemStore
from reference.sipp_site.court import TODAY
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    scrapy_command,
    state_query,
    truth_by_key,
)
from tests.support.ingest import FAST, run_ship, start_server
from tests.support.refresh import (
    keys_of_generation,
    kill_a_due_refresh,
    last_run,
    list_fetches,
)

COURT = "pn-replika"
SEED = 23
CASES = 45
PINNED = {"HARVEST_REFRESH_TODAY": TODAY.isoformat()}

pytestmark = pytest.mark.slow


def closed(tabs: dict[str, Any]) -> bool:
    """docs/refresh.md: verdict and minutasi dated, and no appeal requested without its own
    verdict (a withdrawn request, "Dicabut", does not count)."""
    verdict = tabs.get("putusan") or {}
    if not (verdict.get("tanggal_putusan") and verdict.get("tanggal_minutasi")):
        return False
    for slug in ("banding", "kasasi", "pk"):
        appeal = tabs.get(slug) or {}
        asked = [
            p
            for p in appeal.get("pemohon") or []
            if "dicabut" not in (p.get("keterangan") or "").lower()
        ]
        if asked and not appeal.get("tanggal_putusan"):
            return False
    return True


def _dates(value: Any) -> list[dt.date]:
    if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
        try:
            return [dt.date.fromisoformat(value)]
        except ValueError:
            return []
    if isinstance(value, dict):
        return [d for v in value.values() for d in _dates(v)]
    if isinstance(value, list):
        return [d for v in value for d in _dates(v)]
    return []


def quiet_days(doc: dict[str, Any], fetched: dt.date) -> int:
    """Days between the newest date a document shows (up to ``fetched``) and ``fetched``."""
    days = [d for d in _dates([doc["case"], doc["tabs"]]) if d <= fetched]
    return (fetched - max(days)).days


def steps_pending(doc: dict[str, Any], fetched: dt.date) -> bool:
    """docs/refresh.md: an empty date field in a post-verdict tab, or a verdict less than 14
    days old at the fetch."""

    def empty(value: Any) -> bool:
        if isinstance(value, dict):
            return any(
                ((k == "tanggal" or k.startswith("tanggal_")) and v in (None, "")) or empty(v)
                for k, v in value.items()
            )
        return isinstance(value, list) and any(empty(v) for v in value)

    tabs = doc["tabs"]
    verdict = dt.date.fromisoformat(tabs["putusan"]["tanggal_putusan"])
    return (fetched - verdict).days < 14 or any(
        empty(tabs.get(t)) for t in ("putusan", "barang_bukti", "grasi", "banding", "kasasi", "pk")
    )


def status_refresh(workspace: Path, today: dt.date) -> dict[str, Any]:
    """The court's refresh entry of ``scrapy status --json`` as of ``today`` (times left out)."""
    result = scrapy_command(
        "status", workspace, "--json", "-s", f"HARVEST_REFRESH_TODAY={today.isoformat()}"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    [entry] = json.loads(result.stdout)["refresh"]
    for name in ("started_at", "finished_at"):
        assert entry["last"].pop(name)
    return dict(entry)


def test_due_refresh_fetches_exactly_the_new_cases_and_stops_at_the_first_unchanged_page(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=CASES, seed=SEED, court_id=COURT) as before:
        first = crawl(before.url, COURT, ws, settings=PINNED)
        old_truth = truth_by_key(before.truth_path(tmp_path))
    assert first.returncode == 0, first.stderr[-3000:]
    assert len(exported(ws)) == CASES

    # a plain crawl of the finished court does nothing and says how to refresh
    with running_replica(
        cases=CASES, seed=SEED, court_id=COURT, extra_args=["--registered", "25"]
    ) as after:
        plain = crawl(after.url, COURT, ws, settings=PINNED)
        assert plain.returncode == 0, plain.stderr[-3000:]
        assert "-a refresh=due" in plain.stderr
        assert list_fetches(ws, last_run(ws)) == 0

        refresh = crawl(after.url, COURT, ws, spider_args={"refresh": "due"}, settings=PINNED)
        assert refresh.returncode == 0, refresh.stderr[-3000:]
        truth = truth_by_key(after.write_truth(tmp_path / "truth-after.jsonl", registered=0))
        refresh_run = last_run(ws)
        # 70 rows newest first: page 1 = 20 new, page 2 = 5 new + 15 known, page 3 = 20 known
        # and unchanged: the walk stops after it
        assert list_fetches(ws, refresh_run) == 3
        for stat in (
            "'harvest/refresh/new': 25",
            "'harvest/refresh/skipped_not_due': 35",  # 15 on page 2, 20 on page 3
            "'harvest/refresh/pages_walked': 3",
            "'harvest/refresh/stopped': 1",
            "'harvest/scheduler/generation_started': 1",
        ):
            assert stat in refresh.stderr, stat
        new_keys = {k.split(":", 1)[1] for k in set(truth) - set(old_truth)}
        assert len(new_keys) == 25
        assert keys_of_generation(ws, "case", 1) == {f"case|{COURT}|{n}" for n in new_keys}
        assert keys_of_generation(ws, "list", 1) == {
            f"list|{COURT}|all|{page}" for page in (1, 2, 3)
        }
        assert mismatches(exported(ws), truth) == {}
        generations = state_query(
            ws, "SELECT generation, policy, today, finished_at IS NOT NULL FROM generations"
        )
        day = TODAY.isoformat()
        assert generations == [(0, "initial", day, 1), (1, "due", day, 1)]
        # the renewed list page kept its history: enqueued in 0, renewed in 1
        events = state_query(
            ws,
            "SELECT e.event FROM events AS e JOIN requests AS r ON r.id = e.request_id "
            "WHERE r.key = ? AND e.event IN ('enqueued', 'renewed') ORDER BY e.id",
            (f"list|{COURT}|all|1",),
        )
        assert [e for (e,) in events] == ["enqueued", "renewed"]

        assert status_refresh(ws, TODAY) == {
            "court": COURT,
            "generations": 2,
            "last": {"generation": 1, "policy": "due", "today": day},
            "today": day,
            "due_now": 0,
            "due_why": {},
            "refreshed": 25,
            "changed": 0,
            "new": 25,
        }

        page = tmp_path / "status.html"
        assert scrapy_command("status", ws, "--html", str(page)).returncode == 0
        html_page = page.read_text(encoding="utf-8")
        assert f'<tr><td>{COURT}</td><td class="num">1</td><td>due, {day}</td>' in html_page

        # nothing new since: one list page, no case
        again = crawl(after.url, COURT, ws, spider_args={"refresh": "due"}, settings=PINNED)
        assert again.returncode == 0, again.stderr[-3000:]
        assert list_fetches(ws, last_run(ws)) == 1
        assert keys_of_generation(ws, "case", 2) == set()
        assert keys_of_generation(ws, "list", 2) == {f"list|{COURT}|all|1"}
        assert mismatches(exported(ws), truth) == {}

        # 31 days later every open case is due (back-off at most 30 days), and every closed
        # one whose post-verdict steps were still going on when it was fetched (on TODAY),
        # wherever its row is on the list: the walk goes on past unchanged pages until it met
        # them all
        later = TODAY + dt.timedelta(days=31)
        open_cases = {doc["source_id"] for doc in truth.values() if not closed(doc["tabs"])}
        stepping = {
            doc["source_id"]
            for doc in truth.values()
            if closed(doc["tabs"]) and steps_pending(doc, TODAY) and quiet_days(doc, TODAY) < 30
        }
        assert 0 < len(open_cases) < len(truth)
        open_cases |= stepping
        status = status_refresh(ws, later)
        assert status["due_now"] == len(open_cases)
        assert status["due_why"].get("post-verdict", 0) >= len(stepping)
        assert sum(status["due_why"].values()) == len(open_cases)
        month = crawl(
            after.url,
            COURT,
            ws,
            spider_args={"refresh": "due"},
            settings={"HARVEST_REFRESH_TODAY": later.isoformat()},
        )
        assert month.returncode == 0, month.stderr[-3000:]
        assert keys_of_generation(ws, "case", 3) == {f"case|{COURT}|{n}" for n in open_cases}
        assert mismatches(exported(ws), truth) == {}
        assert status_refresh(ws, later)["due_now"] == 0


def test_kill_9_three_times_during_a_refresh_then_a_plain_crawl_finishes_it(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=CASES, seed=SEED, court_id=COURT) as before:
        first = crawl(before.url, COURT, ws, settings=PINNED)
    assert first.returncode == 0, first.stderr[-3000:]
    slow = {**PINNED, "DOWNLOAD_DELAY": "0.05", "CONCURRENT_REQUESTS_PER_DOMAIN": "2"}
    with running_replica(
        cases=CASES, seed=SEED, court_id=COURT, extra_args=["--registered", "50"]
    ) as after:
        truth = truth_by_key(after.write_truth(tmp_path / "truth.jsonl"))
        ok_before = kill_a_due_refresh(
            after.url, COURT, ws, thresholds=(8, 20, 32), settings=slow, logs=tmp_path
        )
        # a plain crawl (no -a refresh) resumes the unfinished refresh
        resumed = crawl(after.url, COURT, ws, settings=PINNED)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert "resuming generation 1" in resumed.stderr
    assert mismatches(exported(ws), truth) == {}
    assert state_query(ws, "SELECT generation, finished_at IS NOT NULL FROM generations") == [
        (0, 1),
        (1, 1),
    ]
    # what was done before a kill was not fetched again: its last success is the same
    after_rows = dict(
        state_query(ws, "SELECT id, succeeded_at FROM requests WHERE generation = 1")
    )
    assert len(ok_before) > 32
    assert all(after_rows[rid] == at for rid, at in ok_before.items())
    assert len(keys_of_generation(ws, "case", 1)) == 50
    statuses = dict(state_query(ws, "SELECT status, count(*) FROM requests GROUP BY 1"))
    assert set(statuses) == {"ok"}, statuses


def test_changed_list_row_and_refresh_all_ship_only_what_changed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    server = start_server(tmp_path / "ingest.sqlite")
    try:
        with running_replica(cases=CASES, seed=SEED, court_id=COURT) as before:
            first = crawl(before.url, COURT, ws, settings=PINNED)
        assert first.returncode == 0, first.stderr[-3000:]
        shipped = run_ship(ws, "--endpoint", server.url, *FAST)
        assert shipped.returncode == 0, shipped.stderr[-2000:]
        assert [r for _, r in server.log_results()] == ["created"] * CASES

        # the stored copy of the newest case says another status than the court's list: a
        # list row that changed since the harvest (the court's side is the replica's truth)
        first_case = "SELECT key FROM requests WHERE kind = 'case' ORDER BY id LIMIT 1"
        newest = str(state_query(ws, first_case)[0][0]).split("|", 2)[2]
        with ItemStore.open(ws / "items.sqlite") as items:
            part = items.get_part(f"sipp.{COURT}:{newest}", "case")
            assert part is not None
            data = {**part.data, "list_row": {**part.data["list_row"], "status_perkara": "Old"}}
            items.upsert_part(court=COURT, case_number=newest, part="case", data=data)
        assert run_ship(ws, "--endpoint", server.url, *FAST).returncode == 0
        assert len(server.log_results()) == CASES + 1  # the stale copy, shipped as updated

        with running_replica(
            cases=CASES, seed=SEED, court_id=COURT, extra_args=["--registered", "25"]
        ) as after:
            truth = truth_by_key(after.write_truth(tmp_path / "truth.jsonl"))
            due_run = crawl(after.url, COURT, ws, spider_args={"refresh": "due"}, settings=PINNED)
            assert due_run.returncode == 0, due_run.stderr[-3000:]
            # the changed case is the 26th row: page 2, walked for the new ones
            fetched = keys_of_generation(ws, "case", 1)
            assert len(fetched) == 26
            assert f"case|{COURT}|{newest}" in fetched
            assert mismatches(exported(ws), truth) == {}
            entry = status_refresh(ws, TODAY)
            assert (entry["refreshed"], entry["changed"], entry["new"]) == (26, 1, 25)
            before_ship = len(server.log_results())
            assert run_ship(ws, "--endpoint", server.url, *FAST).returncode == 0
            results = server.log_results()[before_ship:]
            assert sorted(r for _, r in results) == ["created"] * 25 + ["updated"]

            # every case again: every list page (70 rows: 4 pages), every case, nothing
            # changed, nothing to ship
            everything = crawl(
                after.url, COURT, ws, spider_args={"refresh": "all"}, settings=PINNED
            )
            assert everything.returncode == 0, everything.stderr[-3000:]
            assert list_fetches(ws, last_run(ws)) == 4
            assert len(keys_of_generation(ws, "case", 2)) == CASES + 25
            assert mismatches(exported(ws), truth) == {}
            entry = status_refresh(ws, TODAY)
            assert (entry["refreshed"], entry["changed"], entry["new"]) == (CASES + 25, 0, 0)
            before_ship = len(server.log_results())
            again = run_ship(ws, "--endpoint", server.url, *FAST)
            assert again.returncode == 0, again.stderr[-2000:]
            assert server.log_results()[before_ship:] == []
    finally:
        server.stop()
