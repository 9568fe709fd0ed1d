"""Label/value tabs read as records: the rarer tabs (verzet, intervensi, ikrar talak, diversi...)
and the shared machinery the common tabs use for cells that may not hold what they should.

Most SIPP tabs print, per database row, a run of label/value rows (``td#first-child`` label,
value cell), sometimes grouped under one-cell heading rows or one-row heading tables
(``DATA PENETAPAN``, ``PIHAK INTERVENSI 1``) and separated by empty ``colspan`` rows. The
walker here reads every top-level table of a fragment in document order and turns it into a
stream of headings, fields and markers; a :class:`RecordSpec` per tab says which labels and
headings it knows. Records are split where a key already present in the current record comes
again (the second row of a tab repeats its first label), so a tab with several rows gives one
record per row without relying on separators the template may leave out.

Unknown labels go to ``lainnya`` (``[{"label", "value"}]``) and unknown headings to
``lainnya`` with an empty value, each with :func:`harvest.sipp.warnings.warn`; text outside any
table that is not a known no-data message is kept the same way. Nothing raises for a shape the
spec does not know: only a fragment with no text at all is "no data".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import lxml.etree

from harvest.sipp.detail_page import table_records
from harvest.sipp.document import OTHER_KEY
from harvest.sipp.generic import generic_table
from harvest.sipp.html import (
    Element,
    cells,
    first,
    headed_tables,
    lines,
    long_text,
    parse_html,
    rows,
    tables_with_text_before,
    text,
    xpath_elements,
)
from harvest.sipp.normalise import clean_text, none_if_empty, parse_date
from harvest.sipp.warnings import warn

__all__ = [
    "NO_DATA_TEXTS",
    "RECORD_PARSERS",
    "RecordSpec",
    "notice_tables",
    "parse_records",
    "parse_verzet",
    "soft_date",
]

#: Messages the tabs print instead of data (lower-case): never data, never a warning.
NO_DATA_TEXTS = frozenset(
    {
        "data tidak ditemukan",
        "belum ditetapkan",
        "tidak ada pencatatan register barang bukti",
        "tidak ada data",
        "belum ada laporan",
        "belum ada data",
    }
)

#: ``(cell, page, label) -> value``: converts one value cell; never raises on odd content.
Converter = Callable[[Element, str, str], Any]


# ------------------------------------------------------------------------------ converters


def soft_date(cell: Element | None, page: str, label: str) -> str | None:
    """The cell's date as ISO (``None`` for ``-``/empty); a cell holding something else keeps
    its text and warns (kind ``value``) instead of failing the page."""
    value = text(cell)
    try:
        return parse_date(value)
    except ValueError:
        warn(page, label, "value")
        return value


def text_value(cell: Element, page: str, label: str) -> str | None:
    """The cell's text, ``None`` when empty."""
    return none_if_empty(text(cell))


def long_value(cell: Element, page: str, label: str) -> str | None:
    """A long text (petitum, amar): paragraphs joined by newlines, ``None`` when empty/``-``."""
    return long_text(cell)


def lines_value(cell: Element, page: str, label: str) -> list[str]:
    """One entry per ``<br>`` line (majelis hakim), ``-`` lines dropped."""
    return [x for x in lines(cell) if x != "-"]


def mediators(cell: Element, page: str, label: str) -> list[dict[str, Any]]:
    """``Data Mediator``: nested ``No | Nama | Status Mediator`` (status ``-`` -> ``None``).
    The view always prints one row per ``<br/>``-separated name, so a row without mediator
    prints an empty name and ``-``: that row is no mediator and is left out."""
    out = []
    for rec in _nested(cell):
        nama = text(rec.get("nama"))
        status = none_if_empty(text(rec.get("status mediator", rec.get("status"))))
        status = None if status == "-" else status
        if nama or status:
            out.append({"nama": nama, "status": status})
    return out


def notice_tables(cell: Element, page: str, label: str) -> list[dict[str, Any]]:
    """``Pemberitahuan Putusan`` of penetapan gugur / dismissal: one nested ``No | Status |
    Nama | Tanggal Pemberitahuan Putusan`` table per party side; ``Belum diBeritahukan``
    (nobody notified yet) -> ``[]``."""
    out = []
    for table in xpath_elements(cell, ".//table"):
        for rec in table_records(table):
            out.append(
                {
                    "status": text(rec.get("status")),
                    "nama": text(rec.get("nama")),
                    "tanggal": soft_date(
                        rec.get("tanggal pemberitahuan putusan", rec.get("tanggal")), page, label
                    ),
                }
            )
    return out


def names_table(cell: Element, page: str, label: str) -> list[str]:
    """A nested ``No | Nama`` table (diversi's Pembimbing Kemasyarakatan) -> names."""
    return [text(rec["nama"]) for rec in _nested(cell) if "nama" in rec]


#: column header -> key (``agenda_alasan``: split into ``agenda``/``alasan_ditunda``), or a
#: converter returning the row's fields itself
Columns = Mapping[str, "str | Callable[[Element, str, str], dict[str, Any]]"]


