"""Tab fragments (``/show_<slug>/<tok>`` -> ``/<controller>``): one parser per tab type.

Each parser takes the fragment's HTML and returns the tab's data in the item format
(docs/item-format.md, "The tab parts"). :func:`parse_tab` dispatches on the slug; a slug without
a dedicated parser, or a shape its parser does not know, goes to the generic parser with a parse
warning (:func:`harvest.sipp.generic.parse_tab_page`), so no tab is dropped or blocked.
Columns and rows are found by their header / label text, never by position alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import lxml.etree

from harvest.sipp.detail_page import date_value, table_records
from harvest.sipp.document import OTHER_KEY
from harvest.sipp.exceptions import ParseError
from harvest.sipp.generic import generic_table, parse_tab_page
from harvest.sipp.html import (
    Element,
    cells,
    first,
    headed_tables,
    lines,
    long_text,
    parse_html,
    rows,
    text,
    xpath_elements,
)
from harvest.sipp.normalise import clean_text, none_if_empty, parse_money
from harvest.sipp.pailit import SUB_SLUG_PREFIX, parse_sub_page
from harvest.sipp.record_tabs import RECORD_PARSERS, odd_rows, soft_date
from harvest.sipp.verdicts import VERDICT_PARSERS
from harvest.sipp.warnings import warn

#: Messages a tab prints instead of data.
NO_DATA_MESSAGES = frozenset(
    {
        "data tidak ditemukan",
        "belum ditetapkan",
        "tidak ada pencatatan register barang bukti",
        "tidak ada data",
    }
)

TabParser = Callable[[str], Any]
#: Converts one value cell to its field's value; ``where`` (tab and label) goes into errors.
CellConverter = Callable[[Element, str], Any]
#: Lower-case label -> ``(key, converter)`` for one label/value table. Key ``None``: the
#: converter returns the row's fields itself (a row whose shape decides its key).
LabelMap = Mapping[str, tuple[str | None, CellConverter]]


def parse_tab(slug: str, html: str) -> Any:
    """The data of tab ``slug`` from its fragment; unknown slugs, unknown shapes and pages a
    parser finds nothing in get the generic parser, with a warning (generic.parse_tab_page)."""
    if slug.startswith(SUB_SLUG_PREFIX):
        return parse_sub_page(slug.removeprefix(SUB_SLUG_PREFIX), html)
    return parse_tab_page(slug, html, TAB_PARSERS.get(slug), NO_DATA_MESSAGES)


# ------------------------------------------------------------------------------------ helpers


def _doc(html: str, slug: str) -> Element:
    return parse_html(html, f"tab {slug}")


def _body(doc: Element) -> Element:
    body = doc.find("body")
    return body if body is not None else doc


def _top_tables(doc: Element, table_id: str | None = None) -> list[Element]:
    """Tables not nested in another table, optionally only those with ``id=table_id``."""
    cond = f"[@id='{table_id}']" if table_id else ""
    return xpath_elements(doc, f"//table{cond}[not(ancestor::table)]")


def _is_no_data(doc: Element) -> bool:
    """True when the fragment's only visible text is a no-data message."""
    visible = clean_text(" ".join(lines(_body(doc)))).lower()
    return visible in NO_DATA_MESSAGES


def logical_header(trs: list[Element]) -> tuple[list[str], int]:
    """Column names of a table whose header may span two rows (Biaya Perkara:
    ``No | Tanggal Transaksi | Uraian | nominal (colspan 3) | Keterangan`` over
    ``Pemasukan | Pengeluaran | Sisa``), lower-cased, and the number of header rows."""
    if not trs:
        return [], 0
    names: list[str] = []
    slots: list[int] = []
    for td in cells(trs[0]):
        span = _span(td)
        if span > 1:
            slots.extend(range(len(names), len(names) + span))
        names.extend([text(td).lower()] * span)
    if slots and len(trs) > 1:
        sub = cells(trs[1])
        if len(sub) == len(slots):
            for index, td in zip(slots, sub, strict=True):
                names[index] = text(td).lower()
            return names, 2
    return names, 1


