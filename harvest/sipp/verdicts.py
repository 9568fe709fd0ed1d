"""Verdict and appeal tabs: Putusan, Putusan Sela, Banding, Kasasi, PK, Grasi, Eksekusi.

Each parser follows one view of the real SIPP app (docs/fidelity.md, "Verdicts and appeals")
and returns the tab's data in the item format (docs/item-format.md). Rows and sections are
found by their label / heading text, never by position. A row, column or section the parser
has no mapping for is kept (``lainnya``) and reported with :func:`harvest.sipp.warnings.warn`;
a value that is not what its label promises (a date cell holding text) is kept as text under
``lainnya`` and reported (kind ``"value"``). Only a fragment that is no tab at all (no table,
no no-data message) raises :class:`ParseError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from harvest.sipp.detail_page import table_records
from harvest.sipp.document import OTHER_KEY
from harvest.sipp.exceptions import ParseError
from harvest.sipp.generic import generic_table
from harvest.sipp.html import (
    Element,
    cells,
    lines,
    long_text,
    parse_html,
    rows,
    text,
    xpath_elements,
)
from harvest.sipp.normalise import clean_text, none_if_empty, parse_date, parse_money
from harvest.sipp.warnings import warn

__all__ = [
    "VERDICT_PARSERS",
    "parse_banding",
    "parse_eksekusi",
    "parse_grasi",
    "parse_kasasi",
    "parse_pk",
    "parse_putusan",
    "parse_putusan_sela",
]

#: Messages a verdict tab prints instead of data (as in harvest.sipp.tabs).
_NO_DATA = frozenset({"data tidak ditemukan", "belum ditetapkan", "tidak ada data"})

#: How a value cell becomes a field: ``date`` (ISO or None), ``text`` (None when empty or
#: ``-``), ``long`` (paragraphs joined by ``\n``), ``lines`` (list of ``<br>`` lines),
#: ``money`` (int rupiah), ``majelis`` (``[{"jabatan", "nama"}]``), ``mediator``.
Kind = str
LabelMap = Mapping[str, tuple[str, Kind]]


# ------------------------------------------------------------------------------------ helpers


_END_BR = re.compile(r"</br\s*>", re.IGNORECASE)


def _doc(html: str, slug: str) -> Element:
    """The fragment's tree; ``</br>`` (the appeal controllers' majelis separator) is a line
    break in browsers but dropped by libxml2, so it is read as ``<br>``."""
    return parse_html(_END_BR.sub("<br>", html), f"tab {slug}")


def _body(doc: Element) -> Element:
    body = doc.find("body")
    return body if body is not None else doc


def _is_no_data(doc: Element) -> bool:
    """True when the fragment's only visible text is a no-data message (such a fragment has
    no table, so a page with one is never read whole here: that was half the parse time)."""
    if doc.find(".//table") is not None:
        return False
    return clean_text(" ".join(lines(_body(doc)))).lower() in _NO_DATA


def _top_tables(doc: Element) -> list[Element]:
    return xpath_elements(doc, "//table[not(ancestor::table)]")


def _pairs(table: Element) -> list[tuple[str, Element]]:
    """``(label, value cell)`` of a label/value table; spacer and heading rows (fewer than
    two cells) are layout, not data."""
    out = []
    for tr in rows(table):
        tds = cells(tr)
        if len(tds) >= 2:
            out.append((text(tds[0]), tds[1]))
    return out


_DB_DECIMAL = re.compile(r"^\d+\.\d{2}$")
_COMMA_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")


def _money(value: str) -> int | None:
    """Rupiah from SIPP's forms plus the two a view prints raw: a database decimal
    (``15000000.00``) and PHP ``number_format`` (``1,500,000``)."""
    v = clean_text(value)
    if _DB_DECIMAL.match(v):
        return int(v.split(".")[0])
    if _COMMA_THOUSANDS.match(v):
        return int(v.replace(",", ""))
    return parse_money(v)


def _majelis(cell: Element) -> list[dict[str, Any]]:
    """``Hakim Ketua: A</br>Hakim Anggota 1: B`` -> ``[{"jabatan", "nama"}]``."""
    out: list[dict[str, Any]] = []
    for line in lines(cell):
        if line == "-":
            continue
        jabatan, sep, nama = line.partition(":")
        if sep and jabatan.strip():
            out.append({"jabatan": jabatan.strip(), "nama": none_if_empty(nama)})
        else:
            out.append({"jabatan": None, "nama": line})
    return out


def _mediators(cell: Element) -> list[dict[str, Any]]:
    """``Data Mediator``: nested ``No | Nama | Status Mediator``; ``-`` -> ``[]``."""
    out = []
    for table in xpath_elements(cell, ".//table"):
        for rec in table_records(table):
            out.append(
                {
                    "nama": none_if_empty(text(rec.get("nama"))),
                    "status": none_if_empty(text(rec.get("status mediator", rec.get("status")))),
                }
            )
    return out


def _convert(kind: Kind, cell: Element) -> Any:
    """The cell as ``kind``; ValueError when the text is not of that kind."""
    if kind == "date":
        return parse_date(text(cell))
    if kind == "money":
        return _money(text(cell))
    if kind == "long":
        return long_text(cell)
    if kind == "lines":
        return [line for line in lines(cell) if line != "-"]
    if kind == "majelis":
        return _majelis(cell)
    if kind == "mediator":
        return _mediators(cell)
    if kind == "sumber":
        return [line.removeprefix("- ").strip() for line in lines(cell) if line != "-"]
    return none_if_empty(text(cell))


def _other(out: dict[str, Any], label: str, value: str) -> None:
    out.setdefault(OTHER_KEY, []).append({"label": label, "value": value})


def _field(
    out: dict[str, Any], page: str, label: str, key: str, kind: Kind, cell: Element
) -> None:
    """``out[key]`` from ``cell``; a value not of ``kind`` is kept as text and warned."""
    try:
        value = _convert(kind, cell)
    except ValueError:
        warn(page, label, "value")
        _other(out, label, text(cell))
        value = None
    if value in (None, []) and out.get(key) not in (None, []):
        return  # a repeated label printed empty (putusan_sela) never hides the filled one
    out[key] = value


def _map_rows(
    out: dict[str, Any],
    pairs: list[tuple[str, Element]],
    labels: LabelMap,
    page: str,
    label_key: Callable[[str], str] = str.lower,
) -> None:
    for label, cell in pairs:
        field = labels.get(label_key(label))
        if field is None:
            warn(page, label, "row")
            _other(out, label, text(cell))
            continue
        _field(out, page, label, field[0], field[1], cell)


#: Column of a party table -> key; any other column is kept under the row's ``lainnya``.
_PARTY_COLUMNS = {
    "status": "status",
    "nama": "nama",
    "tanggal": "tanggal",
    "tanggal pemberitahuan putusan": "tanggal",
    "diwakili": "diwakili",
    "diwakili oleh": "diwakili_oleh",
    "tanggal permohonan": "tanggal_permohonan",
    "pemohon": "nama",
    "keterangan": "keterangan",
}
_PARTY_DATES = frozenset({"tanggal", "tanggal_permohonan"})


def _records(table: Element) -> list[list[tuple[str, Element]]]:
    """A headed table's data rows as ``(header text as printed, cell)`` pairs (rows whose
    cell count differs from the header's, such as a spacer, are layout)."""
    trs = [tr for tr in rows(table) if cells(tr)]
    if not trs:
        return []
    header = [text(td) for td in cells(trs[0])]
    return [
        list(zip(header, cells(tr), strict=True))
        for tr in trs[1:]
        if len(cells(tr)) == len(header)
    ]