def odd_rows(table: Element, page: str) -> list[list[str]]:
    """The texts of the rows :func:`table_records` skips (cell count unlike the header's) that
    are not a no-data message; each warns (kind ``row``). The views print such a row when a
    value falls outside the branches they know (a bantahan without result...)."""
    trs = [tr for tr in rows(table) if cells(tr)]
    if not trs:
        return []
    width = len(cells(trs[0]))
    out = []
    for tr in trs[1:]:
        tds = cells(tr)
        if len(tds) == width:
            continue
        texts = [text(td) for td in tds]
        joined = clean_text(" ".join(texts))
        if not joined or joined.lower() in NO_DATA_TEXTS:
            continue
        warn(page, joined, "row")
        out.append(texts)
    return out


def read_rows(table: Element, columns: Columns, page: str, where: str) -> list[dict[str, Any]]:
    """A headed ``No | ...`` table -> one record per row: ``columns`` maps header texts; a
    header starting with ``tanggal`` is a date; an unknown column keeps its text under its own
    name (warning ``column``); a row of another width is kept as ``{"lainnya": [texts]}``."""
    out: list[dict[str, Any]] = []
    for rec in table_records(table):
        item: dict[str, Any] = {}
        for column, cell in rec.items():
            if column == "no":
                continue
            key = columns.get(column)
            if key is None:
                warn(page, f"{where}: {column}" if where else column, "column")
                key = re.sub(r"\W+", "_", column).strip("_")
            if callable(key):
                item.update(key(cell, page, column))
            elif key == "agenda_alasan":
                item.update(_agenda_alasan(cell))
            elif column.startswith("tanggal"):
                item[key] = soft_date(cell, page, column)
            else:
                item[key] = none_if_empty(text(cell))
        out.append(item)
    out.extend({OTHER_KEY: texts} for texts in odd_rows(table, page))
    return out


def dated_rows(columns: Mapping[str, str]) -> Converter:
    """A nested headed table -> records, ``columns`` mapping header text -> key (a header
    containing ``tanggal`` is a date); an unmapped column keeps its text under its own name."""

    def convert(cell: Element, page: str, label: str) -> list[dict[str, Any]]:
        nested = first(cell, ".//table")
        return read_rows(nested, columns, page, label) if nested is not None else []

    return convert


def _nested(cell: Element) -> list[dict[str, Element]]:
    nested = first(cell, ".//table")
    return table_records(nested) if nested is not None else []


# ---------------------------------------------------------------------------------- walker


@dataclass(frozen=True)
class RecordSpec:
    """What one tab's label/value rows mean.

    ``labels``: lower-case label -> ``(key, converter)``. ``headings``: lower-case heading texts
    that are only layout (no data). ``heading_fields``: ``(regex, key)``: a heading matching
    the (full, case-insensitive) regex stores its first group under ``key``
    (``PIHAK INTERVENSI 2`` -> ``urutan``; ``Data Penetapan Mediasi`` -> ``jenis``); a group of
    digits is stored as an int.
    """

    page: str
    labels: Mapping[str, tuple[str, Converter]]
    headings: frozenset[str] = frozenset()
    heading_fields: tuple[tuple[str, str], ...] = ()
    _compiled: list[tuple[re.Pattern[str], str]] = field(default_factory=list, compare=False)

    def heading_field(self, heading: str) -> tuple[str, Any] | None:
        if not self._compiled and self.heading_fields:
            self._compiled.extend(
                (re.compile(rx, re.IGNORECASE), key) for rx, key in self.heading_fields
            )
        for rx, key in self._compiled:
            m = rx.fullmatch(heading)
            if m:
                value = m.group(1).strip()
                return key, int(value) if value.isdigit() else value
        return None


class _Records:
    """Accumulates records; a key already in the current record starts the next one."""

    def __init__(self) -> None:
        self.done: list[dict[str, Any]] = []
        self.cur: dict[str, Any] = {}

    def put(self, key: str, value: Any) -> None:
        if key in self.cur:
            self.done.append(self.cur)
            self.cur = {}
        self.cur[key] = value

    def other(self, label: str, value: Any) -> None:
        self.cur.setdefault(OTHER_KEY, []).append({"label": label, "value": value})

    def result(self) -> list[dict[str, Any]]:
        return [*self.done, self.cur] if self.cur else self.done


def _heading_of(cell: Element) -> str:
    """The text of a one-cell row: its own text, or that of the heading table inside it."""
    return text(cell)


def _is_heading_table(table: Element) -> bool:
    trs = [tr for tr in rows(table) if cells(tr)]
    return len(trs) == 1 and len(cells(trs[0])) == 1


def _walk_rows(table: Element, spec: RecordSpec, out: _Records) -> None:
    for tr in rows(table):
        tds = cells(tr)
        if not tds:
            continue
        if len(tds) == 1:
            _heading(text(tds[0]), tds[0], spec, out)
            continue
        label = text(tds[0])
        if not label:
            # a row without a label: keep what it shows
            rest = clean_text(" ".join(text(td) for td in tds[1:]))
            if rest:
                warn(spec.page, rest, "row")
                out.other("", rest)
            continue
        known = spec.labels.get(label.lower())
        if known is None:
            warn(spec.page, label, "row")
            out.other(label, clean_text(" ".join(text(td) for td in tds[1:])))
            continue
        key, convert = known
        if text(tds[1]).lower() in NO_DATA_TEXTS:  # "Belum Ada Data" in a value cell
            out.put(key, None)
        else:
            out.put(key, convert(tds[1], spec.page, label))