def _span(td: Element) -> int:
    try:
        return max(1, int(str(td.get("colspan", "1")).strip() or 1))
    except ValueError:
        return 1


def label_rows(table: Element) -> list[tuple[str, Element]]:
    """``(label, value cell)`` of a label/value table (``td#first-child`` label rows)."""
    out = []
    for tr in rows(table):
        tds = cells(tr)
        if len(tds) >= 2:
            out.append((text(tds[0]), tds[1]))
    return out


def _date(cell: Element | None, where: str) -> str | None:
    return date_value(text(cell), where)


def _text(cell: Element | None) -> str | None:
    return none_if_empty(text(cell))


def _money(cell: Element | None, where: str) -> int | None:
    try:
        return parse_money(text(cell))
    except ValueError as e:
        raise ParseError(f"{where}: {e}") from e


def _get(rec: dict[str, Element], *names: str) -> Element | None:
    for name in names:
        if name in rec:
            return rec[name]
    return None


def _data_tables(doc: Element, slug: str, table_id: str | None = None) -> list[Element]:
    """The fragment's top-level tables with ``id=table_id`` (all top-level tables when none has
    that id, or without ``table_id``); ParseError when there is no table at all."""
    tables = (_top_tables(doc, table_id) if table_id else []) or _top_tables(doc)
    if not tables:
        what = f"table#{table_id}" if table_id else "table"
        raise ParseError(f"tab {slug}: no {what} and no no-data message in the fragment")
    return tables


def _nested_records(cell: Element) -> list[dict[str, Element]]:
    """The records of the table nested in a value cell; ``[]`` when the cell holds none."""
    nested = first(cell, ".//table")
    return table_records(nested) if nested is not None else []


def _add_other_row(record: dict[str, Any], label: str, cell: Element) -> None:
    """Keep a label row no parser maps under :data:`OTHER_KEY`, so nothing shown is lost."""
    record.setdefault(OTHER_KEY, []).append({"label": label, "value": text(cell)})


def _text_field(cell: Element, where: str) -> str | None:
    """Converter: the cell's text, ``None`` when empty (text cannot fail: ``where`` unused)."""
    return _text(cell)


def _label_record(
    pairs: Iterable[tuple[str, Element]],
    labels: LabelMap,
    page: str,
    label_key: Callable[[str], str] = str.lower,
) -> dict[str, Any]:
    """One record from the ``(label, value cell)`` rows of a label/value table.

    A row whose ``label_key(label)`` is in ``labels`` gets its cell converted (errors name
    ``<page> '<label>'``); any other row goes to :data:`OTHER_KEY`. A later row with the same
    key wins, as on the page.
    """
    record: dict[str, Any] = {}
    for label, cell in pairs:
        field = labels.get(label_key(label))
        if field is None:
            _add_other_row(record, label, cell)
            continue
        key, convert = field
        value = convert(cell, f"{page} {label!r}")
        if key is None:
            record.update(value)
        else:
            record[key] = value
    return record


# --------------------------------------------------------------------------------- the tabs


_VISIBLE_TEXT = lxml.etree.XPath(
    "//text()[not(ancestor::script) and not(ancestor::style)]", smart_strings=False
)
_LONGEST_MESSAGE = max(len(m) for m in NO_DATA_MESSAGES)


def _shows_nothing(doc: Element) -> bool:
    """True when the fragment shows no text at all, or only a no-data message."""
    seen: list[str] = []
    size = 0
    for piece in _VISIBLE_TEXT(doc):
        piece = piece.strip()
        if piece:
            size += len(piece) + 1
            if size > 2 * _LONGEST_MESSAGE:
                return False  # far longer than any message: there is data
            seen.append(piece)
    visible = clean_text(" ".join(seen)).lower()
    return not visible or visible in NO_DATA_MESSAGES