def _party_rows(
    table: Element, page: str, column_key: Callable[[str], str] = lambda c: c
) -> list[dict[str, Any]]:
    """The rows of a headed party table (``No | Status | Nama | Tanggal`` and kin)."""
    out: list[dict[str, Any]] = []
    for rec in _records(table):
        row: dict[str, Any] = {}
        for column, cell in rec:
            if column.lower() in ("no", "no."):
                continue
            key = _PARTY_COLUMNS.get(column_key(column.lower()))
            if key is None:
                warn(page, column, "column")
                _other(row, column, text(cell))
            elif key in _PARTY_DATES:
                _field(row, page, column, key, "date", cell)
            elif key == "keterangan":
                row[key] = "\n".join(lines(cell)) or None
            else:
                row[key] = none_if_empty(text(cell))
        out.append(row)
    return out


def _nested_party_rows(cell: Element, page: str) -> list[dict[str, Any]]:
    """Every party table nested in a value cell (one per party side), rows in page order."""
    out: list[dict[str, Any]] = []
    for table in xpath_elements(cell, ".//table"):
        out.extend(_party_rows(table, page))
    return out


def _sections(doc: Element) -> list[tuple[str | None, list[Element]]]:
    """The fragment's top-level tables grouped under the one-row heading tables that open
    each section (``<table id='infoPerkara'><tr><td><b>PUTUSAN BANDING</b></td></tr>``)."""
    out: list[tuple[str | None, list[Element]]] = []
    for table in _top_tables(doc):
        trs = [tr for tr in rows(table) if cells(tr)]
        if (
            len(trs) == 1
            and len(cells(trs[0])) == 1
            and xpath_elements(trs[0], ".//b|.//strong")
            and not xpath_elements(table, ".//table")
        ):
            out.append((text(table), []))
        elif out:
            out[-1][1].append(table)
        else:
            out.append((None, [table]))
    return out