def _heading(heading: str, cell: Element, spec: RecordSpec, out: _Records) -> None:
    if not heading:
        return  # an empty separator row
    low = heading.lower()
    if low in NO_DATA_TEXTS or low in spec.headings:
        return
    found = spec.heading_field(heading)
    if found is not None:
        out.put(*found)
        return
    if first(cell, ".//table") is not None and not _is_heading_cell(cell):
        # a one-cell row holding a data table: keep its rows generically
        warn(spec.page, heading, "block")
        out.other("", [generic_table(t) for t in xpath_elements(cell, ".//table")])
        return
    warn(spec.page, heading, "block")
    out.other(heading, "")


def _is_heading_cell(cell: Element) -> bool:
    nested = xpath_elements(cell, ".//table")
    return len(nested) == 1 and _is_heading_table(nested[0])


def _top_tables(doc: Element) -> list[Element]:
    return xpath_elements(doc, "//table[not(ancestor::table)]")


_OUTSIDE_TABLES = lxml.etree.XPath(
    "//text()[not(ancestor::table) and not(ancestor::script) and not(ancestor::style)]",
    smart_strings=False,
)


def loose_texts(doc: Element) -> list[str]:
    """Text lines of the fragment outside any table (scripts and styles excluded)."""
    if not any(
        t.strip() and clean_text(t).lower() not in NO_DATA_TEXTS for t in _OUTSIDE_TABLES(doc)
    ):
        return []  # the usual case, found without walking the tree in Python
    out: list[str] = []
    buf: list[str] = []

    def flush() -> None:
        for line in "".join(buf).split("\n"):
            cleaned = clean_text(line)
            if cleaned:
                out.append(cleaned)
        buf.clear()

    def walk(el: Element) -> None:
        if el.text:
            buf.append(el.text)
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag == "table":
                flush()
            elif tag and tag not in ("script", "style", "head", "title"):
                buf.append("\n")
                walk(child)
                buf.append("\n")
            if child.tail:
                buf.append(child.tail)

    body = doc.find("body")
    walk(body if body is not None else doc)
    flush()
    return out


def parse_records(html: str, spec: RecordSpec) -> list[dict[str, Any]]:
    """The records of a label/value tab (see the module docstring); ``[]`` when the fragment
    shows no data (no text, or only a no-data message)."""
    doc = parse_html(html, f"tab {spec.page}")
    out = _Records()
    for table in _top_tables(doc):
        if _is_heading_table(table):
            (td,) = [td for tr in rows(table) for td in cells(tr)]
            _heading(_heading_of(td), td, spec, out)
        else:
            _walk_rows(table, spec, out)
    for line in loose_texts(doc):
        if line.lower() not in NO_DATA_TEXTS and line.lower() not in spec.headings:
            warn(spec.page, line, "block")
            out.other(line, "")
    return out.result()


# ------------------------------------------------------------------------------ the specs


def _labels(
    *pairs: tuple[Iterable[str] | str, str, Converter],
) -> dict[str, tuple[str, Converter]]:
    out: dict[str, tuple[str, Converter]] = {}
    for names, key, convert in pairs:
        for name in [names] if isinstance(names, str) else names:
            out[name.lower()] = (key, convert)
    return out


def _both(template: str) -> list[str]:
    """A label printed with ``Verzet`` (civil) or ``Perlawanan`` (PTUN, alur 9)."""
    return [template.format("verzet"), template.format("perlawanan")]


_MEDIASI_ROWS: tuple[tuple[Iterable[str] | str, str, Converter], ...] = (
    (
        ("tgl. penetapan mediator", "tanggal penetapan mediator"),
        "tanggal_penetapan_mediator",
        soft_date,
    ),
    (
        ("no. penetapan mediator", "nomor penetapan mediator"),
        "nomor_penetapan_mediator",
        text_value,
    ),
    ("data mediator", "mediator", mediators),
)

MEDIASI = RecordSpec(
    "tab:mediasi",
    _labels(
        *_MEDIASI_ROWS,
        (("tgl. mulai mediasi", "tanggal mulai mediasi"), "tanggal_mulai", soft_date),
        (("tgl. hasil mediasi", "tanggal hasil mediasi"), "tanggal_hasil", soft_date),
        ("hasil mediasi", "hasil", text_value),
    ),
    heading_fields=((r"data penetapan (.+)", "jenis"),),
)

MEDIASI_LUAR = RecordSpec(
    "tab:mediasi_luar",
    _labels(
        ("tgl. kesepakatan perdamaian", "tanggal_kesepakatan", soft_date),
        ("data mediator", "mediator", mediators),
    ),
)

_PENETAPAN_ROWS: tuple[tuple[Iterable[str] | str, str, Converter], ...] = (
    ("tanggal penetapan majelis", "tanggal_penetapan_majelis", soft_date),
    ("majelis hakim", "majelis_hakim", lines_value),
    ("tanggal penetapan panitera pengganti", "tanggal_penetapan_panitera_pengganti", soft_date),
    ("panitera pengganti", "panitera_pengganti", text_value),
    ("tanggal penetapan jurusita", "tanggal_penetapan_jurusita", soft_date),
    ("jurusita", "jurusita", text_value),
)

