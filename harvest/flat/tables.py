"""The case document as flat tables, one per entity (docs/export.md): what ``scrapy export
--format parquet|csv`` writes.

Every table has ``dedupe_key`` (the document's key: ``cases`` has one row per key, the others
join back to it) and the 1-based ordinals that place a row in its document (``row_no`` the
position in the page's list, ``group_no`` / ``name_no`` for the parties), so
``(dedupe_key, tab, ..., row_no)`` is a stable key across exports of the same data. What a table
does not have a column for is kept, as canonical JSON, in its ``extra_json`` column, and every
tab no entity table covers (or kept generically) is a row of ``generic``: nothing of the document
is lost.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from harvest.base.canonical import canonical_json

__all__ = ["TABLES", "Column", "Table", "flatten"]


@dataclass(frozen=True)
class Column:
    name: str
    #: ``string``, ``int64`` or ``bool``
    type: str = "string"


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    description: str

    @property
    def names(self) -> list[str]:
        return [column.name for column in self.columns]


def _cols(*specs: str) -> tuple[Column, ...]:
    """``"name"`` (string) or ``"name:int64"`` / ``"name:bool"``."""
    out = []
    for spec in specs:
        name, _, kind = spec.partition(":")
        out.append(Column(name, kind or "string"))
    return tuple(out)


_HEARING_KEYS = ("tanggal", "jam", "agenda", "ruangan", "alasan_ditunda", "dihadiri_oleh")
_VERDICT_TABS = {"putusan": "tanggal_putusan", "putusan_sela": "tanggal_putusan_sela"}
_APPEAL_TABS = ("banding", "kasasi", "pk")
_APPEAL_KEYS = (
    "tanggal_putusan",
    "nomor_putusan",
    "amar_putusan",
    "tanggal_pengiriman_berkas",
    "nomor_surat_pengiriman_berkas",
    "panitera_pengganti",
)
_NOTICE_KEYS = ("status", "nama", "tanggal")
_COST_KEYS = ("tanggal", "uraian", "pemasukan", "pengeluaran", "sisa", "keterangan")
#: Tabs an entity table covers (unless kept generically): the rest go to ``generic``.
_COVERED = frozenset({"jadwal_sidang", "biaya_perkara", *_VERDICT_TABS, *_APPEAL_TABS})

TABLES: dict[str, Table] = {
    table.name: table
    for table in (
        Table(
            "cases",
            _cols(
                "dedupe_key",
                "court",
                "source_id",
                "nomor_perkara",
                "nomor_perkara_raw",
                "schema_version:int64",
                "content_hash",
                "complete:bool",
                "version:int64",
                "klasifikasi_perkara",
                "tanggal_register",
                "tanggal_pendaftaran",
                "status_perkara",
                "nilai_sengketa:int64",
                "pihak_dipublikasikan",
                "prodeo",
                "tabs",
                "data_umum_json",
            ),
            "one row per case document",
        ),
        Table(
            "parties",
            _cols(
                "dedupe_key",
                "source",
                "role",
                "group_no:int64",
                "name_no:int64",
                "label",
                "nama",
                "nama_pihak",
            ),
            "one row per name of a party or lawyer: the header, Data Umum and the list row",
        ),
        Table(
            "hearings",
            _cols("dedupe_key", "row_no:int64", *_HEARING_KEYS, "extra_json"),
            "one row per hearing of the jadwal_sidang tab",
        ),
        Table(
            "verdicts",
            _cols(
                "dedupe_key",
                "tab",
                "tanggal_putusan",
                "status_putusan",
                "putusan_verstek",
                "amar_label",
                "amar_putusan",
                "extra_json",
            ),
            "one row per verdict tab (putusan, putusan_sela) that holds a verdict",
        ),
        Table(
            "amar",
            _cols("dedupe_key", "tab", "line_no:int64", "text"),
            "one row per line of the amar of a verdict or appeal",
        ),
        Table(
            "appeals",
            _cols("dedupe_key", "level", *_APPEAL_KEYS, "majelis_hakim", "extra_json"),
            "one row per appeal tab (banding, kasasi, pk) that holds an appeal",
        ),
        Table(
            "notices",
            _cols("dedupe_key", "tab", "kind", "row_no:int64", *_NOTICE_KEYS, "extra_json"),
            "one row per party row of a verdict or appeal tab (notifications, memori, inzage)",
        ),
        Table(
            "costs",
            _cols(
                "dedupe_key",
                "stage_no:int64",
                "tahap",
                "row_no:int64",
                "kind",
                "tanggal",
                "uraian",
                "pemasukan:int64",
                "pengeluaran:int64",
                "sisa:int64",
                "keterangan",
            ),
            "one row per transaction (kind 'transaksi') or stage total ('total') of biaya_perkara",
        ),
        Table(
            "generic",
            _cols("dedupe_key", "tab", "generic:bool", "data_json"),
            "one row per tab no other table covers, or kept generically: its data as JSON",
        ),
    )
}

Row = dict[str, Any]


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


def _extra(record: Mapping[str, Any], known: tuple[str, ...]) -> str | None:
    rest = {k: v for k, v in record.items() if k not in known}
    return canonical_json(rest) if rest else None


def _is_generic(data: Any) -> bool:
    return isinstance(data, dict) and data.get("generic") is True


def flatten(document: Mapping[str, Any]) -> Iterator[tuple[str, Row]]:
    """``(table name, row)`` for every row of one document, in table order."""
    key = document["dedupe_key"]
    case = document.get("case") or {}
    data_umum = case.get("data_umum") or {}
    list_row = case.get("list_row") or {}
    header = case.get("header") or {}
    yield (
        "cases",
        {
            "dedupe_key": key,
            "court": case.get("court") or document["source_type"].removeprefix("sipp."),
            "source_id": document["source_id"],
            "nomor_perkara": case.get("nomor_perkara"),
            "nomor_perkara_raw": case.get("nomor_perkara_raw"),
            "schema_version": document.get("schema_version"),
            "content_hash": document.get("content_hash"),
            "complete": document.get("complete"),
            "version": document.get("version"),
            "klasifikasi_perkara": data_umum.get("klasifikasi_perkara"),
            "tanggal_register": list_row.get("tanggal_register"),
            "tanggal_pendaftaran": _text(data_umum.get("tanggal_pendaftaran")),
            "status_perkara": header.get("status_perkara"),
            "nilai_sengketa": data_umum.get("nilai_sengketa"),
            "pihak_dipublikasikan": data_umum.get("pihak_dipublikasikan"),
            "prodeo": data_umum.get("prodeo"),
            "tabs": ",".join(t["slug"] for t in case.get("tabs") or []),
            "data_umum_json": canonical_json(data_umum) if data_umum else None,
        },
    )
    yield from _parties(key, header, data_umum, list_row)
    tabs: Mapping[str, Any] = document.get("tabs") or {}
    for slug, data in sorted(tabs.items()):
        if _is_generic(data) or slug not in _COVERED:
            yield (
                "generic",
                {
                    "dedupe_key": key,
                    "tab": slug,
                    "generic": _is_generic(data),
                    "data_json": canonical_json(data),
                },
            )
        elif slug == "jadwal_sidang":
            for row_no, hearing in enumerate(data, 1):
                row = {"dedupe_key": key, "row_no": row_no}
                row.update({k: _text(hearing.get(k)) for k in _HEARING_KEYS})
                row["extra_json"] = _extra(hearing, _HEARING_KEYS)
                yield "hearings", row
        elif slug == "biaya_perkara":
            yield from _costs(key, data)
        elif slug in _VERDICT_TABS:
            yield from _verdict(key, slug, data)
        else:
            yield from _appeal(key, slug, data)


def _parties(
    key: str, header: Mapping[str, Any], data_umum: Mapping[str, Any], list_row: Mapping[str, Any]
) -> Iterator[tuple[str, Row]]:
    def row(source: str, role: str, group: int, name: int, label: Any, nama: Any) -> Row:
        return {
            "dedupe_key": key,
            "source": source,
            "role": role,
            "group_no": group,
            "name_no": name,
            "label": label,
            "nama": nama,
            "nama_pihak": None,
        }

    for group, side in enumerate((header.get("pihak_1"), header.get("pihak_2")), 1):
        side = side or {}
        for name_no, nama in enumerate(side.get("nama") or [], 1):
            yield "parties", row("header", "pihak", group, name_no, side.get("label"), nama)
    for group, entry in enumerate(data_umum.get("pihak") or [], 1):
        for name_no, nama in enumerate(entry.get("nama") or [], 1):
            yield "parties", row("data_umum", "pihak", group, name_no, entry.get("label"), nama)
    for group, entry in enumerate(data_umum.get("kuasa") or [], 1):
        for name_no, lawyer in enumerate(entry.get("rows") or [], 1):
            out = row("data_umum", "kuasa", group, name_no, entry.get("label"), lawyer.get("nama"))
            out["nama_pihak"] = lawyer.get("nama_pihak")
            yield "parties", out
    for group, entry in enumerate(list_row.get("para_pihak") or [], 1):
        for name_no, nama in enumerate(entry.get("nama") or [], 1):
            yield "parties", row("list_row", "pihak", group, name_no, entry.get("label"), nama)


def _amar(key: str, tab: str, text: Any) -> Iterator[tuple[str, Row]]:
    if isinstance(text, str):
        for line_no, line in enumerate(text.split("\n"), 1):
            yield "amar", {"dedupe_key": key, "tab": tab, "line_no": line_no, "text": line}


def _party_lists(key: str, tab: str, data: Mapping[str, Any]) -> Iterator[tuple[str, Row]]:
    for kind, value in data.items():
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            continue
        if not value or not {"nama", "status"} & set(value[0]):
            continue
        for row_no, entry in enumerate(value, 1):
            row: Row = {"dedupe_key": key, "tab": tab, "kind": kind, "row_no": row_no}
            row.update({k: _text(entry.get(k)) for k in _NOTICE_KEYS})
            row["extra_json"] = _extra(entry, _NOTICE_KEYS)
            yield "notices", row


def _verdict(key: str, tab: str, data: Any) -> Iterator[tuple[str, Row]]:
    if not isinstance(data, dict) or not data:
        return
    date_key = _VERDICT_TABS[tab]
    amar_key = "amar_putusan" if tab == "putusan" else "amar_putusan_sela"
    known = (date_key, "status_putusan", "putusan_verstek", "amar_label", amar_key)
    yield (
        "verdicts",
        {
            "dedupe_key": key,
            "tab": tab,
            "tanggal_putusan": _text(data.get(date_key)),
            "status_putusan": _text(data.get("status_putusan")),
            "putusan_verstek": _text(data.get("putusan_verstek")),
            "amar_label": data.get("amar_label"),
            "amar_putusan": data.get(amar_key),
            "extra_json": _extra(data, known),
        },
    )
    yield from _amar(key, tab, data.get(amar_key))
    yield from _party_lists(key, tab, data)


def _appeal(key: str, tab: str, data: Any) -> Iterator[tuple[str, Row]]:
    if not isinstance(data, dict) or not data:
        return
    majelis = data.get("majelis_hakim") or []
    row: Row = {"dedupe_key": key, "level": tab}
    row.update({k: _text(data.get(k)) for k in _APPEAL_KEYS})
    row["majelis_hakim"] = "; ".join(
        f"{m.get('jabatan')}: {m.get('nama')}" if m.get("jabatan") else str(m.get("nama"))
        for m in majelis
        if isinstance(m, dict)
    )
    row["extra_json"] = _extra(data, (*_APPEAL_KEYS, "majelis_hakim"))
    yield "appeals", row
    yield from _amar(key, tab, data.get("amar_putusan"))
    yield from _party_lists(key, tab, data)


def _costs(key: str, stages: Any) -> Iterator[tuple[str, Row]]:
    for stage_no, stage in enumerate(stages or [], 1):
        rows = [("transaksi", t) for t in stage.get("transaksi") or []]
        if stage.get("total"):
            rows.append(("total", stage["total"]))
        for row_no, (kind, entry) in enumerate(rows, 1):
            row: Row = {
                "dedupe_key": key,
                "stage_no": stage_no,
                "tahap": stage.get("tahap"),
                "row_no": row_no,
                "kind": kind,
            }
            row.update({k: entry.get(k) for k in _COST_KEYS})
            yield "costs", row