def _keep_section(
    out: dict[str, Any], page: str, heading: str | None, tables: list[Element]
) -> None:
    """A section no parser maps: its tables' rows as the generic parser gives them."""
    warn(page, heading or "", "block")
    out.setdefault(OTHER_KEY, []).append(
        {"label": heading, "rows": [r for t in tables for r in generic_table(t)]}
    )


# ------------------------------------------------------------------------------------ putusan

#: putusan_akhir.php rows after ``Tanggal Putusan``/``Tanggal Penetapan`` (lower-case label).
_PUTUSAN_LABELS: dict[str, tuple[str, Kind]] = {
    "putusan verstek": ("putusan_verstek", "text"),
    "sumber hukum": ("sumber_hukum", "sumber"),
    "nilai ganti kerugian (rp.)": ("nilai_ganti_kerugian", "money"),
    "tanggal penetapan hakim pengawas": ("tanggal_penetapan_hakim_pengawas", "date"),
    "nomor penetapan hakim pengawas": ("nomor_penetapan_hakim_pengawas", "text"),
    "hakim pengawas": ("hakim_pengawas", "text"),
    "kurator": ("kurator", "text"),
    "tanggal pengumuman dalam berita negara ri": ("tanggal_berita_negara", "date"),
    "tanggal dimuat dalam surat kabar": ("tanggal_surat_kabar", "date"),
    "nama surat kabar": ("nama_surat_kabar", "text"),
    "kirim salinan putusan kepada penyidik": ("kirim_salinan_putusan_penyidik", "date"),
    "kirim salinan penetapan kepada penyidik": ("kirim_salinan_putusan_penyidik", "date"),
    "tanggal minutasi": ("tanggal_minutasi", "date"),
    "keterangan": ("keterangan", "text"),
}
#: Rows holding nested per-party tables (``Status | Nama | Tanggal Pemberitahuan Putusan``).
_PUTUSAN_PARTY_ROWS = {
    "pemberitahuan putusan": "pemberitahuan_putusan",
    "pemberitahuan penetapan": "pemberitahuan_putusan",
    "menerima putusan": "menerima_putusan",
    "kirim salinan putusan": "kirim_salinan_putusan",
    "kirim salinan penetapan": "kirim_salinan_putusan",
}
#: Rows only criminal verdicts print (putusan_akhir.php lines 351-528).
_CRIMINAL_ROWS = frozenset(
    {"menerima_putusan", "kirim_salinan_putusan", "kirim_salinan_putusan_penyidik"}
)
_AMAR_LABELS = frozenset(
    {"amar putusan", "amar penetapan", "petikan putusan", "petikan penetapan"}
)


def _status_putusan(out: dict[str, Any], cell: Element, page: str) -> None:
    """Text on civil cases (and alur 119) -> ``status_putusan``; on criminal ones a nested
    ``No | Nama | Tanggal Putusan | Putusan`` table (or nothing) -> ``status_putusan_terdakwa``."""
    tables = xpath_elements(cell, ".//table")
    if not tables:
        out["status_putusan"] = none_if_empty(text(cell))
        return
    found = []
    for table in tables:
        for rec in table_records(table):
            row: dict[str, Any] = {"nama": none_if_empty(text(rec.get("nama")))}
            _field(
                row, page, "Tanggal Putusan", "tanggal_putusan", "date", rec.get("tanggal putusan")
            )
            row["putusan"] = "\n".join(lines(rec.get("putusan"))) or None
            found.append(row)
    out["status_putusan_terdakwa"] = found


