"""Same-day cases across list pages: the list is ordered by ``tglPendaftaran DESC`` alone
(perkara_m.php:213) and paged with ``LIMIT begin,20``, so the cases of one day come in an order
MySQL may change between requests, and a day that straddles a page boundary can show a case
on two pages and another on none. The replica plays it with ``--same-day N`` (cases in blocks
of N on one day, their order drawn anew per request). A plain walk of the pages misses cases;
the spider's overlap check (a case met twice) searches that day and gets every case, once.
On a court whose order is stable the check costs nothing: not one list fetch more."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
import requests

from harvest.sipp import parse_list_page
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, exported, mismatches, state_query, truth_by_key

pytestmark = pytest.mark.slow

CASES = 100
SAME_DAY = ["--same-day", "25"]
#: page boundaries of the stable court's first 5 pages that fall inside one day
STRADDLED = 2


def plain_walk(base_url: str) -> tuple[collections.Counter[str], set[str]]:
    """Every list page once, in order, as a walk without the check reads them: how often each
    case number showed up, and the days of those that showed up more than once."""
    http = requests.Session()
    url = base_url + "list_perkara"
    page = parse_list_page(http.get(url, timeout=30).text, url)
    met: collections.Counter[str] = collections.Counter()
    days: dict[str, str] = {}
    number = 1
    while True:
        for row in page.rows:
            met[row.nomor_perkara] += 1
            days[row.nomor_perkara] = row.registered or ""
        assert page.total_cases == CASES
        if number * 20 >= CASES:
            break
        number += 1
        assert page.page_url_template is not None
        url = page.page_url_template.format(page=number)
        page = parse_list_page(http.get(url, timeout=30).text, url)
    return met, {days[n] for n, k in met.items() if k > 1}


def list_requests(ws: Path) -> list[tuple[str, str]]:
    """(method, path after the court root) of every list-kind fetch of the crawl."""
    rows = state_query(
        ws,
        "SELECT u.method, u.url FROM url_log AS u JOIN requests AS r ON r.id = u.request_id "
        "WHERE r.kind = 'list' ORDER BY u.id",
    )
    return [(str(m), str(u).split("/", 3)[3]) for m, u in rows]


def test_a_plain_walk_misses_same_day_cases_and_ours_gets_each_once(tmp_path: Path) -> None:
    with running_replica(cases=CASES, seed=23, court_id="pn-sama", extra_args=SAME_DAY) as r:
        met, repeated_days = plain_walk(r.url)
        truth = truth_by_key(r.truth_path(tmp_path))
    # the plain walk: 100 rows read, 78 distinct cases, 22 read twice, 22 never
    assert sum(met.values()) == CASES
    assert len(met) == 78
    assert sum(k - 1 for k in met.values()) == 22
    assert len(truth) - len(met) == 22
    assert sorted(repeated_days) == ["2019-07-01", "2020-09-26", "2021-12-24", "2023-03-23"]

    # the same court, started afresh: the crawl's walk sees the very same page orders
    with running_replica(cases=CASES, seed=23, court_id="pn-sama", extra_args=SAME_DAY) as r:
        result = crawl(r.url, "pn-sama", tmp_path / "ws")
    assert result.returncode == 0, result.stderr[-3000:]
    got = exported(tmp_path / "ws")
    assert mismatches(got, truth) == {}
    assert len(got) == CASES
    # each case's detail page fetched once
    details = state_query(
        tmp_path / "ws",
        "SELECT r.key, COUNT(*) FROM url_log AS u JOIN requests AS r ON r.id = u.request_id "
        "WHERE r.kind = 'case' AND u.final_url LIKE '%/detil_perkara' GROUP BY 1",
    )
    assert len(details) == CASES
    assert {count for _, count in details} == {1}
    # 5 walk pages; per day with a repeated row one search (POST) and, the day having 25
    # cases (more than a page), its 2 pages ordered by case number (col/1)
    fetched = list_requests(tmp_path / "ws")
    assert len(fetched) == 5 + 4 * 3
    assert [p for m, p in fetched if m == "POST"] == ["list_perkara/search"] * 4
    assert sum(1 for m, p in fetched if m == "GET" and p.endswith("/col/1")) == 8
    statuses = dict(
        state_query(tmp_path / "ws", "SELECT status, COUNT(*) FROM requests GROUP BY 1")
    )
    assert set(statuses) == {"ok"}, statuses


def test_on_a_stable_order_the_check_costs_no_fetch(tmp_path: Path) -> None:
    """The default replica keeps one order (several cases a day on 3000 cases, some days
    straddling page boundaries): no case shows up twice, so no day is searched."""
    with running_replica(cases=3000, seed=23, court_id="pn-tetap") as r:
        result = crawl(r.url, "pn-tetap", tmp_path / "ws", spider_args={"max_cases": "100"})
        met, repeated_days, straddled = plain_walk_pages(r.url, 5)
    assert result.returncode == 0, result.stderr[-3000:]
    assert repeated_days == set()
    assert len(met) == 100
    assert straddled == STRADDLED
    fetched = list_requests(tmp_path / "ws")
    # the walk's own pages only: 5, and the 6th whose first row is past max_cases
    assert [m for m, _ in fetched] == ["GET"] * 6
    assert "harvest/list/day_searches" not in result.stderr
    assert "harvest/list/repeated_rows" not in result.stderr


def plain_walk_pages(base_url: str, pages: int) -> tuple[collections.Counter[str], set[str], int]:
    """The first ``pages`` list pages as :func:`plain_walk` reads them, and how many of their
    page boundaries fall inside one day."""
    http = requests.Session()
    url = base_url + "list_perkara"
    met: collections.Counter[str] = collections.Counter()
    days: dict[str, str] = {}
    straddled, last = 0, None
    for number in range(1, pages + 1):
        page = parse_list_page(http.get(url, timeout=30).text, url)
        straddled += last is not None and page.rows[0].registered == last
        last = page.rows[-1].registered
        for row in page.rows:
            met[row.nomor_perkara] += 1
            days[row.nomor_perkara] = row.registered or ""
        assert page.page_url_template is not None
        url = page.page_url_template.format(page=number + 1)
    return met, {days[n] for n, k in met.items() if k > 1}, straddled
