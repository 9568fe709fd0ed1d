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

from harvest.sipp.detail_page import date_value, table_records
from harvest.sipp.exceptions import ParseError
from harvest.sipp.generic import parse_tab_page
from harvest.sipp.html import (
    Element,
    cells,
    first,
    lines,
    long_text,
    parse_html,
    rows,
    text,
    xpath_elements,
)
from harvest.sipp.normalise import clean_text, none_if_empty, parse_money

#: Messages a tab prints instead of data.
NO_DATA_MESSAGES = frozenset(
    {
        "data tidak ditemukan",
        "belum ditetapkan",
        "tidak ada pencatatan register barang bukti",
        "tidak ada data",
    }
)
#: Key for label rows a parser has no mapping for: ``[{"label", "value"}]``.
OTHER_ROWS = "lainnya"

TabParser = Callable[[str], Any]
#: Converts one value cell to its field's value; ``where`` (tab and label) goes into errors.
CellConverter = Callable[[Element, str], Any]
#: Lower-case label -> ``(key, converter)`` for one label/value table. Key ``None``: the
#: converter returns the row's fields itself (a row whose shape decides its key).
LabelMap = Mapping[str, tuple[str | None, CellConverter]]


def parse_tab(slug: str, html: str) -> Any:
    """The data of tab ``slug`` from its fragment; unknown slugs, unknown shapes and pages a
    parser finds nothing in get the generic parser, with a warning (generic.parse_tab_page)."""
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


def headed_tables(doc: Element) -> list[tuple[str | None, Element]]:
    """Data tables in document order, each with the last text line seen before it (since the
    previous data table): the block headings of Penetapan and Biaya Perkara.

    A data table is one without tables inside; a table that holds tables is only a layout
    container (the real Penetapan view puts each heading and its table in rows of one outer
    table), so its text counts as heading text and its inner tables are walked.
    """
    out: list[tuple[str | None, Element]] = []
    buf: list[str] = []

    def take_heading() -> str | None:
        found = [clean_text(x) for x in "".join(buf).split("\n")]
        found = [x for x in found if x]
        buf.clear()
        return found[-1] if found else None

    def walk(el: Element) -> None:
        if el.text:
            buf.append(el.text)
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag == "table" and first(child, ".//table") is None:
                out.append((take_heading(), child))
            elif tag and tag not in ("script", "style"):
                buf.append("\n")
                walk(child)
                buf.append("\n")
            if child.tail:
                buf.append(child.tail)

    walk(_body(doc))
    return out


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
    """Keep a label row no parser maps under :data:`OTHER_ROWS`, so nothing shown is lost."""
    record.setdefault(OTHER_ROWS, []).append({"label": label, "value": text(cell)})


def _text_field(cell: Element, where: str) -> str | None:
    """Converter: the cell's text, ``None`` when empty (text cannot fail: ``where`` unused)."""
    return _text(cell)


def _long_field(cell: Element, where: str) -> str | None:
    """Converter: a long text cell (:func:`harvest.sipp.html.long_text`)."""
    return long_text(cell)