def parse_putusan(html: str) -> dict[str, Any]:
    """``perkara_tab/putusan_akhir.php``: see docs/item-format.md ``putusan``."""
    page = "tab:putusan"
    doc = _doc(html, "putusan")
    if _is_no_data(doc):
        return {}
    tables = xpath_elements(
        doc, "//table[@id='infoPerkara'][not(ancestor::table)]"
    ) or _top_tables(doc)
    if not tables:
        raise ParseError("tab putusan: no table#infoPerkara and no no-data message")
    out: dict[str, Any] = {}
    for table in tables:
        for label, cell in _pairs(table):
            low = label.lower()
            if low in ("tanggal putusan", "tanggal penetapan"):
                out["tanggal_label"] = label
                _field(out, page, label, "tanggal_putusan", "date", cell)
            elif low == "status putusan":
                _status_putusan(out, cell, page)
            elif low in _AMAR_LABELS:
                out["amar_label"] = label
                out["amar_putusan"] = long_text(cell)
            elif low in _PUTUSAN_PARTY_ROWS:
                key = _PUTUSAN_PARTY_ROWS[low]
                if xpath_elements(cell, ".//table") or not none_if_empty(text(cell)):
                    out.setdefault(key, []).extend(_nested_party_rows(cell, page))
                else:  # a plain value where SIPP prints per-party tables: keep it, say so
                    warn(page, label, "value")
                    out.setdefault(key, [])
                    _other(out, label, text(cell))
            elif low in _PUTUSAN_LABELS:
                key, kind = _PUTUSAN_LABELS[low]
                _field(out, page, label, key, kind, cell)
            else:
                warn(page, label, "row")
                _other(out, label, text(cell))
    if "status_putusan" in out and out["status_putusan"] is None and _CRIMINAL_ROWS & out.keys():
        # a criminal verdict without per-defendant rows prints an empty Status Putusan cell
        del out["status_putusan"]
        out["status_putusan_terdakwa"] = []
    return out


# ------------------------------------------------------------------------ banding, kasasi, pk

_LEVEL_SUFFIXES = (" peninjauan kembali", " banding", " kasasi", " pk")


def _unlevel(label: str) -> str:
    """Lower-case label without its level suffix (``Tanggal Putusan Banding``)."""
    low = " ".join(label.lower().split())
    for suffix in _LEVEL_SUFFIXES:
        if low.endswith(suffix):
            return low[: -len(suffix)]
    return low


#: Section heading (without level) -> key of its party-table list.
_APPEAL_PARTY_SECTIONS = {
    "data para pihak": "para_pihak",
    "data pemohon": "pemohon",
    "data permohonan": "pemohon",
    "tanggal pemberitahuan permohonan": "pemberitahuan_permohonan",
    "tanggal penerimaan memori": "penerimaan_memori",
    "tanggal penyerahan memori": "penyerahan_memori",
    "tanggal penerimaan kontra memori": "penerimaan_kontra_memori",
    "tanggal penyerahan kontra memori": "penyerahan_kontra_memori",
    "tanggal pemberitahuan inzage": "pemberitahuan_inzage",
    "tanggal pemberitahuan putusan": "pemberitahuan_putusan",
}
#: Label rows of the label/value sections (TANGGAL PENGIRIMAN BERKAS, PUTUSAN), flattened.
_APPEAL_LABELS: dict[str, tuple[str, Kind]] = {
    "tanggal pengiriman berkas": ("tanggal_pengiriman_berkas", "date"),
    "nomor surat pengiriman berkas": ("nomor_surat_pengiriman_berkas", "text"),
    "tanggal putusan": ("tanggal_putusan", "date"),
    "nomor putusan": ("nomor_putusan", "text"),
    "amar putusan": ("amar_putusan", "long"),
    "majelis hakim": ("majelis_hakim", "majelis"),
    "panitera pengganti": ("panitera_pengganti", "text"),
    "tanggal penerimaan kembali berkas": ("tanggal_penerimaan_kembali_berkas", "date"),
    "tanggal pengarsipan": ("tanggal_pengarsipan", "date"),
}
_MEDIASI_LABELS: dict[str, tuple[str, Kind]] = {
    "tanggal kesepakatan perdamaian": ("tanggal_kesepakatan", "date"),
    "tanggal pengajuan kesepakatan perdamaian": ("tanggal_pengajuan_kesepakatan", "date"),
    "data mediator": ("mediator", "mediator"),
    "tanggal pengiriman hasil kesepakatan ke tingkat banding": (
        "tanggal_pengiriman_kesepakatan",
        "date",
    ),
    "tanggal pengiriman hasil kesepakatan ke ma": ("tanggal_pengiriman_kesepakatan", "date"),
}
_LABEL_SECTIONS = frozenset({"tanggal pengiriman berkas", "putusan"})


def _parse_appeal(html: str, slug: str) -> dict[str, Any]:
    page = f"tab:{slug}"
    doc = _doc(html, slug)
    if _is_no_data(doc):
        return {}
    sections = _sections(doc)
    if not sections:
        raise ParseError(f"tab {slug}: no table and no no-data message in the fragment")
    out: dict[str, Any] = {}
    for heading, tables in sections:
        name = _unlevel(heading) if heading is not None else None
        if name in _APPEAL_PARTY_SECTIONS:
            key = _APPEAL_PARTY_SECTIONS[name]
            out[key] = [r for t in tables for r in _party_rows(t, page, _unlevel)]
        elif name in _LABEL_SECTIONS:
            for table in tables:
                _map_rows(out, _pairs(table), _APPEAL_LABELS, page, _unlevel)
        elif name == "data mediasi":
            mediasi: dict[str, Any] = {}
            for table in tables:
                _map_rows(mediasi, _pairs(table), _MEDIASI_LABELS, page)
            out["mediasi"] = mediasi
        elif tables or heading:
            _keep_section(out, page, heading, tables)
    return out


