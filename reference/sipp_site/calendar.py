# ruff: noqa: E101, E501, W291, W293  (the page template keeps the real page's layout: long lines, mixed tabs)
"""The court's hearing calendar, ``/list_jadwal_sidang`` (issue 26), as the real app serves it.

Follows ``application/controllers/list_jadwal_sidang.php``, its model
``application/models/perkara/list_jadwal_sidang_m.php`` and its view
``application/views/perkara_list/list_jadwal_sidang.php`` inside ``views/body/body.php``
(chakoochandra/sipp-web at b498430, docs/fidelity.md):

* ``index`` (``/list_jadwal_sidang``): the search key is today's date (the as-of day), the
  session's order is reset to ``DESC``; ``search/1/DD/MM/YYYY``: the key is
  ``YYYY-MM-DD`` built from the segments as given; ``search/page/<n>/<enc>/...``: the key is
  what ``<enc>`` decrypts to; ``search/<other>/...`` and ``page/<n>/...`` (the index page's
  paging: its ``enc`` is no ``var_id=`` parameter string) have no key.
* The query (``getPerkaraList``): every Jadwal Sidang row whose ``tglSidang`` contains the key
  (``LIKE "%key%"``; no key: every row), ``ORDER BY noPerkara <session order>, tglSidang
  DESC LIMIT (n-1)*20, 100``: a page starts 20 rows after the previous one but shows up to
  100, numbered from its offset + 1. ``Total`` is ``FOUND_ROWS()`` without
  ``SQL_CALC_FOUND_ROWS``: the rows this page shows.
* A row: No, the hearing day (``convertDayDate``), the case number as typed, Sidang Keliling
  (``TIDAK``: the replica has none), room, agenda, ``[Detil]`` with the row's token.

The rows are each case's own Jadwal Sidang as of the site's day (the same rows its tab shows,
upcoming hearings included), every case of the court: :class:`HearingIndex` reads every case
once, at the first calendar request, and the cases registered live after that as they come.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .formats import count_id, date_id
from .model import JSON, Case
from .render import PAGE_FOOT, Shell, page_head

__all__ = ["ROWS_SHOWN", "CalendarPage", "HearingIndex", "calendar_page"]

#: ``LIMIT begin, 100``: the rows one calendar page shows
ROWS_SHOWN = 100
#: ``begin_limit = (start_page - 1) * 20``
PAGE_STEP = 20


#: A day's calendar reads the cases registered in this many days before it: no case of the
#: model has a hearing later than 212 days after its registration (measured over 2,000 cases
#: of each variant, seed 1; tests/sipp_site/test_calendar.py checks days against every case)
WINDOW_DAYS = 400


class HearingIndex:
    """Every Jadwal Sidang row of the court by day: ``(case index, row number)``, read case by
    case as days are asked for (each case once: a case costs about 0.8 ms off TODAY)."""

    def __init__(
        self,
        count: Callable[[], int],
        case: Callable[[int], Case],
        registered: Callable[[int], int],
    ) -> None:
        self._count = count
        self._case = case
        self._registered = registered  # a case's registration day (ordinal), non-decreasing
        self._by_day: dict[str, list[tuple[int, int]]] = {}
        self._read: set[int] = set()

    def _read_cases(self, indices: range) -> None:
        for index in indices:
            if index in self._read:
                continue
            for k, row in enumerate(self._case(index).tabs.get("jadwal_sidang") or []):
                self._by_day.setdefault(str(row["tanggal"]), []).append((index, k))
            self._read.add(index)  # one case at a time: an interrupted read loses nothing

    def _window(self, day: dt.date) -> range:
        n = self._count()
        hi = bisect.bisect_right(range(n), day.toordinal(), key=self._registered)
        lo = bisect.bisect_left(range(n), day.toordinal() - WINDOW_DAYS, key=self._registered)
        return range(lo, hi)

    def matching(self, key: str) -> list[tuple[int, int]]:
        """The rows whose day (``YYYY-MM-DD``) contains ``key`` (every row for ``""``)."""
        day = _iso(key)
        self._read_cases(self._window(day) if day else range(self._count()))
        found: list[tuple[int, int]] = []
        for when, rows in self._by_day.items():
            if key in when and (day is None or when == key):
                found += rows
        return sorted(found)

    def on(self, day: dt.date) -> list[tuple[int, int]]:
        """The rows of one day."""
        return self.matching(day.isoformat())


def _iso(key: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(key) if len(key) == 10 else None
    except ValueError:
        return None


def ordered(
    rows: Sequence[tuple[int, int]], case: Callable[[int], Case], *, desc: bool
) -> list[tuple[int, int]]:
    """``ORDER BY noPerkara <desc|asc>, tglSidang DESC`` (MySQL compares the typed number
    case-insensitively, trailing spaces ignored)."""

    def number(r: tuple[int, int]) -> str:
        return case(r[0]).nomor_perkara_raw.rstrip().casefold()

    def day(r: tuple[int, int]) -> str:
        return str(case(r[0]).tabs["jadwal_sidang"][r[1]]["tanggal"])

    by_day = sorted(rows, key=day, reverse=True)
    return sorted(by_day, key=number, reverse=desc)


@dataclass(frozen=True)
class CalendarPage:
    """What the view and ``body.php`` print for one calendar page."""

    #: the search key (``YYYY-MM-DD``), ``""`` for none
    key: str
    #: the key as a day for the title (``None``: no key, or one that is no day)
    day: dt.date | None
    page: int
    offset: int
    #: ``(case, its jadwal row, the row's token)``, at most :data:`ROWS_SHOWN`
    rows: Sequence[tuple[Case, JSON, str]]
    #: ``list_jadwal_sidang/search`` or ``list_jadwal_sidang``
    page_url: str
    #: the URL keyword: the key for a search, ``key`` on the index page
    keyword: str
    enc: str
    sync: str | None
    today: dt.date


def _row(no: int, case: Case, row: JSON, token: str) -> str:
    return (
        "<tr>"
        f"<td>{no}</td>"
        f'<td align="center">{date_id(dt.date.fromisoformat(str(row["tanggal"])))}</td>'
        f"<td>{case.nomor_perkara_raw}</td>"
        "<td>TIDAK</td>"
        f"<td>{row.get('ruangan') or ''}</td>"
        f"<td>{row.get('agenda') or ''}</td>"
        f'<td align="center">[<a id="detilJadwalSidang" href="#" '
        f"onClick=\"detilSidang('{token}')\" >Detil</a>]</td>"
        "</tr>"
    )


def calendar_page(shell: Shell, page: CalendarPage) -> str:
    """The whole page: header, ``body.php`` around ``list_jadwal_sidang.php``, footer."""
    b = shell.base
    if not page.key:
        title = "JADWAL SIDANG SELURUH PERKARA"
    elif page.day is not None:
        title = f"JADWAL SIDANG - {date_id(page.day)}"
    else:
        title = f"JADWAL SIDANG - {page.key}"
    sync = f"{page.sync}" if page.sync else '<font color = "red"> tanggal gagal dimuat </font>'
    body = "".join(
        _row(page.offset + n, case, row, token)
        for n, (case, row, token) in enumerate(page.rows, 1)
    )
    if not body:
        body = "<tr><td colspan='7' align='center'>Data Tidak diTemukan</td></tr>"
    today = page.today.strftime("%d/%m/%Y")
    url = f"{b}{page.page_url}/page/"
    js_pager = "".join(
        f"""
    $('#{sel}').pagination({{
        items: totalPage,
        itemsOnPage: 20,
        displayedPages: 3,
        cssStyle: 'light-theme',
        currentPage:page,
        onPageClick: function(pageNumber){{
            window.open('{url}'+pageNumber+'/{page.enc}/{page.keyword}/col/2','_self')
        	}}
        }});"""
        for sel in ("selector", "selector_bottom")
    )
    return (
        page_head(shell)
        + f"""	<div id="pageTitle">
		<b>{title}</b>
	</div>
	<div id="right">
    	<div class="total_perkara">
        	Pembaharuan Data : {sync} 
            , Total : {count_id(len(page.rows))} Perkara
    	</div>
	</div>
    <br>