VERZET = RecordSpec(
    "tab:verzet",
    _labels(
        ("nomor perkara", "nomor_perkara", text_value),
        (_both("nomor perkara {}"), "nomor_perkara_verzet", text_value),
        (_both("tanggal pendaftaran {}"), "tanggal_pendaftaran", soft_date),
        ("tanggal berkekuatan hukum tetap", "tanggal_bht", soft_date),
        *_PENETAPAN_ROWS,
        ("tanggal penetapan sidang verzet", "tanggal_penetapan_sidang", soft_date),
        ("tanggal sidang pertama verzet", "tanggal_sidang_pertama", soft_date),
        *_MEDIASI_ROWS,
        (("tgl. mulai mediasi", "tanggal mulai mediasi"), "tanggal_mulai_mediasi", soft_date),
        (("tgl. hasil mediasi", "tanggal hasil mediasi"), "tanggal_hasil_mediasi", soft_date),
        ("hasil mediasi", "hasil_mediasi", text_value),
        (_both("putusan {}"), "tanggal_putusan", soft_date),
        ("putusan verstek", "putusan_verstek", text_value),
        ("sumber hukum", "sumber_hukum", text_value),
        (_both("status putusan {}"), "status_putusan", text_value),
        (_both("amar putusan {}"), "amar_putusan", long_value),
        ("pemberitahuan putusan", "tanggal_pemberitahuan_putusan", soft_date),
        (
            _both("tanggal pemberitahuan putusan {} kepada penggugat"),
            "tanggal_pemberitahuan_penggugat",
            soft_date,
        ),
        (
            _both("tanggal pemberitahuan putusan {} kepada tergugat"),
            "tanggal_pemberitahuan_tergugat",
            soft_date,
        ),
    ),
    headings=frozenset(
        {
            "data permohonan",
            "data penetapan",
            "data mediasi",
            "data putusan",
            "data pemberitahuan",
        }
    ),
)

IKRAR_TALAK = RecordSpec(
    "tab:ikrar_talak",
    _labels(
        ("tanggal putusan tingkat pertama", "tanggal_putusan", soft_date),
        ("tanggal berkekuatan hukum tetap", "tanggal_bht", soft_date),
        *_PENETAPAN_ROWS,
        ("tanggal penetapan sidang ikrar talak", "tanggal_penetapan_sidang", soft_date),
        ("tanggal sidang pertama ikrar talak", "tanggal_sidang_pertama", soft_date),
        ("tanggal ikrar", "tanggal_ikrar", soft_date),
        ("status penetapan ikrar", "status_penetapan", text_value),
        ("amar penetapan ikrar talak", "amar_penetapan", long_value),
    ),
    # the template heads the first block "Data Permohonan Verzet" (copied from verzet.php)
    headings=frozenset({"data permohonan verzet", "data penetapan"}),
)

KEBERATAN = RecordSpec(
    "tab:keberatan",
    _labels(
        ("tanggal permohonan", "tanggal_permohonan", soft_date),
        ("para pihak", "para_pihak", lines_value),
        ("tanggal penerimaan memory", "tanggal_penerimaan_memori", soft_date),
        ("tanggal penyerahan memory", "tanggal_penyerahan_memori", soft_date),
        ("tanggal penerimaan kontra memory", "tanggal_penerimaan_kontra_memori", soft_date),
        ("tanggal penyerahan kontra memory", "tanggal_penyerahan_kontra_memori", soft_date),
        ("tanggal penetapan hakim", "tanggal_penetapan_majelis", soft_date),
        *_PENETAPAN_ROWS[1:],
        ("tanggal putusan", "tanggal_putusan", soft_date),
        ("status putusan", "status_putusan", text_value),
        ("amar putusan", "amar_putusan", long_value),
        ("tanggal pemberitahuan pemohon", "tanggal_pemberitahuan_pemohon", soft_date),
        ("tanggal pemberitahuan termohon", "tanggal_pemberitahuan_termohon", soft_date),
    ),
    headings=frozenset(
        {
            "data para pihak",
            "data proses keberatan",
            "data mejelis hakim",
            "data majelis hakim",
            "data panitera pengganti",
            "data jurusita",
            "data putusan",
            "data pemberitahuan",
        }
    ),
)

#: dismissal.php:82 of the 2021 views prints ``hasil`` 1 as Diterima, else Ditolak, where the
#: 2025 views print Lolos / Tidak Lolos: the same value in the later words.
_DISMISSAL_2021 = {"diterima": "Lolos", "ditolak": "Tidak Lolos"}


def dismissal_result(cell: Element, page: str, label: str) -> str | None:
    """``Penetapan Dismissal``: ``Lolos`` / ``Tidak Lolos`` (the 2021 words mapped to them)."""
    value = text_value(cell, page, label)
    return _DISMISSAL_2021.get(value.lower(), value) if value is not None else None


DISMISSAL = RecordSpec(
    "tab:dismissal",
    _labels(
        (
            "jadwal panggilan dismissal",
            "panggilan",
            dated_rows({"tanggal panggilan": "tanggal", "status kehadiran": "status_kehadiran"}),
        ),
        ("tanggal penetapan", "tanggal_penetapan", soft_date),
        ("penetapan dismissal", "hasil", dismissal_result),
        # 2021 views (dismissal.php:88): the alur 8 amar row is headed "Amar Penetapan"
        (("pertimbangan hukum dan amar", "amar penetapan"), "amar", long_value),
        ("pemberitahuan putusan", "pemberitahuan_putusan", notice_tables),
        ("pemberitahuan kepada penggugat", "tanggal_pemberitahuan_penggugat", soft_date),
        ("pemberitahuan kepada tergugat", "tanggal_pemberitahuan_tergugat", soft_date),
    ),
    headings=frozenset(
        {
            "data panggilan dismissal",
            "data penetapan dismissal",
            "data pemberitahuan penetapan dismissal",
        }
    ),
)

