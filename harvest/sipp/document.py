"""The types of the ``case`` part the parsers build (docs/item-format.md, "The ``case`` part").

:func:`harvest.sipp.case_part_data` returns a :class:`CaseData`; the JSON Schema of the case
document (:mod:`harvest.schema`) is generated from these definitions and from the parsers' label
tables, so the published schema and the parsers cannot drift apart.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

__all__ = [
    "CaseData",
    "HeaderData",
    "HeaderSide",
    "KuasaEntry",
    "KuasaRow",
    "ListRowData",
    "OtherColumn",
    "OtherRow",
    "PartyEntry",
    "PartyGroup",
    "TabEntry",
]


class PartyGroup(TypedDict):
    """One ``label:<br>names`` group of the list's Para Pihak cell."""

    label: str
    nama: list[str]


class OtherColumn(TypedDict):
    """A list column the parser does not know, kept as shown."""

    label: str
    value: str | None


class ListRowData(TypedDict, total=False):
    """The case's row on the all-cases list (``Lama Proses`` is never kept)."""

    nomor_perkara: str
    tanggal_register: str | None
    klasifikasi_perkara: str | None
    para_pihak: list[PartyGroup]
    status_perkara: str | None
    lainnya: list[OtherColumn]


class HeaderSide(TypedDict):
    """One party column of the detail page's header."""

    label: str
    nama: list[str]


class HeaderData(TypedDict):
    """The detail page's header table (``table#tableinfo``)."""

    nomor_perkara: str
    pihak_1: HeaderSide | None
    pihak_2: HeaderSide | None
    status_perkara: str | None


class PartyEntry(TypedDict):
    """A Data Umum party row (``No | Nama`` nested table)."""

    label: str
    nama: list[str]
    #: the whole nested table (header row first) when it has a column the template lacks
    lainnya: NotRequired[list[list[Any]]]


class KuasaRow(TypedDict):
    """One lawyer of a Data Umum lawyer row."""

    nama: str
    nama_pihak: str


class KuasaEntry(TypedDict):
    """A Data Umum lawyer row (``No | Nama | Nama Pihak`` nested table)."""

    label: str
    rows: list[KuasaRow]
    lainnya: NotRequired[list[list[Any]]]


class OtherRow(TypedDict):
    """A label row no parser maps: the label and the cell (text, or text plus tables)."""

    label: str
    value: Any


class TabEntry(TypedDict):
    """A tab the detail page lists (without Data Umum)."""

    slug: str
    label: str
    available: bool


class CaseData(TypedDict):
    """The ``case`` part: list row + detail page. ``data_umum`` is typed by the Data Umum label
    table of :mod:`harvest.sipp.detail_page` (its keys depend on the flow and court type)."""

    court: str
    nomor_perkara: str
    nomor_perkara_raw: str
    list_row: ListRowData | None
    header: HeaderData
    data_umum: dict[str, Any]
    tabs: list[TabEntry]