def _label_record(
    pairs: Iterable[tuple[str, Element]],
    labels: LabelMap,
    page: str,
    label_key: Callable[[str], str] = str.lower,
) -> dict[str, Any]:
    """One record from the ``(label, value cell)`` rows of a label/value table.

    A row whose ``label_key(label)`` is in ``labels`` gets its cell converted (errors name
    ``<page> '<label>'``); any other row goes to :data:`OTHER_ROWS`. A later row with the same
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


def parse_riwayat_perkara(html: str) -> list[dict[str, Any]]:
    """``No | Tanggal | Tahapan | Proses`` -> ``[{"tanggal", "tahapan", "proses"}]``."""
    doc = _doc(html, "riwayat_perkara")
    if _is_no_data(doc):
        return []
    tables = _data_tables(doc, "riwayat_perkara")
    return [
        {
            "tanggal": _date(_get(rec, "tanggal"), "riwayat_perkara Tanggal"),
            "tahapan": _text(_get(rec, "tahapan")),
            "proses": _text(_get(rec, "proses")),
        }
        for rec in table_records(tables[0])
    ]


def parse_jadwal_sidang(html: str) -> list[dict[str, Any]]:
    """``No | Tanggal Sidang | Jam | Agenda | Ruangan | Alasan Ditunda``."""
    doc = _doc(html, "jadwal_sidang")
    if _is_no_data(doc):
        return []
    tables = _data_tables(doc, "jadwal_sidang")
    return [
        {
            "tanggal": _date(_get(rec, "tanggal sidang", "tanggal"), "jadwal_sidang Tanggal"),
            "jam": _text(_get(rec, "jam")),
            "agenda": _text(_get(rec, "agenda")),
            "ruangan": _text(_get(rec, "ruangan")),
            "alasan_ditunda": _text(_get(rec, "alasan ditunda")),
        }
        for rec in table_records(tables[0])
    ]


_PENETAPAN_BLOCKS = {
    "penetapan hakim": "hakim",
    "penetapan panitera pengganti": "panitera_pengganti",
    "penetapan jurusita pengganti": "jurusita_pengganti",
    "penetapan sidang pertama": "sidang_pertama",
}
#: Column -> ``(key, converter)``; a column not listed is text under its name with ``_``s.
_PENETAPAN_COLUMNS: dict[str, tuple[str, CellConverter]] = {
    "tanggal penetapan": ("tanggal_penetapan", _date),
    "nama hakim/majelis hakim": ("nama", _text_field),
    "nama hakim": ("nama", _text_field),
    "nama panitera pengganti": ("nama", _text_field),
    "nama jurusita pengganti": ("nama", _text_field),
    "nama jurusita": ("nama", _text_field),
    "posisi": ("posisi", _text_field),
    "jenis acara": ("jenis_acara", _text_field),
    "aktif": ("aktif", _text_field),
    "tanggal sidang pertama": ("tanggal_sidang", _date),
}


def parse_penetapan(html: str) -> dict[str, Any]:
    """The four headed blocks (``BELUM DITETAPKAN`` -> ``[]``); a block not printed is absent."""
    doc = _doc(html, "penetapan")
    out: dict[str, Any] = {}
    if _is_no_data(doc):
        return out
    for heading, table in headed_tables(doc):
        key = _PENETAPAN_BLOCKS.get((heading or "").lower())
        if key is None:
            raise ParseError(f"tab penetapan: a table under unknown heading {heading!r}")
        block: list[dict[str, Any]] = []
        for rec in table_records(table):
            item: dict[str, Any] = {}
            for column, cell in rec.items():
                if column == "no":
                    continue
                name, convert = _PENETAPAN_COLUMNS.get(
                    column, (column.replace(" ", "_"), _text_field)
                )
                item[name] = convert(cell, f"penetapan {column!r}")
            block.append(item)
        out[key] = block
    if not out:
        raise ParseError("tab penetapan: no PENETAPAN block in the fragment")
    return out


def parse_saksi(html: str) -> list[str]:
    """``No | Nama`` -> names in page order."""
    doc = _doc(html, "saksi")
    if _is_no_data(doc):
        return []
    tables = _data_tables(doc, "saksi")
    return [text(rec["nama"]) for rec in table_records(tables[0]) if "nama" in rec]


def _mediators(cell: Element, where: str) -> list[dict[str, Any]]:
    """``Data Mediator``: nested ``No | Nama | Status Mediator`` table."""
    return [
        {"nama": text(_get(rec, "nama")), "status": _text(_get(rec, "status mediator", "status"))}
        for rec in _nested_records(cell)
    ]


_MEDIASI_LABELS: LabelMap = {
    "tgl. penetapan mediator": ("tanggal_penetapan_mediator", _date),
    "tanggal penetapan mediator": ("tanggal_penetapan_mediator", _date),
    "no. penetapan mediator": ("nomor_penetapan_mediator", _text_field),
    "nomor penetapan mediator": ("nomor_penetapan_mediator", _text_field),
    "data mediator": ("mediator", _mediators),
    "tgl. mulai mediasi": ("tanggal_mulai", _date),
    "tanggal mulai mediasi": ("tanggal_mulai", _date),
    "tgl. hasil mediasi": ("tanggal_hasil", _date),
    "tanggal hasil mediasi": ("tanggal_hasil", _date),
    "hasil mediasi": ("hasil", _text_field),
}


def parse_mediasi(html: str) -> list[dict[str, Any]]:
    """One object per round (``table#infoPerkara``)."""
    doc = _doc(html, "mediasi")
    if _is_no_data(doc):
        return []
    return [
        _label_record(label_rows(table), _MEDIASI_LABELS, "mediasi")
        for table in _data_tables(doc, "mediasi", "infoPerkara")
    ]


def parse_penuntutan(html: str) -> list[dict[str, Any]]:
    """``Tanggal Tuntutan`` / ``Isi Tuntutan`` pairs (repeated per tuntutan)."""
    doc = _doc(html, "penuntutan")
    if _is_no_data(doc):
        return []
    out: list[dict[str, Any]] = []
    for table in _data_tables(doc, "penuntutan", "infoPerkara"):
        for label, cell in label_rows(table):
            low = label.lower()
            if low == "tanggal tuntutan":
                out.append({"tanggal_tuntutan": _date(cell, "penuntutan Tanggal Tuntutan")})
            elif low == "isi tuntutan":
                if not out or "isi_tuntutan" in out[-1]:
                    out.append({"tanggal_tuntutan": None})
                out[-1]["isi_tuntutan"] = long_text(cell)
            else:
                if not out:
                    out.append({})
                _add_other_row(out[-1], label, cell)
    return out


def _status_putusan(cell: Element, where: str) -> dict[str, Any]:
    """``Status Putusan``: text on civil cases -> ``status_putusan``; a nested ``No | Nama |
    Tanggal Putusan | Putusan`` table on criminal ones -> ``status_putusan_terdakwa``."""
    nested = first(cell, ".//table")
    if nested is None:
        return {"status_putusan": _text(cell)}
    return {
        "status_putusan_terdakwa": [
            {
                "nama": text(_get(rec, "nama")),
                "tanggal_putusan": _date(_get(rec, "tanggal putusan"), where),
                "putusan": _text(_get(rec, "putusan")),
            }
            for rec in table_records(nested)
        ]
    }


def _notices(cell: Element, where: str) -> list[dict[str, Any]]:
    """``Pemberitahuan Putusan``: nested ``No | Status | Nama | Tanggal Pemberitahuan Putusan``."""
    return [
        {
            "status": text(_get(rec, "status")),
            "nama": text(_get(rec, "nama")),
            "tanggal": _date(_get(rec, "tanggal pemberitahuan putusan", "tanggal"), where),
        }
        for rec in _nested_records(cell)
    ]


#: The rows after the first (``Tanggal Putusan`` / ``Tanggal Penetapan``, see parse_putusan).
_PUTUSAN_LABELS: LabelMap = {
    "putusan verstek": ("putusan_verstek", _text_field),
    "sumber hukum": ("sumber_hukum", _text_field),
    "status putusan": (None, _status_putusan),
    "nilai ganti kerugian (rp.)": ("nilai_ganti_kerugian", _money),
    "amar putusan": ("amar_putusan", _long_field),
    "petikan penetapan": ("amar_putusan", _long_field),
    "pemberitahuan putusan": ("pemberitahuan_putusan", _notices),
    "menerima putusan": ("menerima_putusan", _text_field),
    "kirim salinan putusan": ("kirim_salinan_putusan", _date),
    "tanggal minutasi": ("tanggal_minutasi", _date),
    "keterangan": ("keterangan", _text_field),
}


def parse_putusan(html: str) -> dict[str, Any]:
    """The verdict (``table#infoPerkara``); see docs/item-format.md ``putusan``."""
    doc = _doc(html, "putusan")
    out: dict[str, Any] = {}
    if _is_no_data(doc):
        return out
    pairs = label_rows(_data_tables(doc, "putusan", "infoPerkara")[0])
    if pairs and pairs[0][0].lower() in ("tanggal putusan", "tanggal penetapan"):
        label, cell = pairs.pop(0)
        out["tanggal_label"] = label
        out["tanggal_putusan"] = _date(cell, f"putusan {label!r}")
    out.update(_label_record(pairs, _PUTUSAN_LABELS, "putusan"))
    return out


def _pemohon(cell: Element, where: str) -> list[dict[str, Any]]:
    """``Pemohon <level>``: nested ``No | Nama | Status`` table."""
    return [
        {"status": text(_get(rec, "status")), "nama": text(_get(rec, "nama"))}
        for rec in _nested_records(cell)
    ]


def _names(cell: Element, where: str) -> list[str]:
    """One name per line; ``-`` (nobody) dropped."""
    return [n for n in lines(cell) if n != "-"]


#: Labels without their level suffix (:func:`_appeal_label`).
_APPEAL_LABELS: LabelMap = {
    "pemohon": ("pemohon", _pemohon),
    "tanggal permohonan": ("tanggal_permohonan", _date),
    "tanggal pengiriman berkas": ("tanggal_pengiriman_berkas", _date),
    "nomor surat pengiriman berkas": ("nomor_surat_pengiriman_berkas", _text_field),
    "majelis hakim": ("majelis_hakim", _names),
    "panitera pengganti": ("panitera_pengganti", _text_field),
    "tanggal putusan": ("tanggal_putusan", _date),
    "nomor putusan": ("nomor_putusan", _text_field),
    "amar putusan": ("amar_putusan", _long_field),
    "tanggal penerimaan kembali berkas": ("tanggal_penerimaan_kembali_berkas", _date),
    "tanggal pengarsipan": ("tanggal_pengarsipan", _date),
}
_APPEAL_SUFFIXES = (" peninjauan kembali", " banding", " kasasi", " pk")


def _appeal_label(label: str) -> str:
    """The label lower-cased, without its level suffix (``Tanggal Putusan Banding``)."""
    low = label.lower()
    for suffix in _APPEAL_SUFFIXES:
        if low.endswith(suffix):
            return low[: -len(suffix)]
    return low


def _appeal_parser(slug: str) -> TabParser:
    def parse(html: str) -> dict[str, Any]:
        doc = _doc(html, slug)
        if _is_no_data(doc):
            return {}
        table = _data_tables(doc, slug, "infoPerkara")[0]
        return _label_record(label_rows(table), _APPEAL_LABELS, slug, _appeal_label)

    parse.__name__ = f"parse_{slug}"
    parse.__doc__ = f"The {slug} tab: label/value rows whose labels end in the level's name."
    return parse


def parse_biaya_perkara(html: str) -> list[dict[str, Any]]:
    """One stage per ``table#tableStatusPutusan`` (heading = ``tahap``), ``Total`` row apart."""
    doc = _doc(html, "biaya_perkara")
    if _is_no_data(doc):
        return []
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
            first_text = text(tds[0]).lower()
            if first_text == "total":
                money = tds[1:4]
                total = {
                    "pemasukan": _money(money[0] if money else None, "biaya_perkara Total"),
                    "pengeluaran": _money(
                        money[1] if len(money) > 1 else None, "biaya_perkara Total"
                    ),
                    "sisa": _money(money[2] if len(money) > 2 else None, "biaya_perkara Total"),
                }
                continue
            if len(tds) != len(header):
                raise ParseError(
                    f"tab biaya_perkara: a row has {len(tds)} cells, the header {len(header)}"
                )
            rec = dict(zip(header, tds, strict=True))
            where = "biaya_perkara"
            transaksi.append(
                {
                    "tanggal": _date(_get(rec, "tanggal transaksi", "tanggal"), where),
                    "uraian": _text(_get(rec, "uraian")),
                    "pemasukan": _money(_get(rec, "pemasukan"), where),
                    "pengeluaran": _money(_get(rec, "pengeluaran"), where),
                    "sisa": _money(_get(rec, "sisa"), where),
                    "keterangan": _text(_get(rec, "keterangan")),
                }
            )
        out.append({"tahap": heading, "transaksi": transaksi, "total": total})
    if not out:
        raise ParseError("tab biaya_perkara: no table#tableStatusPutusan in the fragment")
    return out


_BARANG_BUKTI_LABELS: LabelMap = {
    "tanggal penerimaan": ("tanggal_penerimaan", _date),
    "jenis dan uraian lengkap barang bukti": ("uraian", _text_field),
    "tempat penyimpanan": ("tempat_penyimpanan", _text_field),
    "tempat penyerahan": ("tempat_penyerahan", _text_field),
    "nama penerima": ("nama_penerima", _text_field),
    "tgl penyerahan barang bukti": ("tanggal_penyerahan", _date),
    "tanggal penyerahan barang bukti": ("tanggal_penyerahan", _date),
    "catatan": ("catatan", _text_field),
}


def parse_barang_bukti(html: str) -> list[dict[str, Any]]:
    """One object per ``table#tableDetilPerkara`` (dates ``dd/mm/yyyy``)."""
    doc = _doc(html, "barang_bukti")
    if _is_no_data(doc):
        return []
    return [
        _label_record(label_rows(table), _BARANG_BUKTI_LABELS, "barang_bukti")
        for table in _data_tables(doc, "barang_bukti", "tableDetilPerkara")
    ]


#: slug -> parser. Anything else goes to the generic parser.
TAB_PARSERS: dict[str, TabParser] = {
    "riwayat_perkara": parse_riwayat_perkara,
    "jadwal_sidang": parse_jadwal_sidang,
    "penetapan": parse_penetapan,
    "saksi": parse_saksi,
    "mediasi": parse_mediasi,
    "penuntutan": parse_penuntutan,
    "putusan": parse_putusan,
    "banding": _appeal_parser("banding"),
    "kasasi": _appeal_parser("kasasi"),
    "pk": _appeal_parser("pk"),
    "biaya_perkara": parse_biaya_perkara,
    "barang_bukti": parse_barang_bukti,
}