PENETAPAN_GUGUR = RecordSpec(
    "tab:penetapan_gugur",
    _labels(
        ("tanggal penetapan", "tanggal_penetapan", soft_date),
        ("amar penetapan", "amar_penetapan", long_value),
        ("pemberitahuan putusan", "pemberitahuan_putusan", notice_tables),
    ),
)

INTERVENSI = RecordSpec(
    "tab:intervensi",
    _labels(
        ("nama pemohon", "nama_pemohon", text_value),
        ("jenis intervensi", "jenis_intervensi", text_value),
        ("tergabung ke pihak", "tergabung_ke_pihak", text_value),
        ("tanggal intervensi", "tanggal_intervensi", soft_date),
        ("isi petitum", "petitum", long_value),
    ),
    heading_fields=((r"pihak intervensi (\d+)", "urutan"),),
)

REKONVENSI = RecordSpec(
    "tab:rekonvensi",
    _labels(
        ("tanggal pendaftaran", "tanggal_pendaftaran", soft_date),
        ("para pihak", "para_pihak", lines_value),
        ("isi petitum", "petitum", long_value),
    ),
)

PERBAIKAN_GUGATAN = RecordSpec(
    "tab:perbaikan_gugatan",
    _labels(
        ("tanggal saran perbaikan gugatan", "tanggal_saran_perbaikan", soft_date),
        ("saran perbaikan", "saran_perbaikan", long_value),
        ("perbaikan/dinyatakan lengkap", "status_perbaikan", text_value),
        ("tanggal perbaikan/dinyatakan lengkap", "tanggal_dinyatakan_lengkap", soft_date),
        ("petitum", "petitum", long_value),
    ),
)

PEN_PERSIAPAN = RecordSpec(
    "tab:pen_persiapan",
    _labels(
        ("tanggal penetapan pemeriksaan pendahuluan", "tanggal_penetapan", soft_date),
        (
            "tanggal pemeriksaan persiapan",
            "pemeriksaan_persiapan",
            dated_rows(
                {
                    "tanggal": "tanggal",
                    "agenda": "agenda",
                    "pukul": "pukul",
                    "keterangan": "keterangan",
                }
            ),
        ),
        ("posita dan petitum", "posita_petitum", long_value),
    ),
)

DIVERSI = RecordSpec(
    "tab:diversi",
    _labels(
        ("pembimbing kemasyarakatan", "pembimbing_kemasyarakatan", names_table),
        ("tanggal penetapan musyawarah diversi", "tanggal_penetapan_musyawarah", soft_date),
        ("tanggal musyawarah diversi", "tanggal_musyawarah", soft_date),
        ("kesepakatan pelaksanaan musyawarah diversi", "kesepakatan", text_value),
        ("tanggal hasil musyawarah diversi", "tanggal_hasil_musyawarah", soft_date),
        ("hasil diversi", "hasil", long_value),
        (
            "tanggal laporan hakim fasilitator kepada ketua pengadilan negeri",
            "tanggal_laporan_hakim",
            soft_date,
        ),
        ("nomor penetapan kesepakatan diversi", "nomor_penetapan_kesepakatan", text_value),
        ("tanggal penetapan kesepakatan diversi", "tanggal_penetapan_kesepakatan", soft_date),
        ("tanggal mulai pelaksanaan kesepakatan diversi", "tanggal_mulai_pelaksanaan", soft_date),
        ("status pelaksanaan kesepakatan diversi", "status_pelaksanaan", text_value),
        (
            "tgl. laporan pembimbing kemasyarakatan kepada ketua pengadilan negeri",
            "tanggal_laporan_pembimbing",
            soft_date,
        ),
        (
            "no. laporan pembimbing kemasyarakatan kepada ketua pengadilan negeri",
            "nomor_laporan_pembimbing",
            text_value,
        ),
    ),
)


WE_KPPU = RecordSpec(
    "tab:we_kppu",
    _labels(
        ("tanggal surat kppu", "tanggal_surat_kppu", soft_date),
        ("nomor surat kppu", "nomor_surat_kppu", text_value),
        ("tanggal penetapan ma", "tanggal_penetapan_ma", soft_date),
        ("nomor penetapan ma", "nomor_penetapan_ma", text_value),
        ("pengadilan yang berwenang", "pengadilan_berwenang", text_value),
    ),
)


def table_parser(page: str, columns: Mapping[str, str]) -> Callable[[str], list[dict[str, Any]]]:
    """A tab that is one headed table (``No | <columns>``): one record per row, a column
    whose header starts with ``Tanggal`` read as a date; the no-data row (one cell) skipped;
    an unknown column kept as text under its own name with a warning."""

    def parse(html: str) -> list[dict[str, Any]]:
        doc = parse_html(html, f"tab {page}")
        out: list[dict[str, Any]] = []
        for table in xpath_elements(doc, "//table[not(.//table)]")[:1]:
            out.extend(read_rows(table, columns, page, ""))
        return out

    slug = page.removeprefix("tab:")
    parse.__name__ = f"parse_{slug}"
    parse.__doc__ = f"The {slug} tab: one record per row of its table."
    return parse


# ------------------------------------------------------------------ sectioned (PKPU) tabs