def parse_banding(html: str) -> dict[str, Any]:
    """``perkara_tab/detil_banding.php``: see docs/item-format.md ``banding``/``kasasi``/``pk``."""
    return _parse_appeal(html, "banding")


def parse_kasasi(html: str) -> dict[str, Any]:
    """``perkara_tab/detil_kasasi.php`` (same sections as Banding)."""
    return _parse_appeal(html, "kasasi")


def parse_pk(html: str) -> dict[str, Any]:
    """``perkara_tab/detil_pk.php`` (Banding's sections without inzage)."""
    return _parse_appeal(html, "pk")


# ------------------------------------------------------------------------------- putusan sela

_SELA_LABELS: dict[str, tuple[str, Kind]] = {
    "tanggal putusan sela": ("tanggal_putusan_sela", "date"),
    "amar putusan sela": ("amar_putusan_sela", "long"),
    "tanggal media berita": ("tanggal_media_berita", "date"),
    "nama media berita": ("nama_media_berita", "text"),
    "tanggal penetapan hakim pengawas": ("tanggal_penetapan_hakim_pengawas", "date"),
    "tanggal surat kabar": ("tanggal_surat_kabar", "date"),
    "nama surat kabar": ("nama_surat_kabar", "text"),
    "hakim pengawas": ("hakim_pengawas", "text"),
    "pengurus nama": ("pengurus", "text"),
    "tanggal perpanjangan": ("tanggal_perpanjangan", "date"),
    "perpanjangan": ("perpanjangan", "text"),
    "tanggal penetapan sita jaminan": ("tanggal_penetapan_sita_jaminan", "date"),
    "tanggal pelaksanaan sita jaminan": ("tanggal_pelaksanaan_sita_jaminan", "date"),
}
_SELA_NOTICE = "pemberitahuan putusan sela kepada "


def parse_putusan_sela(html: str) -> dict[str, Any]:
    """``perkara_tab/putusan_sela.php``: see docs/item-format.md ``putusan_sela``."""
    page = "tab:putusan_sela"
    doc = _doc(html, "putusan_sela")
    if _is_no_data(doc):
        return {}
    tables = _top_tables(doc)
    if not tables:
        raise ParseError("tab putusan_sela: no table and no no-data message in the fragment")
    out: dict[str, Any] = {}
    for table in tables:
        for label, cell in _pairs(table):
            low = " ".join(label.lower().split())
            if low.startswith(_SELA_NOTICE):
                notice: dict[str, Any] = {"kepada": label[len(_SELA_NOTICE) :].strip()}
                _field(notice, page, label, "tanggal", "date", cell)
                out.setdefault("pemberitahuan", []).append(notice)
            elif low in _SELA_LABELS:
                key, kind = _SELA_LABELS[low]
                _field(out, page, label, key, kind, cell)
            else:
                warn(page, label, "row")
                _other(out, label, text(cell))
    return out


# -------------------------------------------------------------------------------------- grasi

