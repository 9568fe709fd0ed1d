"""The types of the ``case`` part the parsers build (docs/item-format.md, "The ``case`` part").

:func:`harvest.sipp.case_part_data` returns a :class:`CaseData`; the JSON Schema of the case
document (:mod:`harvest.schema`) is generated from these definitions and from the parsers' label
tables, so the published schema and the parsers cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, NotRequired, TypedDict

__all__ = [
    "OTHER_KEY",
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

#: The key under which every parser keeps what it has no mapping for, so nothing a page shows
#: is lost (convention 4b): label rows ``[{"label", "value"}]`` (detail page, tabs, verdicts),
#: unknown list columns (``ListRowData.lainnya``), table rows of another width (``[texts]``),
#: sections ``[{"label", "rows"}]``. The one definition of the name: parsers, the case part,
#: the refresh planner and the schema generator import it (docs/item-format.md).
OTHER_KEY: Final = "lainnya"


class PartyGroup(TypedDict):
    """One ``label:<br>names`` group of the list's Para Pihak cell."""

    label: Annotated[str, "the party label as shown, without its ':'"]
    nama: Annotated[list[str], "the names, one per line, page order"]


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

    label: Annotated[str, "the party label of the first header row (Penggugat, Terdakwa, ...)"]
    nama: Annotated[list[str], "the names of the second header row, one per line"]


class HeaderData(TypedDict):
    """The detail page's header table (``table#tableinfo``)."""

    nomor_perkara: Annotated[str, "the case number as the header shows it, not stripped"]
    pihak_1: Annotated[HeaderSide | None, "the first party; null on a tilang case"]
    pihak_2: Annotated[HeaderSide | None, "the second party"]
    status_perkara: Annotated[str | None, "the case's stage (Persidangan, Minutasi, ...)"]


class PartyEntry(TypedDict):
    """A Data Umum party row (``No | Nama`` nested table)."""

    label: Annotated[str, "the row label (Penggugat, Terdakwa, Anak Korban, ...)"]
    nama: Annotated[list[str], "the names of the nested table, page order"]
    #: the whole nested table (header row first) when it has a column the template lacks
    lainnya: NotRequired[list[list[Any]]]


class KuasaRow(TypedDict):
    """One lawyer of a Data Umum lawyer row."""

    nama: Annotated[str, "the lawyer's name"]
    nama_pihak: Annotated[str, "the party the lawyer represents"]


class KuasaEntry(TypedDict):
    """A Data Umum lawyer row (``No | Nama | Nama Pihak`` nested table)."""

    label: Annotated[str, "the row label (Kuasa Hukum Penggugat, Penasihat Hukum, ...)"]
    rows: Annotated[list[KuasaRow], "the lawyers of the nested table, page order"]
    lainnya: NotRequired[list[list[Any]]]


class OtherRow(TypedDict):
    """A label row no parser maps: the label and the cell (text, or text plus tables)."""

    label: str
    value: Any


class TabEntry(TypedDict):
    """A tab the detail page lists (without Data Umum)."""

    slug: Annotated[str, "the tab's route (show_<slug>): penetapan, jadwal_sidang, putusan, ..."]
    label: Annotated[str, "the tab's anchor text, whitespace collapsed"]
    available: Annotated[bool, "false for a tab the stock app cannot serve (we_kppu)"]


class CaseData(TypedDict):
    """The ``case`` part: list row + detail page. ``data_umum`` is typed by the Data Umum label
    table of :mod:`harvest.sipp.detail_page` (its keys depend on the flow and court type)."""

    court: Annotated[str, "the crawl's court id (-a court_id)"]
    nomor_perkara: Annotated[str, "the normalised case number (the document's source_id)"]
    nomor_perkara_raw: Annotated[str, "the header's case number exactly as shown"]
    list_row: Annotated[ListRowData | None, "the case's row on the all-cases list"]
    header: Annotated[HeaderData, "the detail page's header table"]
    data_umum: Annotated[dict[str, Any], "the Data Umum rows"]
    tabs: Annotated[list[TabEntry], "the tabs the detail page lists, page order"]
