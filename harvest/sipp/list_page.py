"""The list page (``/list_perkara``, ``/list_perkara/type/<enc>``, ``.../page/<n>/...``).

One parser for every list: the "all cases" list, the per-flow lists of the menu, their pages,
and the traffic-ticket (tilang, alur 114) list whose columns differ. Columns are recognised by
their header text, not their position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from harvest.sipp.document import OTHER_KEY
from harvest.sipp.exceptions import ParseError
from harvest.sipp.generic import generic_cell
from harvest.sipp.html import (
    Element,
    absolute_url,
    cells,
    first,
    lines,
    parse_html,
    raw_text,
    rows,
    text,
    xpath_elements,
)
from harvest.sipp.normalise import clean_text, none_if_empty, parse_date, parse_int
from harvest.sipp.warnings import warn

PAGE = "list page"
#: The page name parse warnings of this page carry (harvest.sipp.warnings).
WARN_PAGE = "list"
NO_DATA_TEXT = "data tidak ditemukan"

_TOTAL = re.compile(r"Total\s*:\s*([\d.]+)\s*Perkara", re.IGNORECASE)
_TOTAL_PAGE_VAR = re.compile(r"var\s+totalPage\s*=\s*['\"]?(\d+)['\"]?")
_PAGE_TEMPLATE = re.compile(
    r"window\.open\(\s*'([^']*?/page/)'\s*\+\s*pageNumber\s*\+\s*'([^']*)'", re.IGNORECASE
)
_END_BR = re.compile(r"</br\s*>", re.IGNORECASE)
_CELLS = re.compile(r":\s*\[.*\]\s*$", re.DOTALL)  # a ParseError's trailing cell texts
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}$")
_LIST_LINK = re.compile(r"^(?P<root>.*?/list_perkara)/(?P<rest>[^?#]+)$")


@dataclass(frozen=True)
class MenuEntry:
    """A listing the site's menu offers: its label and absolute URL (the ``/type/`` form)."""

    label: str
    url: str


@dataclass(frozen=True)
class ListRow:
    """One case row of a list page.

    ``nomor_perkara`` is the case number exactly as shown; ``detail_url`` the absolute
    ``show_detil`` link (its token changes on every render); ``registered`` the ISO
    registration date (``None`` on the tilang list, which has none); ``data`` the row as it
    goes into the case part (see :func:`harvest.sipp.case_part_data`).
    """

    nomor_perkara: str
    detail_url: str
    registered: str | None
    data: dict[str, Any]


@dataclass(frozen=True)
class RowError:
    """A case row of a list page that cannot be read (no case number, no link, bad cell ...).

    ``row`` is its 1-based position among the page's case rows; ``problem`` says what is wrong,
    without the row's cell texts (they name people).
    """

    row: int
    problem: str


@dataclass(frozen=True)
class ListPage:
    """A parsed list page.

    ``total_cases`` is the court's row count for this listing (``Total : 10.788 Perkara``, or
    the JS ``var totalPage`` when the total line is missing); pages = ceil(total / 20).
    ``page_url_template`` is the absolute paging URL with ``{page}`` where the number goes.
    ``no_data`` is true when the table holds the ``Data Tidak diTemukan`` row (or no case row
    at all): past the last page, or an empty listing. ``pembaharuan_data`` is the court's last
    sync as the total line shows it (``Rabu, 19 Juni 2024 17:05:12 WIB``), ``None`` when the
    line says ``tanggal gagal dimuat`` (body.php:7-16) or is missing.
    """

    title: str
    rows: list[ListRow]
    total_cases: int | None
    page_url_template: str | None
    menu: list[MenuEntry]
    no_data: bool
    pembaharuan_data: str | None = None
    #: rows that could not be read: the rest of the page is still parsed (one bad row never
    #: fails the page)
    row_errors: list[RowError] = field(default_factory=list)


# Header text (lower case, whitespace collapsed) -> key in ListRow.data and how to read it.
# The all-cases list and every flow list except tilang share the first set; the row number and
# the token link are not data (docs/item-format.md, list_row).
_COLUMNS: dict[str, tuple[str, str]] = {
    "no": ("", "skip"),
    "nomor perkara": ("nomor_perkara", "raw"),
    "tanggal register": ("tanggal_register", "date"),
    "klasifikasi perkara": ("klasifikasi_perkara", "text"),
    "para pihak": ("para_pihak", "parties"),
    "status perkara": ("status_perkara", "text"),
    "lama proses": ("lama_proses", "days"),
    "link": ("", "link"),
    # the traffic-ticket list (alur 114)
    "nomor seri tilang / no pembayaran": ("", "seri_bayar"),
    "tanda nomor kendaraan bermotor": ("tanda_nomor_kendaraan", "text"),
    "pelanggar": ("pelanggar", "text"),
    "tanggal sidang ruang sidang": ("", "date_room"),
    "putusan": ("putusan", "text"),
}


