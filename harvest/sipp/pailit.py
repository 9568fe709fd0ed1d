"""The bankruptcy follow-up menu (tab ``setelah_putusan_pernyataan_pailit``) and the sub pages
it links to: which sub pages a reader of the menu can open, and at which URL.

The fragment (``application/views/perkara_tab/putusan_pernyataan_pailit.php``) is only a menu:
one button per follow-up (``<a id='tabInfos' href="#accorN">Label</a>``) and a script whose
branch for ``#accorN`` loads ``sub_<x>/<enc>[/...]`` into ``#tabs_from_accor``. Those URLs go
through ``redirect_page/redir_sub_<x>`` (routes.php:46-62), which keeps only ``<enc>`` in the
flash session and redirects to ``/sub_<x>``: the same one-shot pattern as ``show_<slug>``.

The Perdamaian (``#accor8``) and Pembatalan Perdamaian (``#accor9``) buttons are printed only
``if($alur_perkara_id==3)`` (lines 17-22), a variable the controller
(controllers/putusan_pernyataan_pailit.php) never sets: on a stock install they never show, and
their script branches are unreachable. A link is therefore taken only for a button the page
shows. The spider fetches each linked sub page as a request of the case, stored as part
``tab:pailit-<route>`` (docs/item-format.md, "Bankruptcy follow-up sub pages").

A sub page (``pasca_pailit/sub_<x>.php``) is read by :func:`parse_sub_page`: most views print a
green ``<b>HEADING</b>`` row, then a ``cssTable`` whose first row names the columns and whose
other rows are the records (dates through ``convertDayDate``, ``Aktif`` as Ya/Tidak), or one
``BELUM DITETAPKAN`` / ``BELUM ADA DATA`` row spanning the table; four views
(``sub_perdamaian``, ``sub_bataldamai``, ``sub_biayapenyelesaian``, ``sub_pengakhiran``) print
only ``closeLoading()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harvest.sipp.html import (
    absolute_url,
    cells,
    parse_html,
    rows,
    tables_with_text_before,
    text,
    xpath_elements,
)
from harvest.sipp.normalise import clean_text, parse_date

__all__ = [
    "MENU_SLUG",
    "NO_RECORD_MESSAGES",
    "SUB_SLUG_PREFIX",
    "SubPageLink",
    "parse_sub_page",
    "sub_page_links",
    "sub_page_slug",
]

#: the tab whose fragment is the menu
MENU_SLUG = "setelah_putusan_pernyataan_pailit"
#: a sub page is fetched and stored like a tab, as part ``tab:pailit-<route>``
SUB_SLUG_PREFIX = "pailit-"

#: the one row a sub view prints when the query found no record
NO_RECORD_MESSAGES = frozenset({"BELUM DITETAPKAN", "BELUM ADA DATA"})

#: ``if($(this).attr('href')=='#accorN'){ openLoadingDialog(); $('#tabs_from_accor').load('U');``
_LOAD = re.compile(
    r"attr\('href'\)\s*==\s*'#(?P<anchor>accor\d+)'\s*\)\s*\{\s*"
    r"(?:openLoadingDialog\(\);\s*)?\$\('#tabs_from_accor'\)\.load\('(?P<url>[^']+)'\)"
)
_ROUTE = re.compile(r"/(?P<route>sub_[a-z]+)/[^/?#]+")


def sub_page_slug(route: str) -> str:
    """The tab slug a sub page is stored under: ``sub_kurator`` -> ``pailit-sub_kurator``."""
    return SUB_SLUG_PREFIX + route


@dataclass(frozen=True)
class SubPageLink:
    """One follow-up a reader can open: the button's ``#accorN``, its label as printed, the
    sub page's route (``sub_kurator``) and the absolute URL the script loads."""

    anchor: str
    label: str
    route: str
    url: str


def sub_page_links(html: str, page_url: str) -> list[SubPageLink]:
    """The sub pages of a ``setelah_putusan_pernyataan_pailit`` fragment, in button order: each
    button the page shows whose script branch loads a ``sub_*`` URL."""
    loads: dict[str, str] = {}
    for m in _LOAD.finditer(html):
        loads.setdefault(m.group("anchor"), m.group("url"))
    doc = parse_html(html, "tab:setelah_putusan_pernyataan_pailit")
    out: list[SubPageLink] = []
    for a in xpath_elements(doc, "//a[@id='tabInfos'][starts-with(@href, '#accor')]"):
        anchor = str(a.get("href", ""))[1:]
        url = loads.get(anchor)
        route = _ROUTE.search(url) if url else None
        if url is None or route is None:
            continue
        out.append(SubPageLink(anchor, text(a), route.group("route"), absolute_url(page_url, url)))
    return out


def _cell(column: str, value: str) -> str | bool | None:
    """A record's cell as data: ``Tanggal ...`` columns as ISO dates (``convertDayDate``
    prints `` - `` for none), ``Aktif`` as a boolean, other cells as printed (empty -> None)."""
    value = clean_text(value)
    if column.lower().startswith("tanggal"):
        try:
            return parse_date(value)
        except ValueError:
            return value  # a date the helper printed in another form: kept as printed
    if column.lower() == "aktif" and value in ("Ya", "Tidak"):
        return value == "Ya"
    return value or None


def parse_sub_page(route: str, html: str) -> dict[str, Any]:
    """The data of one ``sub_<x>`` page: ``{"blocks": [...]}``, one block per data table in
    page order (``sub_pemeriksa`` prints two, ``sub_publisitas`` and ``sub_rapat`` two inside a
    titled frame, most views one; the views that print no data give no block).

    A block is ``{"headings", "columns", "records", "message"}``: ``headings`` the green
    ``<b>`` titles printed since the previous table (the frame's title, then the table's);
    ``columns`` the header row's labels as printed; ``records`` one object per row keyed by
    column label; ``message`` the ``BELUM DITETAPKAN`` / ``BELUM ADA DATA`` row when the view
    printed it instead of records (else ``None``). Pure; raises
    :class:`harvest.sipp.ParseError` only when the HTML does not parse at all."""
    doc = parse_html(html, f"tab:{route}")
    blocks: list[dict[str, Any]] = []
    for headings, table in tables_with_text_before(doc):
        trs = [tr for tr in rows(table) if cells(tr)]
        columns = [text(td) for td in cells(trs[0])] if trs else []
        records: list[dict[str, Any]] = []
        message: str | None = None
        for tr in trs[1:]:
            values = [text(td) for td in cells(tr)]
            if len(values) == 1 and values[0] in NO_RECORD_MESSAGES:
                message = values[0]
                continue
            records.append(
                {
                    column: _cell(column, values[k] if k < len(values) else "")
                    for k, column in enumerate(columns)
                }
            )
        blocks.append(
            {"headings": headings, "columns": columns, "records": records, "message": message}
        )
    return {"blocks": blocks}