_GRASI_LABELS: dict[str, tuple[str, Kind]] = {
    "nomor perkara pn": ("nomor_perkara_pn", "text"),
    "putusan pn": ("tanggal_putusan_pn", "date"),
    "nomor perkara banding": ("nomor_perkara_banding", "text"),
    "putusan banding": ("tanggal_putusan_banding", "date"),
    "nomor perkara kasasi": ("nomor_perkara_kasasi", "text"),
    "putusan kasasi": ("tanggal_putusan_kasasi", "date"),
    "nomor perkara pk": ("nomor_perkara_pk", "text"),
    "putusan pk": ("tanggal_putusan_pk", "date"),
    "permohonan grasi": ("tanggal_permohonan_grasi", "date"),
    "permohonan penundaan pidana": ("tanggal_permohonan_penundaan_pidana", "date"),
    "nama terdakwa": ("nama_terdakwa", "text"),
    "nama pemohon": ("nama_pemohon", "text"),
    "pekerjaan pemohon": ("pekerjaan_pemohon", "text"),
    "alamat pemohon": ("alamat_pemohon", "text"),
    "pemberitahuan putusan tetap": ("tanggal_pemberitahuan_putusan_tetap", "date"),
    "menjalani pidana pengganti": ("menjalani_pidana_pengganti", "text"),
    "terpidana dalam tahanan": ("terpidana_dalam_tahanan", "text"),
    "denda dibayar": ("denda_dibayar", "text"),
    "barang rampasan": ("barang_rampasan", "text"),
    "tanggal pertimbangan mahkamah agung": ("tanggal_pertimbangan_ma", "date"),
    "isi pertimbangan mahkamah agung": ("isi_pertimbangan_ma", "long"),
    "pengiriman berkas grasi ke kejaksaan negeri": ("tanggal_pengiriman_berkas_kejaksaan", "date"),
    "nomor surat pengiriman berkas grasi ke kejaksaan negeri": (
        "nomor_surat_pengiriman_berkas_kejaksaan",
        "text",
    ),
    "pengiriman berkas grasi ke ma": ("tanggal_pengiriman_berkas_ma", "date"),
    "nomor surat pengiriman berkas grasi ke ma": ("nomor_surat_pengiriman_berkas_ma", "text"),
    "pengiriman pertimbangan hakim grasi": ("tanggal_pengiriman_pertimbangan_hakim", "date"),
    "tanggal putusan presiden": ("tanggal_putusan_presiden", "date"),
    "nomor putusan presiden": ("nomor_putusan_presiden", "text"),
    "isi keputusan presiden": ("isi_keputusan_presiden", "long"),
    "tanggal penerimaan kembali berkas grasi": ("tanggal_penerimaan_kembali_berkas", "date"),
    "pemberitahuan putusan grasi kepada pemohon dan jaksa": (
        "tanggal_pemberitahuan_putusan",
        "date",
    ),
    "penerimaan tembusan berita acara pelaksanaan putusan dari penuntut umum": (
        "tanggal_penerimaan_tembusan_ba_pelaksanaan",
        "date",
    ),
    "keterangan": ("keterangan", "text"),
}


def parse_grasi(html: str) -> dict[str, Any]:
    """``perkara_tab/detil_grasi.php``: one label/value table; docs/item-format.md ``grasi``."""
    page = "tab:grasi"
    doc = _doc(html, "grasi")
    if _is_no_data(doc):
        return {}
    tables = _top_tables(doc)
    if not tables:
        raise ParseError("tab grasi: no table and no no-data message in the fragment")
    out: dict[str, Any] = {}
    for table in tables:
        _map_rows(out, _pairs(table), _GRASI_LABELS, page)
    return out


# ----------------------------------------------------------------------------------- eksekusi