#: A section of a sectioned tab: ``(key, columns)``; ``columns`` maps the header texts of a
#: ``No | ...`` table to keys (``None``: the section is label/value rows read with the spec's
#: labels). The column key ``agenda_alasan`` splits an ``Agenda : ... Alasan Ditunda : ...``
#: cell into ``agenda`` and ``alasan_ditunda``.
Section = tuple[str, Mapping[str, str] | None]


@dataclass(frozen=True)
class SectionSpec:
    """A tab of headed blocks (``JADWAL DAN HASIL RAPAT``, ``PUTUSAN PKPU TETAP PERTAMA``):
    ``sections`` maps the lower-case heading to its :data:`Section`."""

    page: str
    sections: Mapping[str, Section]
    labels: Mapping[str, tuple[str, Converter]]


def _agenda_alasan(cell: Element) -> dict[str, str | None]:
    """``Agenda :<br>X<br><br>Alasan Ditunda :<br>Y`` -> ``{"agenda": X, "alasan_ditunda": Y}``."""
    parts: dict[str, list[str]] = {"agenda": [], "alasan_ditunda": []}
    current = "agenda"
    for line in lines(cell):
        low = line.lower().rstrip(" :")
        if low == "agenda":
            current = "agenda"
        elif low == "alasan ditunda":
            current = "alasan_ditunda"
        else:
            parts[current].append(line)
    return {k: none_if_empty(" ".join(v)) if v != ["-"] else None for k, v in parts.items()}


def parse_sections(html: str, spec: SectionSpec) -> dict[str, Any]:
    """``{section key: [records]}`` in page order; a table under a heading the spec does not
    know goes to ``lainnya`` (its rows as the generic parser gives them) with a warning."""
    doc = parse_html(html, f"tab {spec.page}")
    out: dict[str, Any] = {}
    labels = RecordSpec(spec.page, spec.labels)
    for heading, table in headed_tables(doc):
        section = spec.sections.get((heading or "").lower())
        if section is None:
            warn(spec.page, heading or "", "block")
            out.setdefault(OTHER_KEY, []).append(
                {"label": heading or "", "value": generic_table(table)}
            )
            continue
        key, columns = section
        if columns is not None:
            out[key] = read_rows(table, columns, spec.page, heading or "")
        else:
            records = _Records()
            _walk_rows(table, labels, records)
            # the voting block prints its rows with "Belum Ada Data" when there is no row
            out[key] = [r for r in records.result() if any(v is not None for v in r.values())]
    return out


_RAPAT_COLUMNS = {
    "tanggal rapat": "tanggal_rapat",
    "jam": "jam_rapat",
    "jam rapat": "jam_rapat",
    "agenda/alasan ditunda": "agenda_alasan",
    "agenda / alasan ditunda": "agenda_alasan",
    "tempat rapat": "tempat_rapat",
}
_PUTUSAN_PKPU_LABELS = _labels(
    ("tanggal putusan", "tanggal_putusan", soft_date),
    ("amar putusan", "amar_putusan", long_value),
    ("pemberitahuan putusan kepada pemohon", "tanggal_pemberitahuan_pemohon", soft_date),
    ("pemberitahuan putusan kepada termohon", "tanggal_pemberitahuan_termohon", soft_date),
)

PKPU_TETAP = SectionSpec(
    "tab:pkpu_tetap",
    {
        "pengambilan suara": ("pengambilan_suara", _RAPAT_COLUMNS),
        "putusan pkpu tetap pertama": ("putusan_pertama", None),
        "putusan pkpu tetap lanjutan": ("putusan_lanjutan", None),
    },
    _PUTUSAN_PKPU_LABELS,
)

RENCANA_PERDAMAIAN = SectionSpec(
    "tab:rencana_perdamaian",
    {
        "jadwal dan hasil rapat": ("rapat", _RAPAT_COLUMNS),
        "pembetulan berita acara rapat pemungutan suara": (
            "pembetulan_berita_acara",
            {
                "nomor perkara": "nomor_perkara",
                "tanggal register": "tanggal_register",
                "klasifikasi perkara": "klasifikasi_perkara",
                "status perkara": "status_perkara",
            },
        ),
        "hasil pemungutan suara": ("hasil_pemungutan_suara", None),
    },
    _labels(
        ("tanggal pemungutan suara", "tanggal_pemungutan", soft_date),
        ("amar hasil pemungutan suara", "amar", long_value),
        ("hasil pemungutan suara", "hasil", text_value),
    ),
)


# ---------------------------------------------------------------------- pkpu_sementara


_heading_paths = tables_with_text_before


