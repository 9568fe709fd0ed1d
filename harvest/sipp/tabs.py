"""Tab fragments (``/show_<slug>/<tok>`` -> ``/<controller>``): one parser per tab type.

Each parser takes the fragment's HTML and returns the tab's data in the item format
(docs/item-format.md, "The tab parts"). :func:`parse_tab` dispatches on the slug; a slug without
a dedicated parser goes to :func:`harvest.sipp.generic.parse_generic`, so no tab is dropped.
Columns and rows are found by their header / label text, never by position alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harvest.sipp.detail_page import date_value, table_records
from harvest.sipp.exceptions import ParseError
from harvest.sipp.generic import parse_generic
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


def parse_tab(slug: str, html: str) -> Any:
    """The data of tab ``slug`` from its fragment; unknown slugs get the generic parser."""
    parser = TAB_PARSERS.get(slug)
    if parser is None:
        return parse_generic(html)
    return parser(html)


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


def _require_tables(tables: list[Any], slug: str, what: str) -> None:
    if not tables:
        raise ParseError(f"tab {slug}: no {what} and no no-data message in the fragment")


# --------------------------------------------------------------------------------- the tabs


def parse_riwayat_perkara(html: str) -> list[dict[str, Any]]:
    """``No | Tanggal | Tahapan | Proses`` -> ``[{"tanggal", "tahapan", "proses"}]``."""
    doc = _doc(html, "riwayat_perkara")
    if _is_no_data(doc):
        return []
    tables = _top_tables(doc)
    _require_tables(tables, "riwayat_perkara", "table")
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
    tables = _top_tables(doc)
    _require_tables(tables, "jadwal_sidang", "table")
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
_PENETAPAN_COLUMNS = {
    "tanggal penetapan": ("tanggal_penetapan", "date"),
    "nama hakim/majelis hakim": ("nama", "text"),
    "nama hakim": ("nama", "text"),
    "nama panitera pengganti": ("nama", "text"),
    "nama jurusita pengganti": ("nama", "text"),
    "nama jurusita": ("nama", "text"),
    "posisi": ("posisi", "text"),
    "jenis acara": ("jenis_acara", "text"),
    "aktif": ("aktif", "text"),
    "tanggal sidang pertama": ("tanggal_sidang", "date"),
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
                name, kind = _PENETAPAN_COLUMNS.get(column, (column.replace(" ", "_"), "text"))
                item[name] = (
                    _date(cell, f"penetapan {column!r}") if kind == "date" else _text(cell)
                )
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
    tables = _top_tables(doc)
    _require_tables(tables, "saksi", "table")
    return [text(rec["nama"]) for rec in table_records(tables[0]) if "nama" in rec]


_MEDIASI_LABELS = {
    "tgl. penetapan mediator": ("tanggal_penetapan_mediator", "date"),
    "tanggal penetapan mediator": ("tanggal_penetapan_mediator", "date"),
    "no. penetapan mediator": ("nomor_penetapan_mediator", "text"),
    "nomor penetapan mediator": ("nomor_penetapan_mediator", "text"),
    "data mediator": ("mediator", "mediators"),
    "tgl. mulai mediasi": ("tanggal_mulai", "date"),
    "tanggal mulai mediasi": ("tanggal_mulai", "date"),
    "tgl. hasil mediasi": ("tanggal_hasil", "date"),
    "tanggal hasil mediasi": ("tanggal_hasil", "date"),
    "hasil mediasi": ("hasil", "text"),
}


def parse_mediasi(html: str) -> list[dict[str, Any]]:
    """One object per round (``table#infoPerkara``)."""
    doc = _doc(html, "mediasi")
    if _is_no_data(doc):
        return []
    tables = _top_tables(doc, "infoPerkara") or _top_tables(doc)
    _require_tables(tables, "mediasi", "table#infoPerkara")
    out = []
    for table in tables:
        item: dict[str, Any] = {}
        for label, cell in label_rows(table):
            key, kind = _MEDIASI_LABELS.get(label.lower(), ("", "other"))
            if kind == "mediators":
                nested = first(cell, ".//table")
                item[key] = (
                    [
                        {
                            "nama": text(_get(rec, "nama")),
                            "status": _text(_get(rec, "status mediator", "status")),
                        }
                        for rec in table_records(nested)
                    ]
                    if nested is not None
                    else []
                )
            elif kind == "date":
                item[key] = _date(cell, f"mediasi {label!r}")
            elif kind == "text":
                item[key] = _text(cell)
            else:
                item.setdefault(OTHER_ROWS, []).append({"label": label, "value": text(cell)})
        out.append(item)
    return out


def parse_penuntutan(html: str) -> list[dict[str, Any]]:
    """``Tanggal Tuntutan`` / ``Isi Tuntutan`` pairs (repeated per tuntutan)."""
    doc = _doc(html, "penuntutan")
    if _is_no_data(doc):
        return []
    tables = _top_tables(doc, "infoPerkara") or _top_tables(doc)
    _require_tables(tables, "penuntutan", "table#infoPerkara")
    out: list[dict[str, Any]] = []
    for table in tables:
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
                out[-1].setdefault(OTHER_ROWS, []).append({"label": label, "value": text(cell)})
    return out


_PUTUSAN_LABELS = {
    "putusan verstek": ("putusan_verstek", "text"),
    "sumber hukum": ("sumber_hukum", "text"),
    "status putusan": ("status_putusan", "status"),
    "nilai ganti kerugian (rp.)": ("nilai_ganti_kerugian", "money"),
    "amar putusan": ("amar_putusan", "long"),
    "petikan penetapan": ("amar_putusan", "long"),
    "pemberitahuan putusan": ("pemberitahuan_putusan", "notices"),
    "menerima putusan": ("menerima_putusan", "text"),
    "kirim salinan putusan": ("kirim_salinan_putusan", "date"),
    "tanggal minutasi": ("tanggal_minutasi", "date"),
    "keterangan": ("keterangan", "text"),
}


def parse_putusan(html: str) -> dict[str, Any]:
    """The verdict (``table#infoPerkara``); see docs/item-format.md ``putusan``."""
    doc = _doc(html, "putusan")
    out: dict[str, Any] = {}
    if _is_no_data(doc):
        return out
    tables = _top_tables(doc, "infoPerkara") or _top_tables(doc)
    _require_tables(tables, "putusan", "table#infoPerkara")
    for index, (label, cell) in enumerate(label_rows(tables[0])):
        low = label.lower()
        if index == 0 and low in ("tanggal putusan", "tanggal penetapan"):
            out["tanggal_label"] = label
            out["tanggal_putusan"] = _date(cell, f"putusan {label!r}")
            continue
        key, kind = _PUTUSAN_LABELS.get(low, ("", "other"))
        where = f"putusan {label!r}"
        if kind == "status":
            nested = first(cell, ".//table")
            if nested is None:
                out["status_putusan"] = _text(cell)
            else:
                out["status_putusan_terdakwa"] = [
                    {
                        "nama": text(_get(rec, "nama")),
                        "tanggal_putusan": _date(_get(rec, "tanggal putusan"), where),
                        "putusan": _text(_get(rec, "putusan")),
                    }
                    for rec in table_records(nested)
                ]
        elif kind == "notices":
            nested = first(cell, ".//table")
            out[key] = (
                [
                    {
                        "status": text(_get(rec, "status")),
                        "nama": text(_get(rec, "nama")),
                        "tanggal": _date(
                            _get(rec, "tanggal pemberitahuan putusan", "tanggal"), where
                        ),
                    }
                    for rec in table_records(nested)
                ]
                if nested is not None
                else []
            )
        elif kind == "long":
            out[key] = long_text(cell)
        elif kind == "date":
            out[key] = _date(cell, where)
        elif kind == "money":
            out[key] = _money(cell, where)
        elif kind == "text":
            out[key] = _text(cell)
        else:
            out.setdefault(OTHER_ROWS, []).append({"label": label, "value": text(cell)})
    return out


_APPEAL_LABELS = {
    "pemohon": ("pemohon", "pemohon"),
    "tanggal permohonan": ("tanggal_permohonan", "date"),
    "tanggal pengiriman berkas": ("tanggal_pengiriman_berkas", "date"),
    "nomor surat pengiriman berkas": ("nomor_surat_pengiriman_berkas", "text"),
    "majelis hakim": ("majelis_hakim", "names"),
    "panitera pengganti": ("panitera_pengganti", "text"),
    "tanggal putusan": ("tanggal_putusan", "date"),
    "nomor putusan": ("nomor_putusan", "text"),
    "amar putusan": ("amar_putusan", "long"),
    "tanggal penerimaan kembali berkas": ("tanggal_penerimaan_kembali_berkas", "date"),
    "tanggal pengarsipan": ("tanggal_pengarsipan", "date"),
}
_APPEAL_SUFFIXES = (" peninjauan kembali", " banding", " kasasi", " pk")


def _appeal_parser(slug: str) -> TabParser:
    def parse(html: str) -> dict[str, Any]:
        doc = _doc(html, slug)
        out: dict[str, Any] = {}
        if _is_no_data(doc):
            return out
        tables = _top_tables(doc, "infoPerkara") or _top_tables(doc)
        _require_tables(tables, slug, "table#infoPerkara")
        for label, cell in label_rows(tables[0]):
            low = label.lower()
            for suffix in _APPEAL_SUFFIXES:
                if low.endswith(suffix):
                    low = low[: -len(suffix)]
                    break
            key, kind = _APPEAL_LABELS.get(low, ("", "other"))
            where = f"{slug} {label!r}"
            if kind == "pemohon":
                nested = first(cell, ".//table")
                out[key] = (
                    [
                        {"status": text(_get(rec, "status")), "nama": text(_get(rec, "nama"))}
                        for rec in table_records(nested)
                    ]
                    if nested is not None
                    else []
                )
            elif kind == "names":
                out[key] = [n for n in lines(cell) if n != "-"]
            elif kind == "date":
                out[key] = _date(cell, where)
            elif kind == "long":
                out[key] = long_text(cell)
            elif kind == "text":
                out[key] = _text(cell)
            else:
                out.setdefault(OTHER_ROWS, []).append({"label": label, "value": text(cell)})
        return out

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


_BARANG_BUKTI_LABELS = {
    "tanggal penerimaan": ("tanggal_penerimaan", "date"),
    "jenis dan uraian lengkap barang bukti": ("uraian", "text"),
    "tempat penyimpanan": ("tempat_penyimpanan", "text"),
    "tempat penyerahan": ("tempat_penyerahan", "text"),
    "nama penerima": ("nama_penerima", "text"),
    "tgl penyerahan barang bukti": ("tanggal_penyerahan", "date"),
    "tanggal penyerahan barang bukti": ("tanggal_penyerahan", "date"),
    "catatan": ("catatan", "text"),
}


def parse_barang_bukti(html: str) -> list[dict[str, Any]]:
    """One object per ``table#tableDetilPerkara`` (dates ``dd/mm/yyyy``)."""
    doc = _doc(html, "barang_bukti")
    if _is_no_data(doc):
        return []
    tables = _top_tables(doc, "tableDetilPerkara") or _top_tables(doc)
    _require_tables(tables, "barang_bukti", "table#tableDetilPerkara")
    out = []
    for table in tables:
        item: dict[str, Any] = {}
        for label, cell in label_rows(table):
            key, kind = _BARANG_BUKTI_LABELS.get(label.lower(), ("", "other"))
            if kind == "date":
                item[key] = _date(cell, f"barang_bukti {label!r}")
            elif kind == "text":
                item[key] = _text(cell)
            else:
                item.setdefault(OTHER_ROWS, []).append({"label": label, "value": text(cell)})
        out.append(item)
    return out


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