def _headed_records(doc: Element, slug: str, table_id: str) -> list[dict[str, Element]]:
    """The records of the fragment's first ``table#table_id`` (else its first table). The
    templates always print that table, so text without any table is not this tab: ParseError.
    A row of another width than the header (not a no-data row) comes last as
    ``{"lainnya": [cell texts]}`` with a warning."""
    table = _data_tables(doc, slug, table_id)[0]
    return [*table_records(table), *({OTHER_KEY: t} for t in odd_rows(table, f"tab:{slug}"))]


def parse_riwayat_perkara(html: str) -> list[dict[str, Any]]:
    """``No | Tanggal | Tahapan | Proses`` -> ``[{"tanggal", "tahapan", "proses"}]``."""
    doc = _doc(html, "riwayat_perkara")
    if _shows_nothing(doc):
        return []
    page = "tab:riwayat_perkara"
    return [
        {
            "tanggal": soft_date(_get(rec, "tanggal"), page, "Tanggal"),
            "tahapan": _text(_get(rec, "tahapan")),
            "proses": _text(_get(rec, "proses")),
        }
        if OTHER_KEY not in rec
        else rec
        for rec in _headed_records(doc, "riwayat_perkara", "tableinfo")
    ]


#: The line the template appends to the agenda of a hearing on the opposition (``verzet='Y'``).
_JADWAL_SUFFIXES = frozenset({"sidang verzet", "sidang perlawanan"})


def parse_jadwal_sidang(html: str) -> list[dict[str, Any]]:
    """``No | Tanggal Sidang | Jam | Agenda | Ruangan | Alasan Ditunda``.

    The agenda cell may end in a ``<br> Sidang Verzet`` / ``Sidang Perlawanan`` line
    (-> ``jenis_sidang``); the room cell is ``<room or Belum Ditentukan> <br> (<dihadiri
    oleh>)`` (-> ``ruangan``, ``dihadiri_oleh``).
    """
    doc = _doc(html, "jadwal_sidang")
    if _shows_nothing(doc):
        return []
    page = "tab:jadwal_sidang"
    out = []
    for rec in _headed_records(doc, "jadwal_sidang", "tableinfo"):
        if OTHER_KEY in rec:
            out.append(rec)
            continue
        agenda = lines(_get(rec, "agenda"))
        jenis = agenda.pop() if agenda and agenda[-1].lower() in _JADWAL_SUFFIXES else None
        room = lines(_get(rec, "ruangan"))
        hadir: str | None = None
        if room and room[-1].startswith("(") and room[-1].endswith(")"):
            hadir = none_if_empty(clean_text(room.pop()[1:-1]))
        out.append(
            {
                "tanggal": soft_date(_get(rec, "tanggal sidang", "tanggal"), page, "Tanggal"),
                "jam": _text(_get(rec, "jam")),
                "agenda": none_if_empty(" ".join(agenda)),
                "jenis_sidang": jenis,
                "ruangan": none_if_empty(" ".join(room)),
                "dihadiri_oleh": hadir,
                "alasan_ditunda": _text(_get(rec, "alasan ditunda")),
            }
        )
    return out


_PENETAPAN_BLOCKS = {
    "penetapan hakim": "hakim",
    "penetapan panitera pengganti": "panitera_pengganti",
    "penetapan jurusita pengganti": "jurusita_pengganti",
    "penetapan sidang pertama": "sidang_pertama",
}
#: Column -> key; a ``Tanggal ...`` column is a date, any other text.
_PENETAPAN_COLUMNS: dict[str, str] = {
    "tanggal penetapan": "tanggal_penetapan",
    "nama hakim/majelis hakim": "nama",
    "nama hakim": "nama",
    "nama panitera pengganti": "nama",
    "nama jurusita pengganti": "nama",
    "nama jurusita": "nama",
    "posisi": "posisi",
    "jenis acara": "jenis_acara",
    "aktif": "aktif",
    "tanggal sidang pertama": "tanggal_sidang",
}


