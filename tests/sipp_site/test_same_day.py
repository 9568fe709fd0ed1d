"""``--same-day N``: cases in blocks of N on one day, one day's cases ordered anew on every
request (perkara_m.php:213 orders by ``tglPendaftaran DESC`` alone); the keyword search of a day
ordered by case number (``col/1``) is stable and complete."""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import urlencode

from harvest.sipp import parse_list_page
from reference.sipp_site.court import make_court
from reference.sipp_site.model import CourtData
from reference.sipp_site.sessions import PhpSessions
from reference.sipp_site.site import PHP_COOKIE, Request, Site
from reference.sipp_site.tokens import TokenCodec

BASE = "http://127.0.0.1/"
UA = {"user-agent": "same-day/1"}


def _site(same_day: int) -> Site:
    return Site(
        CourtData(make_court("pn"), seed=23, cases=100, same_day=same_day), codec=TokenCodec(3)
    )


def _get(site: Site, path: str) -> str:
    cookies = {PHP_COOKIE: PhpSessions.new_id()}
    return site.handle(Request("GET", path, UA, b"", cookies), BASE).body.decode("utf-8")


def _numbers(html: str) -> list[str]:
    rows = parse_list_page(html, BASE + "list_perkara").rows
    return [" ".join(row.nomor_perkara.split()) for row in rows]


def _number(site: Site, index: int) -> str:
    """Case ``index``'s number, spaces collapsed (as :func:`_numbers` gives the list's)."""
    return " ".join(site._number(index).split())


def test_cases_come_in_blocks_of_n_on_one_day() -> None:
    data = CourtData(make_court("pn"), seed=23, cases=100, same_day=25)
    plain = CourtData(make_court("pn"), seed=23, cases=100)
    days = [dt.date.fromordinal(data.day(i)).isoformat() for i in range(100)]
    assert sorted(set(days)) == ["2019-07-01", "2020-09-26", "2021-12-24", "2023-03-23"]
    assert [days.count(d) for d in sorted(set(days))] == [25, 25, 25, 25]
    # the flows are the index stream's as without the option
    assert [data.alur_id(i) for i in range(100)] == [plain.alur_id(i) for i in range(100)]


def test_a_day_straddling_a_page_is_ordered_anew_per_request() -> None:
    site = _site(25)
    first, second = _numbers(_get(site, "/list_perkara")), _numbers(_get(site, "/list_perkara"))
    newest = {_number(site, i) for i in range(75, 100)}
    assert len(first) == len(second) == 20
    assert set(first) <= newest
    assert set(second) <= newest
    assert first != second
    assert set(first) != set(second)


def test_without_the_option_the_order_is_stable() -> None:
    site = _site(0)
    assert _numbers(_get(site, "/list_perkara")) == _numbers(_get(site, "/list_perkara"))
    assert _numbers(_get(site, "/list_perkara")) == [_number(site, i) for i in range(99, 79, -1)]


def test_a_day_searched_by_keyword_and_ordered_by_case_number_is_complete() -> None:
    site = _site(25)
    day = "2023-03-23"
    cookies = {PHP_COOKIE: PhpSessions.new_id()}
    enc = re.search(r'name="enc" value="([^"]+)"', _get(site, "/list_perkara"))
    assert enc is not None
    body = urlencode({"search_keyword": day, "enc": enc.group(1)}).encode()
    posted = site.handle(Request("POST", "/list_perkara/search", UA, body, cookies), BASE)
    page = parse_list_page(posted.body.decode("utf-8"), BASE + "list_perkara/search")
    assert page.total_cases == 25
    assert page.page_url_template is not None
    assert page.page_url_template.endswith("/col/2")
    ordered = page.page_url_template.removesuffix("/col/2") + "/col/1"
    pages = [_numbers(_get(site, "/" + ordered.format(page=k).removeprefix(BASE))) for k in (1, 2)]
    again = [_numbers(_get(site, "/" + ordered.format(page=k).removeprefix(BASE))) for k in (1, 2)]
    assert pages == again
    assert [len(p) for p in pages] == [20, 5]
    got = pages[0] + pages[1]
    assert got == sorted({_number(site, i) for i in range(75, 100)}, reverse=True)