def _pairs(keys: Mapping[str, str]) -> Callable[[Element, str, str], dict[str, Any]]:
    """A cell of ``<b>Label:</b> value</br>`` lines -> ``{key: value}`` (a ``Tanggal``/``Batas``
    label is a date; an unknown label keeps its value under its own name, with a warning)."""

    def convert(cell: Element, page: str, column: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for line in lines(cell):
            label, sep, value = line.partition(":")
            if not sep:
                warn(page, f"{column}: {line}", "value")
                out.setdefault(OTHER_KEY, []).append({"label": "", "value": line})
                continue
            label = clean_text(label)
            key = keys.get(label.lower())
            if key is None:
                warn(page, f"{column}: {label}", "column")
                key = re.sub(r"\W+", "_", label.lower()).strip("_")
            value = clean_text(value)
            if label.lower().startswith(("tanggal", "batas")):
                try:
                    out[key] = parse_date(value)
                except ValueError:
                    warn(page, label, "value")
                    out[key] = value
            else:
                out[key] = None if value in ("", "-") else value
        return out

    return convert


def _pemohon_bantahan(cell: Element, page: str, column: str) -> dict[str, Any]:
    """``<pemohon></br>(Separatis)`` -> ``pemohon``, ``kedudukan_pemohon``."""
    found = lines(cell)
    kedudukan = None
    if found and found[-1].startswith("(") and found[-1].endswith(")"):
        kedudukan = found.pop()[1:-1]
    return {"pemohon": none_if_empty(" ".join(found)), "kedudukan_pemohon": kedudukan}


PkpuColumns = Columns

_PENUNJUKAN: PkpuColumns = {
    "tanggal penunjukan": "tanggal_penunjukan",
    "nomor penunjukan": "nomor_penunjukan",
    "nomor surat/ putusan penunjukan": "nomor_penunjukan",
    "nama hakim": "nama",
    "nama pengurus": "nama",
    "aktif": "aktif",
}
_TINDAKAN: PkpuColumns = {
    "jenis permohonan": "jenis_permohonan",
    "detil permohonan": _pairs(
        {
            "nomor permohonan": "nomor_permohonan",
            "tanggal permohonan": "tanggal_permohonan",
            "nama pemohon": "nama_pemohon",
            "tipe pemohon": "tipe_pemohon",
        }
    ),
    "detil surat / penetapan hakim pengawas": _pairs(
        {
            "nomor surat/penetapan": "nomor_penetapan",
            "tanggal surat/penetapan": "tanggal_penetapan",
            "hakim pengawas": "hakim_pengawas",
        }
    ),
}
_RAPAT: PkpuColumns = {
    "tanggal rapat": "tanggal_rapat",
    "jam": "jam_rapat",
    "agenda/alasan ditunda": "agenda_alasan",
    "tempat rapat": "tempat_rapat",
}
#: (top-level heading, block heading) -> (path of keys, columns; None: label/value rows)
_PKPU_SEMENTARA: dict[tuple[str, str], tuple[tuple[str, ...], PkpuColumns | None]] = {
    ("putusan pkpu sementara", "putusan pkpu sementara"): (("putusan",), None),
    ("penunjukan hakim pengawas", "penunjukan hakim pengawas"): (("hakim_pengawas",), _PENUNJUKAN),
    ("penunjukan pengurus", "penunjukan pengurus"): (("pengurus",), _PENUNJUKAN),
    ("publisitas", "penetapan publisitas"): (
        ("penetapan_publisitas",),
        {
            "tanggal": "tanggal",
            "isi penetapan": _pairs(
                {
                    "nomor penetapan": "nomor_penetapan",
                    "nama surat kabar 1": "nama_surat_kabar_1",
                    "nama surat kabar 2": "nama_surat_kabar_2",
                    "tanggal rapat kreditor pertama": "tanggal_rapat_kreditor_pertama",
                    "tempat rapat kreditor pertama": "tempat_rapat_kreditor_pertama",
                    "batas akhir pengajuan tagihan kreditor": "batas_akhir_pengajuan_tagihan",
                    "tanggal rapat pencocokan piutang dan verifikasi pajak": (
                        "tanggal_rapat_pencocokan_piutang"
                    ),
                    "tempat rapat pencocokan piutang dan verifikasi pajak": (
                        "tempat_rapat_pencocokan_piutang"
                    ),
                }
            ),
        },
    ),
    ("publisitas", "laporan publisitas"): (
        ("laporan_publisitas",),
        {
            "tanggal publisitas": "tanggal_publisitas",
            "media": _pairs({"jenis media": "jenis_media", "nama media": "nama_media"}),
        },
    ),
    ("rapat kreditor pertama", "jadwal dan hasil rapat"): (
        ("rapat_kreditor_pertama", "rapat"),
        _RAPAT,
    ),
    ("rapat kreditor pertama", "tindakan hakim pengawas"): (
        ("rapat_kreditor_pertama", "tindakan_hakim_pengawas"),
        _TINDAKAN,
    ),
    ("rapat kreditor lanjutan", "jadwal dan hasil rapat"): (
        ("rapat_kreditor_lanjutan", "rapat"),
        _RAPAT,
    ),
    ("rapat kreditor lanjutan", "tindakan hakim pengawas"): (
        ("rapat_kreditor_lanjutan", "tindakan_hakim_pengawas"),
        _TINDAKAN,
    ),
    ("pencocokan piutang dan verifikasi", "jadwal dan hasil rapat"): (
        ("pencocokan_piutang", "rapat"),
        _RAPAT,
    ),
    ("pencocokan piutang dan verifikasi", "bantahan tagihan"): (
        ("pencocokan_piutang", "bantahan_tagihan"),
        {
            "tanggal pengajuan bantahan": "tanggal_pengajuan",
            "pemohon": _pemohon_bantahan,
            "hasil bantahan": "hasil",
        },
    ),
    ("pencocokan piutang dan verifikasi", "tindakan hakim pengawas"): (
        ("pencocokan_piutang", "tindakan_hakim_pengawas"),
        _TINDAKAN,
    ),
}
_PKPU_TOP = frozenset(top for top, _ in _PKPU_SEMENTARA)


def parse_pkpu_sementara(html: str) -> dict[str, Any]:
    """PKPU Sementara (alur 4): its blocks by (top-level heading, block heading); the
    ``JADWAL DAN HASIL RAPAT`` and ``TINDAKAN HAKIM PENGAWAS`` blocks repeat under each
    meeting, so they nest under it (docs/item-format.md)."""
    page = "tab:pkpu_sementara"
    doc = parse_html(html, f"tab {page}")
    out: dict[str, Any] = {}
    labels = RecordSpec(page, _PUTUSAN_PKPU_LABELS)
    top = ""
    for found, table in _heading_paths(doc):
        heading = top
        for line in found:
            low = line.lower()
            if low in _PKPU_TOP:
                top = low
            heading = low
        known = _PKPU_SEMENTARA.get((top, heading))
        if known is None:
            label = " / ".join(found)
            warn(page, label, "block")
            out.setdefault(OTHER_KEY, []).append({"label": label, "value": generic_table(table)})
            continue
        path, columns = known
        if columns is None:
            records = _Records()
            _walk_rows(table, labels, records)
            value: list[dict[str, Any]] = records.result()
        else:
            value = read_rows(table, columns, page, heading)
        target = out
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = value
    return out


def _record_parser(spec: RecordSpec) -> Callable[[str], list[dict[str, Any]]]:
    def parse(html: str) -> list[dict[str, Any]]:
        return parse_records(html, spec)

    slug = spec.page.removeprefix("tab:")
    parse.__name__ = f"parse_{slug}"
    parse.__doc__ = f"The {slug} tab: one record per row (harvest.sipp.record_tabs)."
    return parse


#: The verzet record's fields that come from the joined ``mediasiweb`` row (verzet_m.php:6
#: ``verzetweb LEFT JOIN dataumumweb LEFT JOIN mediasiweb``, every stage's mediation).
VERZET_MEDIASI_FIELDS = (
    "tanggal_penetapan_mediator",
    "nomor_penetapan_mediator",
    "mediator",
    "tanggal_mulai_mediasi",
    "tanggal_hasil_mediasi",
    "hasil_mediasi",
)


def parse_verzet(html: str) -> list[dict[str, Any]]:
    """The verzet tab. ``verzet_m.php`` joins ``mediasiweb`` (not filtered by stage) to the one
    ``verzetweb`` row, so ``verzet.php`` prints the same verzet record once per mediation of
    the case: records equal but for their mediation rows are one record, its mediation fields
    those of the first join row, the further rows' in ``mediasi_lain`` (in page order; only
    when there are any). Records that differ elsewhere stay apart."""
    out: list[dict[str, Any]] = []
    for rec in parse_records(html, VERZET):
        rest = _without_mediasi(rec)
        same = next((o for o in out if _without_mediasi(o) == rest), None)
        if same is None:
            out.append(rec)
        else:
            mediasi = {k: rec[k] for k in VERZET_MEDIASI_FIELDS if k in rec}
            same.setdefault("mediasi_lain", []).append(mediasi)
    return out


def _without_mediasi(rec: Mapping[str, Any]) -> dict[str, Any]:
    skip = (*VERZET_MEDIASI_FIELDS, "mediasi_lain")
    return {k: v for k, v in rec.items() if k not in skip}


def parse_pen_persiapan(html: str) -> dict[str, Any]:
    """Pemeriksaan Persiapan (PTUN): one record, always printed (its rows have no no-data
    branch); ``{}`` only for an empty fragment."""
    found = parse_records(html, PEN_PERSIAPAN)
    if not found:
        return {}
    if len(found) > 1:  # the template prints one block; keep any further one whole
        warn(PEN_PERSIAPAN.page, "", "block")
        found[0].setdefault(OTHER_KEY, []).append({"label": "", "value": found[1:]})
    return found[0]


#: slug -> parser for the tabs read with :func:`parse_records`.
RECORD_PARSERS: dict[str, Callable[[str], Any]] = {
    "mediasi": _record_parser(MEDIASI),
    "mediasi_luar": _record_parser(MEDIASI_LUAR),
    "verzet": parse_verzet,
    "ikrar_talak": _record_parser(IKRAR_TALAK),
    "keberatan": _record_parser(KEBERATAN),
    "dismissal": _record_parser(DISMISSAL),
    "penetapan_gugur": _record_parser(PENETAPAN_GUGUR),
    "intervensi": _record_parser(INTERVENSI),
    "rekonvensi": _record_parser(REKONVENSI),
    "perbaikan_gugatan": _record_parser(PERBAIKAN_GUGATAN),
    "pen_persiapan": parse_pen_persiapan,
    "diversi": _record_parser(DIVERSI),
    "we_kppu": lambda html: (parse_records(html, WE_KPPU) or [{}])[0],
    "pkpu_tetap": lambda html: parse_sections(html, PKPU_TETAP),
    "pkpu_sementara": parse_pkpu_sementara,
    "rencana_perdamaian": lambda html: parse_sections(html, RENCANA_PERDAMAIAN),
    "laporan_pengurus": table_parser(
        "tab:laporan_pengurus",
        {
            "nomor laporan": "nomor_laporan",
            "tanggal laporan": "tanggal_laporan",
            "deskripsi": "deskripsi",
        },
    ),
    "pembatalan_perdamaian": table_parser(
        "tab:pembatalan_perdamaian",
        {
            "nomor perkara": "nomor_perkara",
            "tanggal register": "tanggal_register",
            "klasifikasi perkara": "klasifikasi_perkara",
            "status perkara": "status_perkara",
        },
    ),
}
