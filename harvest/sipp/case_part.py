"""The ``case`` part of a case: list row + detail page, exactly as docs/item-format.md has it."""

from __future__ import annotations

from typing import Any, cast

from harvest.base.identity import normalise_case_number
from harvest.sipp.detail_page import DetailPage
from harvest.sipp.document import OTHER_KEY, CaseData, HeaderData, ListRowData, TabEntry
from harvest.sipp.list_page import ListRow

#: The keys of a row of the all-cases list (and every flow list but tilang) the item keeps.
#: ``lama_proses`` (``N Hari``, days since registration) is parsed but left out: it grows every
#: day an open case waits, so keeping it would re-hash (and re-ship) every open case daily.
LIST_ROW_KEYS = frozenset(
    {
        "nomor_perkara",
        "tanggal_register",
        "klasifikasi_perkara",
        "para_pihak",
        "status_perkara",
    }
)


def case_part_data(court_id: str, row: ListRow | None, detail: DetailPage) -> CaseData:
    """The ``case`` part's data: ``court``, ``nomor_perkara`` (normalised),
    ``nomor_perkara_raw`` (the header cell as shown), ``list_row``, ``header``, ``data_umum``
    and ``tabs`` (``[{"slug", "label", "available"}]``, page order, without Data Umum).

    ``list_row`` is the row as the all-cases list shows it (with ``lainnya`` when the list has
    columns the parser does not know). It is ``None`` when the row is not known (``row is
    None``) or when the row came from the traffic-ticket list, whose columns are not those of
    the item format (it has no Tanggal Register; the registration date, parties and Lama Proses
    of the all-cases list cannot be rebuilt from it or from the detail page).
    """
    list_row: ListRowData | None = None
    if row is not None and "tanggal_register" in row.data:
        # the all-cases row (the tilang list has no Tanggal Register column)
        kept: dict[str, Any] = {
            key: row.data[key] for key in row.data if key in LIST_ROW_KEYS or key == OTHER_KEY
        }
        list_row = cast(ListRowData, kept)
    header: HeaderData = detail.data["header"]
    return {
        "court": court_id,
        "nomor_perkara": normalise_case_number(detail.nomor_perkara),
        "nomor_perkara_raw": detail.nomor_perkara,
        "list_row": list_row,
        "header": header,
        "data_umum": detail.data["data_umum"],
        "tabs": [
            TabEntry(slug=tab.slug, label=tab.label, available=tab.available)
            for tab in detail.tabs
        ],
    }