def parse_penetapan(html: str) -> dict[str, Any]:
    """The headed blocks (``PENETAPAN HAKIM`` ...); a block showing ``BELUM DITETAPKAN`` is
    ``[]``, a block the template does not print (jurusita on criminal cases) is absent."""
    doc = _doc(html, "penetapan")
    out: dict[str, Any] = {}
    if _shows_nothing(doc):
        return out
    page = "tab:penetapan"
    for heading, table in headed_tables(doc):
        key = _PENETAPAN_BLOCKS.get((heading or "").lower())
        if key is None:
            warn(page, heading or "", "block")
            out.setdefault(OTHER_KEY, []).append(
                {"label": heading or "", "value": generic_table(table)}
            )
            continue
        block: list[dict[str, Any]] = []
        for rec in table_records(table):
            item: dict[str, Any] = {}
            for column, cell in rec.items():
                if column == "no":
                    continue
                name = _PENETAPAN_COLUMNS.get(column)
                if name is None:
                    warn(page, column, "column")
                    name = column.replace(" ", "_")
                if column.startswith("tanggal"):
                    item[name] = soft_date(cell, page, column)
                else:
                    item[name] = _text(cell)
            block.append(item)
        block.extend({OTHER_KEY: t} for t in odd_rows(table, page))
        out[key] = block
    if not out:
        raise ParseError("tab penetapan: text but no PENETAPAN block in the fragment")
    return out


def parse_saksi(html: str) -> list[str]:
    """``No | Nama`` -> names in page order (``Data disamarkan`` kept as shown)."""
    doc = _doc(html, "saksi")
    if _shows_nothing(doc):
        return []
    return [
        text(rec["nama"]) if OTHER_KEY not in rec else " ".join(rec[OTHER_KEY])
        for rec in _headed_records(doc, "saksi", "tableinfo")
        if "nama" in rec or OTHER_KEY in rec
    ]


#: Mediasi rows are label/value records (record_tabs.MEDIASI: ``jenis`` from the divider row).
parse_mediasi = RECORD_PARSERS["mediasi"]


def parse_penuntutan(html: str) -> list[dict[str, Any]]:
    """``Tanggal Tuntutan`` / ``Isi Tuntutan`` pairs (repeated per tuntutan)."""
    doc = _doc(html, "penuntutan")
    if _shows_nothing(doc):
        return []
    page = "tab:penuntutan"
    out: list[dict[str, Any]] = []
    for table in _data_tables(doc, "penuntutan", "infoPerkara"):
        for label, cell in label_rows(table):
            low = label.lower()
            if low == "tanggal tuntutan":
                out.append({"tanggal_tuntutan": soft_date(cell, page, label)})
            elif low == "isi tuntutan":
                if not out or "isi_tuntutan" in out[-1]:
                    out.append({"tanggal_tuntutan": None})
                out[-1]["isi_tuntutan"] = long_text(cell)
            else:
                warn(page, label, "row")
                if not out:
                    out.append({})
                _add_other_row(out[-1], label, cell)
    return out


def _soft_money(cell: Element | None, page: str, label: str) -> int | str | None:
    """An amount in rupiah; a cell that is not one keeps its text and warns (``value``)."""
    try:
        return parse_money(text(cell))
    except ValueError:
        warn(page, label, "value")
        return text(cell)