def parse_list_page(html: str, url: str) -> ListPage:
    """Parse a list page fetched from ``url`` (used to make links absolute).

    Raises :class:`ParseError` only when the page is no list page (no case table, no header
    row, a case row without number or link). A column it does not know is kept generically
    in each row's ``lainnya`` (``[{"label": header as shown, "value": generic cell}]``) with a
    ``column`` warning; a cell that does not parse as its column's type keeps its text with a
    ``value`` warning.
    """
    # perkara_list.php:125/131 print ``label:</br>names``; libxml2 drops a ``</br>`` end tag
    # (browsers read it as ``<br>``), which would glue the label to the first name.
    doc = parse_html(_END_BR.sub("<br/>", html), PAGE)
    table = first(doc, "//table[@id='tablePerkaraAll']")
    if table is None:
        raise ParseError(f"{PAGE}: no table#tablePerkaraAll in the page from {url}")
    title = text(first(doc, "//div[@id='pageTitle']"))
    header: list[str] | None = None
    shown: list[str] = []
    out_rows: list[ListRow] = []
    row_errors: list[RowError] = []
    no_data = False
    for tr in rows(table):
        tds = cells(tr)
        if not tds:
            continue
        texts = [text(td) for td in tds]
        if header is None:
            if texts[0].lower() != "no":
                raise ParseError(f"{PAGE}: first row of #tablePerkaraAll is not a header: {texts}")
            header = [t.lower() for t in texts]
            shown = texts
            for label in (t for t in texts if t.lower() not in _COLUMNS):
                warn(WARN_PAGE, label, "column")
            continue
        if clean_text(" ".join(texts)).lower() == NO_DATA_TEXT:
            no_data = True
            continue
        try:
            out_rows.append(_parse_row(header, shown, tds, url))
        except ParseError as exc:
            position = len(out_rows) + len(row_errors) + 1
            row_errors.append(RowError(position, _CELLS.sub("", str(exc))))
    if header is None:
        raise ParseError(f"{PAGE}: #tablePerkaraAll has no header row ({url})")
    return ListPage(
        title=title,
        rows=out_rows,
        pembaharuan_data=_synced(doc),
        total_cases=_total_cases(doc, html),
        page_url_template=_page_url_template(html, url),
        menu=_menu(doc, url),
        no_data=no_data or not (out_rows or row_errors),
        row_errors=row_errors,
    )


def _parse_row(header: list[str], shown: list[str], tds: list[Element], url: str) -> ListRow:
    if len(tds) != len(header):
        raise ParseError(
            f"{PAGE}: a row has {len(tds)} cells, the header {len(header)}: "
            f"{[text(td) for td in tds]}"
        )
    data: dict[str, Any] = {}
    detail_url = ""
    for name, label, td in zip(header, shown, tds, strict=True):
        key, kind = _COLUMNS.get(name, ("", "other"))
        if kind == "other":
            data.setdefault(OTHER_KEY, []).append({"label": label, "value": generic_cell(td)})
        elif kind == "skip":
            continue
        elif kind == "link":
            hrefs = [str(a.get("href", "")) for a in xpath_elements(td, ".//a[@href]")]
            detail = [h for h in hrefs if "show_detil" in h] or hrefs
            detail_url = absolute_url(url, detail[0]) if detail else ""
        elif kind == "raw":
            data[key] = raw_text(td)
        elif kind == "date":
            data[key] = _date(text(td), label)
        elif kind == "days":
            data[key] = _days(text(td), label)
        elif kind == "parties":
            data[key] = parse_party_cell(td)
        elif kind == "seri_bayar":
            # perkara_list.php:64: ``nomorTilang<br/>nomorPembayaran``
            parts = lines(td)
            if len(parts) == 1 and " / " in parts[0]:
                parts = parts[0].split(" / ", 1)
            data["nomor_seri_tilang"] = none_if_empty(parts[0]) if parts else None
            data["nomor_pembayaran"] = none_if_empty(" ".join(parts[1:]))
        elif kind == "date_room":
            parts = lines(td)
            data["tanggal_sidang"] = _date(parts[0], label) if parts else None
            data["ruang_sidang"] = " ".join(parts[1:]) or None
        else:
            data[key] = none_if_empty(text(td))
    number = data.get("nomor_perkara", "")
    if not number or not str(number).strip():
        raise ParseError(f"{PAGE}: a case row has no Nomor Perkara: {[text(td) for td in tds]}")
    if not detail_url:
        raise ParseError(f"{PAGE}: row {number!r} has no show_detil link")
    registered = data.get("tanggal_register")
    return ListRow(
        nomor_perkara=str(number),
        detail_url=detail_url,
        # only a date read as one orders the walk (since/until); a kept text is not one
        registered=registered
        if isinstance(registered, str) and _ISO_DAY.match(registered)
        else None,
        data=data,
    )


