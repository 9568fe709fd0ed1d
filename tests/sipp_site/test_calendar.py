"""The hearing calendar ``/list_jadwal_sidang`` (reference/sipp_site/calendar.py, issue 26):
rendered from the real template, and consistent with every case's own Jadwal Sidang tab on
every as-of day (in-process GETs, tokens decrypted)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from reference.sipp_site.court import TODAY, make_court
from reference.sipp_site.model import CourtData
from reference.sipp_site.site import Site
from reference.sipp_site.testing import get_page
from reference.sipp_site.tokens import TokenCodec

CASES = 300
ROW = re.compile(
    r"<tr><td>(\d+)</td><td align=\"center\">([^<]*)</td><td>([^<]*)</td><td>TIDAK</td>"
    r"<td>([^<]*)</td><td>([^<]*)</td><td align=\"center\">\[<a id=\"detilJadwalSidang\" "
    r"href=\"#\" onClick=\"detilSidang\('<token:(\d+):(\d+)>'\)\" >Detil</a>\]</td></tr>"
)


def _site(as_of: dt.date) -> Site:
    return Site(CourtData(make_court("pn"), seed=3, cases=CASES, as_of=as_of), codec=TokenCodec(3))


def _shown(html: str) -> list[tuple[str, ...]]:
    return [m.groups() for m in ROW.finditer(html)]


def _expected(site: Site, day: dt.date) -> list[tuple[str, str, str, str]]:
    """(number as typed, room, agenda, id:row) of every Jadwal Sidang row on ``day``, over
    every case, in the page's order (noPerkara DESC, tglSidang DESC)."""
    out = []
    for index in range(len(site.data)):
        case = site.case(index)
        for k, row in enumerate(case.tabs.get("jadwal_sidang") or []):
            if row["tanggal"] == day.isoformat():
                out.append((case.nomor_perkara_raw, row["ruangan"] or "", row["agenda"] or "",
                            f"{case.id_perkara}:{k}"))  # fmt: skip
    return sorted(out, key=lambda r: r[0].rstrip().casefold(), reverse=True)


@pytest.mark.parametrize("shift", [0, 9, 40])
def test_each_day_lists_exactly_the_hearings_the_cases_show_that_day(shift: int) -> None:
    as_of = TODAY + dt.timedelta(days=shift)
    site = _site(as_of)
    # far in the past (cases registered long before: no registration window), around the
    # as-of day, and the upcoming hearings the tabs already show (up to 14 days ahead)
    days = [as_of - dt.timedelta(days=n) for n in (400, 200, 30, 7, 3, 1, 0)]
    days += [as_of + dt.timedelta(days=n) for n in (1, 5, 13)]
    total = 0
    for day in days:
        html = get_page(site, f"/list_jadwal_sidang/search/1/{day:%d/%m/%Y}")
        want = _expected(site, day)
        got = [(n, room, agenda, f"{i}:{k}") for _, _, n, room, agenda, i, k in _shown(html)]
        assert got == want, day
        assert [int(m[0]) for m in _shown(html)] == list(range(1, len(want) + 1))
        assert f", Total : {len(want)} Perkara" in html
        total += len(want)
    assert total > 0, "the court has hearings on these days"
    # the index page is the as-of day's calendar
    today = get_page(site, "/list_jadwal_sidang")
    assert len(_shown(today)) == len(_expected(site, as_of))
    assert f"cariHariIni('{as_of:%d/%m/%Y}')" in today


def test_a_past_day_lists_the_same_hearings_on_every_later_day() -> None:
    """A hearing held by the as-of day stays in its day's calendar on every later day, with
    the same case, agenda and room (the cases' held hearings never change)."""
    early, late = _site(TODAY), _site(TODAY + dt.timedelta(days=20))
    days = [TODAY - dt.timedelta(days=n) for n in range(1, 15)]
    seen = 0
    for day in days:
        path = f"/list_jadwal_sidang/search/1/{day:%d/%m/%Y}"
        before = [r[1:6] for r in _shown(get_page(early, path))]
        assert before == [r[1:6] for r in _shown(get_page(late, path))], day
        seen += len(before)
    assert seen > 0


def test_paging_offsets_by_20_and_shows_up_to_100_rows() -> None:
    site = _site(TODAY)
    # search/2/...: no tgl_cari, so no key: every hearing of the court
    first = _shown(get_page(site, "/list_jadwal_sidang/search/2/19/06/2024"))
    assert len(first) == 100
    assert [int(r[0]) for r in first] == list(range(1, 101))
    html = get_page(site, "/list_jadwal_sidang/search/2/19/06/2024")
    assert "<b>JADWAL SIDANG SELURUH PERKARA</b>" in html
    assert ", Total : 100 Perkara" in html
    # the index page's paging (list_jadwal_sidang/page/<n>/...): LIMIT 20, 100
    second = _shown(get_page(site, "/list_jadwal_sidang/page/2/x/key/col/2"))
    assert [int(r[0]) for r in second] == list(range(21, 121))
    assert [r[1:] for r in second[:80]] == [r[1:] for r in first[20:]]


def test_a_day_search_pages_through_its_key() -> None:
    site = _site(TODAY)
    day = next(d for d in (TODAY - dt.timedelta(days=n) for n in range(60)) if _expected(site, d))
    html = get_page(site, f"/list_jadwal_sidang/search/1/{day:%d/%m/%Y}")
    enc = re.search(
        r"list_jadwal_sidang/search/page/'\+pageNumber\+'/<token:([^>]*)>/([^/]*)/", html
    )
    assert enc is not None
    assert enc.groups() == (day.isoformat(), day.isoformat())
    # page 2 of a day starts at its 21st row: none on a day with fewer hearings
    token = site.codec.encrypt(day.isoformat())
    page2 = get_page(site, f"/list_jadwal_sidang/search/page/2/{token}/{day}/col/2")
    assert _shown(page2) == []
    assert "Data Tidak diTemukan" in page2
    page1 = get_page(site, f"/list_jadwal_sidang/search/page/1/{token}/{day}/col/2")
    assert [r[2] for r in _shown(page1)] == [r[0] for r in _expected(site, day)]
    # unpadded segments build a key no tglSidang contains (LIKE "%2024-6-3%")
    odd = get_page(site, f"/list_jadwal_sidang/search/1/{day.day}/{day.month}/{day.year}")
    if day.day < 10 or day.month < 10:
        assert _shown(odd) == []