<link rel="stylesheet" type="text/css" href="{b}resources/css/simplePagination.css">
<hr class="thick-line" style="clear:both;">
<div id="left" style="width:80%;text-align:left;padding:0px;padding-left:5px;min-height:50px">
	<tr style="padding:0px;padding-left:5px;"
		<td>Cari tanggal sidang :</td>
		<td>
		<input style="padding:0px;padding-left:5px;min-height:30px" id="tgl_sidang" name="tgl_sidang" value="" class="datepicker" maxlength="10" placeholder="tgl/bln/tahun">
		<input type="hidden" id="tgl_sidang_value" name="tgl_sidang_value" value="">
		</td>
		<td>
		<input id="cari_sidang" onClick="cari()" type="submit" value="cari" class="btn"></input>
		</td>
		<td>
		<input id="sidang_hari_ini" onClick="cariHariIni('{today}')" type="submit" value="Sidang Hari Ini" class="btn"></input>
		</td>
	</tr>
</div>
<div id="pages">
    <div id="selector"></div>
</div>
<div class="cssTable">
	<table id="tablePerkaraAll">
		<col  width="3%" />
        <col  width="10%" />
        <col  width="20%" />
        <col  width="8%" />
        <col  width="10%" />
        <col  width="20%" />
        <col  width="4%" />
		<tbody>
			<tr>
				<td>No</td>
				<td onclick="sorting(2)">Tanggal Sidang</td>
				<td onclick="sorting(1)">Nomor Perkara</td>
				<td onclick="sorting(3)">Sidang Keliling</td>
				<td onclick="sorting(4)">Ruangan</td>
				<td onclick="sorting(5)">Agenda</td>
				<td onclick="sorting(8)">Detil</td>
			</tr>
			{body}		</tbody>
	</table>
</div>
<div id="pages_bottom" style="width:100%;padding-left:5px;padding-top:5px;">
    <div id="selector_bottom"></div>
</div>
<script type="text/javascript">
function cari(){{
		var key=$('#tgl_sidang_value').val();
		window.open('{b}list_jadwal_sidang/search/'+'1'+'/'+key,'_self')
}}

function detilSidang(IDperkara){{	
	popup_form('{b}detil_jadwal_sidang/'+IDperkara)
}}

function cariHariIni(tgl){{
		var key=tgl;
		window.open('{b}list_jadwal_sidang/search/'+'1'+'/'+key,'_self')
}}

</script>
 
<script type="text/javascript" src="{b}resources/js/jquery.simplePagination.js"></script>


<script type="text/javascript">
$(function() {{
    var totalPage = '{len(page.rows)}';
    var page = '{page.page}';{js_pager}
    }});
</script>
"""
        + PAGE_FOOT
    )