def parse_party_cell(td: Element) -> list[dict[str, Any]]:
    """The list's "Para Pihak" cell: ``label1:<br>names<br/><br/>label2:<br>names``.

    One ``{"label": ..., "nama": [...]}`` per side, split at the blank line (``<br><br>``),
    not at the label text (which may be ``Error, Pihak Not Found!!!``).
    """
    raw_lines: list[str] = []
    buf: list[str] = []

    def flush() -> None:
        raw_lines.append(clean_text("".join(buf)))
        buf.clear()

    if td.text:
        buf.append(td.text)
    for child in td:
        if child.tag == "br":
            flush()
        else:
            buf.append(text(child) if child.tag not in ("script", "style") else "")
        if child.tail:
            buf.append(child.tail)
    flush()
    groups: list[list[str]] = [[]]
    for line in raw_lines:
        if line:
            groups[-1].append(line)
        elif groups[-1]:
            groups.append([])
    sides: list[dict[str, Any]] = []
    for group in groups:
        if not group:
            continue
        label, names = group[0], group[1:]
        if label.endswith(":"):
            label = label[:-1].rstrip()
        elif ":" not in label:
            label, names = "", group
        sides.append({"label": label, "nama": names})
    return sides


def _days(value: str, column: str) -> int | str | None:
    """``21 Hari`` -> 21; another text is kept as shown, with a ``value`` warning."""
    try:
        return parse_int(value)
    except ValueError:
        warn(WARN_PAGE, column, "value")
        return value


def _date(value: str, column: str) -> str | None:
    """An ISO date; a text that is no date is kept as shown, with a ``value`` warning."""
    try:
        return parse_date(value)
    except ValueError:
        warn(WARN_PAGE, column, "value")
        return value


_SYNCED = re.compile(r"Pembaharuan Data\s*:\s*(.*?)\s*,\s*Total\s*:", re.IGNORECASE)
_SYNC_FAILED = "tanggal gagal dimuat"


def _synced(doc: Element) -> str | None:
    line = text(
        first(doc, "//div[contains(concat(' ', normalize-space(@class), ' '), ' total_perkara ')]")
    )
    m = _SYNCED.search(line)
    if not m or not m.group(1) or m.group(1).lower() == _SYNC_FAILED or m.group(1) == "-":
        return None
    return m.group(1)


def _total_cases(doc: Element, html: str) -> int | None:
    total = text(
        first(doc, "//div[contains(concat(' ', normalize-space(@class), ' '), ' total_perkara ')]")
    )
    if m := _TOTAL.search(total):
        return int(m.group(1).replace(".", ""))
    if m := _TOTAL_PAGE_VAR.search(html):
        return int(m.group(1))
    return None


def _page_url_template(html: str, url: str) -> str | None:
    m = _PAGE_TEMPLATE.search(html)
    if not m:
        return None
    return absolute_url(url, f"{m.group(1)}{{page}}{m.group(2)}")


def _menu(doc: Element, url: str) -> list[MenuEntry]:
    entries: list[MenuEntry] = []
    seen: set[str] = set()
    for a in xpath_elements(doc, "//div[contains(@class, 'cssmenu')]//a[@href]"):
        raw = str(a.get("href", "")).strip()
        if not raw or raw.startswith("#"):
            # a group heading (menu.php:58 prints '#'): on a flow page it would resolve to the
            # page's own /type/ URL and be taken for a listing
            continue
        href = absolute_url(url, raw)
        listing = listing_url(href)
        if listing is None or listing in seen:
            continue
        seen.add(listing)
        entries.append(MenuEntry(label=text(a), url=listing))
    return entries


def listing_url(href: str) -> str | None:
    """The ``/list_perkara/type/<enc>`` URL of a menu link, ``None`` if it is no typed listing.

    A top-level menu item with parameters is emitted as ``/list_perkara/<enc>`` (no ``/type/``),
    which the app cannot route: it is rewritten to ``/list_perkara/type/<enc>``. The plain
    ``/list_perkara`` ("Beranda", all cases) and paging/sort/search links are not listings.
    """
    path = urlsplit(href).path
    m = _LIST_LINK.match(href)
    if not m or path.endswith("/list_perkara"):
        return None
    rest = m.group("rest").strip("/")
    segments = rest.split("/")
    if segments[0] == "type" and len(segments) == 2 and segments[1]:
        return href
    if len(segments) == 1 and segments[0] not in ("index", "search", "search_detail", "type"):
        return f"{m.group('root')}/type/{segments[0]}"
    return None


#: ``.../page/{page}/<enc>/<keyword token>/col/<column>`` (body.php:39): the listing's enc and
#: the ordering column of a paging template
_TEMPLATE_PARTS = re.compile(r"/page/\{page\}/(?P<enc>[^/]+)/[^/]+/col/(?P<col>\d+)$")


def listing_enc(template: str | None) -> str | None:
    """The listing's ``enc`` (its flow, encrypted by the court) from a list page's paging
    template: the value the page's search form posts (perkara_list.php / list_perkara.php:71).
    ``None`` when the template has no such segment."""
    m = _TEMPLATE_PARTS.search(urlsplit(template).path) if template else None
    return m.group("enc") if m else None


def by_case_number(template: str) -> str:
    """A paging template ordered by case number instead: ``col/1``, the unique ``noPerkara``
    order (perkara_m.php:58; ``list_perkara/page/<n>/<enc>/<keyword>/<str>/<col>``,
    list_perkara.php:49-61). Unchanged when the template has no column."""
    return re.sub(r"/col/\d+$", "/col/1", template)
