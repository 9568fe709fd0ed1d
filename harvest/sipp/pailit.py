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
shows. Not wired into the spider yet (docs/fidelity.md, "Out of scope here").

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

from harvest.sipp.html import absolute_url, cells, first, parse_html, rows, text, xpath_elements
from harvest.sipp.normalise import clean_text, parse_date

__all__ = ["NO_RECORD_MESSAGES", "SubPageLink", "parse_sub_page", "sub_page_links"]

#: the one row a sub view prints when the query found no record
NO_RECORD_MESSAGES = frozenset({"BELUM DITETAPKAN", "BELUM ADA DATA"})

#: ``if($(this).attr('href')=='#accorN'){ openLoadingDialog(); $('#tabs_from_accor').load('U');``
_LOAD = re.compile(
    r"attr\('href'\)\s*==\s*'#(?P<anchor>accor\d+)'\s*\)\s*\{\s*"
    r"(?:openLoadingDialog\(\);\s*)?\$\('#tabs_from_accor'\)\.load\('(?P<url>[^']+)'\)"
)
_ROUTE = re.compile(r"/(?P<route>sub_[a-z]+)/[^/?#]+")


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
    """The data of one ``sub_<x>`` page: ``{"heading", "columns", "records", "message"}``.

    ``heading`` is the green title (``None`` for a view that prints no data); ``columns`` the
    header row's labels as printed; ``records`` one object per row, keyed by column label;
    ``message`` the ``BELUM DITETAPKAN`` / ``BELUM ADA DATA`` row when the view printed it
    instead of records (else ``None``). Pure; raises :class:`harvest.sipp.ParseError` only
    when the HTML does not parse at all."""
    doc = parse_html(html, f"tab:{route}")
    bold = first(doc, "//table[not(ancestor::table)]//tr/td/b")
    heading = (text(bold) or None) if bold is not None else None
    table = first(doc, "//div[contains(@class, 'cssTable')]/table")
    columns: list[str] = []
    records: list[dict[str, Any]] = []
    message: str | None = None
    if table is not None:
        trs = rows(table)
        if trs:
            columns = [clean_text(text(td)) for td in cells(trs[0])]
        for tr in trs[1:]:
            values = [text(td) for td in cells(tr)]
            if len(values) == 1 and clean_text(values[0]) in NO_RECORD_MESSAGES:
                message = clean_text(values[0])
                continue
            records.append(
                {
                    column: _cell(column, values[k] if k < len(values) else "")
                    for k, column in enumerate(columns)
                }
            )
    return {"heading": heading, "columns": columns, "records": records, "message": message}
