"""Lookups across courts over the item store, on both backends: by party name (accents, case,
punctuation and spacing ignored) and by case number; and the part history of an upsert."""

from __future__ import annotations

from typing import Any

from harvest.lookup import find_by_party, normalise_name
from pipelines.store import ItemStore

NUMBER = "12/Pdt.G/2024/PN Rpk"


def case(court: str, number: str, plaintiff: str, lawyer: str) -> dict[str, Any]:
    return {
        "court": court,
        "nomor_perkara": number,
        "nomor_perkara_raw": number,
        "list_row": None,
        "header": {
            "nomor_perkara": number,
            "pihak_1": {"label": "Penggugat", "nama": [plaintiff]},
            "pihak_2": {"label": "Tergugat", "nama": ["BUDI"]},
            "status_perkara": None,
        },
        "data_umum": {
            "kuasa": [
                {
                    "label": "Kuasa Hukum Penggugat",
                    "rows": [{"nama": lawyer, "nama_pihak": plaintiff}],
                }
            ]
        },
        "tabs": [],
    }


def test_party_names_and_case_numbers_are_found_across_courts(store: ItemStore) -> None:
    store.upsert_part(
        court="pn-a", case_number=NUMBER, part="case",
        data=case("pn-a", NUMBER, "SITI ÂMINAH", "Andi Wijaya, S.H."),
    )  # fmt: skip
    store.upsert_part(
        court="pn-b", case_number=NUMBER, part="case",
        data=case("pn-b", NUMBER, "Siti  Aminah binti Umar", "Rina"),
    )  # fmt: skip
    store.upsert_part(
        court="pn-b", case_number="13/Pdt.G/2024/PN Rpk", part="case",
        data=case("pn-b", "13/Pdt.G/2024/PN Rpk", "Sitiaminah", "Rina"),
    )  # fmt: skip
    found = list(find_by_party(store.iter_case_parts(), "siti aminah"))
    assert [(m.dedupe_key, m.name) for m in found] == [
        (f"sipp.pn-a:{NUMBER}", "SITI ÂMINAH"),
        (f"sipp.pn-b:{NUMBER}", "Siti  Aminah binti Umar"),
    ]
    lawyers = list(find_by_party(store.iter_case_parts("pn-a"), "ANDI WIJAYA SH"))
    assert [(m.court, m.label) for m in lawyers] == [("pn-a", "Kuasa Hukum Penggugat")]
    assert store.find_by_number(NUMBER) == [f"sipp.pn-a:{NUMBER}", f"sipp.pn-b:{NUMBER}"]
    assert store.find_by_number("99/Pdt.G/2024/PN Rpk") == []


def test_every_upsert_is_in_the_part_history_with_its_data_when_it_changed(
    store: ItemStore,
) -> None:
    key = f"sipp.pn-a:{NUMBER}"
    first = case("pn-a", NUMBER, "A", "L")
    second = case("pn-a", NUMBER, "B", "L")
    for data in (first, first, second):
        store.upsert_part(court="pn-a", case_number=NUMBER, part="case", data=data, url="u")
    history = store.part_history(key)
    assert [(f.result, f.data) for f in history] == [
        ("created", first),
        ("unchanged", None),
        ("updated", second),
    ]
    assert history[0].seen_at < history[1].seen_at < history[2].seen_at
    assert {f.url for f in history} == {"u"}


def test_names_are_normalised_without_accents_case_or_punctuation() -> None:
    assert normalise_name("  Ñoño  ÁLVAREZ, S.H. ") == "nono alvarez sh"