def parse_biaya_perkara(html: str) -> list[dict[str, Any]]:
    """One stage per ``table#tableStatusPutusan`` (heading ``BIAYA TINGKAT PERTAMA`` ... =
    ``tahap``), its ``Total`` row apart; an empty fragment (no transaction) is ``[]``."""
    doc = _doc(html, "biaya_perkara")
    if _shows_nothing(doc):
        return []
    page = "tab:biaya_perkara"
    out = []
    for heading, table in headed_tables(doc):
        transaksi: list[dict[str, Any]] = []
        total: dict[str, Any] | None = None
        trs = [tr for tr in rows(table) if cells(tr)]
        if not trs:
            continue
        header, n_header = logical_header(trs)
        for tr in trs[n_header:]:
            tds = cells(tr)
            if text(tds[0]).lower() == "total":
                money = [*tds[1:4], None, None, None][:3]
                total = {
                    key: _soft_money(td, page, "Total")
                    for key, td in zip(("pemasukan", "pengeluaran", "sisa"), money, strict=True)
                }
                continue
            if len(tds) == len(header):
                rec = dict(zip(header, tds, strict=True))
            elif len(tds) == 4 and len(header) == 7:
                # a transaction neither in nor out (jenisTransaksi not 1/-1): no amount cells
                rec = dict(zip((header[0], header[1], header[2], header[6]), tds, strict=True))
            else:
                warn(page, text(tds[0]), "row")
                transaksi.append({OTHER_KEY: [text(td) for td in tds]})
                continue
            transaksi.append(
                {
                    "tanggal": soft_date(
                        _get(rec, "tanggal transaksi", "tanggal"), page, "Tanggal"
                    ),
                    "uraian": _text(_get(rec, "uraian")),
                    "pemasukan": _soft_money(_get(rec, "pemasukan"), page, "Pemasukan"),
                    "pengeluaran": _soft_money(_get(rec, "pengeluaran"), page, "Pengeluaran"),
                    "sisa": _soft_money(_get(rec, "sisa"), page, "Sisa"),
                    "keterangan": _text(_get(rec, "keterangan")),
                }
            )
        out.append({"tahap": heading, "transaksi": transaksi, "total": total})
    if not out:
        raise ParseError("tab biaya_perkara: text but no table#tableStatusPutusan in the fragment")
    return out


_BARANG_BUKTI_LABELS: dict[str, str] = {
    "tanggal penerimaan": "tanggal_penerimaan",
    "jenis dan uraian lengkap barang bukti": "uraian",
    "tempat penyimpanan": "tempat_penyimpanan",
    "tempat penyerahan": "tempat_penyerahan",
    "nama penerima": "nama_penerima",
    "tgl penyerahan barang bukti": "tanggal_penyerahan",
    "tanggal penyerahan barang bukti": "tanggal_penyerahan",
    "catatan": "catatan",
}


def parse_barang_bukti(html: str) -> list[dict[str, Any]]:
    """One object per ``table#tableDetilPerkara`` (dates ``dd/mm/yyyy``)."""
    doc = _doc(html, "barang_bukti")
    if _shows_nothing(doc):
        return []
    page = "tab:barang_bukti"
    out = []
    for table in _data_tables(doc, "barang_bukti", "tableDetilPerkara"):
        record: dict[str, Any] = {}
        for label, cell in label_rows(table):
            key = _BARANG_BUKTI_LABELS.get(label.lower())
            if key is None:
                warn(page, label, "row")
                _add_other_row(record, label, cell)
            elif key.startswith("tanggal"):
                record[key] = soft_date(cell, page, label)
            else:
                record[key] = _text(cell)
        out.append(record)
    return out


#: slug -> parser. Anything else goes to the generic parser.
TAB_PARSERS: dict[str, TabParser] = {
    "riwayat_perkara": parse_riwayat_perkara,
    "jadwal_sidang": parse_jadwal_sidang,
    "penetapan": parse_penetapan,
    "saksi": parse_saksi,
    "mediasi": parse_mediasi,
    "penuntutan": parse_penuntutan,
    **VERDICT_PARSERS,
    "biaya_perkara": parse_biaya_perkara,
    "barang_bukti": parse_barang_bukti,
    **RECORD_PARSERS,
}