_EKSEKUSI_SECTIONS: dict[str, tuple[str, dict[str, tuple[str, Kind]]]] = {
    "daftar putusan berkekuatan hukum tetap": (
        "putusan_inkracht",
        {
            "nomor perkara pn": ("nomor_perkara_pn", "text"),
            "tanggal putusan pn": ("tanggal_putusan_pn", "date"),
            "nomor perkara banding": ("nomor_perkara_banding", "text"),
            "tanggal putusan banding": ("tanggal_putusan_banding", "date"),
            "nomor perkara kasasi": ("nomor_perkara_kasasi", "text"),
            "nomor perkara kassi": ("nomor_perkara_kasasi", "text"),  # the 2021 views' typo
            "tanggal putusan kasasi": ("tanggal_putusan_kasasi", "date"),
            "nomor perkara peninjauan kembali": ("nomor_perkara_pk", "text"),
            "tanggal putusan peninjauan kembali": ("tanggal_putusan_pk", "date"),
        },
    ),
    # the label/value table printed after STATUS PARA PIHAK without a heading of its own
    "status para pihak": (
        "eksekusi",
        {
            "nomor perkara yang dieksekusi": ("nomor_perkara", "text"),
            "amar putusan yang diesekusi": ("amar_putusan", "long"),
            "alasan permohonan eksekusi": ("alasan_permohonan", "text"),
            "jurusita": ("jurusita", "text"),
            # PTUN (jenis_pengadilan 3)
            "tanggal diterima permohonan": ("tanggal_diterima_permohonan", "date"),
            "panggilan para pihak": ("tanggal_panggilan_para_pihak", "date"),
            "penetapan ketua": ("tanggal_penetapan_ketua", "date"),
            "tanggal surat ketua bahwa objek sengketa tidak mempunyai kekuatan hukum lagi": (
                "tanggal_surat_ketua_objek_tidak_berkekuatan_hukum",
                "date",
            ),
            "tanggal surat tergugat tentang objek sengketa non executable": (
                "tanggal_surat_tergugat_non_executable",
                "date",
            ),
            "tanggal panggilan kepada para pihak": ("tanggal_panggilan_non_executable", "date"),
            "tanggal upaya kesepakatan kompensasi": (
                "tanggal_upaya_kesepakatan_kompensasi",
                "date",
            ),
            "tanggal penetapan ketua tentang kompensasi": (
                "tanggal_penetapan_ketua_kompensasi",
                "date",
            ),
            "tanggal upaya hukum kepada ketua ma": ("tanggal_upaya_hukum_ketua_ma", "date"),
            "tanggal penetapan ketua ma tentang kompensasi": (
                "tanggal_penetapan_ketua_ma_kompensasi",
                "date",
            ),
            "jumlah uang paksa (rp) dalam amar putusan hakim": (
                "uang_paksa_putusan_hakim",
                "money",
            ),
            "jumlah uang paksa (rp) dalam amar penetapan ketua": (
                "uang_paksa_penetapan_ketua",
                "money",
            ),
            "tanggal surat ketua kepada tergugat tentang pembayaran uang paksa": (
                "tanggal_surat_ketua_uang_paksa",
                "date",
            ),
            "tanggal surat peringatan": ("tanggal_surat_peringatan", "date"),
            "tanggal perintah ketua kepada pejabat yang berwenang menjatuhkan"
            " sanksi administrastif": (
                "tanggal_perintah_sanksi_administratif",
                "date",
            ),
            "tanggal penjatuhan administastif dari pejabat yang berwenang": (
                "tanggal_penjatuhan_sanksi_administratif",
                "date",
            ),
            "tanggal penetapan ketua kepada panitera/jurusita pengganti": (
                "tanggal_penetapan_ketua_pengumuman",
                "date",
            ),
            "tanggal pengumuman kepada media massa": ("tanggal_pengumuman_media", "date"),
            "tanggal surat kepada presiden": ("tanggal_surat_presiden", "date"),
            "tanggal surat kepada lembaga perwakilan rakyat": ("tanggal_surat_dpr", "date"),
        },
    ),
    "pelaksanaan teguran eksekusi": (
        "teguran",
        {
            "tanggal penetapan": ("tanggal_penetapan", "date"),
            "nomor penetapan": ("nomor_penetapan", "text"),
            "tanggal pelaksanaan pertama": ("tanggal_pelaksanaan_pertama", "date"),
            "tanggal pelaksanaan kedua": ("tanggal_pelaksanaan_kedua", "date"),
        },
    ),
    "pelaksanaan sita eksekusi": (
        "sita",
        {
            "tanggal penetapan": ("tanggal_penetapan", "date"),
            "nomor penetapan": ("nomor_penetapan", "text"),
            "tanggal pelaksanaan": ("tanggal_pelaksanaan", "date"),
        },
    ),
    "pelaksanaan eksekusi": (
        "pelaksanaan",
        {
            "jenis pelaksanaan": ("jenis_pelaksanaan", "text"),
            "tanggal penetapan perintah eksekusi": ("tanggal_penetapan_perintah_eksekusi", "date"),
            "tanggal pelaksanaan eksekusi": ("tanggal_pelaksanaan_eksekusi", "date"),
            "tanggal penetapan perintah eksekusi lelang": (
                "tanggal_penetapan_perintah_lelang",
                "date",
            ),
            "tanggal pelaksanaan eksekusi lelang": ("tanggal_pelaksanaan_lelang", "date"),
            "tanggal penyerahan hasil lelang": ("tanggal_penyerahan_hasil_lelang", "date"),
            "tanggal penetapan non executable": ("tanggal_penetapan_non_executable", "date"),
            "alasan eksekusi tidak dapat dilaksanakan": (
                "alasan_tidak_dapat_dilaksanakan",
                "text",
            ),
            "keterangan lain": ("keterangan_lain", "text"),
        },
    ),
}
_EKSEKUSI_PERMOHONAN = {
    "tanggal permohonan": "tanggal_permohonan",
    "pemohon eksekusi": "pemohon",
    "pihak yang dimohonkan eksekusi": "termohon",
}


def _is_table_with_header(table: Element, first_column: str) -> bool:
    trs = [tr for tr in rows(table) if cells(tr)]
    return bool(trs) and text(cells(trs[0])[0]).lower() == first_column


