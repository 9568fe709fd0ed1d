"""The hearing calendar of one day (``/list_jadwal_sidang/search/1/DD/MM/YYYY``, issue 26).

The real app's view ``perkara_list/list_jadwal_sidang.php`` (docs/refresh.md, "The hearing
calendar"): ``table#tablePerkaraAll``, a header row (No | Tanggal Sidang | Nomor Perkara |
Sidang Keliling | Ruangan | Agenda | Detil), then one row per hearing, or one cell ``Data
Tidak diTemukan``. The controller's query shows up to :data:`ROWS_SHOWN` rows from row
``(n - 1) * 20 + 1`` on page ``n`` (``LIMIT (n-1)*20, 100``): a page showing
:data:`ROWS_SHOWN` rows may have more after it, on page ``n + 5``
(:func:`next_calendar_page`). Only what a refresh needs is read: the row number and the case
number of each hearing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harvest.base.identity import normalise_case_number
from harvest.sipp.exceptions import ParseError
from harvest.sipp.html import cells, first, parse_html, rows, text

__all__ = ["ROWS_SHOWN", "CalendarPage", "next_calendar_page", "parse_calendar_page"]

PAGE = "hearing calendar"
#: ``LIMIT begin, 100``
ROWS_SHOWN = 100
#: ``begin_limit = (start_page - 1) * 20``
PAGE_STEP = 20
_HEADER = ("no", "tanggal sidang", "nomor perkara")
_PAGE_TEMPLATE = re.compile(
    r"window\.open\(\s*'([^']*?list_jadwal_sidang/search/page/)'\s*\+\s*pageNumber\s*\+\s*"
    r"'([^']*)'",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CalendarPage:
    """One calendar page: the (normalised) case numbers of its hearings, in page order, the
    first row's number (``No``), and the paging URL with ``{page}`` where the number goes."""

    numbers: tuple[str, ...]
    first_row: int | None
    page_url_template: str | None


def parse_calendar_page(html: str, url: str) -> CalendarPage:
    """Raises :class:`ParseError` when the page has no calendar table (a court that does not
    serve the calendar answers its list or an error page instead)."""
    doc = parse_html(html, PAGE)
    table = first(doc, "//table[@id='tablePerkaraAll']")
    if table is None:
        raise ParseError(f"{PAGE}: no table#tablePerkaraAll in the page from {url}")
    found = rows(table)
    header = [text(td).lower() for td in cells(found[0])] if found else []
    if tuple(header[:3]) != _HEADER:
        raise ParseError(f"{PAGE}: not a hearing calendar (header {header[:7]!r}) at {url}")
    numbers: list[str] = []
    first_row: int | None = None
    for tr in found[1:]:
        tds = cells(tr)
        if len(tds) < 3:
            continue  # "Data Tidak diTemukan": one cell
        no = text(tds[0])
        if not no.isdigit():
            raise ParseError(f"{PAGE}: row number {no!r} is not a number ({url})")
        number = normalise_case_number(text(tds[2]))
        if not number:
            raise ParseError(f"{PAGE}: row {no} has no case number ({url})")
        if first_row is None:
            first_row = int(no)
        numbers.append(number)
    m = _PAGE_TEMPLATE.search(html)
    template = (m.group(1) + "{page}" + m.group(2)) if m else None
    return CalendarPage(tuple(numbers), first_row, template)


def next_calendar_page(page: CalendarPage, number: int) -> int | None:
    """The page to fetch after page ``number`` to see the rows after it, or ``None`` when it
    showed fewer than :data:`ROWS_SHOWN` rows (the day's last rows)."""
    if len(page.numbers) < ROWS_SHOWN:
        return None
    return number + ROWS_SHOWN // PAGE_STEP
