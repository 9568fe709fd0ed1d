"""The hearing calendar in a due refresh (issue 26): the parser on the replica's pages, and a
refresh that reads the days since the last one before its walk and fetches the cases heard."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from harvest.sipp import ParseError
from harvest.sipp.calendar_page import next_calendar_page, parse_calendar_page
from reference.sipp_site.court import TODAY, make_court
from reference.sipp_site.model import CourtData
from reference.sipp_site.site import Request, Site
from reference.sipp_site.testing import running_replica
from reference.sipp_site.tokens import TokenCodec
from tests.support.harvest_run import crawl, exported, mismatches, state_query, truth_by_key
from tests.support.refresh import last_run

COURT = "pn-replika"
SEED = 23
CASES = 45


def _html(site: Site, path: str) -> str:
    resp = site.handle(Request("GET", path, {"user-agent": "t"}, b"", {}), "http://127.0.0.1/")
    assert resp.status == 200
    return resp.body.decode()


def test_the_parser_reads_the_case_numbers_and_the_paging() -> None:
    site = Site(CourtData(make_court("pn"), seed=3, cases=300), codec=TokenCodec(3))
    day = dt.date(2024, 6, 13)
    page = parse_calendar_page(_html(site, "/list_jadwal_sidang/search/1/13/06/2024"), "u")
    want = sorted(
        " ".join(site.case(i).nomor_perkara_raw.split())
        for i, _ in site.hearings_on(day)
    )  # fmt: skip
    assert sorted(page.numbers) == want
    assert page.first_row == (1 if want else None)
    assert next_calendar_page(page, 1) is None
    every = parse_calendar_page(_html(site, "/list_jadwal_sidang/search/2/13/06/2024"), "u")
    assert len(every.numbers) == 100
    assert next_calendar_page(every, 1) == 6  # LIMIT 100, 100 is page 6 (offset (6-1)*20)
    assert every.page_url_template is not None
    assert every.page_url_template.startswith("http://127.0.0.1/list_jadwal_sidang/search/page/")
    with pytest.raises(ParseError, match="not a hearing calendar"):
        parse_calendar_page(_html(site, "/list_perkara"), "u")


@pytest.mark.slow
def test_a_due_refresh_reads_the_calendar_and_fetches_the_cases_heard(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    later = TODAY + dt.timedelta(days=5)
    with running_replica(cases=CASES, seed=SEED, court_id=COURT) as before:
        port = before.port
        first = crawl(before.url, COURT, ws, settings={"HARVEST_REFRESH_TODAY": TODAY.isoformat()})
    assert first.returncode == 0, first.stderr[-3000:]
    data = CourtData(make_court("pn", COURT), seed=SEED, cases=CASES, as_of=later)
    days = [TODAY + dt.timedelta(days=n) for n in range(5)]  # 06-19 .. 06-23
    heard = {
        data.case(i).nomor_perkara
        for i in range(CASES)
        for row in data.case(i).tabs.get("jadwal_sidang") or []
        if dt.date.fromisoformat(row["tanggal"]) in days
    }
    assert heard, "the court has hearings in those days"
    with running_replica(cases=CASES, seed=SEED, court_id=COURT, as_of=later, port=port) as rep:
        refresh = crawl(
            rep.url, COURT, ws, spider_args={"refresh": "due"},
            settings={"HARVEST_REFRESH_TODAY": later.isoformat()},
        )  # fmt: skip
        truth = truth_by_key(rep.truth_path(tmp_path))
    assert refresh.returncode == 0, refresh.stderr[-3000:]
    calendar = state_query(
        ws,
        "SELECT key, url, status FROM requests WHERE generation = 1 AND key LIKE ? ORDER BY key",
        (f"list|{COURT}|jadwal_sidang %",),
    )
    assert calendar == [
        (f"list|{COURT}|jadwal_sidang {d.isoformat()}|1",
         f"{rep.url}list_jadwal_sidang/search/1/{d:%d/%m/%Y}", "ok")
        for d in days
    ]  # fmt: skip
    assert "'harvest/refresh/calendar_pages': 5" in refresh.stderr
    # every case heard in those days was fetched again and equals the day's truth
    fetched = {
        str(k).split("|", 2)[2]
        for (k,) in state_query(
            ws, "SELECT key FROM requests WHERE kind = 'case' AND generation = 1"
        )
    }
    assert heard <= fetched
    export = exported(ws)
    wrong = mismatches(export, truth)
    assert not {f"sipp.{COURT}:{n}" for n in heard} & set(wrong)
    # the calendar was read before the walk: its last page was answered before list page 1
    order = state_query(
        ws,
        "SELECT r.key FROM url_log AS u JOIN requests AS r ON r.id = u.request_id "
        "WHERE u.run_id = ? AND r.kind = 'list' ORDER BY u.id",
        (last_run(ws),),
    )
    keys = [k for (k,) in order]
    assert keys.index(f"list|{COURT}|all|1") > max(
        keys.index(f"list|{COURT}|jadwal_sidang {d.isoformat()}|1") for d in days
    )