#: The 2021 views (``backup_sip`` detil_eksekusi.php:199-258) print the steps of the execution
#: as rows of the one label table after STATUS PARA PIHAK, in their own words, where the 2025
#: views head sections of their own: label -> (the 2025 section's key, field, kind). Their
#: "Tanggal Pelaksanaan Eksekusi" prints ``$pelaksanaanSitaEksekusi``: the seizure's date.
_EKSEKUSI_2021: dict[str, tuple[str, str, Kind]] = {
    "alasan eksekusi": ("eksekusi", "alasan_permohonan", "text"),
    "tanggal penetapan teguran eksekusi": ("teguran", "tanggal_penetapan", "date"),
    "nomor penetapan teguran eksekusi": ("teguran", "nomor_penetapan", "text"),
    "tanggal pelaksanaan teguran eksekusi": ("teguran", "tanggal_pelaksanaan_pertama", "date"),
    "tanggal penetapan sita eksekusi": ("sita", "tanggal_penetapan", "date"),
    "nomor penetapan sita eksekusi": ("sita", "nomor_penetapan", "text"),
    "tanggal pelaksanaan eksekusi": ("sita", "tanggal_pelaksanaan", "date"),
    "tanggal penetapan perintah eksekusi lelang": (
        "pelaksanaan",
        "tanggal_penetapan_perintah_lelang",
        "date",
    ),
    "tanggal pelaksanaan eksekusi lelang": ("pelaksanaan", "tanggal_pelaksanaan_lelang", "date"),
    "tanggal penyerahan hasil lelang": ("pelaksanaan", "tanggal_penyerahan_hasil_lelang", "date"),
    "tanggal penetapan perintah eksekusi riil": (
        "pelaksanaan",
        "tanggal_penetapan_perintah_eksekusi",
        "date",
    ),
    "tanggal pelaksanaan eksekusi riil": ("pelaksanaan", "tanggal_pelaksanaan_eksekusi", "date"),
    "tanggal penetapan non-eksekusi": ("pelaksanaan", "tanggal_penetapan_non_executable", "date"),
    "keterangan lain": ("pelaksanaan", "keterangan_lain", "text"),
}


def _map_eksekusi_rows(
    out: dict[str, Any], pairs: list[tuple[str, Element]], labels: LabelMap, page: str
) -> None:
    """The label table after STATUS PARA PIHAK: its own rows, and the 2021 views' rows of the
    later sections put where a 2025 page has them."""
    own: list[tuple[str, Element]] = []
    for label, cell in pairs:
        older = _EKSEKUSI_2021.get(label.lower())
        if older is None or label.lower() in labels:
            own.append((label, cell))
        else:
            section, key, kind = older
            _field(out.setdefault(section, {}), page, label, key, kind, cell)
    _map_rows(out.setdefault("eksekusi", {}), own, labels, page)


def parse_eksekusi(html: str) -> dict[str, Any]:
    """``perkara_tab/detil_eksekusi.php``: see docs/item-format.md ``eksekusi``."""
    page = "tab:eksekusi"
    doc = _doc(html, "eksekusi")
    if _is_no_data(doc):
        return {}
    sections = _sections(doc)
    if not sections:
        raise ParseError("tab eksekusi: no table and no no-data message in the fragment")
    out: dict[str, Any] = {}
    for heading, tables in sections:
        name = " ".join((heading or "").lower().split())
        if name == "data permohonan eksekusi":
            found = []
            for table in tables:
                for rec in table_records(table):
                    row: dict[str, Any] = {}
                    for column, cell in rec.items():
                        key = _EKSEKUSI_PERMOHONAN.get(column)
                        if key is None:
                            warn(page, column, "column")
                            _other(row, column, text(cell))
                        elif key == "tanggal_permohonan":
                            _field(row, page, column, key, "date", cell)
                        else:
                            row[key] = none_if_empty(text(cell))
                    if any(v is not None for v in row.values()):
                        found.append(row)
            out["permohonan"] = found
        elif name in _EKSEKUSI_SECTIONS:
            key, labels = _EKSEKUSI_SECTIONS[name]
            for table in tables:
                if name == "status para pihak" and _is_table_with_header(table, "no."):
                    out["para_pihak"] = _party_rows(table, page)
                    continue
                if name == "status para pihak":
                    _map_eksekusi_rows(out, _pairs(table), labels, page)
                    continue
                record = out.setdefault(key, {})
                _map_rows(record, _pairs(table), labels, page)
        elif tables or heading:
            _keep_section(out, page, heading, tables)
    return out


#: slug -> parser, merged into :data:`harvest.sipp.tabs.TAB_PARSERS`.
VERDICT_PARSERS: dict[str, Callable[[str], Any]] = {
    "putusan": parse_putusan,
    "putusan_sela": parse_putusan_sela,
    "banding": parse_banding,
    "kasasi": parse_kasasi,
    "pk": parse_pk,
    "grasi": parse_grasi,
    "eksekusi": parse_eksekusi,
}
